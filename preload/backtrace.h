/* backtrace.h: the return addresses of the calling thread's stack, with
 * libunwind, which is opened at start where stacks will be asked for, else
 * the first time one is (most processes never ask).  Never call from a signal handler. */
#ifndef OA_BACKTRACE_H
#define OA_BACKTRACE_H

/* Open libunwind now: at start when stacks will be asked for, so that no
 * thread opens it later (dlopen waits for the loader lock, which another
 * thread's dlopen holds while a constructor runs that may wait for it). */
void oa_backtrace_prepare(void);

/* Up to max return addresses, innermost first; the number written (0 when
 * libunwind cannot be opened). */
int oa_backtrace(void **frames, int max);

#endif
