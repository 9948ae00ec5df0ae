/* ovnirun.c: run a program under libovni-auto.so.
 * Sets LD_PRELOAD (prepended to an existing one), OMP_TOOL_LIBRARIES and the
 * OVNI_* variables, runs the program, and ends with the program's own exit
 * status or signal.  Runs programs the agent cannot enter (static, another
 * user's set-uid/set-gid) untraced, and says why. */
#include <elf.h>
#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../common/log.h"
#include "../../common/num.h"
#include "ovnirun_collect.h"
#include "ovnirun_omp.h"
#include "ovnirun_settle.h"
#include "ovnirun_watch.h"

static const char usage_text[] =
	"usage: ovnirun [options] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Run PROGRAM (an unmodified, dynamically linked program) with the ovni-auto\n"
	"agent and write an ovni trace of its threads and processes.\n"
	"\n"
	"options:\n"
	"  -o, --output DIR   trace directory (default: ./ovni, or ./ovni.N when\n"
	"                     that exists); must not exist unless -f is given\n"
	"  -f, --force        write into an existing trace directory\n"
	"  -t, --tmpdir DIR   stage the streams in DIR (a fast local file system)\n"
	"                     and move them to the trace directory at the end\n"
	"  -l, --loom NAME    loom name (default: the host name)\n"
	"  -a, --appid N      application id (default 1)\n"
	"  -b, --bufsize SIZE largest mapped window per thread (default 4M)\n"
	"  -c, --children WHICH  child processes to trace: all (default), none,\n"
	"                     or a shell pattern matched against the program name\n"
	"  -s, --callsites    record the calling function of each wait and thread\n"
	"                     creation (libunwind; OVNI_CALLSITES=1)\n"
	"  -S, --sample US    sample the running function of each thread every US\n"
	"                     microseconds of its CPU time (OVNI_SAMPLE_US)\n"
	"      --collect @FILE  send the trace to `ovni-auto collect` (FILE holds\n"
	"                     its contact string; OVNI_COLLECT also works) instead\n"
	"                     of writing it here: every traced process joins it\n"
	"      --no-libomp    keep GCC's libgomp (no OMPT: OpenMP is not traced)\n"
	"                     instead of running the program on LLVM libomp\n"
	"      --view         write DIR/view.html at the end: the timeline and the\n"
	"                     summary as one page for a browser (ovni-auto view)\n"
	"  -q, --quiet        do not print where the trace is (processes still running\n"
	"                     at the end are named all the same)\n"
	"  -h, --help         this text\n"
	"\n"
	"The exit status is the program's; a program killed by a signal makes\n"
	"ovnirun end by the same signal (without a core file of its own).\n"
	"The manual: man ovnirun, man 7 ovni-auto-env (the environment variables\n"
	"the agent reads); in the source tree docs/ovnirun.1.md, docs/ovni-auto-env.7.md.\n";

static const struct option long_opts[] = {
	{ "output", required_argument, 0, 'o' },
	{ "force", no_argument, 0, 'f' },
	{ "tmpdir", required_argument, 0, 't' },
	{ "loom", required_argument, 0, 'l' },
	{ "appid", required_argument, 0, 'a' },
	{ "bufsize", required_argument, 0, 'b' },
	{ "quiet", no_argument, 0, 'q' },
	{ "help", no_argument, 0, 'h' },
	{ "children", required_argument, 0, 'c' },
	{ "callsites", no_argument, 0, 's' },
	{ "sample", required_argument, 0, 'S' },
	{ "no-libomp", no_argument, 0, 1 },
	{ "collect", required_argument, 0, 2 },
	{ "view", no_argument, 0, 3 },
	{ 0, 0, 0, 0 },
};

/* The library next to us: <bindir>/../lib/libovni-auto.so. */
/* The agent: OVNI_AUTO_LIB, or ../lib/libovni-auto.so from ovnirun's
 * directory.  0, or -1 with why in out. */
static int find_library(char *out, size_t size)
{
	const char *env = getenv("OVNI_AUTO_LIB");
	static char real[PATH_MAX];
	if (env && *env) {
		if (realpath(env, real)) {
			snprintf(out, size, "%s", real);
			return 0;
		}
		snprintf(out, size, "OVNI_AUTO_LIB=%s: %s", env, strerror(errno));
		return -1;
	}
	static char self[PATH_MAX];
	if (self_dir(self, sizeof(self)) != 0) {
		snprintf(out, size, "cannot find ovnirun's own path (no /proc/self/exe, no AT_EXECFN with a '/')");
		return -1;
	}
	snprintf(out, size, "%s/../lib/libovni-auto.so", self);
	if (!realpath(out, real)) {
		int e = errno;
		snprintf(real, sizeof(real), "%s", out);
		snprintf(out, size, "cannot find the agent library %s: %s", real, strerror(e));
		return -1;
	}
	snprintf(out, size, "%s", real);
	return 0;
}

/* Is the trace directory gone from its path, or another one now (was:
 * what it was at the start)? */
static int dir_moved(const char *path, const struct stat *was)
{
	struct stat st;
	if (!was)
		return 0;
	return stat(path, &st) != 0 || st.st_dev != was->st_dev || st.st_ino != was->st_ino;
}

