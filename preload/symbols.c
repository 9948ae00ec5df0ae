/* symbols.c: address to function name (see symbols.h).
 * The objects are found with dl_iterate_phdr and their ELF files read by our
 * own small reader (mapped read-only, section headers, .symtab or .dynsym):
 * never dladdr, dlopen or dlsym, which wait for the loader lock that a
 * dlopen holds while a library's constructor runs (a constructor that starts
 * threads and joins them would wait for us forever).  dl_iterate_phdr takes
 * only the lock that guards the list of objects, held for a moment while an
 * object is added or removed, never while constructors or destructors run.
 * One table per loaded object, sorted by address, built the first time an
 * address of that object is looked up; one small open-addressing cache of
 * address -> (name, start).  A spin lock (not a pthread mutex: the agent may
 * interpose those) serialises lookups; they are rare after warm-up.
 * The tables live in mappings of the agent's own, not in the program's heap:
 * a lookup runs on the thread it names, often one that never called malloc,
 * and its first malloc would set up an arena of the heap for it (64 MiB of
 * address space reserved, a few pages written: more than the thread itself
 * under a tight `ulimit -v`). */
#include "../common/compiler.h"
#include "../common/fdroom.h"
#include "../common/sys.h"
#include "../writer/sigblock.h"
#include "../writer/stream.h"
#include "symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

static atomic_flag lock OA_FORK_DATA = ATOMIC_FLAG_INIT; /* with what a fork child writes (agent.c, pend) */
static struct object *objects;
static struct entry cache[CACHE_SIZE] OA_LARGE_BSS;
static size_t cache_used;
/* The holder reads ELF files (open, read: cancellation points): it is
 * not cancelled while it holds the lock, or every other thread would spin
 * here for ever (a thread started with a cancel pending, its start
 * routine's name looked up: the run hung). */
static int lock_cancel; /* the holder's cancellation, as it was */
static void spin_lock_raw(void)
{
	/* The raw call: sched_yield is interposed (recorded as a wait).  None
	 * once a seal is coming (a seccomp filter may forbid it). */
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		if (!atomic_load(&oa_stream_frozen))
			syscall(SYS_sched_yield);
}

OA_THREAD_TEXT static void spin_lock(void)
{
	int c = oa_cancel_off();
	spin_lock_raw();
	lock_cancel = c;
}

OA_THREAD_TEXT static void spin_unlock(void)
{
	int c = lock_cancel;
	atomic_flag_clear_explicit(&lock, memory_order_release);
	oa_cancel_back(c);
}

/* Bytes from the agent's own mappings (256 KiB at a time, more for a large
 * request), never given back; NULL when mmap fails.  Under the lock. */
static char *mem_at;
static size_t mem_left;

OA_THREAD_TEXT static void *mem_take(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (n > mem_left) {
		size_t chunk = n > (256u << 10) ? (n + 4095) & ~(size_t)4095 : (256u << 10);
		void *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		mem_at = p;
		mem_left = chunk;
	}
	void *r = mem_at;
	mem_at += n;
	mem_left -= n;
	return r;
}

static char *mem_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *c = mem_take(n);
	if (c)
		memcpy(c, s, n);
	return c;
}

/* An object's symbols sorted by start, in place (heap sort: glibc's qsort
 * takes a malloc'ed buffer for a large array). */
OA_THREAD_TEXT static void sift(struct sym *a, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1].start > a[c].start)
			c++;
		if (a[c].start <= a[i].start)
			return;
		struct sym t = a[i];
		a[i] = a[c];
		a[c] = t;
		i = c;
	}
}

static void sort_syms(struct sym *a, size_t n)
{
	for (size_t k = n / 2; k-- > 0;)
		sift(a, k, n);
	for (size_t e = n; e-- > 1;) {
		struct sym t = a[0];
		a[0] = a[e];
		a[e] = t;
		sift(a, 0, e);
	}
}

