/* arena.h: the process's start arena.  What a traced process allocates while
 * the agent starts (its few labels, the CPU list, the copies of its OVNI_
 * variables) comes from a small buffer that the agent hands over, on a page
 * it writes anyway, instead of malloc: a short program that never calls
 * malloc itself would otherwise set its heap up for us (two brk, getrandom,
 * three pages written; docs/internals.md "Cost per process").  Lock-free and
 * async-signal-safe; nothing in it is ever freed (oa_arena_free ignores it). */
#ifndef OA_ARENA_H
#define OA_ARENA_H

#include <stddef.h>

/* Hand the arena `size` bytes at `base` (zeroed, never freed), once per
 * image; NULL, 0: none (every allocation is malloc's). */
void oa_arena_set(void *base, size_t size);
/* No more pieces from the arena (what it handed out stays its own): once
 * the agent has started.  A process that forks would otherwise write the
 * arena's page after each fork, a copy-on-write fault that a piece of the
 * heap, which the program writes anyway, does not cost. */
void oa_arena_close(void);
/* n bytes (16-byte aligned, zeroed) from the arena, or from anonymous
 * memory of the agent's own when it has no room left (never malloc: see
 * arena.c); NULL when neither has. */
void *oa_arena_alloc(size_t n);
/* The same, never from the arena (large or growing buffers, which would
 * leave the arena no room for the start's small pieces). */
void *oa_arena_alloc_outside(size_t n);
/* n bytes from the arena only: NULL when it has no room (what a signal
 * handler may call). */
void *oa_arena_take(size_t n);
/* A copy of s, as oa_arena_alloc. */
char *oa_arena_strdup(const char *s);
/* Does p lie in the arena? */
int oa_arena_owns(const void *p);
/* Nothing: what oa_arena_alloc gives is never freed (it is a few labels
 * and copies per process). */
void oa_arena_free(void *p);

#endif
