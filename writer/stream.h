/* stream.h: one thread stream (stream.obs + stream.json) and the emit path.
 *
 * Events are written straight into a shared memory mapping of a window of
 * stream.obs, so they are in the page cache as soon as they are written and
 * survive SIGKILL.  When a window is full the stream "flushes": it maps the
 * next window (growing up to the configured size) and brackets that work with
 * OF[ / OF].  The emit path takes no lock and makes no system call otherwise.
 *
 * Descriptors: a stream holds none between calls.  Every piece of file work
 * (open, grow, close) opens the stream's directory by its absolute path, does
 * its work through descriptors it opened a moment before, with asynchronous
 * signals blocked, and closes them; the mapping outlives its descriptor.  So
 * a program that closes or replaces any descriptor number (shells, daemons,
 * closefrom) can never make the agent write into one of its files.
 *
 * Ownership: only the owner thread emits.  Another thread may end the stream
 * (process exit, crash, exec) with oa_stream_claim() + oa_stream_wait_idle():
 * the emit path makes emit_seq odd while it runs and checks `closed` first; the
 * closer publishes `closed` then, after a process-wide memory barrier, waits
 * for an odd emit_seq to change (the emit that was in progress ended; every
 * later one sees `closed`). See registry.c. */
#ifndef OA_STREAM_H
#define OA_STREAM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "clock.h"
#include "../common/compiler.h"
#include "../common/fdroom.h"
#include "meta.h"
#include "ovni_fmt.h"
#include "spool.h"

/* Paired states of a model that must be closed before the thread ends (the
 * openmp subsystem stack): at most this many are remembered. */
#define OA_STREAM_MAX_CLOSERS 64u

/* Room always kept free at the end of a window: an OF[ / OF] pair after a
 * flush, and OHr + the closings of open states + OHe so that a stream that
 * cannot grow (or whose thread is paused) can still be ended. */
#define OA_STREAM_RESERVE (4u * OVNI_EV_HEADER_SIZE + OA_STREAM_MAX_CLOSERS * (OVNI_EV_HEADER_SIZE + 4u))
#define OA_STREAM_MIN_WINDOW (32u * 1024u)
#define OA_STREAM_DEFAULT_WINDOW (4u * 1024u * 1024u)

enum oa_slot_state {
	OA_SLOT_FREE = 0,
	OA_SLOT_OPENING, /* owner is creating files; not yet visible to closers */
	OA_SLOT_OPEN,    /* owner emits; a closer may claim it */
	OA_SLOT_CLOSING, /* claimed by exactly one closer */
	OA_SLOT_CLOSED,  /* ended by another thread: never recycled */
};

struct oa_stream {
	/* Hot fields, touched by every emit (owner only, except emit_seq/closed). */
	uint8_t *pos;                 /* next byte to write */
	uint8_t *soft_end;            /* flush when an event would pass this */
	uint64_t last_clock;          /* clocks never go backwards inside a stream */
	_Atomic unsigned emit_seq;    /* odd while the owner is inside an emit */
	_Atomic int closed;           /* nonzero: no more events are accepted */
	uint64_t pend_clock;          /* nonzero: a deferred wait end (oa_stream_defer) */
	int pend_tsc;                 /* pend_clock is TSC ticks (an oa_stamp) */
	uint64_t pend_tsc0, pend_ns0; /* its anchor */

