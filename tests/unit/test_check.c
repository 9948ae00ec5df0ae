/* test_check.c: `ovni-auto check` on traces written by a small test-only
 * writer: a valid trace (2 threads, OHC/OHx/OHe, loom CPUs, marks, openmp
 * types, tasks and subsystems) passes, then each mutation that breaks one
 * rule is reported with its wording, on the right stream and at the right
 * byte offset.
 * `test_check --write-valid DIR` only writes the valid trace (for the shell
 * cases). */
#include <jansson.h>

#include "../../tools/check/check.h"
#include "test.h"
#include "tracewrite.h"

/* ---- the valid trace ------------------------------------------------------ */

static const char *const valid[] = {
	"S loom.node0/proc.1/thread.1 1 1 node0",
	"E OHx 1000 i32:0 i32:-1 u64:0",
	"E OHC 1100 i32:0 u64:7",
	"E OM[ 1200 i64:1 i32:5",
	"E OM] 1300 i64:1 i32:5",
	"E OM= 1310 i64:3 i32:6",
	"J POc 1400 u32:1 str:mytask",
	"J POc 1410 u32:2 str:myloop",
	"E PPc 1500 u32:1 u32:1",
	"E PBb 1700",
	"E PBB 1800",
	"E OF[ 1850",
	"E OF] 1860",
	"E OHe 3000",
	"S loom.node0/proc.1/thread.2 2 1 node0",
	"E OHx 1150 i32:1 i32:1 u64:7",
	"E PT[ 1450",
	"E PPx 2000 u32:1",
	"E PQx 2100 u32:2",
	"E PQe 2200 u32:2",
	"E PPe 2300 u32:1",
	"E PT] 2400",
	"E OHe 2500",
	NULL,
};
#define VALID_EVENTS 20

static void load(struct trace *t, const char *const *lines)
{
	for (int i = 0; i < t->n; i++)
		free(t->line[i]);
	t->n = 0;
	for (int i = 0; lines[i]; i++)
		t->line[t->n++] = strdup(lines[i]);
}

static void trace_free(struct trace *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->line[i]);
	t->n = 0;
}

/* ---- mutations ------------------------------------------------------------ */

enum { M_NONE, M_REPL, M_AFTER, M_BEFORE, M_DEL, M_APPEND, M_EACH_STREAM };
struct mut {
	int op;
	const char *a; /* the line it applies to (exact) */
	const char *b; /* new lines, separated by '\n' */
};

static int find(struct trace *t, const char *line)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->line[i], line))
			return i;
	return -1;
}

static void insert(struct trace *t, int at, const char *text)
{
	char *copy = strdup(text), *save, *l;
	for (l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (t->n == MAXLINES)
			break;
		memmove(&t->line[at + 1], &t->line[at], sizeof(char *) * (size_t)(t->n - at));
		t->line[at++] = strdup(l);
		t->n++;
	}
	free(copy);
}

static int apply(struct trace *t, const struct mut *m)
{
	int i = m->a ? find(t, m->a) : -1;
	if (m->a && m->op != M_EACH_STREAM && i < 0) {
		fprintf(stderr, "mutation: no line '%s'\n", m->a);
		return -1;
	}
	switch (m->op) {
	case M_REPL:
		free(t->line[i]);
		memmove(&t->line[i], &t->line[i + 1], sizeof(char *) * (size_t)(t->n - i - 1));
		t->n--;
		insert(t, i, m->b);
		break;
	case M_AFTER: insert(t, i + 1, m->b); break;
	case M_BEFORE: insert(t, i, m->b); break;
	case M_DEL:
		free(t->line[i]);
		memmove(&t->line[i], &t->line[i + 1], sizeof(char *) * (size_t)(t->n - i - 1));
		t->n--;
		break;
	case M_APPEND: insert(t, t->n, m->b); break;
	case M_EACH_STREAM:
		for (int k = t->n - 1; k >= 0; k--)
			if (t->line[k][0] == 'S')
				insert(t, k + 1, m->b);
		break;
	}
	return 0;
}

/* ---- running check -------------------------------------------------------- */

static char *top;
static int ncase;

/* Writes the trace into a fresh directory and checks it: the number of
 * problems (-1 if it cannot be opened), the output in *out. */
static long run_check(struct trace *t, char **out, const char *name)
{
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s/case%d", top, ++ncase);
	write_trace(t, dir);
	size_t len;
	FILE *f = open_memstream(out, &len);
	char err[600];
	long n = ck_check_path(dir, 0, f, err, sizeof(err));
	fclose(f);
	if (n < 0)
		fprintf(stderr, "%s: cannot open: %s\n", name, err);
	return n;
}

/* The line of out that starts with prefix and contains text. */
static const char *find_report(const char *out, const char *prefix, const char *text)
{
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *end = strchr(l, '\n');
		size_t len = end ? (size_t)(end - l) : strlen(l);
		char line[2048];
		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		if (!strncmp(line, prefix, strlen(prefix)) && strstr(line, text))
			return l;
	}
	return NULL;
}

struct ncase {
	const char *name;
	struct mut m[5];
	const char *expect; /* text of the problem */
	const char *at;     /* the line reported (its stream, offset, MCV) */
	const char *who;    /* or: the start of the problem line */
	int count;          /* exact number of problems, 0: any */
};

