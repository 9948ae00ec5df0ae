/* config.h: the agent's configuration, read once from OVNI_* variables. */
#ifndef OA_CONFIG_H
#define OA_CONFIG_H

#include <stddef.h>

enum oa_children { OA_CHILDREN_ALL, OA_CHILDREN_NONE, OA_CHILDREN_MATCH };

/* What every process writes first, the buffers' starts last: a short
 * process writes one page of it (each page written is a fault). */
struct oa_config {
	int disabled;              /* OVNI_DISABLE=1 */
	int debug;                 /* OVNI_DEBUG=1 */
	int staging;               /* tmpdir is set (read this, not tmpdir[0]: its page) */
	int relative;              /* OVNI_TRACEDIR (1) or OVNI_TMPDIR (2) was relative, or none (1) */
	int app_id;                /* OVNI_APPID */
	int rank, nranks;          /* from the MPI launcher, -1 if none */
	size_t bufsize;            /* OVNI_BUFSIZE: largest mapped window per thread */
	enum oa_children children; /* OVNI_CHILDREN: all, none, or a name pattern */
	int root_pid;              /* OVNI_ROOT_PID: the first process of the run, 0 if unknown */
	int callsites;             /* OVNI_CALLSITES=1: callers of waits and thread creations */
	int trace_launchers;       /* OVNI_TRACE_LAUNCHERS=1: trace mpirun, srun... too */
	char loom[256];            /* OVNI_LOOM or the host name */
	char spool_watch[256];     /* OVNI_SPOOL_WATCH: ovnirun's list of spool files, "" for none */
	char children_pattern[256];
	char tracedir[4096]; /* OVNI_TRACEDIR, made absolute */
	char tmpdir[4096];   /* OVNI_TMPDIR, absolute, "" if unset */
};

extern struct oa_config oa_cfg;

/* Fill oa_cfg from the environment. Returns 0 or a negative errno. */
int oa_config_load(void);
/* Is the agent turned off (OVNI_DISABLE set, not "0")? */
int oa_config_disabled(void);

/* Should this process be traced under the child policy? `name` is the
 * program's short name. The first process (root) always is, unless it is
 * an MPI or job launcher (mpirun, mpiexec, orted, srun...), which never is
 * (OVNI_TRACE_LAUNCHERS=1 traces them). */
int oa_config_trace_child(const char *name);
/* The same for a fork child of this image, named `name` (never the run's
 * first process): decided once per image. */
int oa_config_trace_fork_child(const char *name);

#endif
