/* test_offsets.c: the clock-offset estimator shared by the MPI interposer
 * and the collector: rounds delayed one way (long round trips, offsets off
 * by half the delay) are left out; the median, mean and spread of the
 * kept ones; the weight of a second measurement; the file's lines. */
#include "../../common/offsets.h"
#include "test.h"

int main(void)
{
	struct oa_offset_sample s[64];
	/* 48 clean rounds (rtt 20 us, offset 5000 +- 30 ns) and 16 delayed
	 * one way by 200 us (their offsets 100 us off). */
	for (int i = 0; i < 64; i++) {
		int late = i % 4 == 3;
		s[i].rtt = 20000 + (i % 7) * 100 + (late ? 200000 : 0);
		s[i].offset = 5000 + (i % 3 - 1) * 30 + (late ? 100000 : 0);
	}
	struct oa_offset o;
	oa_offset_estimate(s, 64, &o);
	CHECK(o.median > 4960 && o.median < 5040, "median %.1f", o.median);
	CHECK(o.mean > 4960 && o.mean < 5040, "mean %.1f", o.mean);
	CHECK(o.stdev < 40, "spread %.1f (the delayed rounds left out)", o.stdev);
	CHECK(o.rtt == 20000, "shortest round trip %.0f", o.rtt);
	/* Few rounds: all kept. */
	struct oa_offset_sample two[2] = { { 10, 1000 }, { 30, 1000 } };
	oa_offset_estimate(two, 2, &o);
	CHECK(o.median == 20 && o.mean == 20, "two rounds: %.1f %.1f", o.median, o.mean);
	oa_offset_estimate(s, 0, &o);
	CHECK(o.median == 0 && o.rtt == 0, "no round");
	CHECK(oa_offset_weight(20000, 21000) == 0.5, "both alike: the middle");
	CHECK(oa_offset_weight(20000, 90000) == 0, "the second much slower: the first");
	CHECK(oa_offset_weight(90000, 20000) == 1, "the first much slower: the second");
	char line[128];
	oa_offsets_line(line, sizeof(line), 2, "node7", -7200000119038.4, -7200000119016.2, 363.14);
	CHECK(!strcmp(line, "2 node7 -7200000119038 -7200000119016.2 363.1\n"), "line: %s", line);
	CHECK(!strcmp(OA_OFFSETS_HEADER, "rank hostname offset_median offset_mean offset_std\n"), "header");
	TEST_DONE();
}