static const char *const T1 = "S loom.node0/proc.1/thread.1 1 1 node0";
static const char *const T2 = "S loom.node0/proc.1/thread.2 2 1 node0";
#define W1 "loom.node0/proc.1/thread.1: "
#define W2 "loom.node0/proc.1/thread.2: "
#define MORE_STREAM "S loom.node0/proc.1/thread.3 3 1 node0"

static const struct ncase cases[] = {
	/* metadata of one stream */
	{ "no version", { { M_AFTER, T1, "D version" } }, "missing attribute \"version\"", NULL, W1, 1 },
	{ "version 2", { { M_AFTER, T1, "K version 2" } }, "metadata version mismatch 2 (expected 3)", NULL, W1, 1 },
	{ "no part", { { M_AFTER, T2, "D ovni.part" } }, "cannot get attribute ovni.part", NULL, W2, 0 },
	{ "no tid", { { M_AFTER, T2, "D ovni.tid" } }, "cannot get attribute ovni.tid", NULL, W2, 0 },
	{ "tid as a string", { { M_AFTER, T2, "K ovni.tid \"2\"" } }, "cannot get attribute ovni.tid", NULL, W2, 0 },
	{ "negative tid", { { M_AFTER, T2, "K ovni.tid -2" } }, "cannot get thread tid from stream", NULL, W2, 0 },
	{ "no pid", { { M_AFTER, T2, "D ovni.pid" } }, "cannot get attribute ovni.pid", NULL, W2, 0 },
	{ "no loom", { { M_AFTER, T2, "D ovni.loom" } }, "cannot get attribute ovni.loom", NULL, W2, 0 },
	{ "loom with a slash", { { M_AFTER, T2, "K ovni.loom \"a/b\"" } }, "contains a '/'", NULL, W2, 0 },
	{ "no require", { { M_AFTER, T1, "D ovni.require" } }, "missing 'ovni.require' key in thread", NULL, W1, 1 },
	{ "no finished", { { M_AFTER, T1, "D ovni.finished" } }, "thread_load_metadata: missing ovni.finished", NULL, W1, 1 },
	{ "finished 0", { { M_AFTER, T1, "K ovni.finished 0" } }, "missing ovni.finished", NULL, W1, 1 },
	{ "finished true", { { M_AFTER, T1, "K ovni.finished true" } }, "missing ovni.finished", NULL, W1, 1 },
	{ "no lib version", { { M_AFTER, T2, "D ovni.lib.version" } }, "missing ovni.lib.version key", NULL, W2, 1 },
	{ "no lib commit", { { M_AFTER, T2, "D ovni.lib.commit" } }, "missing ovni.lib.commit key", NULL, W2, 1 },
	{ "app id 0", { { M_AFTER, T2, "K ovni.app_id 0" } }, "appid must be >0", NULL, W2, 1 },
	{ "rank without nranks", { { M_AFTER, T2, "K ovni.rank 0" } }, "missing ovni.nranks attribute", NULL, W2, 0 },
	{ "rank out of range", { { M_EACH_STREAM, NULL, "K ovni.rank 2\nK ovni.nranks 2" } }, "is not in [0, ovni.nranks=2)",
	  NULL, W1, 2 },
	{ "openmp too new", { { M_AFTER, T2, "K ovni.require.openmp \"1.3.0\"" } },
	  "unsupported openmp model version (want 1.3.0, have 1.2.1)", NULL, W2, 1 },
	{ "openmp major 2", { { M_AFTER, T2, "K ovni.require.openmp \"2.0.0\"" } },
	  "unsupported openmp model version (want 2.0.0, have 1.2.1)", NULL, W2, 1 },
	{ "bad version string", { { M_AFTER, T2, "K ovni.require.openmp 1" } }, "must be a string \"x.y.z\"", NULL, W2, 1 },
	/* merging the metadata */
	{ "app id conflict", { { M_AFTER, T2, "K ovni.app_id 2" } }, "mismatch previous appid 1", NULL, W2, 1 },
	{ "app id nowhere", { { M_EACH_STREAM, NULL, "D ovni.app_id" } }, "proc_init_end: appid not set", NULL, W1, 1 },
	{ "rank conflict", { { M_AFTER, T1, "K ovni.rank 0\nK ovni.nranks 2" }, { M_AFTER, T2, "K ovni.rank 1\nK ovni.nranks 2" } },
	  "mismatch previous rank 0", NULL, W2, 1 },
	{ "cpu index gap", { { M_EACH_STREAM, NULL, "K ovni.loom_cpus [{\"index\":0,\"phyid\":0},{\"index\":2,\"phyid\":1}]" } },
	  "cpu index out of bounds: index 2 (phyid 1) in loom node0 of 2 CPUs (index 1 missing)", NULL, W1, 1 },
	{ "cpu index mismatch", { { M_AFTER, T2, "K ovni.loom_cpus [{\"index\":1,\"phyid\":0}]" } },
	  "mismatch index in existing cpu: 0", NULL, W2, 0 },
	{ "cpu index taken", { { M_AFTER, T2, "K ovni.loom_cpus [{\"index\":1,\"phyid\":7}]" } },
	  "cpu with index 1 already taken", NULL, W1, 0 },
	{ "empty cpus", { { M_AFTER, T2, "K ovni.loom_cpus []" } }, "empty 'cpus' array in metadata", NULL, W2, 1 },
	{ "no cpus at all", { { M_EACH_STREAM, NULL, "D ovni.loom_cpus" } }, "loom node0 has no physical CPUs", NULL, W1, 0 },
	{ "duplicate tid", { { M_AFTER, T2, "K ovni.tid 1" } }, "thread with tid 1 already exists", NULL, W2, 0 },
	/* marks metadata */
	{ "mark title conflict", { { M_AFTER, T2, "K ovni.mark.5.title \"Other\"" } },
	  "mark with type 5 already registered with another title", NULL, W2, 1 },
	{ "mark kind conflict", { { M_AFTER, T2, "K ovni.mark.5.chan_type \"single\"" } },
	  "mark with type 5 already registered with another chan_type", NULL, W2, 1 },
	{ "mark label conflict", { { M_AFTER, T2, "K ovni.mark.5.labels.1 \"uno\"" } },
	  "mark value 1 already defined with label one", NULL, W2, 1 },
	{ "mark type 100", { { M_AFTER, T2, "K ovni.mark.100 {\"title\":\"x\",\"chan_type\":\"single\"}" } },
	  "mark type should be in [0, 100) range: 100", NULL, W2, 1 },
	{ "mark without chan_type", { { M_AFTER, T2, "K ovni.mark.7 {\"title\":\"x\"}" } },
	  "ovni.mark.7: chan_type must be", NULL, W2, 1 },
	{ "mark without title", { { M_AFTER, T2, "K ovni.mark.7 {\"chan_type\":\"stack\"}" } },
	  "ovni.mark.7: missing title", NULL, W2, 1 },
	/* stream.obs */
	{ "bad magic", { { M_AFTER, T1, "H 6f766e5801000000" } }, "wrong stream magic 'ovnX' (expected 'ovni')", NULL,
	  "loom.node0/proc.1/thread.1 offset 0: ", 0 },
	{ "stream version 2", { { M_AFTER, T1, "H 6f766e6902000000" } }, "stream version mismatch 2 (expected 1)", NULL,
	  "loom.node0/proc.1/thread.1 offset 4: ", 0 },
	{ "empty stream.obs", { { M_AFTER, "E OHe 3000", "T 0" } }, "stream is empty", NULL,
	  "loom.node0/proc.1/thread.1 offset 0: ", 0 },
	{ "torn tail", { { M_AFTER, "E OHe 3000", "R 0011223344" } }, "stream ends with incomplete event (5 bytes left)",
	  "R 0011223344", NULL, 1 },
	{ "payload cut", { { M_AFTER, "E OHe 3000", "E OHx 3100 i32:0 i32:0 u64:0\nT -3" } },
	  "stream ends with incomplete event", "E OHx 3100 i32:0 i32:0 u64:0", NULL, 0 },
	{ "reserved flag bits", { { M_AFTER, "E OHe 3000", "R 204f422e0000000000000000" } }, "reserved flag bits set",
	  "R 204f422e0000000000000000", NULL, 1 },
	{ "zero MCV", { { M_AFTER, "E OHe 3000", "R 000000000000000000000000" } }, "not an event",
	  "R 000000000000000000000000", NULL, 1 },
	/* clocks */
	{ "clock backwards", { { M_REPL, "E OHe 3000", "E OHe 1855" } }, "clock goes backwards 1860 -> 1855", "E OHe 1855",
	  NULL, 1 },
	{ "clock gate", { { M_APPEND, NULL, MORE_STREAM "\nE OHx 7300000001000 i32:-1 i32:-1 u64:0\nE OHe 7300000002000" } },
	  "stream has starting clock too far: delta=2.03 h", "E OHx 7300000001000 i32:-1 i32:-1 u64:0", NULL, 1 },
	{ "offsets: unknown host", { { M_APPEND, NULL, "F clock-offsets.txt rank hostname a b c|0 node7 10 0 0|" } },
	  "cannot find loom with hostname 'node7'", NULL, "trace: ", 1 },
	{ "offsets: no entries", { { M_APPEND, NULL, "F clock-offsets.txt rank hostname a b c|" } }, "no entries", NULL,
	  "trace: ", 1 },
	/* the thread state machine and CPUs */
	{ "OHx twice", { { M_AFTER, "E OF] 1860", "E OHx 1900 i32:-1 i32:-1 u64:0" } },
	  "cannot execute thread 1, is already running", "E OHx 1900 i32:-1 i32:-1 u64:0", NULL, 1 },
	{ "event before OHx", { { M_BEFORE, "E OHx 1150 i32:1 i32:1 u64:7", "E PBb 1140\nE PBB 1145" } },
	  "process_ev: current thread 2 not running (Unknown)", "E PBb 1140", NULL, 2 },
	{ "OHe before OHx", { { M_BEFORE, "E OHx 1150 i32:1 i32:1 u64:7", "E OHe 1140" } },
	  "thread 2 is Unknown (expected Running or Cooling)", "E OHe 1140", NULL, 0 },
	{ "not dead", { { M_DEL, "E OHe 2500", NULL } }, "model_ovni_finish: thread 2 is not dead (Running)", NULL, W2, 1 },
	{ "zero events", { { M_APPEND, NULL, MORE_STREAM } }, "thread 3 is not dead (Unknown; the stream has zero events)",
	  NULL, "loom.node0/proc.1/thread.3: ", 1 },
	{ "two threads on one CPU", { { M_REPL, "E OHx 1150 i32:1 i32:1 u64:7", "E OHx 1150 i32:0 i32:1 u64:7" } },
	  "physical cpu  CPU 0.0 has 2 threads running at the same time", "E OHx 1150 i32:0 i32:1 u64:7", NULL, 1 },
	{ "cpu out of range", { { M_REPL, "E OHx 1150 i32:1 i32:1 u64:7", "E OHx 1150 i32:5 i32:1 u64:7" } },
	  "cannot find CPU with index 5 in loom node0", "E OHx 1150 i32:5 i32:1 u64:7", NULL, 1 },
	{ "OAs on a dead thread", { { M_AFTER, "E OHe 3000", "E OAs 3100 i32:1" } },
	  "thread 1 is Dead (expected Running, Cooling or Warming)", "E OAs 3100 i32:1", NULL, 1 },
	{ "OAs out of range", { { M_AFTER, "E OF] 1860", "E OAs 1870 i32:7" } }, "pre_affinity_set: cannot find cpu with index 7",
	  "E OAs 1870 i32:7", NULL, 1 },
	{ "OAs onto a busy CPU", { { M_AFTER, "E OF] 1860", "E OAs 2450 i32:1" } }, "CPU 0.1 has 2 threads running",
	  "E OAs 2450 i32:1", NULL, 1 },
	{ "OAr of an unknown thread", { { M_AFTER, "E OF] 1860", "E OAr 1870 i32:1 i32:99" } }, "cannot find thread 99",
	  "E OAr 1870 i32:1 i32:99", NULL, 1 },
	{ "OHr while running", { { M_AFTER, "E OF] 1860", "E OHr 1870" } }, "thread 1 is Running (expected Paused or Warming)",
	  "E OHr 1870", NULL, 1 },
	{ "OHx while paused", { { M_AFTER, "E OF] 1860", "E OHp 1870\nE OHx 1880 i32:0 i32:0 u64:0\nE OHr 1890" } },
	  "thread 1 already has a CPU (it is Paused)", "E OHx 1880 i32:0 i32:0 u64:0", NULL, 1 },
	{ "OHr onto a CPU taken by OAr", { { M_AFTER, "E OF] 1860", "E OHc 1870\nE OHp 1880\nE OHr 2420" },
					   { M_AFTER, "E PT] 2400", "E OAr 2410 i32:1 i32:1" } },
	  "CPU 0.1 has 2 threads running", "E OHr 2420", NULL, 1 },
	{ "flush twice", { { M_AFTER, "E OF[ 1850", "E OF[ 1855" } }, "OF[ while flushing", "E OF[ 1855", NULL, 1 },
	{ "unknown ovni event", { { M_AFTER, "E OF] 1860", "E OZz 1870" } }, "unknown ovni event OZz", "E OZz 1870", NULL, 1 },
	{ "unknown model", { { M_AFTER, "E OF] 1860", "E Zab 1870" } }, "event Zab of an unknown model", "E Zab 1870", NULL, 1 },
	{ "event of an unknown part", { { M_APPEND, NULL, MORE_STREAM "\nK ovni.part \"other\"\nE OHx 1000 i32:-1 i32:-1 u64:0" } },
	  "set_current: event from unknown stream", "E OHx 1000 i32:-1 i32:-1 u64:0", NULL, 1 },
	{ "ovni event out of CPU", { { M_EACH_STREAM, NULL, "K ovni.require.kernel \"1.0.0\"" },
				     { M_AFTER, "E OF] 1860", "E KCO 1870\nE OB. 1880\nE KCI 1890" } },
	  "current thread 1 out of CPU", "E OB. 1880", NULL, 1 },
	{ "kernel not required", { { M_AFTER, "E OF] 1860", "E KCO 1870\nE KCI 1890" } }, "model kernel not enabled for event KCO",
	  "E KCO 1870", NULL, 2 },
	{ "KCI without KCO", { { M_AFTER, T1, "K ovni.require.kernel \"1.0.0\"" }, { M_AFTER, "E OF] 1860", "E KCI 1890" } },
	  "context switch: thread 1 is not out of CPU", "E KCI 1890", NULL, 1 },
	/* marks */
	{ "undeclared mark type", { { M_REPL, "E OM[ 1200 i64:1 i32:5", "E OM[ 1200 i64:1 i32:9" } },
	  "cannot find mark with type 9", "E OM[ 1200 i64:1 i32:9", NULL, 2 },
	{ "mark pop mismatch", { { M_REPL, "E OM] 1300 i64:1 i32:5", "E OM] 1300 i64:2 i32:5" } },
	  "mark pop of value 2 (type 5) does not match the top 1", "E OM] 1300 i64:2 i32:5", NULL, 1 },
	{ "mark pop empty", { { M_AFTER, "E OM] 1300 i64:1 i32:5", "E OM] 1305 i64:1 i32:5" } }, "on an empty stack",
	  "E OM] 1305 i64:1 i32:5", NULL, 1 },
	{ "push on a single channel", { { M_REPL, "E OM[ 1200 i64:1 i32:5", "E OM[ 1200 i64:1 i32:6" } },
	  "cannot push on non-stack channel (mark type 6)", "E OM[ 1200 i64:1 i32:6", NULL, 0 },
	{ "set on a stack channel", { { M_REPL, "E OM= 1310 i64:3 i32:6", "E OM= 1310 i64:3 i32:5" } },
	  "cannot set on stack channel (mark type 5)", "E OM= 1310 i64:3 i32:5", NULL, 1 },
	{ "mark value 0", { { M_REPL, "E OM= 1310 i64:3 i32:6", "E OM= 1310 i64:0 i32:6" } }, "mark value 0 is not allowed",
	  "E OM= 1310 i64:0 i32:6", NULL, 1 },
	{ "mark payload size", { { M_AFTER, "E OM= 1310 i64:3 i32:6", "E OM= 1320 i64:3" } }, "mark event payload must be 12 bytes",
	  "E OM= 1320 i64:3", NULL, 1 },
	/* openmp */
	{ "openmp not required", { { M_EACH_STREAM, NULL, "D ovni.require.openmp" } },
	  "model openmp not enabled for event POc (missing call to ovni_thread_require(\"openmp\", \"1.2.1\")?)",
	  "J POc 1400 u32:1 str:mytask", NULL, 0 },
	{ "POc not jumbo", { { M_REPL, "J POc 1400 u32:1 str:mytask", "E POc 1400 u32:1 u32:0" } }, "expecting a jumbo event",
	  "E POc 1400 u32:1 u32:0", NULL, 0 },
	{ "POc type 0", { { M_AFTER, "J POc 1410 u32:2 str:myloop", "J POc 1420 u32:0 str:zero" } }, "type id must not be 0",
	  "J POc 1420 u32:0 str:zero", NULL, 1 },
	{ "type twice", { { M_BEFORE, "E PPx 2000 u32:1", "J POc 1900 u32:1 str:again" } },
	  "a task type with id 1 already exists", "J POc 1900 u32:1 str:again", NULL, 1 },
	{ "unknown type", { { M_REPL, "E PPc 1500 u32:1 u32:1", "E PPc 1500 u32:1 u32:9" } }, "unknown type id 9",
	  "E PPc 1500 u32:1 u32:9", NULL, 0 },
	{ "task twice", { { M_AFTER, "E PPc 1500 u32:1 u32:1", "E PPc 1510 u32:1 u32:2" } }, "task_id 1 already exists",
	  "E PPc 1510 u32:1 u32:2", NULL, 1 },
	{ "PPc size", { { M_AFTER, "E PPc 1500 u32:1 u32:1", "E PPc 1510 u32:3" } }, "PPc payload must be 8 bytes",
	  "E PPc 1510 u32:3", NULL, 1 },
	{ "unknown task", { { M_REPL, "E PPx 2000 u32:1", "E PPx 2000 u32:4" } }, "cannot find task with id 4",
	  "E PPx 2000 u32:4", NULL, 0 },
	{ "task run twice at once", { { M_AFTER, "E OF] 1860", "E PPx 2050 u32:1\nE PPe 2060 u32:1" } },
	  "body_execute: body(id=1,taskid=1) state must be Created but is Running", "E PPx 2050 u32:1", NULL, 0 },
	{ "PPe on another thread", { { M_AFTER, "E OF] 1860", "E PPe 2250 u32:1" } },
	  "body_end: body(id=1,taskid=1) has another stack", "E PPe 2250 u32:1", NULL, 1 },
	{ "PPe not on top", { { M_AFTER, "E PPc 1500 u32:1 u32:1", "E PPc 1510 u32:2 u32:1" },
			      { M_AFTER, "E PPx 2000 u32:1", "E PPx 2050 u32:2" } },
	  "body_end: body(id=1,taskid=1) is not on top of the stack (task 2 is)", "E PPe 2300 u32:1", NULL, 0 },
	{ "PPe of a task not running", { { M_AFTER, "E PPc 1500 u32:1 u32:1", "E PPe 1510 u32:1" } },
	  "body_end: body(id=1,taskid=1) state must be Running but is Created", "E PPe 1510 u32:1", NULL, 1 },
	{ "unknown ws type", { { M_REPL, "E PQx 2100 u32:2", "E PQx 2100 u32:3" } }, "cannot find ws with type 3",
	  "E PQx 2100 u32:3", NULL, 0 },
	{ "PQ and PP not nested", { { M_REPL, "E PQe 2200 u32:2", "E PQx 2150 u32:2" },
				    { M_AFTER, "E PPe 2300 u32:1", "E PQe 2350 u32:2" } },
	  "PPe of task 1 (\"mytask\") but the top of the label stack is \"myloop\"", "E PPe 2300 u32:1", NULL, 0 },
	{ "PPp", { { M_AFTER, "E PPx 2000 u32:1", "E PPp 2010 u32:1" } }, "unexpected task event value PPp",
	  "E PPp 2010 u32:1", NULL, 1 },
	{ "subsystem open at the end", { { M_DEL, "E PT] 2400", NULL } }, "end_lint: thread 2 ended with 1 stacked openmp functions",
	  NULL, W2, 1 },
	{ "subsystem mismatch", { { M_REPL, "E PT] 2400", "E PBB 2400" } }, "PBB does not close the top of the stack (PT[ is open)",
	  "E PBB 2400", NULL, 0 },
	{ "unknown openmp category", { { M_AFTER, "E PT[ 1450", "E PZz 1460" } }, "unknown event category PZz", "E PZz 1460",
	  NULL, 1 },
	{ "openmp while cooling", { { M_AFTER, "E OF] 1860", "E OHc 1870\nE PBb 1880\nE PBB 1885\nE OHp 1886\nE OHr 1890" } },
	  "process_ev: current thread 1 not running (Cooling)", "E PBb 1880", NULL, 2 },
	{ "openmp while paused", { { M_AFTER, "E OF] 1860", "E OHp 1870\nE PBb 1880\nE OHr 1890" } },
	  "process_ev: current thread 1 not running (Paused)", "E PBb 1880", NULL, 1 },
	/* mpi */
	{ "mpi open at the end", { { M_EACH_STREAM, NULL, "K ovni.require.mpi \"1.0.0\"" }, { M_AFTER, "E OF] 1860", "E MUi 1870" } },
	  "end_lint: thread 1 ended with 1 stacked mpi functions", NULL, W1, 1 },
	{ "mpi same function twice", { { M_EACH_STREAM, NULL, "K ovni.require.mpi \"1.0.0\"" },
				       { M_AFTER, "E OF] 1860", "E MS[ 1870\nE MS[ 1871\nE MS] 1872\nE MS] 1873" } },
	  "same value as last_value", "E MS[ 1871", NULL, 1 },
	/* equal clocks of causally ordered events on two threads */
	{ "PPx tie with PPc", { { M_REPL, "E PPx 2000 u32:1", "E PPx 1500 u32:1" } },
	  "PPx of task 1 has the same clock as its PPc in loom.node0/proc.1/thread.1", "E PPx 1500 u32:1", NULL, 1 },
	{ "PPc tie with an earlier PPx", { { M_DEL, "E PPc 1500 u32:1 u32:1", NULL }, { M_DEL, "E PPx 2000 u32:1", NULL },
					   { M_DEL, "E PPe 2300 u32:1", NULL }, { M_AFTER, "E PT[ 1450", "E PPc 1460 u32:1 u32:1" },
					   { M_AFTER, "J POc 1410 u32:2 str:myloop", "E PPx 1460 u32:1\nE PPe 1470 u32:1" } },
	  "PPc of task 1 has the same clock as a PPx of it in loom.node0/proc.1/thread.1", "E PPc 1460 u32:1 u32:1", NULL, 0 },
	{ "OHx tie with OHC", { { M_REPL, "E OHx 1150 i32:1 i32:1 u64:7", "E OHx 1100 i32:1 i32:1 u64:7" } },
	  "OHx with tag 7 has the same clock as the OHC in loom.node0/proc.1/thread.1", "E OHx 1100 i32:1 i32:1 u64:7", NULL, 1 },
	{ NULL, { { 0 } }, NULL, NULL, NULL, 0 },
};

