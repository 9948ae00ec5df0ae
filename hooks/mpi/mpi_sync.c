/* mpi_sync.c: the clock offset of every loom of an MPI run, measured inside
 * MPI_Init (and again in MPI_Finalize, for the drift), written by rank 0 as
 * <tracedir>/clock-offsets.txt in the format the emulator reads.
 *
 * All ranks duplicate MPI_COMM_WORLD (nonblocking, with a time limit: a
 * rank without the agent never joins, and then nothing is measured) and
 * share their loom names; the first rank of each loom other than rank 0's
 * plays ping-pong with rank 0 on that private communicator, round trips of
 * 8 bytes: rank 0 reads its clock t0, the peer answers with its clock tp,
 * rank 0 reads t1.  ROUNDS of them; while the shortest round trip is still
 * over GOOD_RTT_NS (a loaded machine: the error of one round is up to half
 * its round trip), ROUNDS more, up to MAX_ROUNDS or MAX_MEASURE_NS; a 0 in
 * place of t0 tells the peer the series is over.  With the quarter of the rounds that had the
 * shortest round trips, the offset is the median of (t0 + t1) / 2 - tp: what
 * the emulator adds to that loom's clocks.  No traffic on the program's
 * communicators; a few milliseconds per loom on one machine. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../preload/config.h"
#include "../../writer/clock.h"
#include "../../common/log.h"
#include "../../common/offsets.h"
#include "../hooks.h"
#include "mpi.h"

#define ROUNDS 64
#define MAX_ROUNDS 1024
#define GOOD_RTT_NS 8000.0
#define MAX_MEASURE_NS 100000000ull  /* 0.1 s */
#define JOIN_LIMIT_NS 10000000000ull /* 10 s */
#define HOST_MAX 64

struct member {
	uint64_t loom_hash;
	char host[HOST_MAX]; /* the loom name up to its first '.': the emulator's key */
};

struct loom_offset {
	int rank; /* the loom's first rank */
	char host[HOST_MAX];
	double median, mean, stdev;
	double rtt; /* the series' shortest round trip */
};

static struct loom_offset *first; /* from MPI_Init, for the drift */
static int nfirst;
static uint64_t first_clock;

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Rank 0's side with one peer. Returns 0 when every round went through. */
static struct oa_offset_sample samples[MAX_ROUNDS];

static int measure(intptr_t comm, int peer, struct loom_offset *o)
{
	struct oa_offset_sample *s = samples;
	uint64_t start = oa_clock_now(), stop = 0;
	double best = -1;
	int n = 0;
	for (;;) {
		uint64_t t0 = oa_clock_now(), tp = 0;
		if (oa_pmpi.send(&t0, 8, oa_mpi_abi.byte, peer, 0, comm) != 0 ||
		    oa_pmpi.recv(&tp, 8, oa_mpi_abi.byte, peer, 0, comm, oa_mpi_abi.status_ignore) != 0)
			return -1;
		uint64_t t1 = oa_clock_now();
		s[n].rtt = (double)(t1 - t0);
		s[n].offset = ((double)t0 + (double)(t1 - t0) / 2.0) - (double)tp;
		if (best < 0 || s[n].rtt < best)
			best = s[n].rtt;
		n++;
		if (n % ROUNDS == 0 && (best <= GOOD_RTT_NS || n >= MAX_ROUNDS || t1 - start >= MAX_MEASURE_NS))
			break;
	}
	if (oa_pmpi.send(&stop, 8, oa_mpi_abi.byte, peer, 0, comm) != 0)
		return -1;
	struct oa_offset est;
	oa_offset_estimate(s, n, &est);
	o->median = est.median;
	o->mean = est.mean;
	o->stdev = est.stdev;
	o->rtt = est.rtt;
	return 0;
}

/* The peer's side: answer every round with its clock, until the 0. */
static int serve(intptr_t comm)
{
	for (;;) {
		uint64_t t0, tp;
		if (oa_pmpi.recv(&t0, 8, oa_mpi_abi.byte, 0, 0, comm, oa_mpi_abi.status_ignore) != 0)
			return -1;
		if (!t0)
			return 0;
		tp = oa_clock_now();
		if (oa_pmpi.send(&tp, 8, oa_mpi_abi.byte, 0, 0, comm) != 0)
			return -1;
	}
}

static void write_file(const char *name, const char *text)
{
	char path[4200], tmp[4300];
	snprintf(path, sizeof(path), "%s/%s", oa_cfg.tracedir, name);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		oa_log("cannot write %s: %s\n", tmp, strerror(errno));
		return;
	}
	int bad = fputs(text, f) < 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		oa_log("cannot write %s: %s\n", path, strerror(errno));
		unlink(tmp);
	}
}

/* Rank 0: clock-offsets.txt (and, at the end, clock-drift.txt). At the end
 * the offset is the middle of the two measurements: the smallest error
 * over the run when the clocks drift at a steady rate. */
