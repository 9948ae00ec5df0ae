/* export_perfetto.c: the Perfetto trace format (protobuf), for traces too
 * large for JSON. A stream of TracePacket messages, each written as field 1
 * of the Trace message: TrackDescriptor packets for processes, thread tracks
 * and counters, then TrackEvent packets (slice begin/end, counter values,
 * flows). Encoded by hand: varints and length-delimited fields only. */
#include <string.h>

#include "export.h"

#define SEQ_ID 1u

struct buf {
	uint8_t b[4096];
	size_t n;
};

static void varint(struct buf *o, uint64_t v)
{
	while (v >= 0x80) {
		o->b[o->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	o->b[o->n++] = (uint8_t)v;
}

static void key(struct buf *o, unsigned field, unsigned wire)
{
	varint(o, (uint64_t)field << 3 | wire);
}

static void u64f(struct buf *o, unsigned field, uint64_t v)
{
	key(o, field, 0);
	varint(o, v);
}

static void bytes(struct buf *o, unsigned field, const void *p, size_t n)
{
	if (o->n + n + 16 > sizeof(o->b))
		n = sizeof(o->b) - o->n - 16;
	key(o, field, 2);
	varint(o, n);
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void strf(struct buf *o, unsigned field, const char *s)
{
	bytes(o, field, s, strlen(s));
}

static void sub(struct buf *o, unsigned field, const struct buf *m)
{
	bytes(o, field, m->b, m->n);
}

static int first_packet;

/* Trace.packet (field 1) with the common fields of a TracePacket. */
static void packet(FILE *f, struct buf *p, int64_t ts, int has_ts)
{
	struct buf out = { .n = 0 };
	struct buf pk = { .n = 0 };
	if (has_ts)
		u64f(&pk, 8, (uint64_t)ts); /* timestamp */
	u64f(&pk, 10, SEQ_ID);              /* trusted_packet_sequence_id */
	if (first_packet) {
		u64f(&pk, 13, 1); /* sequence_flags: incremental state cleared */
		first_packet = 0;
	}
	memcpy(pk.b + pk.n, p->b, p->n);
	pk.n += p->n;
	sub(&out, 1, &pk);
	fwrite(out.b, 1, out.n, f);
}

static void begin(FILE *f)
{
	(void)f;
	first_packet = 1;
}

static void track(FILE *f, const struct ex_track *t)
{
	/* The process track (uuid: pid << 40), then the thread track under it. */
	struct buf proc = { .n = 0 }, desc = { .n = 0 }, p = { .n = 0 };
	u64f(&proc, 1, (uint64_t)t->real_pid);
	strf(&proc, 6, t->process_name);
	u64f(&desc, 1, (uint64_t)t->pid << 40);
	sub(&desc, 3, &proc);
	sub(&p, 60, &desc);
	packet(f, &p, 0, 0);

	struct buf th = { .n = 0 }, d2 = { .n = 0 }, p2 = { .n = 0 };
	u64f(&th, 1, (uint64_t)t->real_pid);
	u64f(&th, 2, (uint64_t)t->tid);
	strf(&th, 5, t->name);
	u64f(&d2, 1, t->uuid);
	u64f(&d2, 5, (uint64_t)t->pid << 40); /* parent_uuid */
	strf(&d2, 2, t->name);
	sub(&d2, 4, &th);
	sub(&p2, 60, &d2);
	packet(f, &p2, 0, 0);
}

static void counter_track(FILE *f, uint64_t uuid, int pid, const char *process_name, const char *name)
{
	(void)process_name;
	struct buf desc = { .n = 0 }, ctr = { .n = 0 }, p = { .n = 0 };
	u64f(&desc, 1, uuid);
	u64f(&desc, 5, (uint64_t)pid << 40);
	strf(&desc, 2, name);
	sub(&desc, 8, &ctr); /* counter: CounterDescriptor {} */
	sub(&p, 60, &desc);
	packet(f, &p, 0, 0);
}

static void event(FILE *f, int64_t ts, unsigned type, uint64_t track_uuid, const char *name, uint64_t flow,
		  int terminating, int64_t counter_value, int has_counter)
{
	struct buf ev = { .n = 0 }, p = { .n = 0 };
	u64f(&ev, 9, type);        /* type */
	u64f(&ev, 11, track_uuid); /* track_uuid */
	if (name)
		strf(&ev, 23, name); /* name */
	if (has_counter)
		u64f(&ev, 30, (uint64_t)counter_value);
	if (flow) {
		key(&ev, terminating ? 48 : 47, 1); /* (terminating_)flow_ids, fixed64 */
		memcpy(ev.b + ev.n, &flow, 8);
		ev.n += 8;
	}
	sub(&p, 11, &ev);
	packet(f, &p, ts, 1);
}

static void slice_begin(FILE *f, const struct ex_track *t, int64_t ts, const char *name, const char *args)
{
	(void)args;
	event(f, ts, 1, t->uuid, name, 0, 0, 0, 0);
}

static void slice_end(FILE *f, const struct ex_track *t, int64_t ts)
{
	event(f, ts, 2, t->uuid, NULL, 0, 0, 0, 0);
}

static void flow(FILE *f, const struct ex_track *t, int64_t ts, uint64_t id, int start, const char *cat)
{
	/* A flow rides on an instant event of the track. */
	event(f, ts, 3, t->uuid, cat, id, !start, 0, 0);
}

static void instant(FILE *f, const struct ex_track *t, int64_t ts, const char *name)
{
	event(f, ts, 3, t->uuid, name, 0, 0, 0, 0);
}

static void counter(FILE *f, uint64_t uuid, int pid, int64_t ts, const char *name, int64_t value)
{
	(void)pid, (void)name;
	event(f, ts, 4, uuid, NULL, 0, 0, value, 1);
}

static void end(FILE *f)
{
	(void)f;
}

const struct ex_ops ex_perfetto_ops = {
	begin, track, counter_track, slice_begin, slice_end, flow, instant, counter, end
};
