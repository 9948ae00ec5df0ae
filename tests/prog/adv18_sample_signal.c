/* The program uses the sampling signal (SIGRTMIN+4) itself.
 * Each mode first burns CPU (samples are taken), then:
 * own:   installs its own handler (the previous disposition must read
 *        SIG_DFL), burns CPU, sends itself 3 signals: exactly 3 arrive.
 * reset: sets every signal to SIG_DFL, as daemons and shells do, then burns
 *        CPU on two threads: it must not be killed.
 * wait:  blocks the signal, burns CPU, then sigwaits for one it sends. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static void on_sig(int s) { (void)s; got++; }

static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void *burn(void *p)
{
	(void)p;
	volatile double x = 0;
	for (double t0 = cpu(); cpu() - t0 < 0.3;)
		x += 1;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "own";
	int sig = SIGRTMIN + 4;
	burn(NULL);
	if (!strcmp(mode, "own")) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_sig;
		sigaction(sig, &sa, &old);
		printf("previous: %s\n", old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO) ? "SIG_DFL" : "other");
		burn(NULL);
		for (int i = 0; i < 3; i++) {
			union sigval v = { .sival_int = i };
			sigqueue(getpid(), sig, v);
		}
		printf("received %d\n", (int)got);
	} else if (!strcmp(mode, "reset")) {
		struct sigaction dfl;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		for (int s = 1; s < NSIG; s++)
			if (s != SIGKILL && s != SIGSTOP && (s < 32 || s >= SIGRTMIN))
				sigaction(s, &dfl, NULL);
		pthread_t th;
		pthread_create(&th, NULL, burn, NULL);
		burn(NULL);
		pthread_join(th, NULL);
		printf("alive\n");
	} else {
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, sig);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		burn(NULL);
		union sigval v = { .sival_int = 42 };
		sigqueue(getpid(), sig, v);
		siginfo_t si;
		int r = sigwaitinfo(&set, &si);
		printf("sigwaitinfo: %s value %d\n", r == sig ? "the signal" : "other", si.si_value.sival_int);
	}
	return 0;
}
