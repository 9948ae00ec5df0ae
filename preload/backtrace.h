/* backtrace.h: the return addresses of the calling thread's stack, with
 * libunwind, which is opened the first time a stack is asked for (most
 * processes never ask).  Never call from a signal handler. */
#ifndef OA_BACKTRACE_H
#define OA_BACKTRACE_H

/* Up to max return addresses, innermost first; the number written (0 when
 * libunwind cannot be opened). */
int oa_backtrace(void **frames, int max);

#endif
