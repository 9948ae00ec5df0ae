/* libovni.c: the libovni 1.x C API (ovni.h of ovni 1.14), provided by the
 * agent.  A program that calls libovni (a runtime, an MPI interposer, hand
 * instrumentation) and runs under the agent gets these definitions instead
 * of its own libovni's (the preloaded object comes first), so its events go
 * into the agent's streams, one per thread, in clock order with the
 * agent's own.  The rules (README, "Programs that use libovni"):
 * - the agent owns the process and its threads: ovni_proc_init,
 *   ovni_thread_init/free only record what the program declared (app id,
 *   rank; a different loom or pid is reported once and not used);
 * - thread states: the agent wrote OHx when the thread started and writes
 *   OHe when it ends.  The program's OHx becomes an OAs to its CPU, its OHe
 *   an OAs to the virtual CPU (the thread is still running code); OHp, OHr,
 *   OHc, OHw, OAs, OAr pass, CPU indices translated through the program's
 *   ovni_add_cpu list to the agent's loom CPUs (same physical CPU);
 * - marks: the program's types keep their numbers unless the agent uses
 *   that type (80..99): such a type is moved to a free one, in its
 *   declarations and in its events;
 * - required models and attributes are added to the thread's stream.json
 *   (a newer version of one of the agent's models wins; "ovni." keys go
 *   into the "ovni" object, except the agent's own, which read as the
 *   trace says them);
 * - the program's events keep their clocks, even going back (unsorted
 *   regions are ovnisort's job, as with libovni);
 * - misuse that libovni would abort on is reported once on stderr and
 *   ignored, except at the version check, where the program's own libovni
 *   would have ended it too.
 * Nothing here runs unless the program calls libovni. */
/* Its emits are the program's, never on the agent's start path: not in
 * the start's text (writer/stream.h). */
#define OA_EMIT_TEXT
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../writer/ev_ovni.h"
#include "../../common/log.h"
#include "lo.h"

/* The program's own libovni, behind ours: asked for its version only. */
#define REALS(X) X(void, version_get, "ovni_version_get", (const char **, const char **))
HOOK_REALS(REALS)

#define LO_VERSION "1.14.0"
#define LO_MAX_CPUS 4096
#define LO_MAX_REQUIRE 4096
#define LO_JUMBO 0x10 /* flags: a jumbo event */

/* As ovni.h lays them out (packed: a 12-byte header, a 16-byte payload). */
struct lo_ev {
	uint8_t flags, model, category, value;
	uint64_t clock;
	uint8_t payload[16];
} __attribute__((packed));

enum lo_tstate { LO_RUNNING, LO_PAUSED, LO_COOLING, LO_WARMING };

/* jansson (the attributes' document model) is opened at start when the
 * program has libovni loaded, as a libovni program has: not on one of its
 * threads later (see json.h).  The loader's list read directly
 * (preload/real.h: not dl_iterate_phdr, which another preload may wrap). */
__attribute__((constructor(103))) static void libovni_init(void)
{
	if (!oa_off && oa_real_loaded("libovni.so", 10))
		oa_json_load();
}

OA_TLS struct lo_thread lo_self;
static pthread_mutex_t lo_lock = PTHREAD_MUTEX_INITIALIZER;
static int proc_ready; /* 1 after ovni_proc_init, 2 after ovni_proc_fini */
/* Program CPU index -> agent loom index (+1; 0: not declared). */
static _Atomic(int *) cpu_map;
/* Program mark type -> written type (+1; 0: not mapped yet). */
static _Atomic int type_map[OA_META_NTYPES];
static _Atomic int type_mine[OA_META_NTYPES]; /* declared through this API */

/* The agent's own lock: not a blocking call of the program's. */
static void lo_lock_take(void)
{
	oa_guard++;
	pthread_mutex_lock(&lo_lock);
}

static void lo_lock_drop(void)
{
	pthread_mutex_unlock(&lo_lock);
	oa_guard--;
}

void lo_misuse(const char *what)
{
	static _Atomic int said;
	if (!atomic_exchange(&said, 1))
		oa_log("libovni API: %s (libovni would abort; ignored, further misuse not reported)", what);
}

struct oa_thread *lo_thread(void)
{
	if (oa_guard || !agent_active())
		return NULL;
	struct oa_thread *t = oa_self;
	if (!t) /* a thread the agent did not see start (raw clone) */
		t = agent_thread_begin(-1, agent_next_tag(), 0);
	return t;
}

/* ---- version ---- */