/* One case: mutate the valid trace, check, find the report. */
static void negative(const struct ncase *k, struct trace *t)
{
	load(t, valid);
	for (int i = 0; i < 5 && k->m[i].op; i++)
		if (apply(t, &k->m[i]) != 0) {
			CHECK(0, "%s: mutation %d does not apply", k->name, i);
			return;
		}
	char *out = NULL;
	long n = run_check(t, &out, k->name);
	char prefix[512];
	if (k->at) {
		int i = find(t, k->at);
		if (i < 0) {
			CHECK(0, "%s: no line '%s'", k->name, k->at);
			free(out);
			return;
		}
		char mcv[8] = "";
		if (k->at[0] == 'E' || k->at[0] == 'J')
			snprintf(mcv, sizeof(mcv), " %.3s", k->at + 2);
		/* raw bytes: with or without a readable MCV */
		snprintf(prefix, sizeof(prefix), "%s offset %zu%s%s", t->rel[i], t->off[i], mcv, k->at[0] == 'R' ? "" : ": ");
	} else {
		snprintf(prefix, sizeof(prefix), "%s", k->who);
	}
	if (getenv("V"))
		printf("== %s\n%s", k->name, out);
	CHECK(n > 0, "%s: check found no problem:\n%s", k->name, out);
	CHECK(find_report(out, prefix, k->expect), "%s: no line '%s...%s' in:\n%s", k->name, prefix, k->expect, out);
	if (k->count)
		CHECK(n == k->count, "%s: %ld problems, expected %d:\n%s", k->name, n, k->count, out);
	CHECK(strstr(out, n == 1 ? "\n1 problem in " : " problems in "), "%s: no summary:\n%s", k->name, out);
	free(out);
}

