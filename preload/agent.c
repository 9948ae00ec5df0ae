/* agent.c: process and thread lifecycle of the agent (see agent.h). */
#include "../common/num.h"
#include "../common/str.h"
#include "agent.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../writer/ev_ovni.h"
#include "../writer/files.h"
#include "../writer/finish.h"
#include "../common/fdroom.h"
#include "../common/log.h"
#include "../common/sys.h"
#include "../writer/ovni_fmt.h"
#include "../writer/registry.h"
#include "../writer/sigblock.h"
#include "../writer/spool.h"
#include "config.h"
#include "backtrace.h"
#include "callsite.h"
#include "sample.h"
#include "childenv.h"
#include "collect.h"
#include "cpus.h"
#include "owner.h"
#include "procevents.h"
#include "images.h"
#include "handover.h"
#include "version.h"
#include "../common/arena.h"
#include "../common/slab.h"
#include "../common/env.h"

OA_TLS struct oa_thread *oa_self;
OA_TLS int oa_guard;
struct oa_meta oa_meta OA_LARGE_BSS __attribute__((aligned(4096))); /* header and types: one page */

/* Tracing this process (agent_traced): every hook reads it, a disabled
 * agent's too, so it is kept in early data (compiler.h). */
_Atomic int oa_traced_flag OA_FORK_DATA;
static _Atomic uint64_t next_tag = 1;
static pthread_key_t thread_key; /* its destructor ends the thread's stream */
/* What a traced process allocates at its start, on one page: the start
 * arena (common/arena.h), the registry slot of its first thread and that
 * stream's path buffers (a short path stays on this page). */
static struct {
	char arena[2048];
	struct oa_thread first;
	char first_paths[2 * OA_STREAM_PATH];
} start_block OA_LARGE_BSS __attribute__((aligned(4096)));
/* <tracedir>/loom.<loom>/proc.<pid>: in the start arena (its page), or in
 * procdir_buf when the arena has no room. */
#define PROCDIR_MAX 4600
static char procdir_buf[PROCDIR_MAX] OA_LARGE_BSS;
static char *procdir = procdir_buf;
static char stagedir[4600] OA_LARGE_BSS; /* same under OVNI_TMPDIR, when staged */
static int staged;                       /* stagedir holds one (read this, not stagedir[0]: its page) */
/* The run's spool (writer/spool.h), mapped (a fork child keeps its
 * parent's), and whether this image's first stream starts there. */
static uint8_t *run_map;
#define RUN_NONE ((uint8_t *)1) /* run_map: looked for, none (once per image) */
static int run_first;
static _Atomic int run_threads_of; /* the pid whose note in it (oa_run_mark_ended) was taken back */
static const char *run_rel;        /* procdir, relative to the trace */
static int fresh_procdir;          /* procdir was made by this image: no earlier image's streams */
/* The threads' spool (writer/spool.h): made when the first thread after
 * the process's own starts; unpacked when the process ends. */
static struct oa_spool spool OA_LARGE_BSS;
/* Its state: 0 not made for this process (a process with one thread never
 * touches the spool's page), 1 being set up by a thread, 2 ready. */
static _Atomic int spool_state OA_EARLY_DATA;
static _Atomic int said_open_error;
static _Atomic int end_failed; /* a stream of this image could not be finished */
static _Atomic int said_fd_limit;

#define THREAD_OF(stream) oa_thread_of(stream)

static int start_process(int creator_tid);
/* The pid that makes this process's mark values unique in the trace: its
 * pid, and in a nested PID namespace (where pids repeat) its namespace too. */
static long long value_pid OA_EARLY_DATA;
int oa_exec_generation;

long long oa_value_pid(void)
{
	return value_pid ? value_pid : oa_meta.pid;
}

int oa_off OA_EARLY_DATA;
_Atomic int oa_sealed OA_EARLY_DATA;
int oa_pid OA_FORK_DATA;

/* A fork child that has not started its stream yet (see "A fork child
 * starts late" below): every hook reads this with oa_traced_flag. */
_Atomic int oa_pending_flag OA_FORK_DATA;

OA_EARLY_TEXT int agent_active(void)
{
	if (atomic_load_explicit(&oa_traced_flag, memory_order_relaxed))
		return !oa_registry_ending();
	if (__builtin_expect(atomic_load_explicit(&oa_pending_flag, memory_order_relaxed), 0))
		return agent_start_pending(0);
	return 0;
}

OA_EARLY_TEXT int agent_engaged(void)
{
	return atomic_load_explicit(&oa_traced_flag, memory_order_relaxed)
		       ? !oa_registry_ending()
		       : atomic_load_explicit(&oa_pending_flag, memory_order_relaxed);
}

/* ---- A process that confines itself (hooks/seccomp.c) ----
 * Only flags change here, and a wait: no system call of the agent's own
 * work, so the caller can undo it. */
/* A thread's start and end, and a window's advance, are work with system
 * calls (an alternate stack, a window, a file) a seal waits for
 * (writer/stream.h: oa_sys_work): a thread that began before a seccomp
 * filter went in with SECCOMP_FILTER_FLAG_TSYNC made them after it, under
 * it, and the process died of SIGSYS (2-5 runs in 40). */
static struct oa_thread *thread_begin(int creator_tid, uint64_t tag, uint64_t min_clock);
static void thread_end(struct oa_thread *t);

void agent_seal(struct agent_seal *was)
{
	was->traced = atomic_exchange(&oa_traced_flag, 0);
	was->pending = atomic_exchange(&oa_pending_flag, 0);
	atomic_store(&oa_stream_frozen, 1);
	atomic_store(&oa_sealed, 1);
	/* Then what other threads began before (bounded: 1 s; the caller
	 * is no such thread). */
	for (int i = 0; i < 10000 && atomic_load(&oa_sys_work) > 0; i++) {
		struct timespec ts = { 0, 100 * 1000 };
		oa_sys3(SYS_nanosleep, (long)&ts, 0, 0); /* not the program's (sync_sleep.c) */
	}
}

void agent_unseal(const struct agent_seal *was)
{
	atomic_store(&oa_sealed, 0);
	atomic_store(&oa_stream_frozen, 0);
	atomic_store(&oa_pending_flag, was->pending);
	atomic_store(&oa_traced_flag, was->traced);
}

OA_START_TEXT uint64_t agent_next_tag(void)
{
	return atomic_fetch_add(&next_tag, 1);
}

void agent_require(unsigned model)
{
	/* Every stream.json is written from the live tables: nothing to redo. */
	atomic_fetch_or(&oa_meta.require, model);
}

OA_START_TEXT static void thread_key_destructor(void *arg)
{
	(void)arg;
	agent_thread_end();
}

/* Where the calling thread is shown: a claimed physical CPU, or -1. */
static int place_self(int tid)
{
	/* The system call itself (common/sys.h): the wrapper's page of libc
	 * is one a short program may never touch.  The kernel writes its
	 * mask's bytes only: the rest stays zero, as the wrapper leaves it. */
	cpu_set_t set;
	memset(&set, 0, sizeof(set));
	if (oa_sys3(SYS_sched_getaffinity, 0, sizeof(set), (long)&set) < 0)
		return -1;
	return oa_cpus_place(&set, sizeof(set), tid);
}

/* PID namespaces: two containers both have a pid 1.  A process in another
 * PID namespace than the run's first process (OVNI_PIDNS, its namespace's
 * inode, set by the first traced process) goes to a loom of its own,
 * LOOM.pidns<inode> (the same host: the part before the first '.'), where
 * its pid is unique, and its mark values carry the namespace. */
static long long pidns_bits OA_EARLY_DATA;
static char base_loom[sizeof(oa_cfg.loom)]; /* the loom before any namespace suffix */
static unsigned long ns_ino OA_EARLY_DATA;  /* this process's PID namespace (inode), 0: not known */
static int ns_pid OA_EARLY_DATA;            /* the pid it is known for */

/* The inode of this process's PID namespace, 0 if unknown.  A process's
 * namespace never changes, and a child's is its parent's or one below it,
 * where the parent is not visible (getppid() is 0).  So a fork child whose
 * getppid() is the pid of the process we knew is in the same namespace, and
 * a new program is in the namespace its exec'ing (or spawning) image wrote
 * in OVNI_NSPID when it is still that process (or its child): the same
 * pid, parent, session and process group.  Neither reads
 * /proc/self/ns/pid, which costs a fresh process 15-30 us (the kernel makes
 * its /proc entries).  A value that is not this process's own can reach it
 * only through programs without the agent (which rewrites it at every exec
 * and spawn); the four numbers must then all match by chance in another
 * namespace. */
static int nspid_ours(const char *v, int pid)
{
	unsigned long long x[5] = { 0 };
	char *end;
	char form = v[0];
	if ((form != 's' && form != 'p') || v[1] != ':')
		return 0;
	v += 2;
	int n = form == 's' ? 4 : 3;
	for (int i = 0; i < n; i++) {
		x[i] = oa_strtoull(v, &end);
		if (end == v || *end != (i == n - 1 ? '\0' : ':'))
			return 0;
		v = end + 1;
	}
	if (form == 's') /* pid, parent, session, group: ours */
		return x[0] == (unsigned long long)pid && x[1] && x[1] == (unsigned long long)getppid() &&
		       x[2] == (unsigned long long)getsid(0) && x[3] == (unsigned long long)getpgid(0);
	/* parent, its session and group: our parent's */
	int pp = getppid();
	return x[0] && x[0] == (unsigned long long)pp && x[1] == (unsigned long long)getsid(pp) &&
	       x[2] == (unsigned long long)getpgid(pp);
}

