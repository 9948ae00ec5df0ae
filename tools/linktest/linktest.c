/* linktest.c: LinkTest payload decoder (see linktest.h). */
#include "linktest.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cur {
	const uint8_t *p;
	size_t n, off;
	int bad;
};

static const uint8_t *take(struct cur *c, size_t k)
{
	if (c->bad || k > c->n - c->off) {
		c->bad = 1;
		return NULL;
	}
	const uint8_t *q = c->p + c->off;
	c->off += k;
	return q;
}

static uint32_t u32(struct cur *c)
{
	uint32_t v = 0;
	const uint8_t *q = take(c, 4);
	if (q)
		memcpy(&v, q, 4);
	return v;
}

static uint64_t u64(struct cur *c)
{
	uint64_t v = 0;
	const uint8_t *q = take(c, 8);
	if (q)
		memcpy(&v, q, 8);
	return v;
}

static double f64(struct cur *c)
{
	double v = 0;
	const uint8_t *q = take(c, 8);
	if (q)
		memcpy(&v, q, 8);
	return v;
}

static void str(struct cur *c, char *out, size_t outlen, size_t k)
{
	const uint8_t *q = take(c, k);
	size_t n = 0;
	if (q)
		while (n < k && n + 1 < outlen && q[n])
			out[n] = (char)q[n], n++;
	out[n] = '\0';
}

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static uint8_t *stream(struct sion_file *s, int t, size_t *len)
{
	uint64_t n = sion_task_size(s, t);
	if (n > (64u << 20))
		return NULL;
	uint8_t *b = malloc(n + 1);
	if (b && sion_task_read(s, t, 0, b, n) != (long)n) {
		free(b);
		return NULL;
	}
	*len = n;
	return b;
}

static size_t tag(struct cur *c, int *newtag)
{
	if (c->n >= 8 && !memcmp(c->p, "LinkTest", 8)) {
		*newtag = 1;
		return 8;
	}
	if (c->n >= 5 && !memcmp(c->p, "LKTST", 5)) {
		*newtag = 0;
		return 5;
	}
	return 0;
}

