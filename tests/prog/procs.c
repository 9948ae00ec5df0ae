/* procs.c: process creation for the integration tests.
 * usage: procs MODE [ARGS]
 *   fork           fork a child that prints and exits 3; parent waits
 *   argmax         the largest environment variable with which an exec of
 *                  /bin/true still works, next to 17 of 120000 bytes: each
 *                  size tried in a fork child (binary search); prints it
 *   kill9          fork a child that sleeps a moment (its stream starts)
 *                  and kills itself with SIGKILL; parent waits
 *   forkthreads    fork from a worker thread while two others run
 *   bomb D         a chain of D nested forks
 *   chain N        exec itself N more times (exec chain), then exit 0
 *   execfail PATH  exec PATH, which fails, then go on (exit 5)
 *   execfailthreads PATH  the same while two threads keep creating threads
 *   execrefused [FILE]  children whose exec fails at once (missing file,
 *                  non-executable FILE, a PATH-like search found / not found)
 *   system         system("/bin/true; /bin/true")
 *   popen          popen("echo hi") and read it
 *   spawn          posix_spawn /bin/true with an environment of its own
 *   vfork          vfork + execve /bin/true
 *   daemon         fork, setsid, exec /bin/true (a detached child)
 *   clone          clone() without CLONE_VM, the child execs /bin/true
 *   late PROG STATIC  fork children that each do one thing first (a fork
 *                  child starts its stream late): exec PROG (traced), exec
 *                  STATIC (a static program), an exec that fails (E2BIG),
 *                  SIGTERM, a thread, a vfork whose child execs PROG
 * Prints what it did on stdout. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int wait_status(pid_t p)
{
	int st = 0;
	while (waitpid(p, &st, 0) < 0)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static _Atomic int stop;

static void *spinner(void *arg)
{
	while (!stop)
		usleep(200);
	return arg;
}

static void *nothing(void *arg)
{
	return arg;
}

/* Create a short thread every 2 ms until told to stop, counting them. */
static void *creator(void *arg)
{
	while (!stop) {
		pthread_t t;
		pthread_create(&t, NULL, nothing, NULL);
		pthread_join(t, NULL);
		(*(int *)arg)++;
		usleep(2000);
	}
	return NULL;
}

static int clone_child(void *arg)
{
	(void)arg;
	execl("/bin/true", "true", (char *)NULL);
	return 127;
}

static void *forker(void *arg)
{
	pid_t p = fork();
	if (p == 0) {
		printf("child of a thread\n");
		fflush(stdout);
		_exit(0);
	}
	*(int *)arg = wait_status(p);
	return NULL;
}