static const char *ns_how OA_EARLY_DATA; /* how own_pidns() knew it (OVNI_DEBUG) */

static unsigned long own_pidns(void)
{
	int pid = getpid();
	if (ns_ino && ns_pid != pid) {
		if (getppid() == ns_pid) {
			ns_pid = pid;
			ns_how = "its parent's";
			return ns_ino;
		}
		ns_ino = 0;
	}
	if (ns_ino)
		return ns_ino;
	const char *v = oa_env(OA_ENV_NSPID);
	char *end;
	unsigned long long ino = v ? oa_strtoull(v, &end) : 0;
	if (ino && *end == ':' && nspid_ours(end + 1, pid)) {
		ns_ino = (unsigned long)ino;
		ns_pid = pid;
		ns_how = "told by OVNI_NSPID";
		return ns_ino;
	}
	struct stat st;
	if (stat("/proc/self/ns/pid", &st) != 0)
		return 0; /* no /proc: nothing to tell */
	ns_ino = (unsigned long)st.st_ino;
	ns_pid = pid;
	ns_how = "read from /proc";
	return ns_ino;
}

OA_EARLY_TEXT int agent_nspid_env(char *buf, size_t len, int spawn)
{
	/* A vfork child runs this in its parent's memory: it writes nothing. */
	unsigned long ino = ns_ino;
	int known = ns_pid, pid = getpid(), ppid = getppid();
	if (!ino || ppid <= 0 || (pid != known && ppid != known))
		return 0;
	/* The formats in .data: a fork child of a shell runs this at every
	 * exec, and our .rodata would be a page it faults in for them. */
	static char spawn_fmt[] OA_EARLY_DATA = "OVNI_NSPID=%lu:p:%d:%d:%d",
				fork_fmt[] OA_EARLY_DATA = "OVNI_NSPID=%lu:s:%d:%d:%d:%d";
	if (spawn)
		return oa_snprintf(buf, len, spawn_fmt, ino, pid, (int)getsid(0), (int)getpgid(0)) > 0;
	return oa_snprintf(buf, len, fork_fmt, ino, pid, ppid, (int)getsid(0), (int)getpgid(0)) > 0;
}

/* Copy only when different: a fork child writes no page it need not (each
 * one a copy-on-write fault). */
static int copy_if_changed(void *dst, const void *src, size_t n)
{
	if (!memcmp(dst, src, n))
		return 0;
	memcpy(dst, src, n);
	return 1;
}

static unsigned long run_pidns; /* the run's PID namespace, once known */

/* A process in another PID namespace than the run's: the loom of its
 * namespace.  Out of the start's text (a container's processes only). */
__attribute__((noinline)) static void enter_pidns_loom(unsigned long ino)
{
	char loom[sizeof(oa_cfg.loom)];
	oa_snprintf(loom, sizeof(loom), "%s.pidns%lu", base_loom, ino);
	if (strcmp(loom, oa_cfg.loom))
		oa_procev_loom_changed();
	memcpy(oa_cfg.loom, loom, sizeof(oa_cfg.loom));
	memcpy(oa_meta.loom, oa_cfg.loom, sizeof(oa_meta.loom));
	pidns_bits = (long long)(ino & 0x1ffff) << 22;
	value_pid = getpid() | pidns_bits;
	/* Not the run's spool, which is keyed by pids of ovnirun's namespace
	 * (it is the run's loom's only): a fork child made into a new one
	 * (clone(CLONE_NEWPID): firejail's sandbox init, pid 1 there) kept
	 * its parent's mapping and took the slot of "pid 1" of the run's
	 * loom, which ovnirun then took for the host's init, still running:
	 * its stream stayed in the spool. */
	run_map = RUN_NONE;
}

OA_START_TEXT static void place_in_pidns(int may_setenv)
{
	if (pidns_bits)
		pidns_bits = 0;
	if (!base_loom[0])
		memcpy(base_loom, oa_cfg.loom, sizeof(base_loom));
	/* A process in another loom than its parent's draws its values from
	 * its own loom's counter, not the one it inherited (the two would give
	 * the same values: bwrap --unshare-pid's init and its children). */
	if (copy_if_changed(oa_cfg.loom, base_loom, sizeof(oa_cfg.loom)))
		oa_procev_loom_changed();
	copy_if_changed(oa_meta.loom, oa_cfg.loom, sizeof(oa_meta.loom));
	unsigned long ino = own_pidns();
	if (!ino)
		return; /* no /proc: nothing to tell */
	if (oa_cfg.debug)
		oa_log("PID namespace %lu, %s", ino, ns_how);
	/* The run's namespace: OVNI_PIDNS, or as this image learned it (a
	 * fork child whose parent cleared its environment before a
	 * clone(CLONE_NEWPID), firejail's sandbox init, kept the run's loom
	 * and its spool: "pid 1" of the run's loom, its stream left). */
	const char *run = oa_env(OA_ENV_PIDNS);
	unsigned long want = run && *run ? (unsigned long)oa_strtoull(run, NULL) : run_pidns;
	if (!want) {
		run_pidns = ino;
		if (may_setenv) {
			char v[32];
			oa_snprintf(v, sizeof(v), "%lu", ino);
			oa_env_set(OA_ENV_PIDNS, v);
		}
		return;
	}
	run_pidns = want;
	if (want == ino)
		return;
	enter_pidns_loom(ino);
}

/* Is the trace directory this process reaches by its path the run's?  The
 * first traced process notes its device and inode (OVNI_TRACEDIR_ID); a
 * process that reaches another directory there, or none (a chroot, a
 * sandbox's own /tmp, another mount namespace, a user that may not search
 * a directory on the way), must never write elsewhere: it runs untraced,
 * and says so, once in the run: the first to say it notes the path's hash
 * in OVNI_TRACEDIR_UNREACHABLE for the processes it starts (may_setenv:
 * not in a fork child, whose environment's lock a thread of the parent
 * may have held).  1 yes, 0 no. */
static unsigned long path_hash(const char *p)
{
	unsigned long h = 5381;
	while (*p)
		h = h * 33 + (unsigned char)*p++;
	return h & 0xffffffffu;
}

OA_EARLY_TEXT static int tracedir_is_the_runs(int may_setenv)
{
	/* Its strings in .data: a fork child of a shell asks this before its
	 * exec, and our .rodata would be a page it faults in for them. */
	static char id_name[] OA_EARLY_DATA = "OVNI_TRACEDIR_ID", hash_fmt[] OA_EARLY_DATA = ":%lu",
			      id_fmt[] OA_EARLY_DATA = "%lu:%lu:%lu",
			      said_name[] OA_EARLY_DATA = "OVNI_TRACEDIR_UNREACHABLE";
	const char *id = oa_env_snap_on ? oa_env(OA_ENV_TRACEDIR_ID) : oa_getenv(id_name);
	char mine[64];
	/* "dev:ino:hash of the path": another path is another run's (a traced
	 * script that runs a command with its own OVNI_TRACEDIR). */
	oa_snprintf(mine, sizeof(mine), hash_fmt, path_hash(oa_cfg.tracedir));
	const char *tail = id ? oa_strrchr(id, ':') : NULL;
	if (!id || !*id || !tail || oa_strcmp(tail, mine))
		return 1; /* the first process of its run: it notes it (note_tracedir) */
	const char *rel;
	int d = oa_path_at(oa_cfg.tracedir, &rel);
	struct stat st;
	long e = oa_fstatat(d, rel, &st);
	if (e == 0) {
		char same[64];
		oa_snprintf(same, sizeof(same), id_fmt, (unsigned long)st.st_dev, (unsigned long)st.st_ino,
			    path_hash(oa_cfg.tracedir));
		if (!oa_strcmp(same, id))
			return 1;
	}
	int denied = e == -EACCES || e == -EPERM;
	const char *said = oa_env_snap_on ? oa_env(OA_ENV_TRACEDIR_UNREACHABLE) : oa_getenv(said_name);
	if (said && !oa_strcmp(said, mine))
		atomic_store(&said_open_error, 1); /* an earlier process of the run said it */
	if (atomic_exchange(&said_open_error, 1))
		return 0;
	if (denied)
		oa_log("cannot reach the trace directory %s as user %d (a directory on the way may not be searched): "
		       "process %d runs untraced, and so do the processes it starts that cannot reach it either",
		       oa_cfg.tracedir, (int)geteuid(), (int)getpid());
	else
		oa_log("%s is not the run's trace directory here (a chroot, a sandbox's own file system, another mount "
		       "namespace): process %d runs untraced, and so do the processes it starts that do not reach it "
		       "either",
		       oa_cfg.tracedir, (int)getpid());
	/* For the programs it starts (a fork child, which may not setenv,
	 * speaks for its exec'd image too); for its children, its own. */
	static char said_var[48] OA_LARGE_BSS; /* only some runs write it */
	oa_snprintf(said_var, sizeof(said_var), "%s=%s", said_name, mine);
	oa_childenv_add(said_var);
	if (may_setenv)
		oa_env_set(OA_ENV_TRACEDIR_UNREACHABLE, mine);
	return 0;
}

