/* main.c: load and unload of libovni-auto.so: the constructor starts tracing
 * the process (and its main thread), the destructor ends every stream after
 * the program's own exit handlers have run. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "config.h"
#include "symbols.h"
#include "real.h"
#include "../common/arena.h"
#include "../common/env.h"
#include "../common/log.h"
#include "../writer/clock.h"

extern int __register_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void), void *dso);
extern void *__dso_handle;

OA_START_TEXT static void on_fork_prepare(void)
{
	agent_fork_prepare();
}

OA_START_TEXT static void on_fork_parent(void)
{
	agent_fork_parent();
}

static OA_EARLY_TEXT void on_fork_child(void)
{
	agent_fork_child();
}

/* Every import of ours bound (from OVNI_BIND where it serves), the real
 * functions and libc's setenv found.  OVNI_BIND is taken out of the
 * program's environment (~800 bytes it did not have untraced: no `env`
 * shows it, and an exec near the kernel's limit on arguments and
 * environment fails no sooner than untraced, hooks/exec.c); the exec and
 * spawn wrappers give it to the programs this one starts (childenv.c),
 * the one it used or, when none served, the one it made.  Its own frame:
 * the table's ~1 KB on the stack is given back before the agent's start
 * goes deeper.  Returns the counts for OVNI_DEBUG's line: bound | from
 * OVNI_BIND << 10 | left << 20. */
OA_START_TEXT __attribute__((noinline)) static int bind_imports(void)
{
	char table[1280];
	int left = 0, from_parent = 0, bound = oa_real_bind(&left, &from_parent, table, sizeof(table));
	oa_real_init();
	/* The trace clock calls the vDSO itself (writer/clock.h). */
	*(void **)&oa_clock_vdso = oa_real_vdso(OA_VDSO_CLOCK_GETTIME);
	/* libc's, not the program's (env.h: bash defines its own). */
	void *se = oa_real_lookup("setenv", NULL), *ue = oa_real_lookup("unsetenv", NULL);
	if (se && se != (void *)-1)
		*(void **)&oa_setenv_fn = se;
	if (ue && ue != (void *)-1)
		*(void **)&oa_unsetenv_fn = ue;
	if (table[0]) {
		/* Made here: kept for the children (the first traced process
		 * of a run, or one with another libc than its parent's). */
		size_t n = strlen(oa_env_names[OA_ENV_BIND]), len = strlen(table);
		char *keep = malloc(n + 1 + len + 1);
		if (keep) {
			memcpy(keep, oa_env_names[OA_ENV_BIND], n);
			keep[n] = '=';
			memcpy(keep + n + 1, table, len + 1);
			oa_real_bind_keep(keep);
		}
	}
	if (oa_getenv(oa_env_names[OA_ENV_BIND]))
		oa_env_unset(OA_ENV_BIND);
	return (bound & 1023) | (from_parent & 1023) << 10 | (left & 1023) << 20;
}

__attribute__((constructor(101))) static void oa_constructor(void)
{
	if (oa_config_disabled()) {
		/* Nothing resolved, nothing loaded: each hook looks up its real
		 * function at its first call (HOOK_REAL, REAL). */
		oa_off = 1;
		return;
	}
	/* Before anything of the agent runs: every import of ours bound now,
	 * as -z now would, so no agent path meets the loader's resolver. */
	oa_real_scope(1);
	if (oa_real_program_defines("__msan_init")) {
		/* MemorySanitizer takes every byte written by code it did not
		 * build (the agent's, and libc's on the agent's behalf: an
		 * environment string) for uninitialised, and stops the program
		 * at the first one the agent passes to a function it watches.
		 * The agent stays out, as a disabled one. */
		oa_log("process %d is built with MemorySanitizer, which stops at the agent's uninstrumented code: "
		       "not traced",
		       (int)getpid());
		oa_real_scope(0);
		oa_off = 1;
		return;
	}
	int bound = bind_imports();
	agent_at_fork(oa_sym_fork_prepare, oa_sym_fork_parent, oa_sym_fork_child);
	oa_env_snapshot(1); /* until the agent's last constructor (env.h) */
	agent_process_init();
	if (oa_cfg.debug)
		oa_log("bound %d imports (%d as OVNI_BIND says), %d left to the loader", bound & 1023,
		       (bound >> 10) & 1023, bound >> 20);
	/* What libc_nonshared's pthread_atfork stub calls: the stub itself
	 * is linked at the end of our text, a page fault of its own.  For no
	 * object (NULL, not __dso_handle): the loader's end of the process
	 * takes an object's handlers off libc's list (__cxa_finalize), and a
	 * clone(CLONE_VM) child that called exit() did that on its parent's
	 * list, whose fork children were then never traced.  The agent is
	 * never unloaded (-z nodelete), and its handlers do nothing once its
	 * process has ended. */
	__register_atfork(on_fork_prepare, on_fork_parent, on_fork_child, NULL);
}

/* After the agent's last constructor (103): lookups walk the list again. */
__attribute__((constructor(104))) static void oa_constructor_done(void)
{
	if (!oa_off) {
		oa_real_scope(0);
		oa_env_snapshot(0);
		oa_arena_close(); /* what the program runs allocates from the heap */
	}
}

/* DT_FINI (Makefile: -Wl,-fini=oa_fini): crt's _fini, which does nothing,
 * sits at the end of the text, where calling it cost every process a page
 * fault of its own; this one sits with the code every process runs. */
OA_EARLY_TEXT void oa_fini(void);
OA_EARLY_TEXT void oa_fini(void)
{
}

__attribute__((destructor(101))) static void oa_destructor(void)
{
	if (oa_off)
		return;
	agent_process_finish(0, 0);
}
