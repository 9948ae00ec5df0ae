/* ompt_types.c: the process-wide table of task and worksharing types.
 *
 * A type is declared (jumbo POc) once per process, by whichever thread first
 * needs it, and its label is the name of the function that contains the code
 * address OMPT gives (ELF symbol tables through oa_sym_name; object+offset as
 * the fallback).  Code addresses with the same label share one type.
 * Lookups are lock-free (open addressing keyed by code address, the key is
 * published last); a miss takes a spin lock, resolves the label, writes the
 * POc and records its clock so that users of the type on other threads can
 * stamp their PPc/PQx strictly later.  Also found here, once per code
 * address: whether the address is inside the OpenMP runtime (taskloop), and
 * whether a worksharing loop is dynamically scheduled (the runtime entry the
 * user code called just before that address). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/compiler.h"
#include "../../preload/backtrace.h"
#include "../../preload/symbols.h"
#include "ompt.h"
#include "../sync.h"

#define SLOTS 4096u /* distinct code addresses */
#define MAX_LABELS 1024u

struct slot {
	_Atomic uintptr_t key; /* code address (1 for NULL), published last */
	uint32_t id, flags;
	uint64_t clock;
};

static struct slot slots[SLOTS] OA_LARGE_BSS;
static atomic_flag lock = ATOMIC_FLAG_INIT;
static struct {
	const char *label;
	uint32_t id;
	uint64_t clock;
} labels[MAX_LABELS] OA_LARGE_BSS;
static unsigned nlabels;
static uint32_t next_type = 1;
/* Address ranges of the runtime and of this library, found once: the
 * per-taskloop unwinding skips their frames without asking dladdr (a
 * linear search of every loaded object's symbols). */
static uintptr_t rt_lo, rt_hi, self_lo, self_hi;

static inline unsigned hash(uintptr_t k)
{
	uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
	return (unsigned)(h >> 40) & (SLOTS - 1);
}

void oa_omp_types_set_runtime(uintptr_t addr_in_runtime)
{
	uintptr_t lo, hi;
	if (oa_sym_object_range(addr_in_runtime, &lo, &hi) == 0) {
		rt_lo = lo;
		rt_hi = hi;
		/* The runtime's idle loops call sched_yield endlessly: not recorded. */
		sync_quiet_range(lo, hi);
	}
	if (oa_sym_object_range((uintptr_t)oa_omp_type_of, &lo, &hi) == 0) {
		self_lo = lo;
		self_hi = hi;
	}
}

/* The function a call instruction ending at `ra` called, through the PLT or
 * the GOT when it went there (x86-64), or 0. */
static uintptr_t call_target(uintptr_t ra)
{
#if defined(__x86_64__)
	const uint8_t *p = (const uint8_t *)ra;
	int32_t rel;
	uintptr_t target;
	if (p[-5] == 0xe8) { /* call rel32 */
		memcpy(&rel, p - 4, 4);
		target = ra + (uintptr_t)(intptr_t)rel;
	} else if (p[-6] == 0xff && p[-5] == 0x15) { /* call *rel32(%rip) (-fno-plt) */
		memcpy(&rel, p - 4, 4);
		memcpy(&target, (const void *)(ra + (uintptr_t)(intptr_t)rel), sizeof(target));
		return target;
	} else {
		return 0;
	}
	/* A PLT entry: [endbr64] [bnd] jmp *rel32(%rip) -> the GOT slot, which
	 * is bound now (the runtime entry is running). */
	const uint8_t *q = (const uint8_t *)target;
	if (q[0] == 0xf3 && q[1] == 0x0f && q[2] == 0x1e && q[3] == 0xfa)
		q += 4;
	if (q[0] == 0xf2)
		q++;
	if (q[0] == 0xff && q[1] == 0x25) {
		memcpy(&rel, q + 2, 4);
		uintptr_t slot = (uintptr_t)(q + 6) + (uintptr_t)(intptr_t)rel;
		memcpy(&target, (const void *)slot, sizeof(target));
	}
	return target;
#else
	(void)ra;
	return 0;
#endif
}

static uint32_t sched_flags(uintptr_t ra)
{
	uintptr_t fn = ra ? call_target(ra) : 0;
	if (!fn)
		return 0;
	const char *name = oa_sym_name(fn);
	if (strstr(name, "dispatch_init") || strstr(name, "dynamic") || strstr(name, "guided") ||
	    strstr(name, "runtime") || strstr(name, "GOMP_loop_start") || strstr(name, "GOMP_loop_ull_start"))
		return OT_SCHED_DYNAMIC;
	return 0;
}

