/* registry.c: lock-free list of thread stream slots, and ending other
 * threads' streams safely.
 *
 * The emit path of a thread does: emit_seq++ (odd); compiler barrier; if
 * (closed) skip; write; emit_seq++ (even, release).  A closer does: closed =
 * 1; a process-wide memory barrier (membarrier(2)); read emit_seq; if odd,
 * wait until it changes.  The barrier makes the pair behave like Dekker's
 * algorithm without a fence on the emit path: after it, either the emit in
 * progress is visible as an odd emit_seq (and the closer waits for it to
 * end), or it sees `closed`, like every later emit.  Waiting for a change,
 * not for an even value, matters: a thread that keeps calling emit (each
 * call returning at once) is inside the bracket most of the time. */
#include "registry.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/log.h"
#include "../common/slab.h"

#ifndef MEMBARRIER_CMD_PRIVATE_EXPEDITED
#define MEMBARRIER_CMD_GLOBAL (1 << 0)
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED (1 << 3)
#define MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED (1 << 4)
#endif

static struct oa_stream *_Atomic head;
static _Atomic int ending;
static _Atomic int ended;        /* the thread that set `ending` has ended every stream */
static _Atomic int barrier_kind; /* -1: not chosen yet, 0: none, 1: private expedited, 2: global */

OA_START_TEXT void oa_registry_init(void)
{
	atomic_store(&ending, 0);
	atomic_store(&ended, 0);
	/* Chosen (and registered: per address space, so again after a fork)
	 * when the process starts its first thread, or at the first barrier,
	 * which only a process with other threads to end needs: most short
	 * processes never make the call. */
	atomic_store_explicit(&barrier_kind, -1, memory_order_relaxed);
}

static void barrier_choose(void)
{
	int kind = 0;
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
		kind = 1;
	else if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0)
		kind = 2;
	atomic_store(&barrier_kind, kind);
}

/* The registration waits for an RCU grace period once the address space
 * has other threads (8-13 ms on this project's VM; 5 us before): made
 * before the first thread starts, not at the process's end, where an
 * exit() from a thread other than main took 10-20 ms (0.2 ms untraced). */
OA_THREAD_TEXT void oa_registry_barrier_ready(void)
{
	if (atomic_load_explicit(&barrier_kind, memory_order_relaxed) < 0) {
		int e = errno;
		barrier_choose();
		errno = e;
	}
}