	/* Cold fields. */
	_Atomic int state; /* enum oa_slot_state, for the registry */
	int live;          /* files created and a window mapped (open .. close) */
	int failed;        /* I/O error: stream ended early */
	uint8_t *map;
	size_t map_len;
	uint64_t map_off; /* file offset of map[0] */
	size_t window, max_window;
	int tid;
	int has_final;               /* final_path holds the final directory (staged) */
	const struct oa_meta *meta;  /* what stream.json says (NULL: no stream.json) */
	struct oa_spool_slot *slot;  /* the window is this slot of the process's spool (spool.h) */
	struct oa_spool *spool;      /* that spool (or the one cfg->settle named): oa_spool_settle */
	uint8_t *run;                /* or: the slot is one of the run's spool, mapped here (spool.h) */
	struct oa_label_list labels; /* mark labels this stream writes */
	int claimed;                 /* claimed by oa_registry_end_others() */
	struct oa_stream *next;      /* registry list, never unlinked */
	uint64_t nflush;
	uint64_t flush_ns; /* time spent mapping windows */
	/* While a window is being replaced the mapping fields are not coherent:
	 * a signal handler that ends the stream then writes at committed_size
	 * through the file descriptor instead. */
	volatile int remapping;
	uint64_t committed_size;
	/* Set on a stream ended for an exec that then failed: its owner reopens
	 * it (appending) at its next event. */
	_Atomic int reopen;
	int paused; /* the last thread state written is Paused (OHp) */
	/* The program (libovni API) holds the thread in a state of its own
	 * (paused, cooling, warming): the agent writes no pause of its own. */
	int held;
	int meta_written;   /* the final stream.json is written (oa_stream_end) */
	int cpus_apart;     /* they are left out of its slot of the run's spool (oa_run_cpus_apart) */
	uint32_t json_size; /* stream.json's size as this stream last wrote it, 0: not known */
	int commit_fd1;     /* 1 + the descriptor of a final stream.json that waits for "finished" */
	unsigned open_gen;  /* bumped at every (re)open */
	/* Open paired states (oa_stream_track): the closing MCV of each,
	 * innermost last; nclosers counts past the array when deeper. Written
	 * by the owner inside an emit, read by whoever ends the stream. */
	unsigned nclosers;
	unsigned nclosed_at_end;
	/* The deferred end of a wait (oa_stream_defer): OHr if pend_resume,
	 * then OM] of each pend_type/pend_value, all at pend_clock. */
	int pend_resume;
	unsigned pend_n;
	int32_t pend_type[2];
	int64_t pend_value[2]; /* closed by oa_stream_end: reopened by oa_stream_reopen */
	struct oa_closer {
		uint32_t close; /* closing MCV (oa_mcv_pack) */
		uint32_t open;  /* opening MCV; bit 31: the events carry arg */
		uint32_t arg;
	} closers[OA_STREAM_MAX_CLOSERS];
	/* The directories, OA_STREAM_PATH bytes each, in memory that the
	 * owner gives (oa_stream_give_paths) or that the stream maps at its
	 * first need, kept across reuses of the stream.  A stream in a spool
	 * slot writes no file and makes neither until it outgrows the slot:
	 * path_base (final_base) and the tid say what they will be,
	 * "<base>/thread.<tid>".  So a registry slot (agent.h) is ~1.3 KiB,
	 * and the slots of three live threads share a page. */
	char *path;             /* directory holding stream.{obs,json} while writing */
	char *final_path;       /* final directory when staged in OVNI_TMPDIR (has_final) */
	const char *path_base;  /* not NULL: path (and final_path) not made yet */
	const char *final_base; /* with path_base, when staged */
};

#define OA_STREAM_PATH 4096

/* Paired states (owner, inside an emit, after writing the opening event):
 * oa_stream_opened() remembers the opening MCV and the closing one with its
 * optional u32 payload; oa_stream_closed() forgets the innermost entry with
 * that closing MCV.  oa_stream_end() writes the closings still open,
 * innermost first, before OHe, so that a thread ended by exit, exec or a
 * crash leaves no state open; oa_stream_reopen() (failed exec) writes the
 * openings again. */
#define OA_CLOSER_ARG 0x80000000u

/* An MCV as one word (3 bytes), so that remembering a state and finding it
 * again are a store and a compare (the MCVs are constants: folded). */
