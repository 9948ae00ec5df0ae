/* clock.c: the slow path of the trace clock (clock.h): calibration of the
 * TSC against CLOCK_MONOTONIC and the per-thread anchors.
 *
 * The TSC rate is measured against CLOCK_MONOTONIC over the first 2 ms
 * after oa_clock_init() (up to 20 ms when the two readings were not tight
 * enough for 50 ppm), by the first thread that has read the clock 256
 * times (OA_CLOCK_CALIBRATE_AFTER); clock_gettime until then, so a short
 * process never uses the TSC nor pays for its calibration.  Each thread anchors the TSC to a fresh clock_gettime
 * reading at least every 0.1 ms (and every 4096 reads) and follows the rate
 * CLOCK_MONOTONIC had since its previous anchor (the clock is slewed by NTP),
 * so its readings stay within ~0.1 us of it and never go backwards on one
 * thread; a TSC that goes backwards re-anchors.  Only x86-64 with an
 * invariant TSC (CPUID 0x80000007 EDX bit 8: constant rate, runs in deep
 * sleep states).  Two threads' readings may differ from the true order by
 * the anchoring error (~0.1 us); every cross-thread order the trace needs
 * (a thread's creation before its start, a task's creation before its
 * execution) is microseconds apart or stamped from the clock written. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "../common/env.h"
#include "../common/fdroom.h"

OA_TLS struct oa_clk oa_clk_tls;
int64_t oa_clock_skew;
int (*oa_clock_vdso)(clockid_t, struct timespec *) OA_EARLY_DATA; /* set once at start */
static uint64_t tsc_mult;                                         /* ns per tick, 32.32 fixed point; 0: not (yet) */
static uint64_t ticks_per_ms;                                     /* re-anchoring period */
static int tsc_usable;
static uint64_t first_tsc, first_ns, first_unc;
/* Readings of the clock on a thread before it calibrates the TSC. */
#define OA_CLOCK_CALIBRATE_AFTER 256u
static atomic_flag calibrating OA_EARLY_DATA = ATOMIC_FLAG_INIT; /* with what a fork child writes */

/* Read by every fork child: on the page it writes anyway (in .bss or
 * .data it moved the start's variables onto one more page: a fault more
 * for every process, t115). */
static int timens_children OA_FORK_DATA;

OA_START_TEXT static int64_t test_skew(void)
{
	const char *s = oa_env(OA_ENV_TEST_CLOCK_SKEW);
	return s && *s ? strtoll(s, NULL, 10) : 0;
}

static void skew_init(void)
{
	oa_clock_skew = test_skew();
	if (oa_env(OA_ENV_TIMENS))
		oa_clock_timens();
}

/* Rare (only where OVNI_TIMENS says a namespace was made): out of the
 * start's text. */
__attribute__((noinline)) void oa_clock_timens(void)
{
	int e = errno;
	int64_t off = 0;
	char buf[256];
	oa_fdlock_agent_enter();
	int fd = open("/proc/self/timens_offsets", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	oa_fdlock_agent_leave();
	/* "monotonic <seconds> <nanoseconds>" (no file before Linux 5.6:
	 * no namespaces either). */
	for (char *p = n > 0 ? (buf[n] = '\0', buf) : NULL; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, "monotonic ", 10))
			continue;
		char *end;
		long long sec = strtoll(p + 10, &end, 10);
		long long nsec = strtoll(end, NULL, 10);
		off = (int64_t)sec * 1000000000ll + nsec;
		break;
	}
	/* Unread (no /proc where a setns led, an old kernel): as it was. */
	if (n >= 0)
		oa_clock_skew = test_skew() - off;
	errno = e;
}

