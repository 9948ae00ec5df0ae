/* ovnirun_omp.c: the OpenMP environment ovnirun gives the program (see
 * ovnirun_omp.h).  libgomp is found by reading DT_NEEDED entries of the
 * program and, recursively, of the libraries it needs (resolved through
 * DT_RPATH/DT_RUNPATH with $ORIGIN, LD_LIBRARY_PATH and the usual system
 * directories, as the loader would find most of them).  What those objects
 * import from libgomp (name@version, from their version needs) is checked
 * against what libomp defines: a reference libomp cannot serve would bind
 * to libgomp's function, which knows nothing of libomp's threads. */
#include "ovnirun_omp.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MAX_VISITED 64
#define MAX_IMPORTS 512

struct scan {
	char visited[MAX_VISITED][PATH_MAX];
	int nvisited;
	int found;
	int libovni; /* one needs libovni.so (its calls land in the agent) */
	/* What the objects import from libgomp: "name@version" each. */
	char imports[MAX_IMPORTS][96];
	int nimports;
};

static const char *const sys_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
	"/usr/local/lib",
};

/* Libraries that never pull libgomp in: not worth opening. */
static int boring(const char *name)
{
	static const char *const skip[] = { "libc.so",  "libm.so",     "libpthread.so", "libdl.so",  "librt.so",
					    "ld-linux", "libgcc_s.so", "libstdc++.so",  "libomp.so", "libiomp5.so" };
	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (!strncmp(name, skip[i], strlen(skip[i])))
			return 1;
	return 0;
}

static int read_at(int fd, void *buf, size_t n, off_t off)
{
	return pread(fd, buf, n, off) == (ssize_t)n ? 0 : -1;
}

/* File offset of virtual address `va` through the PT_LOAD headers. */
static off_t va_to_off(const Elf64_Phdr *ph, int n, Elf64_Addr va)
{
	for (int i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr && va < ph[i].p_vaddr + ph[i].p_filesz)
			return (off_t)(ph[i].p_offset + (va - ph[i].p_vaddr));
	return -1;
}

/* ---- Symbol versions, from the section headers ----
 * The dynamic symbols with their version indexes (.gnu.version), and the
 * names of the versions an object needs (.gnu.version_r) or defines
 * (.gnu.version_d).  An object without section headers is not read. */
struct dynsyms {
	Elf64_Sym *sym;
	uint16_t *ver;
	size_t n;
	char *str;
	size_t strsz;
	const char *vername[256]; /* by version index; NULL: none */
	void *vdata;              /* the version section, which vername points into */
	size_t vsize;
};

static void *read_section(int fd, const Elf64_Shdr *sh, size_t max)
{
	if (sh->sh_type == SHT_NOBITS || sh->sh_size == 0 || sh->sh_size > max)
		return NULL;
	char *p = malloc(sh->sh_size + 1);
	if (p && read_at(fd, p, sh->sh_size, (off_t)sh->sh_offset) != 0) {
		free(p);
		return NULL;
	}
	if (p)
		p[sh->sh_size] = '\0';
	return p;
}

static void dynsyms_free(struct dynsyms *d)
{
	free(d->sym);
	free(d->ver);
	free(d->str);
	free(d->vdata);
	memset(d, 0, sizeof(*d));
}

/* Read the version names `want` (SHT_GNU_verneed or SHT_GNU_verdef); for
 * verneed, only those needed from an object whose name starts with `from`.
 * Then the symbols, unless no version was kept.  0 when read. */