/* The process's start (its constructor): the environment may be set. */
static int in_process_init;

/* The trace could not be written (err) and no ovnirun report gathers the
 * lines: has an earlier process of the run said so for the same
 * directory and error?  Then this one stays silent ("once", not a line
 * per process of a script: a trace directory a user changed to cannot
 * write); else its children will (OVNI_TRACEDIR_UNREACHABLE "wERR:HASH",
 * set for them, and for its own image at its start).  Out of the start's
 * text (rare). */
__attribute__((noinline)) static int unwritable_said(int err)
{
	if (oa_log_report[0])
		return 0; /* ovnirun's report says it once on stderr (common/log.c) */
	char mine[64];
	oa_snprintf(mine, sizeof(mine), "w%d:%lu", -err, path_hash(oa_cfg.tracedir));
	const char *said = oa_env(OA_ENV_TRACEDIR_UNREACHABLE);
	if (said && !oa_strcmp(said, mine))
		return 1;
	static char var[96] OA_LARGE_BSS; /* only some runs write it */
	oa_snprintf(var, sizeof(var), "%s=%s", oa_env_names[OA_ENV_TRACEDIR_UNREACHABLE], mine);
	oa_childenv_add(var);
	if (in_process_init)
		oa_env_set(OA_ENV_TRACEDIR_UNREACHABLE, mine);
	return 0;
}

/* For the writer's mkdir -p (writer/files.c): the trace's root is still
 * the run's (and says so once when not). */
OA_START_TEXT int oa_files_root_ok(void)
{
	return tracedir_is_the_runs(0);
}

static void note_tracedir(void)
{
	const char *id = oa_env(OA_ENV_TRACEDIR_ID);
	char mine[64];
	oa_snprintf(mine, sizeof(mine), ":%lu", path_hash(oa_cfg.tracedir));
	const char *tail = id ? strrchr(id, ':') : NULL;
	struct stat st;
	if ((tail && !strcmp(tail, mine)) || stat(oa_cfg.tracedir, &st) != 0)
		return;
	oa_snprintf(mine, sizeof(mine), "%lu:%lu:%lu", (unsigned long)st.st_dev, (unsigned long)st.st_ino,
		    path_hash(oa_cfg.tracedir));
	oa_env_set(OA_ENV_TRACEDIR_ID, mine);
}

OA_START_TEXT static int set_process_dirs(void)
{
	int pid = getpid();
	size_t cap = strlen(oa_cfg.tracedir) + strlen(oa_cfg.loom) + 32;
	char *d = cap <= PROCDIR_MAX ? oa_arena_take(cap) : NULL;
	if (!d) {
		d = procdir_buf;
		cap = PROCDIR_MAX;
	}
	int n = oa_snprintf(d, cap, "%s/loom.%s/proc.%d", oa_cfg.tracedir, oa_cfg.loom, pid);
	if (n < 0 || (size_t)n >= cap)
		return -ENAMETOOLONG;
	procdir = d;
	staged = oa_cfg.staging;
	if (staged)
		oa_snprintf(stagedir, sizeof(stagedir), "%s/loom.%s/proc.%d", oa_cfg.tmpdir, oa_cfg.loom, pid);
	oa_meta.pid = pid;
	oa_pid = pid;
	if (!pidns_bits)
		value_pid = pid;
	oa_cpus_set_dir(oa_cfg.tracedir, oa_cfg.loom);
	return 0;
}

/* The spool a new thread may start in: not the process's first thread
 * (a process's own stream is long-lived and holds its identity), not
 * when streams are staged (OVNI_TMPDIR) or sent to a collector. */
static struct oa_spool *spool_for(int tid)
{
	if (tid == oa_meta.pid || staged || oa_col_active())
		return NULL;
	int st = atomic_load(&spool_state);
	if (st == 0 && atomic_compare_exchange_strong(&spool_state, &st, 1)) {
		/* Set up by the first thread that needs it (a few stores). */
		oa_spool_init(&spool, procdir, oa_meta.pid, oa_cfg.spool_watch);
		atomic_store(&spool_state, st = 2);
	}
	/* One that comes meanwhile waits for those stores (threads started
	 * together, as OpenMP's, would otherwise make files of their own);
	 * bounded, it never waits on a thread that died setting it up. */
	for (int i = 0; st == 1 && i < 100000; i++) {
		__asm__ volatile("" ::: "memory");
		st = atomic_load(&spool_state);
	}
	if (st != 2 || !oa_spool_ready(&spool))
		return NULL;
	return &spool;
}

/* The parent's spool, in a fork child: its files are the parent's. */
OA_START_TEXT static void spool_forget(void)
{
	if (atomic_load(&spool_state) == 2)
		oa_spool_forget(&spool);
	atomic_store(&spool_state, 0);
}

/* The run's spool mapped, when ovnirun made one for the trace: 1 yes. */
OA_RUN_TEXT static int run_attach(void)
{
	if (run_map)
		return run_map != RUN_NONE;
	run_map = RUN_NONE;
	/* 8 MiB of address space is not ours to take from a program that
	 * limits its own (as a process's spool, writer/spool.c). */
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur != RLIM_INFINITY)
		return 0;
	/* The name on the stack (stored by the code itself): no page of
	 * .rodata, no byte more of .data (whose size moves .bss's pages). */
	char name[] = "/" OA_RUN_SPOOL_NAME;
	size_t t = strlen(oa_cfg.tracedir);
	char *path = oa_arena_take(t + sizeof(name));
	if (!path)
		return 0;
	memcpy(path, oa_cfg.tracedir, t);
	memcpy(path + t, name, sizeof(name));
	uint8_t *m = oa_run_attach(path, oa_cfg.root_pid, oa_cfg.loom);
	if (m)
		run_map = m;
	return m != NULL;
}

/* A child the process reaped, gone in its slot of the run's spool (killed,
 * or ended without libc): its stream written out, cut after its last whole
 * event, for the finish that follows (agent_child_gone); 0.  A child that
 * ended its stream there (DONE, or ovnirun writing it out) is ovnirun's:
 * 1, no finish (its files may be half written). */
int agent_run_reaped(pid_t pid)
{
	if (!oa_cfg.spool_watch[0] || !run_attach())
		return 0;
	struct oa_spool_slot *s = oa_run_find(run_map, pid);
	if (!s)
		return 0;
	if (atomic_load(&s->state) != OA_SPOOL_LIVE)
		return 1;
	sigset_t old;
	oa_sigblock(&old);
	int xfsz = oa_xfsz_pending();
	int r = oa_run_write(oa_cfg.tracedir, run_map, s, OA_SPOOL_LIVE);
	if (r < 0)
		oa_xfsz_forget(xfsz);
	oa_sigrestore(&old);
	return r <= 0; /* not written by us: left to ovnirun */
}

/* An earlier process of this pid (the pid given again while its stream
 * waited in the run's spool for ovnirun, ~10 ms) is written out first, by
 * us: its stream comes before ours in the same files, and no one else
 * writes them while we do (its files and ours were written at once: a
 * stream.json cut, processes lost or out of order).  One that ovnirun is
 * writing is waited for (50 ms at most); one gone without an end
 * (LIVE) is finished too. */
__attribute__((noinline)) static void run_settle_pid(int pid)
{
	for (int tries = 0; tries < 100; tries++) {
		struct oa_spool_slot *s = oa_run_find(run_map, pid);
		if (!s)
			return;
		uint32_t st = atomic_load(&s->state);
		if (st == OA_SPOOL_DONE || st == OA_SPOOL_LIVE) {
			sigset_t old;
			oa_sigblock(&old);
			int xfsz = oa_xfsz_pending();
			int r = oa_run_write(oa_cfg.tracedir, run_map, s, st);
			oa_xfsz_forget(xfsz);
			oa_sigrestore(&old);
			if (r < 0)
				return;
			if (r > 0 && st == OA_SPOOL_LIVE)
				agent_pid_predecessor_gone(pid);
			continue;
		}
		struct timespec ts = { 0, 500 * 1000 };
		oa_sys3(SYS_nanosleep, (long)&ts, 0, 0); /* not the interposed one */
	}
}

/* Does this process start in the run's spool: mapped, and no directory
 * of its pid in the trace (an earlier image's, or a process's that had
 * the pid before)? */
__attribute__((noinline)) OA_RUN_TEXT static int run_fresh(void)
{
	if (!run_attach())
		return 0;
	if (oa_run_maybe(run_map, oa_meta.pid))
		run_settle_pid(oa_meta.pid);
	const char *rel;
	struct stat st;
	int d = oa_path_at(procdir, &rel);
	run_rel = procdir + strlen(oa_cfg.tracedir) + 1;
	return run_first = oa_fstatat(d, rel, &st) == -ENOENT;
}

/* What a process's first stream begins with when its start was late (a
 * fork child that started at its first event, or the program it exec'd):
 * OHx at the fork, the process marks it could not write then (fork, exec)
 * at their own clocks, and only then the agent's setup (OF[ OF]). */
#define PRELUDE_MARKS 3
/* Read by every thread's start: kept on a page every process touches
 * (the prelude itself is touched only by a late start). */
