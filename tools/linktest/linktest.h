/* linktest.h: decoder of LinkTest result files (2.1.16 "LKTST" and 2.1.17
 * "LinkTest" tags) on top of the SIONlib reader: one SION task per rank;
 * rank 0's stream holds the run header, every rank its host, core and, per
 * stored permutation, its N-1 timings and access pattern. Layout facts:
 * spec linktest-sion.md §3; a stream whose length and END_BLOCK marker do
 * not match the layout is reported as "unknown layout", never guessed. */
#ifndef OA_LINKTEST_H
#define OA_LINKTEST_H

#include <stdint.h>

#include "sion.h"

struct lt_rank {
	char host[256];
	int32_t core;
	double *timing;   /* [M * (N-1)] */
	uint64_t *access; /* [M * (N-1)] */
	double *a2a;      /* [M] when all-to-all */
};

struct lt_run {
	int newtag; /* "LinkTest" (2.1.17) rather than "LKTST" */
	uint32_t major, minor, patch;
	char hash[41];
	char mode[64];
	uint32_t mode_len; /* as stored (b) */
	uint8_t flags[13]; /* all-to-all, bidirectional, unidirectional, bisection, ... */
	uint64_t u64[9];   /* messages, size, warm-up, collect, retests, buffers, seed, randomized, seed */
	int n;             /* ranks */
	int m;             /* stored permutations */
	uint64_t d;        /* serial retests */
	char start[33], end[33];
	double min, avg, max, a2a_min, a2a_avg, a2a_max;
	double *retested, *slowest; /* [d] */
	uint64_t *slow_sender, *slow_receiver;
	struct lt_rank *rank;
};

/* 0, or -1 with a message (rank, offset, field) in err. */
int lt_decode(struct sion_file *s, struct lt_run *r, char *err, size_t errlen);
void lt_free(struct lt_run *r);

#endif
