/* process.c: new processes.
 * Interposes: fork, _Fork, posix_spawn, posix_spawnp, clone.
 * fork runs the agent's atfork child handler (the child drops the parent's
 * streams and starts its own process); the parent records the child's pid
 * as a process event.  _Fork runs no atfork handlers, so the child is set up
 * here.  A raw syscall(SYS_fork), or a fork-like SYS_clone or SYS_clone3
 * (bubblewrap makes its sandbox's first process so), gets the same handlers
 * (syscall() is interposed in seccomp.c).  posix_spawn children (also what system() and popen() use) are
 * traced through their environment, re-injected when the caller passed one
 * without the agent.  vfork is not wrapped (its child returns through our
 * frame on the parent's stack); its exec is handled in exec.c. */
#include <dlfcn.h>
#include <sched.h>
#include <stdarg.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../preload/childenv.h"
#include "../common/log.h"
#include "hooks.h"

#define REALS(X)                                                                                                \
	X(pid_t, fork, "fork", (void))                                                                          \
	X(pid_t, _Fork, "_Fork", (void))                                                                        \
	X(int, posix_spawn, "posix_spawn",                                                                      \
	  (pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *, char *const[], \
	   char *const[]))                                                                                      \
	X(int, posix_spawnp, "posix_spawnp",                                                                    \
	  (pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *, char *const[], \
	   char *const[]))                                                                                      \
	X(int, clone, "clone", (int (*)(void *), void *, int, void *, ...))
HOOK_REALS_EARLY(REALS) /* every shell resolves it */

/* A spawn's label names its program: apart, so that a fork's frame stays
 * small (each page of stack the parent writes while its child lives is
 * copied: the 512 bytes here were one more page per fork of bash). */
__attribute__((noinline)) static void record_spawn(const char *what, const char *path, pid_t pid)
{
	char label[512];
	oa_snprintf(label, sizeof(label), "%s %s: child %d", what, path, (int)pid);
	agent_proc_event(label);
}

OA_START_TEXT static void record_child(const char *what, const char *path, pid_t pid)
{
	HOOK_ERRNO_SAVE();
	/* oa_snprintf: a shallow stack. */
	if (path) {
		record_spawn(what, path, pid);
	} else {
		char label[48];
		oa_snprintf(label, sizeof(label), "%s: child %d", what, (int)pid);
		agent_proc_event(label);
	}
	HOOK_ERRNO_RESTORE();
}

OA_EXPORT OA_EARLY_TEXT pid_t fork(void)
{
	/* A disabled agent finds each real function at its first call; the
	 * exec ones are first called in a fork child, which loses the answer:
	 * found here once, not in every child (~6 page faults each). */
	if (oa_off && !oa_real.execve) {
		(void)HOOK_REAL(execve);
		(void)HOOK_REAL(execvpe);
	}
	pid_t pid = REAL(fork)();
	if (pid > 0 && hook_tracing())
		record_child("fork", NULL, pid);
	return pid;
}

OA_EXPORT pid_t _Fork(void)
{
	agent_fork_no_prepare();
	pid_t pid = REAL(_Fork)();
	if (pid == 0)
		agent_fork_child();
	else if (pid > 0 && hook_tracing())
		record_child("fork", NULL, pid);
	return pid;
}

/* glibc's clone() without CLONE_VM makes a new process, as fork does, but
 * runs no fork handler: the child kept the parent's agent state (its waits
 * went to the parent's streams, its threads into the parent's directory).
 * Its function now starts behind a trampoline that makes it a process of
 * its own, as a fork child (the agent's locks are held across the call, as
 * around fork).  Threads (CLONE_VM) and vfork-like calls are left alone. */
struct clone_start {
	int (*fn)(void *);
	void *arg;
};

static int clone_child(void *p)
{
	struct clone_start st = *(struct clone_start *)p; /* the child's copy */
	agent_fork_child();
	return st.fn(st.arg);
}