int lt_decode(struct sion_file *s, struct lt_run *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	int n = r->n = s->nfiles == 1 ? s->ntasks : (s->mapping_size ? s->mapping_size : s->ntasks);
	if (s->nfiles != 1)
		return fail(err, errlen, "multi-file LinkTest sets are not supported yet");
	if (n < 2)
		return fail(err, errlen, "%d rank: LinkTest needs at least 2", n);
	size_t len;
	uint8_t *b0 = stream(s, 0, &len);
	if (!b0)
		return fail(err, errlen, "rank 0: cannot read its stream");
	struct cur c = { b0, len, 0, 0 };
	size_t tl = tag(&c, &r->newtag);
	if (!tl) {
		free(b0);
		return fail(err, errlen, "rank 0, offset 0: no \"LKTST\" or \"LinkTest\" tag: not a LinkTest file");
	}
	take(&c, tl);
	r->major = u32(&c), r->minor = u32(&c), r->patch = u32(&c);
	if (r->major != 2 || r->minor != 1 || (r->patch != 16 && r->patch != 17)) {
		free(b0);
		return fail(err, errlen,
			    "rank 0, offset %zu: LinkTest version %u.%u.%u: only 2.1.16 and 2.1.17 are known", tl,
			    r->major, r->minor, r->patch);
	}
	str(&c, r->hash, sizeof(r->hash), 41);
	uint32_t mlen = u32(&c);
	if (mlen > 64) {
		free(b0);
		return fail(err, errlen, "rank 0, offset %zu: mode length %u", c.off - 4, mlen);
	}
	r->mode_len = mlen;
	str(&c, r->mode, sizeof(r->mode), mlen);
	const uint8_t *fl = take(&c, 13);
	if (fl)
		memcpy(r->flags, fl, 13);
	for (int i = 0; i < 9; i++)
		r->u64[i] = u64(&c);
	r->d = r->u64[4];
	uint32_t h = u32(&c);
	if (h > 255 || r->d > 1000000) {
		free(b0);
		return fail(err, errlen, "rank 0: unknown layout (hostname length %u, %llu retests)", h,
			    (unsigned long long)r->d);
	}
	r->rank = calloc((size_t)n, sizeof(*r->rank));
	str(&c, r->rank[0].host, sizeof(r->rank[0].host), h);
	r->rank[0].core = (int32_t)u32(&c);
	size_t head = c.off;
	int a2a = r->flags[0] != 0;
	size_t f = a2a ? 8 : 0;
	size_t block = 88 + 4 * f + 16 * (size_t)(n - 1) + 32 * r->d;
	if (c.bad || len < head + 9 || (len - head - 9) % block || (len - head - 9) / block < 1 ||
	    memcmp(b0 + len - 9, "END_BLOCK", 9)) {
		free(b0);
		return fail(err, errlen,
			    "rank 0: unknown layout: %zu bytes do not hold %zu-byte permutation blocks "
			    "between offset %zu and an END_BLOCK marker",
			    len, block, head);
	}
	r->m = (int)((len - head - 9) / block);
	size_t per = (size_t)r->m * (size_t)(n - 1);
	r->retested = calloc(r->d + 1, 8), r->slowest = calloc(r->d + 1, 8);
	r->slow_sender = calloc(r->d + 1, 8), r->slow_receiver = calloc(r->d + 1, 8);
	for (int k = 0; k < n; k++) {
		r->rank[k].timing = calloc(per, sizeof(double));
		r->rank[k].access = calloc(per, sizeof(uint64_t));
		r->rank[k].a2a = calloc((size_t)r->m, sizeof(double));
	}
	for (int m = 0; m < r->m; m++) {
		/* Only the last permutation's run-wide values are kept. */
		str(&c, r->start, sizeof(r->start), 32);
		r->min = f64(&c), r->avg = f64(&c), r->max = f64(&c);
		if (a2a)
			r->a2a_min = f64(&c), r->a2a_avg = f64(&c), r->a2a_max = f64(&c);
		for (int i = 0; i < n - 1; i++)
			r->rank[0].timing[m * (n - 1) + i] = f64(&c);
		for (int i = 0; i < n - 1; i++)
			r->rank[0].access[m * (n - 1) + i] = u64(&c);
		if (a2a)
			r->rank[0].a2a[m] = f64(&c);
		for (uint64_t i = 0; i < r->d; i++)
			r->retested[i] = f64(&c);
		for (uint64_t i = 0; i < r->d; i++)
			r->slowest[i] = f64(&c);
		for (uint64_t i = 0; i < r->d; i++)
			r->slow_sender[i] = u64(&c);
		for (uint64_t i = 0; i < r->d; i++)
			r->slow_receiver[i] = u64(&c);
		str(&c, r->end, sizeof(r->end), 32);
	}
	free(b0);
	for (int k = 1; k < n; k++) {
		uint8_t *bk = stream(s, k, &len);
		if (!bk)
			return fail(err, errlen, "rank %d: cannot read its stream", k);
		struct cur ck = { bk, len, 0, 0 };
		int nt;
		size_t t2 = tag(&ck, &nt);
		take(&ck, t2);
		uint32_t hk = u32(&ck);
		size_t expect = t2 + 4 + hk + 4 + (size_t)r->m * (16 * (size_t)(n - 1) + f) + 9;
		if (!t2 || hk > 255 || len != expect || memcmp(bk + len - 9, "END_BLOCK", 9)) {
			free(bk);
			return fail(err, errlen, "rank %d: unknown layout (%zu bytes, the layout of rank 0 gives %zu)",
				    k, len, expect);
		}
		str(&ck, r->rank[k].host, sizeof(r->rank[k].host), hk);
		r->rank[k].core = (int32_t)u32(&ck);
		for (int m = 0; m < r->m; m++) {
			for (int i = 0; i < n - 1; i++)
				r->rank[k].timing[m * (n - 1) + i] = f64(&ck);
			for (int i = 0; i < n - 1; i++)
				r->rank[k].access[m * (n - 1) + i] = u64(&ck);
			if (a2a)
				r->rank[k].a2a[m] = f64(&ck);
		}
		free(bk);
	}
	return 0;
}

void lt_free(struct lt_run *r)
{
	for (int k = 0; r->rank && k < r->n; k++) {
		free(r->rank[k].timing);
		free(r->rank[k].access);
		free(r->rank[k].a2a);
	}
	free(r->rank);
	free(r->retested);
	free(r->slowest);
	free(r->slow_sender);
	free(r->slow_receiver);
	memset(r, 0, sizeof(*r));
}
