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
#include <sys/auxv.h>
#include <stdint.h>
#include <string.h>

#include "../common/compiler.h"
#include "../common/env.h"
#include "../common/str.h"
#include "../common/log.h"

/* Written at a hook's first call in a disabled agent: kept with the data the
 * loader has written, as is the code a disabled agent runs (compiler.h). */
struct oa_real oa_real OA_EARLY_DATA;
static _Atomic int resolved OA_EARLY_DATA; /* beside oa_real: .bss read then written costs two faults */
/* "OVNI_BIND=..." for the children (oa_real_bind_string), NULL when none. */
static const char *bind_string OA_EARLY_DATA;

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
			return !oa_strcmp(o->strtab + a->vda_name, version);
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

#define SCOPE_NVER 48 /* version indexes the scope names from a table; others walked */

/* Does definition `i` of `o` serve `version` (NULL: the default one)?
 * vernames: the object's version names by index (the scope's table), or
 * NULL to walk them.  bind: as the loader binds a versioned reference of
 * ours, where an object without versions, or an unversioned definition in
 * one, serves any. */
OA_EARLY_TEXT static int sym_ok(const struct obj *o, const char *const *vernames, uint32_t i, const char *version,
				int bind)
{
	if (!o->versym || !version)
		return bind || version_ok(o, i, version);
	ElfW(Half) v = o->versym[i] & 0x7fff;
	if (bind && v <= 1)
		return !(o->versym[i] & 0x8000);
	if (vernames && v < SCOPE_NVER)
		return vernames[v] && !oa_strcmp(vernames[v], version);
	return version_ok(o, i, version);
}

/* May `o` define the name of GNU hash h?  Its Bloom filter's answer: 0
 * means surely not. */
OA_EARLY_TEXT static int bloom_maybe(const struct obj *o, uint32_t h)
{
	const uint32_t *t = o->gnu_hash;
	uint32_t nbuckets = t[0], bloom_size = t[2], shift = t[3];
	if (!nbuckets || !bloom_size)
		return 0;
	const ElfW(Addr) *bloom = (const void *)(t + 4);
	const unsigned bits = sizeof(ElfW(Addr)) * 8;
	ElfW(Addr) word = bloom[(h / bits) % bloom_size];
	ElfW(Addr) mask = ((ElfW(Addr))1 << (h % bits)) | ((ElfW(Addr))1 << ((h >> shift) % bits));
	return (word & mask) == mask;
}

/* The definition of `name` (GNU hash h) in `o` that sym_ok() accepts, or
 * NULL: the object's bloom filter, bucket and chain. */
OA_EARLY_TEXT static const ElfW(Sym) * sym_find(const struct obj *o, const char *const *vernames, const char *name,
						uint32_t h, const char *version, int bind)
{
	if (!bloom_maybe(o, h))
		return NULL;
	const uint32_t *t = o->gnu_hash;
	uint32_t nbuckets = t[0], symoffset = t[1], bloom_size = t[2];
	const uint32_t *buckets = (const void *)((const ElfW(Addr) *)(t + 4) + bloom_size);
	const uint32_t *chain = buckets + nbuckets;
	uint32_t i = buckets[h % nbuckets];
	if (i < symoffset)
		return NULL;
	for (;; i++) {
		uint32_t h2 = chain[i - symoffset];
		const ElfW(Sym) *s = &o->symtab[i];
		if ((h | 1) == (h2 | 1) && s->st_shndx != SHN_UNDEF && s->st_value &&
		    !oa_strcmp(o->strtab + s->st_name, name) && sym_ok(o, vernames, i, version, bind))
			return s;
		if (h2 & 1)
			return NULL;
	}
}

OA_EARLY_TEXT static void *obj_find(const struct obj *o, const char *name, uint32_t h, const char *version)
{
	const ElfW(Sym) *s = sym_find(o, NULL, name, h, version, 0);
	if (!s)
		return NULL;
	int type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
	if ((bind == STB_GLOBAL || bind == STB_WEAK) && (type == STT_FUNC || type == STT_OBJECT))
		return (void *)(o->m->l_addr + s->st_value);
	/* An IFUNC (its resolver picks the implementation) or anything
	 * unusual: dlsym knows what to do. */
	return (void *)-1;
}