static void expect_ok(struct trace *t, const char *name, const char *summary)
{
	char *out = NULL;
	long n = run_check(t, &out, name);
	CHECK(n == 0, "%s: %ld problems:\n%s", name, n, out);
	if (summary)
		CHECK(strstr(out, summary) != NULL, "%s: no '%s' in:\n%s", name, summary, out);
	free(out);
}

/* Valid variations that the emulator accepts. */
static void positives(struct trace *t)
{
	load(t, valid);
	expect_ok(t, "valid", "ok: 2 streams, 21 events");

	/* Running again after ending (resurrect), on another thread; nested
	 * tasks LIFO; spin-wait events ignored; the same state nested twice. */
	load(t, valid);
	apply(t, &(struct mut){ M_AFTER, "E PPc 1500 u32:1 u32:1", "E PPc 1510 u32:2 u32:1" });
	apply(t, &(struct mut){ M_AFTER, "E PPx 2000 u32:1", "E PTt 2010\nE PPx 2020 u32:2\nE PBs 2021\nE PBS 2022\nE PPe 2030 u32:2\nE PTT 2040" });
	apply(t, &(struct mut){ M_BEFORE, "E OHe 3000", "E PPx 2600 u32:1\nE PBb 2610\nE PBb 2620\nE PBB 2630\nE PBB 2640\nE PPe 2700 u32:1" });
	expect_ok(t, "resurrect and nesting", NULL);

	/* Handing a CPU over: A cools and pauses, B moves onto its CPU and
	 * ends, A resumes; many threads on the virtual CPU. */
	load(t, valid);
	apply(t, &(struct mut){ M_AFTER, "E OF] 1860", "E OHc 2410\nE OHp 2420\nE OHr 2600" });
	apply(t, &(struct mut){ M_AFTER, "E PT] 2400", "E OAs 2430 i32:0" });
	apply(t, &(struct mut){ M_APPEND, NULL, MORE_STREAM "\nE OHx 1200 i32:-1 i32:1 u64:0\nE OHe 1300" });
	expect_ok(t, "cpu handover and vCPU", "ok: 3 streams");

	/* Accepted before OHx and after OHe: OB. OF[ OF] OM= OHC; a dead
	 * thread may run again. */
	load(t, valid);
	apply(t, &(struct mut){ M_BEFORE, "E OHx 1150 i32:1 i32:1 u64:7", "E OB. 1120\nE OF[ 1121\nE OF] 1122\nE OM= 1123 i64:2 i32:6\nE OHC 1124 i32:0 u64:99" });
	apply(t, &(struct mut){ M_AFTER, "E OHe 2500", "E OB. 2600\nE OM= 2610 i64:4 i32:6\nE OHx 2700 i32:1 i32:1 u64:0\nE OHe 2800" });
	expect_ok(t, "outside OHx/OHe", NULL);

	/* Two looms, offsets that bring one 2 h back; ranks everywhere. */
	load(t, valid);
	apply(t, &(struct mut){ M_APPEND, NULL, "S loom.node1.x/proc.9/thread.9 9 9 node1.x\nK ovni.rank 1\nK ovni.nranks 2\n"
					       "E OHx 7200000001200 i32:0 i32:-1 u64:0\nE OHe 7200000001300\n"
					       "F clock-offsets.txt rank hostname offset_median offset_mean offset_std|"
					       "0 node0 0 0 0|1 node1 -7200000000000 0 0|" });
	apply(t, &(struct mut){ M_AFTER, T1, "K ovni.rank 0\nK ovni.nranks 2" });
	expect_ok(t, "two looms with offsets", "ok: 3 streams, 23 events");

	/* Kernel and mpi models in use. */
	load(t, valid);
	apply(t, &(struct mut){ M_EACH_STREAM, NULL, "K ovni.require.kernel \"1.0.0\"\nK ovni.require.mpi \"1.0.0\"" });
	apply(t, &(struct mut){ M_AFTER, "E OF] 1860", "E KCO 1870\nE KCI 1871\nE MUi 1880\nE MS[ 1881\nE MR[ 1882\nE MR] 1883\nE MS] 1884\nE MUI 1890\nE MaR 1891" });
	char *out = NULL;
	long n = run_check(t, &out, "mpi");
	CHECK(n == 1 && strstr(out, "MaR does not close the top of the mpi function stack (nothing is open)"),
	      "mpi: %ld problems:\n%s", n, out);
	free(out);
	load(t, valid);
	apply(t, &(struct mut){ M_EACH_STREAM, NULL, "K ovni.require.kernel \"1.0.0\"\nK ovni.require.mpi \"1.0.0\"\nK ovni.require.foo \"9.9.9\"" });
	apply(t, &(struct mut){ M_AFTER, "E OF] 1860", "E KCO 1870\nE KCI 1871\nE MUi 1880\nE MS[ 1881\nE MR[ 1882\nE MR] 1883\nE MS] 1884\nE MUI 1890" });
	expect_ok(t, "kernel, mpi and an unknown model required", "ok: 2 streams, 29 events");

	/* openmp 1.0.0 is compatible with 1.2.1. */
	load(t, valid);
	apply(t, &(struct mut){ M_EACH_STREAM, NULL, "K ovni.require.openmp \"1.0.0\"" });
	expect_ok(t, "openmp 1.0.0", NULL);
}

