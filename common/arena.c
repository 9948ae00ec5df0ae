/* arena.c: the process's start arena (arena.h). */
#include "arena.h"
#include "compiler.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

/* After the arena: pieces from chunks of anonymous memory mapped 64 KiB
 * at a time (one mapping of its own for a larger piece), never freed, not
 * malloc's.  A malloc on a thread that never allocates (a thread's name
 * label, at its start) set up a malloc arena for it: 64 MiB of address
 * space kept, 128 MiB mapped while it is aligned, and under `ulimit -v`
 * the program's own thread starts failed with 128 MiB to spare (18 runs in
 * 40).  Lock-free; errno kept. */
struct bump {
	char *base;
	size_t cap;
	_Atomic size_t used;
};
#define BUMP_CHUNK ((size_t)64 * 1024)
static struct bump *_Atomic bump_now;

static void *bump_map(size_t len)
{
	int e = errno;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	errno = e;
	return m == MAP_FAILED ? NULL : m;
}

static void *bump_take(size_t need)
{
	if (need > BUMP_CHUNK / 4)
		return bump_map(need);
	for (;;) {
		struct bump *c = atomic_load(&bump_now);
		if (c && atomic_load_explicit(&c->used, memory_order_relaxed) <= c->cap - need) {
			size_t at = atomic_fetch_add(&c->used, need);
			if (at <= c->cap - need)
				return c->base + at;
		}
		char *m = bump_map(BUMP_CHUNK);
		if (!m)
			return NULL;
		struct bump *mine = (struct bump *)(void *)m;
		mine->base = m + 64;
		mine->cap = BUMP_CHUNK - 64;
		atomic_store(&mine->used, need);
		if (atomic_compare_exchange_strong(&bump_now, &c, mine))
			return mine->base;
		int e = errno;
		munmap(m, BUMP_CHUNK); /* another thread's chunk came first */
		errno = e;
	}
}

void *oa_arena_alloc_outside(size_t n)
{
	return bump_take((n + 15) & ~(size_t)15);
}

OA_START_TEXT void *oa_arena_alloc(size_t n)
{
	void *p = oa_arena_take(n);
	return p ? p : bump_take((n + 15) & ~(size_t)15);
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
	(void)p; /* the arena's and the chunks' pieces are never freed */
}