static void write_offsets(struct loom_offset *o, int n, int at_end)
{
	size_t size = 128 + (size_t)n * (HOST_MAX + 128);
	char *text = malloc(size), *drift = at_end ? malloc(size) : NULL;
	if (!text || (at_end && !drift)) {
		free(text);
		free(drift);
		return;
	}
	size_t len = (size_t)snprintf(text, size, OA_OFFSETS_HEADER), dlen = 0;
	if (drift)
		dlen = (size_t)snprintf(drift, size, "hostname offset_init offset_finalize drift_ns seconds\n");
	double secs = (double)(oa_clock_now() - first_clock) / 1e9;
	for (int i = 0; i < n; i++) {
		double med = o[i].median, mean = o[i].mean;
		if (at_end && i < nfirst && first[i].rank == o[i].rank) {
			double w = oa_offset_weight(first[i].rtt, o[i].rtt);
			med = (1 - w) * first[i].median + w * o[i].median;
			mean = (1 - w) * first[i].mean + w * o[i].mean;
			dlen += (size_t)snprintf(drift + dlen, size - dlen, "%s %.0f %.0f %.0f %.3f\n", o[i].host,
						 first[i].median, o[i].median, o[i].median - first[i].median, secs);
		}
		len += (size_t)oa_offsets_line(text + len, size - len, o[i].rank, o[i].host, med, mean, o[i].stdev);
	}
	write_file("clock-offsets.txt", text);
	if (drift)
		write_file("clock-drift.txt", drift);
	free(text);
	free(drift);
}

static void host_of_loom(char *out)
{
	const char *loom = oa_meta.loom[0] ? oa_meta.loom : oa_cfg.loom;
	size_t n = strcspn(loom, ".");
	if (n >= HOST_MAX)
		n = HOST_MAX - 1;
	memcpy(out, loom, n);
	out[n] = '\0';
}

void oa_mpi_sync_one_node(int rank)
{
	if (rank != 0 || !agent_traced())
		return;
	struct loom_offset o;
	memset(&o, 0, sizeof(o));
	host_of_loom(o.host);
	write_offsets(&o, 1, 0);
}

void oa_mpi_sync_clocks(int rank, int nranks, int at_end)
{
	const struct oa_pmpi *p = &oa_pmpi;
	if (!p->comm_idup || !p->comm_free || !p->test || !p->allgather || !p->send || !p->recv)
		return;
	uint64_t start = oa_clock_mono();
	intptr_t comm = 0, req = 0;
	int flag = 0;
	if (p->comm_idup(oa_mpi_abi.comm_world, &comm, &req) != 0)
		return;
	while (!flag) {
		if (p->test(&req, &flag, oa_mpi_abi.status_ignore) != 0)
			return;
		if (!flag && oa_clock_mono() - start > JOIN_LIMIT_NS) {
			if (rank == 0)
				oa_log("clock offsets not measured: not every rank joined within 10 s "
				       "(a rank without the agent?); OVNI_MPI_SYNC=0 turns the measurement off\n");
			return;
		}
		if (!flag)
			sched_yield();
	}
	struct member me, *buf = calloc((size_t)nranks, sizeof(*buf));
	if (!buf)
		return; /* out of memory in MPI_Init: the others time out */
	memset(&me, 0, sizeof(me));
	host_of_loom(me.host);
	me.loom_hash = hash_str(oa_meta.loom[0] ? oa_meta.loom : oa_cfg.loom);
	int ok = p->allgather(&me, (int)sizeof(me), oa_mpi_abi.byte, buf, (int)sizeof(me), oa_mpi_abi.byte, comm) == 0;
	struct loom_offset *res = rank == 0 && ok ? calloc((size_t)nranks, sizeof(*res)) : NULL;
	int nres = 0;
	for (int r = 0; ok && r < nranks; r++) {
		int leader = 1;
		for (int q = 0; q < r && leader; q++)
			leader = buf[q].loom_hash != buf[r].loom_hash;
		if (!leader)
			continue;
		int same_as_0 = buf[r].loom_hash == buf[0].loom_hash;
		if (rank == 0) {
			struct loom_offset *o = res ? &res[nres++] : NULL;
			if (o) {
				o->rank = r;
				memcpy(o->host, buf[r].host, HOST_MAX);
				o->host[HOST_MAX - 1] = '\0';
			}
			if (!same_as_0 && (o ? measure(comm, r, o) : -1) != 0)
				ok = 0;
		} else if (r == rank && !same_as_0 && serve(comm) != 0) {
			ok = 0;
		}
	}
	p->comm_free(&comm);
	if (rank == 0 && ok && res && agent_traced()) {
		/* One line per host name: the emulator matches looms by it. */
		int n = 0;
		for (int i = 0; i < nres; i++) {
			int dup = 0;
			for (int j = 0; j < n && !dup; j++)
				dup = !strcmp(res[j].host, res[i].host);
			if (!dup)
				res[n++] = res[i];
		}
		if (n >= 1) {
			write_offsets(res, n, at_end);
			if (oa_cfg.debug)
				oa_log("mpi: clock offsets of %d looms measured in %lu us\n", n,
				       (unsigned long)((oa_clock_mono() - start) / 1000));
		}
		if (!at_end) {
			first = res, nfirst = n, res = NULL;
			first_clock = oa_clock_now();
		}
	}
	free(res);
	free(buf);
}
