/* cpus.c: loom CPU discovery and cross-process CPU claims (see cpus.h). */
#include "../common/num.h"
#include "../common/sys.h"
#include "cpus.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/arena.h"
#include "../common/env.h"
#include "../common/log.h"
#include "../writer/stream.h"

static int ncpus;
static int *phyid_of; /* index -> OS CPU number */
/* The claims are files of TRACE/loom.LOOM/.cpus; the two strings are the
 * configuration's (the path is built when a claim is made: a process that
 * makes none writes nothing for it). */
static const char *claim_trace, *claim_loom;
static int claimdir_made;

/* The list's ranges, one call per CPU (a pass that counts, then one that
 * stores: the array is made once, of its size). */
OA_START_TEXT static int walk_online(const char *p, int *v, int cap)
{
	int n = 0;
	while (*p && *p != '\n') {
		char *end;
		long a = (long)oa_strtoll(p, &end), b;
		if (end == p)
			break;
		b = a;
		p = end;
		if (*p == '-') {
			b = (long)oa_strtoll(p + 1, &end);
			p = end;
		}
		for (long c = a; c <= b && c < 1 << 20; c++, n++)
			if (v && n < cap)
				v[n] = (int)c;
		if (*p == ',')
			p++;
	}
	return n;
}

OA_START_TEXT static int parse_online(const char *text, int **out)
{
	int n = walk_online(text, NULL, 0);
	/* A few CPUs from the start's arena; more (~1 KiB a few hundred) not,
	 * its room is for the start's small pieces (arena.h). */
	size_t size = sizeof(int) * (size_t)(n > 0 ? n : 1);
	int *v = n <= 64 ? oa_arena_alloc(size) : oa_arena_alloc_outside(size);
	if (v)
		n = walk_online(text, v, n);
	*out = v;
	return v ? n : 0;
}

/* The online CPUs: as the run's first process of this loom read them
 * (OVNI_CPUS, "LOOM:LIST"), or from sysfs (~14 us for a new process), then
 * told to the children.  Keyed by the loom: the variable may travel to
 * another host (ssh, Slurm), whose CPUs are its own. */
static int read_online(const char *loom, int **phyids);

OA_START_TEXT int oa_cpus_discover(const char *loom, int **phyids)
{
	int n = 0;
	size_t ll = strlen(loom);
	const char *told = oa_env(OA_ENV_CPUS);
	if (!told || strncmp(told, loom, ll) || told[ll] != ':' || (n = parse_online(told + ll + 1, phyids)) <= 0)
		n = read_online(loom, phyids);
	ncpus = *phyids ? n : 0;
	phyid_of = *phyids;
	return ncpus;
}

/* From sysfs, apart: its buffers (8 KiB) are on the stack only in the
 * run's first process (a page of stack first written is a fault). */
OA_START_TEXT __attribute__((noinline)) static int read_online(const char *loom, int **phyids)
{
	char buf[4096];
	oa_arena_free(*phyids);
	*phyids = NULL;
	int n = 0;
	int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t r = read(fd, buf, sizeof(buf) - 1);
		oa_nc_close(fd);
		if (r > 0) {
			buf[r] = '\0';
			n = parse_online(buf, phyids);
			char v[4096 + 300];
			if (n > 0 && oa_snprintf(v, sizeof(v), "%s:%s", loom, buf) > 0) {
				char *nl = strchr(v, '\n');
				if (nl)
					*nl = '\0';
				oa_env_set(OA_ENV_CPUS, v);
			}
		}
	}
	if (n <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		n = c > 0 ? (int)c : 1;
		*phyids = oa_arena_alloc(sizeof(int) * (size_t)n);
		for (int i = 0; *phyids && i < n; i++)
			(*phyids)[i] = i;
	}
	return n;
}

OA_START_TEXT void oa_cpus_set_dir(const char *tracedir, const char *loom)
{
	claim_trace = tracedir;
	claim_loom = loom;
	if (claimdir_made)
		claimdir_made = 0;
}

/* Create the claim directory and its parents the first time it is needed. */
static void make_claimdir(void)
{
	char buf[4400];
	if (claimdir_made)
		return;
	if (oa_snprintf(buf, sizeof(buf), "%s/loom.%s/.cpus", claim_trace, claim_loom) < 0)
		return;
	const char *rel;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int d = oa_path_at(buf, &rel); /* the anchor once the process changed user or root */
		mkdirat(d, rel, 0755);
		*p = '/';
	}
	int d = oa_path_at(buf, &rel);
	mkdirat(d, rel, 0755);
	claimdir_made = 1;
}

static int index_of(int phyid)
{
	for (int i = 0; i < ncpus; i++)
		if (phyid_of[i] == phyid)
			return i;
	return -1;
}

static void claim_path(char *out, size_t size, int cpu)
{
	oa_snprintf(out, size, "%s/loom.%s/.cpus/cpu.%d", claim_trace, claim_loom, phyid_of[cpu]);
}

/* The claim of a thread pinned to one CPU.  Apart, with its path buffer:
 * every thread start asks oa_cpus_place, and a frame of 4 KiB in it made
 * the first call below it touch a new page of a new thread's stack (a
 * page fault per thread, for the threads that are not pinned too).  In
 * the text after the start's, which most processes never run (a process
 * under ovnirun runs some of it all the same). */
static __attribute__((noinline)) int place_pinned(const cpu_set_t *set, size_t setsize, int tid);

OA_START_TEXT int oa_cpus_place(const cpu_set_t *set, size_t setsize, int tid)
{
	if (!claim_trace || CPU_COUNT_S(setsize, set) != 1)
		return -1;
	return place_pinned(set, setsize, tid);
}

OA_RUN_TEXT static int place_pinned(const cpu_set_t *set, size_t setsize, int tid)
{
	int phyid = -1;
	for (int c = 0; c < (int)(setsize * 8); c++) {
		if (CPU_ISSET_S((size_t)c, setsize, set)) {
			phyid = c;
			break;
		}
	}
	int cpu = index_of(phyid);
	if (cpu < 0)
		return -1;
	char path[4300];
	make_claimdir();
	claim_path(path, sizeof(path), cpu);
	const char *rel;
	int d = oa_path_at(path, &rel);
	int fd = openat(d, rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1; /* held by another running thread: ambiguous */
	/* The thread and its process: a fork child holds its parent's
	 * threads' numbers (agent_fork_child), and its release of one once
	 * took the claim of a parent still running there (a pinned script's
	 * background job: two threads on CPU 0, check failed 1 run in 30). */
	char text[48];
	int n = oa_snprintf(text, sizeof(text), "%d %d\n", tid, (int)getpid());
	ssize_t w = write(fd, text, (size_t)n);
	(void)w;
	oa_nc_close(fd);
	return cpu;
}

OA_START_TEXT void oa_cpus_release(int cpu, int tid)
{
	if (cpu < 0 || cpu >= ncpus || !claim_trace)
		return;
	char path[4300], text[48];
	claim_path(path, sizeof(path), cpu);
	const char *rel;
	int d = oa_path_at(path, &rel);
	int fd = openat(d, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, text, sizeof(text) - 1);
	oa_nc_close(fd);
	if (n <= 0)
		return;
	text[n] = '\0';
	char *end;
	long owner_tid = strtol(text, &end, 10);
	long owner_pid = *end == ' ' ? strtol(end + 1, NULL, 10) : 0;
	if (owner_tid == tid && (!owner_pid || owner_pid == (long)getpid()))
		unlinkat(d, rel, 0);
}
