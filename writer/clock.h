/* clock.h: the trace clock, CLOCK_MONOTONIC in nanoseconds, read through the
 * TSC where that is safe (writer/clock.c): clock_gettime costs 16-30 ns
 * under kvm-clock, more than the rest of an emit; the TSC path ~7-10 ns.
 * oa_clock_mono() is clock_gettime itself (vDSO, no system call). */
#ifndef OA_CLOCK_H
#define OA_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "../common/compiler.h"
#include "../common/sys.h"

/* Added to every reading: OVNI_TEST_CLOCK_SKEW (ns), for the tests only,
 * makes a process's clock look like another node's. */
extern int64_t oa_clock_skew;

/* The vDSO's clock_gettime, called directly when the agent found it:
 * libc's wrapper is a page of libc that a short program may never touch
 * (a page fault at every start).  NULL: libc's. */
extern int (*oa_clock_vdso)(clockid_t, struct timespec *);

static inline uint64_t oa_clock_mono(void)
{
	struct timespec ts;
	if (oa_clock_vdso)
		oa_clock_vdso(CLOCK_MONOTONIC, &ts);
	else
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + (uint64_t)oa_clock_skew;
}

/* Per thread: the TSC anchored to CLOCK_MONOTONIC. */
struct oa_clk {
	uint64_t tsc0, ns0, tsc_end; /* anchor: TSC tsc0 was ns0; valid before tsc_end */
	uint64_t mult;               /* ns per tick (32.32) on this thread */
	uint64_t last;               /* last reading returned */
	uint32_t left;               /* readings before re-anchoring */
	uint32_t nslow;              /* readings of the clock before the TSC was calibrated */
};
extern OA_TLS struct oa_clk oa_clk_tls;

/* Use the TSC from now on where the CPU's is invariant (OVNI_TSC=0: never);
 * until called, and during the first 2-20 ms after (calibration), oa_clock_now() is
 * clock_gettime. Async-signal-safe, like oa_clock_now(). */
void oa_clock_init(void);
uint64_t oa_clock_slow(void);
/* In a fork child (before any other thread exists). */
void oa_clock_after_fork(void);
/* Time namespaces (CLONE_NEWTIME) move CLOCK_MONOTONIC by an offset of
 * theirs: every reading is taken back to the host's clock (the offset from
 * /proc/self/timens_offsets, subtracted), so that the streams of processes
 * in different ones, and a stream whose process execs into one, share a
 * clock.  oa_clock_timens(): this process's offset, read again (its start
 * when OVNI_TIMENS is set; after setns).  oa_clock_timens_children(): the
 * process made a namespace its children (and the image it execs) will be
 * in: its fork children read theirs, and OVNI_TIMENS tells the rest. */
void oa_clock_timens(void);
void oa_clock_timens_children(void);

#if defined(__x86_64__)
/* The clock at TSC reading t >= c->tsc0, from the anchor c. */
static inline uint64_t oa_clk_at(const struct oa_clk *c, uint64_t t)
{
	return c->ns0 + (uint64_t)(((unsigned __int128)(t - c->tsc0) * c->mult) >> 32);
}
#endif

/* Never goes backwards on one thread; within ~0.1 us of CLOCK_MONOTONIC. */
static inline uint64_t oa_clock_now(void)
{
#if defined(__x86_64__)
	struct oa_clk *c = &oa_clk_tls;
	if (__builtin_expect(c->left != 0, 1)) {
		uint64_t t = __builtin_ia32_rdtsc();
		if (__builtin_expect(t >= c->tsc0 && t < c->tsc_end, 1)) {
			c->left--;
			uint64_t ns = oa_clk_at(c, t);
			return c->last = ns > c->last ? ns : c->last;
		}
	}
#endif
	return oa_clock_slow();
}

/* oa_clock_now() by a system call where it would read the vDSO: for a fork
 * child of a shell, which maps text anew and reads the clock once before
 * its exec (the exec's moment).  The vDSO's page of text was a page fault
 * of 10-25 us there on this project's VM; the call costs ~1 us.  Not for
 * the emit path, which makes no system call. */
static inline uint64_t oa_clock_now_sys(void)
{
#if defined(__x86_64__) && defined(SYS_clock_gettime)
	struct oa_clk *c = &oa_clk_tls;
	struct timespec ts;
	if (c->left == 0 && oa_sys3(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts, 0) == 0) {
		uint64_t ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + (uint64_t)oa_clock_skew;
		return c->last = ns > c->last ? ns : c->last;
	}
#endif
	return oa_clock_now();
}

/* A moment, taken at the cost of one TSC read where this thread's clock
 * runs on the TSC (else it is a clock reading): for a moment whose cost
 * matters more than its form, such as the end of a lock wait, taken while
 * the thread holds the lock that others wait for.  oa_clock_of_stamp()
 * makes it a clock reading, later and on any thread.  (Reading the clock
 * there re-anchors it after a wait longer than 0.1 ms: a clock_gettime
 * inside the critical section.)  The stamp keeps the thread's anchor of
 * the moment (a TSC reading and the clock then, taken before it): read
 * long after, it is placed between that anchor and a fresh one, so that
 * the error does not grow with its age, as a rate measured over a few
 * milliseconds would make it. */
struct oa_stamp {
	uint64_t v;
	int tsc;            /* v is TSC ticks, else nanoseconds */
	uint64_t tsc0, ns0; /* with tsc: the anchor when it was taken (0: none) */
};

static inline struct oa_stamp oa_clock_stamp(void)
{
	struct oa_stamp st;
#if defined(__x86_64__)
	struct oa_clk *c = &oa_clk_tls;
	if (__builtin_expect(c->left != 0, 1)) {
		st.v = __builtin_ia32_rdtsc();
		st.tsc = 1;
		st.tsc0 = c->tsc0;
		st.ns0 = c->ns0;
		return st;
	}
#endif
	st.v = oa_clock_now();
	st.tsc = 0;
	st.tsc0 = st.ns0 = 0;
	return st;
}

/* The clock reading of a stamp taken on any thread of this process (the TSC
 * is invariant and the same on every CPU where the clock uses it), never
 * later than now.  Async-signal-safe. */
uint64_t oa_clock_of_tsc(const struct oa_stamp *st);

static inline uint64_t oa_clock_of_stamp(struct oa_stamp st)
{
	return st.tsc ? oa_clock_of_tsc(&st) : st.v;
}

#endif
