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
	"ovni trace format v3 and the rules of the upstream emulator in lint mode.\n"
	"\n"
	"  -q, --quiet   print only the problems and the summary (no notes)\n"
	"\n"
	"Exit status: 0 when the trace is valid, 1 when a problem was found or the\n"
	"trace cannot be read.\n"
	"\n"
	"The manual page has the details: man ovni-auto-check\n";

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