static int prelude_on OA_EARLY_DATA;
static struct {
	uint64_t at; /* the OHx clock */
	int n;
	struct {
		int64_t value;
		uint64_t clock;
		struct oa_label *label; /* prepared, or NULL: allocated now */
		int fresh;              /* value drawn now (oa_procev_value): never labelled */
		char text[OA_HANDOVER_PATH + 16];
	} m[PRELUDE_MARKS];
} prelude OA_LARGE_BSS;

/* Create the stream of the calling thread (slot already acquired), in a
 * slot of sp when there is one (spool_for).  The paths are built in the
 * stream's own buffers: a thread with a minimal stack (PTHREAD_STACK_MIN)
 * must be able to start here. */
static int open_stream(struct oa_thread *t, struct oa_spool *sp)
{
	/* Append when the stream exists: after exec the new image continues the
	 * thread's stream (a dead thread may run again), and a recycled tid must
	 * not give the process two streams with one tid. */
	struct oa_stream_cfg cfg = { .max_window = oa_cfg.bufsize, .tid = t->tid, .append = 1, .meta = &oa_meta };
	/* "<dir>/thread.<tid>", made by the stream when it makes a file (a
	 * spooled thread's never). */
	cfg.base = staged ? stagedir : procdir;
	cfg.final_base = staged ? procdir : NULL;
	atomic_store(&t->s.labels.head, NULL);
	atomic_store(&t->s.labels.attrs, NULL);
	atomic_store(&t->s.labels.ovni_attrs, NULL);
	t->s.meta = &oa_meta;
	cfg.spool = sp;
	/* A second thread: the run's note that this pid's process ended whole
	 * (an earlier process's, an earlier image's) is void from now on. */
	if (t->tid != oa_meta.pid && run_map && run_map != RUN_NONE &&
	    atomic_load_explicit(&run_threads_of, memory_order_relaxed) != oa_meta.pid) {
		oa_run_unmark_ended(run_map, oa_meta.pid);
		atomic_store_explicit(&run_threads_of, oa_meta.pid, memory_order_relaxed);
	}
	if (run_first && t->tid == oa_meta.pid) {
		cfg.run = run_map; /* once: a later stream of the tid (a failed exec's) goes on in files */
		cfg.run_rel = run_rel;
		run_first = 0;
	}
	/* No slot for it (the spool is full, or failed): the spool may hold
	 * an earlier stream of its tid all the same. */
	if (!sp && t->tid != oa_meta.pid && atomic_load(&spool_state) == 2)
		cfg.settle = &spool;
	/* An earlier image's stream of this tid: its labels go on.  (A tid
	 * recycled within this image, rare, keeps its events but not its
	 * labels when spooled.) */
	if ((!cfg.spool || oa_exec_generation) && !(fresh_procdir && t->tid == oa_meta.pid) &&
	    (t->tid == oa_meta.pid || oa_images_may_have(t->tid)))
		oa_images_import(t, cfg.base, cfg.final_base);
	if (t->tid != oa_meta.pid)
		oa_images_note(t->tid);
	/* A new process's first marks (its fork, its exec): labelled now, in
	 * the stream.json written at the open, so that a process killed at
	 * once (SIGKILL: its parent or ovnirun finishes the stream) keeps what
	 * they were. */
	for (int i = 0; prelude_on && i < prelude.n; i++)
		oa_procev_label(t, prelude.m[i].label, prelude.m[i].fresh, prelude.m[i].value, prelude.m[i].text);
	int r = oa_stream_open(&t->s, &cfg);
	if (r == -EMFILE) {
		/* No spool slot now, and files would take a descriptor. */
		if (!atomic_exchange(&said_fd_limit, 1))
			oa_log("the program is near its descriptor limit (RLIMIT_NOFILE): its threads that start "
			       "while it is (its first one too) run untraced");
		return r;
	}
	if (r != 0) {
		if (!atomic_exchange(&said_open_error, 1) && !unwritable_said(r))
			oa_log("cannot write the trace in %s: %s; the program runs untraced", cfg.base,
			       strerror(-r)); /* the staging directory (-t) where staged */
		return r;
	}
	return 0;
}

/* End a stream we own: OHe, close, give back the CPU. */
OA_START_TEXT static void end_stream(struct oa_thread *t, int in_signal)
{
	if (!in_signal)
		oa_sample_label(&t->s.labels);
	int r = oa_stream_end(&t->s);
	oa_cpus_release(atomic_exchange(&t->cpu, -1), t->tid);
	if (r != 0)
		atomic_store(&end_failed, 1);
	if (r != 0 && !in_signal && !atomic_exchange(&said_open_error, 1))
		oa_log("could not finish the stream of thread %d: %s", t->tid, strerror(-r));
}

/* An alternate signal stack for each traced thread that has none: the
 * crash handler asks for one (SA_ONSTACK), and without it a stack overflow
 * kills the process before the handler can finish the streams.  One per
 * registry slot, taken when the slot is and kept as slots are reused (its
 * pages cost only once touched), from chunks of 16 (common/slab.h: one
 * mapping, not one per thread): two sigaltstack calls per thread.  A stack
 * the program set stays its own; a program that sets one later replaces
 * ours. */
#define ALTSTACK_SIZE (64 * 1024)
static OA_TLS void *my_altstack; /* this thread's alternate stack, while ours */
/* The first slot's, in .lbss: most processes have one thread, and a
 * mapping of its own was an mmap at every start (its pages, here as
 * there, cost only once a handler runs on them). */
static char first_altstack[ALTSTACK_SIZE] OA_LARGE_BSS __attribute__((aligned(64)));
static _Atomic int first_altstack_taken;
static struct oa_slab altstacks;

static void altstack_on(struct oa_thread *t)
{
	if (!t->altstack && !atomic_load_explicit(&first_altstack_taken, memory_order_relaxed) &&
	    !atomic_exchange(&first_altstack_taken, 1))
		t->altstack = first_altstack;
	if (!t->altstack && !(t->altstack = oa_slab_take(&altstacks, ALTSTACK_SIZE, 4096, 16)))
		return;
	stack_t ss = { .ss_sp = t->altstack, .ss_size = ALTSTACK_SIZE, .ss_flags = 0 }, old;
	if (sigaltstack(&ss, &old) != 0)
		return; /* running on one now (a thread started in a handler) */
	/* The program's own (not one of ours a fork child inherited): back. */
	if (!(old.ss_flags & SS_DISABLE) && old.ss_sp != my_altstack) {
		sigaltstack(&old, NULL);
		my_altstack = NULL;
		return;
	}
	my_altstack = t->altstack;
}

static void altstack_off(struct oa_thread *t)
{
	if (!my_altstack)
		return;
	stack_t off = { .ss_flags = SS_DISABLE }, cur;
	if (sigaltstack(&off, &cur) != 0) {
		/* On it now (ending in a handler): the slot's next thread
		 * gets a mapping of its own. */
		if (my_altstack == t->altstack)
			t->altstack = NULL;
	} else if (!(cur.ss_flags & SS_DISABLE) && cur.ss_sp != my_altstack) {
		sigaltstack(&cur, NULL); /* the program replaced ours: keep it */
	}
	my_altstack = NULL;
}

OA_START_TEXT static void prelude_add(int64_t value, uint64_t clock, struct oa_label *label, int fresh,
				      const char *text)
{
	if (prelude.n >= PRELUDE_MARKS || !value)
		return;
	prelude.m[prelude.n].value = value;
	prelude.m[prelude.n].clock = clock;
	prelude.m[prelude.n].label = label;
	prelude.m[prelude.n].fresh = fresh;
	oa_snprintf(prelude.m[prelude.n].text, sizeof(prelude.m[0].text), "%s", text);
	prelude.n++;
}

OA_START_TEXT struct oa_thread *agent_thread_begin(int creator_tid, uint64_t tag, uint64_t min_clock)
{
	if (!agent_active() || oa_self)
		return oa_self;
	/* A thread of a clone(CLONE_VM) child that is not a thread (our
	 * memory, another process, untraced): it was written as a thread of
	 * ours, in our process's directory. */
	if (agent_foreign())
		return NULL;
	if (!oa_sys_work_enter())
		return NULL;
	struct oa_thread *r = thread_begin(creator_tid, tag, min_clock);
	oa_sys_work_leave();
	return r;
}

