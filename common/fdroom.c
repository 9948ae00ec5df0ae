/* fdroom.c: may the agent open a descriptor for a moment? (see fdroom.h) */
#include "fdroom.h"
#include "compiler.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sys.h"

#define FD_TOP 8 /* slots below the limit the agent leaves to the program */

OA_START_TEXT int oa_fd_room(void)
{
	int saved = errno;
	struct rlimit rl;
	int room = 1;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (1u << 20)) {
		/* Asked without making a descriptor (a probe that made one
		 * could take the very slot the program needs). */
		if (rl.rlim_cur <= FD_TOP || fcntl((int)rl.rlim_cur - FD_TOP, F_GETFD) >= 0)
			room = 0;
	}
	errno = saved;
	return room;
}

int oa_fd_move_high(int fd)
{
	struct rlimit rl;
	int low = 100;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > 256)
		low = (int)(rl.rlim_cur - 64);
	int high = fcntl(fd, F_DUPFD_CLOEXEC, low);
	if (high < 0)
		return fd;
	oa_nc_close(fd);
	return high;
}

OA_START_TEXT unsigned long oa_read_full(int fd, void *buf, unsigned long cap)
{
	unsigned long n = 0;
	int intr = 0;
	while (n < cap) {
		ssize_t r = read(fd, (char *)buf + n, cap - n);
		if (r < 0 && oa_eintr_again(&intr))
			continue;
		if (r <= 0)
			break;
		n += (unsigned long)r;
	}
	return n;
}

/* ---- The agent's descriptors against the program's closes (fdroom.h) ----
 * One word, three counts: the agent's holders (bits 0-19), the program's
 * holders (20-39) and the program's callers waiting to hold (40-59).  The
 * program's side has the right of way: an agent window waits for the
 * program's holders and waiters, a program's call for the agent's
 * holders only (two threads that start and end threads all the time
 * always have a window open, and a close waiting for a moment without one
 * waited for seconds). */
#define FDLOCK_AGENT ((uint64_t)1)
#define FDLOCK_HELD OA_FDLOCK_PROG
#define FDLOCK_WAIT ((uint64_t)1 << 40)
#define FDLOCK_FIELD(s, unit) (((s) / (unit)) & 0xfffff)
_Atomic uint64_t oa_fdlock;
/* With what a fork child writes anyway (it clears it). */
_Atomic int oa_fdlock_threads OA_FORK_DATA;
OA_TLS unsigned oa_fdlock_agent, oa_fdlock_prog_want, oa_fdlock_prog_held;

/* A moment: spin, then yield, then sleep 20 us at a time (raw calls: the
 * agent interposes nanosleep); 0 once past the bound. */
OA_THREAD_TEXT static int fdlock_wait(unsigned *round, uint64_t *t0)
{
	unsigned r = (*round)++;
	if (r < 64) {
#if defined(__x86_64__)
		__builtin_ia32_pause();
#endif
		return 1;
	}
	if (r < 256) {
		oa_sys3(SYS_sched_yield, 0, 0, 0);
		return 1;
	}
	struct timespec ts;
	oa_sys3(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts, 0);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (!*t0)
		*t0 = now;
	else if (now - *t0 > 5000000000ull)
		return 0;
	struct timespec nap = { 0, 20000 };
	oa_sys3(SYS_nanosleep, (long)&nap, 0, 0);
	return 1;
}

OA_START_TEXT void oa_fdlock_agent_enter(void)
{
	if (oa_fdlock_agent++)
		return;
	/* This thread's own call (a handler that finishes the trace inside
	 * it) is not waited for. */
	uint64_t own_held = oa_fdlock_prog_held, own_wait = oa_fdlock_prog_want - oa_fdlock_prog_held;
	unsigned round = 0;
	uint64_t t0 = 0;
	uint64_t s = atomic_load_explicit(&oa_fdlock, memory_order_relaxed);
	for (;;) {
		if ((FDLOCK_FIELD(s, FDLOCK_HELD) > own_held || FDLOCK_FIELD(s, FDLOCK_WAIT) > own_wait) &&
		    fdlock_wait(&round, &t0)) {
			s = atomic_load_explicit(&oa_fdlock, memory_order_relaxed);
			continue;
		}
		if (atomic_compare_exchange_weak_explicit(&oa_fdlock, &s, s + FDLOCK_AGENT, memory_order_acquire,
							  memory_order_relaxed))
			return;
	}
}

OA_START_TEXT void oa_fdlock_agent_leave(void)
{
	if (!oa_fdlock_agent || --oa_fdlock_agent)
		return;
	atomic_fetch_sub_explicit(&oa_fdlock, FDLOCK_AGENT, memory_order_release);
}

OA_THREAD_TEXT void oa_fdlock_prog_enter(void)
{
	oa_fdlock_prog_want++;
	uint64_t own = oa_fdlock_agent ? 1 : 0;
	uint64_t s = atomic_fetch_add_explicit(&oa_fdlock, FDLOCK_WAIT, memory_order_relaxed) + FDLOCK_WAIT;
	unsigned round = 0;
	uint64_t t0 = 0;
	for (;;) {
		if (FDLOCK_FIELD(s, FDLOCK_AGENT) > own && fdlock_wait(&round, &t0)) {
			s = atomic_load_explicit(&oa_fdlock, memory_order_relaxed);
			continue;
		}
		if (atomic_compare_exchange_weak_explicit(&oa_fdlock, &s, s - FDLOCK_WAIT + FDLOCK_HELD,
							  memory_order_acquire, memory_order_relaxed))
			break;
	}
	oa_fdlock_prog_held++;
}

OA_THREAD_TEXT void oa_fdlock_prog_leave(void)
{
	if (!oa_fdlock_prog_held)
		return;
	oa_fdlock_prog_held--;
	oa_fdlock_prog_want--;
	atomic_fetch_sub_explicit(&oa_fdlock, FDLOCK_HELD, memory_order_release);
}

void oa_fdlock_abandon_held(void)
{
	uint64_t mine = (uint64_t)oa_fdlock_prog_held * FDLOCK_HELD +
			(uint64_t)(oa_fdlock_prog_want - oa_fdlock_prog_held) * FDLOCK_WAIT + (oa_fdlock_agent ? 1 : 0);
	oa_fdlock_agent = oa_fdlock_prog_want = oa_fdlock_prog_held = 0;
	if (mine)
		atomic_fetch_sub_explicit(&oa_fdlock, mine, memory_order_release);
}
