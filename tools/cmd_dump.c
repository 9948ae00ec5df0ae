/* cmd_dump.c: `ovni-auto dump [-x] [--no-sort] PATH`: every event, one per
 * line: clock, MCV, stream, and the payload decoded as key=value fields. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../writer/log.h"
#include "reader.h"

static const char usage_text[] =
	"usage: ovni-auto dump [-x] [--no-sort] PATH\n"
	"\n"
	"Print the events of a trace (PATH is the trace directory) or of one stream\n"
	"(PATH is a thread.* directory), one per line, in clock order:\n"
	"\n"
	"  CLOCK  MCV  STREAM  FIELDS\n"
	"\n"
	"CLOCK is the raw clock in ns, STREAM the stream's directory relative to PATH,\n"
	"FIELDS the payload as key=value: OHx cpu= tid= tag=, OHC cpu= tag=, OAs cpu=,\n"
	"OAr cpu= tid=, OM[ OM] OM= value= type=, POc type= label=\"...\", PPc task= type=,\n"
	"PPx PPe task=, PQx PQe type=; other payloads as payload=<hex>.\n"
	"\n"
	"  -x, --hex      also print every payload in hex (hex=...)\n"
	"  --no-sort      stream after stream, in file order, instead of clock order\n"
	"\n"
	"Exit status: 0, or 1 when a stream is damaged (what could be read is printed,\n"
	"the damage is reported on stderr with the stream and byte offset).\n";

static void hex(FILE *f, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

static void describe(FILE *f, const struct rd_event *ev)
{
	const char *m = ev->mcv;
	const uint8_t *p = ev->payload;
	uint32_t n = ev->size;
	if (!n)
		return;
	fputs("  ", f);
	if (!strcmp(m, "OHx") && n >= 4) {
		fprintf(f, "cpu=%d", rd_i32(p));
		if (n >= 8)
			fprintf(f, " tid=%d", rd_i32(p + 4));
		if (n >= 16)
			fprintf(f, " tag=%llu", (unsigned long long)rd_u64(p + 8));
	} else if (!strcmp(m, "OHC") && n >= 12) {
		fprintf(f, "cpu=%d tag=%llu", rd_i32(p), (unsigned long long)rd_u64(p + 4));
	} else if (!strcmp(m, "OAs") && n == 4) {
		fprintf(f, "cpu=%d", rd_i32(p));
	} else if (!strcmp(m, "OAr") && n == 8) {
		fprintf(f, "cpu=%d tid=%d", rd_i32(p), rd_i32(p + 4));
	} else if ((!strcmp(m, "OM[") || !strcmp(m, "OM]") || !strcmp(m, "OM=")) && n == 12) {
		fprintf(f, "value=%lld type=%d", (long long)rd_i64(p), rd_i32(p + 8));
	} else if (!strcmp(m, "OCn") && n >= 4) {
		fprintf(f, "ncpus=%d", rd_i32(p));
	} else if (!strcmp(m, "POc") && ev->jumbo && n >= 4) {
		fprintf(f, "type=%u label=\"", rd_u32(p));
		for (uint32_t i = 4; i < n && p[i]; i++)
			fputc(p[i] == '"' || p[i] < 32 ? '?' : p[i], f);
		fputc('"', f);
	} else if (!strcmp(m, "PPc") && n == 8) {
		fprintf(f, "task=%u type=%u", rd_u32(p), rd_u32(p + 4));
	} else if ((!strcmp(m, "PPx") || !strcmp(m, "PPe")) && n >= 4) {
		fprintf(f, "task=%u", rd_u32(p));
	} else if ((!strcmp(m, "PQx") || !strcmp(m, "PQe")) && n >= 4) {
		fprintf(f, "type=%u", rd_u32(p));
	} else {
		fputs("payload=", f);
		hex(f, p, n);
	}
}

static void print(FILE *f, const struct rd_stream *s, const struct rd_event *ev, int with_hex)
{
	fprintf(f, "%llu  %s  %s", (unsigned long long)ev->clock, ev->mcv, s->relpath);
	describe(f, ev);
	if (with_hex && ev->size) {
		fputs(" hex=", f);
		hex(f, ev->payload, ev->size);
	}
	fputc('\n', f);
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = { { "hex", no_argument, 0, 'x' }, { "no-sort", no_argument, 0, 's' },
					      { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
	int with_hex = 0, sorted = 1, c;
	while ((c = getopt_long(argc, argv, "xh", opts, NULL)) != -1) {
		switch (c) {
		case 'x': with_hex = 1; break;
		case 's': sorted = 0; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(usage_text, stderr);
		return 2;
	}
	struct rd_trace t;
	rd_open_or_die(&t, argv[optind]);
	static char buf[1 << 16];
	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	struct rd_stream *s;
	struct rd_event ev;
	if (sorted) {
		struct rd_merge *m = rd_merge_new(&t);
		while (rd_merge_next(m, &s, &ev))
			print(stdout, s, &ev, with_hex);
		rd_merge_free(m);
	} else {
		for (int i = 0; i < t.n; i++) {
			s = &t.streams[i];
			rd_rewind(s);
			while (rd_next(s, &ev) == 1)
				print(stdout, s, &ev, with_hex);
		}
	}
	fflush(stdout);
	int bad = rd_report_damage(&t);
	rd_close(&t);
	return bad;
}
