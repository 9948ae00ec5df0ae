/* ovnirun_settle.c: see ovnirun_settle.h. */
#include "ovnirun_settle.h"
#include "ovnirun_watch.h"
#include "../../writer/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <stdint.h>
#include <unistd.h>

#define MAX_PROCS 256 /* processes with unfinished streams handled per pass */

struct proc {
	char dir[PATH_MAX]; /* loom.L/proc.P, relative to the trace */
	char loom[256];     /* L, for a PID namespace's loom (its pids are the namespace's); else "" */
	pid_t pid;
	pid_t here; /* its pid in our PID namespace (0: not running, or not known) */
	int alive;
	int open;       /* has an unfinished stream */
	uint64_t first; /* clock of its first event */
};

/* Is the stream unfinished?  *ranked: its stream.json has an MPI rank;
 * *seen: it has one. */
static int unfinished(const char *json_path, int *ranked, int *seen)
{
	*ranked = *seen = 0;
	int fd = open(json_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* no stream.json: not a stream (yet) */
	*seen = 1;
	static char buf[1 << 16];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	*ranked = strstr(buf, "\"rank\":") != NULL;
	return !strstr(buf, "\"finished\": 1");
}

/* What the last scan saw of ranks (mixed_ranks' question, answered from
 * the stream.json files it read anyway: one read of each, not two). */
static int settle_repaired;           /* settle_run finished a process or failed to */
static int scan_complete;             /* every stream.json of every process was read */
static int scan_mixed;                /* a loom with processes with and without a rank */
static long scan_threads, scan_procs; /* streams and processes with one, then */

static uint64_t ns_of(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Is process pid the one that wrote the streams of its directory, still
 * running?  It is when /proc/PID is a live process (not a zombie) that
 * started no later than the first event of those streams (a pid taken
 * again by a new process started after the old one ended, so after its
 * events).  /proc/PID/stat is readable whatever the process's user, and
 * does not change when a daemon rewrites its title (as nginx and
 * PostgreSQL do over their environment). */
char *proc_stat(pid_t pid, char *buf, size_t size)
{
	/* The path without snprintf: ovnirun's signal handler calls this. */
	char path[32] = "/proc/", digits[16];
	int nd = 0, k = 6;
	for (pid_t v = pid; v > 0 && nd < 15; v /= 10)
		digits[nd++] = (char)('0' + v % 10);
	if (!nd)
		return NULL;
	while (nd > 0)
		path[k++] = digits[--nd];
	memcpy(path + k, "/stat", 6);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p + 2 : NULL;
}

/* Field 22 of a stat line from field 3 on (proc_stat): the start time in
 * clock ticks since boot; 0 when the line has none. */
static unsigned long long start_ticks(const char *p)
{
	for (int field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return p ? strtoull(p, NULL, 10) : 0;
}

static int alive(pid_t pid, uint64_t first_event)
{
	char buf[1024], *p = proc_stat(pid, buf, sizeof(buf));
	if (!p)
		return 0;
	char state = p[0];
	if (state == 'Z' || state == 'X' || state == 'x')
		return 0;
	unsigned long long ticks = start_ticks(p);
	if (!ticks)
		return 1;
	long hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0 || !first_event)
		return 1;
	/* Boot time to the trace's clock (CLOCK_MONOTONIC, which stops
	 * during a suspend). */
	uint64_t start = ticks * (1000000000ull / (uint64_t)hz);
	uint64_t skew = ns_of(CLOCK_BOOTTIME) - ns_of(CLOCK_MONOTONIC);
	start = start > skew ? start - skew : 0;
	return start <= first_event + 2000000000ull / (uint64_t)hz; /* two ticks */
}

/* Is the process of a slot of the run's spool still running?  Its stream
 * begins with its header (8 bytes) and an event whose clock is its first. */
static int slot_alive(int pid, const uint8_t *obs)
{
	uint64_t first = 0;
	memcpy(&first, obs + 12, 8);
	const char *skew = getenv("OVNI_TEST_CLOCK_SKEW");
	if (skew && first)
		first -= (uint64_t)strtoll(skew, NULL, 10);
	return alive((pid_t)pid, first);
}

/* Processes of the run that may have no directory in the trace yet (forked
 * a moment before their parent ended): every process whose environment
 * names the run's root (OVNI_ROOT_PID, inherited, and passed on by the
 * agent even to children given a new environment).  Their pids, at most
 * max; the count. */
/* /proc/PID/environ into env (size bytes): its length, <= 0 for none. */
static ssize_t read_environ(pid_t pid, char *env, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t len = read(fd, env, size - 1);
	close(fd);
	return len;
}

/* A live process of user space (not a kernel thread, not a zombie) that
 * started after `since` (clock ticks since boot)?  Its environment reads
 * as empty only for a moment: while it execs. */
static int user_process(pid_t pid, unsigned long long since)
{
	char buf[1024], *p = proc_stat(pid, buf, sizeof(buf));
	if (!p || p[0] == 'Z' || p[0] == 'X' || p[0] == 'x' || start_ticks(p) < since)
		return 0;
	/* Field 9, the flags; p is field 3. */
	for (int field = 3; field < 9 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return p && !(strtoul(p, NULL, 10) & 0x00200000); /* PF_KTHREAD */
}

/* When ovnirun started (clock ticks since boot): a process of the run
 * starts after it. */
static unsigned long long run_since(void)
{
	static unsigned long long since;
	char self[1024];
	if (!since)
		since = start_ticks(proc_stat(getpid(), self, sizeof(self)));
	return since;
}

/* Does the environment env (len bytes of NAME=VALUE strings) name root as
 * its run's (OVNI_ROOT_PID)? */
static int names_root(const char *env, ssize_t len, pid_t root)
{
	char want[48];
	snprintf(want, sizeof(want), "OVNI_ROOT_PID=%d", (int)root);
	size_t wl = strlen(want);
	for (ssize_t i = 0; i < len;) {
		const char *v = env + i;
		size_t l = strnlen(v, (size_t)(len - i));
		if (l == wl && !memcmp(v, want, wl))
			return 1;
		i += (ssize_t)l + 1;
	}
	return 0;
}

static int members(pid_t root, pid_t *out, int max)
{
	int n = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	static char env[1 << 16];
	/* A process of the run started after ovnirun; those that showed no
	 * environment after a wait. */
	unsigned long long since = run_since();
	static pid_t noenv[64];
	static int nnoenv;
	pid_t self = getpid();
	while (d && n < max && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid == root || pid == self)
			continue;
		ssize_t len = read_environ(pid, env, sizeof(env));
		/* A process in the middle of an exec (a pending fork child of the
		 * run becoming its program) shows no environment: asked again
		 * (t405's `sleep 5 &` went unnoticed about one run in six), for
		 * up to 0.25 s (a loaded machine's exec may take more than the
		 * 50 ms this waited before: a process of the run missed, its
		 * stream left in the run's spool), but only for a process
		 * started after ovnirun, and once (one that has no environment
		 * at all, `env -i` from outside the run, costs one wait). */
		int known = 0;
		for (int k = 0; k < nnoenv && !known; k++)
			known = noenv[k] == pid;
		for (int tries = 0; len == 0 && !known && tries < 250 && user_process(pid, since); tries++) {
			struct timespec ts = { 0, 1000 * 1000 };
			nanosleep(&ts, NULL);
			len = read_environ(pid, env, sizeof(env));
		}
		if (len == 0 && !known && nnoenv < (int)(sizeof(noenv) / sizeof(noenv[0])))
			noenv[nnoenv++] = pid;
		/* And started after ovnirun: a root pid is given again once the
		 * run's first process has ended (a program past pid_max forks),
		 * and an older run's processes with that root (another
		 * session's) were listed as the run's, and waited for. */
		if (names_root(env, len, root) && user_process(pid, since))
			out[n++] = pid;
	}
	if (d)
		closedir(d);
	return n;
}

/* Is pid, alive, a process of the run (members' test, for one pid)?  Its
 * environment says so, and it started after ovnirun.  One whose
 * environment cannot be told (not readable: not dumpable, another user;
 * empty: in the middle of an exec; past what is read: a large one; no
 * NAME=VALUE first: a server's process title written over it, as
 * PostgreSQL's and nginx's setproctitle do) is taken as the run's if it is
 * alive, as before: finishing the streams of a process that still runs
 * is the worse mistake. */
static int is_member(pid_t pid, pid_t root)
{
	static char env[1 << 16];
	ssize_t len = read_environ(pid, env, sizeof(env));
	if (len <= 0 || (size_t)len >= sizeof(env) - 1 || !memchr(env, '=', strnlen(env, (size_t)len)))
		return alive(pid, 0);
	return names_root(env, len, root) && user_process(pid, run_since());
}

static int zombie(pid_t pid)
{
	char buf[1024], *p = proc_stat(pid, buf, sizeof(buf));
	return !p || p[0] == 'Z' || p[0] == 'X';
}

/* The clock of the first event in the streams of process directory pd. */
static uint64_t first_event_of(const char *pd)
{
	uint64_t first = 0;
	DIR *d = opendir(pd);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "thread.", 7))
			continue;
		char obs[PATH_MAX + 64];
		snprintf(obs, sizeof(obs), "%s/%s/stream.obs", pd, e->d_name);
		int fd = open(obs, O_RDONLY | O_CLOEXEC);
		uint8_t ev[20];
		if (fd >= 0 && pread(fd, ev, sizeof(ev), 0) == (ssize_t)sizeof(ev)) {
			uint64_t c;
			memcpy(&c, ev + 12, 8); /* header (8), flags, MCV, clock */
			if (c && (!first || c < first))
				first = c;
		}
		if (fd >= 0)
			close(fd);
	}
	if (d)
		closedir(d);
	return first;
}

