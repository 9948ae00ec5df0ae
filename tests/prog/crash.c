/* crash.c: ways to die, for the integration tests.
 * usage: crash MODE
 *   segv       a worker thread dereferences NULL while others run
 *   abort      abort() with threads running
 *   term       SIGTERM to itself
 *   wait       print "ready", then wait to be killed (SIGINT/SIGTERM/SIGKILL)
 *   handler    own SIGINT handler that prints, then re-raises with SIG_DFL
 *   segvhandler own SIGSEGV handler that recovers with siglongjmp, exit 4
 *   usr1       own SIGUSR1 handler, survives, exit 4
 *   exitthreads exit(6) while threads run
 * Every mode emits EVENTS pthread_create/join pairs first so that the test
 * can count the events recorded before the end. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EVENTS 50

static sigjmp_buf env;

static void *nothing(void *a)
{
	return a;
}

static void *segv(void *a)
{
	usleep(20000);
	*(volatile int *)a = 1;
	return NULL;
}

static void *spin(void *a)
{
	for (;;)
		usleep(100);
	return a;
}

static void on_int(int sig)
{
	const char m[] = "handled\n";
	if (write(1, m, sizeof(m) - 1) < 0)
		_exit(99);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

static void on_usr1(int sig)
{
	(void)sig;
	const char m[] = "usr1\n";
	if (write(1, m, sizeof(m) - 1) < 0)
		_exit(99);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	for (int i = 0; i < EVENTS; i++) {
		pthread_t t;
		pthread_create(&t, NULL, nothing, NULL);
		pthread_join(t, NULL);
	}
	pthread_t s;
	pthread_create(&s, NULL, spin, NULL);
	if (!strcmp(mode, "segv")) {
		pthread_t t;
		pthread_create(&t, NULL, segv, NULL);
		pthread_join(t, NULL);
	} else if (!strcmp(mode, "abort")) {
		abort();
	} else if (!strcmp(mode, "term")) {
		kill(getpid(), SIGTERM);
		pause();
	} else if (!strcmp(mode, "wait")) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	} else if (!strcmp(mode, "handler")) {
		signal(SIGINT, on_int);
		raise(SIGINT);
	} else if (!strcmp(mode, "segvhandler")) {
		signal(SIGSEGV, on_segv);
		if (!sigsetjmp(env, 1))
			*(volatile int *)NULL = 1;
		printf("recovered\n");
		return 4;
	} else if (!strcmp(mode, "usr1")) {
		signal(SIGUSR1, on_usr1);
		raise(SIGUSR1);
		return 4;
	} else if (!strcmp(mode, "exitthreads")) {
		exit(6);
	}
	return 1;
}