/* PROGRAM as execvp would find it. */
static int resolve_program(const char *prog, char *out, size_t size)
{
	if (strchr(prog, '/')) {
		snprintf(out, size, "%s", prog);
		return access(out, X_OK);
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchr(path, ':');
		size_t len = end ? (size_t)(end - path) : strlen(path);
		snprintf(out, size, "%.*s/%s", (int)len, len ? path : ".", prog);
		if (access(out, X_OK) == 0)
			return 0;
		path += len + (end ? 1 : 0);
	}
	return -1;
}

static int untraced_suid;

/* 0: dynamic ELF or a script; otherwise the reason it cannot be traced. */
static const char *untraceable(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return strerror(errno);
	/* The loader ignores LD_PRELOAD in a secure exec: a set-uid program
	 * of another user (a set-uid-root one run by root is not one). */
	if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) || ((st.st_mode & S_ISGID) && st.st_gid != getegid())) {
		untraced_suid = 1;
		return "it is set-uid or set-gid, and the dynamic loader ignores LD_PRELOAD for such programs";
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return strerror(errno);
	static unsigned char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));
	const char *why = NULL;
	if (n >= 2 && buf[0] == '#' && buf[1] == '!') {
		why = NULL; /* a script: its interpreter is traced */
	} else if (n >= (ssize_t)sizeof(Elf64_Ehdr) && !memcmp(buf, ELFMAG, SELFMAG) && buf[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr eh;
		memcpy(&eh, buf, sizeof(eh));
		int interp = 0;
		for (int i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (Elf64_Off)i * eh.e_phentsize)) !=
			    sizeof(ph))
				break;
			if (ph.p_type == PT_INTERP)
				interp = 1;
		}
		/* The dynamic loader run as a program (`ld.so ./app`) has no
		 * interpreter either, and loads the program it is given with
		 * LD_PRELOAD: traced.  Told by its name (glibc's ld-linux-*,
		 * ld64.so, musl's ld-musl-*). */
		static char real[PATH_MAX];
		const char *base = realpath(path, real) ? strrchr(real, '/') : NULL;
		base = base ? base + 1 : "";
		int loader = !strncmp(base, "ld-", 3) || !strncmp(base, "ld64.so", 7) || !strcmp(base, "ld.so");
		if (!interp && !loader)
			why = "it is statically linked, so LD_PRELOAD cannot load the agent into it";
	} else if (n >= SELFMAG && !memcmp(buf, ELFMAG, SELFMAG)) {
		why = "it is not a 64-bit ELF program";
	}
	close(fd);
	return why;
}

/* Started by an MPI or job launcher (mpirun -np 4 ovnirun ./app): every rank
 * runs its own ovnirun, and all must write one trace. */
static const char *launcher_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK",    "PMI_RANK",
					    "MV2_COMM_WORLD_RANK",  "SLURM_PROCID", NULL };
	for (const char *const *v = vars; *v; v++) {
		const char *r = getenv(*v);
		if (r && *r)
			return r;
	}
	return NULL;
}

/* A name for the job all ranks share (the launcher's job id), or "". */
static void launcher_job(char *out, size_t size)
{
	static const char *const vars[] = { "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "PMI_KVSNAME", "SLURM_JOB_ID",
					    NULL };
	out[0] = '\0';
	for (const char *const *v = vars; *v; v++) {
		const char *j = getenv(*v);
		if (!j || !*j)
			continue;
		size_t n = 0;
		for (; *j && n + 1 < size; j++)
			out[n++] = (char)((*j >= 'a' && *j <= 'z') || (*j >= 'A' && *j <= 'Z') ||
							  (*j >= '0' && *j <= '9') || *j == '-' || *j == '.'
						  ? *j
						  : '_');
		out[n] = '\0';
		const char *step = getenv("SLURM_STEP_ID");
		if (!strcmp(*v, "SLURM_JOB_ID") && step && *step && n + 1 + strlen(step) < size)
			snprintf(out + n, size - n, ".%s", step);
		return;
	}
}

static void pick_tracedir(const char *opt, int force, char *out, size_t size)
{
	struct stat st;
	if (launcher_rank()) {
		/* One directory for the whole job, which any rank may create. */
		char job[200];
		launcher_job(job, sizeof(job));
		if (opt)
			snprintf(out, size, "%s", opt);
		else
			snprintf(out, size, job[0] ? "ovni-%s" : "ovni", job);
		return;
	}
	if (opt) {
		snprintf(out, size, "%s", opt);
		if (!force && stat(out, &st) == 0) {
			fprintf(stderr,
				"ovnirun: the trace directory %s exists; remove it, choose another "
				"with -o, or write into it with -f\n",
				out);
			exit(2);
		}
		return;
	}
	snprintf(out, size, "ovni");
	for (int i = 1; stat(out, &st) == 0; i++)
		snprintf(out, size, "ovni.%d", i);
}

/* The summary counts as it walks: stream.json files (threads) and the
 * proc.* directories that hold one (processes); no table, any size. */
static long nthreads_seen, nprocs_seen;
static char last_proc[PATH_MAX];