/* The processes of the PID namespace with inode ino that run now: each
 * with its pid there (its loom's, the last of the NSpid line of
 * /proc/PID/status) and here.  Returns how many (at most max, the rest
 * left out), or -1 when a process of the namespace has no NSpid line (a
 * kernel before 4.1): then only the namespace as a whole can be judged,
 * alive while one of its processes is (when its init dies, the kernel
 * kills the others). */
struct nsproc {
	pid_t inner, outer;
};

static int pidns_procs(unsigned long long ino, struct nsproc *out, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0, whole = 0;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		char path[64];
		struct stat st;
		pid_t pid = (pid_t)atoi(e->d_name);
		snprintf(path, sizeof(path), "/proc/%s/ns/pid", e->d_name);
		if (stat(path, &st) != 0 || (unsigned long long)st.st_ino != ino || zombie(pid))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
		FILE *f = fopen(path, "re");
		char line[256];
		pid_t inner = 0;
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "NSpid:", 6)) {
				char *last = strrchr(line, '\t');
				inner = last ? (pid_t)atoi(last + 1) : 0;
				break;
			}
		if (f)
			fclose(f);
		if (!inner)
			whole = 1;
		else if (n < max)
			out[n++] = (struct nsproc){ inner, pid };
	}
	if (d)
		closedir(d);
	return whole ? -1 : n;
}