/* ---- The global scope, read once ----
 * The objects of the global scope in load order (the program, the preloaded
 * objects, their libraries; never the vDSO), with the names of their
 * versions.  A traced process reads it once in its constructor, binds its
 * imports from it (oa_real_bind) and, until its last constructor has run,
 * resolves the real functions from it (~75 lookups), where each lookup
 * would otherwise walk the list and every object's version list again.  No
 * object can come or go meanwhile: the loader's lock is held while
 * constructors run. */
#define SCOPE_MAX 64
struct scope {
	int n, self; /* self: our index */
	int odd;     /* an object this lookup cannot read: the loader must say */
	/* The objects up to the loader itself (found by _r_debug.r_ldbase;
	 * 0 when not found): all loaded at start, as dlopen appends after
	 * every object loaded at start (some may come after the loader: a
	 * dependency of a dependency).  No object loaded at start is ever
	 * unloaded: these entries stay valid for the life of the process. */
	int perm;
	/* Each object with its versions, so that a process touches only
	 * the pages of the few objects it has. */
	struct {
		struct obj o;
		const char *ver[SCOPE_NVER];
	} e[SCOPE_MAX];
};

static struct scope scope OA_LARGE_BSS;
/* 0: no copy (a disabled agent, or one that cannot use it); 1: the agent's
 * constructors run, the copy is the whole scope; 2: after them, its
 * objects loaded at start serve lookups (scope.perm), anything else is
 * looked for as before.  Read by every lookup, a disabled agent's too. */
static _Atomic int scope_valid OA_EARLY_DATA;

OA_START_TEXT static void scope_open(struct scope *sc)
{
	uintptr_t vdso = getauxval(AT_SYSINFO_EHDR);
	ElfW(Addr) ldbase = _r_debug.r_ldbase;
	sc->n = sc->odd = sc->perm = 0;
	sc->self = -1;
	for (const struct link_map *m = _r_debug.r_map; m; m = m->l_next) {
		if (vdso && (uintptr_t)m->l_ld - vdso < 65536)
			continue; /* not in the global scope */
		struct obj *o = &sc->e[sc->n].o;
		if (sc->n == SCOPE_MAX || obj_open(m, o) != 0) {
			sc->odd = 1;
			return;
		}
		if (m->l_ld == _DYNAMIC)
			sc->self = sc->n;
		if (ldbase && m->l_addr == ldbase && !sc->perm)
			sc->perm = sc->n + 1;
		memset(sc->e[sc->n].ver, 0, sizeof(sc->e[sc->n].ver));
		for (const ElfW(Verdef) *d = o->verdef; d;
		     d = d->vd_next ? (const void *)((const char *)d + d->vd_next) : NULL) {
			const ElfW(Verdaux) *x = (const void *)((const char *)d + d->vd_aux);
			if (d->vd_ndx < SCOPE_NVER)
				sc->e[sc->n].ver[d->vd_ndx] = o->strtab + x->vda_name;
		}
		sc->n++;
	}
}

/* An IFUNC's implementation, chosen by its resolver as the loader would. */
OA_START_TEXT static void *ifunc_pick(const struct link_map *m, const ElfW(Sym) * s)
{
#if defined(__x86_64__)
	void *(*resolver)(void) = (void *(*)(void))(m->l_addr + s->st_value);
	return resolver();
#else
	(void)m, (void)s;
	return (void *)-1;
#endif
}

/* name@version in the objects of the scope from `from` up to `to`: its
 * address, NULL when none, (void *)-1 when dlsym must say (an object or a
 * symbol this lookup does not read).  `bind`: a reference of ours, as the
 * loader binds it (any version may serve, IFUNCs resolved); otherwise as
 * dlsym(RTLD_NEXT) or dlvsym() find it.  *where (when not NULL) gets the
 * index of the object that defines it and *sym its symbol (NULL when the
 * address is not a plain definition's). */