/* A stream.json with comments (the emulator's parser takes them). */
static void json_comments(struct trace *t)
{
	load(t, valid);
	char dir[4200], path[4300];
	snprintf(dir, sizeof(dir), "%s/comments", top);
	write_trace(t, dir);
	snprintf(path, sizeof(path), "%s/loom.node0/proc.1/thread.2/stream.json", dir);
	size_t len;
	char *json = (char *)test_read_file(path, &len);
	json[len] = '\0';
	FILE *f = fopen(path, "w");
	fprintf(f, "// written by hand\n%.*s /* the end */\n", (int)len, json);
	fclose(f);
	free(json);
	char *out = NULL;
	FILE *o = open_memstream(&out, &len);
	char err[600];
	long n = ck_check_path(dir, 1, o, err, sizeof(err));
	fclose(o);
	CHECK(n == 0, "stream.json with comments: %ld problems:\n%s", n, out);
	free(out);
	/* And one that is not JSON at all. */
	f = fopen(path, "w");
	fputs("{\"version\": 3, \"ovni\": {", f);
	fclose(f);
	o = open_memstream(&out, &len);
	n = ck_check_path(dir, 1, o, err, sizeof(err));
	fclose(o);
	CHECK(n >= 1 && find_report(out, W2, "cannot load stream.json: stream.json line"),
	      "broken stream.json: %ld problems:\n%s", n, out);
	free(out);
}

