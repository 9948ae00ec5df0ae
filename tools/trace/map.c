/* map.c: small containers of the trace tools (see map.h). */
#include <stdlib.h>
#include <string.h>

#include "../../common/log.h"
#include "map.h"

static void *grow(void *p, size_t n)
{
	void *q = realloc(p, n);
	if (!q)
		die("out of memory");
	return q;
}

static size_t slot(const struct ck_map *m, uint64_t key)
{
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (m->cap - 1);
	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

int ck_map_get(const struct ck_map *m, uint64_t key, uint64_t *val)
{
	if (!m->cap || !key)
		return 0;
	size_t i = slot(m, key);
	if (!m->keys[i])
		return 0;
	*val = m->vals[i];
	return 1;
}

void ck_map_put(struct ck_map *m, uint64_t key, uint64_t val)
{
	if (!key)
		return;
	if ((m->n + 1) * 2 > m->cap) {
		struct ck_map old = *m;
		m->cap = m->cap ? m->cap * 2 : 64;
		m->keys = calloc(m->cap, sizeof(uint64_t));
		m->vals = calloc(m->cap, sizeof(uint64_t));
		if (!m->keys || !m->vals)
			die("out of memory");
		m->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.keys[i])
				ck_map_put(m, old.keys[i], old.vals[i]);
		free(old.keys);
		free(old.vals);
	}
	size_t i = slot(m, key);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
}

void ck_map_free(struct ck_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

void ck_push(struct ck_stack *s, uint32_t v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = grow(s->v, sizeof(*s->v) * (size_t)s->cap);
	}
	s->v[s->n++] = v;
}

void ck_push64(struct ck_stack64 *s, int64_t v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->v = grow(s->v, sizeof(*s->v) * (size_t)s->cap);
	}
	s->v[s->n++] = v;
}
