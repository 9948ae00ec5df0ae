/* procevents.c: the process-event mark channel (OA_MARK_PROC): forks,
 * execs and their failures, exits, signals, children finished by their
 * parent.  Fixed values (signals) are labelled at start, in every stream
 * (a fatal signal cannot add labels); the others are made unique in the
 * whole trace and labelled when they happen. */
#include "procevents.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/compiler.h"
#include "../common/sys.h"
#include "../common/fdroom.h"
#include "../common/log.h"
#include "../writer/ev_ovni.h"
#include "../writer/finish.h"
#include "../writer/ovni_fmt.h"
#include "../writer/sigblock.h"
#include "agent.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#include "config.h"

/* The exit label, prepared at start: _exit() may be called from a signal
 * handler, where nothing may allocate. */
static struct oa_label *exit_label;
static _Atomic int exit_label_used;
static struct oa_label *rt_label; /* for a real-time signal that kills */
static _Atomic int rt_label_used;
static _Atomic int64_t proc_seq;

/* Values of the process-event mark channel: fixed ones are labelled at
 * start (they must be in the metadata even when a signal ends the process);
 * fork, exec and exit values are made unique per process and labelled then. */
#define PROC_SIGNAL_BASE OA_PROC_SIGNAL_BASE

/* Unique in the whole trace, also in their low 32 bits (oa_proc_value: the
 * pid, the loom, a sequence); an image after exec goes on after the values
 * its predecessors labelled. */
/* The loom's counter of process-event values: a page of the file
 * loom.L/.values, mapped shared by the first process of an image that
 * needs a value (a fork child keeps its parent's mapping).  Every process
 * of the loom draws from it, so no two values of the loom agree in their
 * low 32 bits; each loom's range starts at a place of its own (its name's
 * hash).  No file (a read-only directory, descriptors near the limit): the
 * pid-based values (oa_proc_value), unique across processes of a loom for
 * the first 1023 events of each.  Async-signal-safe (system calls only). */
static _Atomic(_Atomic uint32_t *) value_counter;
static _Atomic int value_counter_tried;

static OA_EARLY_TEXT _Atomic uint32_t *loom_counter(void)
{
	_Atomic uint32_t *c = atomic_load(&value_counter);
	if (c || atomic_exchange(&value_counter_tried, 1))
		return c;
	/* On the stack, as long as it is (a static buffer was a page
	 * written by every process). */
	size_t n = strlen(oa_cfg.tracedir) + strlen(oa_cfg.loom) + 16;
	char path[n];
	if (oa_snprintf(path, n, "%s/loom.%s/.values", oa_cfg.tracedir, oa_cfg.loom) < 0)
		return NULL;
	if (!oa_fd_room())
		return NULL;
	const char *rel;
	int d = oa_path_at(path, &rel);
	oa_fdlock_agent_enter(); /* common/fdroom.h */
	int fd = openat(d, rel, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		oa_fdlock_agent_leave();
		return NULL;
	}
	struct stat st;
	void *m = MAP_FAILED;
	int ok = fstat(fd, &st) == 0 && st.st_size >= 4096;
	if (!ok && st.st_size < 4096) {
		/* The loom's first process makes it a page: past `ulimit -f`
		 * (a shell's `ulimit -f 1`) that fails and raises SIGXFSZ, whose
		 * default ends the program: taken back (sigblock.h). */
		sigset_t old;
		oa_sigblock(&old);
		int xfsz = oa_xfsz_pending();
		ok = ftruncate(fd, 4096) == 0;
		if (!ok)
			oa_xfsz_forget(xfsz);
		oa_sigrestore(&old);
	}
	if (ok)
		m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	/* Its block had before the first write through the mapping (the file
	 * is made sparse): on a file system the trace filled (a small tmpfs)
	 * that write was a SIGBUS in the program (a shell reaping a child).
	 * No block to be had (ENOSPC): the pid-based values.  A kernel before
	 * 5.14 (no MADV_POPULATE_WRITE) reserves it with fallocate; one that
	 * can do neither (NFSv3, some FUSE) uses the page as before.  Raw
	 * calls: a fork child of a shell may be the first here (no libc page
	 * more). */
	if (m != MAP_FAILED) {
		/* EFAULT: it would have been a SIGBUS (no block); EINVAL: no
		 * such advice here. */
		long e = oa_sys3(SYS_madvise, (long)m, 4096, MADV_POPULATE_WRITE);
		if (e == -EINVAL) {
			e = oa_sys4(SYS_fallocate, fd, 0, 0, 4096);
			if (e != -ENOSPC && e != -EDQUOT)
				e = 0;
		}
		if (e) {
			munmap(m, 4096);
			m = MAP_FAILED;
		}
	}
	oa_nc_close(fd);
	oa_fdlock_agent_leave();
	if (m == MAP_FAILED)
		return NULL;
	atomic_store(&value_counter, (_Atomic uint32_t *)m);
	return m;
}

