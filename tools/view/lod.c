/* lod.c: levels of detail of a row of intervals (see view.h). */
#include <stdlib.h>
#include <string.h>

#include "../../common/log.h"
#include "view.h"

static void put(struct vw_ivs *o, int64_t start, int64_t end, uint32_t state, uint32_t detail)
{
	if (end <= start)
		return;
	if (o->n && o->v[o->n - 1].end == start && o->v[o->n - 1].state == state && o->v[o->n - 1].detail == detail) {
		o->v[o->n - 1].end = end;
		return;
	}
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 64;
		o->v = realloc(o->v, o->cap * sizeof(*o->v));
		if (!o->v)
			die("out of memory");
	}
	o->v[o->n++] = (struct vw_iv){ start, end, state, detail };
}

/* The states seen in one bucket and their time (a bucket holds a few). */
#define BUCKET_STATES 16
struct bucket {
	int64_t b; /* bucket number, -1 none */
	int64_t lo, hi;
	uint32_t state[BUCKET_STATES];
	int64_t ns[BUCKET_STATES];
	int n;
};

static void bucket_flush(struct bucket *k, struct vw_ivs *o)
{
	if (k->b < 0 || !k->n)
		return;
	int best = 0;
	for (int i = 1; i < k->n; i++)
		if (k->ns[i] > k->ns[best])
			best = i;
	put(o, k->lo, k->hi, k->state[best], 0);
	k->b = -1;
	k->n = 0;
}

static void bucket_add(struct bucket *k, int64_t b, int64_t s, int64_t e, uint32_t state, struct vw_ivs *o)
{
	if (k->b != b) {
		bucket_flush(k, o);
		k->b = b;
		k->lo = s;
		k->n = 0;
	}
	k->hi = e;
	for (int i = 0; i < k->n; i++)
		if (k->state[i] == state) {
			k->ns[i] += e - s;
			return;
		}
	if (k->n < BUCKET_STATES) {
		k->state[k->n] = state;
		k->ns[k->n++] = e - s;
	}
}

void vw_resample(const struct vw_ivs *in, int64_t q, struct vw_ivs *out)
{
	out->n = 0;
	if (q <= 1) {
		for (size_t i = 0; i < in->n; i++)
			put(out, in->v[i].start, in->v[i].end, in->v[i].state, in->v[i].detail);
		return;
	}
	struct bucket k = { .b = -1 };
	for (size_t i = 0; i < in->n; i++) {
		int64_t s = in->v[i].start, e = in->v[i].end;
		while (s < e) {
			int64_t b = s / q, bend = (b + 1) * q;
			if (s == b * q && e >= bend) {
				/* Whole buckets: the interval itself. */
				bucket_flush(&k, out);
				int64_t full = e / q * q;
				put(out, s, full, in->v[i].state, in->v[i].detail);
				s = full;
				continue;
			}
			int64_t seg = e < bend ? e : bend;
			bucket_add(&k, b, s, seg, in->v[i].state, out);
			s = seg;
		}
	}
	bucket_flush(&k, out);
}
