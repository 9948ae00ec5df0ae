/* cmd_check.c: `ovni-auto check [-q] PATH`: validates a trace against the
 * rules the upstream emulator enforces in lint mode.  The command only: the
 * checker is tools/check/ (check.h says where each group of rules lives). */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/log.h"
#include "check/check.h"

static const char usage_text[] =
	"usage: ovni-auto check [-q] PATH\n"
	"\n"
	"Validate the trace in directory PATH (or one stream directory) against the\n"
	"ovni trace format v3 and the rules of the upstream emulator in lint mode:\n"
	"stream.json keys and how streams merge (app id, ranks, loom CPUs, model\n"
	"versions, marks), stream headers and event encoding, clocks (never backwards\n"
	"in a stream, the 1 h gate, clock-offsets.txt), the thread state machine,\n"
	"CPUs (one running thread per physical CPU), affinity, flushes, mark\n"
	"channels, the openmp model (types, tasks, worksharing labels, balanced\n"
	"subsystem stacks), the kernel and mpi models. It also reports causally\n"
	"ordered events of two threads with equal clocks (OHC/OHx, PPc/PPx), which\n"
	"the emulator may order either way.\n"
	"\n"
	"Each problem is one line:  STREAM offset N MCV: what is wrong\n"
	"(STREAM: what, for the metadata; trace: what, for the whole trace), then a\n"
	"summary line: 'ok: N streams, N events' or 'N problems in N streams ...'.\n"
	"At most 100 problems of one kind are listed.\n"
	"\n"
	"  -q, --quiet   print only the problems and the summary (no notes)\n"
	"\n"
	"Exit status: 0 when the trace is valid, 1 when a problem was found or the\n"
	"trace cannot be read.\n";

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = { { "quiet", no_argument, 0, 'q' },
					      { "help", no_argument, 0, 'h' },
					      { 0, 0, 0, 0 } };
	int quiet = 0, o;
	while ((o = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (o) {
		case 'q': quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(usage_text, stderr);
		return 2;
	}
	char msg[600];
	long problems = ck_check_path(argv[optind], quiet, stdout, msg, sizeof(msg));
	fflush(stdout);
	if (problems < 0) {
		err("%s", msg);
		return 1;
	}
	return problems ? 1 : 0;
}
