/* exec.c: program replacement.
 * Interposes: execve, execv, execvp, execvpe, execl, execle, execlp, fexecve,
 * execveat.  Before the real call every stream of the process is ended and
 * finished (the new image, loaded with the same environment, continues the
 * calling thread's stream); if the exec fails, tracing resumes.  vfork is not
 * wrapped; a vfork child's exec is recognised by its pid and left alone. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/log.h"
#include "../common/sys.h"
#include "../preload/childenv.h"
#include "../preload/handover.h"
#include "hooks.h"

extern char **environ;

/* The environment with the agent's variables (its LD_PRELOAD entry, OVNI_*,
 * ASAN_OPTIONS's flag: ~450 bytes) did not fit the kernel's limit on
 * arguments and environment (E2BIG) where the program's own did: the exec is
 * made again with the program's own, which keeps what it had of the agent,
 * and that is said once. */
void hook_exec_no_room(const char *what)
{
	static int said;
	if (!said) {
		said = 1;
		oa_log("exec of %s: its arguments and environment leave no room for the agent's variables "
		       "(E2BIG): tried again with its own environment; a program started so may run untraced",
		       what ? what : "a program");
	}
}

/* After a failed call: when it was E2BIG with the agent's variables, take
 * the program's own environment and say so (1: call again).  Out of the
 * wrappers' hot text: a second copy of the call there was a page fault of
 * its own in every fork child that execs. */
static int no_room(char *const **envp, char *const *own, const char *what)
{
	if (errno != E2BIG || *envp == own)
		return 0;
	hook_exec_no_room(what);
	*envp = own;
	errno = E2BIG;
	return 1;
}

/* End every stream (recording the exec and its program), call the real
 * function with an environment that still loads the agent, and trace on if
 * it fails.  `env` is the environment the call passes (environ if none).
 * A fork child that has not started yet (agent.c, "A fork child starts
 * late") hands its fork and this exec to the new program instead, when that
 * one will be traced (OVNI_FORKED), and starts only if the exec fails. */
#define EXEC_WRAP(what, argv, env, call) EXEC_WRAP_AT(AT_FDCWD, 0, what, argv, env, call)
/* The same for a path relative to dirfd (execveat), checked from there. */
#define EXEC_WRAP_AT(dirfd, flags, what, argv, env, call)                                                          \
	do {                                                                                                       \
		if (oa_off) {                                                                                      \
			char *const *envp = (env);                                                                 \
			return (call);                                                                             \
		}                                                                                                  \
		if (oa_sealed) {                                                                                   \
			char *off_[oa_childenv_count(env) + 2];                                                    \
			char *const *envp = oa_childenv_sealed((env), off_);                                       \
			return (call);                                                                             \
		}                                                                                                  \
		if (!oa_real.execve)                                                                               \
			oa_real_init();                                                                            \
		int engaged_ = !oa_guard && agent_engaged();                                                       \
		if (!may_exec(dirfd, what, flags)) {                                                               \
			char *const *envp = (env);                                                                 \
			int r_ = (call);                                                                           \
			int e_ = errno;                                                                            \
			if (engaged_)                                                                              \
				agent_exec_refused(what, e_);                                                      \
			errno = e_;                                                                                \
			return r_;                                                                                 \
		}                                                                                                  \
		if (engaged_)                                                                                      \
			agent_exec_attempt(what);                                                                  \
		char *const *env_ = (env);                                                                         \
		char *out_[oa_childenv_count(env_) + OA_CHILDENV_EXTRA + 1];                                       \
		char text_[oa_childenv_text_size(env_)];                                                           \
		char own_[OA_CHILDENV_OWN];                                                                        \
		char fork_[OA_HANDOVER_PATH + 160];                                                                \
		int handover_ = engaged_ && (dirfd) == AT_FDCWD &&                                                 \
				agent_exec_handover(what, argv, env_, fork_, sizeof(fork_));                       \
		/* A handover checked that the new program reaches the agent; an   \
		 * untraced process (a sandbox without the trace directory) still \
		 * leaves out of its program's LD_PRELOAD an agent it cannot reach.*/                               \
		int reach_ = handover_ || oa_childenv_lib_reachable();                                             \
		char *const *envp = !reach_    ? oa_childenv_without_agent(env_, out_, text_)                      \
				    : engaged_ ? oa_childenv(env_, out_, text_,                                    \
							     agent_nspid_env(own_, sizeof(own_), 0) ? own_ : NULL, \
							     handover_ ? fork_ : NULL)                             \
					       : env_;                                                             \
		if (handover_) {                                                                                   \
			int r_;                                                                                    \
			do                                                                                         \
				r_ = (call);                                                                       \
			while (r_ < 0 && no_room(&envp, env_, what));                                              \
			int e_ = errno;                                                                            \
			agent_exec_handover_failed();                                                              \
			exec_event("exec failed", what, e_);                                                       \
			errno = e_;                                                                                \
			return r_;                                                                                 \
		}                                                                                                  \
		exec_event("exec", what, 0);                                                                       \
		int traced = agent_exec_begin();                                                                   \
		int r;                                                                                             \
		do                                                                                                 \
			r = (call);                                                                                \
		while (r < 0 && no_room(&envp, env_, what));                                                       \
		int e = errno;                                                                                     \
		agent_exec_failed(traced);                                                                         \
		exec_event("exec failed", what, e);                                                                \
		errno = e;                                                                                         \
		return r;                                                                                          \
	} while (0)