static inline uint32_t oa_mcv_pack(const char *mcv)
{
	return (uint32_t)(uint8_t)mcv[0] | (uint32_t)(uint8_t)mcv[1] << 8 | (uint32_t)(uint8_t)mcv[2] << 16;
}

static inline void oa_mcv_unpack(uint32_t w, char mcv[4])
{
	mcv[0] = (char)(w & 0xff);
	mcv[1] = (char)(w >> 8 & 0xff);
	mcv[2] = (char)(w >> 16 & 0xff);
	mcv[3] = 0;
}

static inline void oa_stream_opened(struct oa_stream *s, const char *open, const char *close, int has_arg, uint32_t arg)
{
	unsigned n = s->nclosers;
	if (n < OA_STREAM_MAX_CLOSERS) {
		struct oa_closer *c = &s->closers[n];
		c->close = oa_mcv_pack(close);
		c->open = oa_mcv_pack(open) | (has_arg ? OA_CLOSER_ARG : 0);
		c->arg = arg;
	}
	atomic_signal_fence(memory_order_release); /* a handler sees the entry first */
	s->nclosers = n + 1;
}

static inline void oa_stream_closed(struct oa_stream *s, const char *close)
{
	unsigned n = s->nclosers;
	if (!n)
		return;
	if (n > OA_STREAM_MAX_CLOSERS) {
		s->nclosers = n - 1; /* beyond the array: not remembered */
		return;
	}
	uint32_t k = oa_mcv_pack(close);
	for (unsigned i = n; i-- > 0;) {
		if (s->closers[i].close != k)
			continue;
		for (unsigned j = i; j + 1 < n; j++)
			s->closers[j] = s->closers[j + 1];
		atomic_signal_fence(memory_order_release);
		s->nclosers = n - 1;
		return;
	}
}

/* Called by the owner's emit when `closed` and `reopen` are set: continue
 * the stream (OHx on the virtual CPU). 0 when the event can be written. */
int oa_stream_reopen(struct oa_stream *s);

/* Whoever owns the slots (the agent) is told when a stream was reopened. */
extern void (*oa_stream_reopened)(struct oa_stream *s);

struct oa_stream_cfg {
	const char *dir;       /* directory of the stream (created; absolute) */
	const char *final_dir; /* where to move the files at close, or NULL */
	/* Or, with dir NULL: "<base>/thread.<tid>" (and "<final_base>/...")
	 * made when the first file is, and never for a stream that stays in
	 * its spool slot.  base and final_base must outlive the stream. */
	const char *base, *final_base;
	size_t max_window; /* 0: default */
	int tid;
	int append;                 /* continue an existing stream.obs (exec) */
	const struct oa_meta *meta; /* stream.json from this (NULL: none) */
	struct oa_spool *spool;     /* start in a slot of this spool when one is free (needs meta) */
	/* Without spool: a spool that may hold earlier streams of this tid
	 * all the same (it has no free slot); they are written out before the
	 * stream's files are made (oa_spool_settle).  With spool, that one. */
	struct oa_spool *settle;
	/* Without spool: start in a slot of the run's spool mapped at run
	 * (spool.h, needs meta), the process directory noted there as
	 * run_rel (relative to the trace); its stream.json rendered there
	 * now. */
	uint8_t *run;
	const char *run_rel;
};

/* Create the directory and stream.obs with its header and the first window,
 * and stream.json (without "finished"), which appears whole (written to a
 * temporary file, then renamed).  The stream's own label list is emptied
 * unless cfg->append.  Returns 0 or a negative errno; on error nothing is
 * left behind but the directory.  With cfg->spool (and no final_dir), the
 * first window is a free slot of the spool when there is one: no file is
 * made until the stream outgrows it (then they are, as above) or the spool
 * is unpacked; stream.json is written into the slot when the stream ends. */
int oa_stream_open(struct oa_stream *s, const struct oa_stream_cfg *cfg) USE_RET;

/* Memory for s's paths (2 * OA_STREAM_PATH bytes, kept by the caller for
 * the life of s): the stream maps none of its own. */
