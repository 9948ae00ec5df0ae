/* mpi.c: MPI calls as the mpi model ('M' 1.0.0).
 * Interposes: the C bindings (MPI_*) and the Fortran bindings (mpi_*_ of
 * gfortran, mpi_* of -fno-underscoring) of the 49 functions the model
 * defines; nothing else.
 *
 * Each call of a traced thread is bracketed by the model's enter and leave
 * events (MS[ ... MS] for MPI_Send); only the outermost MPI call of a
 * thread is recorded.  The real functions are the next definitions after
 * the agent (a profiling tool loaded after it still sees every call), or,
 * for a library loaded privately (Python's mpi4py), its PMPI_* entry
 * points; they are resolved at the first MPI call, never at start: a
 * program that does not use MPI pays nothing.
 *
 * After MPI_Init / MPI_Init_thread succeed, the process's rank and size in
 * MPI_COMM_WORLD go into the metadata (ovni.rank, ovni.nranks), and every
 * rank takes part in the clock measurement of mpi_sync.c (again before
 * MPI_Finalize, for the drift) when every rank can be assumed to have the
 * agent.  OVNI_MPI_SYNC=0 turns the measurement off, OVNI_MPI_SYNC=init
 * measures only in MPI_Init, OVNI_MPI_SYNC=1 measures without asking. */
#include <dlfcn.h>
#include <link.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../preload/config.h"
#include "../../common/log.h"
#include "../hooks.h"
#include "mpi.h"
#include "../../common/env.h"

OA_TLS int oa_mpi_depth;
struct oa_pmpi oa_pmpi;
struct oa_mpi_abi oa_mpi_abi;

enum {
#define MPI_IX(name, lname, n, fn, en, lv) IX_##name,
	OA_MPI_FUNCS(MPI_IX)
#undef MPI_IX
		IX_Init,
	IX_Init_thread,
	IX_Finalize,
	IX_N
};

static const char *const names[IX_N][2] = {
#define MPI_NAME(name, lname, n, fn, en, lv) { #name, #lname },
	OA_MPI_FUNCS(MPI_NAME)
#undef MPI_NAME
		{ "Init", "init" },
	{ "Init_thread", "init_thread" },
	{ "Finalize", "finalize" },
};

/* The real functions: C, Fortran with gfortran's trailing underscore,
 * Fortran without (-fno-underscoring). */
enum { LANG_C, LANG_F, LANG_F0, NLANG };
static void *real_fn[NLANG][IX_N];
static _Atomic int resolved; /* 0: not yet, 1: resolving, 2: done */

/* A library in a private namespace (dlopen'ed with RTLD_LOCAL, as Python
 * loads extension modules): found by its PMPI_Init. */
static int find_private(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	void **handle = data;
	if (!info->dlpi_name || !info->dlpi_name[0])
		return 0;
	void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return 0;
	if (dlsym(h, "PMPI_Init")) {
		*handle = h;
		return 1;
	}
	dlclose(h);
	return 0;
}

static void *lookup(void *priv, const char *fmt, const char *name)
{
	char sym[64];
	snprintf(sym, sizeof(sym), fmt, name);
	void *p = dlsym(RTLD_NEXT, sym);
	if (!p && priv) {
		if (fmt[0] == 'M') /* MPI_x: the private library's PMPI_x */
			snprintf(sym, sizeof(sym), "PMPI_%s", name);
		p = dlsym(priv, sym);
	}
	return p;
}

/* Data symbols (Open MPI's predefined handles): the definition the program
 * uses, which is the executable's copy when it refers to them. */
static void *lookup_data(void *priv, const char *sym)
{
	void *p = dlsym(RTLD_DEFAULT, sym);
	return p || !priv ? p : dlsym(priv, sym);
}

static void detect_abi(void *priv)
{
	void *world = lookup_data(priv, "ompi_mpi_comm_world");
	if (world) {
		oa_mpi_abi.name = "openmpi";
		oa_mpi_abi.comm_world = (intptr_t)world;
		oa_mpi_abi.byte = (intptr_t)lookup_data(priv, "ompi_mpi_byte");
		oa_mpi_abi.status_ignore = 0;
		if (!oa_mpi_abi.byte)
			oa_mpi_abi.name = NULL;
	} else if (lookup_data(priv, "MPII_Version_string") || lookup_data(priv, "MPIR_Version_string")) {
		/* MPICH and its derivatives (Intel MPI, MVAPICH) share one ABI. */
		oa_mpi_abi.name = "mpich";
		oa_mpi_abi.comm_world = 0x44000000;
		oa_mpi_abi.byte = 0x4c00010d;
		oa_mpi_abi.status_ignore = 1;
	}
}

