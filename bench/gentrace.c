/* gentrace.c: writes a large valid trace for the reading benchmarks.
 * usage: gentrace DIR NEVENTS [NTHREADS]  (events split over the threads:
 * per thread OHx, then rounds of a stack mark push/pop, an OpenMP barrier
 * pair and a burst event, then OHe). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../writer/ev_ovni.h"
#include "../writer/meta.h"

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long total = atol(argv[2]);
	int nth = argc > 3 ? atoi(argv[3]) : 4;
	struct oa_meta m = { .pid = 1, .app_id = 1, .rank = -1, .nranks = -1 };
	int phy[2] = { 0, 1 };
	if (oa_meta_init(&m))
		return 1;
	strcpy(m.loom, "bench");
	m.ncpus = 2;
	m.phyids = phy;
	m.lib_version = "bench";
	m.lib_commit = "bench";
	atomic_store(&m.require, OA_REQUIRE_OPENMP);
	oa_meta_mark_type(&m, 81, 1, "Waits");
	oa_meta_mark_label(&m, NULL, 81, 1, "wait");
	for (int t = 0; t < nth; t++) {
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s/loom.bench/proc.1/thread.%d", argv[1], t + 1);
		struct oa_stream s = { 0 };
		struct oa_stream_cfg cfg = { .dir = dir, .tid = t + 1, .max_window = 64 << 20, .meta = &m };
		if (oa_stream_open(&s, &cfg) != 0)
			return 1;
		ev_ovni_thread_execute(&s, -1, -1, 0, 0);
		long per = total / nth - 2;
		for (long i = 0; i < per; i += 5) {
			ev_ovni_mark_push(&s, 81, 1);
			ev_ovni_mark_pop(&s, 81, 1);
			oa_emit(&s, "PBb", NULL, 0);
			oa_emit(&s, "PBB", NULL, 0);
			oa_emit(&s, "OB.", NULL, 0);
		}
		oa_stream_end(&s);
	}
	return 0;
}
