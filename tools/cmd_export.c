/* cmd_export.c: `ovni-auto export`: a timeline for viewers other than
 * Paraver, in Chrome's JSON trace format or as a Perfetto protobuf stream.
 * The model (export/walk.c) walks the trace and a back-end (export_*.c)
 * writes what it hands over. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/log.h"
#include "export/export.h"

static const char usage_text[] =
	"usage: ovni-auto export [options] -o FILE PATH\n"
	"\n"
	"Write the trace in directory PATH as a timeline for Perfetto UI,\n"
	"chrome://tracing or speedscope.\n"
	"\n"
	"  -o, --output FILE      where to write (- for standard output)\n"
	"  -f, --format FORMAT    json (Chrome trace events, default) or perfetto\n"
	"                         (protobuf TracePacket stream, for large traces)\n"
	"  --from MS, --to MS     only this time window, in milliseconds from the start\n"
	"  -t, --thread TID[,TID] only these threads\n"
	"\n"
	"The manual page has the details: man ovni-auto-export\n";

/* A time in milliseconds from the start: a number, 0 or more. */
static int64_t ms_arg(const char *opt, const char *v)
{
	char *end;
	double ms = strtod(v, &end);
	if (end == v || *end || !(ms >= 0) || ms > 9e12)
		die("%s wants a number of milliseconds from the start (0 or more), not '%s'", opt, v);
	return (int64_t)(ms * 1e6);
}

/* TID[,TID]: thread ids, each a number. */
static const char *tids_arg(const char *v)
{
	const char *p = v;
	for (;;) {
		const char *d = p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == d || p - d > 12 || (*p && *p != ','))
			die("--thread wants thread ids separated by commas (12,40), not '%s'", v);
		if (!*p++)
			return v;
	}
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = { { "output", required_argument, 0, 'o' },
					      { "format", required_argument, 0, 'f' },
					      { "from", required_argument, 0, 'F' },
					      { "to", required_argument, 0, 'T' },
					      { "thread", required_argument, 0, 't' },
					      { "help", no_argument, 0, 'h' },
					      { 0, 0, 0, 0 } };
	const char *output = NULL, *threads = NULL;
	const struct ex_ops *ops = &ex_json_ops;
	int64_t from_ns = 0, to_ns = INT64_MAX;
	int c;
	while ((c = getopt_long(argc, argv, "o:f:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 'f':
			if (!strcmp(optarg, "json"))
				ops = &ex_json_ops;
			else if (!strcmp(optarg, "perfetto"))
				ops = &ex_perfetto_ops;
			else
				die("unknown format '%s' (json or perfetto)", optarg);
			break;
		case 'F': from_ns = ms_arg("--from", optarg); break;
		case 'T': to_ns = ms_arg("--to", optarg); break;
		case 't': threads = tids_arg(optarg); break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (optind != argc - 1 || !output) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (from_ns >= to_ns)
		die("--from is not before --to: an empty window");
	FILE *out = strcmp(output, "-") ? fopen(output, "w") : stdout;
	if (!out)
		die("cannot write %s:", output);
	static char obuf[1 << 20];
	setvbuf(out, obuf, _IOFBF, sizeof(obuf));
	int bad = ex_walk(argv[optind], ops, out, from_ns, to_ns, threads);
	if (out != stdout && fclose(out) != 0)
		die("cannot write %s:", output);
	return bad;
}
