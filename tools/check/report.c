/* report.c: the problems of a trace as `ovni-auto check` prints them: one
 * line each (STREAM offset N MCV: what), at most CK_LIST_MAX of a kind,
 * counted per kind and per stream; and the notes.  The rules and the
 * driver report here; nothing here calls them. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

void ck_count_problem(struct ck *c, struct ck_thread *th, const char *kind, int *listed)
{
	c->problems++;
	if (th && !c->stream_bad[th->s->index]) {
		c->stream_bad[th->s->index] = 1;
		c->streams_with_problems++;
	}
	size_t k = 0;
	while (k < 63 && c->kinds[k].kind && strcmp(c->kinds[k].kind, kind))
		k++;
	c->kinds[k].kind = kind;
	*listed = ++c->kinds[k].n <= CK_LIST_MAX;
}

void ck_problem(struct ck *c, struct ck_thread *th, const struct rd_event *ev, const char *kind, const char *fmt, ...)
{
	int listed;
	ck_count_problem(c, th, kind, &listed);
	if (!listed)
		return;
	fputs(th ? th->s->relpath : "trace", c->out);
	if (ev) {
		char mcv[4];
		for (int i = 0; i < 3; i++)
			mcv[i] = (unsigned char)ev->mcv[i] > 32 && (unsigned char)ev->mcv[i] < 127 ? ev->mcv[i] : '?';
		mcv[3] = '\0';
		fprintf(c->out, " offset %zu %s", ev->offset, mcv);
	}
	fputs(": ", c->out);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(c->out, fmt, ap);
	va_end(ap);
	fputc('\n', c->out);
}

void ck_note(struct ck *c, const char *fmt, ...)
{
	if (c->quiet)
		return;
	fputs("note: ", c->out);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(c->out, fmt, ap);
	va_end(ap);
	fputc('\n', c->out);
}
