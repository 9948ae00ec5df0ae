/* backtrace.c: oa_backtrace (see backtrace.h): libunwind's unw_backtrace,
 * looked up once with dlopen (RTLD_LOCAL: its weak `backtrace` stays out
 * of the program's symbol scope). */
#include "backtrace.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

typedef int (*unw_bt_fn)(void **, int);

static _Atomic(unw_bt_fn) bt;
static _Atomic int tried; /* 0: not yet, 1: opening or opened, 2: failed */

void oa_backtrace_prepare(void)
{
	int expect = 0;
	if (!atomic_compare_exchange_strong(&tried, &expect, 1))
		return;
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	void *sym = h ? dlsym(h, "unw_backtrace") : NULL;
	if (sym)
		atomic_store_explicit(&bt, (unw_bt_fn)sym, memory_order_release);
	else
		atomic_store(&tried, 2);
}

int oa_backtrace(void **frames, int max)
{
	unw_bt_fn f = atomic_load_explicit(&bt, memory_order_acquire);
	if (__builtin_expect(f != NULL, 1))
		return f(frames, max);
	/* Not prepared: open it now (another thread opening it: this one
	 * stack is skipped). */
	oa_backtrace_prepare();
	f = atomic_load_explicit(&bt, memory_order_acquire);
	return f ? f(frames, max) : 0;
}
