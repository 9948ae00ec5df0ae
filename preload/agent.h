/* agent.h: the agent core: process and thread lifecycle.  The only code that
 * knows when a thread's stream starts and ends.  Hooks call these. */
#ifndef OA_AGENT_H
#define OA_AGENT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "../common/compiler.h"
#include "../writer/meta.h"
#include "../writer/stream.h"

struct oa_thread {
	int tid;
	pthread_t self;
	_Atomic int cpu;       /* loom CPU index shown in the trace, -1: virtual */
	_Atomic int aff_dirty; /* affinity changed by another thread before we were visible */
	timer_t sample_timer;  /* the sampling timer, while has_timer */
	_Atomic int has_timer; /* whoever clears it deletes the timer */
	void *altstack;        /* the slot's alternate signal stack (mapped once) */
	/* Registry slots are oa_thread, the stream at this offset (~1.1
	 * KiB in all: its path buffers are elsewhere, stream.h). */
	struct oa_stream s;
};

/* The thread whose stream s is (a registry slot's). */
static inline struct oa_thread *oa_thread_of(struct oa_stream *s)
{
	return s ? (struct oa_thread *)(void *)((char *)s - offsetof(struct oa_thread, s)) : NULL;
}

/* The calling thread's traced state, NULL when it is not traced. */
extern OA_TLS struct oa_thread *oa_self;
/* Nonzero while the agent itself runs on this thread: hooks pass through. */
extern OA_TLS int oa_guard;

extern struct oa_meta oa_meta;
/* How many images of this process ran before this one (successful execs):
 * ids that belong to the process (OpenMP task and type ids) must not repeat. */
extern int oa_exec_generation;

/* The pid that makes the process's mark values unique in the trace (its
 * pid, mixed with its PID namespace when that is not the run's). */
long long oa_value_pid(void);

/* Set by the first constructor when OVNI_DISABLE is set (before it resolves
 * anything): the process is never traced, so every other
 * constructor and destructor returns at once (agent_active() is false);
 * main runs unwrapped and execs pass straight through (start.c, exec.c). */
extern int oa_off;

/* The program confines itself with a seccomp filter (hooks/seccomp.c),
 * which may forbid any system call the agent would make from then on: the
 * process is sealed.  Nothing more is recorded and the agent makes no
 * system call of its own in it or in its fork children: their streams stay
 * as they are, for whoever finishes the process (its parent, ovnirun,
 * `ovni-auto repair`), and the programs it execs or spawns start with the
 * agent disabled (OVNI_DISABLE=1).  agent_seal() changes flags only (no
 * system call); agent_unseal() puts them back when the filter was refused. */
extern _Atomic int oa_sealed;
struct agent_seal {
	int traced, pending;
};
void agent_seal(struct agent_seal *was);
void agent_unseal(const struct agent_seal *was);

/* The process is traced and not ending.  A pending fork child (below)
 * starts its stream here: the caller is about to record something. */
int agent_active(void);
/* The process is traced, or a fork child that has not started yet: for
 * what the agent keeps up without recording (signal dispositions, the
 * environment of an exec).  Starts nothing. */
int agent_engaged(void);
/* A fork child that starts at its first event (agent.c, "A fork child
 * starts late"): set from the fork until then. */
extern _Atomic int oa_pending_flag;
/* Start a pending fork child's stream now (in_signal: from a signal
 * handler or _exit; nothing is allocated).  1 when it is traced. */
int agent_start_pending(int in_signal);
/* A pending fork child is about to exec `path` (argv, envp as given):
 * when the program will be traced, write "OVNI_FORKED=..." into buf for
 * its environment and return 1 (the new image writes the fork and the
 * exec); 0: start as usual. */
int agent_exec_handover(const char *path, char *const argv[], char *const envp[], char *buf, size_t len);
/* That exec failed: the child starts, with its fork and exec marks. */
void agent_exec_handover_failed(void);
/* A pending fork child ends (_exit, a fatal signal, the end of a process
 * whose exit() was noted) with the process mark `value` (label: prepared,
 * with its text, when the value has no fixed label), at clock `at` (0:
 * now): its whole stream is written at once.  1 when done (nothing more to
 * end); 0: start it the usual way.  Async-signal-safe. */
struct oa_label;
int agent_end_pending(int64_t value, struct oa_label *label, const char *text, uint64_t at);
/* exit(status) in a fork child that has not started: noted, and written
 * with the whole stream when the process ends (or in its prelude, if
 * something starts it before); in any other process, agent_exit_event. */
void agent_exit_later(int status);
/* The process is traced (perhaps ending its streams right now). */
extern _Atomic int oa_traced_flag;
static inline int agent_traced(void)
{
	return atomic_load_explicit(&oa_traced_flag, memory_order_relaxed);
}
/* A vfork child (or a clone child) shares or copies our memory but is
 * another process: it must never touch the parent's streams. */
