/* ev_omp.h: typed emitters for the openmp model events ('P', 1.2.1), and the
 * batch that the OMPT tool writes them with (header only).
 *
 * A batch is one emit bracket with one clock: the events of one OMPT
 * callback (closing a task's states, PPe, PPx, reopening the next task's
 * states...) are written back to back at the same timestamp, so the clock is
 * read once per callback.  The caller chooses the clock (the time it read,
 * raised by the causal rules: a PPx strictly after the task's PPc or last
 * PPe, a PPc/PQx strictly after the POc of its type); inside the bracket it
 * is raised to the stream's last clock, so that an event a signal handler
 * wrote in between never makes the stream go backwards.  When the window is
 * full in the middle of a batch, what was written is committed (the flush's
 * OF[ OF] follow it) and the batch goes on at the flush's end clock.  A
 * closed stream makes every put a no-op. */
#ifndef OA_EV_OMP_H
#define OA_EV_OMP_H

#include "stream.h"

/* The largest event a batch puts: header + 12-byte mark payload. */
#define EV_OMP_MAX_EVENT (OVNI_EV_HEADER_SIZE + 12u)

struct ev_batch {
	struct oa_stream *s;
	uint8_t *p; /* NULL: the stream is closed, events are dropped */
	uint64_t clock;
	uint64_t t0, t1; /* flush bracket, when `flushed` */
	unsigned q;
	int flushed;
};

/* Commit what the batch wrote. A flush done while reserving is written after
 * the events (OF[ OF]); its clocks were read by the writer, and the batch
 * clock may be later than that (raised by the causal rules): raise them. */
static inline uint64_t ev_batch_commit(struct ev_batch *b)
{
	if (unlikely(b->flushed)) {
		if (b->t0 < b->clock)
			b->t0 = b->clock;
		if (b->t1 < b->t0)
			b->t1 = b->t0;
	}
	return oa_commit(b->s, b->p, b->clock, b->flushed, b->t0, b->t1);
}

/* The window is full: commit what was written, flush, go on in the next. */
static __attribute__((noinline, unused)) void ev_batch_grow(struct ev_batch *b, size_t n)
{
	uint64_t last = ev_batch_commit(b);
	if (last > b->clock)
		b->clock = last;
	if (oa_reserve(b->s, n, &b->t0, &b->t1, &b->flushed) != 0) {
		b->p = NULL;
		return;
	}
	b->p = b->s->pos;
}

/* Room for `n` more bytes, committing and flushing when needed. */
static inline void ev_batch_room(struct ev_batch *b, size_t n)
{
	if (unlikely(b->p + n > b->s->soft_end))
		ev_batch_grow(b, n);
}

/* Open a batch on stream s at `clock` (0: now). Returns the batch clock, 0
 * if the stream takes no more events (the puts are then no-ops;
 * ev_batch_end must still run). */
static OA_INLINE uint64_t ev_batch_begin(struct ev_batch *b, struct oa_stream *s, uint64_t clock)
{
	b->s = s;
	b->q = oa_emit_enter(s);
	b->flushed = 0;
	b->p = NULL;
	if (!oa_emit_ready(s))
		return 0;
	if (!clock)
		clock = oa_clock_now();
	if (clock < s->last_clock)
		clock = s->last_clock;
	b->clock = clock;
	if (unlikely(oa_reserve(s, 4 * EV_OMP_MAX_EVENT, &b->t0, &b->t1, &b->flushed) != 0))
		return 0;
	b->p = s->pos;
	/* The window's lines are cold: ask for the next ones now. */
	__builtin_prefetch(b->p + 128, 1, 0);
	__builtin_prefetch(b->p + 192, 1, 0);
	return clock;
}

/* Commit and leave the bracket. Returns the clock the events carry. */
static OA_INLINE uint64_t ev_batch_end(struct ev_batch *b)
{
	uint64_t clock = b->clock;
	if (b->p)
		ev_batch_commit(b);
	oa_emit_leave(b->s, b->q);
	return clock;
}

static OA_INLINE void ev_batch_put(struct ev_batch *b, const char *mcv, const void *payload, unsigned n)
{
	if (unlikely(!b->p))
		return;
	ev_batch_room(b, OVNI_EV_HEADER_SIZE + n);
	if (unlikely(!b->p))
		return;
	if (n)
		memcpy(b->p + OVNI_EV_HEADER_SIZE, payload, n);
	oa_put_header(b->p, ovni_flags_for_payload(n), mcv, b->clock);
	b->p += OVNI_EV_HEADER_SIZE + n;
}

/* A paired subsystem event without payload: "PBb", "PBB", "PT[", ...
 * Remembered by the stream, which closes what is open if it is ended. */
static OA_INLINE void ev_omp_state(struct ev_batch *b, const char *mcv)
{
	ev_batch_put(b, mcv, NULL, 0);
	if (unlikely(!b->p))
		return;
	char v = mcv[2];
	if (ovni_pair_enters(v)) {
		char close[3] = { mcv[0], mcv[1], ovni_pair_leave_of(v) };
		oa_stream_opened(b->s, mcv, close, 0, 0);
	} else {
		oa_stream_closed(b->s, mcv);
	}
}

/* PPc: task `id` of type `type` is created (in the process). */
static inline void ev_omp_task_create(struct ev_batch *b, uint32_t id, uint32_t type)
{
	uint32_t p[2] = { id, type };
	ev_batch_put(b, "PPc", p, 8);
}

/* PPx: this thread runs task `id` (one execution segment). */
static inline void ev_omp_task_execute(struct ev_batch *b, uint32_t id)
{
	ev_batch_put(b, "PPx", &id, 4);
	if (likely(b->p))
		oa_stream_opened(b->s, "PPx", "PPe", 1, id);
}

/* PPe: the segment of task `id` ends on this thread. */
static inline void ev_omp_task_end(struct ev_batch *b, uint32_t id)
{
	ev_batch_put(b, "PPe", &id, 4);
	if (likely(b->p))
		oa_stream_closed(b->s, "PPe");
}

/* PQx / PQe (remembered like the states): enter / leave a worksharing of type `type` (label channel). */
static inline void ev_omp_ws_enter(struct ev_batch *b, uint32_t type)
{
	ev_batch_put(b, "PQx", &type, 4);
	if (likely(b->p))
		oa_stream_opened(b->s, "PQx", "PQe", 1, type);
}

static inline void ev_omp_ws_exit(struct ev_batch *b, uint32_t type)
{
	ev_batch_put(b, "PQe", &type, 4);
	if (likely(b->p))
		oa_stream_closed(b->s, "PQe");
}

/* OM[ / OM] / OM= of mark channel `type` inside a batch. */
static inline void ev_omp_mark(struct ev_batch *b, const char *mcv, int32_t type, int64_t value)
{
	uint8_t p[12];
	memcpy(p, &value, 8);
	memcpy(p + 8, &type, 4);
	ev_batch_put(b, mcv, p, 12);
}

/* POc (jumbo): declare task/worksharing type `id` with its label, at a clock
 * no earlier than min_clock. Returns the clock used, 0 if not written. */
static inline uint64_t ev_omp_type_create(struct oa_stream *s, uint32_t id, const char *label, uint64_t min_clock)
{
	uint8_t buf[4 + 512];
	size_t len = strlen(label);
	if (len > 511)
		len = 511;
	memcpy(buf, &id, 4);
	memcpy(buf + 4, label, len);
	buf[4 + len] = '\0';
	uint64_t now = oa_clock_now();
	return oa_emit_jumbo_at(s, "POc", now > min_clock ? now : min_clock, buf, (uint32_t)(4 + len + 1));
}

#endif
