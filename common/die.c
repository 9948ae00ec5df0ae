/* die.c: die()/err() for the command line tools (log.h).  Not linked into
 * the agent: its stdio would make the loader look up `stderr` in every
 * process that loads the agent, for nothing the agent calls. */
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *oa_progname = "ovni-auto";

__attribute__((format(printf, 1, 0))) static void vreport(const char *fmt, va_list ap)
{
	int e = errno;
	fprintf(stderr, "%s: ", oa_progname);
	vfprintf(stderr, fmt, ap);
	size_t len = strlen(fmt);
	if (len && fmt[len - 1] == ':')
		fprintf(stderr, " %s", strerror(e));
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	exit(1);
}

void err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
}
