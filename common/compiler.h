/* compiler.h: small compiler helpers shared by every module (header only). */
#ifndef OA_COMPILER_H
#define OA_COMPILER_H

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
/* For the few helpers of the per-event path the compiler would call. */
#define OA_INLINE inline __attribute__((always_inline))
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define USE_RET __attribute__((warn_unused_result))
#define OA_EXPORT __attribute__((visibility("default")))
#define OA_UNUSED __attribute__((unused))
#define OA_TLS __attribute__((tls_model("initial-exec"))) __thread
/* What every process touches, a disabled agent's included (docs/internals.md
 * "What a process pays for the agent"), kept where it costs no page fault of
 * its own.  OA_EARLY_DATA: variables in .data, on the page the loader has
 * already written (it zeroes that page's tail, where .bss begins).
 * OA_EARLY_TEXT: functions at the start of the text, in the 64 KiB that the
 * first instruction fault maps (with the constructors). */
#define OA_EARLY_DATA __attribute__((section(".data")))
/* Early data that a fork child writes before it execs (the pending start,
 * the symbol lock, the signal flags a shell's child resets) and that the
 * parent writes after each fork: one page, the first of the data
 * (preload/layout.ld), so that a fork costs each of them one copy-on-write
 * fault for all of it, not one per page the variables fell on. */
#define OA_FORK_DATA __attribute__((section(".data.oa_fork")))
#define OA_EARLY_TEXT __attribute__((section(".text.hot")))
/* What a traced process runs at its start and at its end (and a fork
 * child that starts, an exec'd image that takes its parent's handover),
 * but a disabled agent does not: right after the early text (the linker
 * puts .text.sorted.* there, sorted by name), so that with it the agent's
 * text costs a traced process two page faults (the 64 KiB from the text's
 * start, then the next 64 KiB window).  OA_THREAD_TEXT: what a second
 * thread brings (its start and end, the spool, blocking waits and their
 * call sites), in the window after.  Functions of writer/ and common/ are
 * marked too: the agent's layout is the only one that reads the marks.
 * bench/README.md (sixteenth session) has how the lists were found
 * (callgrind over a traced shell loop, perl, make and Python); t115
 * counts the windows, so that the start path cannot grow past them
 * unnoticed. */
#define OA_START_TEXT __attribute__((section(".text.sorted.oa_start")))
#define OA_THREAD_TEXT __attribute__((section(".text.sorted.oa_thread")))
/* The start of a process whose first stream is in the run's spool (under
 * ovnirun, writer/spool.h): after the start text, before the thread's,
 * so that the plain start keeps its two windows. */
#define OA_RUN_TEXT __attribute__((section(".text.sorted.oa_start_run")))
/* A large buffer (4 KiB or more) that a process may never touch, or a
 * smaller one that only some runs use (a collector's), placed after .bss
 * (in .lbss) so that the small variables every traced process writes
 * share a few pages instead of one page each between the buffers. */
#define OA_LARGE_BSS __attribute__((section(".lbss")))

#endif