static char own_loom[300];

void settle_own_loom(const char *loom)
{
	snprintf(own_loom, sizeof(own_loom), "%s", loom);
}

/* Is the loom directory name ("loom.L") one of this run's to look at? */
static int ours(const char *name)
{
	const char *l = name + 5;
	if (!own_loom[0])
		return !strstr(l, ".runns");
	size_t n = strlen(own_loom);
	return !strncmp(l, own_loom, n) && (!l[n] || !strncmp(l + n, ".pidns", 6));
}

/* The processes of the trace that need a look: an unfinished stream, or
 * still running (a process between an exec and its new image's start has
 * its streams finished for a moment); at most max. */
static int scan(const char *trace, struct proc *out, int max, pid_t root)
{
	/* (Its paths, and settle_staged's, static: ovnirun, one thread here,
	 * runs under a small `ulimit -s` as the program does.) */
	int n = 0;
	DIR *t = opendir(trace);
	struct dirent *l, *p, *th;
	scan_complete = t != NULL;
	scan_mixed = 0;
	scan_threads = scan_procs = 0;
	while (t && (l = readdir(t)) && n < max) {
		if (strncmp(l->d_name, "loom.", 5) || !ours(l->d_name))
			continue;
		/* A nested PID namespace's pids are not ours to look up: its
		 * processes are alive while the namespace is. */
		const char *ns = strstr(l->d_name, ".pidns");
		static struct nsproc nsp[4096];
		int nns = ns ? pidns_procs(strtoull(ns + 6, NULL, 10), nsp, 4096) : 0;
		static char ld[PATH_MAX];
		snprintf(ld, sizeof(ld), "%s/%s", trace, l->d_name);
		DIR *ldir = opendir(ld);
		int with = 0, without = 0;
		while (ldir && (p = readdir(ldir)) && n < max) {
			if (strncmp(p->d_name, "proc.", 5))
				continue;
			static char pd[PATH_MAX];
			snprintf(pd, sizeof(pd), "%s/%s", ld, p->d_name);
			pid_t pid = (pid_t)atoi(p->d_name + 5);
			/* In a nested PID namespace: its pid here, when it runs
			 * (one that ended while the namespace lives on is not
			 * waited for: setns, nsenter into a lasting one). */
			pid_t here = 0;
			for (int k = 0; ns && k < nns && !here; k++)
				if (nsp[k].inner == pid)
					here = nsp[k].outer;
			/* Is there a process of that pid (kill 0, not a look in
			 * /proc: a failed lookup there was ~6 us a process)? */
			int exists =
				ns ? (nns < 0 ? 1 : here != 0) : pid != root && (kill(pid, 0) == 0 || errno == EPERM);
			int open_streams = 0, ranked = 0;
			long nthreads = 0;
			/* One the run's spool says ended with every stream finished:
			 * its main stream read (a pid given again since is unfinished
			 * there), its threads only counted (~3 us each read). */
			int whole = 0;
			if (!ns && watch_run_ended(l->d_name, pid)) {
				static char js[PATH_MAX + 64];
				int seen;
				snprintf(js, sizeof(js), "%s/thread.%d/stream.json", pd, (int)pid);
				whole = !unfinished(js, &ranked, &seen) && seen;
				ranked &= whole;
			}
			/* Such a process's threads, the directories in its own
			 * (its spool files are gone): its link count, where the
			 * file system keeps it (2 and one a subdirectory; btrfs
			 * says 1), not a listing (5 system calls of the 9 a
			 * process cost: 400 processes, 8.5 ms after the program). */
			struct stat pst;
			if (whole && stat(pd, &pst) == 0 && pst.st_nlink >= 3)
				nthreads = (long)pst.st_nlink - 2;
			DIR *pdir = nthreads ? NULL : opendir(pd);
			while (pdir && (th = readdir(pdir)) && !open_streams) {
				/* Threads left in a spool file: a process whose main
				 * thread left (pthread_exit) before it died without
				 * its end (SIGKILL).  Its main stream is finished, the
				 * spool's are not: for repair (writes them out). */
				if (oa_spool_name(th->d_name)) {
					open_streams = 1;
					break;
				}
				if (strncmp(th->d_name, "thread.", 7))
					continue;
				if (whole) {
					nthreads++;
					continue;
				}
				static char js[PATH_MAX + 64];
				int r, seen;
				snprintf(js, sizeof(js), "%s/%s/stream.json", pd, th->d_name);
				open_streams = unfinished(js, &r, &seen);
				ranked |= r;
				nthreads += seen;
			}
			scan_threads += nthreads;
			scan_procs += nthreads > 0;
			if (pdir)
				closedir(pdir);
			if (open_streams)
				scan_complete = 0; /* not all read; and to be finished */
			with += ranked;
			without += !ranked;
			if (!open_streams && !exists)
				continue;
			snprintf(out[n].dir, sizeof(out[n].dir), "%s/%s", l->d_name, p->d_name);
			out[n].pid = pid;
			out[n].here = ns ? here : pid;
			out[n].first = first_event_of(pd);
			/* The tests' skewed clocks (OVNI_TEST_CLOCK_SKEW) back to the real one. */
			const char *skew = getenv("OVNI_TEST_CLOCK_SKEW");
			if (skew && out[n].first)
				out[n].first -= (uint64_t)strtoll(skew, NULL, 10);
			/* No event to date the directory by (its streams not
			 * written yet): a process of that pid counts if it is
			 * one of the run's (a pid given again past pid_max to
			 * another session's process was listed and waited for). */
			out[n].alive = ns ? (nns < 0 ? 1 : exists && alive(here, out[n].first))
					  : exists && (out[n].first ? alive(pid, out[n].first) : is_member(pid, root));
			out[n].open = open_streams;
			snprintf(out[n].loom, sizeof(out[n].loom), "%s", ns ? l->d_name + 5 : "");
			if (out[n].alive || open_streams)
				n++;
		}
		if (ldir)
			closedir(ldir);
		if (n >= max)
			scan_complete = 0;
		scan_mixed |= with && without;
	}
	if (t)
		closedir(t);
	return n;
}