static int add_sym(struct object *o, size_t *cap, uintptr_t start, uintptr_t size, const char *name)
{
	if (o->nsyms == *cap) {
		/* A mapping of its own, grown (and moved) by mremap. */
		size_t ncap = *cap ? *cap * 2 : 512;
		void *ns = *cap ? mremap(o->syms, *cap * sizeof(*o->syms), ncap * sizeof(*o->syms), MREMAP_MAYMOVE)
				: mmap(NULL, ncap * sizeof(*o->syms), PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (ns == MAP_FAILED)
			return -1;
		o->syms = ns;
		*cap = ncap;
	}
	char *copy = mem_strdup(name);
	if (!copy)
		return -1;
	o->syms[o->nsyms++] = (struct sym){ o->base + start, o->base + start + size, copy };
	return 0;
}

/* The function symbols of one section of type `type` (SHT_SYMTAB or
 * SHT_DYNSYM) of the ELF image at `img` (`len` bytes); every offset is
 * checked against the file's size. */
OA_THREAD_TEXT static void read_symtabs(const unsigned char *img, size_t len, unsigned type, struct object *o,
					size_t *cap)
{
	const Elf64_Ehdr *eh = (const void *)img;
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff >= len ||
	    eh->e_shnum > (len - eh->e_shoff) / sizeof(Elf64_Shdr))
		return;
	const Elf64_Shdr *sh = (const void *)(img + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != type || sh[i].sh_entsize != sizeof(Elf64_Sym) || sh[i].sh_link >= eh->e_shnum)
			continue;
		const Elf64_Shdr *st = &sh[sh[i].sh_link];
		if (sh[i].sh_offset > len || sh[i].sh_size > len - sh[i].sh_offset || st->sh_offset > len ||
		    st->sh_size > len - st->sh_offset || st->sh_size == 0)
			continue;
		const Elf64_Sym *sym = (const void *)(img + sh[i].sh_offset);
		const char *strs = (const char *)img + st->sh_offset;
		size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
		for (size_t k = 0; k < n; k++) {
			if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || !sym[k].st_value ||
			    sym[k].st_shndx == SHN_UNDEF || sym[k].st_name == 0 || sym[k].st_name >= st->sh_size)
				continue;
			const char *name = strs + sym[k].st_name;
			if (!memchr(name, '\0', st->sh_size - sym[k].st_name) || !*name)
				continue;
			if (add_sym(o, cap, sym[k].st_value, sym[k].st_size, name) != 0)
				return;
		}
	}
}

static void load_object(struct object *o)
{
	/* Its descriptor is not one the program's closes may meet
	 * (common/fdroom.h). */
	oa_fdlock_agent_enter();
	int fd = open(o->path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	void *img = MAP_FAILED;
	if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (size_t)sb.st_size >= sizeof(Elf64_Ehdr))
		img = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (fd >= 0)
		oa_nc_close(fd);
	oa_fdlock_agent_leave();
	if (img == MAP_FAILED)
		return;
	size_t len = (size_t)sb.st_size;
	const unsigned char *p = img;
	size_t cap = 0;
	if (!memcmp(p, ELFMAG, SELFMAG) && p[EI_CLASS] == ELFCLASS64) {
		/* Prefer the full table; fall back to the dynamic one (stripped). */
		read_symtabs(p, len, SHT_SYMTAB, o, &cap);
		if (!o->nsyms)
			read_symtabs(p, len, SHT_DYNSYM, o, &cap);
	}
	munmap(img, len);
	if (o->nsyms)
		sort_syms(o->syms, o->nsyms);
}

struct find {
	uintptr_t addr, base;
	char path[4096];
	int found;
};

/* Called with the loader's list lock held: copy, nothing else. */
OA_THREAD_TEXT static int find_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find *f = arg;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (f->addr >= lo && f->addr < lo + ph->p_memsz) {
			f->base = info->dlpi_addr;
			const char *n = info->dlpi_name;
			/* The main program's name is empty. */
			snprintf(f->path, sizeof(f->path), "%s", n && *n ? n : "/proc/self/exe");
			f->found = 1;
			return 1;
		}
	}
	return 0;
}

