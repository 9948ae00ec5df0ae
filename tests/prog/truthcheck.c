/* truthcheck.c: compares what a ground-truth program says really happened
 * with what `ovni-auto stats --json` says the trace holds (tests/truth).
 * usage: truthcheck STATS.json TRUTH.txt
 * TRUTH.txt lines (others are ignored), '-' where a field is not checked:
 *   truth|mark|TID|LABEL|COUNT|NS    marks of thread TID labelled LABEL
 *                                    (alternatives separated by ';', each
 *                                    a label or a prefix ending in '*')
 *   truth|omp|TID|STATE|COUNT|NS     OpenMP state STATE of thread TID
 *                                    (openmp_ns: time on top of the stack)
 * NS may be LO..HI where the program knows only bounds (preempted while it
 * measured).
 *   truth|type|LABEL|TASKS|SEGMENTS|MIGRATIONS|TOTAL_NS   a task type
 *   truth|segments|TID|N             task segments thread TID ran
 *   truth|pmark|LABEL|COUNT          marks labelled LABEL, all threads
 *   truth|procs|N                    processes in the trace
 * Tolerances (stated in the README): counts exact; durations within 2% or
 * 50 us, whichever is larger.  Prints one line per check, then
 * "truth: N checked, N failed"; exits 1 when one failed. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL_ABS_NS 50000.0
#define TOL_REL 0.02

static int checked, failed;

static void verdict(int ok, const char *what, const char *field, const char *want, long long got)
{
	checked++;
	if (!ok)
		failed++;
	printf("%s %s: %s truth %s, trace %lld\n", ok ? "ok  " : "FAIL", what, field, want, got);
}

static void count(const char *what, const char *field, const char *want, long long got)
{
	if (strcmp(want, "-") != 0)
		verdict(atoll(want) == got, what, field, want, got);
}

static double tolerance(double ns)
{
	return ns * TOL_REL < TOL_ABS_NS ? TOL_ABS_NS : ns * TOL_REL;
}

/* WANT is NS, or LO..HI where the program only knows bounds. */
static void duration(const char *what, const char *field, const char *want, long long got)
{
	if (!strcmp(want, "-"))
		return;
	const char *dots = strstr(want, "..");
	double lo = (double)atoll(want), hi = dots ? (double)atoll(dots + 2) : lo;
	verdict(got >= lo - tolerance(lo) && got <= hi + tolerance(hi), what, field, want, got);
}

static json_t *thread_of(json_t *root, long long tid)
{
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(root, "threads"), i, t)
	{
		if (json_integer_value(json_object_get(t, "tid")) == tid)
			return t;
	}
	return NULL;
}

/* LABEL is one or more alternatives separated by ';', each a label or a
 * prefix ending in '*'. */
static int label_is(const char *l, const char *pattern)
{
	while (*pattern) {
		size_t n = strcspn(pattern, ";");
		if (n && pattern[n - 1] == '*' ? !strncmp(l, pattern, n - 1) : strlen(l) == n && !strncmp(l, pattern, n))
			return 1;
		pattern += n + (pattern[n] == ';');
	}
	return 0;
}

/* Sum of count and ns of the marks of t labelled label. */
static void marks_of(json_t *t, const char *label, long long *n, long long *ns)
{
	size_t i;
	json_t *m;
	*n = *ns = 0;
	json_array_foreach(json_object_get(t, "marks"), i, m)
	{
		const char *l = json_string_value(json_object_get(m, "label"));
		if (l && label_is(l, label)) {
			*n += json_integer_value(json_object_get(m, "count"));
			*ns += json_integer_value(json_object_get(m, "ns"));
		}
	}
}

/* Split s at '|' into at most max fields. */
static int split(char *s, char **f, int max)
{
	int n = 0;
	while (n < max) {
		f[n++] = s;
		char *bar = strchr(s, '|');
		if (!bar)
			break;
		*bar = '\0';
		s = bar + 1;
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: truthcheck STATS.json TRUTH.txt\n");
		return 2;
	}
	json_error_t e;
	json_t *root = json_load_file(argv[1], 0, &e);
	FILE *in = fopen(argv[2], "r");
	if (!root || !in) {
		fprintf(stderr, "truthcheck: cannot read %s\n", root ? argv[2] : argv[1]);
		return 2;
	}
	char line[1024], what[1100];
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "truth|", 6) != 0)
			continue;
		char *f[8];
		int n = split(line + 6, f, 8);
		if (n == 5 && (!strcmp(f[0], "mark") || !strcmp(f[0], "omp"))) {
			json_t *t = thread_of(root, atoll(f[1]));
			snprintf(what, sizeof(what), "thread %s %s \"%s\"", f[1], f[0], f[2]);
			if (!t) {
				verdict(0, what, "thread present", "1", 0);
				continue;
			}
			long long c = 0, ns = 0;
			if (!strcmp(f[0], "mark")) {
				marks_of(t, f[2], &c, &ns);
			} else {
				json_t *o = json_object_get(json_object_get(t, "openmp_ns"), f[2]);
				c = json_integer_value(json_object_get(o, "count"));
				ns = json_integer_value(json_object_get(o, "ns"));
			}
			count(what, "count", f[3], c);
			duration(what, "ns", f[4], ns);
		} else if (n == 6 && !strcmp(f[0], "type")) {
			long long v[4] = { 0 };
			static const char *key[4] = { "tasks", "segments", "migrations", "total_ns" };
			size_t i;
			json_t *ty;
			json_array_foreach(json_object_get(root, "task_types"), i, ty)
			{
				const char *l = json_string_value(json_object_get(ty, "label"));
				if (l && !strcmp(l, f[1]))
					for (int k = 0; k < 4; k++)
						v[k] += json_integer_value(json_object_get(ty, key[k]));
			}
			snprintf(what, sizeof(what), "task type \"%s\"", f[1]);
			for (int k = 0; k < 3; k++)
				count(what, key[k], f[2 + k], v[k]);
			duration(what, key[3], f[5], v[3]);
		} else if (n == 3 && !strcmp(f[0], "segments")) {
			json_t *t = thread_of(root, atoll(f[1]));
			snprintf(what, sizeof(what), "thread %s", f[1]);
			count(what, "task segments", f[2], json_integer_value(json_object_get(t, "task_segments")));
		} else if (n == 3 && !strcmp(f[0], "pmark")) {
			long long c = 0, total = 0, ns;
			size_t i;
			json_t *t;
			json_array_foreach(json_object_get(root, "threads"), i, t)
			{
				marks_of(t, f[1], &c, &ns);
				total += c;
			}
			snprintf(what, sizeof(what), "all threads mark \"%s\"", f[1]);
			count(what, "count", f[2], total);
		} else if (n == 2 && !strcmp(f[0], "procs")) {
			long long pids[4096];
			int np = 0;
			size_t i;
			json_t *t;
			json_array_foreach(json_object_get(root, "threads"), i, t)
			{
				long long pid = json_integer_value(json_object_get(t, "pid"));
				int k = 0;
				while (k < np && pids[k] != pid)
					k++;
				if (k == np && np < 4096)
					pids[np++] = pid;
			}
			count("trace", "processes", f[1], np);
		} else if (!strcmp(f[0], "first")) {
			continue; /* checked on the dump (tests/truth/lib_truth.sh) */
		} else {
			fprintf(stderr, "truthcheck: bad line: truth|%s\n", f[0]);
			failed++;
		}
	}
	printf("truth: %d checked, %d failed\n", checked, failed);
	return failed || !checked ? 1 : 0;
}
