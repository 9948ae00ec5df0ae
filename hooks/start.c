/* start.c: the program's start.
 * Interposes: __libc_start_main.
 * The program's main runs inside a wrapper that registers the exit-status
 * recorder with on_exit(): registered there, it runs before the loader's
 * destructors (ours ends every stream), for exit() and a return from main
 * alike. (Registered from our constructor it would run after them.) */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "hooks.h"

typedef int (*main_fn)(int, char **, char **);
#define REALS(X)                           \
	X(int, start, "__libc_start_main", \
	  (main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *))
HOOK_REALS_EARLY(REALS)

static main_fn real_main OA_EARLY_DATA; /* with the variables every process writes: in .bss, a page of its own */

OA_START_TEXT static void record_exit(int status, void *arg)
{
	(void)arg;
	/* A fork child that never started its stream notes its exit, written
	 * with the rest when the process ends (agent_exit_later). */
	if (atomic_load_explicit(&oa_pending_flag, memory_order_relaxed))
		agent_exit_later(status);
	else if (agent_active())
		agent_exit_event(status);
}

OA_START_TEXT static int wrapped_main(int argc, char **argv, char **envp)
{
	on_exit(record_exit, NULL);
	/* What glibc does with main's result, through our exit() (exit.c). */
	exit(real_main(argc, argv, envp));
}

OA_EXPORT OA_EARLY_TEXT int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
					      void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	if (oa_off) /* disabled: nothing to record at the end */
		return REAL(start)(main, argc, argv, init, fini, rtld_fini, stack_end);
	real_main = main;
	return REAL(start)(wrapped_main, argc, argv, init, fini, rtld_fini, stack_end);
}
