/* hooks.h: what every interposer shares: the guard that makes a hook pass
 * straight through while the agent itself is running on this thread, and
 * errno preservation. */
#ifndef OA_HOOKS_H
#define OA_HOOKS_H

#include <errno.h>

#include "../preload/agent.h"
#include "../preload/real.h"

/* Resolve the real symbol if a hook runs before the constructor. */
#define HOOK_REAL(name) (oa_real.name ? oa_real.name : (oa_real_init(), oa_real.name))

/* Depth of MPI calls on this thread (hooks/mpi sets it): only the outermost
 * is recorded (a Fortran binding that calls the C one, a library calling
 * itself), and the synchronisation hooks stay quiet inside MPI (its
 * progress loops yield and lock millions of times). */
extern OA_TLS int oa_mpi_depth;

/* Should this call be traced? (agent running for the process, not re-entered) */
static inline int hook_tracing(void)
{
	return !oa_guard && agent_active();
}

#endif
