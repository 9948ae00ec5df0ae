/* ovnirun_omp.c: the OpenMP environment ovnirun gives the program (see
 * ovnirun_omp.h).  libgomp is found by reading DT_NEEDED entries of the
 * program and, recursively, of the libraries it needs (resolved through
 * DT_RPATH/DT_RUNPATH with $ORIGIN, LD_LIBRARY_PATH and the usual system
 * directories, as the loader would find most of them). */
#include "ovnirun_omp.h"

#include <elf.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_VISITED 64

struct scan {
	char visited[MAX_VISITED][PATH_MAX];
	int nvisited;
	int found;
	int fulfill; /* a scanned object imports omp_fulfill_event */
	int libovni; /* one needs libovni.so (its calls land in the agent) */
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

static void scan_file(struct scan *sc, const char *path, int depth);

/* Look for `name` in a ':'-separated list of directories ($ORIGIN = origin). */
static int try_dirs(struct scan *sc, const char *list, const char *origin, const char *name, int depth)
{
	while (list && *list) {
		const char *end = strchr(list, ':');
		size_t len = end ? (size_t)(end - list) : strlen(list);
		char dir[PATH_MAX], path[PATH_MAX];
		if (len >= 7 && !strncmp(list, "$ORIGIN", 7))
			snprintf(dir, sizeof(dir), "%s%.*s", origin, (int)(len - 7), list + 7);
		else
			snprintf(dir, sizeof(dir), "%.*s", (int)len, list);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (len && access(path, R_OK) == 0) {
			scan_file(sc, path, depth);
			return 1;
		}
		list += len + (end ? 1 : 0);
	}
	return 0;
}

static void scan_needed(struct scan *sc, const char *name, const char *rpath, const char *origin, int depth)
{
	if (!strncmp(name, "libgomp.so", 10)) {
		sc->found = 1;
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
	if (sc->found || sc->nvisited >= MAX_VISITED)
		return;
	for (int i = 0; i < sc->nvisited; i++)
		if (!strcmp(sc->visited[i], path))
			return;
	snprintf(sc->visited[sc->nvisited++], PATH_MAX, "%s", path);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];
	if (read_at(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
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
		if (memmem(strs, strsz, "omp_fulfill_event", 17))
			sc->fulfill = 1;
		char origin[PATH_MAX];
		snprintf(origin, sizeof(origin), "%s", path);
		char *slash = strrchr(origin, '/');
		if (slash)
			*slash = '\0';
		else
			snprintf(origin, sizeof(origin), ".");
		const char *rp = rpath < strsz ? strs + rpath : NULL;
		for (size_t i = 0; i < ndyn && d[i].d_tag != DT_NULL && !sc->found; i++)
			if (d[i].d_tag == DT_NEEDED && d[i].d_un.d_val < strsz)
				scan_needed(sc, strs + d[i].d_un.d_val, rp, origin, depth + 1);
	}
	free(strs);
	free(d);
out:
	close(fd);
}

int omp_needs_libgomp(const char *path, int *uses_detach, int *uses_libovni)
{
	struct scan *sc = calloc(1, sizeof(*sc));
	if (!sc)
		return 0;
	scan_file(sc, path, 0);
	int found = sc->found;
	if (uses_detach)
		*uses_detach = sc->fulfill;
	if (uses_libovni)
		*uses_libovni = sc->libovni;
	free(sc);
	return found;
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

int omp_setup_env(const char *prog, const char *agent_lib, int allow_swap, int quiet)
{
	env_list_add("OMP_TOOL_LIBRARIES", agent_lib, NULL);
	int detach = 0, libovni = 0, gomp = omp_needs_libgomp(prog, &detach, &libovni);
	if (libovni && !quiet)
		fprintf(stderr,
			"ovnirun: %s uses libovni: its libovni calls are served by the agent, its events "
			"merged into the agent's streams (man 7 ovni-auto-libovni)\n",
			prog);
	if (!gomp)
		return 0;
	if (allow_swap && detach) {
		/* libomp 14 lacks omp_fulfill_event@OMP_5.0.1: the call would
		 * bind to libgomp's and crash on libomp's tasks. */
		if (!quiet)
			fprintf(stderr,
				"ovnirun: %s uses GCC's libgomp, which has no OMPT interface, and detached "
				"tasks (omp_fulfill_event), which LLVM libomp cannot run for GCC code: "
				"keeping libgomp, OpenMP is not traced\n",
				prog);
		return 0;
	}
	char libomp[PATH_MAX];
	if (!allow_swap || find_libomp(libomp, sizeof(libomp)) != 0) {
		if (!quiet)
			fprintf(stderr,
				"ovnirun: %s uses GCC's libgomp, which has no OMPT interface: its OpenMP "
				"constructs and tasks are not traced%s\n",
				prog, allow_swap ? " (install LLVM libomp to trace them)" : "");
		return 0;
	}
	env_list_add("LD_PRELOAD", NULL, libomp);
	if (!quiet)
		fprintf(stderr,
			"ovnirun: %s uses GCC's libgomp, which has no OMPT interface: running it on LLVM "
			"libomp (%s) to trace OpenMP; --no-libomp keeps libgomp\n",
			prog, libomp);
	return 1;
}
