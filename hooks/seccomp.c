/* seccomp.c: a program that confines itself (and names a thread).
 * Interposes: prctl, syscall (a fork made through it: process.c; an exec:
 * exec.c; a close or dup: fd.c; a time namespace: timens.c).
 * prctl(PR_SET_NAME) names the calling thread, as pthread_setname_np does
 * (names.c); the rest is about seccomp.
 *
 * A seccomp filter (prctl(PR_SET_SECCOMP), or the seccomp system call, which
 * libseccomp makes through syscall()) lets the program make only the system
 * calls it allows from then on, and kills it (or fails the call) at any
 * other: OpenSSH's pre-authentication child, sandboxes (bubblewrap's
 * --seccomp, which then execs the program).  What the agent does later (a window mapped
 * for the next events, the stream's files at the end, a fork child's
 * directory) is not on the program's list, so under the agent the program
 * died of SIGSYS where it would have run.  Before the filter goes in, the
 * agent records that it does, says once on stderr that the process runs
 * untraced from here, gives the fatal signals back to the program (their
 * handler would have to make system calls), stops sampling, sets
 * OVNI_DISABLE=1 for the programs the process starts (they run under the
 * filter too) and seals the process (agent.h): no more events, no system
 * call of the agent, streams left for whoever finishes the process.  A
 * filter the kernel refuses undoes all but the sampling.  A probe (no
 * filter given), a query and a filter installed by a raw system call
 * instruction (not through libc) are left alone. */
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <string.h>
#include <sys/prctl.h>
#include <sched.h>
#include <sys/syscall.h>

#include "../common/env.h"
#include "../common/log.h"
#include "../preload/sample.h"
#include "../writer/stream.h"
#include "hooks.h"
#include "names.h"

#define REALS(X)                                          \
	X(int, prctl, "prctl", (int, unsigned long, ...)) \
	X(long, syscall, "syscall", (long, ...))
HOOK_REALS(REALS)

static int said;

struct confine {
	struct agent_seal was;
	int engaged;
	int released; /* fatal signals given back */
	int had_off;  /* OVNI_DISABLE was set already (a disabled agent never gets here) */
	char old_off[64];
};

/* Before the filter: everything that still needs a system call. */
static void confine_begin(struct confine *c)
{
	/* Said where something is lost: a process traced (or its raw clone's
	 * child, bwrap's, whose programs would be), not one that runs
	 * untraced anyway (Chromium's sandboxed processes, which cannot reach
	 * the trace). */
	int say = !oa_guard && agent_engaged();
	/* Not that raw clone's child: the state it sees is its parent's, and
	 * so are the streams. */
	c->engaged = say && !agent_foreign();
	if (c->engaged) {
		/* A fork child not started yet starts now: its fork is kept. */
		agent_start_pending(0);
		struct oa_thread *t = agent_active() ? oa_self : NULL;
		if (t) {
			agent_proc_event("seccomp filter: untraced from here");
			/* Its labels so far (that one's too): a finisher has
			 * only what stream.json says. */
			oa_guard++;
			oa_stream_sync_meta(&t->s);
			oa_guard--;
		}
		oa_sample_stop(NULL);
	}
	/* Whoever's they are (a raw clone's child has its parent's). */
	c->released = hook_signals_release();
	/* Once a process, and before the filter, which may forbid the
	 * write: so as a condition (a program that tried filters the kernel
	 * refuses, in a loop, wrote two lines a try: this one and a "traced
	 * again").  What happened is in its process events. */
	if (say && !said) {
		said = 1;
		oa_log("process %d confines itself with a seccomp filter, which may forbid what the agent does: "
		       "once the kernel takes it, neither it nor the programs it starts are traced",
		       (int)getpid());
	}
	const char *v = oa_env(OA_ENV_DISABLE);
	c->had_off = v != NULL;
	if (v) {
		size_t n = strlen(v);
		if (n >= sizeof(c->old_off))
			n = sizeof(c->old_off) - 1;
		memcpy(c->old_off, v, n);
		c->old_off[n] = '\0';
	}
	oa_env_set(OA_ENV_DISABLE, "1");
	agent_seal(&c->was);
}

/* After it: nothing, or, when the kernel refused it, tracing goes on. */
static void confine_end(struct confine *c, int refused)
{
	if (!refused)
		return;
	agent_unseal(&c->was);
	if (c->had_off)
		oa_env_set(OA_ENV_DISABLE, c->old_off);
	else
		oa_env_unset(OA_ENV_DISABLE);
	if (c->released)
		hook_signals_take();
	if (c->engaged) {
		if (agent_active())
			agent_proc_event("seccomp filter refused: traced again");
	}
}

/* A filter the kernel refuses whatever it holds: without no_new_privs, a
 * process needs CAP_SYS_ADMIN (in its user namespace) to install one
 * (EACCES; an unprivileged program that tries without it, as some probe
 * for seccomp).  Nothing to confine: the call goes through as it is, the
 * process traced and nothing said.  (Not read: the filter, which the
 * program may pass as a bad pointer, for the kernel to refuse.) */
