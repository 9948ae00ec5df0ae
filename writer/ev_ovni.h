/* ev_ovni.h: typed emitters for the ovni model events (one per MCV). */
#ifndef OA_EV_OVNI_H
#define OA_EV_OVNI_H

#include "stream.h"

/* OHC: this thread creates another one that will start with the same tag. */
static inline uint64_t ev_ovni_thread_create(struct oa_stream *s, int32_t cpu, uint64_t tag)
{
	uint8_t p[12];
	memcpy(p, &cpu, 4);
	memcpy(p + 4, &tag, 8);
	return oa_emit(s, "OHC", p, sizeof(p));
}

/* OHx: the thread begins running on loom CPU index cpu (-1: virtual CPU),
 * created by creator_tid (-1: none), no earlier than `clock`. */
static inline uint64_t ev_ovni_thread_execute(struct oa_stream *s, int32_t cpu, int32_t creator_tid, uint64_t tag,
					      uint64_t clock)
{
	uint8_t p[16];
	memcpy(p, &cpu, 4);
	memcpy(p + 4, &creator_tid, 4);
	memcpy(p + 8, &tag, 8);
	uint64_t now = oa_clock_now();
	return oa_emit_at(s, "OHx", now > clock ? now : clock, p, sizeof(p));
}

/* OHx at `clock` for a thread's start: creator_tid (-1: none), tag. */
static inline void ev_ovni_thread_execute_only(struct oa_stream *s, int32_t cpu, int32_t creator_tid, uint64_t tag,
					       uint64_t clock)
{
	uint8_t p[16];
	memcpy(p, &cpu, 4);
	memcpy(p + 4, &creator_tid, 4);
	memcpy(p + 8, &tag, 8);
	oa_emit_at(s, "OHx", clock, p, sizeof(p));
}

/* The agent's setup as a flush: OF[ at `setup` (clamped to the stream's
 * last clock), OF] now. */
static inline void ev_ovni_setup_flush(struct oa_stream *s, uint64_t setup)
{
	oa_emit_bracket(s, setup, oa_clock_now());
}

/* OHx at `clock` (read before the agent set the thread up, and later than
 * the creator's OHC), then the setup itself as a flush at the same clock.
 * The agent's work at a thread's start (directories, files, metadata)
 * shows as its own state, not as the thread's time.  (A start with events
 * of its own in between, a process whose start was late, calls the two
 * halves.) */
static inline void ev_ovni_thread_execute_setup(struct oa_stream *s, int32_t cpu, int32_t creator_tid, uint64_t tag,
						uint64_t clock)
{
	ev_ovni_thread_execute_only(s, cpu, creator_tid, tag, clock);
	ev_ovni_setup_flush(s, clock);
}

static inline uint64_t ev_ovni_thread_end(struct oa_stream *s)
{
	return oa_emit(s, "OHe", NULL, 0);
}

/* The agent's own pause and resume (blocking calls): none while the
 * program holds the thread in a state of its own (s->held). */
static inline uint64_t ev_ovni_thread_pause(struct oa_stream *s)
{
	return s->held ? 0 : oa_emit_state(s, "OHp", 1);
}

static inline uint64_t ev_ovni_thread_resume(struct oa_stream *s)
{
	return s->held ? 0 : oa_emit_state(s, "OHr", 0);
}

/* OAs: this thread now runs on loom CPU index cpu. */
static inline uint64_t ev_ovni_affinity_set(struct oa_stream *s, int32_t cpu)
{
	return oa_emit(s, "OAs", &cpu, 4);
}

/* OAr: thread tid (of this process) now runs on loom CPU index cpu. */
static inline uint64_t ev_ovni_affinity_remote(struct oa_stream *s, int32_t cpu, int32_t tid)
{
	uint8_t p[8];
	memcpy(p, &cpu, 4);
	memcpy(p + 4, &tid, 4);
	return oa_emit(s, "OAr", p, sizeof(p));
}

static inline void ev_mark_payload(uint8_t p[12], int64_t value, int32_t type)
{
	memcpy(p, &value, 8);
	memcpy(p + 8, &type, 4);
}

static inline uint64_t ev_ovni_mark_push(struct oa_stream *s, int32_t type, int64_t value)
{
	uint8_t p[12];
	ev_mark_payload(p, value, type);
	return oa_emit(s, "OM[", p, sizeof(p));
}

static inline uint64_t ev_ovni_mark_pop(struct oa_stream *s, int32_t type, int64_t value)
{
	uint8_t p[12];
	ev_mark_payload(p, value, type);
	return oa_emit(s, "OM]", p, sizeof(p));
}

static inline uint64_t ev_ovni_mark_set(struct oa_stream *s, int32_t type, int64_t value)
{
	uint8_t p[12];
	ev_mark_payload(p, value, type);
	return oa_emit(s, "OM=", p, sizeof(p));
}

#endif
