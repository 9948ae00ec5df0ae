/* config.c: the table of environment variables the agent reads, and the
 * process identity they give (trace dir, loom, app id, MPI rank). */
#include "../common/num.h"
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../common/sys.h"
#include "../common/compiler.h"
#include "../common/log.h"
#include "../common/env.h"

extern char **environ;

struct oa_config oa_cfg OA_LARGE_BSS;

OA_START_TEXT static int env_int(enum oa_env e, int def)
{
	const char *v = oa_env(e);
	if (!v || !*v)
		return def;
	char *end;
	long long l = oa_strtoll(v, &end);
	return *end ? def : (int)l;
}

/* Make path absolute against the current directory, so that a later chdir of
 * the program cannot scatter the streams. */
OA_START_TEXT static int absolute(char *out, size_t size, const char *path)
{
	if (path[0] == '/') {
		if (strlen(path) >= size)
			return -ENAMETOOLONG;
		strcpy(out, path);
	} else {
		char cwd[4096];
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		int n = oa_snprintf(out, size, "%s/%s", cwd, path);
		if (n < 0 || (size_t)n >= size)
			return -ENAMETOOLONG;
	}
	/* Drop trailing slashes and "/." */
	size_t n = strlen(out);
	while (n > 1 && (out[n - 1] == '/' || (n > 2 && out[n - 1] == '.' && out[n - 2] == '/')))
		out[--n] = '\0';
	return 0;
}

/* MPI rank and size from the launchers' variables (Open MPI, PMIx, MPICH/PMI,
 * MVAPICH, Slurm): the first rank variable set and the first size variable
 * set, in the order of the list.  One pass over the environment for all
 * (a pass per name was ~6K instructions at every start). */
OA_START_TEXT static int first_env_int(const char *const *names)
{
	const char *val[8] = { 0 };
	size_t len[8];
	int n = 0;
	uint64_t first[4] = { 0 }; /* the names' first characters */
	for (; n < 8 && names[n]; n++) {
		len[n] = strlen(names[n]);
		first[(unsigned char)names[n][0] / 64] |= 1ull << ((unsigned char)names[n][0] % 64);
	}
	for (char **e = environ; e && *e; e++)
		for (int i = 0; (first[(unsigned char)**e / 64] >> ((unsigned char)**e % 64) & 1) && i < n; i++)
			if (!val[i] && oa_env_is(*e, names[i], len[i]))
				val[i] = *e + len[i] + 1;
	for (int i = 0; i < n; i++) {
		if (!val[i] || !*val[i])
			continue;
		char *end;
		long long l = oa_strtoll(val[i], &end);
		if (!*end && (int)l >= 0)
			return (int)l;
	}
	return -1;
}

static void detect_rank(void)
{
	static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK",    "PMI_RANK",
						 "MV2_COMM_WORLD_RANK",  "SLURM_PROCID", NULL };
	static const char *const size_vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",     "MV2_COMM_WORLD_SIZE",
						 "SLURM_NTASKS",         "SLURM_NPROCS", NULL };
	int r = first_env_int(rank_vars);
	int n = first_env_int(size_vars);
	oa_cfg.rank = oa_cfg.nranks = -1;
	if (r >= 0 && n > r) {
		oa_cfg.rank = r;
		oa_cfg.nranks = n;
	}
}

/* The first thing every process asks, a disabled one included: the
 * environment is scanned here, with the name kept in early data, so that
 * the answer touches no page of ours or of libc's that an empty preloaded
 * library would not (compiler.h). */
OA_EARLY_TEXT int oa_config_disabled(void)
{
	static char name[] OA_EARLY_DATA = "OVNI_DISABLE=";
	for (char **e = environ; e && *e; e++) {
		const char *v = *e;
		size_t i = 0;
		while (name[i] && v[i] == name[i])
			i++;
		if (!name[i])
			return v[i] && !(v[i] == '0' && !v[i + 1]);
	}
	return 0;
}