OA_START_TEXT static struct oa_thread *thread_begin(int creator_tid, uint64_t tag, uint64_t min_clock)
{
	/* A thread without its stream yet takes no process-directed signal:
	 * the kernel gives it to a thread that can record it. */
	uint64_t t0 = oa_clock_now(); /* the thread's start, before the agent's setup */
	sigset_t old;
	oa_sigblock(&old);
	oa_guard++;
	struct oa_thread *t = THREAD_OF(oa_registry_acquire(sizeof(struct oa_thread), offsetof(struct oa_thread, s)));
	if (!t)
		goto out;
	if (t == &start_block.first && !t->s.path)
		oa_stream_give_paths(&t->s, start_block.first_paths);
	if (!oa_registry_may_open()) {
		/* The process is ending: this thread stays untraced. */
		oa_registry_abandon(&t->s);
		t = NULL;
		goto out;
	}
	t->tid = gettid();
	struct oa_spool *sp = spool_for(t->tid);
	if (!sp && !oa_fd_room()) {
		/* Creating the stream would take descriptors for a moment: not
		 * one the program, near its limit, may be about to need (a
		 * spool slot takes none; oa_stream_open checks when there is
		 * none free). */
		if (!atomic_exchange(&said_fd_limit, 1))
			oa_log("the program is near its descriptor limit (RLIMIT_NOFILE): its threads that start "
			       "while it is (its first one too) run untraced");
		oa_registry_abandon(&t->s);
		t = NULL;
		goto out;
	}
	t->self = pthread_self();
	atomic_store(&t->has_timer, 0); /* a fork child has none of the parent's timers */
	atomic_store(&t->aff_dirty, 0);
	int cpu = place_self(t->tid);
	/* Shown on that CPU from when it got it: the thread that held it may
	 * have ended there after t0 (this one preempted in between: two
	 * threads on one CPU, a pinned script's background jobs, t105). */
	if (cpu >= 0)
		t0 = oa_clock_now();
	atomic_store(&t->cpu, cpu);
	if (open_stream(t, sp) != 0) {
		oa_cpus_release(cpu, t->tid);
		oa_registry_abandon(&t->s);
		t = NULL;
		goto out;
	}
	if (prelude_on) {
		/* Back-dated to the fork (a fork child that starts late, the
		 * program it exec'd): the CPU claimed now was not ours then (a
		 * parent pinned to it ran on there: two threads on one CPU, which
		 * check and the emulator refuse).  The virtual CPU until now,
		 * then that one. */
		prelude_on = 0;
		ev_ovni_thread_execute_only(&t->s, -1, creator_tid, tag, prelude.at);
		for (int i = 0; i < prelude.n; i++)
			oa_procev_emit_at(t, prelude.m[i].value, prelude.m[i].clock);
		prelude.n = 0;
		ev_ovni_setup_flush(&t->s, t0);
		if (cpu >= 0)
			ev_ovni_affinity_set(&t->s, cpu);
	} else {
		ev_ovni_thread_execute_setup(&t->s, cpu, creator_tid, tag, t0 > min_clock ? t0 : min_clock);
	}
	altstack_on(t);
	oa_self = t;
	pthread_setspecific(thread_key, t);
	if (oa_registry_publish(&t->s) != 0) {
		/* The process began ending while we started: end ourselves. */
		agent_thread_end();
		t = NULL;
		goto out;
	}
	int dirty = 1;
	if (atomic_compare_exchange_strong(&t->aff_dirty, &dirty, 0))
		agent_affinity_self();
	oa_sample_thread_start(t);
out:
	oa_guard--;
	oa_sigrestore(&old);
	return t;
}

OA_THREAD_TEXT void agent_thread_end(void)
{
	struct oa_thread *t = oa_self;
	if (!t)
		return;
	if (!oa_sys_work_enter()) {
		oa_self = NULL; /* its stream is left to the finisher */
		return;
	}
	thread_end(t);
	oa_sys_work_leave();
}

OA_THREAD_TEXT static void thread_end(struct oa_thread *t)
{
	int saved = errno;
	sigset_t old;
	oa_sigblock(&old); /* a SIGTERM now waits until the stream is finished */
	oa_guard++;
	oa_sample_thread_stop(t);
	oa_procev_flush_refused(t);
	oa_self = NULL;
	if (oa_registry_claim_self(&t->s) == 0) {
		end_stream(t, 0);
		altstack_off(t);
		oa_registry_release(&t->s);
	}
	oa_guard--;
	oa_sigrestore(&old);
	errno = saved;
}

static struct oa_thread *main_left; /* the main thread's, ended last */

static void end_other(struct oa_stream *s, void *arg)
{
	struct oa_thread *t = THREAD_OF(s);
	if (t->tid == oa_meta.pid && !main_left) {
		main_left = t; /* after the spool: see agent_process_end */
		return;
	}
	end_stream(t, *(int *)arg);
}

static void process_end(int in_signal, int for_exec);
static int end_noted_exit(void);

void agent_process_end(int in_signal)
{
	process_end(in_signal, 0);
}

OA_START_TEXT static void process_end(int in_signal, int for_exec)
{
	if (atomic_load_explicit(&oa_sealed, memory_order_relaxed))
		return;
	if (!for_exec && end_noted_exit())
		return;
	agent_start_pending(in_signal);
	/* Another thread is ending every stream (it stopped tracing first):
	 * this one's _exit() must not kill the process under it. */
	if (!atomic_load(&oa_traced_flag) && !oa_guard && oa_registry_ending())
		oa_registry_wait_ended();
	if (!atomic_load(&oa_traced_flag) || agent_foreign())
		return;
	int saved = errno;
	sigset_t old;
	oa_sigblock(&old); /* finishing is atomic with respect to SIGTERM, SIGINT... */
	oa_guard++;
	oa_files_ending(1); /* a program at its descriptor limit: a few more for the files */
	struct oa_thread *self = oa_self;
	oa_procev_flush_refused(self);
	main_left = NULL;
	oa_registry_end_others(self ? &self->s : NULL, end_other, &in_signal);
	struct oa_thread *last = main_left;
	if (self) {
		oa_self = NULL;
		if (oa_registry_claim_self(&self->s) == 0) {
			if (self->tid == oa_meta.pid && !last)
				last = self;
			else
				end_stream(self, in_signal);
		}
	}
	atomic_store(&oa_traced_flag, 0);
	/* The threads that ended in the spool get their files, all at once,
	 * before the main thread's stream is finished: a process that dies
	 * meanwhile (exit from another thread, which does not wait for us)
	 * is unfinished, and whoever finishes it unpacks the rest.  So is one
	 * whose spool still has a thread in it (stuck inside an emit): its
	 * main stream is left for the finisher (ovnirun, the parent, repair),
	 * except at an exec, whose next image goes on with it. */
	int spooled = 0;
	if (atomic_load(&spool_state) == 2 && atomic_load(&spool.nfiles)) {
		oa_registry_settle(self ? &self->s : NULL);
		/* Past `ulimit -f`: the SIGXFSZ is ours (sigblock.h). */
		int xfsz = oa_xfsz_pending(), u = oa_spool_unpack(&spool, 0, NULL, 0);
		oa_xfsz_forget(xfsz);
		if (u < 0) {
			atomic_store(&end_failed, 1);
			if (!in_signal && !atomic_exchange(&said_open_error, 1))
				oa_log("could not write the streams of the threads spooled in %s", procdir);
		}
		spooled = atomic_load(&spool.nfiles) != 0;
	}
	/* The next image goes on with the main stream: from files. */
	if (last && for_exec && last->s.slot && last->s.run)
		oa_stream_unslot(&last->s);
	if (last && (!spooled || for_exec))
		end_stream(last, in_signal);
	/* Every stream of the process finished (the main one last): said in
	 * the run's spool, so that ovnirun's last look reads one stream.json
	 * of this process, not one per thread. */
	if (!for_exec && !spooled && run_map && run_map != RUN_NONE && !atomic_load(&end_failed))
		oa_run_mark_ended(run_map, oa_meta.pid);
	oa_files_ending(0);
	oa_registry_done();
	oa_guard--;
	oa_sigrestore(&old);
	errno = saved;
}

/* Set by a child that shares our memory (clone(CLONE_VM), a vfork child)
 * and ended by exit(): libc's exit handlers and the loader's destructors,
 * ours too, are a list in that memory, which it has run; the parent's
 * exit finds none of them and ends its streams itself (exit.c). */
_Atomic int oa_exit_taken;

OA_START_TEXT void agent_process_finish(int in_signal, int sig)
{
	if (atomic_load_explicit(&oa_sealed, memory_order_relaxed))
		return;
	if (agent_foreign()) {
		if (!in_signal)
			atomic_store(&oa_exit_taken, 1);
		return;
	}
	agent_process_end(in_signal);
	oa_col_process_done(sig ? OA_COLLECT_SIGNAL : OA_COLLECT_EXIT, sig);
}

void agent_collect_stop(void)
{
	agent_process_end(0);
}

void agent_root_change(void)
{
	/* A fork child that has not started starts while it still sees the
	 * trace (and, for a user change, may still write there). */
	if (!oa_guard)
		agent_start_pending(0);
	if (!atomic_load(&oa_traced_flag) || agent_foreign())
		return;
	int saved = errno;
	oa_guard++;
	oa_stream_anchor(oa_cfg.tracedir);
	oa_guard--;
	errno = saved;
}

