/* env.h: every OVNI_* variable the agent reads or sets, in one table.
 * Code names a variable by its enum (oa_env(OA_ENV_LOOM)), never by its
 * string: the table is the list of what the agent understands, and
 * docs/ovni-auto-env.7.md documents each entry (t022 checks both). */
#ifndef OA_ENV_H
#define OA_ENV_H

#include <stdlib.h>

#include "compiler.h"

enum oa_env {
	/* What users and ovnirun set (ovni-auto-env(7)). */
	OA_ENV_TRACEDIR,
	OA_ENV_TMPDIR,
	OA_ENV_LOOM,
	OA_ENV_APPID,
	OA_ENV_BUFSIZE,
	OA_ENV_CHILDREN,
	OA_ENV_CALLSITES,
	OA_ENV_SAMPLE_US,
	OA_ENV_SAMPLE_SIGNAL,
	OA_ENV_TRACE_LAUNCHERS,
	OA_ENV_MPI_SYNC,
	OA_ENV_COLLECT,
	OA_ENV_DISABLE,
	OA_ENV_DEBUG,
	OA_ENV_TSC,
	OA_ENV_OMP_TSC, /* the older name of OVNI_TSC */
	OA_ENV_OMP_MERGE_NS,
	OA_ENV_OMP_SHUTDOWN,
	OA_ENV_OMP_DEBUG,
	OA_ENV_TEST_CLOCK_SKEW,
	/* What ovnirun and the agent pass to the processes of a run. */
	OA_ENV_ROOT_PID,
	OA_ENV_REPORT,
	OA_ENV_PIDNS,
	OA_ENV_NSPID,
	OA_ENV_CPUS,
	OA_ENV_TRACEDIR_ID,
	OA_ENV_TRACEDIR_UNREACHABLE,
	OA_ENV_COLLECT_UNREACHABLE,
	OA_ENV_MPI_PER_RANK,
	OA_ENV_SPOOL_WATCH,
	OA_ENV_FORKED,
	OA_ENV_BIND,
	OA_ENV_TIMENS,
	OA_ENV_N
};

extern const char *const oa_env_names[OA_ENV_N];

/* A variable of the environment, NULL when unset: read from environ
 * itself, never through getenv(), which the program may define (bash does:
 * once anything calls its setenv, its getenv knows only the variables set
 * since, and every other read of the agent's came back empty). */
const char *oa_getenv(const char *name);

/* Does entry begin with the len characters of name?  A loop of our own,
 * no call: the agent scans the environment ~30 times at every start and
 * ~10 times at every exec, and most entries differ at the first character
 * (~300 strncmp calls per process were 3 us). */
static inline int oa_env_prefix(const char *entry, const char *name, size_t len)
{
	size_t i = 0;
	while (i < len && entry[i] == name[i]) /* stops at entry's end too */
		i++;
	return i == len;
}

/* Does hay contain needle?  The same loop, for the agent's code that a
 * fork child runs before its exec (no libc strstr: preload/childenv.c). */
static OA_INLINE int oa_str_has(const char *hay, const char *needle)
{
	size_t n = 0;
	while (needle[n])
		n++;
	for (; *hay; hay++)
		if (oa_env_prefix(hay, needle, n))
			return 1;
	return !n;
}

/* Is entry "name=..." (len: strlen(name))? */
static inline int oa_env_is(const char *entry, const char *name, size_t len)
{
	return oa_env_prefix(entry, name, len) && entry[len] == '=';
}

/* While the agent starts (its constructors, before the program runs), the
 * OVNI_* variables come from a table that one pass over the environment
 * fills (oa_env_snapshot(1)): ~30 reads at every start were ~30 passes
 * over it (20K instructions, callgrind).  Off (0) again before the program
 * runs, which may change its environment at any time; the tools never
 * turn it on.  oa_env_set() and oa_env_unset() fill the table anew. */
extern const char *oa_env_snap[OA_ENV_N];
extern int oa_env_snap_on;
void oa_env_snapshot(int on);

/* The variable's value now, NULL when unset. */
static inline const char *oa_env(enum oa_env e)
{
	return oa_env_snap_on ? oa_env_snap[e] : oa_getenv(oa_env_names[e]);
}

/* setenv() and unsetenv() as libc has them, not the program's (bash's
 * would start its own variable table, see above): the agent points these
 * at libc's at start; NULL (the tools): the calls below, direct. */
extern int (*oa_setenv_fn)(const char *, const char *, int);
extern int (*oa_unsetenv_fn)(const char *);

/* Set it for this process and the children it starts. */
static inline int oa_env_set(enum oa_env e, const char *value)
{
	int r = oa_setenv_fn ? oa_setenv_fn(oa_env_names[e], value, 1) : setenv(oa_env_names[e], value, 1);
	if (oa_env_snap_on)
		oa_env_snapshot(1);
	return r;
}

/* Remove it from this process's environment. */
static inline int oa_env_unset(enum oa_env e)
{
	int r = oa_unsetenv_fn ? oa_unsetenv_fn(oa_env_names[e]) : unsetenv(oa_env_names[e]);
	if (oa_env_snap_on)
		oa_env_snapshot(1);
	return r;
}

#endif
