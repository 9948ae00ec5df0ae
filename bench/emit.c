/* emit.c: the cost of one event on the emit path, next to what it cannot
 * avoid: a bare clock read, and a clock read plus a 12-byte store; built
 * with -DWITH_LIBOVNI (make OVNI_PREFIX=...), the same loop on upstream
 * libovni runs in the same process, interleaved, for the ratio.
 * usage: emit [NEVENTS]  (prints ns/event and bytes/event, median of 7). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "../writer/stream.h"

#ifdef WITH_LIBOVNI
/* emit_libovni.c */
void libovni_begin(void);
double libovni_emit(long n);
void libovni_end(void);
#endif

static uint64_t now(void)
{
	return oa_clock_now();
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

#define REPS 7

static uint8_t *sink_buf;

/* n readings of a clock: the trace clock, or clock_gettime itself. */
static double clock_loop(uint64_t (*clk)(void), long n)
{
	volatile uint64_t sink = 0;
	uint64_t t0 = now();
	for (long i = 0; i < n; i++)
		sink += clk();
	return (double)(now() - t0) / (double)n;
}

static uint64_t mono_now(void)
{
	return oa_clock_mono();
}

static double clock_store(long n)
{
	uint8_t *p = sink_buf;
	uint64_t t0 = now();
	for (long i = 0; i < n; i++) {
		uint64_t c = oa_clock_now();
		oa_put_header(p, 0, "OB.", c);
		p += 12;
		if (p + 12 > sink_buf + (64u << 20))
			p = sink_buf;
	}
	double r = (double)(now() - t0) / (double)n;
	__asm__ volatile("" ::"r"(p) : "memory");
	return r;
}

static double emit(struct oa_stream *s, long n, unsigned payload)
{
	uint64_t pl = 42;
	uint64_t t0 = now();
	for (long i = 0; i < n; i++)
		oa_emit(s, "OB.", &pl, payload);
	return (double)(now() - t0) / (double)n;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5000000;
	sink_buf = calloc(1, 64u << 20);
	/* The trace clock as in the agent: the TSC once calibrated (2-20 ms). */
	oa_clock_init();
	usleep(25000);
	(void)oa_clock_now();
	char dir[256];
	snprintf(dir, sizeof(dir), "%s/oa-bench.XXXXXX", getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	char sdir[300];
	snprintf(sdir, sizeof(sdir), "%s/thread.1", dir);
	static struct oa_meta meta = { .pid = 1, .app_id = 1, .rank = -1, .nranks = -1, .loom = "bench" };
	static int phy[1];
	if (oa_meta_init(&meta) != 0)
		return 1;
	meta.ncpus = 1;
	meta.phyids = phy;
	struct oa_stream s = { 0 };
	struct oa_stream_cfg cfg = { .dir = sdir, .tid = 1, .meta = &meta };
	if (oa_stream_open(&s, &cfg) != 0)
		return 1;
#ifdef WITH_LIBOVNI
	/* libovni writes ovni/ in the working directory. */
	if (chdir(dir) != 0)
		return 1;
	libovni_begin();
	double lo[REPS];
#endif

	double r[4][REPS];
	double user[2][REPS], mono[REPS];
	uint64_t bytes0 = 0, bytes8 = 0, flush0 = 0, flush8 = 0;
	for (int k = 0; k < REPS; k++) {
		mono[k] = clock_loop(mono_now, n);
		r[0][k] = clock_loop(now, n);
		r[1][k] = clock_store(n);
		uint64_t b = oa_stream_size(&s), f = s.nflush, fns = s.flush_ns;
		r[2][k] = emit(&s, n, 0);
		user[0][k] = r[2][k] - (double)(s.flush_ns - fns) / (double)n;
		bytes0 += oa_stream_size(&s) - b;
		flush0 += s.nflush - f;
		b = oa_stream_size(&s), f = s.nflush, fns = s.flush_ns;
		r[3][k] = emit(&s, n, 8);
		user[1][k] = r[3][k] - (double)(s.flush_ns - fns) / (double)n;
		bytes8 += oa_stream_size(&s) - b;
		flush8 += s.nflush - f;
#ifdef WITH_LIBOVNI
		lo[k] = libovni_emit(n);
#endif
	}
	const char *names[4] = { "trace clock read", "clock + 12-byte store", "emit, 0-byte payload",
				 "emit, 8-byte payload" };
	double med[4];
	for (int i = 0; i < 4; i++) {
		qsort(r[i], REPS, sizeof(double), cmp);
		med[i] = r[i][REPS / 2];
	}
	printf("%-24s %8s %8s %8s\n", "", "median", "min", "max");
	qsort(mono, REPS, sizeof(double), cmp);
	printf("%-24s %6.2f ns %6.2f ns %6.2f ns\n", "clock_gettime", mono[REPS / 2], mono[0], mono[REPS - 1]);
	for (int i = 0; i < 4; i++)
		printf("%-24s %6.2f ns %6.2f ns %6.2f ns\n", names[i], med[i], r[i][0], r[i][REPS - 1]);
	qsort(user[0], REPS, sizeof(double), cmp);
	qsort(user[1], REPS, sizeof(double), cmp);
	printf("%-24s %6.2f ns %6.2f ns %6.2f ns\n", "emit 0 B, no flushes", user[0][REPS / 2], user[0][0],
	       user[0][REPS - 1]);
	printf("%-24s %6.2f ns %6.2f ns %6.2f ns\n", "emit 8 B, no flushes", user[1][REPS / 2], user[1][0],
	       user[1][REPS - 1]);
	printf("emit over clock+store, with flushes: %+.2f ns (0 B), %+.2f ns (8 B)\n", med[2] - med[1],
	       med[3] - med[1]);
	printf("emit over clock+store, flush time excluded: %+.2f ns (0 B), %+.2f ns (8 B)\n",
	       user[0][REPS / 2] - med[1], user[1][REPS / 2] - med[1]);
	printf("bytes/event: %.2f (0 B payload), %.2f (8 B payload), flushes included\n",
	       (double)bytes0 / ((double)n * REPS), (double)bytes8 / ((double)n * REPS));
	printf("mean flush (window remap): %.3f ms\n", (double)s.flush_ns / 1e6 / (double)(s.nflush ? s.nflush : 1));
	printf("flushes: %llu + %llu for %ld events\n", (unsigned long long)flush0, (unsigned long long)flush8,
	       2L * n * REPS);
#ifdef WITH_LIBOVNI
	qsort(lo, REPS, sizeof(double), cmp);
	printf("%-24s %6.2f ns %6.2f ns %6.2f ns\n", "libovni emit, 0 B", lo[REPS / 2], lo[0], lo[REPS - 1]);
	printf("ovni-auto / libovni, 0 B, flushes included: %.2fx\n", med[2] / lo[REPS / 2]);
	libovni_end();
#endif
	oa_emit(&s, "OHe", NULL, 0);
	oa_stream_close(&s);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}