void oa_stream_give_paths(struct oa_stream *s, char *mem);

/* s->path (and final_path) made now if they were left to be made (a
 * stream opened with cfg->base): 0, or -ENOMEM, -ENAMETOOLONG.
 * Async-signal-safe. */
int oa_stream_make_paths(struct oa_stream *s) USE_RET;

/* Close: cut the file at the last event, unmap, write the final stream.json
 * and move staged files.  Async-signal-safe (no malloc, no locks, ~1.5 KiB
 * of stack). The caller has ended the thread (OHe) and owns the stream. */
int oa_stream_close(struct oa_stream *s);

/* A stream in a slot of the run's spool into files of its own now (an
 * exec: the next image goes on with them).  0 or -errno. */
int oa_stream_unslot(struct oa_stream *s);

/* Forget the stream without writing anything (inherited across fork). */
void oa_stream_drop(struct oa_stream *s);

/* The process is ending (exit, a fatal signal, an exec: its streams are
 * being finished): from on=1 until on=0, an open of the writer that fails
 * for want of a descriptor (the program holds all that RLIMIT_NOFILE
 * allows) raises the soft limit by a few, where the hard limit or the
 * process's privileges allow, and tries again; on=0 puts the limit back.
 * The program, leaving, needs no more descriptors; the trace's files do.
 * Async-signal-safe. */
void oa_files_ending(int on);

/* From now on, resolve the paths below `root` (the trace's directory) from
 * a descriptor to it opened now: the process is about to become a user
 * who may not be able to walk the absolute path.  The one descriptor the
 * agent holds, near the descriptor limit, close-on-exec, checked before
 * each use.  0 or -errno. */
int oa_stream_anchor(const char *root);
/* The descriptor to resolve the absolute `path` from (the anchor, or
 * AT_FDCWD) and, in *rel, the path relative to it: for every *at() call on
 * a path of the trace. */
int oa_path_at(const char *path, const char **rel);

/* The stream cannot grow (disk full...): say so once and accept no more
 * events; oa_stream_end() still fits the OHe in the reserved room. */
void oa_stream_fail(struct oa_stream *s);

/* End the stream from its owner or a claiming closer: write OHe (even though
 * `closed` is set) and close. Async-signal-safe. */
int oa_stream_end(struct oa_stream *s);

/* A whole stream at once, for a thread that ends before it needed a window
 * (a fork child that leaves at once): dir (its thread directory) is made
 * here, and must be new (else -EEXIST: an earlier stream there is
 * continued the usual way); stream.obs gets obs (len bytes, its header
 * included), stream.json the finished metadata with own's labels.
 * Async-signal-safe.  0 or -errno. */
int oa_stream_write_once(char *dir, const struct oa_meta *m, int tid, const struct oa_label_list *own,
			 const uint8_t *obs, size_t len);
/* The same into a slot of the run's spool map (DONE: ovnirun writes it
 * out into procdir, whose path in the trace is rel): 0, or -1 when there
 * is no slot or the text does not fit (nothing done). */
int oa_run_write_once(uint8_t *map, const char *procdir, const char *rel, const struct oa_meta *m, int tid,
		      const struct oa_label_list *own, const uint8_t *obs, size_t len);

/* Write stream.json now, not finished (owner; a live stream that is not
 * ending); a stream in a slot of the run's spool renders it into the slot
 * (no system call).  0 or a negative errno. */
int oa_stream_sync_meta(struct oa_stream *s);

/* Set: no stream maps another window (the process may no longer make the
 * system calls that takes: agent.h, "sealed"); an event that does not fit
 * in its stream's window ends that stream, silently. */
extern _Atomic int oa_stream_frozen;
/* Agent work that makes system calls in flight on some thread (a window's
 * advance, a thread's start or end): a seal (a seccomp filter, which
 * SECCOMP_FILTER_FLAG_TSYNC puts on every thread at once, about to go in)
 * sets oa_stream_frozen, then waits until there is none (agent_seal).
 * oa_sys_work_enter() is 0, and counts nothing, once frozen. */
