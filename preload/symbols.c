/* symbols.c: address to function name with libelf (see symbols.h), which
 * is opened the first time it is needed.
 * One table per loaded object, sorted by address, built the first time an
 * address of that object is looked up; one small open-addressing cache of
 * address -> (name, start).  A spin lock (not a pthread mutex: the agent may
 * interpose those) serialises lookups; they are rare after warm-up. */
#include "symbols.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct sym {
	uintptr_t start, end; /* run-time addresses */
	const char *name;
};

struct object {
	uintptr_t base; /* load bias */
	char *path;
	struct sym *syms;
	size_t nsyms;
	struct object *next;
};

struct entry {
	uintptr_t addr;
	uintptr_t start;
	const char *name;
};

#define CACHE_SIZE 4096 /* entries; a full cache is simply not filled further */

static atomic_flag lock = ATOMIC_FLAG_INIT;
static struct object *objects;
static struct entry cache[CACHE_SIZE];
static size_t cache_used;
static int elf_ready;

/* libelf is opened the first time a symbol is needed, not at load time:
 * most short processes never name a function, and loading libelf (and
 * libz behind it) cost every process ~50 us.  Under the lock. */
static struct {
	unsigned (*version)(unsigned);
	Elf *(*begin)(int, Elf_Cmd, Elf *);
	int (*end)(Elf *);
	Elf_Scn *(*nextscn)(Elf *, Elf_Scn *);
	Elf_Data *(*getdata)(Elf_Scn *, Elf_Data *);
	char *(*strptr)(Elf *, size_t, size_t);
	GElf_Shdr *(*getshdr)(Elf_Scn *, GElf_Shdr *);
	GElf_Sym *(*getsym)(Elf_Data *, int, GElf_Sym *);
} E;

static int elf_open_lib(void)
{
	if (elf_ready)
		return elf_ready > 0;
	elf_ready = -1;
	void *h = dlopen("libelf.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return 0;
	*(void **)&E.version = dlsym(h, "elf_version");
	*(void **)&E.begin = dlsym(h, "elf_begin");
	*(void **)&E.end = dlsym(h, "elf_end");
	*(void **)&E.nextscn = dlsym(h, "elf_nextscn");
	*(void **)&E.getdata = dlsym(h, "elf_getdata");
	*(void **)&E.strptr = dlsym(h, "elf_strptr");
	*(void **)&E.getshdr = dlsym(h, "gelf_getshdr");
	*(void **)&E.getsym = dlsym(h, "gelf_getsym");
	if (!E.version || !E.begin || !E.end || !E.nextscn || !E.getdata || !E.strptr || !E.getshdr || !E.getsym)
		return 0;
	E.version(EV_CURRENT);
	elf_ready = 1;
	return 1;
}

static void spin_lock(void)
{
	/* The raw call: sched_yield is interposed (recorded as a wait). */
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		syscall(SYS_sched_yield);
}

static void spin_unlock(void)
{
	atomic_flag_clear_explicit(&lock, memory_order_release);
}

static int by_start(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Read the function symbols of one section (SHT_SYMTAB or SHT_DYNSYM). */
static void read_symtab(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct object *o, size_t *cap)
{
	Elf_Data *data = E.getdata(scn, NULL);
	if (!data || !sh->sh_entsize)
		return;
	size_t n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (!E.getsym(data, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value ||
		    s.st_shndx == SHN_UNDEF)
			continue;
		const char *name = E.strptr(elf, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (o->nsyms == *cap) {
			*cap = *cap ? *cap * 2 : 256;
			struct sym *ns = realloc(o->syms, *cap * sizeof(*ns));
			if (!ns)
				return;
			o->syms = ns;
		}
		o->syms[o->nsyms++] = (struct sym){ o->base + s.st_value, o->base + s.st_value + s.st_size,
						    strdup(name) };
	}
}

static void load_object(struct object *o)
{
	if (!elf_open_lib())
		return;
	int fd = open(o->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	Elf *elf = E.begin(fd, ELF_C_READ, NULL);
	size_t cap = 0;
	if (elf) {
		/* Prefer the full table; fall back to the dynamic one (stripped). */
		for (int pass = 0; pass < 2 && !o->nsyms; pass++) {
			Elf_Scn *scn = NULL;
			while ((scn = E.nextscn(elf, scn))) {
				GElf_Shdr sh;
				if (E.getshdr(scn, &sh) && sh.sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB))
					read_symtab(elf, scn, &sh, o, &cap);
			}
		}
		E.end(elf);
	}
	close(fd);
	if (o->nsyms)
		qsort(o->syms, o->nsyms, sizeof(*o->syms), by_start);
}

static struct object *object_of(uintptr_t addr)
{
	Dl_info info;
	struct link_map *lm = NULL;
	if (!dladdr1((void *)addr, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return NULL;
	for (struct object *o = objects; o; o = o->next)
		if (o->base == (uintptr_t)lm->l_addr && !strcmp(o->path, info.dli_fname))
			return o;
	struct object *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->base = (uintptr_t)lm->l_addr;
	/* The main program's l_name is empty: dladdr names it. */
	o->path = strdup(info.dli_fname && *info.dli_fname ? info.dli_fname : "/proc/self/exe");
	load_object(o);
	o->next = objects;
	objects = o;
	return o;
}

static void resolve(uintptr_t addr, struct entry *e)
{
	e->addr = addr;
	e->start = 0;
	struct object *o = object_of(addr);
	if (!o) {
		e->name = "??";
		return;
	}
	/* Last symbol starting at or before addr. */
	size_t lo = 0, hi = o->nsyms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (o->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0) {
		struct sym *s = &o->syms[lo - 1];
		if (addr < s->end || (s->end == s->start && lo < o->nsyms && addr < o->syms[lo].start)) {
			e->name = s->name;
			e->start = s->start;
			return;
		}
	}
	const char *base = strrchr(o->path, '/');
	char buf[512];
	snprintf(buf, sizeof(buf), "%s+0x%lx", base ? base + 1 : o->path, (unsigned long)(addr - o->base));
	e->name = strdup(buf);
}

static struct entry *lookup(uintptr_t addr)
{
	static struct entry none = { 0, 0, "??" };
	size_t h = (addr * 0x9E3779B97F4A7C15ull) >> 52; /* 12 bits */
	for (size_t i = 0; i < CACHE_SIZE; i++) {
		struct entry *e = &cache[(h + i) % CACHE_SIZE];
		if (e->addr == addr && e->name)
			return e;
		if (!e->name) {
			if (cache_used >= CACHE_SIZE * 3 / 4) {
				static struct entry scratch;
				resolve(addr, &scratch);
				return &scratch;
			}
			resolve(addr, e);
			cache_used++;
			return e;
		}
	}
	return &none;
}

void oa_sym_fork_prepare(void)
{
	spin_lock();
}

void oa_sym_fork_parent(void)
{
	spin_unlock();
}

void oa_sym_fork_child(void)
{
	atomic_flag_clear(&lock);
}

const char *oa_sym_name(uintptr_t addr)
{
	if (!addr)
		return "??";
	spin_lock();
	const char *name = lookup(addr)->name;
	spin_unlock();
	return name;
}

uintptr_t oa_sym_start(uintptr_t addr)
{
	if (!addr)
		return 0;
	spin_lock();
	uintptr_t start = lookup(addr)->start;
	spin_unlock();
	return start;
}
