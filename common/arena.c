/* arena.c: the process's start arena (arena.h). */
#include "arena.h"
#include "compiler.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char *base;
static size_t size;
static _Atomic size_t used;
static int closed;

OA_START_TEXT void oa_arena_set(void *b, size_t n)
{
	base = b;
	size = b ? n : 0;
	closed = 0;
	atomic_store(&used, 0);
}

OA_START_TEXT void oa_arena_close(void)
{
	closed = 1;
}

OA_START_TEXT void *oa_arena_take(size_t n)
{
	size_t need = (n + 15) & ~(size_t)15;
	if (base && !closed && need >= n && need <= size &&
	    atomic_load_explicit(&used, memory_order_relaxed) <= size - need) {
		size_t at = atomic_fetch_add(&used, need);
		if (at <= size - need)
			return base + at; /* zeroed: handed over so, never reused */
	}
	return NULL;
}

OA_START_TEXT void *oa_arena_alloc(size_t n)
{
	void *p = oa_arena_take(n);
	return p ? p : calloc(1, n ? n : 1);
}

OA_START_TEXT char *oa_arena_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *c = oa_arena_alloc(n);
	if (c)
		memcpy(c, s, n);
	return c;
}

int oa_arena_owns(const void *p)
{
	return base && (uintptr_t)p >= (uintptr_t)base && (uintptr_t)p < (uintptr_t)base + size;
}

OA_START_TEXT void oa_arena_free(void *p)
{
	if (!oa_arena_owns(p))
		free(p);
}
