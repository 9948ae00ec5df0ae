/* slab.c: see slab.h. */
#include "slab.h"
#include "compiler.h"

#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <unistd.h>

/* A chunk's header, on a page before its pieces (which keep the alignment
 * asked for). */
struct oa_slab_chunk {
	char *base;
	_Atomic unsigned used;
};

OA_THREAD_TEXT void *oa_slab_take(struct oa_slab *sl, size_t size, size_t align, unsigned per_chunk)
{
	int e = errno; /* kept: callers include signal handlers */
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	size_t stride = (size + align - 1) & ~(align - 1);
	for (;;) {
		struct oa_slab_chunk *c = atomic_load(&sl->now);
		if (c) {
			unsigned i = atomic_fetch_add(&c->used, 1);
			if (i < per_chunk)
				return c->base + (size_t)i * stride;
		}
		size_t len = ps + ((size_t)per_chunk * stride + ps - 1) / ps * ps;
		char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED) {
			errno = e;
			return NULL;
		}
		/* Where transparent huge pages are "always", a chunk merged with
		 * its neighbours could take a 2 MiB page at its first write. */
		madvise(m, len, MADV_NOHUGEPAGE);
		struct oa_slab_chunk *mine = (struct oa_slab_chunk *)(void *)m;
		mine->base = m + ps;
		atomic_store(&mine->used, 1);
		if (atomic_compare_exchange_strong(&sl->now, &c, mine)) {
			errno = e;
			return mine->base;
		}
		munmap(m, len); /* another thread's chunk came first */
	}
}