/* The version check is the one call where libovni's abort is kept: the
 * program's own libovni would end it just the same (its message, then
 * SIGABRT, with the trace finished by the agent's handler).  A program
 * built for a newer 1.x than this API runs on if its own libovni is newer
 * too: only what 1.14 has is served then. */
OA_EXPORT void ovni_version_check_str(const char *version)
{
	int major = 0, minor = 0;
	if (!version || sscanf(version, "%d.%d", &major, &minor) != 2) {
		oa_log("libovni API: cannot parse the version \"%s\" the program was built for",
		       version ? version : "(null)");
		abort();
	}
	if (major == 1 && minor <= 14)
		return;
	const char *theirs = NULL, *commit = NULL;
	int tmajor = 0, tminor = 0;
	if (REAL(version_get))
		REAL(version_get)(&theirs, &commit);
	if (major == 1 && theirs && sscanf(theirs, "%d.%d", &tmajor, &tminor) == 2 && tmajor == 1 && tminor >= minor) {
		oa_log("libovni API: the program was built for libovni %s (its libovni is %s); the agent serves the "
		       "1.14 API",
		       version, theirs);
		return;
	}
	oa_log("libovni API: incompatible ovni %s version: wants %s, got %s", major != 1 ? "major" : "minor", version,
	       LO_VERSION);
	abort();
}

OA_EXPORT void ovni_version_get(const char **version, const char **commit)
{
	if (version)
		*version = LO_VERSION;
	if (commit)
		*commit = oa_meta.lib_commit ? oa_meta.lib_commit : "unknown";
}

/* ---- process ---- */

OA_EXPORT void ovni_proc_init(int app, const char *loom, int pid)
{
	HOOK_ERRNO_SAVE();
	lo_lock_take();
	if (proc_ready) {
		lo_misuse("ovni_proc_init called twice");
	} else {
		proc_ready = 1;
		if (app > 0)
			oa_meta.app_id = app;
		if (loom && strcmp(loom, oa_meta.loom) != 0)
			oa_log("libovni API: the program names its loom \"%s\"; the trace keeps \"%s\"", loom,
			       oa_meta.loom);
		if (pid != getpid())
			lo_misuse("ovni_proc_init with another pid than the process's");
	}
	lo_lock_drop();
	HOOK_ERRNO_RESTORE();
}

OA_EXPORT void ovni_proc_set_rank(int rank, int nranks)
{
	if (rank < 0 || nranks <= 0 || rank >= nranks) {
		lo_misuse("ovni_proc_set_rank with a rank out of range");
		return;
	}
	oa_meta.nranks = nranks;
	oa_meta.rank = rank;
}

OA_EXPORT void ovni_proc_fini(void)
{
	if (proc_ready != 1)
		lo_misuse("ovni_proc_fini without ovni_proc_init, or twice");
	proc_ready = 2;
}

/* ---- thread ---- */

OA_EXPORT void ovni_thread_init(pid_t tid)
{
	HOOK_ERRNO_SAVE();
	if (lo_self.ready == 2)
		lo_misuse("ovni_thread_init after ovni_thread_free");
	else if (tid != gettid())
		lo_misuse("ovni_thread_init with another tid than the thread's");
	lo_self.ready = 1;
	lo_thread();
	HOOK_ERRNO_RESTORE();
}

OA_EXPORT void ovni_thread_free(void)
{
	if (lo_self.ready != 1)
		lo_misuse("ovni_thread_free of a thread not initialized");
	lo_self.ready = 2;
}

OA_EXPORT int ovni_thread_isready(void)
{
	return lo_self.ready == 1;
}

/* Is version a newer than b (major.minor.patch)? */
static int version_newer(const char *a, const char *b)
{
	int x[3] = { 0 }, y[3] = { 0 };
	if (sscanf(a, "%d.%d.%d", &x[0], &x[1], &x[2]) < 1 || sscanf(b, "%d.%d.%d", &y[0], &y[1], &y[2]) < 1)
		return 0;
	for (int i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] > y[i];
	return 0;
}

/* Required models: rendered as JSON members into oa_meta.require_extra;
 * the agent's own (ovni, openmp, mpi) are written by the agent. */