static int dynsyms_read(int fd, const Elf64_Ehdr *eh, Elf64_Word want, const char *from, struct dynsyms *d)
{
	memset(d, 0, sizeof(*d));
	if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 || eh->e_shnum > 4096)
		return -1;
	Elf64_Shdr *sh = malloc(sizeof(Elf64_Shdr) * eh->e_shnum);
	if (!sh || read_at(fd, sh, sizeof(Elf64_Shdr) * eh->e_shnum, (off_t)eh->e_shoff) != 0) {
		free(sh);
		return -1;
	}
	const Elf64_Shdr *sym = NULL, *ver = NULL, *vsec = NULL;
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_DYNSYM && sh[i].sh_link < eh->e_shnum)
			sym = &sh[i];
		else if (sh[i].sh_type == SHT_GNU_versym)
			ver = &sh[i];
		else if (sh[i].sh_type == want)
			vsec = &sh[i];
	}
	int kept = 0;
	if (!sym || !ver || !vsec || sym->sh_entsize != sizeof(Elf64_Sym))
		goto out;
	d->str = read_section(fd, &sh[sym->sh_link], 64u << 20);
	d->strsz = d->str ? sh[sym->sh_link].sh_size : 0;
	d->vdata = read_section(fd, vsec, 1u << 20);
	d->vsize = d->vdata ? vsec->sh_size : 0;
	if (!d->str || !d->vdata)
		goto out;
	/* Both kinds are chains of records (vn_next/vd_next), each with a
	 * chain of names (vna_next/vda_next); an index out of range or a
	 * record past the end stops the walk. */
	size_t off = 0;
	for (unsigned k = 0; k < vsec->sh_info && off + sizeof(Elf64_Verdef) <= d->vsize; k++) {
		const char *base = (const char *)d->vdata + off;
		if (want == SHT_GNU_verneed) {
			const Elf64_Verneed *vn = (const void *)base;
			int mine = vn->vn_file < d->strsz && !strncmp(d->str + vn->vn_file, from, strlen(from));
			size_t a = off + vn->vn_aux;
			for (unsigned j = 0; j < vn->vn_cnt && a + sizeof(Elf64_Vernaux) <= d->vsize; j++) {
				const Elf64_Vernaux *x = (const void *)((const char *)d->vdata + a);
				unsigned idx = x->vna_other & 0x7fff;
				if (mine && idx < 256 && x->vna_name < d->strsz) {
					d->vername[idx] = d->str + x->vna_name;
					kept = 1;
				}
				if (!x->vna_next)
					break;
				a += x->vna_next;
			}
			if (!vn->vn_next)
				break;
			off += vn->vn_next;
		} else {
			const Elf64_Verdef *vd = (const void *)base;
			size_t a = off + vd->vd_aux;
			if (vd->vd_ndx < 256 && a + sizeof(Elf64_Verdaux) <= d->vsize) {
				const Elf64_Verdaux *x = (const void *)((const char *)d->vdata + a);
				if (x->vda_name < d->strsz) {
					d->vername[vd->vd_ndx] = d->str + x->vda_name;
					kept = 1;
				}
			}
			if (!vd->vd_next)
				break;
			off += vd->vd_next;
		}
	}
	if (!kept)
		goto out;
	d->n = sym->sh_size / sizeof(Elf64_Sym);
	if (ver->sh_size < d->n * sizeof(uint16_t) || d->n > (1u << 22))
		goto out;
	d->sym = read_section(fd, sym, d->n * sizeof(Elf64_Sym));
	d->ver = read_section(fd, ver, d->n * sizeof(uint16_t) + 64);
	if (!d->sym || !d->ver)
		goto out;
	free(sh);
	return 0;
out:
	free(sh);
	dynsyms_free(d);
	return -1;
}

/* The undefined symbols an object binds to libgomp's versions, kept once. */
static void collect_imports(struct scan *sc, int fd, const Elf64_Ehdr *eh)
{
	struct dynsyms d;
	if (dynsyms_read(fd, eh, SHT_GNU_verneed, "libgomp.so", &d) != 0)
		return;
	for (size_t i = 1; i < d.n && sc->nimports < MAX_IMPORTS; i++) {
		const char *v = d.vername[d.ver[i] & 0x7fff];
		if (d.sym[i].st_shndx != SHN_UNDEF || !v || d.sym[i].st_name >= d.strsz)
			continue;
		char ref[96];
		snprintf(ref, sizeof(ref), "%s@%s", d.str + d.sym[i].st_name, v);
		int seen = 0;
		for (int k = 0; k < sc->nimports && !seen; k++)
			seen = !strcmp(sc->imports[k], ref);
		if (!seen)
			snprintf(sc->imports[sc->nimports++], sizeof(sc->imports[0]), "%s", ref);
	}
	dynsyms_free(&d);
}