static int count_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	const char *base = strrchr(path, '/');
	if (type != FTW_F || !base || strcmp(base, "/stream.json"))
		return 0;
	nthreads_seen++;
	const char *t = strstr(path, "/thread.");
	size_t len = t ? (size_t)(t - path) : 0;
	/* nftw visits a directory's entries together: a new process directory
	 * differs from the previous one. */
	if (len && len < sizeof(last_proc) && (strlen(last_proc) != len || strncmp(last_proc, path, len))) {
		memcpy(last_proc, path, len);
		last_proc[len] = '\0';
		nprocs_seen++;
	}
	return 0;
}

/* The report: every line the agent writes on stderr is also appended to a
 * file of ours ("PID message"), so that the last lines say what was not
 * traced, and why, however many processes the run had. */
static char report_dir[PATH_MAX], report[PATH_MAX + 16];

static void report_open(void)
{
	const char *base = getenv("TMPDIR");
	snprintf(report_dir, sizeof(report_dir), "%s/ovnirun.XXXXXX", base && base[0] == '/' ? base : "/tmp");
	if (!mkdtemp(report_dir)) {
		report_dir[0] = '\0';
		return;
	}
	snprintf(report, sizeof(report), "%s/report", report_dir);
	int fd = open(report, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		rmdir(report_dir);
		report_dir[0] = report[0] = '\0';
		return;
	}
	close(fd);
}

/* Print what the agent reported (at most 6 lines); the number of processes
 * that reported something. */
static long report_show(int quiet)
{
	if (!report[0])
		return 0;
	FILE *f = fopen(report, "r");
	long lines = 0, procs = 0, last_pid = -1;
	char line[700];
	while (f && fgets(line, sizeof(line), f)) {
		long pid = strtol(line, NULL, 10);
		if (pid != last_pid)
			procs++; /* lines of one process are together, mostly */
		last_pid = pid;
		/* "PID message" or "PID@DEV:INO message" (the agent showed
		 * it on a stderr of that device and inode): "pid PID message". */
		const char *text = strchr(line, ' ');
		if (!quiet && lines < 6)
			fprintf(stderr, "ovnirun:   pid %ld%s", pid, text ? text : "\n");
		lines++;
	}
	if (!quiet && lines > 6)
		fprintf(stderr, "ovnirun:   ... and %ld more lines from the agent\n", lines - 6);
	if (f)
		fclose(f);
	unlink(report);
	rmdir(report_dir);
	return procs;
}

/* No program ran (ovnirun could not fork): the private directory goes. */
static void report_discard(void)
{
	if (!report_dir[0])
		return;
	static char path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s/spools", report_dir);
	unlink(path);
	if (report[0])
		unlink(report);
	rmdir(report_dir);
}

static pid_t child;
/* The program, to pass signals on to, until it is reaped (a pid that is
 * no longer ours is never signalled: another process may have it). */
static volatile sig_atomic_t forward_to;
static volatile sig_atomic_t hung_up; /* the terminal's hangup, passed on (forward) */

/* Is process p the program or one of its descendants (1), not (0), or
 * unknown (-1: gone)?  Its parents, from /proc/PID/stat (proc_stat is
 * async-signal-safe: this runs in a handler). */
static int in_run(pid_t p)
{
	for (int depth = 0; depth < 64 && p > 1; depth++) {
		if (p == child)
			return 1;
		char buf[512], *q = proc_stat(p, buf, sizeof(buf));
		if (!q || !q[0] || q[1] != ' ')
			return -1; /* gone, or not "S ppid ..." */
		q += 2;
		pid_t parent = 0;
		for (; *q >= '0' && *q <= '9'; q++)
			parent = parent * 10 + (*q - '0');
		p = parent;
	}
	return 0;
}

/* A signal for ovnirun goes on to the program, once.  One sent to the
 * process group from inside the run (`kill 0` in the program or a process
 * it started) or by the terminal (SI_KERNEL: its Ctrl-C, or its hangup
 * when ovnirun is not its session's leader) reached the program too while
 * it is in our group: passed on, it came twice (a
 * program counting its SIGTERMs, the second meaning "now", saw two; a
 * dying shell got its second while it ended its streams).  The kernel says
 * nothing of where a signal was sent, so one from outside the run is
 * passed on (a script's `kill $!`, a supervisor), also when it was sent to
 * a whole group that holds the program (ovnirun(1)). */
static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	pid_t to = (pid_t)forward_to;
	if (to <= 0)
		return;
	int saved = errno;
	/* ovnirun's own CPU or file size limit: not the program's (the
	 * kernel sends SIGXCPU as SI_KERNEL, SIGXFSZ as SI_USER from the
	 * writer itself). */
	if ((sig == SIGXCPU || sig == SIGXFSZ) && si &&
	    (si->si_code > 0 || (si->si_code == SI_USER && si->si_pid == getpid()))) {
		errno = saved;
		return;
	}
	/* The terminal's hangup goes to its session's leader alone (with a
	 * SIGCONT): when that is ovnirun (`ssh -t host ovnirun app`, `script
	 * -c`, a shell's exec), the program got nothing, and ran on after its
	 * terminal was gone. */
	int hangup = si && si->si_code == SI_KERNEL && (sig == SIGHUP || sig == SIGCONT) && getsid(0) == getpid();
	if (hangup && sig == SIGHUP)
		hung_up = 1;
	int group_sent = si && !hangup &&
			 (si->si_code == SI_KERNEL || ((si->si_code == SI_USER || si->si_code == SI_QUEUE) &&
						       si->si_pid > 0 && in_run(si->si_pid) == 1));
	if (!group_sent || getpgid(to) != getpgrp())
		kill(to, sig);
	errno = saved;
}