/* More than 100 problems of one kind: 100 listed, then a count. */
static void many(struct trace *t)
{
	load(t, valid);
	char *lines = malloc(150 * 32), *p = lines;
	for (int i = 0; i < 150; i++)
		p += sprintf(p, "E OM= %d i64:3 i32:9\n", 1311 + i);
	apply(t, &(struct mut){ M_AFTER, "E OM= 1310 i64:3 i32:6", lines });
	free(lines);
	apply(t, &(struct mut){ M_REPL, "J POc 1400 u32:1 str:mytask", "J POc 1500 u32:1 str:mytask" });
	apply(t, &(struct mut){ M_REPL, "J POc 1410 u32:2 str:myloop", "J POc 1500 u32:2 str:myloop" });
	char *out = NULL;
	long n = run_check(t, &out, "many");
	int listed = 0;
	for (const char *l = out; (l = strstr(l, "cannot find mark with type 9")); l++)
		listed++;
	CHECK(n == 150 && listed == 100, "many: %ld problems, %d listed", n, listed);
	CHECK(strstr(out, "... and 50 more problems of the same kind (mark-type)\n") != NULL, "many: no count:\n%.300s",
	      out + (strlen(out) > 300 ? strlen(out) - 300 : 0));
	free(out);

	/* Stack depth: 513 nested subsystem states. */
	load(t, valid);
	lines = malloc(512 * 16);
	p = lines;
	for (int i = 0; i < 512; i++)
		p += sprintf(p, "E PBb 1700\n");
	apply(t, &(struct mut){ M_AFTER, "E PBb 1700", lines });
	free(lines);
	n = run_check(t, &out, "depth");
	CHECK(find_report(out, "loom.node0/proc.1/thread.1 offset ", "openmp subsystem stack is full (512)") &&
		      find_report(out, W1, "ended with 511 stacked openmp functions"),
	      "depth: %ld problems:\n%.2000s", n, out);
	free(out);
}

