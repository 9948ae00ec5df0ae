/* truth_proc.c: process events whose outcome the program knows, for the
 * ground-truth tier (tests/truth): forks, execs that succeed and execs that
 * fail (a missing file, a file that is not executable, a PATH search for a
 * command that does not exist), exit statuses, a death by signal, and
 * signals handled.  Prints "truth|..." lines (tests/prog/truthcheck.c) from
 * what waitpid and the handler really saw. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

/* What the parent learns from the child: its exit status or signal. */
static int nreaped;

static int reap(pid_t pid, int *sig)
{
	int st;
	nreaped += pid > 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	*sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(int argc, char **argv)
{
	(void)argc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	int exits[256] = { 0 }, forks = 0, killed = 0, failed_execs = 0, execs = 0, sig;
	pid_t pid;

	/* A child that exits with status 3. */
	if ((pid = fork()) == 0)
		exit(3);
	exits[reap(pid, &sig) & 255]++;

	/* A child that runs /bin/true (status 0). */
	if ((pid = fork()) == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(120);
	}
	execs++;
	exits[reap(pid, &sig) & 255]++;

	/* Execs that fail: the child says which, then exits 127 or 126. */
	const char *bad[] = { "/nonexistent/truth-prog", argv[0] };
	for (int i = 0; i < 2; i++) {
		if ((pid = fork()) == 0) {
			if (i == 1) {
				/* A file that exists but is not executable. */
				execl("/etc/hostname", "hostname", (char *)NULL);
			} else {
				execl(bad[i], "x", (char *)NULL);
			}
			_exit(errno == ENOENT ? 127 : 126);
		}
		int st = reap(pid, &sig);
		exits[st & 255]++;
		failed_execs += st == 127 || st == 126;
	}

	/* A PATH search for a command that is nowhere: one failed exec. */
	if ((pid = fork()) == 0) {
		execlp("no-such-command-truth", "x", (char *)NULL);
		_exit(errno == ENOENT ? 127 : 126);
	}
	int st = reap(pid, &sig);
	exits[st & 255]++;
	failed_execs += st == 127;

	/* A child killed by SIGTERM. */
	if ((pid = fork()) == 0) {
		signal(SIGTERM, SIG_DFL);
		raise(SIGTERM);
		_exit(1);
	}
	reap(pid, &sig);
	killed += sig == SIGTERM;

	/* Two signals handled by this process. */
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	raise(SIGUSR1);

	forks = nreaped;
	printf("truth|procs|%d\n", 1 + forks);
	printf("truth|pmark|fork: child *|%d\n", forks);
	printf("truth|pmark|forked from *|%d\n", forks);
	printf("truth|pmark|exit status 3|%d\n", exits[3]);
	printf("truth|pmark|exit status 126|%d\n", exits[126]);
	printf("truth|pmark|exit status 127|%d\n", exits[127]);
	/* "signal SIG" marks a death by that signal: a handled one is none. */
	printf("truth|pmark|signal SIGTERM|%d\n", killed);
	printf("truth|pmark|signal SIGUSR1|%d\n", handled == 2 ? 0 : -1);
	printf("truth|pmark|exec /bin/true|%d\n", execs);
	printf("truth|pmark|failed exec *;exec failed *|%d\n", failed_execs);
	printf("truth_proc: %d execs, %d failed\n", execs, failed_execs);
	return 0;
}