void agent_user_change(uid_t euid)
{
	/* Only a privileged process can hand its files over, and root can
	 * write anything: nothing to do otherwise. */
	if (euid != (uid_t)-1 && euid != 0 && !oa_guard)
		agent_start_pending(0);
	if (!atomic_load(&oa_traced_flag) || agent_foreign() || euid == (uid_t)-1 || euid == 0 || geteuid() != 0)
		return;
	int saved = errno;
	oa_guard++;
	/* The new user may not walk the path to the trace (under /root, say):
	 * from now on it is reached from a descriptor opened while we can. */
	oa_stream_anchor(oa_cfg.tracedir);
	if (oa_cfg.staging)
		oa_stream_anchor(oa_cfg.tmpdir); /* the first one wins: staging is rare */
	/* A stream in the run's spool has no directory yet: the process
	 * makes its files there as the new user (when it outgrows its slot,
	 * or for its threads). */
	if (run_map && run_map != RUN_NONE)
		oa_mkdir_p(procdir);
	int r = oa_owner_give(procdir, euid, (gid_t)-1);
	if (staged)
		oa_owner_give(stagedir, euid, (gid_t)-1);
	/* Its children create their directories in the loom's, and the
	 * looms of the PID namespaces they make (a rootless container:
	 * unshare -U -r -p, podman) in the trace directory. */
	char dir[4600];
	oa_snprintf(dir, sizeof(dir), "%s/loom.%s", oa_cfg.tracedir, oa_cfg.loom);
	int g = oa_owner_grant(dir, euid);
	oa_owner_grant(oa_cfg.tracedir, euid);
	oa_snprintf(dir, sizeof(dir), "%s/loom.%s/.cpus", oa_cfg.tracedir, oa_cfg.loom);
	oa_owner_grant(dir, euid);
	oa_snprintf(dir, sizeof(dir), "%s/loom.%s/.values", oa_cfg.tracedir, oa_cfg.loom);
	oa_owner_grant(dir, euid);
	if (staged) {
		oa_snprintf(dir, sizeof(dir), "%s/loom.%s", oa_cfg.tmpdir, oa_cfg.loom);
		oa_owner_grant(dir, euid);
	}
	if ((r || (g && g != -ENOENT)) && !atomic_exchange(&said_open_error, 1))
		oa_log("the process becomes user %d: cannot hand its trace over (%s)%s", (int)euid,
		       strerror(r ? -r : -g), g == -EOPNOTSUPP ? ": the file system has no ACLs" : "");
	oa_guard--;
	errno = saved;
}

/* Show the calling thread on the CPU its affinity now pins it to. */
void agent_affinity_self(void)
{
	struct oa_thread *t = oa_self;
	if (!t)
		return;
	int old = atomic_load(&t->cpu);
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return;
	if (old >= 0 && CPU_COUNT(&set) == 1 && CPU_ISSET((size_t)oa_meta.phyids[old], &set))
		return; /* pinned where it already is */
	int cpu = oa_cpus_place(&set, sizeof(set), t->tid);
	if (cpu == old)
		return;
	ev_ovni_affinity_set(&t->s, cpu);
	atomic_store(&t->cpu, cpu);
	oa_cpus_release(old, t->tid);
}

static struct oa_thread *find_thread(pthread_t th, int tid)
{
	for (struct oa_stream *s = oa_registry_first(); s; s = s->next) {
		struct oa_thread *t = THREAD_OF(s);
		int st = atomic_load(&s->state);
		if (st != OA_SLOT_OPEN && st != OA_SLOT_OPENING)
			continue;
		if (tid > 0 ? t->tid == tid : pthread_equal(t->self, th))
			return t;
	}
	return NULL;
}

struct oa_thread *agent_thread_by_tid(int tid)
{
	return tid > 0 ? find_thread(0, tid) : NULL;
}

void agent_affinity_other(pthread_t th, int tid)
{
	struct oa_thread *me = oa_self;
	struct oa_thread *t = find_thread(th, tid);
	if (!t || t == me)
		return;
	/* Not visible yet: the thread looks at its affinity once it is. */
	atomic_store(&t->aff_dirty, 1);
	if (atomic_load(&t->s.state) != OA_SLOT_OPEN || !me)
		return;
	int dirty = 1;
	if (!atomic_compare_exchange_strong(&t->aff_dirty, &dirty, 0))
		return;
	cpu_set_t set;
	if (sched_getaffinity(t->tid, sizeof(set), &set) != 0)
		return;
	int old = atomic_load(&t->cpu);
	if (old >= 0 && CPU_COUNT(&set) == 1 && CPU_ISSET((size_t)oa_meta.phyids[old], &set))
		return;
	int cpu = oa_cpus_place(&set, sizeof(set), t->tid);
	if (cpu == old)
		return;
	ev_ovni_affinity_remote(&me->s, cpu, t->tid);
	old = atomic_exchange(&t->cpu, cpu);
	oa_cpus_release(old, t->tid);
}

/* The calling thread's slot when it ended every stream for an exec. */
static struct oa_thread *exec_self;

OA_START_TEXT int agent_exec_begin(void)
{
	if (!atomic_load(&oa_traced_flag) || agent_foreign())
		return 0;
	exec_self = oa_self;
	process_end(0, 1);
	return 1;
}

/* A stream ended for an exec that failed was reopened by its thread. */
static void stream_reopened(struct oa_stream *s)
{
	int expect = OA_SLOT_CLOSED;
	atomic_compare_exchange_strong(&s->state, &expect, OA_SLOT_OPEN);
}

void agent_exec_failed(int was_traced)
{
	if (!was_traced)
		return;
	int saved = errno;
	oa_guard++;
	oa_registry_resume();
	atomic_store(&oa_traced_flag, 1);
	/* The other threads go on: each continues its stream at its next event. */
	oa_stream_reopened = stream_reopened;
	for (struct oa_stream *s = oa_registry_first(); s; s = s->next)
		if (atomic_load(&s->state) == OA_SLOT_CLOSED)
			atomic_store(&s->reopen, 1);
	/* The calling thread ended its own stream in place (its slot stays
	 * CLOSING when the process goes away): it starts a new one below, and
	 * the old slot is free again.  Left CLOSING, the next end of the
	 * process would wait for it as for a thread in the middle of ending
	 * its stream (5 s). */
	if (exec_self && atomic_load(&exec_self->s.state) == OA_SLOT_CLOSING)
		oa_registry_release(&exec_self->s);
	exec_self = NULL;
	struct oa_thread *t = agent_thread_begin(-1, 0, 0);
	(void)t;
	oa_guard--;
	errno = saved;
}

/* ---- A fork child starts late ----
 * A fork child writes nothing at the fork: most children of shells, make
 * and xargs exec at once, and a child that made its files only for the exec
 * to end them paid for two processes.  It is pending (oa_pending_flag) until
 * the first hook that records something (agent_active), its end (exit,
 * _exit, a fatal signal: agent_start_pending(1), allocating with mmap
 * only), a fork of its own, a user change or chroot, or an exec.  An exec of a program that will be traced hands the
 * fork and the exec over to it in OVNI_FORKED (the new image writes them
 * first, at their clocks); any other exec starts the child first, as
 * before.  A child killed by SIGKILL while pending leaves no stream (its
 * parent's "fork: child N" mark stays). */
/* Written by every fork child: kept on the page of oa_traced_flag and
 * oa_pending_flag, which it writes anyway (each page a fork child writes
 * is a copy-on-write fault: ~2-3 us on this VM). */
static struct {
	int pid, ppid, parent_tid;
	int stale;                 /* the parent's registry, spool and labels are not reset yet */
	int exit_set, exit_status; /* exit() was called: its status, at exit_clock */
	uint64_t exit_clock;
	int exec_handed; /* an exec was handed over (and failed) */
	uint64_t t_fork, t_exec;
} pend OA_FORK_DATA;
/* On the early-data page, which a fork child writes anyway (pend). */
static char pend_exec_text[OA_HANDOVER_PATH + 16] OA_FORK_DATA;
static void agent_fork_forget(void);
/* The parent's clock just before the fork (its prepare handler, agent
 * locks held): the child's start, without a clock reading of its own; 0
 * before a _Fork, which runs no prepare handler (its child reads the
 * clock). */
static uint64_t fork_clock OA_FORK_DATA;
static int fork_foreign OA_FORK_DATA; /* agent_fork_prepare ran in another process of our memory */
/* Whether a fork child of this image is traced (the configuration's
 * program filters): decided once, not in every child. */
static int fork_child_traced OA_FORK_DATA;
/* A label for the fork mark of a child that starts in a signal handler or
 * in _exit, where nothing may be allocated: its own page. */
