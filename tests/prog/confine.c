/* confine: a program that confines itself with a seccomp filter, as
 * OpenSSH's pre-authentication child and sandboxed services do.  The filter
 * kills the process (SIGSYS) at any system call of a list the program
 * itself never makes after it (directories, file sizes and positioned
 * writes, alternate signal stacks, CPU affinity, timers, membarrier...),
 * all of which an agent would need to go on recording.
 *
 *   confine MODE [EXE]
 *   MODE: prctl    the filter through prctl(PR_SET_SECCOMP)
 *         syscall  through syscall(SYS_seccomp), as libseccomp does
 *         strict   the strict mode (read, write, exit, sigreturn only)
 *         probe    prctl with no filter (EFAULT: a probe), then as prctl
 *         refused  a filter the kernel refuses (EINVAL), then as prctl
 *         bpf      write the filter (struct sock_filter[]) to stdout, for
 *                  bwrap --seccomp FD
 *         child    what the exec'd child does: print a line, exit 7
 *         tsync US two threads start and join threads in a loop; after US
 *                  microseconds the main thread installs, on every thread
 *                  at once (SECCOMP_FILTER_FLAG_TSYNC), a filter that
 *                  allows only what the threads need (no open, close,
 *                  mkdir...: killed at any other), 0.2 s later stops them;
 *                  prints "tsync ok", exit 0 (a thread caught doing the
 *                  agent's work after the filter: SIGSYS)
 *   After the filter (all but strict): threads that contend on a mutex and
 *   are joined, a fork child that exits 5, a fork child that execs EXE
 *   (this program) in mode child, a handled SIGUSR1, then SIGTERM at its
 *   default: the process dies of it, as it would untraced. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define KILL_IF(n) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (n), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)
static struct sock_filter filter[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	KILL_IF(SYS_mkdir),
	KILL_IF(SYS_mkdirat),
	KILL_IF(SYS_fallocate),
	KILL_IF(SYS_ftruncate),
	KILL_IF(SYS_truncate),
	KILL_IF(SYS_pwrite64),
	KILL_IF(SYS_sigaltstack),
	KILL_IF(SYS_sched_getaffinity),
	KILL_IF(SYS_timer_create),
	KILL_IF(SYS_timer_delete),
	KILL_IF(SYS_getdents64),
	KILL_IF(SYS_rename),
	KILL_IF(SYS_renameat),
	KILL_IF(SYS_renameat2),
	KILL_IF(SYS_unlinkat),
	KILL_IF(SYS_membarrier),
	KILL_IF(SYS_msync),
	KILL_IF(SYS_fsync),
	KILL_IF(SYS_fdatasync),
	KILL_IF(SYS_rt_sigaction),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static volatile sig_atomic_t got_usr1;

static _Atomic int before_started;

static void *worker(void *arg)
{
	if (arg)
		atomic_store(&before_started, 1);
	for (int i = 0; i < 20000; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static void say(const char *s)
{
	/* write(2): stdio's buffer would be flushed by whoever exits first */
	if (write(1, s, strlen(s)) < 0)
		_exit(90);
}

static atomic_int tsync_stop;
static void *tsync_sub(void *a)
{
	return a;
}
static void *tsync_loop(void *a)
{
	while (!atomic_load(&tsync_stop)) {
		pthread_t t;
		if (pthread_create(&t, NULL, tsync_sub, NULL) == 0)
			pthread_join(t, NULL);
	}
	return a;
}

#define ALLOW(n) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (n), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
static int tsync(long us)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, tsync_loop, NULL);
	usleep((useconds_t)us);
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		ALLOW(SYS_write), ALLOW(SYS_exit), ALLOW(SYS_exit_group), ALLOW(SYS_clone), ALLOW(SYS_clone3),
		ALLOW(SYS_mmap), ALLOW(SYS_munmap), ALLOW(SYS_mprotect), ALLOW(SYS_futex), ALLOW(SYS_set_robust_list),
		ALLOW(SYS_rseq), ALLOW(SYS_rt_sigprocmask), ALLOW(SYS_madvise), ALLOW(SYS_brk), ALLOW(SYS_nanosleep),
		ALLOW(SYS_clock_nanosleep), ALLOW(SYS_getpid), ALLOW(SYS_gettid), ALLOW(SYS_rt_sigaction),
		ALLOW(SYS_sched_getaffinity), ALLOW(SYS_getrandom), ALLOW(SYS_newfstatat), ALLOW(SYS_fstat),
		ALLOW(SYS_sigaltstack), ALLOW(SYS_sched_yield),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog fp = { sizeof(f) / sizeof(f[0]), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &fp) != 0)
		return 3;
	usleep(200000);
	atomic_store(&tsync_stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return write(1, "tsync ok\n", 9) == 9 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "tsync"))
		return tsync(atol(argv[2]));
	const char *mode = argc > 1 ? argv[1] : "prctl";
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };
	if (!strcmp(mode, "bpf"))
		return fwrite(filter, sizeof(filter), 1, stdout) == 1 ? 0 : 1;
	if (!strcmp(mode, "child")) {
		say("child ran\n");
		return 7;
	}
	if (!strcmp(mode, "noprivs")) {
		/* No no_new_privs: refused without CAP_SYS_ADMIN (EACCES),
		 * three times, as a program that probes; then threads. */
		for (int i = 0; i < 3; i++) {
			int r = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
			printf("noprivs: %d %s\n", r, r ? strerror(errno) : "");
		}
		pthread_t w;
		pthread_create(&w, NULL, worker, NULL);
		pthread_join(w, NULL);
		printf("counter %ld\n", counter);
		return 0;
	}
	/* Set up before the filter: what needs rt_sigaction. */
	signal(SIGUSR1, on_usr1);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		perror("no_new_privs");
		return 1;
	}
	say("start\n");
	if (!strcmp(mode, "strict")) {
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) != 0) {
			perror("strict");
			return 1;
		}
		say("strict\n");
		syscall(SYS_exit, 3); /* exit_group is not allowed */
	}
	if (!strcmp(mode, "probe")) {
		int r = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL);
		printf("probe: %d %s\n", r, r ? strerror(errno) : "");
	}
	if (!strcmp(mode, "refused")) {
		struct sock_fprog empty = { 0, filter };
		int r = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &empty);
		printf("refused: %d %s\n", r, r ? strerror(errno) : "");
	}
	/* Threads before the filter too: the ones that are running then. */
	pthread_t before;
	pthread_create(&before, NULL, worker, (void *)1);
	while (!atomic_load(&before_started))
		sched_yield();
	fflush(stdout);
	int r;
	if (!strcmp(mode, "syscall"))
		r = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	else
		r = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
	if (r != 0) {
		perror("seccomp");
		return 1;
	}
	say("confined\n");
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	pthread_join(before, NULL);
	printf("counter %ld\n", counter);
	fflush(stdout);
	int st = 0;
	pid_t c = fork();
	if (c == 0)
		_exit(5);
	waitpid(c, &st, 0);
	printf("fork child: %d\n", WEXITSTATUS(st));
	fflush(stdout);
	if (argc > 2) {
		c = fork();
		if (c == 0) {
			execl(argv[2], argv[2], "child", (char *)NULL);
			_exit(127);
		}
		waitpid(c, &st, 0);
		printf("exec child: %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		fflush(stdout);
	}
	raise(SIGUSR1);
	printf("usr1 %d\n", (int)got_usr1);
	fflush(stdout);
	raise(SIGTERM);
	return 4; /* not reached */
}