static void resolve_all(void)
{
	int expect = 0;
	if (!atomic_compare_exchange_strong(&resolved, &expect, 1)) {
		while (atomic_load(&resolved) != 2)
			sched_yield();
		return;
	}
	void *priv = NULL;
	if (!dlsym(RTLD_NEXT, "MPI_Init"))
		dl_iterate_phdr(find_private, &priv);
	for (int i = 0; i < IX_N; i++) {
		real_fn[LANG_C][i] = lookup(priv, "MPI_%s", names[i][0]);
		real_fn[LANG_F][i] = lookup(NULL, "mpi_%s_", names[i][1]);
		real_fn[LANG_F0][i] = lookup(NULL, "mpi_%s", names[i][1]);
	}
	*(void **)&oa_pmpi.comm_rank = lookup(priv, "PMPI_%s", "Comm_rank");
	*(void **)&oa_pmpi.comm_size = lookup(priv, "PMPI_%s", "Comm_size");
	*(void **)&oa_pmpi.comm_idup = lookup(priv, "PMPI_%s", "Comm_idup");
	*(void **)&oa_pmpi.comm_free = lookup(priv, "PMPI_%s", "Comm_free");
	*(void **)&oa_pmpi.test = lookup(priv, "PMPI_%s", "Test");
	*(void **)&oa_pmpi.allgather = lookup(priv, "PMPI_%s", "Allgather");
	*(void **)&oa_pmpi.send = lookup(priv, "PMPI_%s", "Send");
	*(void **)&oa_pmpi.recv = lookup(priv, "PMPI_%s", "Recv");
	detect_abi(priv);
	if (real_fn[LANG_C][IX_Init] || real_fn[LANG_F][IX_Init] || real_fn[LANG_F0][IX_Init])
		agent_require(OA_REQUIRE_MPI);
	if (oa_cfg.debug)
		oa_log("mpi: %s library, world %lx, byte %lx, status_ignore %lx%s\n",
		       oa_mpi_abi.name ? oa_mpi_abi.name : "unknown", (unsigned long)oa_mpi_abi.comm_world,
		       (unsigned long)oa_mpi_abi.byte, (unsigned long)oa_mpi_abi.status_ignore,
		       priv ? " (private namespace)" : "");
	atomic_store(&resolved, 2);
}

static inline void *real(int ix, int lang)
{
	void *p = real_fn[lang][ix];
	if (__builtin_expect(!p && atomic_load_explicit(&resolved, memory_order_acquire) != 2, 0)) {
		resolve_all();
		p = real_fn[lang][ix];
	}
	return p;
}

/* The thread whose stream gets the pair, or NULL (nested call, untraced). */
static inline struct oa_thread *mpi_enter(const char *mcv, const char *leave)
{
	if (oa_mpi_depth++)
		return NULL;
	struct oa_thread *t = oa_self;
	if (!t || oa_guard || oa_emitting(&t->s) || !agent_active())
		return NULL;
	int e = errno;
	ev_mpi(&t->s, mcv, leave);
	errno = e;
	return t;
}

static inline void mpi_leave(struct oa_thread *t, const char *mcv)
{
	if (t && t == oa_self && agent_active()) {
		int e = errno;
		ev_mpi(&t->s, mcv, NULL);
		errno = e;
	}
	oa_mpi_depth--;
}

/* Returned by a function the library does not have (found only by a
 * program that looks the agent's symbols up itself). */
#define NOT_FOUND 1

#define P0 void
#define P1 intptr_t a0
#define P2 P1, intptr_t a1
#define P3 P2, intptr_t a2
#define P4 P3, intptr_t a3
#define P5 P4, intptr_t a4
#define P6 P5, intptr_t a5
#define P7 P6, intptr_t a6
#define P8 P7, intptr_t a7
#define P9 P8, intptr_t a8
#define P10 P9, intptr_t a9
#define P11 P10, intptr_t a10
#define P12 P11, intptr_t a11
#define P13 P12, intptr_t a12
#define A0
#define A1 a0
#define A2 A1, a1
#define A3 A2, a2
#define A4 A3, a3
#define A5 A4, a4
#define A6 A5, a5
#define A7 A6, a6
#define A8 A7, a7
#define A9 A8, a8
#define A10 A9, a9
#define A11 A10, a10
#define A12 A11, a11
#define A13 A12, a12

