/* callsite.h: who called the function a hook interposes (OVNI_CALLSITES=1):
 * the first frame of the call stack outside the agent, unwound with
 * libunwind, as a mark value of channel 82 labelled with the function's
 * name (libelf; object+offset when there is no symbol). Not for signal
 * handlers: naming reads ELF files. */
#ifndef OA_CALLSITE_H
#define OA_CALLSITE_H

#include <stdint.h>

/* Nonzero when call sites are recorded (OVNI_CALLSITES). */
extern int oa_callsites;

/* The mark value of the calling function (labelled), 0 if unknown. */
int64_t oa_callsite(void);

#endif
