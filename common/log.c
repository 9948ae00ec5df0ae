/* log.c: a tiny async-signal-safe formatter (no malloc, no locale, no stdio)
 * used by the injected agent (the tools' die()/err() are in die.c). */
#include "log.h"

#include "compiler.h"

#include "fdroom.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

int oa_log_fd = STDERR_FILENO;
char oa_log_report[256];
/* The file descriptor 2 was at the start (oa_log_note_stderr). */
static unsigned long long stderr_dev, stderr_ino;
static int stderr_noted;

/* A raw fstat (sys.h: errno left alone, no wrapper page of libc's). */
OA_START_TEXT void oa_log_note_stderr(void)
{
	struct stat st;
	if (oa_sys3(SYS_fstat, STDERR_FILENO, (long)&st, 0) != 0) {
		oa_log_fd = -1;
		return;
	}
	stderr_dev = (unsigned long long)st.st_dev;
	stderr_ino = (unsigned long long)st.st_ino;
	stderr_noted = 1;
}

static int still_stderr(int fd)
{
	struct stat st;
	if (!stderr_noted)
		return 1;
	return oa_sys3(SYS_fstat, fd, (long)&st, 0) == 0 && (unsigned long long)st.st_dev == stderr_dev &&
	       (unsigned long long)st.st_ino == stderr_ino;
}

struct out {
	char *buf;
	unsigned long size;
	unsigned long len;
	unsigned long skip; /* the first bytes not kept (oa_log: a line's end) */
};

OA_EARLY_TEXT static void put(struct out *o, char c)
{
	if (o->len >= o->skip && o->len - o->skip + 1 < o->size)
		o->buf[o->len - o->skip] = c;
	o->len++;
}

OA_EARLY_TEXT static void put_str(struct out *o, const char *s)
{
	if (!s)
		s = "(null)";
	while (*s)
		put(o, *s++);
}

OA_EARLY_TEXT static void put_num(struct out *o, unsigned long long v, int neg, unsigned base)
{
	char tmp[24];
	int n = 0;
	if (neg)
		put(o, '-');
	do {
		unsigned d = (unsigned)(v % base);
		tmp[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v /= base;
	} while (v && n < (int)sizeof(tmp));
	while (n > 0)
		put(o, tmp[--n]);
}

static int format(char *buf, unsigned long size, unsigned long skip, const char *fmt, va_list ap);

OA_EARLY_TEXT int oa_vsnprintf(char *buf, unsigned long size, const char *fmt, va_list ap)
{
	return format(buf, size, 0, fmt, ap);
}

/* The text from its byte `skip` on (its length in all is returned). */
OA_EARLY_TEXT static int format(char *buf, unsigned long size, unsigned long skip, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0, skip };
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			put(&o, *p);
			continue;
		}
		p++;
		int lng = 0;
		while (*p == 'l') {
			lng++;
			p++;
		}
		/* Tests, not a switch: its jump table is in .rodata, a page
		 * that a fork child formatting its exec's marks faulted in. */
		char c = *p;
		if (c == 's') {
			put_str(&o, va_arg(ap, const char *));
		} else if (c == 'c') {
			put(&o, (char)va_arg(ap, int));
		} else if (c == 'd') {
			long long v = lng >= 2 ? va_arg(ap, long long) : lng ? va_arg(ap, long) : va_arg(ap, int);
			put_num(&o, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, v < 0, 10);
		} else if (c == 'u' || c == 'x') {
			unsigned long long v = lng >= 2 ? va_arg(ap, unsigned long long)
					       : lng    ? va_arg(ap, unsigned long)
							: va_arg(ap, unsigned);
			put_num(&o, v, 0, c == 'u' ? 10 : 16);
		} else if (c == 'p') {
			put(&o, '0');
			put(&o, 'x');
			put_num(&o, (uintptr_t)va_arg(ap, void *), 0, 16);
		} else if (c == '%') {
			put(&o, '%');
		} else if (c == '\0') {
			p--;
		} else {
			put(&o, '%');
			put(&o, c);
		}
	}
	unsigned long kept = o.len > skip ? o.len - skip : 0;
	if (size)
		buf[kept < size ? kept : size - 1] = '\0';
	return (int)o.len;
}