OA_START_TEXT static struct oa_label *label_now(int in_signal)
{
	if (!in_signal)
		return oa_meta_label_alloc();
	void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

OA_START_TEXT static void prelude_fork(int ppid, int64_t value, uint64_t clock, struct oa_label *label)
{
	char text[48];
	oa_procev_fork_text(text, sizeof(text), ppid);
	prelude_add(value, clock, label, 1, text);
}

OA_START_TEXT int agent_start_pending(int in_signal)
{
	if (!atomic_load(&oa_pending_flag) || oa_guard || getpid() != pend.pid)
		return 0;
	sigset_t old;
	oa_sigblock(&old);
	oa_guard++;
	int ok = 0;
	if (atomic_exchange(&oa_pending_flag, 0)) {
		agent_fork_forget();
		place_in_pidns(0);
		if (tracedir_is_the_runs(0)) {
			prelude_on = 1;
			prelude.at = pend.t_fork;
			prelude.n = 0;
			prelude_fork(pend.ppid, oa_procev_value(), pend.t_fork, label_now(in_signal));
			if (pend.exec_handed)
				prelude_add(oa_procev_value(), pend.t_exec, NULL, 1, pend_exec_text);
			if (pend.exit_set) {
				/* exit() noted it; something started the child after. */
				char text[48];
				int64_t v = oa_procev_exit_mark(pend.exit_status, text, sizeof(text));
				struct oa_label *l = oa_procev_take_exit_label();
				if (!l && in_signal)
					l = label_now(1);
				prelude_add(v, pend.exit_clock, l, 0, text);
			}
			ok = start_process(pend.parent_tid) == 0;
			prelude_on = 0;
		}
	}
	oa_guard--;
	oa_sigrestore(&old);
	return ok && agent_active();
}

OA_EARLY_TEXT int agent_exec_handover(const char *path, char *const argv[], char *const envp[], char *buf, size_t len)
{
	if (!atomic_load(&oa_pending_flag) || oa_guard || !path || getpid() != pend.pid)
		return 0;
	if (!oa_handover_target_traced(path, argv, envp))
		return 0;
	/* The new program must reach the agent and the run's trace from here
	 * (a mount namespace of the child's own may hide either: a sandbox's
	 * /tmp): else the child starts first, and says what it cannot do. */
	if (!oa_childenv_lib_reachable() || !tracedir_is_the_runs(0))
		return 0;
	oa_guard++;
	/* The mark values are drawn by the new image, from the counter of the
	 * trace it writes (a collector's run may not be its parent's). */
	pend.t_exec = oa_clock_now_sys(); /* the vDSO is a page this child has not mapped */
	pend.exec_handed = 1;
	static char exec_fmt[] OA_EARLY_DATA = "exec %s";
	oa_snprintf(pend_exec_text, sizeof(pend_exec_text), exec_fmt, path);
	int n = oa_handover_format(buf, len, pend.pid, pend.ppid, pend.parent_tid, pend.t_fork, pend.t_exec, path);
	oa_guard--;
	return n;
}

/* A pending fork child that ends before it needed its stream (a subshell,
 * a builtin of a pipeline: _exit, or a fatal signal; nothing of the program
 * runs after either): its whole stream written at once, with no window,
 * registry slot or stream.json at its start.  The events are those of a
 * child that started and ended: OHx and the fork at the fork, the agent's
 * work (OF[ OF]), the end mark (value, with its prepared label when it has
 * no fixed one), the final flush, OHe.  Async-signal-safe.  1 when done
 * (the process is no longer traced, or is untraced); 0: start the usual
 * way (staged, a collector, a failed exec search to record, an earlier
 * stream of this pid). */
static union {
	struct oa_label l;
	char room[sizeof(struct oa_label) + OA_META_LABEL_MAX + 1];
} end_fork_label OA_LARGE_BSS; /* the process ends: no hash holds it, nothing reuses it */

/* A fork child's whole stream into the run's spool (run_fresh said it
 * starts there): 0, or -1 (files of its own, then). */
__attribute__((noinline)) OA_RUN_TEXT static int run_write_pending(int pid, const struct oa_label_list *own,
								   const uint8_t *obs, size_t len)
{
	run_first = 0;
	return oa_run_write_once(run_map, procdir, run_rel, &oa_meta, pid, own, obs, len);
}

OA_START_TEXT int agent_end_pending(int64_t value, struct oa_label *label, const char *text, uint64_t at)
{
	if (!atomic_load(&oa_pending_flag) || oa_guard || getpid() != pend.pid || oa_cfg.staging || oa_col_active() ||
	    oa_procev_refused_active())
		return 0;
	sigset_t old;
	oa_sigblock(&old);
	oa_guard++;
	uint64_t t0 = oa_clock_now();
	int done = 0;
	if (!atomic_exchange(&oa_pending_flag, 0))
		goto out;
	done = 1;
	place_in_pidns(0);
	if (!tracedir_is_the_runs(0) || set_process_dirs() != 0)
		goto out; /* untraced, as a start would leave it */
	/* Under ovnirun, into the run's spool, when no directory of this pid
	 * is there (as a start, run_fresh); else a directory of its own. */
	int in_run = oa_cfg.spool_watch[0] && run_fresh();
	int made = in_run ? 1 : oa_mkdir_p(procdir);
	if (made != 1) {
		/* An earlier process of this pid left its directory: the
		 * usual start continues its streams. */
		done = 0;
		atomic_store(&oa_pending_flag, 1);
		goto out;
	}
	oa_procev_after_fork(); /* the prepared labels are this process's */
	/* Its stream begins at the fork: on the virtual CPU (a pinned parent
	 * may have run on its CPU until now). */
	int pid = pend.pid, cpu = -1;
	struct oa_label_list own;
	memset(&own, 0, sizeof(own));
	int64_t v_fork = oa_procev_value();
	char ftext[48];
	oa_procev_fork_text(ftext, sizeof(ftext), pend.ppid);
	oa_meta_label_publish_new(&oa_meta, &own, &end_fork_label.l, OA_MARK_PROC, v_fork, ftext);
	if (label && text)
		oa_meta_label_publish_new(&oa_meta, &own, label, OA_MARK_PROC, value, text);
	uint8_t obs[256], p[16];
	size_t len = OVNI_HEADER_SIZE;
	uint32_t version = OVNI_STREAM_VERSION;
	memcpy(obs, OVNI_STREAM_MAGIC, 4);
	memcpy(obs + 4, &version, 4);
	int32_t c = cpu, creator = pend.parent_tid;
	uint64_t tag = 0, t_fork = pend.t_fork < t0 ? pend.t_fork : t0;
	memcpy(p, &c, 4);
	memcpy(p + 4, &creator, 4);
	memcpy(p + 8, &tag, 8);
	oa_put_event(obs, sizeof(obs), &len, "OHx", t_fork, p, 16);
	ev_mark_payload(p, v_fork, OA_MARK_PROC);
	oa_put_event(obs, sizeof(obs), &len, "OM=", t_fork, p, 12);
	oa_put_event(obs, sizeof(obs), &len, "OF[", t0, NULL, 0);
	uint64_t t1 = oa_clock_now();
	oa_put_event(obs, sizeof(obs), &len, "OF]", t1, NULL, 0);
	ev_mark_payload(p, value, OA_MARK_PROC);
	oa_put_event(obs, sizeof(obs), &len, "OM=", at > t1 ? at : t1, p, 12);
	oa_put_event(obs, sizeof(obs), &len, "OF[", at > t1 ? at : t1, NULL, 0);
	uint64_t t2 = oa_clock_now();
	if (t2 < at)
		t2 = at;
	oa_put_event(obs, sizeof(obs), &len, "OF]", t2, NULL, 0);
	oa_put_event(obs, sizeof(obs), &len, "OHe", t2, NULL, 0);
	if (in_run && run_write_pending(pid, &own, obs, len) == 0)
		goto out;
	char dir[PROCDIR_MAX + 24];
	oa_snprintf(dir, sizeof(dir), "%s/thread.%d", procdir, pid);
	int r = oa_stream_write_once(dir, &oa_meta, pid, &own, obs, len);
	if (r != 0 && !atomic_exchange(&said_open_error, 1))
		oa_log("cannot write the trace in %s: %s; the program runs untraced", dir, strerror(-r));
out:
	oa_guard--;
	oa_sigrestore(&old);
	return done;
}

/* A fork child that called exit() and never needed its stream after:
 * all of it at once, its exit at the clock it was noted.  1 when done. */
static int end_noted_exit(void)
{
	if (!atomic_load(&oa_pending_flag) || !pend.exit_set || oa_guard)
		return 0;
	char text[48];
	int64_t v = oa_procev_exit_mark(pend.exit_status, text, sizeof(text));
	struct oa_label *l = oa_procev_take_exit_label();
	return l && agent_end_pending(v, l, text, pend.exit_clock);
}

OA_START_TEXT void agent_exit_later(int status)
{
	if (!atomic_load(&oa_pending_flag) || oa_guard || getpid() != pend.pid) {
		if (agent_active())
			agent_exit_event(status);
		return;
	}
	pend.exit_status = status & 0xff;
	pend.exit_clock = oa_clock_now();
	pend.exit_set = 1;
}

void agent_exec_handover_failed(void)
{
	/* The fork and the exec are written as they happened; the caller
	 * adds the failure. */
	agent_start_pending(0);
}

/* The program this process exec'd from a pending fork child: what it
 * handed over (OVNI_FORKED), when it is this process's; the creator's tid,
 * or -1 when none was. */
OA_START_TEXT static int take_handover(void)
{
	const char *v = oa_env(OA_ENV_FORKED);
	if (!v)
		return -1;
	struct oa_handover h;
	int ok = oa_handover_parse(v, &h) == 0 && h.pid == getpid() && h.ppid == getppid();
	oa_env_unset(OA_ENV_FORKED); /* the program's children see none */
	if (!ok)
		return -1;
	/* Its values are drawn before set_process_dirs(): the pid-based ones
	 * (no .values page: a full disk, `ulimit -f`) are this process's, not
	 * pid 0's, which every exec'd image shared. */
	oa_pid = h.pid;
	prelude_on = 1;
	prelude.at = h.t_fork;
	prelude.n = 0;
	prelude_fork(h.ppid, oa_procev_value(), h.t_fork, NULL);
	char text[sizeof(h.path) + 8];
	oa_snprintf(text, sizeof(text), "exec %s", h.path);
	prelude_add(oa_procev_value(), h.t_exec, NULL, 1, text);
	return h.parent_tid;
}

static void declare_marks(void)
{
	oa_callsites = oa_cfg.callsites;
	if (oa_callsites)
		oa_meta_mark_type(&oa_meta, OA_MARK_CALLSITE, 1, "Called from (ovni-auto)");
	oa_procev_declare();
}

OA_START_TEXT static int start_process(int creator_tid)
{
	if (set_process_dirs() != 0)
		return -1;
	/* This pid has streams already: an earlier image of this process
	 * (exec) wrote them.  Where the process directory is made here (not
	 * staged, no collector) and is new, it has none: no look into it
	 * (two failed lookups), and the first thread's mkdir succeeds at once. */
	fresh_procdir = 0;
	if (!staged && !oa_col_active()) {
		/* Under ovnirun, a process whose pid has no directory yet starts
		 * in the run's spool: no directory or file of its own. */
		if (!oa_cfg.spool_watch[0] || !(fresh_procdir = run_fresh()))
			fresh_procdir = oa_mkdir_p(procdir) == 1;
	}
	/* Threads an earlier process of this pid (or an earlier image) left
	 * in its spool, dead (its main thread had left, then SIGKILL): their
	 * streams are written out and finished before ours go on after
	 * them (a pid given again: they were appended after ours). */
	if (!fresh_procdir && oa_images_scan(procdir))
		agent_pid_predecessor_gone(oa_meta.pid);
	oa_registry_init();
	atomic_store(&oa_traced_flag, 1);
	struct oa_thread *t = agent_thread_begin(creator_tid, 0, 0);
	fresh_procdir = 0; /* a later stream of this tid (a failed exec's) continues this one */
	if (!t) {
		atomic_store(&oa_traced_flag, 0);
		return -1;
	}
	/* The agent may start on another thread (dlopen'ed, a late fork
	 * child's first event): then no stream is the main one, and every
	 * stream keeps the CPUs. */
	if (t->tid == oa_meta.pid)
		oa_meta.main_cpus = 1;
	return 0;
}

/* Out of the start's text (a rare path). */
__attribute__((noinline)) static void say_config_failed(int cfg)
{
	oa_log("cannot read the configuration (%s%s): the program runs untraced", strerror(-cfg),
	       cfg == -ENOENT ? ": the current directory was removed, the trace directory is relative to it" : "");
}

OA_START_TEXT void agent_process_init(void)
{
	oa_guard++;
	/* The start's descriptors (configuration, CPUs, the run's spool, the
	 * directory's earlier streams) are never met by the closes of the
	 * program's other threads (an agent that a program dlopen'ed:
	 * common/fdroom.h). */
	oa_fdlock_agent_enter();
	oa_log_note_stderr();
	int cfg = oa_config_load();
	if (cfg != 0) {
		say_config_failed(cfg);
		goto out;
	}
	if (oa_cfg.disabled)
		goto out;
	oa_clock_init();
	oa_arena_set(start_block.arena, sizeof(start_block.arena));
	oa_registry_seed(&start_block.first);
	if (oa_meta_init(&oa_meta) != 0)
		goto out;
	oa_meta.app_id = oa_cfg.app_id;
	oa_meta.rank = oa_cfg.rank;
	oa_meta.nranks = oa_cfg.nranks;
	memcpy(oa_meta.loom, oa_cfg.loom, sizeof(oa_meta.loom));
	place_in_pidns(1);
	oa_meta.lib_version = "ovni-auto " OA_VERSION;
	oa_meta.lib_commit = OA_COMMIT;
	oa_meta.ncpus = oa_cpus_discover(oa_cfg.loom, &oa_meta.phyids);
	if (oa_meta.ncpus <= 0)
		goto out;
	declare_marks();
	if (oa_callsites)
		oa_backtrace_prepare(); /* no thread opens it later (loader lock) */
	oa_sample_init();
	if (pthread_key_create(&thread_key, thread_key_destructor) != 0)
		goto out;
	oa_childenv_init();
	fork_child_traced = oa_config_trace_fork_child(program_invocation_short_name);
	if (!oa_config_trace_child(program_invocation_short_name)) {
		oa_col_untraced_image();
		goto out;
	}
	if (oa_col_init() != 0)
		goto out;
	in_process_init = 1;
	if (tracedir_is_the_runs(1) && start_process(take_handover()) == 0)
		note_tracedir();
	in_process_init = 0;
	if (prelude_on)
		prelude_on = 0; /* not started: nothing to write */
	if (oa_cfg.debug && atomic_load(&oa_traced_flag))
		oa_log("tracing pid %d into %s", (int)getpid(), procdir);
out:
	oa_fdlock_agent_leave();
	oa_guard--;
}

static struct {
	void (*prepare)(void), (*parent)(void), (*child)(void);
} fork_handlers[8];
static _Atomic int nfork_handlers;

OA_START_TEXT void agent_at_fork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
	int i = atomic_fetch_add(&nfork_handlers, 1);
	if (i >= 8)
		return;
	fork_handlers[i].prepare = prepare;
	fork_handlers[i].parent = parent;
	fork_handlers[i].child = child;
}