OA_EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	/* The optional arguments, read whether given or not (registers on
	 * the ABIs we build for; the kernel looks only at those the flags name). */
	va_list ap;
	va_start(ap, arg);
	pid_t *ptid = va_arg(ap, pid_t *);
	void *tls = va_arg(ap, void *);
	pid_t *ctid = va_arg(ap, pid_t *);
	va_end(ap);
	if (flags & CLONE_THREAD)
		oa_fdlock_threads_made(); /* common/fdroom.h */
	if ((flags & (CLONE_VM | CLONE_VFORK)) || !hook_tracing() || !fn)
		return REAL(clone)(fn, stack, flags, arg, ptid, tls, ctid);
	struct clone_start st = { fn, arg };
	agent_fork_prepare();
	int pid = REAL(clone)(clone_child, stack, flags, &st, ptid, tls, ctid);
	HOOK_ERRNO_SAVE();
	agent_fork_parent();
	if (pid > 0)
		record_child("clone", NULL, pid);
	HOOK_ERRNO_RESTORE();
	return pid;
}

int hook_raw_fork_like(long nr, long a, long b)
{
	const long threadish = CLONE_VM | CLONE_VFORK | CLONE_THREAD;
	if (nr == SYS_fork)
		return 1;
	/* x86-64 order: flags, stack, parent tid, child tid, tls */
	if (nr == SYS_clone)
		return !(a & threadish) && !b;
	/* struct clone_args: flags first, stack at 40 (any size the kernel
	 * takes has both); a probe passes no structure. */
	if (nr == SYS_clone3 && a && (unsigned long)b >= 64) {
		const uint64_t *ca = (const uint64_t *)a;
		return !(ca[0] & (uint64_t)threadish) && !ca[5];
	}
	return 0;
}

/* Before: the child kept the parent's agent state, wrote its events into
 * the parent's windows (shared mappings: the parent's own events were
 * overwritten) and its threads into the parent's directory, and was no
 * process of the trace. */
long hook_raw_fork(long (*sys)(long, ...), long nr, long a, long b, long c, long d, long e, long f)
{
	if (!hook_tracing())
		return sys(nr, a, b, c, d, e, f);
	agent_fork_prepare();
	long pid = sys(nr, a, b, c, d, e, f);
	HOOK_ERRNO_SAVE();
	if (pid == 0) {
		agent_fork_child();
	} else {
		agent_fork_parent();
		if (pid > 0)
			record_child(nr == SYS_fork ? "fork" : "clone", NULL, (pid_t)pid);
	}
	HOOK_ERRNO_RESTORE();
	return pid;
}

#define SPAWN(fn, pid, path, fa, attr, argv, envp)                                                                     \
	do {                                                                                                           \
		if (oa_sealed) {                                                                                       \
			char *off_[oa_childenv_count(envp) + 2];                                                       \
			return REAL(fn)(pid, path, fa, attr, argv, oa_childenv_sealed(envp, off_));                    \
		}                                                                                                      \
		/* Untraced here (a sandbox without the trace directory), the     \
		 * agent is still taken out of the new program's LD_PRELOAD when  \
		 * it cannot be reached from there: no loader error per child. */                                    \
		int tracing_ = hook_tracing(), reach_ = oa_guard || oa_off || oa_childenv_lib_reachable();             \
		if (!tracing_ && reach_)                                                                               \
			return REAL(fn)(pid, path, fa, attr, argv, envp);                                              \
		char *out_[oa_childenv_count(envp) + OA_CHILDENV_EXTRA + 1];                                           \
		char text_[oa_childenv_text_size(envp)];                                                               \
		char own_[OA_CHILDENV_OWN];                                                                            \
		char *const *env_ = !reach_ ? oa_childenv_without_agent(envp, out_, text_)                             \
					    : oa_childenv(envp, out_, text_,                                           \
							  agent_nspid_env(own_, sizeof(own_), 1) ? own_ : NULL, NULL); \
		pid_t child_ = 0;                                                                                      \
		int r_;                                                                                                \
		do                                                                                                     \
			r_ = REAL(fn)(&child_, path, fa, attr, argv, env_);                                            \
		while (r_ == E2BIG && env_ != envp && (hook_exec_no_room(path), env_ = envp, 1));                      \
		if (pid)                                                                                               \
			*pid = child_;                                                                                 \
		if (r_ == 0 && tracing_)                                                                               \
			record_child("spawn", path, child_);                                                           \
		return r_;                                                                                             \
	} while (0)

OA_EXPORT OA_THREAD_TEXT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
					 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	SPAWN(posix_spawn, pid, path, fa, attr, argv, envp);
}

OA_EXPORT OA_THREAD_TEXT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
					  const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	SPAWN(posix_spawnp, pid, file, fa, attr, argv, envp);
}
