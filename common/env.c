/* env.c: the names of the OVNI_* variables (see env.h). */
#include "env.h"
#include "str.h"

#include "compiler.h"

#include <string.h>

extern char **environ;

/* NULL: libc's through the PLT (env.h); no address taken, so the loader
 * looks neither name up when it loads the agent. */
int (*oa_setenv_fn)(const char *, const char *, int);
int (*oa_unsetenv_fn)(const char *);

OA_EARLY_TEXT const char *oa_getenv(const char *name)
{
	size_t n = oa_strlen(name);
	for (char **e = environ; e && *e; e++)
		if (oa_env_is(*e, name, n))
			return *e + n + 1;
	return NULL;
}

/* In .data: written at every start, on a page the loader has written
 * already (compiler.h). */
const char *oa_env_snap[OA_ENV_N] OA_EARLY_DATA;
int oa_env_snap_on OA_EARLY_DATA;

OA_START_TEXT void oa_env_snapshot(int on)
{
	static unsigned char len[OA_ENV_N] OA_EARLY_DATA; /* of each name, once */
	oa_env_snap_on = 0;
	if (!on)
		return;
	if (!len[0])
		for (int i = 0; i < OA_ENV_N; i++)
			len[i] = (unsigned char)strlen(oa_env_names[i]);
	/* Filled aside, then copied: a reader (another thread) sees each
	 * entry's old value or its new one, never a NULL in between. */
	const char *t[OA_ENV_N] = { 0 };
	for (char **e = environ; e && *e; e++) {
		const char *v = *e;
		if (!oa_env_prefix(v, oa_env_names[0], 5)) /* the OVNI_ prefix */
			continue;
		size_t n = 5;
		while (v[n] && v[n] != '=')
			n++;
		if (!v[n])
			continue;
		for (int i = 0; i < OA_ENV_N; i++)
			if (len[i] == n && !memcmp(v, oa_env_names[i], n)) {
				if (!t[i])
					t[i] = v + n + 1; /* the first, as oa_getenv() */
				break;
			}
	}
	for (int i = 0; i < OA_ENV_N; i++)
		oa_env_snap[i] = t[i];
	oa_env_snap_on = 1;
}

const char *const oa_env_names[OA_ENV_N] = {
	[OA_ENV_TRACEDIR] = "OVNI_TRACEDIR",
	[OA_ENV_TMPDIR] = "OVNI_TMPDIR",
	[OA_ENV_LOOM] = "OVNI_LOOM",
	[OA_ENV_APPID] = "OVNI_APPID",
	[OA_ENV_BUFSIZE] = "OVNI_BUFSIZE",
	[OA_ENV_CHILDREN] = "OVNI_CHILDREN",
	[OA_ENV_CALLSITES] = "OVNI_CALLSITES",
	[OA_ENV_SAMPLE_US] = "OVNI_SAMPLE_US",
	[OA_ENV_SAMPLE_SIGNAL] = "OVNI_SAMPLE_SIGNAL",
	[OA_ENV_TRACE_LAUNCHERS] = "OVNI_TRACE_LAUNCHERS",
	[OA_ENV_MPI_SYNC] = "OVNI_MPI_SYNC",
	[OA_ENV_COLLECT] = "OVNI_COLLECT",
	[OA_ENV_DISABLE] = "OVNI_DISABLE",
	[OA_ENV_DEBUG] = "OVNI_DEBUG",
	[OA_ENV_TSC] = "OVNI_TSC",
	[OA_ENV_OMP_TSC] = "OVNI_OMP_TSC",
	[OA_ENV_OMP_MERGE_NS] = "OVNI_OMP_MERGE_NS",
	[OA_ENV_OMP_SHUTDOWN] = "OVNI_OMP_SHUTDOWN",
	[OA_ENV_OMP_DEBUG] = "OVNI_OMP_DEBUG",
	[OA_ENV_TEST_CLOCK_SKEW] = "OVNI_TEST_CLOCK_SKEW",
	[OA_ENV_ROOT_PID] = "OVNI_ROOT_PID",
	[OA_ENV_REPORT] = "OVNI_REPORT",
	[OA_ENV_PIDNS] = "OVNI_PIDNS",
	[OA_ENV_NSPID] = "OVNI_NSPID",
	[OA_ENV_CPUS] = "OVNI_CPUS",
	[OA_ENV_TRACEDIR_ID] = "OVNI_TRACEDIR_ID",
	[OA_ENV_TRACEDIR_UNREACHABLE] = "OVNI_TRACEDIR_UNREACHABLE",
	[OA_ENV_COLLECT_UNREACHABLE] = "OVNI_COLLECT_UNREACHABLE",
	[OA_ENV_MPI_PER_RANK] = "OVNI_MPI_PER_RANK",
	[OA_ENV_SPOOL_WATCH] = "OVNI_SPOOL_WATCH",
	[OA_ENV_FORKED] = "OVNI_FORKED",
	[OA_ENV_BIND] = "OVNI_BIND",
};
