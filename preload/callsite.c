/* callsite.c: call sites with libunwind (see callsite.h). */
#include "callsite.h"

#include <string.h>

#include "../writer/meta.h"
#include "../writer/ovni_fmt.h"
#include "agent.h"
#include "backtrace.h"
#include "symbols.h"

int oa_callsites;

static uintptr_t self_lo, self_hi; /* this library's addresses */

/* No dladdr: it waits for the loader lock, which a dlopen holds while a
 * constructor runs that may wait for this thread. */
static int in_agent(uintptr_t pc)
{
	if (!self_hi && oa_sym_object_range((uintptr_t)oa_callsite, &self_lo, &self_hi) != 0)
		return 0;
	return pc >= self_lo && pc < self_hi;
}

static int64_t name_value(const char *name)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a, 40 bits, never 0 */
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	h &= 0xffffffffffull;
	return (int64_t)(h ? h : 1);
}

int64_t oa_callsite(void)
{
	/* libunwind and libelf take locks of their own: the agent's, not the
	 * program's waits (without the guard they nested inside the wait being
	 * recorded and broke its mark stack). */
	oa_guard++;
	void *frames[16];
	int n = oa_backtrace(frames, 16);
	int64_t v = 0;
	for (int i = 0; i < n; i++) {
		uintptr_t pc = (uintptr_t)frames[i];
		if (!pc || in_agent(pc))
			continue;
		/* A return address points after the call: look up pc - 1. */
		const char *name = oa_sym_name(pc - 1);
		v = name_value(name);
		oa_meta_mark_label(&oa_meta, oa_self ? &oa_self->s.labels : NULL, OA_MARK_CALLSITE, v, name);
		break;
	}
	oa_guard--;
	return v;
}