/* Shells try execve() on every PATH directory: a target that plainly cannot
 * be executed fails at once, without ending and restarting every stream,
 * and is recorded once per search (agent_exec_refused). */
/* It runs in every fork child of a shell before its exec, which maps
 * libc's text anew: a loop of ours and the system call itself, not libc's
 * strchr and faccessat (two windows of libc's text, a page fault each). */
OA_EARLY_TEXT static int may_exec(int dirfd, const char *path, int flags)
{
	const char *p = path;
	while (p && *p && *p != '/')
		p++;
	if (!p || !*p)
		return 1; /* execvp-style names are searched by libc itself */
	int how = AT_EACCESS | (flags & AT_EMPTY_PATH);
	long r = oa_sys4(SYS_faccessat2, dirfd, (long)path, X_OK, how);
	if (r == -ENOSYS || r == -EPERM) /* a kernel before 5.8, or a filter that refuses it: libc's */
		r = faccessat(dirfd, path, X_OK, how);
	return r == 0;
}

static void exec_event(const char *kind, const char *path, int err)
{
	if (!hook_tracing())
		return;
	HOOK_ERRNO_SAVE();
	char label[512];
	snprintf(label, sizeof(label), "%s %s%s%s", kind, path ? path : "(fd)", err ? ": " : "",
		 err ? strerror(err) : "");
	agent_proc_event(label);
	HOOK_ERRNO_RESTORE();
}

OA_EXPORT OA_EARLY_TEXT int execve(const char *path, char *const argv[], char *const envp_in[])
{
	EXEC_WRAP(path, argv, envp_in, HOOK_REAL(execve)(path, argv, envp));
}

OA_EXPORT OA_EARLY_TEXT int execv(const char *path, char *const argv[])
{
	EXEC_WRAP(path, argv, environ, HOOK_REAL(execve)(path, argv, envp));
}

OA_EXPORT OA_EARLY_TEXT int execvp(const char *file, char *const argv[])
{
	EXEC_WRAP(file, argv, environ, HOOK_REAL(execvpe)(file, argv, envp));
}

OA_EXPORT OA_EARLY_TEXT int execvpe(const char *file, char *const argv[], char *const envp_in[])
{
	EXEC_WRAP(file, argv, envp_in, HOOK_REAL(execvpe)(file, argv, envp));
}

OA_EXPORT int fexecve(int fd, char *const argv[], char *const envp_in[])
{
	EXEC_WRAP(NULL, argv, envp_in, HOOK_REAL(fexecve)(fd, argv, envp));
}

OA_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp_in[], int flags)
{
	/* Checked from dirfd, not from the current directory: a path that
	 * works from there was taken for a refused exec, the streams were not
	 * ended, and the new image wrote after a zeroed window. */
	EXEC_WRAP_AT(dirfd, flags, path, argv, envp_in, HOOK_REAL(execveat)(dirfd, path, argv, envp, flags));
}

/* syscall(SYS_execve, ...) and syscall(SYS_execveat, ...) (seccomp.c): the
 * wrappers' work around the system call itself.  A started process that
 * exec'd so left its stream open, and its next image wrote after a zeroed
 * window (check: "not an event"). */
long hook_raw_exec(long (*sys)(long, ...), long nr, long a, long b, long c, long d, long fl)
{
#ifdef SYS_execveat
	if (nr == SYS_execveat)
		EXEC_WRAP_AT((int)a, (int)fl, (const char *)b, (char *const *)c, (char *const *)d,
			     sys(SYS_execveat, a, b, c, (long)envp, fl));
#endif
	EXEC_WRAP((const char *)a, (char *const *)b, (char *const *)c, sys(SYS_execve, a, b, (long)envp));
}

/* The list forms: collect the arguments on the stack (no malloc). */
static int count_args(va_list ap)
{
	int n = 1;
	while (va_arg(ap, char *))
		n++;
	return n;
}

#define COLLECT_ARGS(argv, arg0, last)   \
	va_list ap;                      \
	va_start(ap, last);              \
	int n_ = count_args(ap);         \
	va_end(ap);                      \
	char *argv[n_ + 1];              \
	argv[0] = (char *)(arg0);        \
	va_start(ap, last);              \
	for (int i_ = 1; i_ <= n_; i_++) \
		argv[i_] = va_arg(ap, char *);

OA_EXPORT int execl(const char *path, const char *arg, ...)
{
	COLLECT_ARGS(argv, arg, arg);
	va_end(ap);
	EXEC_WRAP(path, argv, environ, HOOK_REAL(execve)(path, argv, envp));
}

OA_EXPORT int execlp(const char *file, const char *arg, ...)
{
	COLLECT_ARGS(argv, arg, arg);
	va_end(ap);
	EXEC_WRAP(file, argv, environ, HOOK_REAL(execvpe)(file, argv, envp));
}

OA_EXPORT int execle(const char *path, const char *arg, ...)
{
	COLLECT_ARGS(argv, arg, arg);
	char *const *envp_in = va_arg(ap, char *const *);
	va_end(ap);
	EXEC_WRAP(path, argv, envp_in, HOOK_REAL(execve)(path, argv, envp));
}
