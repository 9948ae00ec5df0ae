/* names.c: thread names in the trace.
 * Interposes: pthread_setname_np.
 * Mark channel 84 ("Thread name") holds, per thread, the name of its start
 * routine (resolved from the ELF symbol tables at thread start, cached), the
 * program's name for the main thread, and any name the thread is given with
 * pthread_setname_np. The value is a hash of the name, so one name has one
 * value (and one colour) in every process of the trace. */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "../preload/symbols.h"
#include "../writer/ev_ovni.h"
#include "../writer/ovni_fmt.h"
#include "hooks.h"
#include "names.h"

#define REALS(X) X(int, setname, "pthread_setname_np", (pthread_t, const char *))
HOOK_REALS(REALS)

static int64_t name_value(const char *name)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a, kept to 40 bits, never 0 */
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	h &= 0xffffffffffull;
	return (int64_t)(h ? h : 1);
}

OA_START_TEXT void names_set(const char *name)
{
	struct oa_thread *t = oa_self;
	if (!t || !name || !*name || oa_emitting(&t->s) || oa_sealed)
		return;
	HOOK_ERRNO_SAVE();
	int64_t v = name_value(name);
	oa_meta_mark_label(&oa_meta, &t->s.labels, OA_MARK_THREAD_NAME, v, name);
	ev_ovni_mark_set(&t->s, OA_MARK_THREAD_NAME, v);
	HOOK_ERRNO_RESTORE();
}

OA_THREAD_TEXT void names_start_routine(void *(*fn)(void *))
{
	if (!oa_self)
		return;
	uint64_t t0 = oa_clock_now();
	oa_guard++; /* libelf's work is the agent's, not the program's */
	const char *name = oa_sym_name((uintptr_t)fn);
	oa_guard--;
	uint64_t t1 = oa_clock_now();
	if (t1 - t0 > 2000) {
		/* The name was not cached (the ELF file was read): the agent's
		 * work, shown as a flush rather than as the thread's time. */
		oa_emit_bracket(&oa_self->s, t0, t1);
	}
	names_set(name);
}

__attribute__((constructor(103))) static void names_init(void)
{
	if (!agent_active())
		return;
	oa_meta_mark_type(&oa_meta, OA_MARK_THREAD_NAME, 0, "Thread name (ovni-auto)");
	names_set(program_invocation_short_name);
}

OA_EXPORT int pthread_setname_np(pthread_t th, const char *name)
{
	int r = REAL(setname)(th, name);
	if (r == 0 && hook_tracing() && pthread_equal(th, pthread_self()))
		names_set(name);
	return r;
}