extern int oa_pid; /* the process the agent's state is for (its pid at start, at fork) */
static inline int agent_foreign(void)
{
	return getpid() != oa_pid;
}

/* Constructor work: configuration, process identity, main thread stream. */
void agent_process_init(void);

/* End every stream of the process (exit, _exit, destructor). `in_signal`:
 * called from a signal handler, use only async-signal-safe work. */
void agent_process_end(int in_signal);

/* The process ends for good (exit, a fatal signal `sig`, or 0): end every
 * stream and, with a collector, send them.  Async-signal-safe. */
void agent_process_finish(int in_signal, int sig);
/* A child sharing our memory ran the process's exit handlers and
 * destructors (it called exit()): the parent's exit ends the streams. */
extern _Atomic int oa_exit_taken;
static inline int agent_exit_taken(void)
{
	return atomic_load_explicit(&oa_exit_taken, memory_order_relaxed);
}

/* Start the calling thread's stream: OHx no earlier than min_clock. */
struct oa_thread *agent_thread_begin(int creator_tid, uint64_t tag, uint64_t min_clock);

/* End the calling thread's stream (thread exit). */
void agent_thread_end(void);

/* A model (OA_REQUIRE_*) is used from now on: it goes into the metadata of
 * every stream (the calling thread's is rendered again now). */
void agent_require(unsigned model);

/* The process is about to take effective user euid (setuid and friends,
 * called while still privileged): its trace directory and files become
 * that user's, and the loom directory grants it write access. */
#include <sys/types.h>
void agent_user_change(uid_t euid);
/* The process is about to chroot: the trace stays reached from outside. */
void agent_root_change(void);

/* A new OHC/OHx tag, unique in the process. */
uint64_t agent_next_tag(void);

/* The affinity of the calling thread changed. */
void agent_affinity_self(void);
/* The affinity of thread `tid` (or pthread `th` when tid <= 0) changed. */
void agent_affinity_other(pthread_t th, int tid);
/* The traced thread with this tid (a walk of the live threads), or NULL. */
struct oa_thread *agent_thread_by_tid(int tid);

/* Before an exec: end every stream. Returns nonzero if the process was traced. */
/* Write "OVNI_NSPID=..." into buf for the program this process is about to
 * run (exec: in itself; spawn: as its child) when its PID namespace is
 * known: 1, or 0 (nothing written). Writes no state of the agent (a vfork
 * child calls it). */
int agent_nspid_env(char *buf, size_t len, int spawn);

int agent_exec_begin(void);
/* The exec failed: trace again (the calling thread continues its stream). */
void agent_exec_failed(int was_traced);
/* An exec that failed at once (missing or not executable file, errno err)
 * and one about to be tried: a PATH search is recorded once, as "failed
 * exec PATH: reason" when no directory had it. */
void agent_exec_refused(const char *path, int err);
void agent_exec_attempt(const char *path);

/* The parent reaped its child pid, which ended with `status` (as wait
 * gives it): when the child was traced in our loom and left its streams
 * unfinished (SIGKILL, no libc exit), they are finished now, with an
 * event saying how it ended.  Async-signal-safe (a SIGCHLD handler reaps). */
void agent_child_gone(pid_t pid, int status);
/* An earlier process of this process's pid, gone in the run's spool with
 * its streams unfinished (no parent of ours reaped it): finished now,
 * before this one's stream goes on after its. */
void agent_pid_predecessor_gone(pid_t pid);
/* A child reaped: its stream still in the run's spool (it died there)
 * written out first (writer/spool.h); 1 when it is ovnirun's to write
 * (no finish). */
int agent_run_reaped(pid_t pid);

/* A fatal signal arrived: mark it on the calling thread (async-signal-safe). */
void agent_signal_event(int sig);

/* A process event (fork, exec, spawn) with its label, as a mark on the
 * calling thread. Not in a vfork child (the parent's streams). */
void agent_proc_event(const char *label);

/* The process exits with `status`: its labelled mark on the calling thread.
 * Async-signal-safe (the label was prepared at start). */
void agent_exit_event(int status);

/* In a fork child: forget the parent's streams, trace this process. */
void agent_fork_child(void);

/* Fork handlers of a module with locks (at most 8): `prepare` takes them
 * before fork (in the reverse order of registration), `parent` gives them
 * back, `child` resets them in the child; after _Fork only `child` runs. */
void agent_at_fork(void (*prepare)(void), void (*parent)(void), void (*child)(void));
void agent_fork_prepare(void);
void agent_fork_parent(void);
/* Before a _Fork (no prepare handler runs): its child reads the clock. */
void agent_fork_no_prepare(void);

#endif