OA_EXPORT void ovni_thread_require(const char *model, const char *version)
{
	if (!model || !version || strlen(model) < 2 || strpbrk(model, ". \"\\") || strpbrk(version, "\"\\")) {
		lo_misuse("ovni_thread_require with an invalid model name or version");
		return;
	}
	HOOK_ERRNO_SAVE();
	static const char *const mine[3][2] = { { "ovni", OVNI_MODEL_OVNI_VERSION },
						{ "openmp", OVNI_MODEL_OPENMP_VERSION },
						{ "mpi", OVNI_MODEL_MPI_VERSION } };
	for (int i = 0; i < 3; i++) {
		if (strcmp(model, mine[i][0]))
			continue;
		if (i == 1)
			agent_require(OA_REQUIRE_OPENMP);
		else if (i == 2)
			agent_require(OA_REQUIRE_MPI);
		/* The agent writes the version its events need, or the
		 * program's if newer (an emulator that lacks it refuses the
		 * trace, as it would the program's own). */
		lo_lock_take();
		const char *cur = atomic_load(&oa_meta.require_version[i]);
		if (version_newer(version, cur ? cur : mine[i][1])) {
			char *v = strdup(version);
			if (v) /* the old text may be read by a renderer right now: kept */
				atomic_store_explicit(&oa_meta.require_version[i], v, memory_order_release);
		}
		lo_lock_drop();
		HOOK_ERRNO_RESTORE();
		return;
	}
	lo_lock_take();
	const char *old = atomic_load(&oa_meta.require_extra);
	char key[160];
	snprintf(key, sizeof(key), "\"%s\": ", model);
	if (!old || !strstr(old, key)) {
		size_t len = (old ? strlen(old) : 0) + strlen(key) + strlen(version) + 8;
		char *text = len < LO_MAX_REQUIRE ? malloc(len) : NULL;
		if (text) {
			snprintf(text, len, "%s, %s\"%s\"", old ? old : "", key, version);
			/* the old text may be read by a renderer right now: kept */
			atomic_store_explicit(&oa_meta.require_extra, text, memory_order_release);
		}
	}
	lo_lock_drop();
	HOOK_ERRNO_RESTORE();
}

/* ---- CPUs ---- */

static int agent_index_of(int phyid)
{
	for (int i = 0; i < oa_meta.ncpus; i++)
		if (oa_meta.phyids[i] == phyid)
			return i;
	return -1;
}

OA_EXPORT void ovni_add_cpu(int index, int phyid)
{
	if (index < 0 || index >= LO_MAX_CPUS || phyid < 0) {
		lo_misuse("ovni_add_cpu with an index out of range");
		return;
	}
	HOOK_ERRNO_SAVE();
	int *map = atomic_load(&cpu_map);
	if (!map) {
		lo_lock_take();
		map = atomic_load(&cpu_map);
		if (!map) {
			map = calloc(LO_MAX_CPUS, sizeof(int));
			atomic_store(&cpu_map, map);
		}
		lo_lock_drop();
		if (!map) {
			HOOK_ERRNO_RESTORE();
			return;
		}
	}
	int mine = agent_index_of(phyid);
	if (mine < 0)
		oa_log("libovni API: CPU %d (index %d) is not a CPU of this loom: shown as the virtual CPU", phyid,
		       index);
	/* stored + 2: 0 is "not declared", 1 the virtual CPU */
	atomic_store((_Atomic int *)&map[index], mine + 2);
	HOOK_ERRNO_RESTORE();
}

/* The agent's loom index for a program CPU index (-1: virtual CPU). */
static int32_t map_cpu(int32_t cpu)
{
	if (cpu < 0)
		return -1;
	int *map = atomic_load(&cpu_map);
	if (map && cpu < LO_MAX_CPUS) {
		int v = atomic_load((_Atomic int *)&map[cpu]);
		if (v)
			return v - 2;
	}
	/* Not declared: the same index if the agent has it. */
	return cpu < oa_meta.ncpus ? cpu : -1;
}

/* ---- events ---- */

OA_EXPORT void ovni_ev_set_mcv(struct lo_ev *ev, const char *mcv)
{
	ev->model = (uint8_t)mcv[0];
	ev->category = (uint8_t)mcv[1];
	ev->value = (uint8_t)mcv[2];
}

OA_EXPORT uint64_t ovni_ev_get_clock(const struct lo_ev *ev)
{
	return ev->clock;
}

OA_EXPORT void ovni_ev_set_clock(struct lo_ev *ev, uint64_t clock)
{
	ev->clock = clock;
}

OA_EXPORT uint64_t ovni_clock_now(void)
{
	return oa_clock_now();
}

OA_EXPORT int ovni_payload_size(const struct lo_ev *ev)
{
	if (ev->flags & LO_JUMBO) {
		uint32_t n;
		memcpy(&n, ev->payload, 4);
		return (int)n;
	}
	int n = ev->flags & 0x0f;
	return n ? n + 1 : 0;
}