OA_EARLY_TEXT int oa_snprintf(char *buf, unsigned long size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = oa_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* Past a file size limit (`ulimit -f`; OpenSSH's sandboxed child sets 0)
 * a write to a file fails with EFBIG and raises SIGXFSZ, whose default
 * kills the program: our line to a stderr that is a file must not.  The
 * signal waits while we write, and the one the write raised is taken
 * back (not one that was pending already: the program's). */
static void log_write(int fd, const void *p, size_t n)
{
	sigset_t one, old, pend;
	sigemptyset(&one);
	sigaddset(&one, SIGXFSZ);
	int blocked = pthread_sigmask(SIG_BLOCK, &one, &old) == 0;
	int was = sigpending(&pend) == 0 && sigismember(&pend, SIGXFSZ) == 1;
	ssize_t r = write(fd, p, n);
	if (r < 0 && errno == EFBIG && blocked && !was) {
		struct timespec zero = { 0, 0 };
		oa_sys4(SYS_rt_sigtimedwait, (long)&one, 0, (long)&zero, _NSIG / 8);
	}
	if (blocked)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* A stderr that is a file within 1 MiB of the program's file size limit
 * (`ulimit -f`): the bytes left to write there are the program's (a line
 * of ours took ~110 of the 512 of `ulimit -f 1`, and the program's next
 * write past them raised SIGXFSZ: killed where it ran to its end
 * untraced; or the line was cut in its file).  Our line then goes to
 * ovnirun's report only. */
static int stderr_budgeted(int fd, size_t n)
{
	struct rlimit rl;
	struct stat st;
	if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || fstat(fd, &st) != 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	uint64_t used = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	return used + n + (1u << 20) > (uint64_t)rl.rlim_cur;
}

/* Do a and b (up to their newlines) say the same, numbers aside (pids,
 * error numbers)? */
static int same_but_numbers(const char *a, const char *ae, const char *b, const char *be)
{
	for (;;) {
		while (a < ae && *a >= '0' && *a <= '9')
			a++;
		while (b < be && *b >= '0' && *b <= '9')
			b++;
		int a_end = a == ae || *a == '\n', b_end = b == be || *b == '\n';
		if (a_end || b_end)
			return a_end && b_end;
		if (*a++ != *b++)
			return 0;
	}
}

/* Has another process of the run shown msg already on the stderr this
 * process has (its line in ovnirun's report, "PID@DEV:INO message" where
 * it was shown on the stderr of that device and inode, numbers aside)?
 * Then it is not said on stderr again: one line on a terminal, a pipe or
 * a log file in the run, not one per process (a sandbox's hidden trace:
 * every process of a script said it), and the report keeps them all for
 * ovnirun's end.  A line shown nowhere, or on another stderr (one process
 * with `2>/dev/null`, the next on the terminal), does not count.  The
 * first 64 KiB of the report are read, 1 KiB at a time (this may run on
 * a small alternate signal stack). */
static int said_in_run(const char *msg, size_t len)
{
	if (!oa_log_report[0] || !stderr_noted)
		return 0;
	int fd = oa_nc_openat(AT_FDCWD, oa_log_report, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	char buf[1024];
	size_t have = 0, total = 0;
	int found = 0;
	unsigned long long self = (unsigned long long)getpid();
	while (!found && total < (64u << 10)) {
		ssize_t r = read(fd, buf + have, sizeof(buf) - have);
		if (r <= 0)
			break;
		have += (size_t)r;
		total += (size_t)r;
		char *p = buf, *end = buf + have, *nl;
		while (!found && (nl = memchr(p, '\n', (size_t)(end - p)))) {
			/* PID, '@', DEV, ':', INO, ' ': three numbers. */
			unsigned long long v[3] = { 0, 0, 0 };
			const char *d = p;
			int k = 0;
			for (; d < nl && k < 3; d++) {
				if (*d >= '0' && *d <= '9')
					v[k] = v[k] * 10 + (unsigned long long)(*d - '0');
				else if ((k == 0 && *d == '@') || (k == 1 && *d == ':'))
					k++;
				else
					break;
			}
			/* Another process's, shown on this stderr: the same process
			 * says what it says as often as it does (a debug report's
			 * lines). */
			found = k == 2 && d < nl && *d == ' ' && v[0] != self && v[1] == stderr_dev &&
				v[2] == stderr_ino && same_but_numbers(d + 1, nl, msg, msg + len);
			p = nl + 1;
		}
		/* A line longer than the buffer: dropped. */
		have = p == buf && have == sizeof(buf) ? 0 : (size_t)(end - p);
		memmove(buf, p, have);
	}
	oa_nc_close(fd);
	return found;
}

void oa_log(const char *fmt, ...)
{
	char buf[512];
	int saved = errno;
	size_t n = (size_t)oa_snprintf(buf, sizeof(buf) - 1, "ovni-auto: ");
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	size_t space = sizeof(buf) - n - 1;
	size_t all = (size_t)oa_vsnprintf(buf + n, space, fmt, ap);
	if (all >= space) {
		/* Too long (a path near PATH_MAX): its start, "...", and its
		 * end, which says why (it was cut, in the path). */
		size_t head = 96;
		memcpy(buf + n + head, "...", 3);
		head += 3;
		format(buf + n + head, space - head, all - (space - head - 1), fmt, again);
	}
	va_end(again);
	va_end(ap);
	n = strlen(buf);
	if (n == 0 || buf[n - 1] != '\n')
		buf[n++] = '\n';
	buf[n] = '\0'; /* the report below reads it as a string */
	/* Under ovnirun the line goes to its report ("PID message", or
	 * "PID@DEV:INO message" when it was shown on a stderr of that device
	 * and inode; appended in one write: the file is ovnirun's; a message
	 * is rare, a problem or a debug line), and to stderr unless another
	 * process showed it there already. */
	int room = oa_log_report[0] && oa_fd_room(), said = 0;
	if (room) {
		oa_fdlock_agent_enter(); /* fdroom.h */
		said = said_in_run(buf + 11, n - 11);
		oa_fdlock_agent_leave();
	}
	int shown = 0;
	if (!said && oa_log_fd >= 0 && still_stderr(oa_log_fd) && !stderr_budgeted(oa_log_fd, n)) {
		log_write(oa_log_fd, buf, n);
		shown = stderr_noted;
	}
	if (room) {
		char line[600];
		size_t m = shown ? (size_t)oa_snprintf(line, sizeof(line), "%d@%llu:%llu %s", (int)getpid(), stderr_dev,
						       stderr_ino, buf + 11)
				 : (size_t)oa_snprintf(line, sizeof(line), "%d %s", (int)getpid(), buf + 11);
		if (m >= sizeof(line))
			m = sizeof(line) - 1;
		oa_fdlock_agent_enter();
		int fd = open(oa_log_report, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			log_write(fd, line, m);
			oa_nc_close(fd);
		}
		oa_fdlock_agent_leave();
	}
	errno = saved;
}
