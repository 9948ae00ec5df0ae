/* offsets.h: the clock offset of another node, estimated from ping-pongs,
 * and the lines of clock-offsets.txt.  One estimator for both places that
 * measure: the MPI interposer (ranks, in MPI_Init and MPI_Finalize) and the
 * collector (hosts, at join and at the end).  No libm (the agent must not
 * need it). */
#ifndef OA_OFFSETS_H
#define OA_OFFSETS_H

#include <stddef.h>

/* One ping-pong: the other clock's reading minus ours at the middle of the
 * round trip, and the round trip, in ns. */
struct oa_offset_sample {
	double offset, rtt;
};

struct oa_offset {
	double median, mean, stdev; /* over the rounds kept */
	double rtt;                 /* the shortest round trip */
};

/* From n samples (reordered in place): the rounds whose round trip is close
 * to the shortest (within 25% + 1 us, at least 4, at most a quarter of
 * them) are kept, since an offset's error is at most half its round trip
 * and a longer one was delayed one way (a busy node). */
void oa_offset_estimate(struct oa_offset_sample *s, int n, struct oa_offset *out);

/* Measured twice (start and end of a run): the weight of the second in the
 * offset written, the middle (0.5, the smallest error over a run whose
 * clocks drift steadily) unless one series had much longer round trips
 * (0: the first alone, 1: the second alone). */
double oa_offset_weight(double rtt_first, double rtt_second);

/* clock-offsets.txt's header line, and one line per rank or host. */
#define OA_OFFSETS_HEADER "rank hostname offset_median offset_mean offset_std\n"
int oa_offsets_line(char *buf, size_t size, int rank, const char *host, double median, double mean, double stdev);

#endif