static int nhandlers(void)
{
	int n = atomic_load(&nfork_handlers);
	return n > 8 ? 8 : n;
}

OA_START_TEXT void agent_fork_prepare(void)
{
	/* A fork child that forks starts first: its stream has the fork. */
	agent_start_pending(1);
	for (int i = nhandlers(); i-- > 0;)
		if (fork_handlers[i].prepare)
			fork_handlers[i].prepare();
	/* Under the agent's locks: this fork's.  Set before the fork, never
	 * after it in the parent: after a fork each page the parent writes is
	 * a copy-on-write fault. */
	fork_clock = atomic_load(&oa_traced_flag) ? oa_clock_now() : 0;
	/* A fork of a clone(CLONE_VM) child (untraced, agent_foreign): its
	 * child's parent is that process, not ours. */
	fork_foreign = agent_foreign();
}

void agent_fork_no_prepare(void)
{
	fork_clock = 0;
	fork_foreign = 0;
}

OA_START_TEXT void agent_fork_parent(void)
{
	for (int i = 0; i < nhandlers(); i++)
		if (fork_handlers[i].parent)
			fork_handlers[i].parent();
}

/* What a fork child leaves of its parent's state until it starts: the
 * parent's streams (their windows unmapped), its spool, its process-event
 * labels.  Async-signal-safe. */
OA_START_TEXT static void agent_fork_forget(void)
{
	if (!pend.stale)
		return;
	pend.stale = 0;
	oa_registry_after_fork(NULL);
	spool_forget();
	oa_procev_after_fork();
}

OA_EARLY_TEXT void agent_fork_child(void)
{
	/* Descriptor holds of the threads that are not here (fdroom.h). */
	oa_fdlock_after_fork();
	/* A fork while the agent starts (another thread's, in a program
	 * that dlopen'ed it): the child reads its environment as it is. */
	if (oa_env_snap_on)
		oa_env_snap_on = 0;
	/* Locks another thread held at fork time belong to nobody here. */
	oa_clock_after_fork();
	/* The parent's end under way on another thread (an exit() there):
	 * not this child's, whose own end waited for it (up to 15 s: a
	 * child's _exit() took seconds).  Read first: a fork child writes no
	 * page it need not. */
	if (oa_registry_ending())
		oa_registry_resume();
	for (int i = 0; i < nhandlers(); i++)
		if (fork_handlers[i].child)
			fork_handlers[i].child();
	if (oa_sealed) /* nothing more, as in the parent (agent_seal) */
		return;
	struct oa_thread *parent_thread = oa_self;
	/* A parent that had not started (it forked through _Fork, which runs
	 * no prepare handler) is this child's creator all the same: its only
	 * thread, whose tid is its pid. */
	int parent_pending = atomic_load(&oa_pending_flag);
	if (!atomic_load(&oa_traced_flag) && !parent_thread && !parent_pending)
		return;
	int parent_tid = parent_thread ? parent_thread->tid : parent_pending ? pend.pid : -1;
	int parent_pid = oa_pid;
	if (fork_foreign) {
		parent_pid = getppid();
		parent_tid = -1;
		fork_foreign = 0;
	}
	oa_self = NULL;
	if (fork_child_traced && !oa_col_active()) {
		/* Started at the child's first event, or by the program it
		 * execs.  Only what must be is written now: this page and the
		 * thread's own variables.  The rest of the parent's state is
		 * forgotten when the child starts (agent_fork_forget); an exec
		 * forgets it all at once. */
		uint64_t t = fork_clock;
		pend.pid = getpid();
		pend.ppid = parent_pid;
		pend.parent_tid = parent_tid;
		pend.t_fork = t ? t : oa_clock_now();
		pend.exec_handed = 0;
		pend.exit_set = 0;
		/* Apart: merged with exit_set, the two became one 64-bit store
		 * of a constant read from .rodata, a page the child faulted in
		 * for it. */
		__asm__ volatile("" ::: "memory");
		pend.stale = 1;
		oa_pid = pend.pid; /* agent_foreign(): this is the process now */
		atomic_store(&oa_traced_flag, 0);
		atomic_store(&oa_pending_flag, 1);
		return;
	}
	oa_guard++;
	/* Everything inherited belongs to the parent's files. */
	oa_registry_after_fork(NULL);
	spool_forget();
	atomic_store(&oa_traced_flag, 0);
	atomic_store(&oa_pending_flag, 0);
	pend.stale = 0;
	oa_procev_after_fork();
	int traced = oa_config_trace_child(program_invocation_short_name);
	/* unshare(CLONE_NEWPID) then fork: this child is pid 1 of a new one. */
	place_in_pidns(0);
	if (oa_col_after_fork(traced) != 0)
		traced = 0;
	if (traced && tracedir_is_the_runs(0) && start_process(parent_tid) == 0) {
		char label[64];
		oa_procev_fork_text(label, sizeof(label), parent_pid);
		agent_proc_event(label);
	}
	oa_guard--;
}