OA_START_TEXT static void *scope_sym(const struct scope *sc, int from, int to, const char *name, const char *version,
				     int bind, int *where, const ElfW(Sym) * *sym)
{
	uint32_t h = gnu_hash(name);
	if (sym)
		*sym = NULL;
	for (int k = from; k < to; k++) {
		const struct obj *o = &sc->e[k].o;
		const ElfW(Sym) *s = sym_find(o, sc->e[k].ver, name, h, version, bind);
		if (!s)
			continue;
		int type = ELF64_ST_TYPE(s->st_info), b = ELF64_ST_BIND(s->st_info);
		if (b != STB_GLOBAL && b != STB_WEAK)
			return (void *)-1;
		if (where)
			*where = k;
		if (sym)
			*sym = s;
		if (type == STT_FUNC || (!bind && type == STT_OBJECT))
			return (void *)(o->m->l_addr + s->st_value);
		if (bind && type == STT_GNU_IFUNC)
			return ifunc_pick(o->m, s);
		if (sym)
			*sym = NULL;
		return (void *)-1;
	}
	return sc->odd ? (void *)-1 : NULL;
}

OA_START_TEXT static void *scope_find(const struct scope *sc, int from, int to, const char *name, const char *version,
				      int bind)
{
	return scope_sym(sc, from, to, name, version, bind, NULL, NULL);
}

OA_START_TEXT void oa_real_scope(int on)
{
	if (on) {
		scope_open(&scope);
		atomic_store(&scope_valid, scope.self >= 0);
	} else {
		atomic_store(&scope_valid, oa_real_scope_lasts() ? 2 : 0);
	}
}

OA_START_TEXT int oa_real_program_defines(const char *name)
{
	if (atomic_load(&scope_valid) != 1 || scope.n < 1)
		return 0;
	void *p = scope_find(&scope, 0, 1, name, NULL, 0);
	return p && p != (void *)-1;
}

OA_START_TEXT int oa_real_scope_lasts(void)
{
	/* We are among the objects loaded at start (not dlopen'ed after
	 * them: then the objects after us would be ones that may go), and
	 * each of them could be read (a miss is then a real miss there). */
	return atomic_load(&scope_valid) && !scope.odd && scope.perm > 0 && scope.self < scope.perm;
}

/* The first definition after our object, NULL when none, (void *)-1 when
 * an object could not be read (the caller asks dlsym).  None after us: the
 * first one before us.  An agent loaded by dlopen (OMP_TOOL_LIBRARIES
 * alone: the OpenMP runtime loads it) comes after libc, its wrappers
 * stand in for nothing, and the real functions are libc's, before it
 * (each of its ~15 lookups failed, and said so, before). */
OA_EARLY_TEXT static void *lookup_next(const char *name, const char *version)
{
	int valid = atomic_load_explicit(&scope_valid, memory_order_acquire);
	if (valid == 1) {
		void *p = scope_find(&scope, scope.self + 1, scope.n, name, version, 0);
		return p ? p : scope_find(&scope, 1, scope.self, name, version, 0); /* not the program */
	}
	if (valid == 2) {
		/* Found among the objects after ours up to the loader (all
		 * loaded at start): what dlsym(RTLD_NEXT) finds too, as any
		 * object between is in the copy.  Not found: the walk below,
		 * in dlsym's order (objects loaded at start after the loader,
		 * or since, come before those before ours). */
		void *p = scope_find(&scope, scope.self + 1, scope.perm, name, version, 0);
		if (p)
			return p;
	}
	const struct link_map *self = _r_debug.r_map;
	while (self && self->l_ld != _DYNAMIC)
		self = self->l_next;
	if (!self)
		return (void *)-1;
	uint32_t h = gnu_hash(name);
	/* The vDSO's address only for a map that may be it: its name is its
	 * soname, "linux-vdso.so.1", "linux-gate.so.1"..., where a loaded
	 * file's is a path.  A disabled agent's lookup of the real
	 * __libc_start_main finds it in libc, after ours and before the vDSO
	 * (which follows the program), and binds no getauxval lazily. */
	uintptr_t vdso = 0;
	int vdso_known = 0;
	for (int pass = 0; pass < 2; pass++) {
		const struct link_map *m = pass == 0 ? self->l_next : _r_debug.r_map;
		for (; m && m != (pass == 0 ? NULL : self); m = m->l_next) {
			struct obj o;
			if (!m->l_name || !m->l_name[0])
				continue;          /* the program */
			const char *n = m->l_name; /* no literal: .rodata, a window a disabled agent never reads */
			if (n[0] == 'l' && n[1] == 'i' && n[2] == 'n' && n[3] == 'u' && n[4] == 'x' && n[5] == '-') {
				if (!vdso_known)
					vdso = getauxval(AT_SYSINFO_EHDR), vdso_known = 1;
				if (vdso && (uintptr_t)m->l_ld - vdso < 65536)
					continue; /* the vDSO: its symbols are libc's business (it
						   * may have no GNU hash table: aarch64's) */
			}
			if (obj_open(m, &o) != 0)
				return (void *)-1;
			void *p = obj_find(&o, name, h, version);
			if (p)
				return p;
		}
	}
	return NULL;
}

