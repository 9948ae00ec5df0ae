/* test_registry.c: ending other threads' streams while they emit (what
 * process exit and fatal signals do), racing with threads that end their own
 * stream.  Every stream must end with exactly one OHe, with no torn event and
 * no clock going back.  Run under ThreadSanitizer by `make test-san`. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "../../writer/registry.h"
#include "test.h"

#define NTHREADS 8

static char *dir;
static _Atomic int stop;
static _Atomic int started;

static void *worker(void *arg)
{
	long id = (long)arg;
	char sdir[512];
	snprintf(sdir, sizeof(sdir), "%s/thread.%ld", dir, id);
	struct oa_stream *s = oa_registry_acquire(sizeof(*s), 0);
	struct oa_stream_cfg cfg = { .dir = sdir, .tid = (int)id, .max_window = 64 * 1024 };
	if (!s || oa_stream_open(s, &cfg) != 0) {
		fprintf(stderr, "cannot open %s\n", sdir);
		return NULL;
	}
	oa_emit(s, "OHx", "\xff\xff\xff\xff", 4);
	if (oa_registry_publish(s) != 0)
		fprintf(stderr, "publish after the end\n");
	atomic_fetch_add(&started, 1);
	uint8_t p[16] = { 1, 2, 3 };
	for (uint64_t i = 0; !atomic_load(&stop); i++) {
		oa_emit(s, "OB.", p, (unsigned)(i % 15) + 2);
		/* Odd threads end themselves at some point, racing with main. */
		if (id % 2 && i == 20000 + (uint64_t)id * 1000) {
			if (oa_registry_claim_self(s) == 0) {
				oa_stream_end(s);
				oa_registry_release(s);
			}
			break;
		}
	}
	return NULL;
}

/* Slots: new ones come page-aligned from a chunk, one after the other; a
 * freed slot is taken again before a new one is made, the last freed
 * first, then any other free one. */
static void test_slots(void)
{
	struct oa_stream *a = oa_registry_acquire(sizeof(*a), 0);
	struct oa_stream *b = oa_registry_acquire(sizeof(*b), 0);
	struct oa_stream *c = oa_registry_acquire(sizeof(*c), 0);
	long ps = sysconf(_SC_PAGESIZE);
	ptrdiff_t stride = (ptrdiff_t)((sizeof(*a) + 63) / 64 * 64);
	CHECK(a && b && c && ((uintptr_t)a % (uintptr_t)ps) == 0 && (char *)b - (char *)a == stride &&
		      (char *)c - (char *)b == stride,
	      "three new slots, the first page-aligned, packed one after the other (%p %p %p)", (void *)a, (void *)b,
	      (void *)c);
	CHECK(sizeof(*a) <= 1280 && 3 * stride <= ps, "three slots share a page (a slot is %zu bytes)", sizeof(*a));
	oa_registry_release(b);
	oa_registry_release(a);
	CHECK(oa_registry_acquire(sizeof(*a), 0) == a, "the last freed slot first");
	CHECK(oa_registry_acquire(sizeof(*a), 0) == b, "then the other free one");
	struct oa_stream *d = oa_registry_acquire(sizeof(*d), 0);
	CHECK(d && (char *)d - (char *)c == stride, "then a new one");
	int n = 0;
	for (struct oa_stream *s = oa_registry_first(); s; s = s->next)
		n++;
	CHECK(n == 4, "4 slots in all (%d)", n);
	oa_registry_release(a);
	oa_registry_release(b);
	oa_registry_release(c);
	oa_registry_release(d);
}

static void end_cb(struct oa_stream *s, void *arg)
{
	(*(int *)arg)++;
	oa_stream_end(s);
}

int main(void)
{
	dir = test_tmpdir("registry");
	oa_registry_init();
	test_slots();
	pthread_t th[NTHREADS];
	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, worker, (void *)(i + 1));
	while (atomic_load(&started) < NTHREADS)
		sched_yield();
	usleep(20000);
	int ended = 0;
	int n = oa_registry_end_others(NULL, end_cb, &ended);
	CHECK(n == ended && n >= NTHREADS / 2, "ended %d streams (callback %d)", n, ended);
	CHECK(oa_registry_ending(), "process marked as ending");
	usleep(5000); /* they keep emitting into closed streams: dropped */
	atomic_store(&stop, 1);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);

	for (int i = 1; i <= NTHREADS; i++) {
		char obs[600];
		snprintf(obs, sizeof(obs), "%s/thread.%d/stream.obs", dir, i);
		size_t len = 0;
		uint8_t *buf = test_read_file(obs, &len);
		CHECK(buf != NULL, "stream %d", i);
		if (!buf)
			continue;
		size_t off = 8;
		struct test_ev ev;
		int r, nohe = 0, nev = 0, back = 0;
		uint64_t last = 0;
		char lastmcv[4] = "";
		while ((r = test_next_ev(buf, len, &off, &ev)) == 1) {
			nev++;
			nohe += !strcmp(ev.mcv, "OHe");
			back += ev.clock < last;
			last = ev.clock;
			memcpy(lastmcv, ev.mcv, 4);
		}
		CHECK(r == 0, "stream %d: torn at offset %zu of %zu", i, off, len);
		CHECK(nohe == 1 && !strcmp(lastmcv, "OHe"), "stream %d: %d OHe, last %s", i, nohe, lastmcv);
		CHECK(back == 0 && nev > 100, "stream %d: %d events, %d clocks back", i, nev, back);
		free(buf);
	}
	test_rmrf(dir);
	free(dir);
	TEST_DONE();
}
