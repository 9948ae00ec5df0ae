/* pthread.c: thread lifecycle.
 * Interposes: pthread_create, pthread_setaffinity_np, sched_setaffinity
 * (libgomp binding the initial thread for libomp: not made, see below).
 * A created thread starts in a trampoline that opens its stream (OHx with the
 * tag of the creator's OHC) before the user's start routine runs; its stream
 * ends from a thread-specific-data destructor, which runs however the thread
 * ends (return, pthread_exit, cancellation).  Threads still running at exit
 * are ended by agent_process_end(). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "../writer/ev_ovni.h"
#include "../preload/callsite.h"
#include "../preload/symbols.h"
#include "../writer/ovni_fmt.h"
#include "../writer/registry.h"
#include "hooks.h"
#include "names.h"

struct start {
	void *(*fn)(void *);
	void *arg;
	uint64_t tag;
	uint64_t clock; /* of the OHC: the OHx must be strictly later */
	int creator;
} __attribute__((aligned(64))); /* one cache line: creators do not share one */

/* Start records come from a pool, malloc only when all are in flight: a
 * record malloc'd by the creator and freed by the new thread set up a
 * malloc arena and a tcache in a thread that may never allocate (1000
 * threads alive at once: ~0.2 page faults and ~8 us more per start on
 * this project's VM).  A record is in flight from pthread_create to the
 * first line of the trampoline.  A fork child may inherit the bits of
 * records that other threads were handing over: they stay taken, and
 * that child's creations use malloc once all are.  4096 bytes in .lbss:
 * the buffers after it keep their offsets in their pages. */
#define START_POOL 64
static struct start start_pool[START_POOL] OA_LARGE_BSS;
static _Atomic uint64_t start_taken;

static struct start *start_get(void)
{
	uint64_t u = atomic_load_explicit(&start_taken, memory_order_relaxed);
	while (~u) {
		int i = __builtin_ctzll(~u);
		if (atomic_compare_exchange_weak(&start_taken, &u, u | (uint64_t)1 << i))
			return &start_pool[i];
	}
	return malloc(sizeof(struct start));
}

static void start_put(struct start *st)
{
	if (st >= start_pool && st < start_pool + START_POOL)
		atomic_fetch_and(&start_taken, ~((uint64_t)1 << (st - start_pool)));
	else
		free(st);
}

OA_THREAD_TEXT static void *trampoline(void *p)
{
	struct start st = *(struct start *)p;
	start_put(p);
	if (agent_thread_begin(st.creator, st.tag, st.clock + 1))
		names_start_routine(st.fn);
	return st.fn(st.arg);
}

OA_EXPORT OA_THREAD_TEXT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) = HOOK_REAL(pthread_create);
	oa_fdlock_threads_made(); /* common/fdroom.h */
	if (!hook_tracing())
		return real(th, attr, fn, arg);
	HOOK_ERRNO_SAVE();
	oa_registry_barrier_ready(); /* while cheap: writer/registry.h */
	struct start *st = start_get();
	if (!st) {
		HOOK_ERRNO_RESTORE();
		return real(th, attr, fn, arg);
	}
	struct oa_thread *self = oa_self;
	st->fn = fn;
	st->arg = arg;
	st->tag = agent_next_tag();
	st->creator = self ? self->tid : gettid();
	int64_t where = self && oa_callsites ? oa_callsite() : 0;
	if (where)
		ev_ovni_mark_push(&self->s, OA_MARK_CALLSITE, where);
	st->clock = self ? ev_ovni_thread_create(&self->s, atomic_load(&self->cpu), st->tag) : 0;
	HOOK_ERRNO_RESTORE();
	int r = real(th, attr, trampoline, st);
	HOOK_ERRNO_AGAIN(); /* what the real call left (ENOMEM from its stack's mmap) */
	if (r != 0)
		start_put(st);
	if (where)
		ev_ovni_mark_pop(&self->s, OA_MARK_CALLSITE, where);
	HOOK_ERRNO_RESTORE();
	return r;
}

/* libgomp's constructor binds the initial thread to the first of its places
 * when OMP_PROC_BIND, OMP_PLACES or GOMP_CPU_AFFINITY is set.  Where LLVM
 * libomp serves the program's OpenMP instead (ovnirun moves GCC programs to
 * it; libgomp stays loaded, as the program needs it), libgomp never runs a
 * team and that binding only narrowed what libomp then takes for the
 * machine: one CPU, so one thread where the program untraced has one per
 * CPU.  Such a call from libgomp is not made.  Each libgomp function is
 * found as the program binds it (the first definition after the agent). */
static int gomp_shadowed_bind(uintptr_t caller)
{
	/* Looked up once (objects loaded at start stay); threads that race
	 * here find the same two addresses. */
	static _Atomic uintptr_t gomp_only, parallel;
	static _Atomic int looked;
	if (!atomic_load_explicit(&looked, memory_order_acquire)) {
		void *g = oa_real_lookup("GOMP_PLUGIN_malloc", NULL), *p = oa_real_lookup("GOMP_parallel", "GOMP_4.0");
		atomic_store_explicit(&gomp_only, g && g != (void *)-1 ? (uintptr_t)g : 0, memory_order_relaxed);
		atomic_store_explicit(&parallel, p && p != (void *)-1 ? (uintptr_t)p : 0, memory_order_relaxed);
		atomic_store_explicit(&looked, 1, memory_order_release);
	}
	uintptr_t gomp = atomic_load_explicit(&gomp_only, memory_order_relaxed),
		  par = atomic_load_explicit(&parallel, memory_order_relaxed);
	uintptr_t lo, hi;
	if (!gomp || !par || oa_sym_object_range(caller, &lo, &hi) != 0)
		return 0;
	/* The caller is libgomp, whose GOMP_parallel the program does not call. */
	return gomp >= lo && gomp < hi && !(par >= lo && par < hi);
}

OA_EXPORT int pthread_setaffinity_np(pthread_t th, size_t size, const cpu_set_t *set)
{
	if (gomp_shadowed_bind((uintptr_t)__builtin_return_address(0)))
		return 0;
	int r = HOOK_REAL(pthread_setaffinity_np)(th, size, set);
	if (r == 0 && hook_tracing()) {
		HOOK_ERRNO_SAVE();
		if (pthread_equal(th, pthread_self()))
			agent_affinity_self();
		else
			agent_affinity_other(th, 0);
		HOOK_ERRNO_RESTORE();
	}
	return r;
}

OA_EXPORT int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
	int r = HOOK_REAL(sched_setaffinity)(pid, size, set);
	if (r == 0 && hook_tracing()) {
		HOOK_ERRNO_SAVE();
		if (pid == 0 || pid == gettid())
			agent_affinity_self();
		else
			agent_affinity_other(pthread_self(), pid);
		HOOK_ERRNO_RESTORE();
	}
	return r;
}