/* Under the lock: the type id of a label, declaring it (POc) if new. */
static int label_type(const char *label, uint32_t *id, uint64_t *clock)
{
	for (unsigned i = 0; i < nlabels; i++) {
		if (labels[i].label == label || !strcmp(labels[i].label, label)) {
			*id = labels[i].id;
			*clock = labels[i].clock;
			return 0;
		}
	}
	struct oa_thread *self = oa_self;
	if (!self || nlabels == MAX_LABELS)
		return -1;
	uint32_t nid = next_type;
	uint64_t c = ev_omp_type_create(&self->s, nid, label, 0);
	if (!c)
		return -1;
	next_type++;
	labels[nlabels].label = label;
	labels[nlabels].id = nid;
	labels[nlabels].clock = c;
	nlabels++;
	*id = nid;
	*clock = c;
	return 0;
}

/* The label of a code address (slow path, under the lock). */
static const char *label_of(uintptr_t codeptr, uintptr_t region)
{
	if (!codeptr)
		return "(no code address)";
	const char *name = oa_sym_name(codeptr - 1);
	if (!region || strncmp(name, ".omp_outlined", 13))
		return name;
	const char *parent = oa_sym_name(region - 1);
	size_t n = strlen(parent) + 1 + strlen(name) + 1;
	char *both = malloc(n); /* kept for the process (one per outlined region) */
	if (!both)
		return name;
	snprintf(both, n, "%s/%s", parent, name);
	return both;
}

static void slow(uintptr_t key, uintptr_t codeptr, uintptr_t region, struct otype *out)
{
	out->id = 0;
	out->flags = 0;
	out->clock = 0;
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		;
	oa_guard++;
	unsigned h = hash(key);
	for (unsigned n = 0; n < SLOTS; n++, h = (h + 1) & (SLOTS - 1)) {
		struct slot *s = &slots[h];
		uintptr_t k = atomic_load_explicit(&s->key, memory_order_acquire);
		if (k == key) {
			out->id = s->id;
			out->flags = s->flags;
			out->clock = s->clock;
			break;
		}
		if (k != 0)
			continue;
		uint32_t flags = 0;
		if (codeptr && codeptr >= rt_lo && codeptr < rt_hi)
			flags |= OT_RUNTIME; /* no type: the caller looks for the user code */
		else if (codeptr)
			flags |= sched_flags(codeptr);
		const char *label = label_of(codeptr, region);
		if (!(flags & OT_RUNTIME) && label_type(label, &out->id, &out->clock) != 0) {
			out->id = 0;
			break;
		}
		out->flags = flags;
		s->id = out->id;
		s->flags = flags;
		s->clock = out->clock;
		atomic_store_explicit(&s->key, key, memory_order_release);
		break;
	}
	oa_guard--;
	atomic_flag_clear_explicit(&lock, memory_order_release);
}

void oa_omp_type_of(uintptr_t codeptr, uintptr_t region, struct otype *out)
{
	uintptr_t key = codeptr ? codeptr : 1;
	unsigned h = hash(key);
	for (unsigned n = 0; n < 8; n++, h = (h + 1) & (SLOTS - 1)) {
		struct slot *s = &slots[h];
		uintptr_t k = atomic_load_explicit(&s->key, memory_order_acquire);
		if (likely(k == key)) {
			out->id = s->id;
			out->flags = s->flags;
			out->clock = s->clock;
			return;
		}
		if (k == 0)
			break;
	}
	slow(key, codeptr, region, out);
}

void oa_omp_type_of_caller(uintptr_t region, struct otype *out)
{
	void *frames[32];
	oa_guard++; /* libunwind's locks are not the program's waits */
	int n = oa_backtrace(frames, 32);
	oa_guard--;
	for (int i = 0; i < n; i++) {
		uintptr_t pc = (uintptr_t)frames[i];
		if (!pc || (pc >= rt_lo && pc < rt_hi) || (pc >= self_lo && pc < self_hi))
			continue;
		oa_omp_type_of(pc, region, out);
		if (out->id)
			return;
	}
	oa_omp_type_of(0, 0, out);
}

void oa_omp_types_set_generation(int gen)
{
	/* Types belong to the process, which an exec keeps: each image has its
	 * own block of MAX_LABELS ids. */
	next_type = 1 + (uint32_t)gen * MAX_LABELS;
}

void oa_omp_types_lock(void)
{
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		;
}

void oa_omp_types_unlock(void)
{
	atomic_flag_clear_explicit(&lock, memory_order_release);
}

void oa_omp_types_reset(void)
{
	/* In a fork child: this process has declared nothing yet. */
	atomic_flag_clear(&lock);
	for (unsigned i = 0; i < SLOTS; i++)
		atomic_store_explicit(&slots[i].key, 0, memory_order_relaxed);
	nlabels = 0;
}