OA_START_TEXT void *oa_real_vdso(const char *name, const char *version)
{
	uintptr_t vdso = getauxval(AT_SYSINFO_EHDR);
	if (!vdso)
		return NULL;
	for (const struct link_map *m = _r_debug.r_map; m; m = m->l_next) {
		struct obj o;
		if ((uintptr_t)m->l_ld - vdso >= 65536)
			continue;
		if (obj_open(m, &o) != 0)
			return NULL;
		void *p = obj_find(&o, name, gnu_hash(name), version);
		return p == (void *)-1 ? NULL : p;
	}
	return NULL;
}

OA_START_TEXT int oa_real_loaded(const char *prefix, size_t len)
{
	for (const struct link_map *m = _r_debug.r_map; m; m = m->l_next) {
		const char *n = m->l_name, *b = n ? oa_strrchr(n, '/') : NULL;
		b = b ? b + 1 : n;
		if (b && !strncmp(b, prefix, len))
			return 1;
	}
	return 0;
}

OA_START_TEXT const char *oa_real_self_name(void)
{
	for (const struct link_map *m = _r_debug.r_map; m; m = m->l_next)
		if (m->l_ld == _DYNAMIC)
			return m->l_name && m->l_name[0] ? m->l_name : NULL;
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

/* ---- Binding our own imports (oa_real_bind) ----
 * The object is linked lazily: a process that never traces (OVNI_DISABLE)
 * pays no symbol lookup for the ~150 libc functions the agent calls, ~20 us
 * each time it is loaded.  A traced process binds them all here, from its
 * constructor, so the loader's resolver never runs on an agent path (a
 * callback, a flush, a signal handler) later.  The search is the loader's:
 * the global scope in load order (the program, the preloaded objects, their
 * libraries; never the vDSO), the version the reference names, an object
 * without versions matching any. */

/* The version a reference of ours names (our DT_VERNEED), NULL if none. */
OA_START_TEXT static const char *needed_version(const struct obj *o, const ElfW(Verneed) * vn, uint32_t i)
{
	if (!o->versym || !vn)
		return NULL;
	ElfW(Half) want = o->versym[i] & 0x7fff;
	if (want <= 1)
		return NULL;
	for (;;) {
		const ElfW(Vernaux) *a = (const void *)((const char *)vn + vn->vn_aux);
		for (unsigned k = 0; k < vn->vn_cnt; k++) {
			if (a->vna_other == want)
				return o->strtab + a->vna_name;
			a = (const void *)((const char *)a + a->vna_next);
		}
		if (!vn->vn_next)
			return NULL;
		vn = (const void *)((const char *)vn + vn->vn_next);
	}
}

#if defined(__x86_64__)
#define OA_JUMP_SLOT R_X86_64_JUMP_SLOT
#elif defined(__aarch64__)
#define OA_JUMP_SLOT R_AARCH64_JUMP_SLOT
#endif

/* ---- What a traced parent bound (OVNI_BIND) ----
 * Binding looks each of ~150 names up in libc's hash table: ~20-50 us in
 * a new process on this project's VMs (its tables' pages and cache lines
 * are cold there; 5-9 us when bound again in the same process).  A process
 * started by a traced one mostly has the same agent and the same libc, and
 * so the same answers: the first traced process of a run puts them in
 * OVNI_BIND, which its children inherit, and a process whose agent and
 * libc have the build IDs written there takes each answer from it (an
 * offset in the agent or in libc; an IFUNC's resolver is called again),
 * unless an object before that one in its own scope (its program, another
 * preloaded object, a library loaded before libc) may define the name
 * (its Bloom filter says so): that name is looked up as before.  An IFUNC
 * is resolved here again, as the CPU may differ (an MPI rank on another
 * node with the same libc).  Anything that does not match (another agent,
 * another libc, a value this code does not read) is ignored, and the
 * process binds as before and writes its own.
 * Value: AGENT_ID:LIBC_ID:ENTRIES, the IDs the first 8 bytes of each
 * object's GNU build ID in hex, ENTRIES one per PLT slot of the agent in
 * its order: `-` (look it up), or `A` (the agent), `L` (libc) or `I` (an
 * IFUNC of libc) followed by the definition's offset in 4 characters of
 * BIND_DIGITS. */
#define BIND_ID 16
static const char bind_digits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/";

/* The value of a digit of bind_digits, -1 for anything else (no libc
 * call: none of this calls through a PLT slot not bound yet, each a trip
 * through the loader's lazy resolver). */
OA_START_TEXT static int bind_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 36;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* The first 8 bytes of m's GNU build ID in hex into id (BIND_ID + 1): 0,
 * or -1 when it has none that can be read.  Its ELF header is read at
 * l_addr, where an object whose first segment maps file offset 0 at
 * address 0 has it: asked only of the agent (built so) and of libc
 * (glibc's is, on every architecture it builds for). */
OA_START_TEXT static int build_id(const struct link_map *m, char *id)
{
	const ElfW(Ehdr) *e = (const void *)m->l_addr;
	if (!m->l_addr || e->e_ident[EI_MAG0] != ELFMAG0 || e->e_ident[EI_MAG1] != ELFMAG1 ||
	    e->e_ident[EI_MAG2] != ELFMAG2 || e->e_ident[EI_MAG3] != ELFMAG3 ||
	    e->e_ident[EI_CLASS] != (__ELF_NATIVE_CLASS == 64 ? ELFCLASS64 : ELFCLASS32) ||
	    e->e_phentsize != sizeof(ElfW(Phdr)) || e->e_phoff > 4096 - (size_t)e->e_phnum * sizeof(ElfW(Phdr)))
		return -1;
	const ElfW(Phdr) *ph = (const void *)(m->l_addr + e->e_phoff);
	for (int i = 0; i < e->e_phnum; i++) {
		if (ph[i].p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(m->l_addr + ph[i].p_vaddr), *end = p + ph[i].p_memsz;
		while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *n = (const void *)p;
			const char *name = p + sizeof(*n);
			const unsigned char *desc = (const void *)(name + ((n->n_namesz + 3) & ~3u));
			const char *next = (const char *)desc + ((n->n_descsz + 3) & ~3u);
			if (next > end || next <= p)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && name[0] == 'G' && name[1] == 'N' &&
			    name[2] == 'U' && !name[3] && n->n_descsz >= BIND_ID / 2) {
				for (int k = 0; k < BIND_ID / 2; k++) {
					id[2 * k] = bind_digits[desc[k] >> 4];
					id[2 * k + 1] = bind_digits[desc[k] & 15];
				}
				id[BIND_ID] = 0;
				return 0;
			}
			p = next;
		}
	}
	return -1;
}

/* The scope's libc: the object named libc.so.*, or -1. */
OA_START_TEXT static int scope_libc(const struct scope *sc)
{
	for (int k = 1; k < sc->n; k++) {
		const char *n = sc->e[k].o.m->l_name, *b = n ? oa_strrchr(n, '/') : NULL;
		b = b ? b + 1 : n;
		if (b && oa_env_prefix(b, "libc.so.", 8))
			return k;
	}
	return -1;
}

struct bind_table {
	const char *entries; /* the parent's, NULL when none serves */
	int libc, from_parent;
	char *out; /* ours, built as we bind (NULL: not wanted) */
	size_t len, cap;
};

/* The address the parent's entry at *pos gives, NULL when it gives none
 * here (the name looked up as before); *pos moves past the entry. */
OA_START_TEXT static void *bind_cached(const struct scope *sc, struct bind_table *bt, const char **pos,
				       const char *name, const char *version)
{
	const char *e = *pos;
	if (!e || !*e)
		return NULL;
	char tag = *e++;
	if (tag == '-') {
		*pos = e;
		return NULL;
	}
	unsigned long off = 0;
	for (int i = 0; i < 4; i++) {
		int d = bind_digit(*e++);
		if (d < 0) {
			*pos = NULL; /* not ours: nothing more is read */
			return NULL;
		}
		off = off * 64 + (unsigned long)d;
	}
	*pos = e;
	int k = tag == 'A' ? sc->self : (tag == 'L' || tag == 'I') ? bt->libc : -1;
	if (k < 0)
		return NULL;
	/* Nothing before it here defines the name as the loader would bind
	 * it (the agent's own definitions are the parent's: the same
	 * build).  The Bloom filter rules out most names at once. */
	uint32_t h = gnu_hash(name);
	for (int j = 0; j < k; j++)
		if (j != sc->self && bloom_maybe(&sc->e[j].o, h) &&
		    sym_find(&sc->e[j].o, sc->e[j].ver, name, h, version, 1))
			return NULL;
	const struct link_map *m = sc->e[k].o.m;
	if (tag == 'I')
		return ifunc_pick(m, &(ElfW(Sym)){ .st_value = off });
	return (void *)(m->l_addr + off);
}

/* Our entry for a name bound to p, defined by object k's symbol s. */
OA_START_TEXT static void bind_note(const struct scope *sc, struct bind_table *bt, int k, const ElfW(Sym) * s)
{
	if (!bt->out || bt->len + 6 > bt->cap)
		return;
	char *o = bt->out + bt->len;
	char tag = '-';
	if (s && k == sc->self && ELF64_ST_TYPE(s->st_info) == STT_FUNC)
		tag = 'A';
	else if (s && k == bt->libc && ELF64_ST_TYPE(s->st_info) == STT_FUNC)
		tag = 'L';
	else if (s && k == bt->libc && ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC)
		tag = 'I';
	if (tag != '-' && s->st_value >= (ElfW(Addr))1 << 24)
		tag = '-';
	*o++ = tag;
	if (tag != '-')
		for (int i = 3; i >= 0; i--)
			*o++ = bind_digits[(s->st_value >> (6 * i)) & 63];
	*o = 0;
	bt->len = (size_t)(o - bt->out);
}

OA_START_TEXT const char *oa_real_bind_string(void)
{
	return bind_string;
}

OA_START_TEXT void oa_real_bind_keep(const char *s)
{
	bind_string = s;
}

OA_START_TEXT int oa_real_bind(int *left, int *from_parent, char *table, size_t table_len)
{
	int bound = 0, lazy = 0;
	struct bind_table bt = { 0 };
	bt.libc = -1;
	if (table && table_len)
		table[0] = 0;
#ifdef OA_JUMP_SLOT
	const struct link_map *m = _r_debug.r_map;
	while (m && m->l_ld != _DYNAMIC)
		m = m->l_next;
	struct obj o;
	if (!m || obj_open(m, &o) != 0)
		goto out;
	const ElfW(Rela) *rel = NULL;
	size_t size = 0;
	const ElfW(Verneed) *vn = NULL;
	for (const ElfW(Dyn) *d = m->l_ld; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_JMPREL: rel = dyn_ptr(m, d->d_un.d_ptr); break;
		case DT_PLTRELSZ: size = d->d_un.d_val; break;
		case DT_PLTREL:
			if (d->d_un.d_val != DT_RELA)
				goto out;
			break;
		case DT_VERNEED: vn = dyn_ptr(m, d->d_un.d_ptr); break;
		case DT_FLAGS:
			if (d->d_un.d_val & DF_BIND_NOW)
				goto out; /* bound by the loader (and read-only) */
			break;
		case DT_FLAGS_1:
			if (d->d_un.d_val & DF_1_NOW)
				goto out;
			break;
		}
	}
	if (!atomic_load(&scope_valid))
		oa_real_scope(1);
	/* The parent's answers, when its agent and libc are ours; ours for
	 * the children otherwise (table: "ID:ID:" then an entry per slot). */
	char ids[2 * BIND_ID + 3];
	bt.libc = scope_libc(&scope);
	if (!scope.odd && scope.self >= 0 && bt.libc > scope.self && build_id(m, ids) == 0 &&
	    build_id(scope.e[bt.libc].o.m, ids + BIND_ID + 1) == 0) {
		ids[BIND_ID] = ids[2 * BIND_ID + 1] = ':';
		ids[2 * BIND_ID + 2] = 0;
		const char *v = oa_getenv(oa_env_names[OA_ENV_BIND]);
		if (v && oa_env_prefix(v, ids, 2 * BIND_ID + 2)) {
			bt.entries = v + 2 * BIND_ID + 2;
			/* Its string in the environment (the new image's
			 * stack: it stays when the variable is unset). */
			bind_string = v - oa_strlen(oa_env_names[OA_ENV_BIND]) - 1;
		} else if (table && table_len > sizeof(ids)) {
			oa_memcpy(table, ids, sizeof(ids));
			bt.out = table;
			bt.len = sizeof(ids) - 1;
			bt.cap = table_len;
		}
	}
	/* The versions our references name, by index, read once (a walk of
	 * DT_VERNEED for each of ~150 references was 15K instructions). */
	const char *need[SCOPE_NVER] = { 0 };
	for (const ElfW(Verneed) *v = vn; v; v = v->vn_next ? (const void *)((const char *)v + v->vn_next) : NULL) {
		const ElfW(Vernaux) *a = (const void *)((const char *)v + v->vn_aux);
		for (unsigned j = 0; j < v->vn_cnt; j++) {
			if (a->vna_other < SCOPE_NVER)
				need[a->vna_other] = o.strtab + a->vna_name;
			a = (const void *)((const char *)a + a->vna_next);
		}
	}
	const char *pos = bt.entries;
	for (size_t k = 0; rel && k < size / sizeof(*rel); k++) {
		if (ELF64_R_TYPE(rel[k].r_info) != OA_JUMP_SLOT)
			continue;
		uint32_t i = ELF64_R_SYM(rel[k].r_info);
		const char *name = o.strtab + o.symtab[i].st_name;
		unsigned want = o.versym ? o.versym[i] & 0x7fff : 0;
		const char *version = want <= 1                         ? NULL
				      : want < SCOPE_NVER && need[want] ? need[want]
									: needed_version(&o, vn, i);
		void *p = bind_cached(&scope, &bt, &pos, name, version);
		if (p) {
			bt.from_parent++;
		} else {
			int where = -1;
			const ElfW(Sym) *s = NULL;
			p = scope_sym(&scope, 0, scope.n, name, version, 1, &where, &s);
			bind_note(&scope, &bt, where, p == (void *)-1 ? NULL : s);
			if (p == (void *)-1)
				p = version ? dlvsym(RTLD_DEFAULT, name, version) : dlsym(RTLD_DEFAULT, name);
		}
		if (!p) {
			lazy++; /* a weak reference to nothing: the loader's business */
			continue;
		}
		_Atomic(void *) *slot = (_Atomic(void *) *)(m->l_addr + rel[k].r_offset);
		atomic_store_explicit(slot, (void *)((char *)p + rel[k].r_addend), memory_order_relaxed);
		bound++;
	}
	if (bt.out && bt.len + 1 >= bt.cap)
		table[0] = 0; /* did not fit: none */
#endif
out:
	if (left)
		*left = lazy;
	if (from_parent)
		*from_parent = bt.from_parent;
	return bound;
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

OA_START_TEXT int oa_real_init(void)
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
