/* log.h: signal-safe logging for the agent (oa_log/oa_warn), and
 * die()/err() helpers for the command line tools. */
#ifndef OA_LOG_H
#define OA_LOG_H

#include <stdarg.h>

/* Agent side: format into a stack buffer and write(2) to stderr in one call.
 * Only %s %d %u %ld %lu %lld %llu %x %lx %p %c %% are understood; safe in signal handlers. */
void oa_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Where oa_log writes: stderr, or -1 (nowhere) when the program started
 * with descriptor 2 closed: the number is then the program's to reuse, and
 * its files are not ours to write in. */
extern int oa_log_fd;
/* At the agent's start: note which file descriptor 2 is (none: oa_log_fd
 * -1).  oa_log writes there only while it is still that file: a program
 * that closed its stderr and opened a file of its own, which took number
 * 2 (a daemon's log, a data file), has our lines in ovnirun's report, not
 * in its file. */
void oa_log_note_stderr(void);
/* A file that each oa_log line is also appended to ("PID message"):
 * ovnirun's report (OVNI_REPORT), read at the end of the run; "" for none. */
extern char oa_log_report[256];
int oa_vsnprintf(char *buf, unsigned long size, const char *fmt, va_list ap);
int oa_snprintf(char *buf, unsigned long size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Tools side (not signal-safe): print "ovni-auto: msg" and exit(1).
 * A message ending in ':' gets ": strerror(errno)" appended. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern const char *oa_progname;

#endif