OA_EXPORT int ovni_ev_size(const struct lo_ev *ev)
{
	int n = ovni_payload_size(ev);
	return OVNI_EV_HEADER_SIZE + ((ev->flags & LO_JUMBO) ? 4 : 0) + n;
}

OA_EXPORT void ovni_payload_add(struct lo_ev *ev, const uint8_t *buf, int size)
{
	if (ev->flags & LO_JUMBO) {
		lo_misuse("ovni_payload_add on a jumbo event");
		return;
	}
	int have = ovni_payload_size(ev);
	if (size < 2 || have + size > 16) {
		lo_misuse("ovni_payload_add: a payload must have 2 to 16 bytes");
		return;
	}
	memcpy(ev->payload + have, buf, (size_t)size);
	ev->flags = (uint8_t)((ev->flags & 0xf0) | ((have + size - 1) & 0x0f));
}

/* The written type of a program mark type. */
int32_t lo_map_type(int32_t type)
{
	if (type < 0 || type >= OA_META_NTYPES)
		return type;
	int v = atomic_load(&type_map[type]);
	return v ? v - 1 : type;
}

/* The program's own thread-state events, on the agent's running thread. */
static void thread_state(struct oa_thread *t, const char *mcv, uint64_t clock, const uint8_t *p, int n)
{
	int32_t cpu = 0;
	if (n >= 4)
		memcpy(&cpu, p, 4);
	switch (mcv[2]) {
	case 'p':
	case 'w':
	case 'r':
	case 'c':
		lo_self.state = mcv[2] == 'p'   ? LO_PAUSED
				: mcv[2] == 'w' ? LO_WARMING
				: mcv[2] == 'c' ? LO_COOLING
						: LO_RUNNING;
		/* paused: Paused or Warming, which OHr ends (the agent's end of
		 * the stream writes it before OHe) */
		oa_emit_state_at(&t->s, mcv, mcv[2] == 'p' || mcv[2] == 'w', clock);
		t->s.held = lo_self.state != LO_RUNNING;
		return;
	case 'x': /* began running: it already is; on this CPU */
	case 'e': /* ended: it still runs code; on the virtual CPU */
		if (lo_self.state == LO_PAUSED || lo_self.state == LO_WARMING) {
			lo_misuse("OHx/OHe on a paused thread");
			return;
		}
		if (lo_self.state == LO_COOLING) {
			oa_emit_state_at(&t->s, "OHp", 1, clock);
			oa_emit_state_at(&t->s, "OHr", 0, clock);
			lo_self.state = LO_RUNNING;
			t->s.held = 0;
		}
		cpu = mcv[2] == 'x' && n >= 4 ? map_cpu(cpu) : -1;
		if (cpu != atomic_load(&t->cpu)) {
			atomic_store(&t->cpu, cpu);
			oa_emit_at(&t->s, "OAs", clock, &cpu, 4);
		}
		return;
	default: /* OHC and anything else of the category */ oa_emit_raw_at(&t->s, mcv, clock, p, (unsigned)n); return;
	}
}

OA_EXPORT void ovni_ev_emit(struct lo_ev *ev)
{
	if (ev->flags & LO_JUMBO) {
		lo_misuse("ovni_ev_emit of a jumbo event");
		return;
	}
	struct oa_thread *t = lo_thread();
	if (!t)
		return;
	HOOK_ERRNO_SAVE();
	char mcv[3] = { (char)ev->model, (char)ev->category, (char)ev->value };
	int n = ovni_payload_size(ev);
	uint8_t p[16];
	memcpy(p, ev->payload, (size_t)n);
	if (mcv[0] == 'O' && mcv[1] == 'H') {
		thread_state(t, mcv, ev->clock, p, n);
	} else if (mcv[0] == 'O' && mcv[1] == 'A' && n >= 4) {
		/* OAs (this thread), OAr (cpu, tid: another one): the emulator
		 * refuses a move to the CPU a thread is already on, where the
		 * agent may have shown it (a runtime pins its workers, then
		 * says so): left out. */
		int32_t cpu, tid = 0;
		memcpy(&cpu, p, 4);
		cpu = map_cpu(cpu);
		memcpy(p, &cpu, 4);
		if (mcv[2] == 'r' && n >= 8)
			memcpy(&tid, p + 4, 4);
		struct oa_thread *who = mcv[2] == 's' ? t : mcv[2] == 'r' ? agent_thread_by_tid(tid) : NULL;
		if (who && atomic_exchange(&who->cpu, cpu) == cpu) {
			HOOK_ERRNO_RESTORE();
			return;
		}
		oa_emit_raw_at(&t->s, mcv, ev->clock, p, (unsigned)n);
	} else if (mcv[0] == 'O' && mcv[1] == 'M' && n == 12) {
		int32_t type;
		memcpy(&type, p + 8, 4);
		type = lo_map_type(type);
		memcpy(p + 8, &type, 4);
		oa_emit_raw_at(&t->s, mcv, ev->clock, p, 12);
	} else if (mcv[0] == 'O' && mcv[1] == 'F') {
		/* libovni's own flush brackets: the agent writes its own */
	} else {
		oa_emit_raw_at(&t->s, mcv, ev->clock, p, (unsigned)n);
	}
	HOOK_ERRNO_RESTORE();
}