/* A stop signal (SIGTSTP, SIGTTIN, SIGTTOU: `kill -TSTP $!` on ovnirun
 * stopped ovnirun alone, the program ran on): passed on, then ovnirun
 * stops as the default would (a parent sees the job stopped), the same
 * signal; the SIGCONT that continues it is passed on too (forward).  A
 * group's stop (the terminal's Ctrl-Z) reached the program already. */
static void forward_stop(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	forward(sig, si, uc);
	watch_stop_self(sig);
	errno = saved;
}

/* The initial PID namespace's inode (the kernel's PROC_PID_INIT_INO). */
#define INIT_PIDNS_INO 0xEFFFFFFCul

/* ovnirun in a PID namespace of its own (`unshare -p -f ovnirun -f`, a
 * container) writing into a directory other runs may write too (-f, a
 * launcher's ranks): its processes have that namespace's pids (1, 2,
 * ...), as have another such run's, and two runs in one loom had two live
 * processes write one stream's files (SIGBUS and SIGSEGV in the programs,
 * a trace with hundreds of problems).  The loom (loom, of cap bytes) then
 * takes the namespace's inode (".runns<inode>": settle_own_loom), unique
 * among the namespaces alive, and a number when a run before left a loom
 * of that name (an inode given again
 * to a later namespace: its processes were merged into the earlier
 * run's).  Returns loom, or NULL when it is left as it is. */
static const char *own_ns_loom(const char *trace, char *loom, size_t cap)
{
	struct stat ns, st;
	if (stat("/proc/self/ns/pid", &ns) != 0 || (unsigned long)ns.st_ino == INIT_PIDNS_INO)
		return NULL;
	char base[256], path[PATH_MAX + 600];
	snprintf(base, sizeof(base), "%.200s.runns%lu", loom, (unsigned long)ns.st_ino);
	for (int k = 1; k < 1000; k++) {
		if (k == 1)
			snprintf(loom, cap, "%s", base);
		else
			snprintf(loom, cap, "%s.%d", base, k);
		snprintf(path, sizeof(path), "%s/loom.%s", trace, loom);
		if (stat(path, &st) != 0)
			break;
	}
	return loom;
}

/* A count: decimal digits, not 0, at most 10^12. */
static int count_ok(const char *s)
{
	unsigned long long v = 0;
	const char *p = s;
	for (; *p >= '0' && *p <= '9' && v < 1000000000000ull; p++)
		v = v * 10 + (unsigned long long)(*p - '0');
	return p != s && !*p && v > 0 && v <= 1000000000000ull;
}

/* The signals ovnirun passes on: every one whose default would end it
 * (a `timeout -s ALRM`, a batch system's SIGXCPU or real-time signal left
 * ovnirun dead and the trace unfinished in its spool: only TERM, HUP,
 * USR1 and USR2 were) or stop it, and SIGCONT, but those the kernel raises for ovnirun's own faults
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT) and SIGPIPE
 * (ignored for its own writes, below).  A SIGXCPU or SIGXFSZ the kernel sends ovnirun for its
 * own limits is not passed on (it is not the program's): the write that
 * raised SIGXFSZ fails, as it would with the signal ignored. */
static int handled(int sig)
{
	switch (sig) {
	case SIGINT:
	case SIGQUIT:
	case SIGTERM:
	case SIGHUP:
	case SIGUSR1:
	case SIGUSR2:
	case SIGALRM:
	case SIGVTALRM:
	case SIGPROF:
	case SIGXCPU:
	case SIGXFSZ:
	case SIGIO:
	case SIGPWR:
	case SIGSTKFLT:
	case SIGTSTP:
	case SIGTTIN:
	case SIGTTOU:
	case SIGCONT: return 1;
	default: return sig >= SIGRTMIN && sig <= SIGRTMAX;
	}
}

/* The dispositions ovnirun changes, as it inherited them: the program gets
 * them back (nohup, `trap '' HUP` and friends keep working), and a signal
 * the caller ignores is not forwarded either. */
static struct sigaction inherited[NSIG];

static void setup_signals(void)
{
	for (int sig = 1; sig < NSIG; sig++) {
		if (!handled(sig) || sigaction(sig, NULL, &inherited[sig]) != 0)
			continue;
		if (inherited[sig].sa_handler == SIG_IGN)
			continue;
		/* The terminal's SIGINT/SIGQUIT reached the program with us (a
		 * group's: not sent again, forward); we wait for it and report
		 * what it did, as system(3) does.  One sent to ovnirun alone (a
		 * supervisor's Popen.send_signal(SIGINT), `kill -INT $!`) is
		 * passed on: ignored, the program ran on to its end. */
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		int stop = sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
		sa.sa_sigaction = stop ? forward_stop : forward;
		sa.sa_flags = SA_RESTART | SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		sigaction(sig, &sa, NULL);
	}
}

