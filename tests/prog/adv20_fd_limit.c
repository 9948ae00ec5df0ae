/* The last free descriptor: the program lowers RLIMIT_NOFILE to 64, fills
 * its table, keeps one slot free, then opens and closes a file in a loop
 * on one thread while the main thread creates and joins threads.  No open
 * may fail with EMFILE (none does untraced).  argv[1] "tiny": a limit of
 * 8, threads created and joined, a file opened after each.  argv[1]
 * "full": a soft limit of 32 (the hard one kept), every slot taken, a
 * thread created and joined, and the program ends with its table full. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static atomic_int stop, emfile, opens;

static void *opener(void *p)
{
	(void)p;
	while (!atomic_load(&stop)) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd < 0) {
			if (errno == EMFILE)
				atomic_fetch_add(&emfile, 1);
		} else {
			close(fd);
			atomic_fetch_add(&opens, 1);
		}
	}
	return NULL;
}

static void *nothing(void *p) { return p; }

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "full")) {
		struct rlimit r;
		getrlimit(RLIMIT_NOFILE, &r);
		r.rlim_cur = 32;
		if (r.rlim_max != RLIM_INFINITY && r.rlim_max <= 32)
			return 1;
		if (setrlimit(RLIMIT_NOFILE, &r) != 0)
			return 1;
		int n = 0;
		while (open("/dev/null", O_RDONLY) >= 0)
			n++;
		pthread_t w;
		int e = pthread_create(&w, NULL, nothing, NULL);
		if (!e)
			pthread_join(w, NULL);
		printf("full: %d opened, thread %d\n", n, e);
		return 0;
	}
	int tiny = argc > 1 && !strcmp(argv[1], "tiny");
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = tiny ? 8 : 64;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 1;
	int last = -1, filled = 0;
	for (;;) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd < 0)
			break;
		last = fd;
		filled++;
	}
	close(last); /* one slot free */
	pthread_t th;
	pthread_create(&th, NULL, opener, NULL);
	for (int i = 0; i < 200; i++) {
		pthread_t w;
		if (pthread_create(&w, NULL, nothing, NULL) == 0)
			pthread_join(w, NULL);
	}
	/* The opener has had its chance, however the threads were scheduled. */
	while (atomic_load(&opens) + atomic_load(&emfile) < 2000)
		usleep(1000);
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	printf("filled %d, EMFILE %d, opened some: %s\n", filled, atomic_load(&emfile), opens > 0 ? "yes" : "no");
	return 0;
}