/* -q hides notes but not problems; notes do not count as problems. */
static void quiet(struct trace *t)
{
	load(t, valid);
	apply(t, &(struct mut){ M_APPEND, NULL, "S loom.node0/proc.1/other 3 1 node0\nK ovni.part \"other\"" });
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s/quiet", top);
	write_trace(t, dir);
	char *out = NULL, err[600];
	size_t len;
	FILE *o = open_memstream(&out, &len);
	long n = ck_check_path(dir, 0, o, err, sizeof(err));
	fclose(o);
	CHECK(n == 0 && strstr(out, "note: ignoring unknown stream loom.node0/proc.1/other") &&
		      strstr(out, "ok: 3 streams, 21 events"),
	      "notes: %ld:\n%s", n, out);
	free(out);
	o = open_memstream(&out, &len);
	n = ck_check_path(dir, 1, o, err, sizeof(err));
	fclose(o);
	CHECK(n == 0 && !strcmp(out, "ok: 3 streams, 21 events\n"), "quiet: %ld:\n%s", n, out);
	free(out);
	o = open_memstream(&out, &len);
	n = ck_check_path("/nonexistent/trace", 1, o, err, sizeof(err));
	fclose(o);
	CHECK(n == -1 && strstr(err, "/nonexistent/trace"), "missing trace: %ld %s", n, err);
	free(out);
}

int main(int argc, char **argv)
{
	struct trace t = { 0 };
	if (argc == 3 && !strcmp(argv[1], "--write-valid")) {
		load(&t, valid);
		write_trace(&t, argv[2]);
		trace_free(&t);
		return 0;
	}
	top = test_tmpdir("check");
	CHECK(top != NULL, "tmpdir");
	if (!top)
		TEST_DONE();
	positives(&t);
	int ncases = 0;
	for (const struct ncase *k = cases; k->name; k++) {
		negative(k, &t);
		ncases++;
	}
	json_comments(&t);
	many(&t);
	quiet(&t);
	printf("%d negative cases\n", ncases);
	trace_free(&t);
	if (!test_failures)
		test_rmrf(top);
	else
		fprintf(stderr, "traces kept in %s\n", top);
	free(top);
	TEST_DONE();
}
