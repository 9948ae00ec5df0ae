/* slab.h: pieces of one size from anonymous memory, never freed.  What the
 * agent keeps for the life of the process and hands out again itself (the
 * registry's slots, the streams' path buffers): taken from chunks mapped a
 * few dozen pieces at a time, zero pages that cost nothing until written,
 * so that a new thread writes only the bytes it uses and the small pieces
 * of several threads share a page.  Lock-free (a chunk is taken by a
 * compare-and-swap) and async-signal-safe: no malloc, no lock. */
#ifndef OA_SLAB_H
#define OA_SLAB_H

#include <stddef.h>

struct oa_slab_chunk;

/* One size of piece: static storage, zeroed. */
struct oa_slab {
	struct oa_slab_chunk *_Atomic now; /* the chunk pieces come from */
};

/* A zeroed piece of `size` bytes (rounded up to `align`, a power of two up
 * to the page size), from a chunk of `per_chunk` pieces; NULL when no
 * memory can be mapped.  Every call on one slab passes the same three. */
void *oa_slab_take(struct oa_slab *sl, size_t size, size_t align, unsigned per_chunk);

#endif
