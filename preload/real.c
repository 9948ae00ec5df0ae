/* real.c: resolution of the real functions (see real.h).
 *
 * The lookup walks the loader's list of objects and their GNU hash tables
 * itself: no loader lock, no malloc, no error state, so it may run from any
 * hook, and ~85 of them at load cost a few microseconds where dlsym()'s
 * take ~35 (its lock, its caller search, its error catching).  It follows
 * dlsym(RTLD_NEXT) (the first definition in an object loaded after ours, the
 * default version of a versioned symbol) and dlvsym() for "name@VERSION";
 * anything it cannot settle (no GNU hash table, an object it does not
 * understand) goes to dlsym()/dlvsym() as before. */
#include "real.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "../common/compiler.h"
#include "../common/log.h"

/* Written at a hook's first call in a disabled agent: kept with the data the
 * loader has written, as is the code a disabled agent runs (compiler.h). */
struct oa_real oa_real OA_EARLY_DATA;
static _Atomic int resolved;

extern ElfW(Dyn) _DYNAMIC[]; /* ours: how our entry in the list is found */

/* A pointer of the dynamic section: the loader has relocated most of them
 * in place (DT_STRTAB, DT_SYMTAB, DT_GNU_HASH, DT_VERSYM), not all
 * (DT_VERDEF); an unrelocated one is an offset below the load address. */
OA_EARLY_TEXT static const void *dyn_ptr(const struct link_map *m, ElfW(Addr) v)
{
	return (const void *)(v < m->l_addr ? v + m->l_addr : v);
}

struct obj {
	const struct link_map *m;
	const ElfW(Sym) * symtab;
	const char *strtab;
	const uint32_t *gnu_hash;
	const ElfW(Half) * versym;
	const ElfW(Verdef) * verdef;
};

OA_EARLY_TEXT static int obj_open(const struct link_map *m, struct obj *o)
{
	memset(o, 0, sizeof(*o));
	o->m = m;
	if (!m->l_ld)
		return -1;
	for (const ElfW(Dyn) *d = m->l_ld; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB: o->symtab = dyn_ptr(m, d->d_un.d_ptr); break;
		case DT_STRTAB: o->strtab = dyn_ptr(m, d->d_un.d_ptr); break;
		case DT_GNU_HASH: o->gnu_hash = dyn_ptr(m, d->d_un.d_ptr); break;
		case DT_VERSYM: o->versym = dyn_ptr(m, d->d_un.d_ptr); break;
		case DT_VERDEF: o->verdef = dyn_ptr(m, d->d_un.d_ptr); break;
		}
	}
	return o->symtab && o->strtab && o->gnu_hash ? 0 : -1;
}

/* Does symbol `i`'s version suit: `version` named, or the default one? */
OA_EARLY_TEXT static int version_ok(const struct obj *o, uint32_t i, const char *version)
{
	if (!o->versym)
		return !version;
	ElfW(Half) v = o->versym[i];
	if (!version)
		return !(v & 0x8000); /* not a hidden (non-default) version */
	if (!o->verdef)
		return 0;
	const ElfW(Verdef) *d = o->verdef;
	for (;;) {
		if (d->vd_ndx == (v & 0x7fff)) {
			const ElfW(Verdaux) *a = (const void *)((const char *)d + d->vd_aux);
			return !strcmp(o->strtab + a->vda_name, version);
		}
		if (!d->vd_next)
			return 0;
		d = (const void *)((const char *)d + d->vd_next);
	}
}

OA_EARLY_TEXT static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;
	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

OA_EARLY_TEXT static void *obj_find(const struct obj *o, const char *name, uint32_t h, const char *version)
{
	const uint32_t *t = o->gnu_hash;
	uint32_t nbuckets = t[0], symoffset = t[1], bloom_size = t[2], shift = t[3];
	if (!nbuckets || !bloom_size)
		return NULL;
	const ElfW(Addr) *bloom = (const void *)(t + 4);
	const uint32_t *buckets = (const void *)(bloom + bloom_size);
	const uint32_t *chain = buckets + nbuckets;
	const unsigned bits = sizeof(ElfW(Addr)) * 8;
	ElfW(Addr) word = bloom[(h / bits) % bloom_size];
	ElfW(Addr) mask = ((ElfW(Addr))1 << (h % bits)) | ((ElfW(Addr))1 << ((h >> shift) % bits));
	if ((word & mask) != mask)
		return NULL;
	uint32_t i = buckets[h % nbuckets];
	if (i < symoffset)
		return NULL;
	for (;; i++) {
		uint32_t h2 = chain[i - symoffset];
		const ElfW(Sym) *s = &o->symtab[i];
		if ((h | 1) == (h2 | 1) && s->st_shndx != SHN_UNDEF && s->st_value &&
		    !strcmp(o->strtab + s->st_name, name) && version_ok(o, i, version)) {
			int type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
			if ((bind == STB_GLOBAL || bind == STB_WEAK) && (type == STT_FUNC || type == STT_OBJECT)) {
				return (void *)(o->m->l_addr + s->st_value);
			}
			/* An IFUNC (its resolver picks the implementation) or
			 * anything unusual: dlsym knows what to do. */
			return (void *)-1;
		}
		if (h2 & 1)
			return NULL;
	}
}

/* The first definition after our object, NULL when none, (void *)-1 when
 * an object could not be read (the caller asks dlsym). */
OA_EARLY_TEXT static void *lookup_next(const char *name, const char *version)
{
	const struct link_map *m = _r_debug.r_map;
	while (m && m->l_ld != _DYNAMIC)
		m = m->l_next;
	if (!m)
		return (void *)-1;
	uint32_t h = gnu_hash(name);
	for (m = m->l_next; m; m = m->l_next) {
		struct obj o;
		if (!m->l_name || !m->l_name[0])
			continue; /* the vDSO (its symbols are libc's business) */
		if (obj_open(m, &o) != 0)
			return (void *)-1;
		void *p = obj_find(&o, name, h, version);
		if (p)
			return p;
	}
	return NULL;
}

OA_EARLY_TEXT void *oa_real_lookup(const char *name, const char *version)
{
	void *p = lookup_next(name, version);
	if (p != (void *)-1)
		return p;
	return version ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name);
}

OA_EARLY_TEXT void *oa_real_one(void **field, const char *name)
{
	if (!*field)
		*field = oa_real_lookup(name, NULL);
	return *field;
}

#define RESOLVE(name)                                                          \
	do {                                                                   \
		if (!oa_real.name)                                             \
			*(void **)&oa_real.name = oa_real_lookup(#name, NULL); \
		if (!oa_real.name) {                                           \
			oa_log("cannot find the real %s", #name);              \
			missing++;                                             \
		}                                                              \
	} while (0)

int oa_real_init(void)
{
	if (atomic_load(&resolved))
		return 0;
	int missing = 0;
	RESOLVE(pthread_create);
	RESOLVE(pthread_setaffinity_np);
	RESOLVE(sched_setaffinity);
	RESOLVE(_exit);
	RESOLVE(_Exit);
	RESOLVE(exit);
	RESOLVE(abort);
	RESOLVE(quick_exit);
	RESOLVE(sigaction);
	RESOLVE(execve);
	RESOLVE(execvpe);
	RESOLVE(execv);
	RESOLVE(execvp);
	RESOLVE(fexecve);
	RESOLVE(execveat);
	atomic_store(&resolved, 1);
	return missing ? -1 : 0;
}