#define WRAP_F(sym, name, fn, en, lv, lang)                                \
	OA_EXPORT void sym(P##fn)                                          \
	{                                                                  \
		void (*f)(P##fn) = (void (*)(P##fn))real(IX_##name, lang); \
		struct oa_thread *t = mpi_enter(en, lv);                   \
		if (f)                                                     \
			f(A##fn);                                          \
		else                                                       \
			*(int *)a##fn##_last = NOT_FOUND;                  \
		mpi_leave(t, lv);                                          \
	}
#define WRAP(name, lname, n, fn, en, lv)                                 \
	OA_EXPORT int MPI_##name(P##n)                                   \
	{                                                                \
		int (*f)(P##n) = (int (*)(P##n))real(IX_##name, LANG_C); \
		struct oa_thread *t = mpi_enter(en, lv);                 \
		int r = f ? f(A##n) : NOT_FOUND;                         \
		mpi_leave(t, lv);                                        \
		return r;                                                \
	}                                                                \
	WRAP_F(mpi_##lname##_, name, fn, en, lv, LANG_F)                 \
	WRAP_F(mpi_##lname, name, fn, en, lv, LANG_F0)

/* The Fortran ierror argument: the last one. */
#define a2_last a1
#define a3_last a2
#define a4_last a3
#define a5_last a4
#define a6_last a5
#define a7_last a6
#define a8_last a7
#define a9_last a8
#define a10_last a9
#define a11_last a10
#define a12_last a11
#define a13_last a12
#define a1_last a0
#define a0_last a0

OA_MPI_FUNCS(WRAP)

/* ------------------------------------------------------------------------
 * Init and Finalize: the rank, the clocks. */

static _Atomic int init_done, fini_done;
static int my_rank = -1, my_size = -1, mode;

/* Can every rank be assumed to have the agent?  The measurement is a
 * collective on MPI_COMM_WORLD: a rank without the agent would match the
 * program's next nonblocking collective with it.  Open MPI gives the
 * ranks on other nodes none of mpirun's environment (no LD_PRELOAD)
 * unless each rank runs ovnirun (OVNI_MPI_PER_RANK), and an MPMD launch
 * may run the agent in one program only; MPICH's Hydra and Slurm pass the
 * whole environment.  NULL when every rank has it, else why not. */
static const char *uniform_why_not(void)
{
	const char *apps = oa_getenv("OMPI_NUM_APP_CTX"), *local = oa_getenv("OMPI_COMM_WORLD_LOCAL_SIZE"),
		   *size = oa_getenv("OMPI_COMM_WORLD_SIZE"), *per_rank = oa_env(OA_ENV_MPI_PER_RANK);
	if (apps && atoi(apps) > 1)
		return "an MPMD launch (several programs) may run the agent in some of them only";
	if (local && size && atoi(local) < atoi(size) && !(per_rank && *per_rank == '1'))
		return "Open MPI passes no LD_PRELOAD to the ranks on other nodes; start the ranks as "
		       "`mpirun ... ovnirun ./app`";
	return NULL;
}

/* Does the launcher say every rank runs on this node?  The answer is the
 * same on every rank (the ranks' choice to enter the measurement's
 * collective must be): MPICH's Hydra and Open MPI give each rank the
 * count of the node's ranks, Slurm the step's count of nodes. */
static int one_node(int size)
{
	const char *local = oa_getenv("MPI_LOCALNRANKS");
	if (!local)
		local = oa_getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	if (local && atoi(local) == size)
		return 1;
	const char *nodes = oa_getenv("SLURM_STEP_NUM_NODES");
	return nodes && !strcmp(nodes, "1");
}

/* 0: off, 1: in MPI_Init, 2: also in MPI_Finalize, 3: one node, nothing
 * to measure.  OVNI_MPI_SYNC=1 (or "force") measures without asking
 * whether every rank has the agent. */
static int sync_mode(int rank, int size)
{
	const char *v = oa_env(OA_ENV_MPI_SYNC);
	if (v && (!strcmp(v, "0") || !strcmp(v, "off")))
		return 0;
	if (v && (!strcmp(v, "1") || !strcmp(v, "force")))
		return 2;
	/* One node: CLOCK_MONOTONIC agrees across its processes, and the
	 * emulator's offsets go by host name.  No collective: it cost every
	 * job a duplicate of MPI_COMM_WORLD and two exchanges, and in an MPMD
	 * launch with the agent in some programs only (which Hydra and Slurm
	 * do not tell) it hung the job.  (The tests' simulated nodes,
	 * OVNI_TEST_CLOCK_SKEW, are measured.) */
	if (one_node(size) && !oa_env(OA_ENV_TEST_CLOCK_SKEW))
		return 3;
	const char *why = uniform_why_not();
	if (why) {
		if (rank == 0 && agent_traced())
			oa_log("MPI clock offsets not measured: %s (OVNI_MPI_SYNC=1 measures when every rank has the "
			       "agent)",
			       why);
		return 0;
	}
	return v && !strcmp(v, "init") ? 1 : 2;
}

/* After the library's init succeeded.  Every rank with the agent loaded
 * comes here, traced or not: the measurement needs all of them. */
static void after_init(void)
{
	if (atomic_exchange(&init_done, 1) || !oa_mpi_abi.name || !oa_pmpi.comm_rank || !oa_pmpi.comm_size)
		return;
	int guard = oa_guard;
	oa_guard = 1;
	int e = errno;
	if (oa_pmpi.comm_rank(oa_mpi_abi.comm_world, &my_rank) != 0 ||
	    oa_pmpi.comm_size(oa_mpi_abi.comm_world, &my_size) != 0)
		my_rank = my_size = -1;
	if (my_rank >= 0 && agent_traced()) {
		oa_meta.rank = my_rank;
		oa_meta.nranks = my_size;
	}
	mode = my_rank >= 0 && my_size > 1 ? sync_mode(my_rank, my_size) : 0;
	if (mode == 3)
		oa_mpi_sync_one_node(my_rank);
	else if (mode >= 1)
		oa_mpi_sync_clocks(my_rank, my_size, 0);
	errno = e;
	oa_guard = guard;
}

static void before_finalize(void)
{
	if (!atomic_load(&init_done) || atomic_exchange(&fini_done, 1) || my_rank < 0 || my_size <= 1 || mode != 2)
		return;
	int guard = oa_guard;
	oa_guard = 1;
	int e = errno;
	oa_mpi_sync_clocks(my_rank, my_size, 1);
	errno = e;
	oa_guard = guard;
}

OA_EXPORT int MPI_Init(P2)
{
	int (*f)(P2) = (int (*)(P2))real(IX_Init, LANG_C);
	struct oa_thread *t = mpi_enter("MUi", "MUI");
	int r = f ? f(A2) : NOT_FOUND;
	if (r == 0)
		after_init();
	mpi_leave(t, "MUI");
	return r;
}

OA_EXPORT int MPI_Init_thread(P4)
{
	int (*f)(P4) = (int (*)(P4))real(IX_Init_thread, LANG_C);
	struct oa_thread *t = mpi_enter("MUt", "MUT");
	int r = f ? f(A4) : NOT_FOUND;
	if (r == 0)
		after_init();
	mpi_leave(t, "MUT");
	return r;
}

OA_EXPORT int MPI_Finalize(void)
{
	int (*f)(void) = (int (*)(void))real(IX_Finalize, LANG_C);
	struct oa_thread *t = mpi_enter("MUf", "MUF");
	before_finalize();
	int r = f ? f() : NOT_FOUND;
	mpi_leave(t, "MUF");
	return r;
}

/* Fortran: the error code is the last argument. */
static void fortran_init(void *fn, intptr_t ierr)
{
	struct oa_thread *t = mpi_enter("MUi", "MUI");
	if (fn)
		((void (*)(P1))fn)(ierr);
	else
		*(int *)ierr = NOT_FOUND;
	if (*(int *)ierr == 0)
		after_init();
	mpi_leave(t, "MUI");
}

static void fortran_init_thread(void *fn, intptr_t required, intptr_t provided, intptr_t ierr)
{
	struct oa_thread *t = mpi_enter("MUt", "MUT");
	if (fn)
		((void (*)(P3))fn)(required, provided, ierr);
	else
		*(int *)ierr = NOT_FOUND;
	if (*(int *)ierr == 0)
		after_init();
	mpi_leave(t, "MUT");
}

static void fortran_finalize(void *fn, intptr_t ierr)
{
	struct oa_thread *t = mpi_enter("MUf", "MUF");
	before_finalize();
	if (fn)
		((void (*)(P1))fn)(ierr);
	else
		*(int *)ierr = NOT_FOUND;
	mpi_leave(t, "MUF");
}

OA_EXPORT void mpi_init_(P1)
{
	fortran_init(real(IX_Init, LANG_F), a0);
}

OA_EXPORT void mpi_init(P1)
{
	fortran_init(real(IX_Init, LANG_F0), a0);
}

OA_EXPORT void mpi_init_thread_(P3)
{
	fortran_init_thread(real(IX_Init_thread, LANG_F), a0, a1, a2);
}

OA_EXPORT void mpi_init_thread(P3)
{
	fortran_init_thread(real(IX_Init_thread, LANG_F0), a0, a1, a2);
}

OA_EXPORT void mpi_finalize_(P1)
{
	fortran_finalize(real(IX_Finalize, LANG_F), a0);
}

OA_EXPORT void mpi_finalize(P1)
{
	fortran_finalize(real(IX_Finalize, LANG_F0), a0);
}
