/* pagewalk: which pages of a shared object a program has mapped when it ends.
 *
 *   pagewalk NAME CMD [ARG...]
 *
 * Runs CMD (which may be `env VAR=... PROG`: every exec in place is
 * followed) under ptrace and stops it at its exit, before its memory goes.
 * For each mapping of a file whose path ends with NAME, and for the
 * anonymous mapping right after the last of them (the object's .bss beyond
 * its file), it prints the pages present (from /proc/PID/pagemap) and the
 * fewest 64 KiB windows that hold them, where each starts in the mapping
 * (the kernel maps a file's pages around a faulting one, one such window
 * per fault: the windows are the fewest faults that map those pages; an
 * anonymous page is a fault of its own):
 *
 *   r-xp off=0x8000 pages=96 present=40 windows=2 at=0x0,0x8000
 *   anon pages=441 present=5 windows=3 at=...
 *
 * then exits with CMD's status.  A page present is a page fault taken (or a
 * page the loader wrote): tests count them to keep what a process touches
 * of the agent from growing unnoticed (bench/README.md). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static int ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && strcmp(s + a - b, tail) == 0;
}

/* The fewest page faults that map the pages present: a fault maps the
 * 64 KiB-aligned window around it, or, in the mapping's first window when
 * the mapping does not start on 64 KiB, the 64 KiB from its start (the
 * kernel's fault-around).  at: where each window starts in the mapping. */
static void count(int pm, uint64_t lo, uint64_t hi, long *present, long *windows, char *at, size_t size)
{
	uint64_t covered = lo; /* mapped by the windows counted so far, up to */
	*present = *windows = 0;
	*at = 0;
	for (uint64_t a = lo; a < hi; a += 4096) {
		uint64_t e;
		if (pread(pm, &e, sizeof(e), (off_t)(a / 4096 * 8)) != (ssize_t)sizeof(e))
			break;
		if (!(e >> 63))
			continue;
		(*present)++;
		if (a < covered)
			continue;
		uint64_t from = a & ~(uint64_t)65535;
		if (from < lo)
			from = lo;
		covered = from + 65536;
		(*windows)++;
		size_t n = strlen(at);
		snprintf(at + n, size - n, "%s0x%" PRIx64, n ? "," : "", from - lo);
	}
}

static void walk(pid_t pid, const char *name)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *maps = fopen(path, "r");
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	int pm = open(path, O_RDONLY);
	if (!maps || pm < 0) {
		perror("pagewalk: /proc");
		exit(2);
	}
	char line[4096];
	uint64_t after = 0; /* end of the object's last mapping */
	int found = 0;
	while (fgets(line, sizeof(line), maps)) {
		uint64_t lo, hi, off;
		char perms[8], file[4096] = "";
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %4095[^\n]", &lo, &hi, perms, &off,
			   file) < 4)
			continue;
		char *f = file;
		while (isspace((unsigned char)*f))
			f++;
		long present, windows;
		char at[512];
		if (*f && ends_with(f, name)) {
			count(pm, lo, hi, &present, &windows, at, sizeof(at));
			printf("%s off=0x%" PRIx64 " pages=%" PRIu64 " present=%ld windows=%ld at=%s\n", perms, off,
			       (hi - lo) / 4096, present, windows, at);
			after = hi;
			found = 1;
		} else if (found && !*f && lo == after) {
			count(pm, lo, hi, &present, &windows, at, sizeof(at));
			printf("anon pages=%" PRIu64 " present=%ld windows=%ld at=%s\n", (hi - lo) / 4096, present,
			       windows, at);
			after = 0;
		}
	}
	if (!found)
		printf("none: no mapping of %s\n", name);
	fclose(maps);
	close(pm);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: pagewalk NAME CMD [ARG...]\n");
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	int st, options_set = 0;
	for (;;) {
		if (waitpid(pid, &st, 0) < 0) {
			if (errno == EINTR)
				continue;
			perror("pagewalk: waitpid");
			return 2;
		}
		if (WIFEXITED(st))
			return WEXITSTATUS(st);
		if (WIFSIGNALED(st))
			return 128 + WTERMSIG(st);
		if (!WIFSTOPPED(st))
			continue;
		int sig = WSTOPSIG(st), give = 0;
		if (sig == SIGTRAP && (st >> 16) == PTRACE_EVENT_EXIT) {
			walk(pid, argv[1]);
		} else if (sig == SIGTRAP && (st >> 16) == PTRACE_EVENT_EXEC) {
			/* an exec in place: nothing to do */
		} else if (sig == SIGTRAP && !options_set) {
			/* the first exec's stop (PTRACE_TRACEME) */
			ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC));
			options_set = 1;
		} else {
			give = sig;
		}
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)give);
	}
}