extern _Atomic int oa_sys_work;
static inline int oa_sys_work_enter(void)
{
	atomic_fetch_add(&oa_sys_work, 1);
	if (atomic_load(&oa_stream_frozen)) {
		atomic_fetch_sub(&oa_sys_work, 1);
		return 0;
	}
	return 1;
}
static inline void oa_sys_work_leave(void)
{
	atomic_fetch_sub(&oa_sys_work, 1);
}

/* Slow path: map the next window so that `need` more bytes fit. */
int oa_stream_advance(struct oa_stream *s, size_t need, uint64_t *t0, uint64_t *t1);

/* An event's header at p, its payload already written after it: the clock
 * first, then flags and MCV in one 4-byte store, last.  Readers take a
 * zero MCV for the end of the events, so a process killed (SIGKILL) in
 * the middle of an event leaves no event with its clock or payload still
 * zero, which would read as a whole one. */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "oa_put_header stores flags and MCV as one little-endian word"
#endif
static inline void oa_put_header(uint8_t *p, uint8_t flags, const char *mcv, uint64_t clock)
{
	memcpy(p + 4, &clock, 8);
	uint32_t w = (uint32_t)flags | (uint32_t)(uint8_t)mcv[0] << 8 | (uint32_t)(uint8_t)mcv[1] << 16 |
		     (uint32_t)(uint8_t)mcv[2] << 24;
	atomic_signal_fence(memory_order_seq_cst); /* clock and payload stored before */
	memcpy(p, &w, 4);
}

/* Write the deferred end of a wait now (owner, inside an emit bracket,
 * before an event of its own; or whoever ends the stream). */
void oa_stream_write_pending(struct oa_stream *s);

/* The two halves of every emit, shared by normal and jumbo events.
 * reserve: room for `size` bytes at s->pos (flushing if needed); returns 0,
 * or -1 when the stream could not grow (it is then closed). */
static inline int oa_reserve(struct oa_stream *s, size_t size, uint64_t *t0, uint64_t *t1, int *flushed)
{
	*flushed = 0;
	if (likely(s->pos + size <= s->soft_end))
		return 0;
	if (oa_stream_advance(s, size, t0, t1) != 0) {
		oa_stream_fail(s);
		return -1;
	}
	*flushed = 1;
	return 0;
}

/* commit: the event ends at p; after a flush the OF[ / OF] pair follows it
 * (the flush happened after the event's clock was read). Returns the clock
 * of the last event written. */
static inline uint64_t oa_commit(struct oa_stream *s, uint8_t *p, uint64_t clock, int flushed, uint64_t t0, uint64_t t1)
{
	if (unlikely(flushed)) {
		oa_put_header(p, 0, "OF[", t0);
		oa_put_header(p + OVNI_EV_HEADER_SIZE, 0, "OF]", t1);
		p += 2 * OVNI_EV_HEADER_SIZE;
		clock = t1;
	}
	s->pos = p;
	s->last_clock = clock;
	return clock;
}

/* The emit bracket: emit_seq odd inside. A compiler barrier suffices on the
 * owner's side (the closer uses a process-wide barrier, registry.c). */
static inline unsigned oa_emit_enter(struct oa_stream *s)
{
	unsigned q = atomic_load_explicit(&s->emit_seq, memory_order_relaxed);
	/* Release (a plain store on x86): a closer that reads this value also
	 * sees everything the previous emits wrote. */
	atomic_store_explicit(&s->emit_seq, q + 1, memory_order_release);
	atomic_signal_fence(memory_order_seq_cst);
	return q;
}

static inline void oa_emit_leave(struct oa_stream *s, unsigned q)
{
	atomic_store_explicit(&s->emit_seq, q + 2, memory_order_release);
}