/* The first of the scan's imports that the object at `path` does not
 * define with that version (as the loader matches a versioned reference),
 * copied to `out`; 0 when it defines them all, -1 when it cannot be read. */
static int first_undefined(const struct scan *sc, const char *path, char *out, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	Elf64_Ehdr eh;
	struct dynsyms d;
	int r = -1;
	if (read_at(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || dynsyms_read(fd, &eh, SHT_GNU_verdef, NULL, &d) != 0)
		goto out;
	r = 0;
	for (int k = 0; k < sc->nimports && !r; k++) {
		const char *at = strrchr(sc->imports[k], '@');
		size_t len = (size_t)(at - sc->imports[k]);
		int ok = 0;
		for (size_t i = 1; i < d.n && !ok; i++) {
			const Elf64_Sym *s = &d.sym[i];
			if (s->st_shndx == SHN_UNDEF || s->st_name >= d.strsz ||
			    strncmp(d.str + s->st_name, sc->imports[k], len) || d.str[s->st_name + len])
				continue;
			unsigned idx = d.ver[i] & 0x7fff;
			/* VER_NDX_LOCAL/GLOBAL: unversioned, any reference matches. */
			ok = idx < 2 || (d.vername[idx] && !strcmp(d.vername[idx], at + 1));
		}
		if (!ok) {
			snprintf(out, size, "%s", sc->imports[k]);
			r = 1;
		}
	}
	dynsyms_free(&d);
out:
	close(fd);
	return r;
}

static void scan_file(struct scan *sc, const char *path, int depth);

/* Look for `name` in a ':'-separated list of directories ($ORIGIN = origin). */
static int try_dirs(struct scan *sc, const char *list, const char *origin, const char *name, int depth)
{
	while (list && *list) {
		const char *end = strchr(list, ':');
		size_t len = end ? (size_t)(end - list) : strlen(list);
		/* On the heap, as scan_file's: the scan recurses (5 deep) and
		 * ovnirun runs under a small `ulimit -s` as the program does. */
		char *dir = malloc(PATH_MAX), *path = malloc(PATH_MAX);
		if (!dir || !path) {
			free(dir);
			free(path);
			return 0;
		}
		if (len >= 7 && !strncmp(list, "$ORIGIN", 7))
			snprintf(dir, PATH_MAX, "%s%.*s", origin, (int)(len - 7), list + 7);
		else
			snprintf(dir, PATH_MAX, "%.*s", (int)len, list);
		snprintf(path, PATH_MAX, "%s/%s", dir, name);
		if (len && access(path, R_OK) == 0) {
			scan_file(sc, path, depth);
			free(dir);
			free(path);
			return 1;
		}
		free(dir);
		free(path);
		list += len + (end ? 1 : 0);
	}
	return 0;
}

static void scan_needed(struct scan *sc, const char *name, const char *rpath, const char *origin, int depth)
{
	if (!strncmp(name, "libgomp.so", 10)) {
		sc->found = 1; /* libgomp itself is not read */
		return;
	}
	if (!strncmp(name, "libovni.so", 10)) {
		sc->libovni = 1;
		return;
	}
	if (boring(name) || depth > 4)
		return;
	if (strchr(name, '/')) {
		scan_file(sc, name, depth);
		return;
	}
	if (try_dirs(sc, rpath, origin, name, depth) || try_dirs(sc, getenv("LD_LIBRARY_PATH"), origin, name, depth))
		return;
	for (size_t i = 0; i < sizeof(sys_dirs) / sizeof(sys_dirs[0]); i++)
		if (try_dirs(sc, sys_dirs[i], origin, name, depth))
			return;
}

static void scan_file(struct scan *sc, const char *path, int depth)
{
	if (sc->nvisited >= MAX_VISITED)
		return;
	for (int i = 0; i < sc->nvisited; i++)
		if (!strcmp(sc->visited[i], path))
			return;
	snprintf(sc->visited[sc->nvisited++], PATH_MAX, "%s", path);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = malloc(64 * sizeof(*ph));
	char *origin = malloc(PATH_MAX);
	if (!ph || !origin || read_at(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phnum > 64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    read_at(fd, ph, sizeof(Elf64_Phdr) * eh.e_phnum, (off_t)eh.e_phoff))
		goto out;
	int n = eh.e_phnum;
	const Elf64_Phdr *dyn = NULL;
	for (int i = 0; i < n; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = &ph[i];
	if (!dyn || dyn->p_filesz > (1u << 20))
		goto out;
	size_t ndyn = dyn->p_filesz / sizeof(Elf64_Dyn);
	Elf64_Dyn *d = malloc(dyn->p_filesz);
	if (!d || read_at(fd, d, ndyn * sizeof(Elf64_Dyn), (off_t)dyn->p_offset)) {
		free(d);
		goto out;
	}
	Elf64_Addr strtab = 0;
	Elf64_Xword strsz = 0, rpath = (Elf64_Xword)-1;
	for (size_t i = 0; i < ndyn && d[i].d_tag != DT_NULL; i++) {
		if (d[i].d_tag == DT_STRTAB)
			strtab = d[i].d_un.d_ptr;
		else if (d[i].d_tag == DT_STRSZ)
			strsz = d[i].d_un.d_val;
		else if (d[i].d_tag == DT_RUNPATH || (d[i].d_tag == DT_RPATH && rpath == (Elf64_Xword)-1))
			rpath = d[i].d_un.d_val;
	}
	off_t stroff = strtab ? va_to_off(ph, n, strtab) : -1;
	char *strs = stroff >= 0 && strsz && strsz < (1u << 24) ? malloc(strsz + 1) : NULL;
	if (strs && read_at(fd, strs, strsz, stroff) == 0) {
		strs[strsz] = '\0';
		snprintf(origin, PATH_MAX, "%s", path);
		char *slash = strrchr(origin, '/');
		if (slash)
			*slash = '\0';
		else
			snprintf(origin, PATH_MAX, ".");
		const char *rp = rpath < strsz ? strs + rpath : NULL;
		int gomp = 0;
		for (size_t i = 0; i < ndyn && d[i].d_tag != DT_NULL; i++)
			if (d[i].d_tag == DT_NEEDED && d[i].d_un.d_val < strsz) {
				gomp |= !strncmp(strs + d[i].d_un.d_val, "libgomp.so", 10);
				scan_needed(sc, strs + d[i].d_un.d_val, rp, origin, depth + 1);
			}
		if (gomp)
			collect_imports(sc, fd, &eh);
	}
	free(strs);
	free(d);
out:
	free(ph);
	free(origin);
	close(fd);
}

/* One of the scan's imports starts with `prefix`. */
static int scan_imports(const struct scan *sc, const char *prefix)
{
	for (int k = 0; k < sc->nimports; k++)
		if (!strncmp(sc->imports[k], prefix, strlen(prefix)))
			return 1;
	return 0;
}

/* Imports that libomp serves, but otherwise than libgomp: */
static const struct {
	const char *prefix, *why;
} otherwise[] = {
	/* libomp forms fewer teams, or fewer threads in each (two teams of
	 * one thread for num_teams(3) on 2 CPUs; libgomp: three of two). */
	{ "GOMP_teams_reg@", "host teams (GOMP_teams_reg), which LLVM libomp sizes otherwise" },
	/* libomp 14's GOMP_doacross_wait faults (SIGSEGV) in a team of one
	 * thread (OMP_NUM_THREADS=1, num_threads(1), a nested team). */
	{ "GOMP_doacross_",
	  "doacross loops (GOMP_doacross_wait), on which LLVM libomp crashes in a team of one thread" },
	/* libomp prints "OMP: Info #276: omp_get_nested routine deprecated"
	 * on stderr at the first call. */
	{ "omp_get_nested", "omp_get_nested, for which LLVM libomp prints a notice" },
	{ "omp_set_nested", "omp_set_nested, for which LLVM libomp prints a notice" },
};

/* The first of those the scan's imports have, or -1. */
static int served_otherwise(const struct scan *sc)
{
	for (size_t i = 0; i < sizeof(otherwise) / sizeof(otherwise[0]); i++)
		if (scan_imports(sc, otherwise[i].prefix))
			return (int)i;
	return -1;
}

/* Scan `path` and what it needs; NULL when it cannot be. */
static struct scan *scan_program(const char *path)
{
	struct scan *sc = calloc(1, sizeof(*sc));
	if (sc)
		scan_file(sc, path, 0);
	return sc;
}

static int find_libomp(char *out, size_t size)
{
	const char *env = getenv("OVNI_LIBOMP");
	if (env && *env) {
		snprintf(out, size, "%s", env);
		return access(out, R_OK) == 0 ? 0 : -1;
	}
	for (size_t i = 0; i < sizeof(sys_dirs) / sizeof(sys_dirs[0]); i++) {
		snprintf(out, size, "%s/libomp.so.5", sys_dirs[i]);
		if (access(out, R_OK) == 0)
			return 0;
	}
	glob_t g;
	int r = -1;
	if (glob("/usr/lib/llvm-*/lib/libomp.so.5", 0, NULL, &g) == 0 && g.gl_pathc > 0) {
		snprintf(out, size, "%s", g.gl_pathv[g.gl_pathc - 1]);
		r = 0;
	}
	globfree(&g);
	return r;
}

/* Prepend `first` to the ':'-separated list in variable `var`, or append
 * `last` to it. */
static void env_list_add(const char *var, const char *first, const char *last)
{
	const char *old = getenv(var);
	size_t len = (old ? strlen(old) : 0) + (first ? strlen(first) : 0) + (last ? strlen(last) : 0) + 3;
	char *v = malloc(len);
	if (!v)
		return;
	if (first)
		snprintf(v, len, "%s%s%s", first, old && *old ? ":" : "", old && *old ? old : "");
	else
		snprintf(v, len, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "", last);
	setenv(var, v, 1);
	free(v);
}

/* ---- Values libgomp ignores and libomp does not ----
 * libgomp warns about a value it cannot parse and runs as if the variable
 * were unset; libomp 14 reads the same values differently: OMP_NUM_THREADS
 * "abc", "-1" or "2x" abort it at the first parallel region (an assertion),
 * "0" or an OMP_THREAD_LIMIT of 0 give one thread, an OMP_STACKSIZE with a
 * T suffix or past 2^64 bytes is used (threads fail to start: abort).  With such a value the program keeps libgomp. */
static const char *skip_spaces(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v')
		p++;
	return p;
}

/* A positive number, as libgomp reads one (spaces around; no sign, no 0);
 * *end gets what follows it. */
static int gomp_positive(const char *p, const char **end)
{
	p = skip_spaces(p);
	if (*p < '0' || *p > '9')
		return 0;
	errno = 0;
	char *e;
	unsigned long long v = strtoull(p, &e, 10);
	if (errno || v == 0 || v > LONG_MAX)
		return 0;
	*end = skip_spaces(e);
	return 1;
}

static int gomp_accepts(const char *var, const char *val)
{
	const char *end;
	if (!strcmp(var, "OMP_NUM_THREADS")) {
		for (;;) {
			if (!gomp_positive(val, &end))
				return 0;
			if (*end != ',')
				return *end == '\0';
			val = end + 1;
		}
	}
	if (!strcmp(var, "OMP_THREAD_LIMIT"))
		return gomp_positive(val, &end) && *end == '\0';
	/* OMP_STACKSIZE: a size in KiB, or with a B, K, M or G suffix. */
	const char *p = skip_spaces(val);
	if (*p < '0' || *p > '9')
		return 1; /* both ignore it: no difference */
	errno = 0;
	char *e;
	unsigned long long v = strtoull(p, &e, 10);
	int shift = 10;
	e = (char *)skip_spaces(e);
	switch (*e) {
	case 'b':
	case 'B':
		shift = 0;
		e++;
		break;
	case 'k':
	case 'K': e++; break;
	case 'm':
	case 'M':
		shift = 20;
		e++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		e++;
		break;
	default: break;
	}
	/* Another suffix (libomp reads T, P, E...) or too large: libgomp
	 * ignores it, libomp does not. */
	return *skip_spaces(e) == '\0' && !errno && ((v << shift) >> shift) == v;
}

/* Why libomp would change what the program prints or does, from the
 * OpenMP variables (into `why`), or 0. */
static int env_differs(char *why, size_t size)
{
	static const char *const vars[] = { "OMP_NUM_THREADS", "OMP_THREAD_LIMIT", "OMP_STACKSIZE" };
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		if (v && !gomp_accepts(vars[i], v)) {
			snprintf(why, size, "%s=\"%.40s\", which libgomp ignores and LLVM libomp does not", vars[i], v);
			return 1;
		}
	}
	/* Settings only libomp reads (KMP_AFFINITY, KMP_STACKSIZE,
	 * KMP_ALL_THREADS...: placement, stacks, team sizes), and one it
	 * answers with a notice on stderr. */
	extern char **environ;
	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, "KMP_", 4) || !strncmp(*e, "OMP_NESTED=", 11)) {
			const char *eq = strchr(*e, '=');
			int len = eq ? (int)(eq - *e) : (int)strlen(*e);
			snprintf(why, size, "%.*s set, which LLVM libomp reads %s", len > 40 ? 40 : len, *e,
				 (*e)[0] == 'K' ? "and libgomp ignores" : "with a notice on stderr");
			return 1;
		}
	/* The runtime's own report at start or at each thread's start:
	 * libgomp's on stderr, libomp's in another form (the affinity lines
	 * on stdout), and libgomp's settings printed too, though unused. */
	static const char *const shows[] = { "OMP_DISPLAY_ENV", "OMP_DISPLAY_AFFINITY" };
	for (size_t i = 0; i < sizeof(shows) / sizeof(shows[0]); i++) {
		const char *v = getenv(shows[i]);
		if (v && (!strcasecmp(skip_spaces(v), "true") || !strncasecmp(skip_spaces(v), "true ", 5) ||
			  !strncasecmp(skip_spaces(v), "verbose", 7))) {
			snprintf(why, size, "%s=%.20s, whose report LLVM libomp prints its own way", shows[i], v);
			return 1;
		}
	}
	return 0;
}

