/* cmd_dump.c: `ovni-auto dump [-x] [--no-sort] PATH`: every event, one per
 * line: raw clock, MCV, stream, and the payload decoded as key=value fields.
 * Lines are formatted by hand into a large output buffer (printf per field
 * would make dump several times slower than reading). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../common/log.h"
#include "trace/reader.h"

static const char usage_text[] =
	"usage: ovni-auto dump [-x] [--no-sort] PATH\n"
	"\n"
	"Print the events of a trace (PATH is the trace directory) or of one stream\n"
	"(PATH is a stream directory), one per line, in clock order:\n"
	"\n"
	"  CLOCK  MCV  STREAM  FIELDS\n"
	"\n"
	"  -x, --hex      also print every payload in hex (hex=...)\n"
	"  --no-sort      stream after stream, in file order, instead of clock order\n"
	"\n"
	"Exit status: 0, or 1 when a stream is damaged (what could be read is printed,\n"
	"the damage is reported on stderr with the stream and byte offset).\n"
	"\n"
	"The manual page has the details: man ovni-auto-dump\n";

/* Output buffer, written with write(2) when nearly full. */
static char obuf[1 << 17];
static size_t olen;
static int out_failed;

static void flush_out(void)
{
	size_t done = 0;
	while (done < olen && !out_failed) {
		ssize_t n = write(STDOUT_FILENO, obuf + done, olen - done);
		if (n <= 0)
			out_failed = 1;
		else
			done += (size_t)n;
	}
	olen = 0;
}

/* Room for n more bytes. */
static inline char *room(size_t n)
{
	if (olen + n > sizeof(obuf))
		flush_out();
	return obuf + olen;
}

static inline void put(const char *s, size_t n)
{
	while (n > sizeof(obuf) / 2) { /* huge labels go out in pieces */
		put(s, sizeof(obuf) / 2);
		s += sizeof(obuf) / 2;
		n -= sizeof(obuf) / 2;
	}
	memcpy(room(n), s, n);
	olen += n;
}

#define PUTS(lit) put(lit, sizeof(lit) - 1)

static inline void put_u64(uint64_t v)
{
	char tmp[24];
	int i = 24;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(tmp + i, (size_t)(24 - i));
}

static inline void put_i64(int64_t v)
{
	if (v < 0) {
		PUTS("-");
		put_u64((uint64_t)0 - (uint64_t)v);
	} else {
		put_u64((uint64_t)v);
	}
}

static void put_hex(const uint8_t *p, uint32_t n)
{
	static const char digits[] = "0123456789abcdef";
	while (n) {
		uint32_t chunk = n > 4096 ? 4096 : n;
		char *o = room(2 * (size_t)chunk);
		for (uint32_t i = 0; i < chunk; i++) {
			o[2 * i] = digits[p[i] >> 4];
			o[2 * i + 1] = digits[p[i] & 15];
		}
		olen += 2 * (size_t)chunk;
		p += chunk;
		n -= chunk;
	}
}

/* The label of a POc, up to its NUL; quotes, backslashes and control bytes
 * become '?' so that the field stays one quoted word. */
static void put_label(const uint8_t *p, uint32_t n)
{
	PUTS("\"");
	for (uint32_t i = 0; i < n && p[i]; i++) {
		char c = (char)(p[i] == '"' || p[i] == '\\' || p[i] < 32 || p[i] == 127 ? '?' : p[i]);
		put(&c, 1);
	}
	PUTS("\"");
}

static int is(const char *mcv, const char *want)
{
	return mcv[0] == want[0] && mcv[1] == want[1] && mcv[2] == want[2];
}

