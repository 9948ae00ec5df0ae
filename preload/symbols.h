/* symbols.h: code address -> function name, from the ELF symbol tables
 * (.symtab, else .dynsym) of the loaded object that contains the address,
 * read by our own ELF reader (no loader lock taken: safe while another
 * thread runs a library constructor that waits for the caller).  Results are cached per address and each
 * object's table is read once.  Never call from a signal handler. */
#ifndef OA_SYMBOLS_H
#define OA_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/* The name of the function containing addr ("main", "foo._omp_fn.0"), or
 * "<object>+0x<offset>" when no symbol covers it, or "??" for an address in
 * no object. The string lives as long as the process (interned). */
const char *oa_sym_name(uintptr_t addr);

/* The start address of the function containing addr (0 if unknown): lets
 * callers key caches by function instead of by return address. */
uintptr_t oa_sym_start(uintptr_t addr);

/* The address range [lo, hi) of the loaded object that contains addr:
 * 0, or -1 when no object does.  Takes no loader lock that a dlopen holds
 * while constructors run (dl_iterate_phdr only). */
int oa_sym_object_range(uintptr_t addr, uintptr_t *lo, uintptr_t *hi);

/* Around fork: hold the cache lock so that the child gets a consistent
 * cache; in the child, free the lock (also after _Fork, which runs no
 * handlers: no other thread exists there to hold it). */
void oa_sym_fork_prepare(void);
void oa_sym_fork_parent(void);
void oa_sym_fork_child(void);

#endif