/* The loom's counter is another loom's (a process that entered a PID
 * namespace): forgotten, its own looked for at the next value.  The
 * mapping stays (a page; no system call here). */
void oa_procev_loom_changed(void)
{
	atomic_store(&value_counter, NULL);
	atomic_store(&value_counter_tried, 0);
}

static OA_EARLY_TEXT int64_t value_from(_Atomic uint32_t *c)
{
	if (!c)
		return oa_proc_value(oa_cfg.loom, oa_pid, (uint32_t)(atomic_fetch_add(&proc_seq, 1) + 1));
	uint64_t h = oa_loom_hash(oa_cfg.loom);
	uint32_t low;
	do /* not the fixed values (99, 100 + signal, 256 + exit status) */
		low = atomic_fetch_add(c, 1) + (uint32_t)h;
	while (low < OA_PROC_FIXED_END);
	return (int64_t)((((h >> 32) & 0x7fffffff) | 1) << 32 | low);
}

static OA_EARLY_TEXT int64_t next_proc_value(void)
{
	return value_from(loom_counter());
}

int64_t oa_procev_value_mapped(void)
{
	return value_from(atomic_load(&value_counter));
}

void oa_procev_prepare_values(void)
{
	loom_counter();
}

OA_EARLY_TEXT int64_t oa_procev_value(void)
{
	return next_proc_value();
}

OA_START_TEXT void oa_procev_label(struct oa_thread *t, struct oa_label *label, int fresh, int64_t value,
				   const char *text)
{
	if (!t || !value)
		return;
	if (label)
		oa_meta_label_publish(&oa_meta, &t->s.labels, label, OA_MARK_PROC, value, text);
	else if (fresh) /* as agent_proc_event: no look in the hash (its page read, then written: 2 faults) */
		oa_meta_mark_label_new(&oa_meta, &t->s.labels, OA_MARK_PROC, value, text);
	else
		oa_meta_mark_label(&oa_meta, &t->s.labels, OA_MARK_PROC, value, text);
}

OA_START_TEXT void oa_procev_emit_at(struct oa_thread *t, int64_t value, uint64_t clock)
{
	if (!t || !value)
		return;
	uint8_t p[12];
	ev_mark_payload(p, value, OA_MARK_PROC);
	oa_emit_at(&t->s, "OM=", clock, p, sizeof(p));
}

/* An exec that failed before anything was ended (the file is missing or
 * not executable): recorded as "failed exec PATH: reason", once per PATH
 * search.  Shells try each PATH directory in turn, so the failure waits
 * (per thread, label prepared) until the thread does something else: an
 * exec of the same name elsewhere replaces it (or, when it works, drops
 * it); any other process event, an exit, the thread's or the process's end
 * writes it, at the clock of the failure. */
static OA_TLS struct {
	struct oa_label *label;
	uint64_t clock;
	int active;
	char name[64];
	char text[300];
} refused;

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;
	return b ? b + 1 : (path ? path : "");
}