OA_EXPORT void ovni_ev_jumbo_emit(struct lo_ev *ev, const uint8_t *buf, uint32_t bufsize)
{
	if (ovni_payload_size(ev) != 0 || (uint64_t)bufsize + OVNI_EV_HEADER_SIZE + 4 >= OVNI_JUMBO_MAX) {
		lo_misuse("ovni_ev_jumbo_emit with a payload already set or of 2 MiB or more");
		return;
	}
	struct oa_thread *t = lo_thread();
	if (!t)
		return;
	HOOK_ERRNO_SAVE();
	char mcv[3] = { (char)ev->model, (char)ev->category, (char)ev->value };
	oa_emit_jumbo_raw_at(&t->s, mcv, ev->clock ? ev->clock : oa_clock_now(), buf, bufsize);
	HOOK_ERRNO_RESTORE();
}

OA_EXPORT void ovni_flush(void)
{
	/* Every event is in the page cache as soon as it is written. */
}

/* ---- marks ---- */

OA_EXPORT void ovni_mark_type(int32_t type, long flags, const char *title)
{
	if (type < 0 || type >= OA_META_NTYPES || !title) {
		lo_misuse("ovni_mark_type with a type out of [0, 100)");
		return;
	}
	HOOK_ERRNO_SAVE();
	lo_lock_take();
	int to = type;
	if (type >= OA_MARK_FIRST && !atomic_load(&type_map[type])) {
		/* The agent's range: the first type nobody declared. */
		to = -1;
		for (int c = OA_MARK_FIRST - 1; c >= 0 && to < 0; c--)
			if (!atomic_load(&oa_meta_type_at(&oa_meta, c)->declared) && !atomic_load(&type_mine[c]))
				to = c;
		if (to < 0) {
			lo_lock_drop();
			lo_misuse("ovni_mark_type: no free mark type left");
			HOOK_ERRNO_RESTORE();
			return;
		}
		oa_log("libovni API: the agent uses mark type %d: the program's \"%s\" is written as type %d", type,
		       title, to);
	} else if (atomic_load(&type_map[type])) {
		to = atomic_load(&type_map[type]) - 1;
	}
	atomic_store(&type_mine[to], 1);
	atomic_store(&type_map[type], to + 1);
	oa_meta_mark_type(&oa_meta, to, (flags & 1) != 0, title);
	lo_lock_drop();
	HOOK_ERRNO_RESTORE();
}

OA_EXPORT void ovni_mark_label(int32_t type, int64_t value, const char *label)
{
	if (value == 0 || !label) {
		lo_misuse("ovni_mark_label with value 0");
		return;
	}
	struct oa_thread *t = lo_thread();
	HOOK_ERRNO_SAVE();
	oa_meta_mark_label(&oa_meta, t ? &t->s.labels : NULL, lo_map_type(type), value, label);
	HOOK_ERRNO_RESTORE();
}

static void mark(const char *mcv, int32_t type, int64_t value)
{
	struct oa_thread *t = lo_thread();
	if (!t)
		return;
	HOOK_ERRNO_SAVE();
	uint8_t p[12];
	ev_mark_payload(p, value, lo_map_type(type));
	oa_emit(&t->s, mcv, p, sizeof(p));
	HOOK_ERRNO_RESTORE();
}

OA_EXPORT void ovni_mark_push(int32_t type, int64_t value)
{
	mark("OM[", type, value);
}

OA_EXPORT void ovni_mark_pop(int32_t type, int64_t value)
{
	mark("OM]", type, value);
}

OA_EXPORT void ovni_mark_set(int32_t type, int64_t value)
{
	mark("OM=", type, value);
}

int lo_type_moved(int type)
{
	return type >= 0 && type < OA_META_NTYPES && atomic_load(&type_map[type]) != 0;
}
