/* jump.c: non-local jumps out of recorded waits.
 * Interposes: longjmp, _longjmp, siglongjmp, __longjmp_chk.
 * A signal handler that interrupted a recorded wait (a sleep, a lock) and
 * leaves it with siglongjmp never returns into the wait's wrapper: without
 * this, the thread would stay "Blocked in: sleep" and Paused for the rest of
 * its life.  The jump's target stack pointer is read from the jmp_buf
 * (x86-64 glibc keeps it mangled with the thread's pointer guard); every
 * wait whose frames lie below it ends before the jump.  Elsewhere the next
 * recorded wait notices the stale ones (sync.c). */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdint.h>

#include "../common/fdroom.h"
#include "../writer/sigblock.h"
#include "sync.h"

#define REALS(X)                                                         \
	X(void, longjmp, "longjmp", (struct __jmp_buf_tag *, int))       \
	X(void, _longjmp, "_longjmp", (struct __jmp_buf_tag *, int))     \
	X(void, siglongjmp, "siglongjmp", (struct __jmp_buf_tag *, int)) \
	X(void, longjmp_chk, "__longjmp_chk", (struct __jmp_buf_tag *, int))
HOOK_REALS_EARLY(REALS) /* dash leaves by longjmp: a disabled agent runs it too */

OA_EARLY_TEXT static void before_jump(struct __jmp_buf_tag *env)
{
	/* Out of a signal handler that interrupted an agent window: that
	 * window is abandoned (the jump restores the mask it saved, if any),
	 * and the thread can be cancelled again as it could before it. */
	oa_sigblock_depth = 0;
	oa_fdlock_abandon();
	if (oa_sigblock_cancel)
		oa_sigblock_cancel_back();
#if defined(__x86_64__) && defined(__GLIBC__)
	if (!oa_self || oa_sealed)
		return;
	HOOK_ERRNO_SAVE();
	uintptr_t guard, sp = (uintptr_t)env->__jmpbuf[6]; /* JB_RSP */
	__asm__("mov %%fs:0x30, %0" : "=r"(guard));
	sp = ((sp >> 17) | (sp << 47)) ^ guard; /* ror 17, xor: PTR_DEMANGLE */
	sync_unwind(sp);
	HOOK_ERRNO_RESTORE();
#else
	(void)env;
#endif
}

#define JUMP(f, env, val)                \
	do {                             \
		before_jump(env);        \
		REAL(f)(env, val);       \
		__builtin_unreachable(); \
	} while (0)

OA_EXPORT OA_EARLY_TEXT __attribute__((noreturn)) void longjmp(struct __jmp_buf_tag env[1], int val)
{
	JUMP(longjmp, env, val);
}

OA_EXPORT OA_EARLY_TEXT __attribute__((noreturn)) void _longjmp(struct __jmp_buf_tag env[1], int val)
{
	JUMP(_longjmp, env, val);
}

OA_EXPORT OA_EARLY_TEXT __attribute__((noreturn)) void siglongjmp(struct __jmp_buf_tag env[1], int val)
{
	JUMP(siglongjmp, env, val);
}

OA_EXPORT OA_EARLY_TEXT __attribute__((noreturn)) void __longjmp_chk(struct __jmp_buf_tag env[1], int val)
{
	JUMP(longjmp_chk, env, val);
}
