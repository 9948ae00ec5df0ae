/* ovni_fmt.h: the ovni trace format v3 on disk (header only; the writer and the
 * tools both use it).  Byte layouts follow the upstream trace specification:
 * an 8-byte stream header, then packed events of 12 + payload bytes. */
#ifndef OA_OVNI_FMT_H
#define OA_OVNI_FMT_H

#include <stdint.h>
#include <string.h>

#define OVNI_STREAM_MAGIC "ovni"
#define OVNI_STREAM_VERSION 1u  /* u32 after the magic */
#define OVNI_METADATA_VERSION 3 /* "version" in stream.json */
#define OVNI_HEADER_SIZE 8u
#define OVNI_EV_HEADER_SIZE 12u /* flags + mcv[3] + u64 clock */
#define OVNI_MAX_PAYLOAD 16u
#define OVNI_JUMBO_FLAG 0x10u
#define OVNI_JUMBO_MAX (2u * 1024u * 1024u) /* a whole jumbo event stays below */

/* Model versions this agent writes (and the checker accepts). */
#define OVNI_MODEL_OVNI_VERSION "1.1.0"
#define OVNI_MODEL_OPENMP_VERSION "1.2.1"
#define OVNI_MODEL_MPI_VERSION "1.0.0"

/* Event header as stored: flags, model, category, value, clock. */
struct __attribute__((packed)) ovni_ev_header {
	uint8_t flags;
	uint8_t model;
	uint8_t category;
	uint8_t value;
	uint64_t clock;
};

_Static_assert(sizeof(struct ovni_ev_header) == OVNI_EV_HEADER_SIZE, "ovni event header");

/* Payload size encoded in the low nibble: 0 means none, v means v+1 bytes. */
static inline unsigned ovni_flags_payload_size(uint8_t flags)
{
	unsigned v = flags & 0x0fu;
	return v ? v + 1u : 0u;
}

static inline int ovni_flags_is_jumbo(uint8_t flags)
{
	return (flags & OVNI_JUMBO_FLAG) != 0;
}

/* Flags byte for a normal event with n payload bytes (n == 0 or 2..16). */
static inline uint8_t ovni_flags_for_payload(unsigned n)
{
	return n ? (uint8_t)(n - 1u) : 0u;
}

/* Flags of a jumbo event: jumbo bit plus a 4-byte (u32 size) payload. */
#define OVNI_JUMBO_FLAGS ((uint8_t)(OVNI_JUMBO_FLAG | 0x3u))

/* Mark channel types reserved by ovni-auto (users keep 0..79). */
#define OA_MARK_FIRST 80
#define OA_MARK_PROC 80 /* process events: fork, exec, spawn, signal, exit */
/* Fixed values of OA_MARK_PROC (the others carry the pid in high bits). */
#define OA_PROC_SAMPLING_STOPPED 99 /* the program took the sampling signal */
#define OA_PROC_SIGNAL_BASE 100     /* + signal number: a fatal signal */
/* + exit status (0-255): the process's exit, labelled "exit status N" in
 * the streams of the processes that exit so (the same value and text in
 * every one: no loom counter to map for the one event every process has). */
#define OA_PROC_EXIT_BASE 256
/* Values drawn from the loom's counter keep their low 32 bits above these. */
#define OA_PROC_FIXED_END 512

/* The other process-event values are unique in the whole trace, and so are
 * their low 32 bits, which are all the emulator keeps for Paraver (two
 * values that agree there stop it: "PCF value ... already in type 180").
 * Low 32 bits: the pid mixed with the loom's hash (22 bits: pid_max is at
 * most 2^22, so two processes of a loom never agree) and the low 10 bits
 * of the process's sequence (from 1); above: the sequence's next 10 bits
 * and 21 more bits of the loom's hash (the loom holds the PID namespace:
 * a process whose loom changes across exec has values of its own there). */
static inline uint64_t oa_loom_hash(const char *loom)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)loom; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return h;
}