/* The key=value fields of the payload (nothing when there is none). */
static void describe(const struct rd_event *ev)
{
	const char *m = ev->mcv;
	const uint8_t *p = ev->payload;
	uint32_t n = ev->size;
	if (!n)
		return;
	PUTS("  ");
	if (m[0] == 'O' && m[1] == 'H' && (m[2] == 'x' || m[2] == 'C') && n >= 4 && !ev->jumbo) {
		PUTS("cpu=");
		put_i64(rd_i32(p));
		if (m[2] == 'x' && n >= 8) {
			PUTS(" tid=");
			put_i64(rd_i32(p + 4));
		}
		if (m[2] == 'x' && n >= 16) {
			PUTS(" tag=");
			put_u64(rd_u64(p + 8));
		} else if (m[2] == 'C' && n >= 12) {
			PUTS(" tag=");
			put_u64(rd_u64(p + 4));
		}
	} else if (is(m, "OAs") && n == 4 && !ev->jumbo) {
		PUTS("cpu=");
		put_i64(rd_i32(p));
	} else if (is(m, "OAr") && n == 8 && !ev->jumbo) {
		PUTS("cpu=");
		put_i64(rd_i32(p));
		PUTS(" tid=");
		put_i64(rd_i32(p + 4));
	} else if (m[0] == 'O' && m[1] == 'M' && (m[2] == '[' || m[2] == ']' || m[2] == '=') && n == 12 && !ev->jumbo) {
		PUTS("value=");
		put_i64(rd_i64(p));
		PUTS(" type=");
		put_i64(rd_i32(p + 8));
	} else if (is(m, "OCn") && n >= 4 && !ev->jumbo) {
		PUTS("ncpus=");
		put_i64(rd_i32(p));
	} else if (is(m, "POc") && ev->jumbo && n >= 4) {
		PUTS("type=");
		put_u64(rd_u32(p));
		PUTS(" label=");
		put_label(p + 4, n - 4);
	} else if (is(m, "PPc") && n == 8 && !ev->jumbo) {
		PUTS("task=");
		put_u64(rd_u32(p));
		PUTS(" type=");
		put_u64(rd_u32(p + 4));
	} else if (m[0] == 'P' && m[1] == 'P' && (m[2] == 'x' || m[2] == 'e') && n >= 4 && !ev->jumbo) {
		PUTS("task=");
		put_u64(rd_u32(p));
	} else if (m[0] == 'P' && m[1] == 'Q' && (m[2] == 'x' || m[2] == 'e') && n >= 4 && !ev->jumbo) {
		PUTS("type=");
		put_u64(rd_u32(p));
	} else {
		PUTS("payload=");
		put_hex(p, n);
	}
}

/* An MCV byte that would break the line or the columns is shown as '?'. */
static inline char shown(char c)
{
	return (unsigned char)c > 32 && (unsigned char)c < 127 ? c : '?';
}

static void print(const struct rd_stream *s, size_t rellen, const struct rd_event *ev, int with_hex)
{
	put_u64(ev->clock);
	char *o = room(7);
	o[0] = o[1] = ' ';
	o[2] = shown(ev->mcv[0]);
	o[3] = shown(ev->mcv[1]);
	o[4] = shown(ev->mcv[2]);
	o[5] = o[6] = ' ';
	olen += 7;
	put(s->relpath, rellen);
	describe(ev);
	if (with_hex && ev->size) {
		PUTS(" hex=");
		put_hex(ev->payload, ev->size);
	}
	PUTS("\n");
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = { { "hex", no_argument, 0, 'x' },
					      { "no-sort", no_argument, 0, 's' },
					      { "help", no_argument, 0, 'h' },
					      { 0, 0, 0, 0 } };
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
	if (t.offsets_error[0])
		err("%s (clocks are ordered without those offsets)", t.offsets_error);
	size_t *rellen = calloc((size_t)t.n, sizeof(size_t));
	for (int i = 0; rellen && i < t.n; i++)
		rellen[i] = strlen(t.streams[i].relpath);
	if (!rellen)
		die("out of memory");
	olen = 0;
	out_failed = 0;
	fflush(stdout);
	struct rd_stream *s;
	struct rd_event ev;
	if (sorted) {
		struct rd_merge *m = rd_merge_new(&t);
		while (rd_merge_next(m, &s, &ev) && !out_failed)
			print(s, rellen[s->index], &ev, with_hex);
		rd_merge_free(m);
	} else {
		for (int i = 0; i < t.n && !out_failed; i++) {
			s = &t.streams[i];
			rd_rewind(s);
			while (rd_next(s, &ev) == 1 && !out_failed)
				print(s, rellen[i], &ev, with_hex);
		}
	}
	flush_out();
	int bad = rd_report_damage(&t) || out_failed;
	free(rellen);
	rd_close(&t);
	return bad;
}