/* vfork, and the vfork child execs prog: its status. */
static __attribute__((noinline)) int vfork_exec(const char *prog)
{
	pid_t v = vfork();
	if (v == 0) {
		execl(prog, "prog", "15", (char *)NULL);
		_exit(127);
	}
	return wait_status(v);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "fork")) {
		pid_t p = fork();
		if (p == 0) {
			printf("child\n");
			fflush(stdout);
			_exit(3);
		}
		printf("child exit %d\n", wait_status(p));
	} else if (!strcmp(mode, "argmax")) {
		static char big[18][120010];
		char *env[20];
		for (int i = 0; i < 17; i++) {
			snprintf(big[i], 8, "B%02d=", i);
			memset(big[i] + 4, 'b', 120000 - 4);
			big[i][120000] = '\0';
			env[i] = big[i];
		}
		env[17] = big[17];
		env[18] = NULL;
		int lo = 0, hi = 120000; /* lo fits (or nothing does); hi does not */
		while (hi - lo > 1) {
			int mid = (lo + hi) / 2;
			memcpy(big[17], "P=", 2);
			memset(big[17] + 2, 'p', (size_t)mid);
			big[17][mid + 2] = '\0';
			pid_t c = fork();
			if (c == 0) {
				char *av[] = { "true", NULL };
				execve("/bin/true", av, env);
				_exit(7);
			}
			if (wait_status(c) == 0)
				lo = mid;
			else
				hi = mid;
		}
		printf("largest %d\n", lo);
	} else if (!strcmp(mode, "kill9")) {
		pid_t p = fork();
		if (p == 0) {
			usleep(1000);
			raise(SIGKILL);
			_exit(9);
		}
		int st = 0;
		waitpid(p, &st, 0);
		printf("child killed by %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	} else if (!strcmp(mode, "forkthreads")) {
		pthread_t a, b, c;
		int st = -1;
		pthread_create(&a, NULL, spinner, NULL);
		pthread_create(&b, NULL, spinner, NULL);
		usleep(5000);
		pthread_create(&c, NULL, forker, &st);
		pthread_join(c, NULL);
		stop = 1;
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		printf("child exit %d\n", st);
	} else if (!strcmp(mode, "bomb")) {
		int depth = argc > 2 ? atoi(argv[2]) : 3;
		for (int d = 0; d < depth; d++) {
			pid_t p = fork();
			if (p > 0) {
				int st = wait_status(p);
				if (d == 0)
					printf("bomb done %d\n", st);
				return st;
			}
		}
		return 0;
	} else if (!strcmp(mode, "chain")) {
		int n = argc > 2 ? atoi(argv[2]) : 0;
		printf("chain %d\n", n);
		fflush(stdout);
		if (n > 0) {
			char next[16];
			snprintf(next, sizeof(next), "%d", n - 1);
			execl("/proc/self/exe", argv[0], "chain", next, (char *)NULL);
			return 9;
		}
	} else if (!strcmp(mode, "execfail")) {
		execl(argc > 2 ? argv[2] : "/no/such/program", "x", (char *)NULL);
		printf("exec failed, going on\n");
		return 5;
	} else if (!strcmp(mode, "execrefused")) {
		/* Forked children whose exec fails at once: a missing file
		 * (ENOENT), a file that is not executable (EACCES, argv[2]), and
		 * a shell-like PATH search: /no/dir1/true and /no/dir2/true fail,
		 * /bin/true runs; then a search where no directory has it. */
		const char *paths[] = { "/no/such/program", argc > 2 ? argv[2] : "/etc/passwd" };
		for (int i = 0; i < 2; i++) {
			pid_t p = fork();
			if (p == 0) {
				execl(paths[i], "x", (char *)NULL);
				_exit(127);
			}
			printf("child %d: %d\n", i, wait_status(p));
		}
		pid_t p = fork();
		if (p == 0) {
			execl("/no/dir1/true", "true", (char *)NULL);
			execl("/no/dir2/true", "true", (char *)NULL);
			execl("/bin/true", "true", (char *)NULL);
			_exit(126);
		}
		printf("search: %d\n", wait_status(p));
		p = fork();
		if (p == 0) {
			execl("/no/dir1/nosuchcmd", "nosuchcmd", (char *)NULL);
			execl("/no/dir2/nosuchcmd", "nosuchcmd", (char *)NULL);
			_exit(127);
		}
		printf("not found: %d\n", wait_status(p));
	} else if (!strcmp(mode, "execfailthreads")) {
		pthread_t a, b;
		int na = 0, nb = 0;
		pthread_create(&a, NULL, creator, &na);
		pthread_create(&b, NULL, creator, &nb);
		usleep(20000);
		execl(argc > 2 ? argv[2] : "/no/such/program", "x", (char *)NULL);
		usleep(30000);
		stop = 1;
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		printf("exec failed, threads went on\n");
		return na > 5 && nb > 5 ? 5 : 6;
	} else if (!strcmp(mode, "system")) {
		printf("system %d\n", system("/bin/true; /bin/true"));
	} else if (!strcmp(mode, "popen")) {
		FILE *f = popen("echo hi", "r");
		char buf[32] = "";
		if (!f || !fgets(buf, sizeof(buf), f))
			return 6;
		printf("popen %s", buf);
		pclose(f);
	} else if (!strcmp(mode, "spawn")) {
		pid_t p;
		char *a[] = { "/bin/true", NULL };
		char *e[] = { "MINE=1", NULL };
		if (posix_spawn(&p, "/bin/true", NULL, NULL, a, e) != 0)
			return 7;
		printf("spawn %d\n", wait_status(p));
	} else if (!strcmp(mode, "vfork")) {
		pid_t p = vfork();
		if (p == 0) {
			char *a[] = { "/bin/true", NULL };
			execve("/bin/true", a, environ);
			_exit(127);
		}
		printf("vfork %d\n", wait_status(p));
	} else if (!strcmp(mode, "clone")) {
		static char stack[256 * 1024];
		pid_t p = clone(clone_child, stack + sizeof(stack), SIGCHLD, NULL);
		if (p < 0)
			return 8;
		printf("clone %d\n", wait_status(p));
	} else if (!strcmp(mode, "late")) {
		const char *prog = argc > 2 ? argv[2] : "/bin/true";
		const char *stat = argc > 3 ? argv[3] : "/bin/true";
		fflush(stdout);
		for (int k = 0; k < 6; k++) {
			pid_t p = fork();
			if (p == 0) {
				switch (k) {
				case 0: execl(prog, "prog", "11", (char *)NULL); break;
				case 1: execl(stat, "static_exit", "12", (char *)NULL); break;
				case 2: {
					/* More arguments than execve takes: it fails
					 * before the program is replaced. */
					size_t n = 40000;
					char **a = calloc(n + 1, sizeof(*a));
					char *big = malloc(4001);
					memset(big, 'x', 4000);
					big[4000] = '\0';
					for (size_t i = 0; i < n; i++)
						a[i] = big;
					execv(prog, a);
					_exit(13);
				}
				case 3: raise(SIGTERM); break;
				case 4: {
					pthread_t t;
					pthread_create(&t, NULL, nothing, NULL);
					pthread_join(t, NULL);
					_exit(14);
				}
				case 5: _exit(vfork_exec(prog)); break;
				}
				_exit(126);
			}
			printf("late %d: %d\n", k, wait_status(p));
		}
	} else if (!strcmp(mode, "daemon")) {
		pid_t p = fork();
		if (p == 0) {
			setsid();
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		printf("daemon %d\n", wait_status(p));
	} else {
		fprintf(stderr, "unknown mode\n");
		return 2;
	}
	return 0;
}