/* Async-signal-safe: the label was prepared when the exec failed. */
OA_START_TEXT void oa_procev_flush_refused(struct oa_thread *t)
{
	/* A vfork child shares the parent's memory: it must not touch this. */
	if (!refused.active || agent_foreign())
		return;
	refused.active = 0;
	if (!t || !agent_traced())
		return;
	int64_t value = next_proc_value();
	oa_meta_label_publish(&oa_meta, &t->s.labels, refused.label, OA_MARK_PROC, value, refused.text);
	refused.label = NULL;
	if (!oa_emitting(&t->s)) {
		uint8_t p[12];
		ev_mark_payload(p, value, OA_MARK_PROC);
		oa_emit_at(&t->s, "OM=", refused.clock, p, sizeof(p));
	}
}

OA_START_TEXT int64_t oa_procev_exit_mark(int status, char *text, size_t len)
{
	oa_snprintf(text, len, "exit status %d", status & 0xff);
	return OA_PROC_EXIT_BASE + (status & 0xff);
}

OA_START_TEXT void oa_procev_fork_text(char *text, size_t len, int ppid)
{
	oa_snprintf(text, len, "forked from %d", ppid);
}

OA_START_TEXT struct oa_label *oa_procev_take_exit_label(void)
{
	return atomic_exchange(&exit_label_used, 1) ? NULL : exit_label;
}

OA_START_TEXT int oa_procev_refused_active(void)
{
	return refused.active;
}

void agent_exec_refused(const char *path, int err)
{
	struct oa_thread *t = oa_self;
	/* A pending fork child (agent.c) keeps it too, for when it starts. */
	if ((!t || !agent_traced()) && !atomic_load(&oa_pending_flag))
		return;
	if (agent_foreign())
		return;
	if (refused.active && strncmp(refused.name, base_name(path), sizeof(refused.name) - 1)) {
		if (!t && agent_active())
			t = oa_self; /* a pending child starts: the earlier failure is its own */
		oa_procev_flush_refused(t);
	}
	if (!refused.label && !(refused.label = oa_meta_label_alloc()))
		return;
	refused.clock = oa_clock_now();
	oa_snprintf(refused.name, sizeof(refused.name), "%s", base_name(path));
	oa_snprintf(refused.text, sizeof(refused.text), "failed exec %s: %s", path, strerror(err));
	refused.active = 1;
}

OA_EARLY_TEXT void agent_exec_attempt(const char *path)
{
	if (!refused.active || agent_foreign())
		return;
	if (!strncmp(refused.name, base_name(path), sizeof(refused.name) - 1)) {
		refused.active = 0; /* the search found it */
		return;
	}
	if (!oa_self)
		agent_active(); /* a pending fork child starts: the failure is its own */
	oa_procev_flush_refused(oa_self);
}

OA_START_TEXT void agent_proc_event(const char *label)
{
	struct oa_thread *t = oa_self;
	if (!t || agent_foreign())
		return;
	oa_procev_flush_refused(t);
	int64_t value = next_proc_value(); /* never labelled before */
	oa_meta_mark_label_new(&oa_meta, &t->s.labels, OA_MARK_PROC, value, label);
	ev_ovni_mark_set(&t->s, OA_MARK_PROC, value);
}

OA_START_TEXT void agent_exit_event(int status)
{
	/* What the parent sees (exit(-1) is 255): one value per status. */
	char text[48];
	int64_t value = oa_procev_exit_mark(status, text, sizeof(text));
	/* A fork child that never started (_exit: exit() started it in the
	 * exit-status recorder): all of it at once. */
	if (atomic_load(&oa_pending_flag) && !atomic_load(&exit_label_used) &&
	    agent_end_pending(value, exit_label, text, 0))
		return;
	agent_start_pending(1);
	struct oa_thread *t = oa_self;
	if (!agent_traced() || agent_foreign())
		return;
	oa_procev_flush_refused(t);
	/* The prepared label serves the first exit; another (exit() from
	 * several threads at once) goes unlabelled rather than allocate.  A
	 * thread with no stream (glibc's timer thread) writes no mark: no
	 * label either (in the global list, a fork child of another thread
	 * inherited it beside its own of the same value: a duplicate key in
	 * its stream.json, which the emulator refuses). */
	if (t && !atomic_exchange(&exit_label_used, 1))
		oa_meta_label_publish(&oa_meta, &t->s.labels, exit_label, OA_MARK_PROC, value, text);
	if (t && !oa_emitting(&t->s))
		ev_ovni_mark_set(&t->s, OA_MARK_PROC, value);
}

