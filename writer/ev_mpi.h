/* ev_mpi.h: the emitter of the mpi model's events (mpi_fmt.h). */
#ifndef OA_EV_MPI_H
#define OA_EV_MPI_H

#include "mpi_fmt.h"
#include "stream.h"

/* One event of a call: entering (`close`: its leave MCV, remembered so
 * that a stream ended inside the call, by a crash or MPI_Abort's SIGTERM,
 * still closes it) or leaving (`close` NULL). */
static inline void ev_mpi(struct oa_stream *s, const char *mcv, const char *close)
{
	unsigned q = oa_emit_enter(s);
	if (oa_emit_core(s, mcv, oa_clock_now(), NULL, 0)) {
		if (close)
			oa_stream_opened(s, mcv, close, 0, 0);
		else
			oa_stream_closed(s, mcv);
	}
	oa_emit_leave(s, q);
}
#endif
