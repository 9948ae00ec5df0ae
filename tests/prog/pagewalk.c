/* pagewalk: which pages of a shared object a program has mapped when it ends.
 *
 *   pagewalk [-f] NAME CMD [ARG...]
 *
 * Runs CMD (which may be `env VAR=... PROG`: every exec in place is
 * followed) under ptrace and stops it at its exit, before its memory goes.
 * For each mapping of a file whose path ends with NAME, and for the
 * anonymous mapping right after the last of them (the object's .bss beyond
 * its file, up to the end of its image), it prints the pages present (from /proc/PID/pagemap) and the
 * fewest 64 KiB windows that hold them, where each starts in the mapping
 * (the kernel maps a file's pages around a faulting one, one such window
 * per fault: the windows are the fewest faults that map those pages; an
 * anonymous page is a fault of its own):
 *
 *   r-xp off=0x8000 pages=96 present=40 windows=2 at=0x0,0x8000
 *   anon pages=441 present=5 windows=3 at=...
 *
 * then exits with CMD's status.  With -f, each process CMD forks (not
 * vfork: a vfork child shares its parent's memory) is stopped too, when it
 * enters execve, and its mappings of NAME and of libc are printed as
 * "child NAME" and "child libc" lines: what a fork child of a shell
 * touched before its exec, where every text page is faulted in anew (the
 * kernel copies no page table of a file mapping at fork).  The child then
 * runs on untraced.  A page present is a page fault taken (or a
 * page the loader wrote): tests count them to keep what a process touches
 * of the agent from growing unnoticed (bench/README.md). */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
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

/* The end of the object's memory image (its highest PT_LOAD's end) past
 * its load base: the anonymous mapping after its file is its .bss up to
 * there, and another anonymous mapping next to it may have merged with it
 * (a thread's stack, an allocator's chunk).  0 when unknown. */
static uint64_t image_end(const char *file)
{
	Elf64_Ehdr eh;
	uint64_t end = 0;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr))
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != (ssize_t)sizeof(ph))
				break;
			if (ph.p_type == PT_LOAD && ph.p_vaddr + ph.p_memsz > end)
				end = ph.p_vaddr + ph.p_memsz;
		}
	close(fd);
	return (end + 4095) & ~(uint64_t)4095;
}

/* tag: printed first on every line ("" for the main process) */
static void walk(pid_t pid, const char *name, const char *tag)
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
	uint64_t base = 0, end = 0; /* its load base, its image's end (0: not known) */
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
			if (!found && off == 0) {
				base = lo;
				end = image_end(f);
			}
			count(pm, lo, hi, &present, &windows, at, sizeof(at));
			printf("%s%s off=0x%" PRIx64 " pages=%" PRIu64 " present=%ld windows=%ld at=%s\n", tag, perms,
			       off, (hi - lo) / 4096, present, windows, at);
			after = hi;
			found = 1;
		} else if (found && !*f && lo == after) {
			if (end && base + end > lo && base + end < hi)
				hi = base + end;
			count(pm, lo, hi, &present, &windows, at, sizeof(at));
			printf("%sanon pages=%" PRIu64 " present=%ld windows=%ld at=%s\n", tag, (hi - lo) / 4096,
			       present, windows, at);
			after = 0;
		}
	}
	if (!found)
		printf("%snone: no mapping of %s\n", tag, name);
	fclose(maps);
	close(pm);
	fflush(stdout);
}

/* A fork child at a system call's entry: execve or execveat? */
static int entering_exec(pid_t pid)
{
	struct __ptrace_syscall_info info;
	long n = ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(info), &info);
	if (n <= 0 || info.op != PTRACE_SYSCALL_INFO_ENTRY)
		return 0;
	return info.entry.nr == SYS_execve
#ifdef SYS_execveat
	       || info.entry.nr == SYS_execveat
#endif
		;
}

int main(int argc, char **argv)
{
	int forks = argc > 1 && !strcmp(argv[1], "-f");
	argv += forks;
	argc -= forks;
	if (argc < 3) {
		fprintf(stderr, "usage: pagewalk [-f] NAME CMD [ARG...]\n");
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
	long options = PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC | PTRACE_O_TRACESYSGOOD;
	if (forks)
		options |= PTRACE_O_TRACEFORK;
	int st, options_set = 0;
	for (;;) {
		pid_t who = waitpid(-1, &st, __WALL);
		if (who < 0) {
			if (errno == EINTR)
				continue;
			perror("pagewalk: waitpid");
			return 2;
		}
		if (who != pid) {
			/* A fork child (auto-attached, with our options): run it
			 * system call by system call up to its exec. */
			if (!WIFSTOPPED(st))
				continue;
			int sig = WSTOPSIG(st);
			if (sig == (SIGTRAP | 0x80) && entering_exec(who)) {
				walk(who, argv[1], "child ");
				walk(who, "/libc.so.6", "child libc ");
				ptrace(PTRACE_DETACH, who, NULL, NULL);
				continue;
			}
			int give = (sig == SIGTRAP || sig == (SIGTRAP | 0x80) || sig == SIGSTOP) ? 0 : sig;
			if (sig == SIGTRAP && (st >> 16) == PTRACE_EVENT_EXIT)
				give = 0;
			ptrace(PTRACE_SYSCALL, who, NULL, (void *)(long)give);
			continue;
		}
		if (WIFEXITED(st))
			return WEXITSTATUS(st);
		if (WIFSIGNALED(st))
			return 128 + WTERMSIG(st);
		if (!WIFSTOPPED(st))
			continue;
		int sig = WSTOPSIG(st), give = 0;
		if (sig == SIGTRAP && (st >> 16) == PTRACE_EVENT_EXIT) {
			walk(pid, argv[1], "");
		} else if (sig == SIGTRAP && ((st >> 16) == PTRACE_EVENT_EXEC || (st >> 16) == PTRACE_EVENT_FORK)) {
			/* an exec in place, or a fork (its child stops on its own) */
		} else if (sig == SIGTRAP && !options_set) {
			/* the first exec's stop (PTRACE_TRACEME) */
			ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)options);
			options_set = 1;
		} else {
			give = sig;
		}
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)give);
	}
}