/* A value for the "how it ended" event of a child the parent finishes:
 * the loom's counter, else one of the child's pid-based ones (the last of
 * its first 1023). */
static int64_t gone_value(long gone_pid)
{
	if (loom_counter())
		return next_proc_value();
	return oa_proc_value(oa_cfg.loom, gone_pid, 1023);
}

static void finish_child(pid_t pid, int status);

OA_START_TEXT void agent_child_gone(pid_t pid, int status)
{
	if (!agent_traced() || agent_foreign() || oa_cfg.staging || pid <= 0)
		return;
	if (!WIFEXITED(status) && !WIFSIGNALED(status))
		return;
	if (agent_run_reaped(pid))
		return;
	/* The usual case, a child that finished its streams, looked at with a
	 * small stack (the buffers below took 5 pages of it: after a fork,
	 * each is a copy-on-write fault, per command of a shell). */
	if (!oa_finish_needed(oa_cfg.tracedir, oa_cfg.loom, pid))
		return;
	finish_child(pid, status);
}

/* Apart, so that its buffers are on the stack only when it runs. */
__attribute__((noinline)) static void finish_child(pid_t pid, int status)
{
	char dir[4600], how[128];
	oa_snprintf(dir, sizeof(dir), "%s/loom.%s/proc.%d", oa_cfg.tracedir, oa_cfg.loom, (int)pid);
	if (WIFEXITED(status)) {
		oa_snprintf(how, sizeof(how), "exit status %d; streams finished by its parent", WEXITSTATUS(status));
	} else {
		const char *name = sigabbrev_np(WTERMSIG(status));
		if (name)
			oa_snprintf(how, sizeof(how), "killed by signal SIG%s; streams finished by its parent", name);
		else
			oa_snprintf(how, sizeof(how), "killed by signal %d; streams finished by its parent",
				    WTERMSIG(status));
	}
	/* Past the program's `ulimit -f` (a shell's `ulimit -f 1`) a file of
	 * the finish fails and raises SIGXFSZ, whose default would end this
	 * process: taken back (sigblock.h).  The stream is then left to
	 * ovnirun or `ovni-auto repair`. */
	sigset_t old;
	oa_sigblock(&old);
	int xfsz = oa_xfsz_pending();
	oa_finish_process(dir, pid, how, gone_value);
	oa_xfsz_forget(xfsz);
	oa_sigrestore(&old);
}

void agent_pid_predecessor_gone(pid_t pid)
{
	char dir[4600];
	oa_snprintf(dir, sizeof(dir), "%s/loom.%s/proc.%d", oa_cfg.tracedir, oa_cfg.loom, (int)pid);
	sigset_t old;
	oa_sigblock(&old);
	int xfsz = oa_xfsz_pending();
	/* Its parent may be finishing it now (it reaped it, which freed the
	 * pid): waited for, 50 ms at most; what it left is finished here. */
	for (int tries = 0; tries < 100; tries++) {
		if (oa_finish_process_all(dir, pid,
					  "ended without notice; streams finished by the next process of its pid",
					  gone_value) != -EBUSY)
			break;
		struct timespec ts = { 0, 500 * 1000 };
		syscall(SYS_nanosleep, &ts, NULL); /* not the interposed one */
	}
	oa_xfsz_forget(xfsz);
	oa_sigrestore(&old);
}