__attribute__((noinline)) void oa_clock_timens_children(void)
{
	timens_children = 1;
	oa_env_set(OA_ENV_TIMENS, "1");
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>

static int invariant_tsc(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return 0;
	__get_cpuid(0x80000007u, &a, &b, &c, &d);
	return (d >> 8) & 1;
}

/* A TSC reading and the clock at that moment (the clock read between two
 * TSC reads, paired with their midpoint).  A thread preempted or
 * interrupted between the two is not a sample: an anchor off by half the
 * gap would shift every reading until the next one.  Returns 0 when no try
 * was tight (2 us; 20000 ticks before calibration); *ns is then still the
 * clock. */
OA_EARLY_TEXT static int sample(uint64_t *tsc, uint64_t *ns, uint64_t *unc)
{
	uint64_t tight = ticks_per_ms ? ticks_per_ms / 500 : 20000;
	for (int i = 0; i < 4; i++) {
		uint64_t a = __rdtsc();
		*ns = oa_clock_mono();
		uint64_t b = __rdtsc();
		*tsc = a + (b - a) / 2;
		*unc = (b - a) / 2 + 1;
		if (b >= a && b - a <= tight)
			return 1;
	}
	return 0;
}

OA_START_TEXT void oa_clock_init(void)
{
	skew_init();
	const char *e = oa_env(OA_ENV_TSC), *old = oa_env(OA_ENV_OMP_TSC);
	/* Whether the TSC is invariant is asked at calibration (CPUID traps
	 * to the hypervisor in a VM: ~30 us, which a process that ends
	 * before calibration does not pay). */
	if (tsc_usable || (e && *e == '0') || (old && *old == '0'))
		return;
	if (sample(&first_tsc, &first_ns, &first_unc))
		tsc_usable = 1;
}

OA_EARLY_TEXT void oa_clock_after_fork(void)
{
	/* A thread of the parent that was calibrating is not here.  (Read
	 * first: a fork child writes no page it need not.) */
	if (!__atomic_load_n(&tsc_mult, __ATOMIC_ACQUIRE) &&
	    __atomic_load_n((unsigned char *)&calibrating, __ATOMIC_RELAXED))
		atomic_flag_clear_explicit(&calibrating, memory_order_release);
	/* The parent made a time namespace: this child is in it. */
	if (__builtin_expect(timens_children, 0))
		oa_clock_timens();
}

OA_EARLY_TEXT uint64_t oa_clock_slow(void)
{
	struct oa_clk *c = &oa_clk_tls;
	if (!__atomic_load_n(&tsc_usable, __ATOMIC_RELAXED)) {
		uint64_t ns = oa_clock_mono();
		if (ns < c->last)
			ns = c->last;
		return c->last = ns;
	}
	/* The calibration waits for a thread that reads the clock often: it
	 * asks CPUID whether the TSC is invariant, and CPUID traps to the
	 * hypervisor in a VM (17 us each on this project's VMs, twice), more
	 * than a short process's few readings would save on the TSC.  A
	 * command of a shell loop that lived past 2 ms paid it at its exit. */
	if (c->nslow < OA_CLOCK_CALIBRATE_AFTER && !__atomic_load_n(&tsc_mult, __ATOMIC_RELAXED)) {
		c->nslow++;
		uint64_t ns = oa_clock_mono();
		if (ns < c->last)
			ns = c->last;
		return c->last = ns;
	}
	uint64_t tsc, ns, unc;
	if (!sample(&tsc, &ns, &unc)) {
		/* No tight sample: the clock itself, and a new try next time. */
		c->left = 0;
		if (ns < c->last)
			ns = c->last;
		return c->last = ns;
	}
	if (!__atomic_load_n(&tsc_mult, __ATOMIC_ACQUIRE)) {
		/* The rate is measured once the two samples' uncertainty is
		 * under 50 ppm of the time between them (from 2 ms on: ~20
		 * ns each is usual), or at 20 ms whatever it is. */
		uint64_t span = ns - first_ns;
		int precise = span >= 2000000 && tsc > first_tsc && (first_unc + unc) * 20000 <= tsc - first_tsc;
		if ((span < 20000000 && !precise) || tsc <= first_tsc ||
		    atomic_flag_test_and_set_explicit(&calibrating, memory_order_acquire)) {
			if (ns < c->last)
				ns = c->last;
			return c->last = ns;
		}
		if (!invariant_tsc()) {
			/* clock_gettime from now on (calibrating stays set) */
			__atomic_store_n(&tsc_usable, 0, __ATOMIC_RELAXED);
			if (ns < c->last)
				ns = c->last;
			return c->last = ns;
		}
		uint64_t dt = tsc - first_tsc, dns = ns - first_ns;
		ticks_per_ms = (uint64_t)((unsigned __int128)dt * 1000000u / dns);
		__atomic_store_n(&tsc_mult, (uint64_t)(((unsigned __int128)dns << 32) / dt), __ATOMIC_RELEASE);
	}
	/* CLOCK_MONOTONIC is slewed (NTP, up to 500 ppm): follow its rate as
	 * measured since this thread's previous anchor, smoothed. */
	uint64_t mult = c->mult ? c->mult : tsc_mult;
	if (c->ns0 && tsc > c->tsc0 && ns - c->ns0 >= 50000 && ns - c->ns0 < 100000000) {
		/* ns - ns0 < 2^32: the shift fits 64 bits, and a 64-bit
		 * division is an instruction, where a 128-bit one is a call to
		 * libgcc's __udivti3, far in the text (a fork child that reads
		 * the clock paid a page fault for it). */
		uint64_t m = ((ns - c->ns0) << 32) / (tsc - c->tsc0);
		if (m > mult - mult / 256 && m < mult + mult / 256) /* sane: within 0.4% */
			mult = (7 * mult + m) / 8;
	}
	/* Published last (a signal handler on this thread reads a whole
	 * anchor or falls into this slow path itself). */
	c->left = 0;
	c->mult = mult;
	c->tsc0 = tsc;
	c->ns0 = ns;
	c->tsc_end = tsc + ticks_per_ms / 10;
	if (ns < c->last)
		ns = c->last;
	c->last = ns;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->left = 4096;
	return ns;
}

/* ns at tsc on the line through (t0, n0) and (t1, n1), t0 <= tsc <= t1. */
static uint64_t between(uint64_t tsc, uint64_t t0, uint64_t n0, uint64_t t1, uint64_t n1)
{
	return n0 + (uint64_t)((unsigned __int128)(tsc - t0) * (n1 - n0) / (t1 - t0));
}

uint64_t oa_clock_of_tsc(const struct oa_stamp *st)
{
	struct oa_clk *c = &oa_clk_tls;
	uint64_t tsc = st->v;
	/* Inside this thread's current anchor: as oa_clock_now would have
	 * read it then. */
	if (c->left != 0 && tsc >= c->tsc0 && tsc < c->tsc_end)
		return oa_clk_at(c, tsc);
	uint64_t now = oa_clock_now(); /* anchors this thread where it can */
	if (!c->mult || !c->ns0)
		return now; /* no anchor: the clock never ran on the TSC here */
	uint64_t ns;
	if (st->ns0 && st->tsc0 <= tsc && tsc < c->tsc0 && st->ns0 <= c->ns0) {
		/* Between the stamp's anchor and this one. */
		ns = between(tsc, st->tsc0, st->ns0, c->tsc0, c->ns0);
	} else if (tsc >= c->tsc0) {
		ns = oa_clk_at(c, tsc);
	} else {
		uint64_t d = (uint64_t)(((unsigned __int128)(c->tsc0 - tsc) * c->mult) >> 32);
		ns = d < c->ns0 ? c->ns0 - d : 0;
	}
	return ns < now ? ns : now;
}
#else
void oa_clock_init(void)
{
	skew_init();
}

void oa_clock_after_fork(void)
{
	if (timens_children)
		oa_clock_timens();
}

uint64_t oa_clock_slow(void)
{
	return oa_clock_mono();
}

uint64_t oa_clock_of_tsc(const struct oa_stamp *st)
{
	(void)st;
	return oa_clock_now(); /* never called: stamps are clock readings here */
}
#endif
