/* ompt_clock.c: the OMPT tool's clock: CLOCK_MONOTONIC nanoseconds (the
 * trace clock), read through the TSC where that is safe.  clock_gettime
 * costs ~30 ns under kvm-clock, several times a task; rdtsc ~10 ns.
 *
 * The TSC rate is measured against CLOCK_MONOTONIC over the first 20 ms
 * (clock_gettime until then).  Each thread anchors the TSC to a fresh
 * clock_gettime reading at least every 0.1 ms (and every 4096 reads) and
 * follows the rate CLOCK_MONOTONIC had since its previous anchors (the
 * clock is slewed by NTP), so its readings stay within ~0.1 us of it and
 * never go backwards on one thread; a TSC that goes backwards re-anchors.  Only x86-64 with constant_tsc and nonstop_tsc;
 * OVNI_OMP_TSC=0 turns it off.  The causal rules of the trace never rely on
 * two threads' clocks agreeing: they use the clocks actually written (a PPx
 * is stamped after its task's PPc/PPe, see ompt_task.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ompt.h"

OA_TLS struct omp_clk omp_clk_tls;
uint64_t omp_tsc_mult;      /* ns per tick, 32.32 fixed point; 0: not (yet) */
static uint64_t ticks_per_ms; /* re-anchoring period */
static int tsc_usable;
static uint64_t first_tsc, first_ns;
static atomic_flag calibrating = ATOMIC_FLAG_INIT;

#if defined(__x86_64__)
#include <x86intrin.h>

static int cpu_has_stable_tsc(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return 0;
	char line[4096];
	int ok = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
		break;
	}
	fclose(f);
	return ok;
}

/* A TSC reading and the clock at that moment (the clock read between two
 * TSC reads, paired with their midpoint). */
static void sample(uint64_t *tsc, uint64_t *ns)
{
	uint64_t a = __rdtsc();
	*ns = oa_clock_now();
	uint64_t b = __rdtsc();
	*tsc = a + (b - a) / 2;
}

void omp_clock_init(void)
{
	const char *e = getenv("OVNI_OMP_TSC");
	tsc_usable = !(e && *e == '0') && cpu_has_stable_tsc();
	if (tsc_usable)
		sample(&first_tsc, &first_ns);
}

uint64_t omp_clock_slow(void)
{
	if (!tsc_usable)
		return oa_clock_now();
	struct omp_clk *c = &omp_clk_tls;
	uint64_t tsc, ns;
	sample(&tsc, &ns);
	if (!__atomic_load_n(&omp_tsc_mult, __ATOMIC_ACQUIRE)) {
		if (ns - first_ns < 20000000 || tsc <= first_tsc ||
		    atomic_flag_test_and_set_explicit(&calibrating, memory_order_acquire))
			return ns;
		uint64_t dt = tsc - first_tsc, dns = ns - first_ns;
		ticks_per_ms = dt * 1000000u / dns;
		__atomic_store_n(&omp_tsc_mult, (uint64_t)(((unsigned __int128)dns << 32) / dt), __ATOMIC_RELEASE);
	}
	/* CLOCK_MONOTONIC is slewed (NTP, up to 500 ppm): follow its rate as
	 * measured since this thread's previous anchor, smoothed. */
	uint64_t mult = c->mult ? c->mult : omp_tsc_mult;
	if (c->ns0 && tsc > c->tsc0 && ns - c->ns0 >= 50000 && ns - c->ns0 < 100000000) {
		uint64_t m = (uint64_t)(((unsigned __int128)(ns - c->ns0) << 32) / (tsc - c->tsc0));
		if (m > mult - mult / 256 && m < mult + mult / 256) /* sane: within 0.4% */
			mult = (7 * mult + m) / 8;
	}
	c->mult = mult;
	c->tsc0 = tsc;
	c->ns0 = ns;
	c->tsc_end = tsc + ticks_per_ms / 10;
	c->left = 4096;
	if (ns < c->last)
		ns = c->last;
	c->last = ns;
	return ns;
}
#else
void omp_clock_init(void)
{
}

uint64_t omp_clock_slow(void)
{
	return oa_clock_now();
}
#endif
