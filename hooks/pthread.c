/* pthread.c: thread lifecycle.
 * Interposes: pthread_create, pthread_setaffinity_np, sched_setaffinity.
 * A created thread starts in a trampoline that opens its stream (OHx with the
 * tag of the creator's OHC) before the user's start routine runs; its stream
 * ends from a thread-specific-data destructor, which runs however the thread
 * ends (return, pthread_exit, cancellation).  Threads still running at exit
 * are ended by agent_process_end(). */
#include <stdlib.h>
#include <unistd.h>

#include "../writer/ev_ovni.h"
#include "../preload/callsite.h"
#include "../writer/ovni_fmt.h"
#include "hooks.h"
#include "names.h"

struct start {
	void *(*fn)(void *);
	void *arg;
	uint64_t tag;
	uint64_t clock; /* of the OHC: the OHx must be strictly later */
	int creator;
};

static void *trampoline(void *p)
{
	struct start st = *(struct start *)p;
	free(p);
	if (agent_thread_begin(st.creator, st.tag, st.clock + 1))
		names_start_routine(st.fn);
	return st.fn(st.arg);
}

OA_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) = HOOK_REAL(pthread_create);
	if (!hook_tracing())
		return real(th, attr, fn, arg);
	HOOK_ERRNO_SAVE();
	struct start *st = malloc(sizeof(*st));
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
	if (r != 0)
		free(st);
	if (where)
		ev_ovni_mark_pop(&self->s, OA_MARK_CALLSITE, where);
	HOOK_ERRNO_RESTORE();
	return r;
}

OA_EXPORT int pthread_setaffinity_np(pthread_t th, size_t size, const cpu_set_t *set)
{
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
