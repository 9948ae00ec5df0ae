/* fork while other threads churn thread creation / naming (agent locks). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
static volatile int stop;
static void *nop(void *a) { return a; }
static void *churn(void *a) {
	char name[16];
	while (!stop) {
		pthread_t t;
		if (pthread_create(&t, NULL, nop, NULL) == 0) pthread_join(t, NULL);
		snprintf(name, sizeof name, "churn%ld", (long)a);
		pthread_setname_np(pthread_self(), name);
	}
	return NULL;
}
static void *forkexec(void *a) {
	for (int i = 0; i < 50; i++) {
		pid_t p = fork();
		if (p == 0) { execl("/bin/true", "true", (char *)0); _exit(127); }
		int st; waitpid(p, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) { printf("bad child status %x\n", st); }
	}
	return a;
}
int main(int argc, char **argv) {
	pthread_t th[4];
	if (argc > 1 && !strcmp(argv[1], "exec")) {
		for (long i = 0; i < 4; i++) pthread_create(&th[i], NULL, forkexec, NULL);
		for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
		printf("exec done\n");
		return 0;
	}
	for (long i = 0; i < 4; i++) pthread_create(&th[i], NULL, churn, (void *)i);
	pid_t kids[20];
	for (int i = 0; i < 20; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			pthread_t t[3];
			for (int j = 0; j < 3; j++) pthread_create(&t[j], NULL, nop, NULL);
			for (int j = 0; j < 3; j++) pthread_join(t[j], NULL);
			_exit(0);
		}
		usleep(2000);
	}
	int bad = 0;
	for (int i = 0; i < 20; i++) {
		int st; waitpid(kids[i], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) bad++;
	}
	stop = 1;
	for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
	printf("fork done, bad children %d\n", bad);
	return 0;
}