int omp_setup_env(const char *prog, const char *agent_lib, int allow_swap, int quiet)
{
	env_list_add("OMP_TOOL_LIBRARIES", agent_lib, NULL);
	struct scan *sc = scan_program(prog);
	if (!sc)
		return 0;
	if (sc->libovni && !quiet)
		fprintf(stderr,
			"ovnirun: %s uses libovni: its libovni calls are served by the agent, its events "
			"merged into the agent's streams (man 7 ovni-auto-libovni)\n",
			prog);
	int swapped = 0;
	char libomp[PATH_MAX], why[160] = "";
	if (!sc->found)
		goto out;
	int have = allow_swap && find_libomp(libomp, sizeof(libomp)) == 0;
	char missing[96];
	int k;
	if (have && env_differs(why, sizeof(why)))
		;
	else if (have && first_undefined(sc, libomp, missing, sizeof(missing)) == 1)
		/* e.g. omp_fulfill_event@OMP_5.0.1 (detached tasks) in libomp
		 * 14: the call would go to libgomp's, which crashes on a task
		 * of libomp's. */
		snprintf(why, sizeof(why), "%s, which LLVM libomp (%s) does not have", missing, libomp);
	else if (have && (k = served_otherwise(sc)) >= 0)
		snprintf(why, sizeof(why), "%s", otherwise[k].why);
	if (why[0]) {
		if (!quiet)
			fprintf(stderr,
				"ovnirun: %s uses GCC's libgomp, which has no OMPT interface, and %s: keeping "
				"libgomp, OpenMP is not traced\n",
				prog, why);
		goto out;
	}
	if (!have) {
		if (!quiet)
			fprintf(stderr,
				"ovnirun: %s uses GCC's libgomp, which has no OMPT interface: its OpenMP "
				"constructs and tasks are not traced%s\n",
				prog, allow_swap ? " (install LLVM libomp to trace them)" : "");
		goto out;
	}
	env_list_add("LD_PRELOAD", NULL, libomp);
	if (!quiet)
		fprintf(stderr,
			"ovnirun: %s uses GCC's libgomp, which has no OMPT interface: running it on LLVM "
			"libomp (%s) to trace OpenMP; --no-libomp keeps libgomp\n",
			prog, libomp);
	swapped = 1;
out:
	free(sc);
	return swapped;
}