struct range {
	uintptr_t addr, lo, hi;
};

static int range_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct range *r = arg;
	(void)size;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	int in = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
		if (r->addr >= a && r->addr < a + ph->p_memsz)
			in = 1;
	}
	if (!in)
		return 0;
	r->lo = lo;
	r->hi = hi;
	return 1;
}

int oa_sym_object_range(uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
	struct range r = { addr, 0, 0 };
	if (!addr || !dl_iterate_phdr(range_cb, &r))
		return -1;
	*lo = r.lo;
	*hi = r.hi;
	return 0;
}

static struct object *object_of(uintptr_t addr)
{
	static struct find f OA_LARGE_BSS; /* under the lock: a thread may have a tiny stack */
	f.addr = addr;
	f.found = 0;
	if (!dl_iterate_phdr(find_cb, &f) || !f.found)
		return NULL;
	for (struct object *o = objects; o; o = o->next)
		if (o->base == f.base && !strcmp(o->path, f.path))
			return o;
	struct object *o = mem_take(sizeof(*o));
	if (!o)
		return NULL;
	memset(o, 0, sizeof(*o));
	o->base = f.base;
	o->path = mem_strdup(f.path);
	if (!o->path)
		return NULL; /* the object's bytes are lost: mmap failed anyway */
	load_object(o);
	o->next = objects;
	objects = o;
	return o;
}

OA_THREAD_TEXT static void resolve(uintptr_t addr, struct entry *e)
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
	e->name = mem_strdup(buf);
	if (!e->name)
		e->name = "??";
}

OA_THREAD_TEXT static struct entry *lookup(uintptr_t addr)
{
	static struct entry none = { 0, 0, "??" };
	size_t h = (addr * 0x9E3779B97F4A7C15ull) >> 52; /* 12 bits */
	for (size_t i = 0; i < CACHE_SIZE; i++) {
		struct entry *e = &cache[(h + i) % CACHE_SIZE];
		if (e->addr == addr && e->name)
			return e;
		if (!e->name) {
			/* Reading an object's symbols makes system calls (open,
			 * read, mmap): work a seal waits for, none once it is
			 * coming (a thread started just before a filter went in
			 * on every thread, TSYNC, looked up its start routine's
			 * name under it and the process died of SIGSYS: t412,
			 * 1 run in 16 under load). */
			if (!oa_sys_work_enter())
				return &none;
			if (cache_used >= CACHE_SIZE * 3 / 4) {
				static struct entry scratch;
				resolve(addr, &scratch);
				oa_sys_work_leave();
				return &scratch;
			}
			resolve(addr, e);
			cache_used++;
			oa_sys_work_leave();
			return e;
		}
	}
	return &none;
}

/* Held across fork, though the parent's release after it is a page
 * copy at every fork: a lookup holds it around dl_iterate_phdr, whose
 * lock (the loader's dl_load_write_lock) a fork child does not get reset
 * (glibc resets dl_load_lock only), so a child forked in the middle of a
 * lookup would wait for it forever at its first lookup (t700's
 * adv01_fork_locks hung 2 runs in 7 without this). */
OA_START_TEXT void oa_sym_fork_prepare(void)
{
	spin_lock_raw(); /* fork is no cancellation point: nothing to turn off */
}

OA_START_TEXT void oa_sym_fork_parent(void)
{
	atomic_flag_clear_explicit(&lock, memory_order_release);
}

OA_EARLY_TEXT void oa_sym_fork_child(void)
{
	/* Held only when a thread of ours forked (the prepare handler takes
	 * it): read first, a fork child writes no page it need not. */
	if (__atomic_load_n((unsigned char *)&lock, __ATOMIC_RELAXED))
		atomic_flag_clear(&lock);
}

OA_THREAD_TEXT const char *oa_sym_name(uintptr_t addr)
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
