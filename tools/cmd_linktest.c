/* cmd_linktest.c: `ovni-auto linktest FILE`: what a LinkTest run says about
 * the network: ranks and hosts, min/avg/max time per message, the slowest
 * links with their hosts, per host pair aggregates, outliers against the
 * median, serial retests; --csv (the matrix), --json, --raw (decoded
 * fields, one rank per line). The matrix entry at column A, row B is the
 * time A measured against partner B (LinkTest's convention). */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/log.h"
#include "linktest/heatmap.h"
#include "linktest/linktest.h"

static const char usage_text[] =
	"usage: ovni-auto linktest [-n N] [--csv | --json | --raw] FILE\n"
	"\n"
	"Summarise a LinkTest result file (pingpong_results_bin.sion, LinkTest 2.1.16\n"
	"or 2.1.17): ranks, hosts, the slowest links, host pairs.\n"
	"\n"
	"  -n N       how many slowest links (default 10)\n"
	"  --csv      the N x N matrix of times in seconds: row B, column A holds\n"
	"             the time A measured with partner B (empty on the diagonal)\n"
	"  --json     everything as one JSON object\n"
	"  --raw      the decoded fields, one line per rank (for checks)\n"
	"  --heatmap FILE.png|FILE.svg  also draw the matrix (colour per pair time,\n"
	"             grey diagonal), its colour scale and a histogram of the times\n"
	"\n"
	"The manual page has the details: man ovni-auto-linktest\n";

static double *matrix; /* [b * n + a] */
static int n;