/* Is the owner inside an emit? (For a signal handler on the same thread.) */
static inline int oa_emitting(struct oa_stream *s)
{
	return atomic_load_explicit(&s->emit_seq, memory_order_relaxed) & 1;
}

/* The start of every writer's work, inside the bracket: 0 when the stream
 * takes no events (closed, and not to be reopened by this event); else the
 * deferred end of a wait (oa_stream_defer) is written first, so that no
 * writer's events come before it (the OMPT batch once skipped it: OpenMP
 * events on a Paused thread). */
static inline int oa_emit_ready(struct oa_stream *s)
{
	if (unlikely(atomic_load_explicit(&s->closed, memory_order_relaxed)) &&
	    (likely(!atomic_load_explicit(&s->reopen, memory_order_relaxed)) || oa_stream_reopen(s) != 0))
		return 0;
	if (unlikely(s->pend_clock))
		oa_stream_write_pending(s);
	return 1;
}

/* The body of an emit, inside the bracket.  Its copy in a file whose emits
 * no process runs at its start (the libovni API's) goes elsewhere: it
 * defines OA_EMIT_TEXT first. */
#ifndef OA_EMIT_TEXT
#define OA_EMIT_TEXT OA_START_TEXT
#endif
OA_EMIT_TEXT static inline uint64_t oa_emit_core_as(struct oa_stream *s, const char *mcv, uint64_t clock,
						    const void *payload, unsigned n, int raw)
{
	uint64_t t0 = 0, t1 = 0;
	int flushed;
	if (!oa_emit_ready(s))
		return 0;
	uint64_t last = s->last_clock; /* after a reopen or a wait's end, which write events */
	if (!raw && clock < last)
		clock = last;
	size_t size = OVNI_EV_HEADER_SIZE + n;
	if (unlikely(oa_reserve(s, size, &t0, &t1, &flushed) != 0))
		return 0;
	uint8_t *p = s->pos;
	if (n)
		memcpy(p + OVNI_EV_HEADER_SIZE, payload, n);
	oa_put_header(p, ovni_flags_for_payload(n), mcv, clock);
	uint64_t used = oa_commit(s, p + size, clock, flushed, t0, t1);
	if (raw && s->last_clock < last)
		s->last_clock = last; /* later events of the agent stay after it */
	return used;
}

static inline uint64_t oa_emit_core(struct oa_stream *s, const char *mcv, uint64_t clock, const void *payload,
				    unsigned n)
{
	return oa_emit_core_as(s, mcv, clock, payload, n, 0);
}

/* Write one event at an explicit clock (raised to the stream's last clock).
 * n is 0 or 2..16 for a normal event.  Returns the clock used, 0 if dropped. */
static inline uint64_t oa_emit_at(struct oa_stream *s, const char *mcv, uint64_t clock, const void *payload, unsigned n)
{
	unsigned q = oa_emit_enter(s);
	uint64_t used = oa_emit_core(s, mcv, clock, payload, n);
	oa_emit_leave(s, q);
	return used;
}

/* A flush bracket of the agent's own (its setup, a slow name lookup): OF[
 * at t0 and OF] at t1 (raised to the stream's last clock), in one
 * reservation, so that a window's flush it needs comes before it, not
 * inside it (nested OF[, which ovniemu rejects). */
void oa_emit_bracket(struct oa_stream *s, uint64_t t0, uint64_t t1);

/* Write one event at exactly the clock given, even one earlier than the
 * stream's last (a program's own events through the libovni API, which may
 * go back inside an ovnisort region); later events are still not written
 * before the latest clock. */
static inline uint64_t oa_emit_raw_at(struct oa_stream *s, const char *mcv, uint64_t clock, const void *payload,
				      unsigned n)
{
	unsigned q = oa_emit_enter(s);
	uint64_t used = oa_emit_core_as(s, mcv, clock, payload, n, 1);
	oa_emit_leave(s, q);
	return used;
}

