/* offsets.c: see offsets.h. */
#include "offsets.h"

#include <stdio.h>
#include <stdlib.h>

static double root(double x)
{
	if (x <= 0)
		return 0;
	double r = x > 1 ? x / 2 : 1;
	for (int i = 0; i < 60; i++)
		r = (r + x / r) / 2;
	return r;
}

static int by_rtt(const void *a, const void *b)
{
	double x = ((const struct oa_offset_sample *)a)->rtt, y = ((const struct oa_offset_sample *)b)->rtt;
	return (x > y) - (x < y);
}

static int by_offset(const void *a, const void *b)
{
	double x = ((const struct oa_offset_sample *)a)->offset, y = ((const struct oa_offset_sample *)b)->offset;
	return (x > y) - (x < y);
}

void oa_offset_estimate(struct oa_offset_sample *s, int n, struct oa_offset *out)
{
	if (n <= 0) {
		*out = (struct oa_offset){ 0, 0, 0, 0 };
		return;
	}
	qsort(s, (size_t)n, sizeof(s[0]), by_rtt);
	int most = n / 4 > 4 ? n / 4 : (n < 4 ? n : 4), best = 0;
	while (best < most && (best < 4 || s[best].rtt <= s[0].rtt * 1.25 + 1000))
		best++;
	double sum = 0, sq = 0;
	for (int i = 0; i < best; i++)
		sum += s[i].offset;
	out->mean = sum / best;
	for (int i = 0; i < best; i++)
		sq += (s[i].offset - out->mean) * (s[i].offset - out->mean);
	out->stdev = best > 1 ? root(sq / (best - 1)) : 0;
	out->rtt = s[0].rtt;
	qsort(s, (size_t)best, sizeof(s[0]), by_offset);
	out->median = best % 2 ? s[best / 2].offset : (s[best / 2 - 1].offset + s[best / 2].offset) / 2;
}

double oa_offset_weight(double rtt_first, double rtt_second)
{
	if (rtt_second > 2 * rtt_first + 2000)
		return 0;
	if (rtt_first > 2 * rtt_second + 2000)
		return 1;
	return 0.5;
}

int oa_offsets_line(char *buf, size_t size, int rank, const char *host, double median, double mean, double stdev)
{
	return snprintf(buf, size, "%d %s %.0f %.1f %.1f\n", rank, host, median, mean, stdev);
}