static int cmpd(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* access[] is partner-per-step when it is a permutation of the ranks
 * without self (the layout the wiki's tables give). */
static int build_matrix(struct lt_run *r, char *err, size_t errlen)
{
	n = r->n;
	matrix = calloc((size_t)n * (size_t)n, sizeof(double));
	for (int a = 0; a < n; a++) {
		for (int m = 0; m < r->m; m++) {
			char seen[4096] = { 0 };
			for (int k = 0; k < n - 1; k++) {
				uint64_t b = r->rank[a].access[m * (n - 1) + k];
				if (b >= (uint64_t)n || (int)b == a || (b < sizeof(seen) && seen[b]++)) {
					snprintf(err, errlen,
						 "rank %d: unknown layout: its access pattern is not one partner per "
						 "step",
						 a);
					return -1;
				}
				matrix[b * (uint64_t)n + (uint64_t)a] += r->rank[a].timing[m * (n - 1) + k] / r->m;
			}
		}
	}
	return 0;
}

/* A double as Python's repr writes it: the shortest %g that reads back. */
static const char *fmt_double(double v, char *buf)
{
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, 40, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (!strpbrk(buf, ".einn"))
		strcat(buf, ".0");
	return buf;
}

static void u64_tuple(const uint64_t *v, int count)
{
	printf("(");
	for (int i = 0; i < count; i++)
		printf("%s%llu", i ? ", " : "", (unsigned long long)v[i]);
	printf(count == 1 ? ",)" : ")");
}

/* Lists of times: 17 significant digits (trailing zeros dropped). */
static void double_list(const double *v, int count)
{
	printf("[");
	for (int i = 0; i < count; i++)
		printf("%s'%.17g'", i ? ", " : "", v[i]);
	printf("]");
}

/* The decoded fields in the layout of the samples' .expected.txt files. */
static void print_raw(const struct sion_file *s, const struct lt_run *r)
{
	char b1[40], b2[40], b3[40], b4[40];
	printf("a (rank0 chunk start) = %llu chunks (", (unsigned long long)s->start[0]);
	for (int t = 0; t < s->ntasks; t++)
		printf("%s%lld", t ? ", " : "", (long long)s->chunksize[t]);
	printf(") blocksizes (");
	for (int t = 0; t < s->ntasks; t++)
		printf("%s%lld", t ? ", " : "", (long long)s->blocksize[t]);
	printf(")\nversion %u.%u.%u hash b'%s' b=%u mode='%s' flags=[", r->major, r->minor, r->patch, r->hash,
	       r->mode_len, r->mode);
	for (int i = 0; i < 13; i++)
		printf("%s%u", i ? ", " : "", r->flags[i]);
	printf("] u64=");
	u64_tuple(r->u64, 9);
	printf("\nrank0 host=%s core=%d start='%s' end='%s' min=%s avg=%s max=%s\n", r->rank[0].host, r->rank[0].core,
	       r->start, r->end, fmt_double(r->min, b1), fmt_double(r->avg, b2), fmt_double(r->max, b3));
	int a2a = r->flags[0] != 0, k = (r->n - 1) * r->m;
	if (a2a)
		printf("  a2a min/avg/max %s %s %s own a2a %s\n", fmt_double(r->a2a_min, b1),
		       fmt_double(r->a2a_avg, b2), fmt_double(r->a2a_max, b3), fmt_double(r->rank[0].a2a[0], b4));
	printf("  timings ");
	double_list(r->rank[0].timing, k);
	printf(" access ");
	u64_tuple(r->rank[0].access, k);
	printf("\n  slow [");
	for (uint64_t i = 0; i < r->d; i++)
		printf("%s(%llu, %llu, '%.17g', '%.17g')", i ? ", " : "", (unsigned long long)r->slow_sender[i],
		       (unsigned long long)r->slow_receiver[i], r->slowest[i], r->retested[i]);
	printf("]\n");
	for (int t = 1; t < r->n; t++) {
		printf("rank%d host=%s core=%d timings ", t, r->rank[t].host, r->rank[t].core);
		double_list(r->rank[t].timing, k);
		printf(" access ");
		u64_tuple(r->rank[t].access, k);
		if (a2a)
			printf(" a2a %s\n", fmt_double(r->rank[t].a2a[0], b1));
		else
			printf(" \n");
	}
}

int cmd_linktest(int argc, char **argv)
{
	static const struct option opts[] = { { "csv", no_argument, 0, 'c' },           { "json", no_argument, 0, 'j' },
					      { "raw", no_argument, 0, 'r' },           { "help", no_argument, 0, 'h' },
					      { "heatmap", required_argument, 0, 'H' }, { 0, 0, 0, 0 } };
	int mode = 0, top = 10, c;
	const char *heatmap = NULL;
	while ((c = getopt_long(argc, argv, "n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n': top = atoi(optarg); break;
		case 'c': mode = 'c'; break;
		case 'j': mode = 'j'; break;
		case 'r': mode = 'r'; break;
		case 'H': heatmap = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(usage_text, stderr);
		return 2;
	}
	const char *path = argv[optind];
	struct sion_file s;
	struct lt_run r;
	char msg[512];
	if (sion_open(&s, path, msg, sizeof(msg)) != 0)
		die("%s: %s", path, msg);
	if (lt_decode(&s, &r, msg, sizeof(msg)) != 0 || build_matrix(&r, msg, sizeof(msg)) != 0)
		die("%s: %s", path, msg);
	if (heatmap) {
		char title[160];
		snprintf(title, sizeof(title), "LinkTest %u.%u.%u: time per message, %d ranks", r.major, r.minor,
			 r.patch, r.n);
		if (hm_write(heatmap, matrix, n, title) != 0)
			die("cannot write %s:", heatmap);
	}
	if (mode == 'r') {
		print_raw(&s, &r);
		goto out;
	}
	if (mode == 'c') {
		printf("row\\col");
		for (int a = 0; a < n; a++)
			printf(",%d", a);
		printf("\n");
		for (int b = 0; b < n; b++) {
			printf("%d", b);
			for (int a = 0; a < n; a++)
				a == b ? printf(",") : printf(",%.17g", matrix[b * n + a]);
			printf("\n");
		}
		goto out;
	}
	/* Links sorted by time, the median, hosts. */
	int nl = n * (n - 1);
	double *sorted = malloc(sizeof(double) * (size_t)nl);
	int *la = malloc(sizeof(int) * (size_t)nl), *lb = malloc(sizeof(int) * (size_t)nl);
	for (int i = 0, a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			if (a != b)
				sorted[i] = matrix[b * n + a], la[i] = a, lb[i++] = b;
	double *vals = malloc(sizeof(double) * (size_t)nl);
	memcpy(vals, sorted, sizeof(double) * (size_t)nl);
	qsort(vals, (size_t)nl, sizeof(double), cmpd);
	double median = nl % 2 ? vals[nl / 2] : (vals[nl / 2 - 1] + vals[nl / 2]) / 2;
	/* selection of the slowest links */
	int *order = malloc(sizeof(int) * (size_t)nl);
	for (int i = 0; i < nl; i++)
		order[i] = i;
	for (int i = 0; i < nl; i++)
		for (int j = i + 1; j < nl; j++)
			if (sorted[order[j]] > sorted[order[i]]) {
				int t = order[i];
				order[i] = order[j];
				order[j] = t;
			}
	int nhosts = 0;
	const char *hosts[4096];
	int hostof[4096];
	for (int k = 0; k < n && k < 4096; k++) {
		int h;
		for (h = 0; h < nhosts && strcmp(hosts[h], r.rank[k].host); h++)
			;
		if (h == nhosts)
			hosts[nhosts++] = r.rank[k].host;
		hostof[k] = h;
	}
	double bw = (double)r.u64[1] / 1048576.0;
	json_t *root =
		json_pack("{s:s, s:s, s:i, s:i, s:I, s:I, s:I, s:f, s:f, s:f, s:f}", "version",
			  r.patch == 16 ? "2.1.16" : "2.1.17", "mode", r.mode, "ranks", n, "hosts", nhosts, "messages",
			  (json_int_t)r.u64[0], "message_size", (json_int_t)r.u64[1], "retests", (json_int_t)r.d,
			  "min_s", vals[0], "median_s", median, "avg_s", r.avg, "max_s", vals[nl - 1]);
	if (mode != 'j') {
		printf("LinkTest %u.%u.%u (%s): %d ranks on %d hosts, %llu messages of %llu bytes, %llu warm-up, %llu "
		       "serial retests\n",
		       r.major, r.minor, r.patch, r.mode, n, nhosts, (unsigned long long)r.u64[0],
		       (unsigned long long)r.u64[1], (unsigned long long)r.u64[2], (unsigned long long)r.d);
		printf("time per message: min %.3f us (%.1f MiB/s), median %.3f us, avg %.3f us, max %.3f us (%.1f "
		       "MiB/s)\n",
		       vals[0] * 1e6, bw / vals[0], median * 1e6, r.avg * 1e6, vals[nl - 1] * 1e6, bw / vals[nl - 1]);
		printf("\nslowest links (A measured with partner B):\n");
	}
	json_t *jslow = json_array();
	for (int i = 0; i < nl && i < top; i++) {
		int k = order[i];
		if (mode != 'j')
			printf("  %4d (%s) -> %4d (%s): %.3f us, %.2fx the median\n", la[k], r.rank[la[k]].host, lb[k],
			       r.rank[lb[k]].host, sorted[k] * 1e6, sorted[k] / median);
		json_array_append_new(jslow,
				      json_pack("{s:i, s:i, s:s, s:s, s:f}", "a", la[k], "b", lb[k], "host_a",
						r.rank[la[k]].host, "host_b", r.rank[lb[k]].host, "time_s", sorted[k]));
	}
	json_object_set_new(root, "slowest", jslow);
	if (mode != 'j')
		printf("\nper host pair (min / median / max us):\n");
	json_t *jpairs = json_array();
	for (int ha = 0; ha < nhosts; ha++) {
		for (int hb = 0; hb < nhosts; hb++) {
			double *v = malloc(sizeof(double) * (size_t)nl);
			int nv = 0;
			for (int i = 0; i < nl; i++)
				if (hostof[la[i]] == ha && hostof[lb[i]] == hb)
					v[nv++] = sorted[i];
			if (nv) {
				qsort(v, (size_t)nv, sizeof(double), cmpd);
				double med = nv % 2 ? v[nv / 2] : (v[nv / 2 - 1] + v[nv / 2]) / 2;
				if (mode != 'j')
					printf("  %s -> %s: %.3f / %.3f / %.3f (%d links)\n", hosts[ha], hosts[hb],
					       v[0] * 1e6, med * 1e6, v[nv - 1] * 1e6, nv);
				json_array_append_new(jpairs,
						      json_pack("{s:s, s:s, s:i, s:f, s:f, s:f}", "host_a", hosts[ha],
								"host_b", hosts[hb], "links", nv, "min_s", v[0],
								"median_s", med, "max_s", v[nv - 1]));
			}
			free(v);
		}
	}
	json_object_set_new(root, "host_pairs", jpairs);
	int nout = 0;
	json_t *jout = json_array();
	for (int i = 0; i < nl; i++) {
		int k = order[i];
		if (sorted[k] > 2 * median) {
			if (mode != 'j')
				printf("%s  %d -> %d: %.3f us (%.2fx the median)\n",
				       nout ? "" : "\noutliers (> 2x the median):\n", la[k], lb[k], sorted[k] * 1e6,
				       sorted[k] / median);
			json_array_append_new(
				jout, json_pack("{s:i, s:i, s:f}", "a", la[k], "b", lb[k], "time_s", sorted[k]));
			nout++;
		}
	}
	if (mode != 'j' && !nout)
		printf("\noutliers (> 2x the median): none\n");
	json_object_set_new(root, "outliers", jout);
	json_t *jre = json_array();
	for (uint64_t i = 0; i < r.d; i++) {
		if (mode != 'j')
			printf("%s  %llu -> %llu: %.3f us, retested %.3f us\n", i ? "" : "\nserial retests:\n",
			       (unsigned long long)r.slow_sender[i], (unsigned long long)r.slow_receiver[i],
			       r.slowest[i] * 1e6, r.retested[i] * 1e6);
		json_array_append_new(jre, json_pack("{s:I, s:I, s:f, s:f}", "sender", (json_int_t)r.slow_sender[i],
						     "receiver", (json_int_t)r.slow_receiver[i], "before_s",
						     r.slowest[i], "after_s", r.retested[i]));
	}
	json_object_set_new(root, "retests", jre);
	if (mode == 'j') {
		json_t *jm = json_array();
		for (int b = 0; b < n; b++) {
			json_t *row = json_array();
			for (int a = 0; a < n; a++)
				json_array_append_new(row, a == b ? json_null() : json_real(matrix[b * n + a]));
			json_array_append_new(jm, row);
		}
		json_object_set_new(root, "matrix_s", jm);
		char *text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
		puts(text);
		free(text);
	}
	json_decref(root);
	free(sorted), free(vals), free(order), free(la), free(lb);
out:
	free(matrix);
	lt_free(&r);
	sion_close(&s);
	return 0;
}