/* Write one event stamped now. The clock is read inside the bracket so that
 * an event written by a signal handler in between cannot be later than ours
 * in the file. */
static inline uint64_t oa_emit(struct oa_stream *s, const char *mcv, const void *payload, unsigned n)
{
	unsigned q = oa_emit_enter(s);
	uint64_t used = oa_emit_core(s, mcv, oa_clock_now(), payload, n);
	oa_emit_leave(s, q);
	return used;
}

/* The end of a wait at stamp `at`, whose closing events are written later
 * by the owner, before its next event, or by whoever ends the stream: OHr
 * when `resume` (the thread is paused: it runs again), then OM] of marks
 * type[i] with value[i] (n <= 2), all at `at`.  A thread that leaves a lock
 * wait holding the lock then only takes a stamp and stores this while it
 * holds it: with 16 threads on one mutex, writing the two events there
 * stretched every critical section and slowed the program by half, and so
 * did reading the clock (bench/README.md).  Owner only; the trace says what
 * it said when written at once. */
static inline void oa_stream_defer_at(struct oa_stream *s, struct oa_stamp at, int resume, unsigned n,
				      const int32_t *type, const int64_t *value)
{
	unsigned q = oa_emit_enter(s);
	if (unlikely(s->pend_clock))
		oa_stream_write_pending(s);
	s->pend_tsc = at.tsc;
	s->pend_tsc0 = at.tsc0;
	s->pend_ns0 = at.ns0;
	s->pend_resume = resume;
	s->pend_n = n;
	for (unsigned i = 0; i < n && i < 2; i++) {
		s->pend_type[i] = type[i];
		s->pend_value[i] = value[i];
	}
	s->pend_clock = at.v ? at.v : 1;
	oa_emit_leave(s, q);
}

/* The same at a clock reading. */
static inline void oa_stream_defer(struct oa_stream *s, uint64_t clock, int resume, unsigned n, const int32_t *type,
				   const int64_t *value)
{
	struct oa_stamp at = { clock, 0, 0, 0 };
	oa_stream_defer_at(s, at, resume, n, type, value);
}

/* A thread state event (OHp, OHr): `paused` is recorded with it, in the same
 * emit window, so that whoever ends the stream knows whether to resume it
 * first. Returns the clock used, 0 if dropped. */
/* The start of a wait, one clock reading for all: OM[ of marks type[i]
 * with value[i] (n <= 2), then OHp when `pause`.  Half the cost of writing
 * them one by one (one clock reading, one reservation), which a thread that
 * found a lock held pays while others wait for the same lock.  Returns the
 * clock used, 0 if nothing was written. */
uint64_t oa_emit_wait_begin(struct oa_stream *s, unsigned n, const int32_t *type, const int64_t *value, int pause);

uint64_t oa_emit_state(struct oa_stream *s, const char *mcv, int paused);
/* The same at an explicit clock (0: now; raised to the stream's last clock). */
uint64_t oa_emit_state_at(struct oa_stream *s, const char *mcv, int paused, uint64_t clock);

/* A jumbo event: flags 0x13, u32 size, then the data (POc labels). */
uint64_t oa_emit_jumbo(struct oa_stream *s, const char *mcv, const void *data, uint32_t n);
/* The same at an explicit clock (0: now). */
uint64_t oa_emit_jumbo_at(struct oa_stream *s, const char *mcv, uint64_t clock, const void *data, uint32_t n);
/* The same at exactly that clock, as oa_emit_raw_at. */
uint64_t oa_emit_jumbo_raw_at(struct oa_stream *s, const char *mcv, uint64_t clock, const void *data, uint32_t n);

/* Bytes of events written so far (file offset of pos). */
static inline uint64_t oa_stream_size(const struct oa_stream *s)
{
	return s->map_off + (uint64_t)(s->pos - s->map);
}

#endif