void agent_signal_event(int sig)
{
	/* A fork child killed before the agent's fork handler ran in it
	 * (a group kill right after the fork: `sleep 5 & kill 0`) still has
	 * its parent's state, window included (a shared mapping): nothing is
	 * written there; its parent records how it ended. */
	if (agent_foreign())
		return;
	if (atomic_load(&oa_pending_flag)) {
		/* A fork child that never started: all of it at once. */
		char text[48] = "";
		struct oa_label *l = NULL;
		if (sig >= 32 && rt_label && !atomic_load(&rt_label_used)) {
			if (sig >= SIGRTMIN && sig <= SIGRTMAX)
				oa_snprintf(text, sizeof(text), "signal SIGRTMIN+%d", sig - SIGRTMIN);
			else
				oa_snprintf(text, sizeof(text), "signal %d", sig);
			l = rt_label;
		}
		if (agent_end_pending(PROC_SIGNAL_BASE + sig, l, l ? text : NULL, 0))
			return;
	}
	agent_start_pending(1);
	struct oa_thread *t = oa_self;
	/* Real-time signals are labelled when one kills (the first: its
	 * label was prepared at start). */
	if (sig >= 32 && rt_label && !atomic_exchange(&rt_label_used, 1)) {
		char text[48];
		if (sig >= SIGRTMIN && sig <= SIGRTMAX)
			oa_snprintf(text, sizeof(text), "signal SIGRTMIN+%d", sig - SIGRTMIN);
		else
			oa_snprintf(text, sizeof(text), "signal %d", sig);
		oa_meta_label_publish(&oa_meta, t ? &t->s.labels : NULL, rt_label, OA_MARK_PROC, PROC_SIGNAL_BASE + sig,
				      text);
	}
	if (t && !oa_emitting(&t->s))
		ev_ovni_mark_set(&t->s, OA_MARK_PROC, PROC_SIGNAL_BASE + sig);
}

OA_START_TEXT void oa_procev_declare(void)
{
	oa_meta_mark_type(&oa_meta, OA_MARK_PROC, 0, "Process events (ovni-auto)");
	/* Written in every stream: a fatal signal cannot add labels.  Fixed
	 * labels, from a table of ours (nothing allocated or hashed), made
	 * by the compiler: glibc's names (sigabbrev_np), keyed by the
	 * signals' numbers.  (Formatted at start, they were a page of .bss
	 * read then written and a page of libc's names read: 3 faults.) */
#define SIGTEXT(s) [SIG##s - 1] = "signal SIG" #s
	static const char *const table[31] = {
		SIGTEXT(HUP),  SIGTEXT(INT),    SIGTEXT(QUIT), SIGTEXT(ILL),    SIGTEXT(TRAP), SIGTEXT(ABRT),
		SIGTEXT(BUS),  SIGTEXT(FPE),    SIGTEXT(KILL), SIGTEXT(USR1),   SIGTEXT(SEGV), SIGTEXT(USR2),
		SIGTEXT(PIPE), SIGTEXT(ALRM),   SIGTEXT(TERM), SIGTEXT(STKFLT), SIGTEXT(CHLD), SIGTEXT(CONT),
		SIGTEXT(STOP), SIGTEXT(TSTP),   SIGTEXT(TTIN), SIGTEXT(TTOU),   SIGTEXT(URG),  SIGTEXT(XCPU),
		SIGTEXT(XFSZ), SIGTEXT(VTALRM), SIGTEXT(PROF), SIGTEXT(WINCH),  SIGTEXT(POLL), SIGTEXT(PWR),
		SIGTEXT(SYS),
	};
#undef SIGTEXT
	oa_meta_fixed_labels(&oa_meta, OA_MARK_PROC, PROC_SIGNAL_BASE + 1, table, 31);
	if (!exit_label)
		exit_label = oa_meta_label_alloc();
	if (!rt_label)
		rt_label = oa_meta_label_alloc();
}

OA_START_TEXT void oa_procev_seen(uint32_t last)
{
	if ((int64_t)last > atomic_load(&proc_seq))
		atomic_store(&proc_seq, (int64_t)last);
}

OA_START_TEXT void oa_procev_after_fork(void)
{
	/* A label the parent used (its exit or death began on another thread
	 * before the fork) may be in the lists and the hash this child
	 * inherits: a new one, not that one reused (its links rewritten: the
	 * child's labels listed twice, or a chain looped). */
	if (atomic_load(&exit_label_used))
		exit_label = oa_meta_label_alloc();
	if (atomic_load(&rt_label_used))
		rt_label = oa_meta_label_alloc();
	atomic_store(&exit_label_used, 0);
	atomic_store(&rt_label_used, 0);
}
