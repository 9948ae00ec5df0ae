/* map.h: small containers of the trace tools: a u64 -> u64 hash map
 * (open addressing) and growable stacks (used by check, stats, export and
 * repair). */
#ifndef OA_TRACE_MAP_H
#define OA_TRACE_MAP_H

#include <stdint.h>

/* A small u64 -> u64 hash map (open addressing; key 0 not allowed). */
struct ck_map {
	uint64_t *keys, *vals;
	size_t cap, n;
};
int ck_map_get(const struct ck_map *m, uint64_t key, uint64_t *val);
void ck_map_put(struct ck_map *m, uint64_t key, uint64_t val);
void ck_map_free(struct ck_map *m);

/* A growable stack of u32 values. */
struct ck_stack {
	uint32_t *v;
	int n, cap;
};
void ck_push(struct ck_stack *s, uint32_t v);
static inline uint32_t ck_top(const struct ck_stack *s)
{
	return s->n ? s->v[s->n - 1] : 0;
}

/* A growable stack of i64 values (mark channels). */
struct ck_stack64 {
	int64_t *v;
	int n, cap;
};
void ck_push64(struct ck_stack64 *s, int64_t v);

#endif
