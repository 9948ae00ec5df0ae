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

/* Each variable: its enum (env.h) and name; the names and their lengths
 * (constant: the start compared them with a table it filled by strlen,
 * in .data) from one list. */
#define OA_ENV_TABLE(X)                                             \
	X(OA_ENV_TRACEDIR, "OVNI_TRACEDIR")                         \
	X(OA_ENV_TMPDIR, "OVNI_TMPDIR")                             \
	X(OA_ENV_LOOM, "OVNI_LOOM")                                 \
	X(OA_ENV_APPID, "OVNI_APPID")                               \
	X(OA_ENV_BUFSIZE, "OVNI_BUFSIZE")                           \
	X(OA_ENV_CHILDREN, "OVNI_CHILDREN")                         \
	X(OA_ENV_CALLSITES, "OVNI_CALLSITES")                       \
	X(OA_ENV_SAMPLE_US, "OVNI_SAMPLE_US")                       \
	X(OA_ENV_SAMPLE_SIGNAL, "OVNI_SAMPLE_SIGNAL")               \
	X(OA_ENV_TRACE_LAUNCHERS, "OVNI_TRACE_LAUNCHERS")           \
	X(OA_ENV_MPI_SYNC, "OVNI_MPI_SYNC")                         \
	X(OA_ENV_COLLECT, "OVNI_COLLECT")                           \
	X(OA_ENV_DISABLE, "OVNI_DISABLE")                           \
	X(OA_ENV_DEBUG, "OVNI_DEBUG")                               \
	X(OA_ENV_TSC, "OVNI_TSC")                                   \
	X(OA_ENV_OMP_TSC, "OVNI_OMP_TSC")                           \
	X(OA_ENV_OMP_MERGE_NS, "OVNI_OMP_MERGE_NS")                 \
	X(OA_ENV_OMP_SHUTDOWN, "OVNI_OMP_SHUTDOWN")                 \
	X(OA_ENV_OMP_DEBUG, "OVNI_OMP_DEBUG")                       \
	X(OA_ENV_TEST_CLOCK_SKEW, "OVNI_TEST_CLOCK_SKEW")           \
	X(OA_ENV_ROOT_PID, "OVNI_ROOT_PID")                         \
	X(OA_ENV_REPORT, "OVNI_REPORT")                             \
	X(OA_ENV_PIDNS, "OVNI_PIDNS")                               \
	X(OA_ENV_NSPID, "OVNI_NSPID")                               \
	X(OA_ENV_CPUS, "OVNI_CPUS")                                 \
	X(OA_ENV_TRACEDIR_ID, "OVNI_TRACEDIR_ID")                   \
	X(OA_ENV_TRACEDIR_UNREACHABLE, "OVNI_TRACEDIR_UNREACHABLE") \
	X(OA_ENV_COLLECT_UNREACHABLE, "OVNI_COLLECT_UNREACHABLE")   \
	X(OA_ENV_MPI_PER_RANK, "OVNI_MPI_PER_RANK")                 \
	X(OA_ENV_SPOOL_WATCH, "OVNI_SPOOL_WATCH")                   \
	X(OA_ENV_FORKED, "OVNI_FORKED")                             \
	X(OA_ENV_BIND, "OVNI_BIND")                                 \
	X(OA_ENV_TIMENS, "OVNI_TIMENS")
#define OA_ENV_NAME_(id, name) [id] = name,
#define OA_ENV_LEN_(id, name) [id] = sizeof(name) - 1,
const char *const oa_env_names[OA_ENV_N] = { OA_ENV_TABLE(OA_ENV_NAME_) };
static const unsigned char oa_env_lens[OA_ENV_N] = { OA_ENV_TABLE(OA_ENV_LEN_) };

/* In .data: written at every start, on a page the loader has written
 * already (compiler.h). */
const char *oa_env_snap[OA_ENV_N] OA_EARLY_DATA;
int oa_env_snap_on OA_EARLY_DATA;

OA_START_TEXT void oa_env_snapshot(int on)
{
	oa_env_snap_on = 0;
	if (!on)
		return;
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
			if (oa_env_lens[i] == n && !memcmp(v, oa_env_names[i], n)) {
				if (!t[i])
					t[i] = v + n + 1; /* the first, as oa_getenv() */
				break;
			}
	}
	for (int i = 0; i < OA_ENV_N; i++)
		oa_env_snap[i] = t[i];
	oa_env_snap_on = 1;
}
