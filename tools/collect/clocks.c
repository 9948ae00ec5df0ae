/* clocks.c: each host's clock offset against the collector's clock, by
 * ping-pong with one of its processes (see collect.h), and the files the
 * emulator reads: clock-offsets.txt (and clock-drift.txt when a host was
 * measured twice). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "../../common/collect_fmt.h"
#include "collect.h"
#include "../../common/offsets.h"

uint64_t oa_col_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Exactly n bytes, waiting in recv() itself: the agent waits the same way,
 * so the two directions of a round trip cost the same (waking from poll()
 * and then reading made the way back ~2.6 us longer: a 1.3 us bias). */
static int read_n(int fd, uint8_t *buf, size_t n, uint64_t deadline)
{
	while (n) {
		ssize_t r = recv(fd, buf, n, 0);
		if (r < 0 && errno == EINTR && oa_col_clock() < deadline)
			continue;
		if (r <= 0)
			return -1;
		buf += r;
		n -= (size_t)r;
	}
	return 0;
}

int oa_col_clock_measure(int fd, uint64_t deadline, double *median, double *mean, double *std, double *rtt)
{
	struct oa_offset_sample s[OA_COL_SYNC_ROUNDS];
	/* Blocking for the measurement; the whole of it ends by the deadline
	 * (a client answering slowly, byte by byte, holds nobody up longer). */
	int fl = fcntl(fd, F_GETFL);
	struct timeval none = { 0, 0 };
	fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	int r = 0;
	for (int i = 0; i < OA_COL_SYNC_ROUNDS && !r; i++) {
		uint64_t now = oa_col_clock();
		if (now >= deadline) {
			r = i ? -2 : -1;
			break;
		}
		uint64_t left = deadline - now;
		struct timeval tv = { .tv_sec = (time_t)(left / 1000000000ull),
				      .tv_usec = (suseconds_t)(left % 1000000000ull / 1000) + 1 };
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		uint8_t ping[OA_COL_HDR], pong[OA_COL_HDR + 8];
		oa_col_put32(ping, OA_COL_PING);
		oa_col_put32(ping + 4, 0);
		uint64_t t0 = oa_col_clock();
		if (send(fd, ping, sizeof(ping), MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof(ping) ||
		    read_n(fd, pong, sizeof(pong), deadline)) {
			r = i && oa_col_clock() >= deadline ? -2 : -1;
			break;
		}
		uint64_t t1 = oa_col_clock();
		if (oa_col_get32(pong) != OA_COL_PONG || oa_col_get32(pong + 4) != 8) {
			r = -1;
			break;
		}
		uint64_t tc = oa_col_get64(pong + OA_COL_HDR);
		s[i].offset = ((double)t0 + (double)t1) / 2 - (double)tc;
		s[i].rtt = (double)(t1 - t0);
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof(none));
	fcntl(fd, F_SETFL, fl);
	if (r)
		return r;
	struct oa_offset est;
	oa_offset_estimate(s, OA_COL_SYNC_ROUNDS, &est);
	*median = est.median;
	*mean = est.mean;
	*std = est.stdev;
	*rtt = est.rtt;
	return 0;
}

static void host_name(const char *loom, char *out, size_t size)
{
	size_t n = strcspn(loom, ".");
	if (n >= size)
		n = size - 1;
	memcpy(out, loom, n);
	out[n] = '\0';
}

/* clock-offsets.txt: every measured host; measured twice, the middle of the
 * two (the smallest error over the run for a steady drift). */
void oa_col_clock_write(FILE *summary)
{
	size_t size = 256, len = 0, dlen = 0;
	int n = 0, twice = 0;
	for (struct oa_col_host *h = oa_col_hosts; h; h = h->next)
		size += 3 * COL_LOOM_MAX + 200;
	char *text = malloc(size), *drift = malloc(size);
	if (!text || !drift)
		goto out;
	len = (size_t)snprintf(text, size, OA_OFFSETS_HEADER);
	dlen = (size_t)snprintf(drift, size, "hostname offset_join offset_end drift_ns seconds\n");
	for (struct oa_col_host *h = oa_col_hosts; h; h = h->next) {
		/* The emulator refuses a line for a host with no loom in the
		 * trace (one whose processes sent nothing). */
		char loomdir[COL_LOOM_MAX + 8];
		struct stat st;
		snprintf(loomdir, sizeof(loomdir), "loom.%s", h->loom);
		if (!h->measured || fstatat(oa_col_store_root(), loomdir, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		char host[COL_LOOM_MAX + 1];
		host_name(h->loom, host, sizeof(host));
		double med = h->first, mean = h->first_mean, std = h->first_std;
		/* Measured twice: the middle, unless one series was much worse
		 * (longer round trips) than the other; then the better one. */
		double w = h->measured == 2 ? oa_offset_weight(h->first_rtt, h->last_rtt) : 0;
		if (h->measured == 2 && w == 0) {
			dlen += (size_t)snprintf(drift + dlen, size - dlen,
						 "%s %.0f %.0f %.0f %.3f (end: round trip %.0f us, not used)\n", host,
						 h->first, h->last, h->last - h->first,
						 (double)(h->t_last - h->t_first) / 1e9, h->last_rtt / 1000);
			twice++;
		} else if (h->measured == 2 && w == 1) {
			med = h->last, mean = h->last_mean, std = h->last_std;
			dlen += (size_t)snprintf(drift + dlen, size - dlen,
						 "%s %.0f %.0f %.0f %.3f (join: round trip %.0f us, not used)\n", host,
						 h->first, h->last, h->last - h->first,
						 (double)(h->t_last - h->t_first) / 1e9, h->first_rtt / 1000);
			twice++;
		} else if (h->measured == 2) {
			med = (h->first + h->last) / 2;
			mean = (h->first_mean + h->last_mean) / 2;
			std = h->first_std > h->last_std ? h->first_std : h->last_std;
			dlen += (size_t)snprintf(drift + dlen, size - dlen, "%s %.0f %.0f %.0f %.3f\n", host, h->first,
						 h->last, h->last - h->first, (double)(h->t_last - h->t_first) / 1e9);
			twice++;
		}
		len += (size_t)oa_offsets_line(text + len, size - len, n++, host, med, mean, std);
		if (summary)
			fprintf(summary, "  host %-20s offset %+.0f ns (spread %.0f ns, best round trip %.0f us%s)\n",
				host, med, std, h->first_rtt / 1000,
				h->measured == 2 ? ", measured again at the end" : "");
	}
	if (n)
		oa_col_write_file("clock-offsets.txt", text);
	if (twice)
		oa_col_write_file("clock-drift.txt", drift);
out:
	free(text);
	free(drift);
}

static double best_rtt = 1e18; /* the shortest round trip of any series: what the network can do */

/* A series, again (OA_COL_MAX_SERIES in all: what the agent answers) while
 * its round trip is far from the best seen: a process starting up, or a busy
 * host, delays one way more.  The event loop waits meanwhile: 100 ms at most
 * per call, and at most MEASURE_MAX series per host in the whole run. */
#define MEASURE_MAX 12
static int series(struct oa_col_host *h, int fd, double *med, double *mean, double *std, double *rtt)
{
	int ok = 0, why = -1;
	uint64_t deadline = oa_col_clock() + 100000000ull;
	for (int i = 0; i < OA_COL_MAX_SERIES && h->nmeasured < MEASURE_MAX; i++) {
		double m, a, s, r;
		if (i) {
			struct timespec pause = { 0, 2000000 }; /* let the burst pass */
			nanosleep(&pause, NULL);
		}
		h->nmeasured++;
		if ((why = oa_col_clock_measure(fd, deadline, &m, &a, &s, &r)) != 0)
			break;
		if (!ok || r < *rtt)
			*med = m, *mean = a, *std = s, *rtt = r, ok = 1;
		if (r < best_rtt)
			best_rtt = r;
		if (*rtt <= 2 * best_rtt + 2000)
			break;
	}
	return ok ? 0 : why;
}

int oa_col_host_poor(const struct oa_col_host *h)
{
	return h->first_rtt > 2 * best_rtt + 2000;
}

/* 0, 1 when it was the host's first offset, or -1 when the agent did not
 * answer (a broken or hostile client). */
int oa_col_host_measure(struct oa_col_host *h, int fd, int again)
{
	double med = 0, mean = 0, std = 0, rtt = 0;
	if (h->nmeasured >= MEASURE_MAX)
		return 0;
	int r = series(h, fd, &med, &mean, &std, &rtt);
	if (r)
		return r;
	if (!again) {
		/* The first processes of a host are each measured: the series
		 * with the shortest round trip is kept (the least delay to be
		 * unequal between the two ways). */
		h->joins_measured++;
		if (h->measured && rtt >= h->first_rtt)
			return 0;
		h->first = med, h->first_mean = mean, h->first_std = std, h->first_rtt = rtt;
		h->t_first = oa_col_clock();
		if (!h->measured) {
			h->measured = 1;
			return 1;
		}
	} else {
		h->last = med, h->last_mean = mean, h->last_std = std, h->last_rtt = rtt;
		h->t_last = oa_col_clock();
		h->measured = 2;
	}
	return 0;
}