int self_dir(char *out, size_t size)
{
	static char dir[PATH_MAX];
	if (!dir[0]) {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		const char *fn = (const char *)getauxval(AT_EXECFN);
		if (n > 0)
			self[n] = '\0';
		else if (!fn || !strchr(fn, '/') || !realpath(fn, self))
			return -1;
		char *slash = strrchr(self, '/');
		if (!slash)
			return -1;
		*slash = '\0';
		snprintf(dir, sizeof(dir), "%s", self[0] ? self : "/");
	}
	snprintf(out, size, "%s", dir);
	return 0;
}

/* ovni-auto next to ovnirun. */
static void sibling(char *out, size_t size)
{
	char self[PATH_MAX];
	if (self_dir(self, sizeof(self)) != 0)
		snprintf(out, size, "ovni-auto");
	else
		snprintf(out, size, "%s/ovni-auto", self);
}

/* `ovni-auto repair --pid PID --how HOW DIR` (or, pid 0, `ovni-auto repair
 * --looms DIR`, its lines on our stderr unless quiet), its output kept out
 * of the program's (failures are said by us). */
static int repair(const char *trace, const char *loom, pid_t pid, const char *how, int show)
{
	char exe[PATH_MAX + 16], pids[16];
	sibling(exe, sizeof(exe));
	snprintf(pids, sizeof(pids), "%d", (int)pid);
	pid_t c = fork();
	if (c < 0)
		return -1;
	if (c == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (show)
			dup2(2, 1);
		else if (null >= 0)
			dup2(null, 1);
		if (null >= 0)
			dup2(null, 2);
		unsetenv("LD_PRELOAD");
		if (pid && loom && loom[0])
			execl(exe, exe, "repair", "--loom", loom, "--pid", pids, "--how", how, trace, (char *)NULL);
		else if (pid)
			execl(exe, exe, "repair", "--pid", pids, "--how", how, trace, (char *)NULL);
		else
			execl(exe, exe, "repair", "--looms", trace, (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(c, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int settle_counts(long *threads, long *procs)
{
	if (!scan_complete || settle_repaired)
		return 0;
	*threads = scan_threads;
	*procs = scan_procs;
	return 1;
}

int settle_view(const char *dir)
{
	char exe[PATH_MAX + 16];
	sibling(exe, sizeof(exe));
	pid_t c = fork();
	if (c < 0)
		return -1;
	if (c == 0) {
		unsetenv("LD_PRELOAD");
		execl(exe, exe, "view", "-q", dir, (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(c, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void how_root(int status, char *how, size_t size)
{
	if (WIFSIGNALED(status)) {
		const char *name = sigabbrev_np(WTERMSIG(status));
		if (name)
			snprintf(how, size, "killed by signal SIG%s; streams finished by ovnirun", name);
		else
			snprintf(how, size, "killed by signal %d; streams finished by ovnirun", WTERMSIG(status));
	} else {
		snprintf(how, size, "exit status %d; streams finished by ovnirun", WEXITSTATUS(status));
	}
}

/* Is there a loom where some processes have an MPI rank and others not
 * (the shell of a job script that ran mpirun)?  One stream.json each. */
static int mixed_ranks(const char *trace)
{
	int mixed = 0;
	DIR *t = opendir(trace);
	struct dirent *l, *p, *th;
	while (t && !mixed && (l = readdir(t))) {
		if (strncmp(l->d_name, "loom.", 5))
			continue;
		char ld[PATH_MAX];
		snprintf(ld, sizeof(ld), "%s/%s", trace, l->d_name);
		DIR *ldir = opendir(ld);
		int with = 0, without = 0;
		while (ldir && (p = readdir(ldir))) {
			if (strncmp(p->d_name, "proc.", 5))
				continue;
			char pd[PATH_MAX];
			snprintf(pd, sizeof(pd), "%s/%s", ld, p->d_name);
			DIR *pdir = opendir(pd);
			int ranked = 0;
			while (pdir && !ranked && (th = readdir(pdir))) {
				if (strncmp(th->d_name, "thread.", 7))
					continue;
				char js[PATH_MAX + 64];
				static char buf[1 << 16];
				snprintf(js, sizeof(js), "%s/%s/stream.json", pd, th->d_name);
				int fd = open(js, O_RDONLY | O_CLOEXEC);
				ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
				if (fd >= 0)
					close(fd);
				if (n > 0) {
					buf[n] = '\0';
					ranked = strstr(buf, "\"rank\":") != NULL;
				}
			}
			if (pdir)
				closedir(pdir);
			with += ranked;
			without += !ranked;
		}
		if (ldir)
			closedir(ldir);
		mixed = with && without;
	}
	if (t)
		closedir(t);
	return mixed;
}

/* Copy file from into to (made anew), then remove from: 0, or -1. */
static int move_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	static char buf[1 << 16];
	ssize_t n;
	int r = 0;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			r = -1;
			break;
		}
	if (n < 0)
		r = -1;
	close(in);
	if (close(out) != 0)
		r = -1;
	if (r == 0)
		unlink(from);
	else
		unlink(to);
	return r;
}

int settle_staged(const char *stage, const char *dir, pid_t root, int status, int quiet)
{
	int moved = 0;
	DIR *s = opendir(stage);
	struct dirent *l;
	while (s && (l = readdir(s))) {
		/* A PID namespace's loom: its pids are not ours to look up. */
		if (strncmp(l->d_name, "loom.", 5) || strstr(l->d_name, ".pidns") || !ours(l->d_name))
			continue;
		static char sl[PATH_MAX];
		snprintf(sl, sizeof(sl), "%s/%s", stage, l->d_name);
		DIR *ld = opendir(sl);
		struct dirent *p;
		while (ld && (p = readdir(ld))) {
			if (strncmp(p->d_name, "proc.", 5))
				continue;
			pid_t pid = (pid_t)atoi(p->d_name + 5);
			static char sp[PATH_MAX], tp[PATH_MAX];
			snprintf(sp, sizeof(sp), "%s/%s", sl, p->d_name);
			snprintf(tp, sizeof(tp), "%s/%s/%s", dir, l->d_name, p->d_name);
			/* Ours: its process made its directory in this trace at
			 * its start (the staging directory may serve other runs);
			 * and gone (one still running moves its streams itself). */
			struct stat st;
			if (stat(tp, &st) != 0 || alive(pid, first_event_of(sp)))
				continue;
			char how[160];
			if (pid == root)
				how_root(status, how, sizeof(how));
			else
				snprintf(how, sizeof(how), "ended without notice; streams finished by ovnirun");
			if (repair(stage, l->d_name + 5, pid, how, 0) != 0) {
				if (!quiet)
					fprintf(stderr,
						"ovnirun: %s ended without moving its streams out of the staging "
						"directory, "
						"and `ovni-auto repair` could not finish them\n",
						sp);
				continue;
			}
			DIR *pd = opendir(sp);
			struct dirent *t;
			int all = 1;
			while (pd && (t = readdir(pd))) {
				if (strncmp(t->d_name, "thread.", 7))
					continue;
				static char st_[PATH_MAX + 64], tt[PATH_MAX + 64], a[PATH_MAX + 96], b[PATH_MAX + 96];
				snprintf(st_, sizeof(st_), "%s/%s", sp, t->d_name);
				snprintf(tt, sizeof(tt), "%s/%s", tp, t->d_name);
				mkdir(tt, 0755);
				/* The events first, stream.json last: a stream is there
				 * when its stream.json is. */
				snprintf(a, sizeof(a), "%s/stream.obs", st_);
				snprintf(b, sizeof(b), "%s/stream.obs", tt);
				int r = move_file(a, b);
				snprintf(a, sizeof(a), "%s/stream.json", st_);
				snprintf(b, sizeof(b), "%s/stream.json", tt);
				if (r == 0)
					r = move_file(a, b);
				if (r == 0)
					rmdir(st_);
				all &= r == 0;
			}
			if (pd)
				closedir(pd);
			if (all && rmdir(sp) == 0)
				moved++;
			else if (!quiet)
				fprintf(stderr, "ovnirun: could not move the streams of %s into %s\n", sp, tp);
		}
		if (ld)
			closedir(ld);
		rmdir(sl); /* only when empty */
	}
	if (s)
		closedir(s);
	if (moved)
		settle_repaired = 1; /* the last scan's counts are old */
	if (moved && !quiet)
		fprintf(stderr, "ovnirun: %d process%s had left %s streams in %s: finished and moved into the trace\n",
			moved, moved > 1 ? "es" : "", moved > 1 ? "their" : "its", stage);
	return moved;
}

int settle_rank(const char *dir, const char *loom, pid_t root, int status, int quiet)
{
	char pd[PATH_MAX];
	snprintf(pd, sizeof(pd), "%s/loom.%s/proc.%d", dir, loom, (int)root);
	DIR *d = opendir(pd);
	struct dirent *e;
	int open_streams = 0;
	while (d && !open_streams && (e = readdir(d))) {
		if (oa_spool_name(e->d_name)) {
			open_streams = 1; /* threads left in its spool file */
			break;
		}
		if (strncmp(e->d_name, "thread.", 7))
			continue;
		char js[PATH_MAX + 64];
		int ranked, seen;
		snprintf(js, sizeof(js), "%s/%s/stream.json", pd, e->d_name);
		open_streams = unfinished(js, &ranked, &seen);
	}
	if (d)
		closedir(d);
	if (!open_streams)
		return 0;
	char how[160];
	how_root(status, how, sizeof(how));
	if (repair(dir, loom, root, how, 0) == 0)
		return 1;
	if (!quiet)
		fprintf(stderr,
			"ovnirun: loom.%s/proc.%d ended without finishing its streams, and `ovni-auto repair` could "
			"not "
			"finish them\n",
			loom, (int)root);
	return -1;
}

int settle_run(const char *dir, pid_t root, int status, int wait_ms, int quiet)
{
	static struct proc procs[MAX_PROCS];
	static pid_t late[MAX_PROCS];
	uint64_t t0 = now_ms();
	int finished_by_us = 0, failed = 0, running = 0;
	/* Processes of the run that had no directory yet when the program
	 * ended (looked for once: the environment of a long-lived daemon may
	 * be rewritten, its directory says it then). */
	int nlate = members(root, late, MAX_PROCS);
	for (;;) {
		/* Streams still in the run's spool: those that ended, and those
		 * of processes gone in it, written out first (then finished as
		 * any, below). */
		watch_run_settle(slot_alive);
		int n = scan(dir, procs, MAX_PROCS, root);
		running = 0;
		for (int i = 0; i < n; i++)
			running += procs[i].alive;
		for (int k = 0; k < nlate; k++) {
			int listed = 0;
			for (int i = 0; i < n && !listed; i++)
				listed = procs[i].here == late[k];
			running += !listed && !zombie(late[k]);
		}
		/* Gone without finishing: finished now, saying how it ended.
		 * A process that ended between the look at the run's spool
		 * and the scan has its main stream there still (a rank
		 * SIGKILLed by its launcher: its threads' spool was left for
		 * want of its stream.json): out first. */
		int to_finish = 0;
		for (int i = 0; i < n; i++)
			to_finish += !procs[i].alive && procs[i].open;
		if (to_finish)
			watch_run_settle(slot_alive);
		for (int i = 0; i < n; i++) {
			if (procs[i].alive || !procs[i].open)
				continue;
			char how[160];
			if (procs[i].loom[0])
				snprintf(how, sizeof(how),
					 "ended without notice (its PID namespace is gone); streams finished by "
					 "ovnirun");
			else if (procs[i].pid == root)
				how_root(status, how, sizeof(how));
			else
				snprintf(how, sizeof(how), "ended without notice; streams finished by ovnirun");
			if (repair(dir, procs[i].loom, procs[i].pid, how, 0) == 0) {
				finished_by_us++;
				if (!quiet)
					fprintf(stderr, "ovnirun: %s had not finished its streams: %s\n", procs[i].dir,
						how);
			} else {
				failed++;
				if (!quiet)
					fprintf(stderr,
						"ovnirun: %s ended without finishing its streams, and `ovni-auto "
						"repair` could not finish them\n",
						procs[i].dir);
			}
		}
		if (!running && !failed && now_ms() - t0 < (uint64_t)wait_ms) {
			/* A daemon forks twice: its first child may fork the
			 * second after the first look, and end, while the
			 * second, a fork child that has written nothing yet,
			 * has no directory.  One more look before the end. */
			static pid_t more[MAX_PROCS];
			int m = members(root, more, MAX_PROCS);
			for (int j = 0; j < m && nlate < MAX_PROCS; j++) {
				int known = 0;
				for (int k = 0; k < nlate && !known; k++)
					known = late[k] == more[j];
				if (!known && !zombie(more[j])) {
					late[nlate++] = more[j];
					running++;
				}
			}
		}
		if (!running || failed || now_ms() - t0 >= (uint64_t)wait_ms)
			break;
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		watch_reap_orphans(0);
	}
	/* A job script: the shells around mpirun have no rank.  (The last
	 * scan read every stream.json when no process had to be finished
	 * after it.) */
	settle_repaired = finished_by_us || failed;
	int mixed = scan_complete && !settle_repaired ? scan_mixed : mixed_ranks(dir);
	if (mixed)
		settle_repaired = 1; /* the looms change */
	if (mixed && repair(dir, NULL, 0, NULL, !quiet) != 0 && !quiet)
		fprintf(stderr,
			"ovnirun: `ovni-auto repair --looms` could not move the processes without an MPI "
			"rank out of the looms of the ranks\n");
	/* Said even with -q: the trace is not whole until they end. */
	if (running) {
		int n = scan(dir, procs, MAX_PROCS, root), shown = 0;
		fprintf(stderr,
			"ovnirun: %d process%s of the run still running (their streams finish when they end):\n",
			running, running > 1 ? "es" : "");
		for (int k = 0; k < nlate && shown < 6; k++) {
			int listed = 0;
			for (int i = 0; i < n && !listed; i++)
				listed = procs[i].here == late[k];
			if (!listed && !zombie(late[k]))
				procs[n < MAX_PROCS ? n++ : n - 1] =
					(struct proc){ .pid = late[k], .here = late[k], .alive = 1 };
		}
		for (int i = 0; i < n && shown < 6; i++) {
			if (procs[i].alive && procs[i].loom[0]) {
				fprintf(stderr, "ovnirun:   %s (in a PID namespace still running)\n", procs[i].dir);
				shown++;
			} else if (procs[i].alive) {
				char comm[64] = "?", path[64];
				snprintf(path, sizeof(path), "/proc/%d/comm", (int)procs[i].pid);
				FILE *f = fopen(path, "r");
				if (f && fgets(comm, sizeof(comm), f))
					comm[strcspn(comm, "\n")] = '\0';
				if (f)
					fclose(f);
				fprintf(stderr, "ovnirun:   pid %d (%s)\n", (int)procs[i].pid, comm);
				shown++;
			}
		}
	}
	return running;
}