/* A store-load barrier on every CPU that runs one of our threads. */
static void process_barrier(void)
{
	if (atomic_load(&barrier_kind) < 0) /* one closer at a time (`ending`) */
		barrier_choose();
	int kind = atomic_load(&barrier_kind);
	if (kind == 1 && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
		return;
	if (kind == 2 && syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0)
		return;
	/* Fallback: changing the protection of a touched page makes the kernel
	 * interrupt every CPU that runs this address space (TLB shootdown).
	 * The page is mapped at the first use: a page-aligned static would
	 * start .bss on a page of its own, one more fault in every process. */
	static char *_Atomic page;
	char *p = atomic_load(&page);
	if (!p) {
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *none = NULL;
		if (p == MAP_FAILED)
			p = NULL;
		else if (!atomic_compare_exchange_strong(&page, &none, p))
			munmap(p, 4096), p = none;
	}
	if (p) {
		p[0] = 1;
		mprotect(p, 4096, PROT_READ);
		mprotect(p, 4096, PROT_READ | PROT_WRITE);
	}
	static _Atomic int fence; /* a locked RMW: a full barrier here too */
	atomic_fetch_add(&fence, 1);
}

static void pause_a_little(int round)
{
	/* Raw system calls: the agent interposes sched_yield and nanosleep
	 * (recorded as waits), and its own waits are not the program's. */
	if (round < 100) {
		syscall(SYS_sched_yield);
	} else if (round < 5000) {
		struct timespec ts = { 0, 100000 }; /* 0.1 ms */
		syscall(SYS_nanosleep, &ts, NULL);
	} else {
		struct timespec ts = { 0, 1000000 }; /* 1 ms */
		syscall(SYS_nanosleep, &ts, NULL);
	}
}

/* A zeroed slot of the caller's (static storage), taken before calloc. */
static void *_Atomic seed;

OA_START_TEXT void oa_registry_seed(void *slot)
{
	atomic_store(&seed, slot);
}

/* Free slots: how many, and the one freed last, tried first.  A thread
 * that starts takes a slot without walking past the slots of the threads
 * that run (1000 live threads: each start walked past all of them).  Both
 * are hints: a slot is taken by its state's compare-and-swap. */
static _Atomic int nfree;
static struct oa_stream *_Atomic last_freed;

static void set_free(struct oa_stream *s)
{
	atomic_store(&s->state, OA_SLOT_FREE);
	atomic_fetch_add(&nfree, 1);
	atomic_store(&last_freed, s);
}

static struct oa_stream *take(struct oa_stream *s)
{
	int expect = OA_SLOT_FREE;
	if (!s || !atomic_compare_exchange_strong(&s->state, &expect, OA_SLOT_OPENING))
		return NULL;
	atomic_fetch_sub(&nfree, 1);
	return s;
}

/* New slots come from chunks of anonymous memory (common/slab.h), 64 at
 * a time, packed at a cache line's alignment: a slot is ~1.3 KiB (the
 * stream's path buffers are not in it, stream.h), so a new thread writes a
 * third of a page where it wrote a page of its own (1000 live threads:
 * ~0.65 page faults fewer per start on this project's VM).  A thread
 * whose slot came from calloc set up a malloc arena.  Slots are never
 * freed (they are taken again).  NULL (calloc then) where no chunk can be
 * mapped. */
static struct oa_slab slots;

OA_START_TEXT struct oa_stream *oa_registry_acquire(size_t slot_size, size_t offset)
{
	struct oa_stream *got = take(atomic_load(&last_freed));
	if (got)
		return got;
	if (atomic_load(&nfree) > 0)
		for (struct oa_stream *s = atomic_load(&head); s; s = s->next)
			if ((got = take(s)))
				return got;
	if (slot_size < offset + sizeof(struct oa_stream))
		slot_size = offset + sizeof(struct oa_stream);
	char *mem = atomic_exchange(&seed, NULL);
	if (!mem)
		mem = oa_slab_take(&slots, slot_size, 64, 64);
	if (!mem)
		mem = calloc(1, slot_size);
	if (!mem)
		return NULL;
	struct oa_stream *s = (struct oa_stream *)(void *)(mem + offset);
	atomic_store(&s->closed, 1);
	atomic_store(&s->state, OA_SLOT_OPENING);
	struct oa_stream *old = atomic_load(&head);
	do {
		s->next = old;
	} while (!atomic_compare_exchange_weak(&head, &old, s));
	return s;
}

OA_START_TEXT int oa_registry_publish(struct oa_stream *s)
{
	atomic_store(&s->state, OA_SLOT_OPEN);
	/* seq_cst store then load: pairs with end_others() setting `ending`
	 * before scanning states, so one of the two sees the other. */
	return atomic_load(&ending) ? -1 : 0;
}

OA_START_TEXT int oa_registry_may_open(void)
{
	/* Called after the slot became OPENING (a seq_cst store): either the
	 * ender sees OPENING and waits for us, or we see `ending` here. */
	return !atomic_load(&ending);
}

OA_START_TEXT int oa_registry_claim_self(struct oa_stream *s)
{
	int expect = OA_SLOT_OPEN;
	if (atomic_compare_exchange_strong(&s->state, &expect, OA_SLOT_CLOSING)) {
		atomic_store(&s->closed, 1);
		return 0;
	}
	expect = OA_SLOT_OPENING;
	if (atomic_compare_exchange_strong(&s->state, &expect, OA_SLOT_CLOSING)) {
		atomic_store(&s->closed, 1);
		return 0;
	}
	return -1;
}

OA_START_TEXT void oa_registry_release(struct oa_stream *s)
{
	set_free(s);
}

void oa_registry_abandon(struct oa_stream *s)
{
	atomic_store(&s->closed, 1);
	set_free(s);
}

void oa_registry_resume(void)
{
	atomic_store(&ended, 0);
	atomic_store(&ending, 0);
}

void oa_registry_wait_ended(void)
{
	for (int round = 0; !atomic_load(&ended) && round < 15000; round++)
		pause_a_little(round);
}

/* In the early text: every fork child asks (agent_fork_child). */
OA_EARLY_TEXT int oa_registry_ending(void)
{
	return atomic_load(&ending);
}

/* Slots whose owner is in the middle of agent work that writes files:
 * creating its stream (OPENING) or ending it itself (CLOSING, not claimed by
 * us). The process must not end under them: they are waited for. */
static int transient(struct oa_stream *s, struct oa_stream *self)
{
	int st = atomic_load(&s->state);
	return s != self && !s->claimed && (st == OA_SLOT_OPENING || st == OA_SLOT_CLOSING);
}

OA_START_TEXT void oa_registry_settle(struct oa_stream *self)
{
	for (struct oa_stream *s = atomic_load(&head); s; s = s->next)
		for (int round = 0; transient(s, self) && round < 9500; round++)
			pause_a_little(round);
}

OA_START_TEXT int oa_registry_end_others(struct oa_stream *self, oa_end_fn end, void *arg)
{
	/* Only the first caller ends the others (exit racing with exit, or
	 * with a crash); the others wait until it is done. */
	if (atomic_exchange(&ending, 1)) {
		oa_registry_wait_ended();
		return 0;
	}

	/* Threads creating or ending their own stream finish that quickly
	 * (file system work, signals blocked): let them (bounded, ~5 s). */
	oa_registry_settle(self);

	/* Claim: from here on their emits are dropped. */
	int nclaimed = 0;
	for (struct oa_stream *s = atomic_load(&head); s; s = s->next) {
		int expect = OA_SLOT_OPEN;
		if (s == self || !atomic_compare_exchange_strong(&s->state, &expect, OA_SLOT_CLOSING))
			continue;
		atomic_store(&s->closed, 1);
		s->claimed = 1;
		nclaimed++;
	}
	if (nclaimed)
		process_barrier();

	int nended = 0;
	for (struct oa_stream *s = atomic_load(&head); nclaimed && s; s = s->next) {
		if (!s->claimed)
			continue;
		s->claimed = 0;
		/* ~1 s for a thread inside an emit (100 yields, 4900 x 0.1 ms, then
		 * 1 ms sleeps); a flush (file system work that
		 * always completes, but may stall under heavy I/O) gets ~10 s. */
		int round = 0;
		unsigned q = atomic_load_explicit(&s->emit_seq, memory_order_acquire);
		while ((q & 1) && atomic_load_explicit(&s->emit_seq, memory_order_acquire) == q &&
		       (round < 5500 || (s->remapping && round < 14500)))
			pause_a_little(round++);
		if ((q & 1) && atomic_load_explicit(&s->emit_seq, memory_order_acquire) == q)
			continue; /* stuck inside an emit (stopped by a debugger?) */
		end(s, arg);
		atomic_store(&s->state, OA_SLOT_CLOSED);
		nended++;
	}
	return nended;
}

OA_START_TEXT void oa_registry_done(void)
{
	atomic_store(&ended, 1);
}

OA_START_TEXT void oa_registry_after_fork(struct oa_stream *keep)
{
	oa_registry_init();
	for (struct oa_stream *s = atomic_load(&head); s; s = s->next) {
		if (s == keep)
			continue;
		int st = atomic_load(&s->state);
		if (st == OA_SLOT_FREE)
			continue;
		oa_stream_drop(s);
		/* CLOSED slots may still be referenced by nobody here: reuse them. */
		set_free(s);
	}
}

struct oa_stream *oa_registry_first(void)
{
	return atomic_load(&head);
}