static inline int64_t oa_proc_value(const char *loom, long long pid, uint32_t seq)
{
	uint64_t h = oa_loom_hash(loom);
	uint64_t low = ((uint64_t)(seq & 0x3ff) << 22) | (((uint64_t)pid ^ h) & 0x3fffff);
	uint64_t high = ((h >> 22) & 0x1fffff) << 10 | ((seq >> 10) & 0x3ff);
	return (int64_t)(high << 32 | low);
}

/* The sequence number of v if v is a value of process pid in loom, else 0. */
static inline uint32_t oa_proc_value_seq(const char *loom, long long pid, int64_t v)
{
	uint64_t u = (uint64_t)v, h = oa_loom_hash(loom);
	if ((u & 0x3fffff) != (((uint64_t)pid ^ h) & 0x3fffff) || ((u >> 42) & 0x1fffff) != ((h >> 22) & 0x1fffff))
		return 0;
	return (uint32_t)(((u >> 32) & 0x3ff) << 10 | ((u >> 22) & 0x3ff));
}
#define OA_MARK_SYNC 81     /* blocking pthread calls */
#define OA_MARK_CALLSITE 82 /* caller of a creation / blocking call */
#define OA_MARK_SAMPLE 83   /* sampled current function */
#define OA_MARK_THREAD_NAME 84
#define OA_MARK_OMP_TASK 85      /* task completion / suspension / migration */
#define OA_MARK_OMP_DEPS 86      /* dependences: the task the created one waits for */
#define OA_MARK_OMP_CONSTRUCT 87 /* stack: masked, reduction, lock kinds */
#define OA_MARK_OMP_TASKID 88    /* the task an OA_MARK_OMP_TASK event is about */
#define OA_MARK_OMP_DEPKIND 89   /* kind of each dependence of a created task */

/* The openmp model's subsystem states: category, entering value, leaving
 * value (the checker validates them, the finisher closes them). */
static const char ovni_omp_pairs[][3] = {
	{ 'B', 'b', 'B' }, { 'B', 'j', 'J' }, { 'B', 'f', 'F' }, { 'B', 't', 'T' }, { 'I', 'a', 'A' },
	{ 'I', 'r', 'R' }, { 'I', '[', ']' }, { 'W', 'd', 'D' }, { 'W', 'y', 'Y' }, { 'W', 'c', 'C' },
	{ 'W', 's', 'S' }, { 'W', 'e', 'E' }, { 'W', 'i', 'I' }, { 'T', 'a', 'A' }, { 'T', 'c', 'C' },
	{ 'T', 'd', 'D' }, { 'T', 'r', 'R' }, { 'T', '[', ']' }, { 'T', 'i', 'I' }, { 'T', 's', 'S' },
	{ 'T', 'g', 'G' }, { 'T', 't', 'T' }, { 'T', 'w', 'W' }, { 'T', 'y', 'Y' }, { 'A', '[', ']' },
	{ 'C', 'f', 'F' }, { 'C', 'i', 'I' }, { 'M', 'i', 'I' }, { 'M', 'u', 'U' }, { 'H', '[', ']' },
};
#define OVNI_OMP_NPAIRS (sizeof(ovni_omp_pairs) / sizeof(ovni_omp_pairs[0]))

/* Paired events (MPI functions, OpenMP subsystem states): a lower-case
 * value or '[' enters, the matching upper-case one or ']' leaves. */
static inline int ovni_pair_enters(char v)
{
	return (v >= 'a' && v <= 'z') || v == '[';
}

static inline int ovni_pair_leaves(char v)
{
	return (v >= 'A' && v <= 'Z') || v == ']';
}

/* The leaving value of an entering one, and the other way round. */
static inline char ovni_pair_leave_of(char enter)
{
	return enter == '[' ? ']' : (char)(enter - 'a' + 'A');
}

static inline char ovni_pair_enter_of(char leave)
{
	return leave == ']' ? '[' : (char)(leave - 'A' + 'a');
}

#endif
