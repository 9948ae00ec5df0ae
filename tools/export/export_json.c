/* export_json.c: Chrome trace-event JSON ({"traceEvents": [...]}), which
 * Perfetto UI, chrome://tracing and speedscope open. Streamed: one line per
 * event, times in microseconds with nanosecond decimals. */
#include <inttypes.h>
#include <string.h>

#include "export.h"

static int first;

static void sep(FILE *f)
{
	fputs(first ? "\n" : ",\n", f);
	first = 0;
}

static void str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void ts(FILE *f, int64_t ns)
{
	fprintf(f, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000 < 0 ? -(ns % 1000) : ns % 1000));
}

static void begin(FILE *f)
{
	first = 1;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
}

static void track(FILE *f, const struct ex_track *t)
{
	sep(f);
	fprintf(f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":", t->pid);
	str(f, t->process_name);
	fputs("}}", f);
	sep(f);
	fprintf(f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":", t->pid, t->tid);
	str(f, t->name);
	fputs("}}", f);
	sep(f);
	fprintf(f, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
		t->pid, t->tid, t->sort);
}

static void counter_track(FILE *f, uint64_t uuid, int pid, const char *process_name, const char *name)
{
	(void)f, (void)uuid, (void)pid, (void)process_name, (void)name;
}

static void slice_begin(FILE *f, const struct ex_track *t, int64_t at, const char *name, const char *args)
{
	sep(f);
	fprintf(f, "{\"ph\":\"B\",\"pid\":%d,\"tid\":%d,\"ts\":", t->pid, t->tid);
	ts(f, at);
	fputs(",\"name\":", f);
	str(f, name);
	if (args)
		fprintf(f, ",\"args\":%s", args);
	fputc('}', f);
}

static void slice_end(FILE *f, const struct ex_track *t, int64_t at)
{
	sep(f);
	fprintf(f, "{\"ph\":\"E\",\"pid\":%d,\"tid\":%d,\"ts\":", t->pid, t->tid);
	ts(f, at);
	fputc('}', f);
}

static void flow(FILE *f, const struct ex_track *t, int64_t at, uint64_t id, int start, const char *cat)
{
	sep(f);
	fprintf(f, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":", start ? "s" : "f", t->pid, t->tid);
	ts(f, at);
	fprintf(f, ",\"id\":%" PRIu64 ",\"cat\":\"%s\",\"name\":\"%s\"%s}", id, cat, cat, start ? "" : ",\"bp\":\"e\"");
}

static void instant(FILE *f, const struct ex_track *t, int64_t at, const char *name)
{
	sep(f);
	fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,\"ts\":", t->pid, t->tid);
	ts(f, at);
	fputs(",\"name\":", f);
	str(f, name);
	fputc('}', f);
}

static void counter(FILE *f, uint64_t uuid, int pid, int64_t at, const char *name, int64_t value)
{
	(void)uuid;
	sep(f);
	fprintf(f, "{\"ph\":\"C\",\"pid\":%d,\"ts\":", pid);
	ts(f, at);
	fputs(",\"name\":", f);
	str(f, name);
	fprintf(f, ",\"args\":{\"value\":%" PRId64 "}}", value);
}

static void end(FILE *f)
{
	fputs("\n]}\n", f);
}

const struct ex_ops ex_json_ops = { begin, track, counter_track, slice_begin, slice_end, flow, instant, counter, end };