static int surely_refused(int filter)
{
	if (!filter || REAL(prctl)(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 0)
		return 0;
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	if (REAL(syscall)(SYS_capget, &h, d) != 0)
		return 0;
	return !(d[CAP_SYS_ADMIN / 32].effective & (1u << (CAP_SYS_ADMIN % 32)));
}

/* Does this call install a filter (or the strict mode)? */
static int installs(unsigned long mode, const void *prog)
{
	return mode == SECCOMP_MODE_STRICT || (mode == SECCOMP_MODE_FILTER && prog);
}

OA_EXPORT int prctl(int option, ...)
{
	va_list ap;
	va_start(ap, option);
	unsigned long a = va_arg(ap, unsigned long), b = va_arg(ap, unsigned long), c = va_arg(ap, unsigned long),
		      d = va_arg(ap, unsigned long);
	va_end(ap);
	if (option == PR_SET_NAME && !oa_off) {
		/* A thread name, as pthread_setname_np's (names.c). */
		int r = REAL(prctl)(option, a, b, c, d);
		if (r == 0 && a && hook_tracing()) {
			HOOK_ERRNO_SAVE();
			/* What the kernel read: up to 15 bytes, to the first NUL
			 * (never past it: the string may end a page). */
			char name[16];
			const char *from = (const char *)a;
			size_t n = 0;
			while (n < sizeof(name) - 1 && from[n])
				n++;
			memcpy(name, from, n);
			name[n] = '\0';
			names_set(name);
			HOOK_ERRNO_RESTORE();
		}
		return r;
	}
	if (option != PR_SET_SECCOMP || oa_off || oa_sealed || !installs(a, (const void *)b) ||
	    surely_refused(a == SECCOMP_MODE_FILTER))
		return REAL(prctl)(option, a, b, c, d);
	struct confine cf;
	HOOK_ERRNO_SAVE();
	confine_begin(&cf);
	HOOK_ERRNO_RESTORE();
	int r = REAL(prctl)(option, a, b, c, d);
	int e = errno;
	confine_end(&cf, r != 0);
	errno = e;
	return r;
}

OA_EXPORT OA_THREAD_TEXT long syscall(long nr, ...)
{
	/* Six arguments read, whether given or not (registers, and the
	 * caller's stack for the sixth, on the ABIs we build for), as libc's
	 * own syscall() passes them to the kernel. */
	va_list ap;
	va_start(ap, nr);
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long), d = va_arg(ap, long),
	     e = va_arg(ap, long), f = va_arg(ap, long);
	va_end(ap);
	if (__builtin_expect(nr == SYS_clone, 0) && (a & CLONE_THREAD))
		oa_fdlock_threads_made(); /* common/fdroom.h */
	if (__builtin_expect(nr == SYS_clone3, 0) && a && (unsigned long)b >= 8 &&
	    (*(const uint64_t *)a & CLONE_THREAD))
		oa_fdlock_threads_made();
	if (__builtin_expect(nr == SYS_clone3, 0) && !oa_off)
		hook_timens_before_clone3(a, b);
	if (__builtin_expect(nr == SYS_fork || nr == SYS_clone || nr == SYS_clone3, 0) && !oa_off && !oa_sealed &&
	    hook_raw_fork_like(nr, a, b))
		return hook_raw_fork(REAL(syscall), nr, a, b, c, d, e, f);
	if (__builtin_expect(nr == SYS_unshare || nr == SYS_setns, 0) && !oa_off) {
		long r = REAL(syscall)(nr, a, b, c, d, e, f);
		hook_timens_after(nr, a, b, r);
		return r;
	}
	if (__builtin_expect(nr == SYS_execve, 0)
#ifdef SYS_execveat
	    || __builtin_expect(nr == SYS_execveat, 0)
#endif
	) {
		if (!oa_off)
			return hook_raw_exec(REAL(syscall), nr, a, b, c, d, e);
	}
	if (__builtin_expect(hook_fd_syscall_nr(nr), 0))
		return hook_fd_syscall(REAL(syscall), nr, a, b, c);
	if (__builtin_expect(nr != SYS_seccomp, 1) || oa_off || oa_sealed ||
	    /* The strict mode takes no flags and no argument: libseccomp's
	     * probe (flags 1, NULL: EINVAL, `man` runs it) installs nothing. */
	    !((a == SECCOMP_SET_MODE_STRICT && !b && !c) || (a == SECCOMP_SET_MODE_FILTER && c)) ||
	    surely_refused(a == SECCOMP_SET_MODE_FILTER))
		return REAL(syscall)(nr, a, b, c, d, e, f);
	struct confine cf;
	HOOK_ERRNO_SAVE();
	confine_begin(&cf);
	HOOK_ERRNO_RESTORE();
	long r = REAL(syscall)(nr, a, b, c, d, e, f);
	int err = errno;
	/* A listener's descriptor is a success; with TSYNC alone, a thread id
	 * is the thread that could not take the filter (none took it). */
	confine_end(&cf,
		    r < 0 || (r > 0 && (b & SECCOMP_FILTER_FLAG_TSYNC) && !(b & SECCOMP_FILTER_FLAG_NEW_LISTENER)));
	errno = err;
	return r;
}
