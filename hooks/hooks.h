/* hooks.h: what every interposer shares: the guard that makes a hook pass
 * straight through while the agent itself is running on this thread, and
 * errno preservation. */
#ifndef OA_HOOKS_H
#define OA_HOOKS_H

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>

#include "../common/str.h"
#include "../preload/agent.h"
#include "../preload/real.h"

/* ---- One shape for the real functions a hook file calls ----
 * The file lists them, each with its type, its field and its symbol
 * ("name", or "name@VERSION" for one version of a versioned symbol):
 *
 *	#define REALS(X) X(pid_t, waitpid, "waitpid", (pid_t, int *, int)) ...
 *	HOOK_REALS(REALS)
 *
 * and gets `real`, a typed table, and REAL(field), which resolves the
 * table at the file's first hook call: most short processes call the hooks
 * of few files (~60 lookups at every start were 23K instructions of a
 * traced /bin/true, callgrind).  The lookup searches the copy of the
 * objects loaded at start (real.c), so no loader lock is taken on a
 * program thread; where that copy cannot serve (oa_real_scope_lasts()),
 * a constructor resolves the table before main as before. */
OA_EARLY_TEXT static inline void *hook_real_lookup(const char *sym)
{
	const char *at = oa_strchr(sym, '@'); /* no libc call: a disabled agent binds none lazily here */
	if (!at)
		return oa_real_lookup(sym, NULL);
	char name[64];
	size_t n = (size_t)(at - sym) < sizeof(name) - 1 ? (size_t)(at - sym) : sizeof(name) - 1;
	memcpy(name, sym, n);
	name[n] = '\0';
	return oa_real_lookup(name, at + 1);
}

#define HOOK_REAL_FIELD_(ret, field, sym, params) ret(*field) params;
#define HOOK_REAL_RESOLVE_(ret, field, sym, params)                                 \
	do {                                                                        \
		static char sym_[] OA_EARLY_DATA = sym; /* read where it is used */ \
		*(void **)&real.field = hook_real_lookup(sym_);                     \
	} while (0);
/* The resolver is in the early text only where every process, a disabled
 * one too, runs it (start.c, HOOK_REALS_EARLY); the others, ~1 KiB each,
 * left room there for what a fork child runs before its exec. */
#define HOOK_REALS(LIST) HOOK_REALS_IN(LIST, )
#define HOOK_REALS_EARLY(LIST) HOOK_REALS_IN(LIST, OA_EARLY_TEXT)
#define HOOK_REALS_IN(LIST, WHERE)                                          \
	static struct {                                                     \
		LIST(HOOK_REAL_FIELD_)                                      \
	} real OA_EARLY_DATA;                                               \
	WHERE static void hook_reals_resolve(void)                          \
	{                                                                   \
		LIST(HOOK_REAL_RESOLVE_)                                    \
	}                                                                   \
	__attribute__((constructor(102))) static void hook_reals_init(void) \
	{                                                                   \
		if (!oa_off && !oa_real_scope_lasts())                      \
			hook_reals_resolve();                               \
	}
#define REAL(field) (real.field ? real.field : (hook_reals_resolve(), real.field))

/* The program sees the real call's errno, whatever the agent's own calls
 * set: HOOK_ERRNO_SAVE() before the agent's work, HOOK_ERRNO_RESTORE()
 * after it (and on every way out), HOOK_ERRNO_AGAIN() to take the value
 * anew after a second real call; HOOK_KEEP_ERRNO(work) for one statement.
 * Every wrapper keeps errno this way. */
#define HOOK_ERRNO_SAVE() int hook_errno_ = errno
#define HOOK_ERRNO_AGAIN() (hook_errno_ = errno)
#define HOOK_ERRNO_RESTORE() (errno = hook_errno_)
#define HOOK_KEEP_ERRNO(work)         \
	do {                          \
		HOOK_ERRNO_SAVE();    \
		work;                 \
		HOOK_ERRNO_RESTORE(); \
	} while (0)

/* The real functions the agent itself calls too (preload/real.c), one
 * table for all: the one asked for is resolved if a hook runs before the
 * constructor (or in a disabled agent, whose constructor resolves none). */
#define HOOK_REAL(name)                                                               \
	(oa_real.name ? oa_real.name : ({                                             \
		static char name_[] OA_EARLY_DATA = #name;                            \
		(__typeof__(oa_real.name))oa_real_one((void **)&oa_real.name, name_); \
	}))

/* Depth of MPI calls on this thread (hooks/mpi sets it): only the outermost
 * is recorded (a Fortran binding that calls the C one, a library calling
 * itself), and the synchronisation hooks stay quiet inside MPI (its
 * progress loops yield and lock millions of times). */
extern OA_TLS int oa_mpi_depth;

/* signal.c: the fatal signals' dispositions given back to the program
 * (our handlers out, the program's own in: how many there were), and taken
 * again. */
int hook_signals_release(void);
void hook_signals_take(void);

/* exec.c: an exec or spawn whose environment, with the agent's variables,
 * passed the kernel's limit (E2BIG) is made again with the program's own;
 * this says so, once. */
void hook_exec_no_room(const char *what);

/* process.c: a system call made through syscall() (seccomp.c) that makes a
 * new process as fork does (SYS_fork; SYS_clone or SYS_clone3 without
 * CLONE_VM, CLONE_VFORK or CLONE_THREAD and with no stack of its own):
 * hook_raw_fork_like says whether it is one, hook_raw_fork makes it with
 * the agent's fork handlers around it. */
int hook_raw_fork_like(long nr, long a, long b);
long hook_raw_fork(long (*sys)(long, ...), long nr, long a, long b, long c, long d, long e, long f);
/* The exec system calls made through syscall() (exec.c): as execve and
 * execveat. */
long hook_raw_exec(long (*sys)(long, ...), long nr, long a, long b, long c, long d, long e);
/* syscall() of a call that closes or replaces a descriptor (fd.c): made
 * so that it never meets a descriptor of the agent's. */
static inline int hook_fd_syscall_nr(long nr)
{
	return nr == SYS_close
#ifdef SYS_dup2
	       || nr == SYS_dup2
#endif
#ifdef SYS_dup3
	       || nr == SYS_dup3
#endif
#ifdef SYS_close_range
	       || nr == SYS_close_range
#endif
		;
}
long hook_fd_syscall(long (*sys)(long, ...), long nr, long a, long b, long c);

/* timens.c: syscall()'s unshare and setns (after, with the result r) and
 * clone3 (before): a time namespace made or entered. */
void hook_timens_after(long nr, long a, long b, long r);
void hook_timens_before_clone3(long a, long b);

/* Should this call be traced? (agent running for the process, not re-entered) */
static inline int hook_tracing(void)
{
	return !oa_guard && agent_active();
}

#endif