static void restore_signals(void)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (handled(sig))
			sigaction(sig, &inherited[sig], NULL);
}

/* A program built with gcc's AddressSanitizer (libasan.so) stops at its
 * start ("ASan runtime does not come first in initial library list") when
 * an object is loaded before its runtime, as the agent is: its check is
 * turned off for the run (kept in ASAN_OPTIONS; the agent keeps it in the
 * environments of the programs started, childenv.c).  A setting of the
 * user's own for the check is left as it is. */
/* A tool's option added to its variable (after the user's own, joined by
 * sep), unless the variable names `unless` already. */
static void env_append(const char *var, const char *sep, const char *item, const char *unless)
{
	const char *old = getenv(var);
	if (old && strstr(old, unless))
		return;
	static char v[8192]; /* static, as main's: ovnirun runs under `ulimit -s 32` */
	if (snprintf(v, sizeof(v), "%s%s%s", old && *old ? old : "", old && *old ? sep : "", item) < (int)sizeof(v))
		setenv(var, v, 1);
}

static void asan_setup_env(void)
{
	env_append("ASAN_OPTIONS", ":", "verify_asan_link_order=0", "verify_asan_link_order");
}

/* Valgrind's race checkers (helgrind, DRD) do not model the agent's
 * atomics and fences: ~200 races reported in the agent for a clean
 * two-thread program, and --error-exitcode changed its status.  The
 * suppressions next to us (<bindir>/../share/ovni-auto/valgrind.supp) go to
 * every valgrind of the run through VALGRIND_OPTS; races in the program's
 * own code are still reported. */
static void valgrind_setup_env(const char *lib)
{
	static char supp[PATH_MAX + 64];
	const char *slash = strrchr(lib, '/');
	if (!slash ||
	    snprintf(supp, sizeof(supp), "%.*s/../share/ovni-auto/valgrind.supp", (int)(slash - lib), lib) >=
		    (int)sizeof(supp) ||
	    strpbrk(supp, " \t\n") || access(supp, R_OK) != 0)
		return; /* (VALGRIND_OPTS is split at blanks) */
	static char item[sizeof(supp) + 16];
	snprintf(item, sizeof(item), "--suppressions=%s", supp);
	env_append("VALGRIND_OPTS", " ", item, supp);
}

/* The scheduling policy ovnirun was started with is the program's, as if
 * started directly: a fork under SCHED_RESET_ON_FORK (`chrt -R -f 5
 * ovnirun`) gave the program SCHED_OTHER and nice 0, and under
 * SCHED_DEADLINE the kernel refuses fork (EAGAIN: the program never ran).
 * The child takes the parent's attributes again before it execs (where
 * privileges allow: they did for the parent); a deadline parent forks as
 * SCHED_OTHER (ovnirun has no deadline to meet). */
struct oa_sched_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
};
#define OA_SCHED_DEADLINE 6
#define OA_SCHED_FLAG_RESET_ON_FORK 1

static pid_t fork_keeping_policy(void)
{
	struct oa_sched_attr was;
	memset(&was, 0, sizeof(was));
	int have = syscall(SYS_sched_getattr, 0, &was, (unsigned)sizeof(was), 0) == 0;
	int deadline = have && was.policy == OA_SCHED_DEADLINE;
	int reset = have && (was.flags & OA_SCHED_FLAG_RESET_ON_FORK);
	if (deadline) {
		struct oa_sched_attr other;
		memset(&other, 0, sizeof(other));
		other.size = sizeof(other);
		other.policy = SCHED_OTHER;
		if (syscall(SYS_sched_setattr, 0, &other, 0) != 0)
			deadline = 0;
	}
	pid_t c = fork();
	if (c == 0 && (deadline || reset)) {
		was.size = sizeof(was);
		int e = errno;
		syscall(SYS_sched_setattr, 0, &was, 0);
		errno = e;
	}
	return c;
}