OA_START_TEXT int oa_config_load(void)
{
	const char *v;
	int r;

	/* Read once per process: oa_cfg is still zero (no memset: each of
	 * its pages written costs a fault). */
	oa_cfg.disabled = oa_config_disabled();
	v = oa_env(OA_ENV_DEBUG);
	oa_cfg.debug = v && *v && strcmp(v, "0") != 0;
	/* ovnirun's report: what the agent says is also said at the end. */
	v = oa_env(OA_ENV_REPORT);
	if (v && v[0] == '/' && strlen(v) < sizeof(oa_log_report))
		strcpy(oa_log_report, v);
	else
		oa_log_report[0] = '\0';

	/* ovnirun writes out the threads' spools while the run goes on. */
	v = oa_env(OA_ENV_SPOOL_WATCH);
	if (v && v[0] == '/' && strlen(v) < sizeof(oa_cfg.spool_watch))
		strcpy(oa_cfg.spool_watch, v);

	v = oa_env(OA_ENV_TRACEDIR);
	oa_cfg.relative = !v || v[0] != '/';
	if ((r = absolute(oa_cfg.tracedir, sizeof(oa_cfg.tracedir), v && *v ? v : "ovni")) != 0)
		return r;
	v = oa_env(OA_ENV_TMPDIR);
	if (v && *v && (r = absolute(oa_cfg.tmpdir, sizeof(oa_cfg.tmpdir), v)) != 0)
		return r;
	oa_cfg.relative |= v && *v && v[0] != '/' ? 2 : 0;
	oa_cfg.staging = v && *v;

	v = oa_env(OA_ENV_LOOM);
	if (v && *v) {
		strncpy(oa_cfg.loom, v, sizeof(oa_cfg.loom) - 1);
	} else {
		/* gethostname() is uname(): made directly (common/sys.h). */
		struct utsname u;
		if (oa_sys3(SYS_uname, (long)&u, 0, 0) == 0 && u.nodename[0])
			oa_snprintf(oa_cfg.loom, sizeof(oa_cfg.loom), "%s", u.nodename);
		else
			strcpy(oa_cfg.loom, "localhost");
	}
	for (char *p = oa_cfg.loom; *p; p++)
		if (*p == '/')
			*p = '_';

	oa_cfg.app_id = env_int(OA_ENV_APPID, 1);
	if (oa_cfg.app_id <= 0)
		oa_cfg.app_id = 1;
	detect_rank();

	v = oa_env(OA_ENV_CHILDREN);
	oa_cfg.children = OA_CHILDREN_ALL;
	if (v && *v && strcmp(v, "all") != 0) {
		if (!strcmp(v, "none")) {
			oa_cfg.children = OA_CHILDREN_NONE;
		} else {
			oa_cfg.children = OA_CHILDREN_MATCH;
			snprintf(oa_cfg.children_pattern, sizeof(oa_cfg.children_pattern), "%s", v);
		}
	}
	oa_cfg.root_pid = env_int(OA_ENV_ROOT_PID, 0);
	if (oa_cfg.children != OA_CHILDREN_ALL && oa_cfg.root_pid <= 0) {
		/* Started without ovnirun: this process is the root; its
		 * children learn it through the inherited environment. */
		char pid[16];
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		oa_env_set(OA_ENV_ROOT_PID, pid);
		oa_cfg.root_pid = getpid();
	}

	v = oa_env(OA_ENV_TRACE_LAUNCHERS);
	oa_cfg.trace_launchers = v && *v && strcmp(v, "0") != 0;

	v = oa_env(OA_ENV_CALLSITES);
	oa_cfg.callsites = v && *v && strcmp(v, "0") != 0;

	oa_cfg.bufsize = 0;
	v = oa_env(OA_ENV_BUFSIZE);
	if (v && *v && !(oa_cfg.bufsize = oa_parse_size(v)))
		oa_log("ignoring OVNI_BUFSIZE=%s: not a size (e.g. 4M)", v);
	return 0;
}

/* MPI and job launchers start the ranks; traced in the same loom they would
 * be processes without a rank among ranked ones, which the emulator rejects.
 * Their children (the ranks) are traced as usual. */
OA_EARLY_TEXT static int is_launcher(const char *name)
{
	/* One string in .data, compared without libc: a fork child asks
	 * before its exec (childenv.c says why). */
	static char launchers[] OA_EARLY_DATA =
		"mpirun\0mpiexec\0orterun\0prterun\0orted\0prted\0prte\0"
		"hydra_pmi_proxy\0mpiexec.hydra\0mpirun.openmpi\0"
		"mpiexec.openmpi\0mpirun.mpich\0mpiexec.mpich\0srun\0"
		"slurmstepd\0";
	for (const char *l = launchers; *l;) {
		size_t i = 0;
		while (l[i] && l[i] == name[i])
			i++;
		if (!l[i] && !name[i])
			return 1;
		while (l[i])
			i++;
		l += i + 1;
	}
	return 0;
}

OA_EARLY_TEXT int oa_config_trace_fork_child(const char *name)
{
	if (is_launcher(name) && !oa_cfg.trace_launchers)
		return 0;
	if (oa_cfg.children == OA_CHILDREN_ALL)
		return 1;
	if (oa_cfg.children == OA_CHILDREN_NONE)
		return 0;
	return fnmatch(oa_cfg.children_pattern, name, 0) == 0;
}

OA_EARLY_TEXT int oa_config_trace_child(const char *name)
{
	if (is_launcher(name) && !oa_cfg.trace_launchers)
		return 0;
	if (oa_cfg.children == OA_CHILDREN_ALL || getpid() == oa_cfg.root_pid)
		return 1;
	if (oa_cfg.children == OA_CHILDREN_NONE)
		return 0;
	return fnmatch(oa_cfg.children_pattern, name, 0) == 0;
}
