/* cmd_view.c: `ovni-auto view [-o FILE] PATH`: the trace as one
 * self-contained HTML page (a zoomable timeline, one row per thread, and
 * the summary tables), for any current browser, opened from disk.  The
 * timeline model is in view/model.c, the page in view/html.c. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/log.h"
#include "view/view.h"

static const char usage_text[] =
	"usage: ovni-auto view [-o FILE] [--max-mb N] PATH\n"
	"\n"
	"Write the trace in directory PATH as one HTML page: a timeline (one row\n"
	"per thread, zoom and pan) and the summary tables.\n"
	"\n"
	"  -o, --output FILE   where to write (default PATH/view.html; - for stdout)\n"
	"  --max-mb N          at most N MB of timeline data (default 40): larger\n"
	"                      traces keep the dominant state of short intervals\n"
	"  -q, --quiet         do not print where the page went\n"
	"\n"
	"The manual page has the details: man ovni-auto-view\n";

int cmd_view(int argc, char **argv)
{
	static const struct option opts[] = { { "output", required_argument, 0, 'o' },
					      { "max-mb", required_argument, 0, 'M' },
					      { "quiet", no_argument, 0, 'q' },
					      { "help", no_argument, 0, 'h' },
					      { 0, 0, 0, 0 } };
	const char *output = NULL;
	double max_mb = 40;
	int quiet = 0, c;
	while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 'M':
			max_mb = atof(optarg);
			if (max_mb <= 0)
				die("--max-mb wants a positive number of megabytes, not '%s'", optarg);
			break;
		case 'q': quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(usage_text, stderr);
		return 2;
	}
	const char *path = argv[optind];
	char def[4200];
	if (!output) {
		struct stat st;
		if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			die("%s is not a trace directory (give -o FILE)", path);
		snprintf(def, sizeof(def), "%s/view.html", path);
		output = def;
	}
	struct vw_model m;
	vw_build(path, &m);
	FILE *f = strcmp(output, "-") ? fopen(output, "w") : stdout;
	if (!f)
		die("cannot write %s:", output);
	static char obuf[1 << 20];
	setvbuf(f, obuf, _IOFBF, sizeof(obuf));
	const char *title = strrchr(path, '/') && strrchr(path, '/')[1] ? strrchr(path, '/') + 1 : path;
	int r = vw_write_html(f, &m, title, (size_t)(max_mb * 1e6));
	if (f != stdout && fclose(f) != 0)
		r = -1;
	if (r != 0)
		die("cannot write %s:", output);
	if (!quiet && f != stdout) {
		int rows = 0;
		size_t ivs = 0;
		for (int i = 0; i < m.nrows; i++)
			if (m.rows[i].seen && m.rows[i].first >= 0) {
				rows++;
				ivs += m.rows[i].iv.n;
			}
		struct stat st;
		long long size = stat(output, &st) == 0 ? (long long)st.st_size : 0;
		printf("view: %s (%d thread%s, %zu intervals, %.1f MB)\n", output, rows, rows == 1 ? "" : "s", ivs,
		       (double)size / 1e6);
	}
	int bad = m.bad;
	vw_free(&m);
	return bad;
}