int main(int argc, char **argv)
{
	const char *outdir = NULL, *tmpdir = NULL, *loom = NULL, *appid = NULL, *bufsize = NULL;
	const char *children = NULL, *sample = NULL, *collect = NULL;
	int force = 0, quiet = 0, callsites = 0, libomp = 1, c, contact_lost = 0, view = 0;

	oa_progname = "ovnirun";
	while ((c = getopt_long(argc, argv, "+o:ft:l:a:b:c:sS:qh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o': outdir = optarg; break;
		case 'f': force = 1; break;
		case 't': tmpdir = optarg; break;
		case 'l': loom = optarg; break;
		case 'a': appid = optarg; break;
		case 'b': bufsize = optarg; break;
		case 'c': children = optarg; break;
		case 's': callsites = 1; break;
		case 'S': sample = optarg; break;
		case 1: libomp = 0; break;
		case 2: collect = optarg; break;
		case 3: view = 1; break;
		case 'q': quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (optind >= argc) {
		fputs(usage_text, stderr);
		return 2;
	}
	/* Values the agent would ignore (each process saying so on the
	 * program's stderr, or nothing at all: a run without the sampling it
	 * was asked for) are refused before the program starts. */
	if (bufsize && !oa_parse_size(bufsize)) {
		fprintf(stderr, "ovnirun: -b %s: not a size (a number of bytes, K, M or G: 4M)\n", bufsize);
		return 2;
	}
	if (sample && !count_ok(sample)) {
		fprintf(stderr, "ovnirun: -S %s: not a number of microseconds (1 or more: 1000)\n", sample);
		return 2;
	}
	/* Its buffers static: 26 KiB of stack made ovnirun die of SIGSEGV
	 * under `ulimit -s 48` (and any smaller), the program never run. */
	static char prog[PATH_MAX];
	if (resolve_program(argv[optind], prog, sizeof(prog)) != 0) {
		fprintf(stderr, "ovnirun: %s: command not found or not executable\n", argv[optind]);
		return 127;
	}
	/* A program the agent cannot enter still runs, as it would without
	 * ovnirun (a static Go program or busybox that starts dynamically
	 * linked ones: those are traced). */
	const char *why = untraceable(prog);
	if (why)
		fprintf(stderr, "ovnirun: %s runs untraced: %s%s\n", prog, why,
			untraced_suid ? " (and drops it for the programs it starts)"
				      : "; the dynamically linked programs it starts are traced");

	if (tmpdir) {
		/* Checked now: every process would run untraced otherwise. */
		struct stat st;
		errno = 0;
		if (stat(tmpdir, &st) != 0 || !S_ISDIR(st.st_mode) || access(tmpdir, W_OK | X_OK) != 0) {
			fprintf(stderr, "ovnirun: -t %s: %s\n", tmpdir, errno ? strerror(errno) : "not a directory");
			return 2;
		}
	}
	static char lib[PATH_MAX + 64], dir[PATH_MAX], absdir[PATH_MAX + 8], contact[600];
	if (find_library(lib, sizeof(lib)) != 0) {
		/* Said, then out of the way: the program as if ovnirun were not
		 * there (its status, its signals, its pid). */
		fprintf(stderr, "ovnirun: %s: the program runs untraced\n", lib);
		execv(prog, argv + optind);
		fprintf(stderr, "ovnirun: cannot run %s: %s\n", prog, strerror(errno));
		return 127;
	}
	/* The contact from the environment keeps the secret off command lines. */
	const char *env_contact = getenv("OVNI_COLLECT");
	if (!collect && env_contact && *env_contact)
		collect = env_contact;
	else if (collect && collect[0] != '@' && !quiet)
		fprintf(stderr,
			"ovnirun: warning: the collector's secret is on the command line, where every local user "
			"reads it (ps): use --collect @FILE or OVNI_COLLECT\n");
	if (collect && oa_col_contact(collect, contact, sizeof(contact)) != 0) {
		fprintf(stderr,
			"ovnirun: --collect %s: not a contact string (HOST:PORT:RUN:SECRET, as "
			"`ovni-auto collect` prints it, or @FILE holding one)\n",
			collect);
		return 2;
	}
	if (contact[0]) /* the streams wait locally (see the agent's collect.c) */
		snprintf(dir, sizeof(dir), "%s", outdir ? outdir : "ovni");
	else
		pick_tracedir(outdir, force, dir, sizeof(dir));
	if (dir[0] == '/') {
		snprintf(absdir, sizeof(absdir), "%s", dir);
	} else {
		/* A current directory that was removed: the program runs all
		 * the same, untraced, and so does everything it starts (a
		 * relative directory would be each one's own: `cd sub; tool`
		 * made sub/ovni), as with a trace directory it cannot write. */
		static char cwd[PATH_MAX];
		if (getcwd(cwd, sizeof(cwd))) {
			snprintf(absdir, sizeof(absdir), "%.*s/%s", PATH_MAX / 2, cwd, dir);
		} else {
			snprintf(absdir, sizeof(absdir), "%s", dir);
			fprintf(stderr,
				"ovnirun: the current directory was removed, and the trace directory (%s) is relative "
				"to it: the program runs untraced\n",
				dir);
			setenv("OVNI_DISABLE", "1", 1);
		}
	}

	if (contact[0] && !launcher_rank() && oa_col_session(contact, 0) != 0) {
		contact_lost = 1;
		/* Said once here; the agent in every process keeps its streams locally at once. */
		const char *base = tmpdir ? tmpdir : getenv("TMPDIR");
		char *r = strrchr(contact, ':'), *run = r;
		while (run > contact && run[-1] != ':')
			run--;
		fprintf(stderr,
			"ovnirun: cannot reach the collector at %.*s: the trace stays in %s/ovni-collect.%d.%.*s\n",
			(int)(run - 1 - contact), contact, base && base[0] == '/' ? base : "/tmp", (int)getuid(),
			(int)(r - run), run);
		setenv("OVNI_COLLECT_UNREACHABLE", "1", 1);
	}
	report_open();
	/* The threads' spools written out while the program runs (not for a
	 * collector: the processes send their streams there). */
	const char *spools = contact[0] ? NULL : watch_start(report_dir);
	/* And the processes' first streams in the run's spool (not staged,
	 * not when every rank of a launch runs ovnirun into one directory). */
	/* The loom the agent takes (preload/config.c): ours, OVNI_LOOM, or
	 * the host name; '/' made '_'. */
	char run_loom[256] = "";
	{
		const char *l = loom ? loom : getenv("OVNI_LOOM");
		struct utsname u;
		if (l && *l)
			snprintf(run_loom, sizeof(run_loom), "%s", l);
		else if (uname(&u) == 0 && u.nodename[0])
			snprintf(run_loom, sizeof(run_loom), "%s", u.nodename);
		else
			snprintf(run_loom, sizeof(run_loom), "localhost");
		for (char *p = run_loom; *p; p++)
			if (*p == '/')
				*p = '_';
		if (!(l && *l) && (force || launcher_rank()) &&
		    (loom = own_ns_loom(absdir, run_loom, sizeof(run_loom))))
			settle_own_loom(run_loom);
	}
	if (spools && !tmpdir && !launcher_rank())
		watch_run_start(absdir, run_loom);
	/* The trace directory as it is now (made by the run's spool), to tell
	 * at the end one that was moved or removed meanwhile. */
	struct stat dir_was;
	int dir_known = stat(absdir, &dir_was) == 0;
	setup_signals();
	child = fork_keeping_policy();
	forward_to = child > 0 ? child : 0;
	if (child < 0) {
		int e = errno;
		watch_run_end();
		report_discard();
		errno = e;
		die("fork:");
	}
	if (child == 0) {
		restore_signals();
		/* The environment as ovnirun got it, for an exec that the agent's
		 * variables make too large (below). */
		size_t ne = 0;
		while (environ[ne])
			ne++;
		char **given = malloc((ne + 1) * sizeof(*given));
		if (given)
			memcpy(given, environ, (ne + 1) * sizeof(*given));
		/* The run's spool is this process's and its children's: said
		 * before the program starts (the mapping is ours too). */
		watch_run_root(getpid());
		/* Only the program gets the agent, not ovnirun itself. */
		const char *old = getenv("LD_PRELOAD");
		size_t len = strlen(lib) + (old ? strlen(old) : 0) + 2;
		char *preload = malloc(len);
		if (!preload) {
			/* A tight `ulimit -v`: said as what it is, not as the
			 * program's crash. */
			fprintf(stderr, "ovnirun: cannot run %s: %s\n", prog, strerror(ENOMEM));
			_exit(127);
		}
		snprintf(preload, len, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
		setenv("LD_PRELOAD", preload, 1);
		asan_setup_env();
		valgrind_setup_env(lib);
		omp_setup_env(prog, lib, libomp, quiet);
		setenv("OVNI_TRACEDIR", absdir, 1);
		/* A run of its own (ovnirun inside a traced run): its first
		 * process notes the trace directory and the PID namespace. */
		unsetenv("OVNI_TRACEDIR_ID");
		unsetenv("OVNI_PIDNS");
		unsetenv("OVNI_NSPID");
		if (spools)
			setenv("OVNI_SPOOL_WATCH", spools, 1);
		else
			unsetenv("OVNI_SPOOL_WATCH");
		/* The program is in our PID namespace: told, it need not
		 * read /proc/self/ns/pid (OVNI_NSPID, ovni-auto-env(7)). */
		struct stat ns;
		if (stat("/proc/self/ns/pid", &ns) == 0) {
			char v[80];
			snprintf(v, sizeof(v), "%lu", (unsigned long)ns.st_ino);
			setenv("OVNI_PIDNS", v, 1);
			snprintf(v, sizeof(v), "%lu:s:%d:%d:%d:%d", (unsigned long)ns.st_ino, (int)getpid(),
				 (int)getppid(), (int)getsid(0), (int)getpgid(0));
			if (getppid() > 0)
				setenv("OVNI_NSPID", v, 1);
		}
		/* Every rank of this launch runs ovnirun: the agent is in all of
		 * them (MPI clock offsets may be measured, hooks/mpi.c). */
		if (launcher_rank())
			setenv("OVNI_MPI_PER_RANK", "1", 1);
		if (tmpdir)
			setenv("OVNI_TMPDIR", tmpdir, 1);
		if (report[0])
			setenv("OVNI_REPORT", report, 1);
		if (contact[0])
			setenv("OVNI_COLLECT", contact, 1);
		if (loom)
			setenv("OVNI_LOOM", loom, 1);
		if (appid)
			setenv("OVNI_APPID", appid, 1);
		if (bufsize)
			setenv("OVNI_BUFSIZE", bufsize, 1);
		if (children)
			setenv("OVNI_CHILDREN", children, 1);
		if (callsites)
			setenv("OVNI_CALLSITES", "1", 1);
		if (sample)
			setenv("OVNI_SAMPLE_US", sample, 1);
		char root[16];
		snprintf(root, sizeof(root), "%d", (int)getpid());
		setenv("OVNI_ROOT_PID", root, 1);
		execv(prog, argv + optind);
		if (errno == E2BIG && given) {
			/* Within a few hundred bytes of the kernel's limit untraced:
			 * as untraced, said. */
			fprintf(stderr,
				"ovnirun: %s: the agent's variables do not fit beside the program's arguments and "
				"environment (E2BIG): it runs untraced\n",
				prog);
			execve(prog, argv + optind, given);
		}
		fprintf(stderr, "ovnirun: cannot run %s: %s\n", prog, strerror(errno));
		_exit(127);
	}
	/* ovnirun's own lines go to a stderr that a pipe's reader may have
	 * closed by then (`ovnirun ./app 2>&1 | head -1`): a write fails
	 * instead of killing ovnirun, whose status is the program's.  After
	 * the fork: the program keeps the disposition ovnirun inherited. */
	signal(SIGPIPE, SIG_IGN);
	int status;
	while (watch_wait(child, &status) < 0) {
		if (errno != EINTR)
			die("waitpid:");
	}
	forward_to = 0;
	/* After a hangup, the end of the terminal's session leader sends the
	 * processes of its foreground group SIGHUP and SIGCONT (the kernel
	 * does it at the leader's exit): untraced the program was the leader,
	 * and what it started in its group (`sh -c 'cmd; sleep 60'`) ended
	 * with it.  Our group holds them; ovnirun's own copy is not passed on
	 * (forward_to is 0). */
	if (hung_up && getpgrp() == getpid()) {
		kill(0, SIGHUP);
		kill(0, SIGCONT);
	}
	/* Its last lines may go to a terminal the program gave another group
	 * (tcsetpgrp) before it ended: under `stty tostop` the write would
	 * stop ovnirun for good (SIGTTOU; the job left stopped, status 150).
	 * Ignored, the write goes through, as POSIX has it. */
	signal(SIGTTOU, SIG_IGN);
	long early = watch_stop();
	const char *dbg = getenv("OVNI_DEBUG");
	if (dbg && *dbg && strcmp(dbg, "0"))
		fprintf(stderr, "ovnirun: %ld thread streams written out of their spools while the program ran\n",
			early);
	const char *rank = launcher_rank();
	/* Processes that are still finishing their streams get a moment;
	 * those gone without finishing them are finished now. */
	if (!contact[0] && !rank) {
		const char *w = getenv("OVNI_END_WAIT_MS");
		settle_run(dir, child, status, w && *w ? atoi(w) : 3000, quiet);
		if (tmpdir)
			settle_staged(tmpdir, dir, child, status, quiet);
	} else if (!contact[0] && !tmpdir) {
		settle_rank(dir, run_loom, child, status, quiet);
	}
	watch_run_end();
	/* What the agent said, again, then one line that is true. */
	char said[96] = "";
	if (report[0] && !quiet) {
		struct stat st;
		if (stat(report, &st) == 0 && st.st_size > 0)
			fprintf(stderr, "ovnirun: the agent reported:\n");
	}
	long troubled = report_show(quiet);
	if (troubled)
		snprintf(said, sizeof(said), "; %ld process%s reported a problem (above)", troubled,
			 troubled > 1 ? "es" : "");
	if (contact[0]) {
		/* Under a launcher every rank runs ovnirun: none of them is the run. */
		if (contact_lost || rank)
			;
		else if (oa_col_session(contact, 1) != 0 && !quiet)
			fprintf(stderr, "ovnirun: could not tell the collector that the run ended%s\n", said);
		else if (!quiet)
			fprintf(stderr, "ovnirun: run ended: the collector has what the traced processes sent%s\n",
				said);
	} else if (!quiet && (!rank || !strcmp(rank, "0"))) {
		if (!settle_counts(&nthreads_seen, &nprocs_seen))
			nftw(dir, count_one, 16, FTW_PHYS);
		if (nthreads_seen && rank)
			fprintf(stderr, "ovnirun: trace in %s (rank 0 done; other ranks may still be writing)%s\n", dir,
				said);
		else if (nthreads_seen)
			fprintf(stderr, "ovnirun: trace in %s (%ld threads in %ld processes)%s\n", dir, nthreads_seen,
				nprocs_seen, said);
		else if (!watch_trace_removed() && dir_moved(absdir, dir_known ? &dir_was : NULL))
			fprintf(stderr,
				"ovnirun: the trace directory %s was moved or removed while the program ran: what "
				"was left to write is not there; where it is now, `ovni-auto repair` finishes it%s\n",
				dir, said);
		else
			fprintf(stderr, "ovnirun: no trace was written in %s%s\n", dir, said);
	}
	if (view && !contact[0] && !rank) {
		if (settle_view(dir) == 0) {
			if (!quiet)
				fprintf(stderr, "ovnirun: timeline in %s/view.html (open it in a browser)\n", dir);
		} else {
			fprintf(stderr, "ovnirun: could not write %s/view.html (ovni-auto view %s says why)\n", dir,
				dir);
		}
	}
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct rlimit none = { 0, 0 };
		setrlimit(RLIMIT_CORE, &none);
		signal(sig, SIG_DFL);
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(sig);
		return 128 + sig;
	}
	return WEXITSTATUS(status);
}
