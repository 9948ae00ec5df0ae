/* test_arena.c: common/arena.h: allocations come from the buffer handed
 * over, zeroed, 16-byte aligned and apart, until it is full, then from
 * malloc (oa_arena_take then says NULL); oa_arena_free frees only malloc's;
 * threads allocating at once get disjoint pieces; a closed arena gives
 * nothing more; labels of writer/meta.c
 * come from the arena and survive oa_meta_fini. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "../../common/arena.h"
#include "../../writer/meta.h"
#include "test.h"

static char buf[4096] __attribute__((aligned(64)));
static char *got[4][64];

static void *grab(void *arg)
{
	char **out = arg;
	for (int i = 0; i < 64; i++)
		out[i] = oa_arena_take(16);
	return NULL;
}

int main(void)
{
	/* None handed over: malloc's. */
	void *m = oa_arena_alloc(10);
	CHECK(m && !oa_arena_owns(m), "no arena: malloc");
	CHECK(!oa_arena_take(10), "no arena: take gives nothing");
	oa_arena_free(m);

	oa_arena_set(buf, 1024);
	char *a = oa_arena_alloc(5), *b = oa_arena_alloc(17), *c = oa_arena_strdup("hello");
	CHECK(a == buf, "first piece at the start: %p %p", (void *)a, (void *)buf);
	CHECK(b == buf + 16, "aligned to 16: %td", b - buf);
	CHECK(c == buf + 48 && !strcmp(c, "hello"), "strdup: %td", c - buf);
	CHECK(oa_arena_owns(a) && oa_arena_owns(c) && !oa_arena_owns(buf + 1024) && !oa_arena_owns(got),
	      "owns its bytes only");
	int zero = 1;
	for (int i = 0; i < 17; i++)
		zero &= b[i] == 0;
	CHECK(zero, "pieces are zeroed");
	oa_arena_free(a); /* nothing happens */
	CHECK(!strcmp(c, "hello"), "freeing an arena piece leaves the arena alone");

	/* Full: take says NULL, alloc falls back to malloc. */
	char *big = oa_arena_take(2000);
	CHECK(!big, "too big for what is left");
	char *rest = oa_arena_take(1024 - 64);
	CHECK(rest == buf + 64, "the rest: %td", rest ? rest - buf : -1);
	CHECK(!oa_arena_take(1), "full");
	char *h = oa_arena_alloc(100);
	CHECK(h && !oa_arena_owns(h), "full: malloc's");
	oa_arena_free(h);
	CHECK(!oa_arena_take((size_t)-8), "a size that overflows the rounding");

	/* Threads at once: 4 x 64 pieces of 16 bytes fill 4096 bytes exactly. */
	oa_arena_set(buf, sizeof(buf));
	pthread_t th[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, grab, got[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	static unsigned char seen[4096 / 16];
	int dup = 0, none = 0;
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 64; j++) {
			if (!got[i][j]) {
				none++;
				continue;
			}
			size_t k = (size_t)(got[i][j] - buf) / 16;
			dup += seen[k]++ != 0;
		}
	CHECK(!dup && !none, "disjoint pieces for every thread: %d shared, %d missing", dup, none);
	CHECK(!oa_arena_take(1), "and the arena is full");

	/* Closed: nothing more from it, what it gave stays its own. */
	oa_arena_set(buf, sizeof(buf));
	char *before = oa_arena_alloc(8);
	oa_arena_close();
	char *after = oa_arena_alloc(8);
	CHECK(oa_arena_owns(before) && after && !oa_arena_owns(after), "closed: malloc's");
	CHECK(!oa_arena_take(8), "closed: take gives nothing");
	oa_arena_free(after);

	/* Labels: from the arena while it has room; oa_meta_fini frees only
	 * the others. */
	static char lbuf[2048];
	oa_arena_set(lbuf, sizeof(lbuf));
	static struct oa_meta meta;
	CHECK(oa_meta_init(&meta) == 0, "meta init");
	CHECK(oa_meta_mark_type(&meta, 90, 1, "test") == 0, "type");
	int in = 0, out = 0;
	for (int v = 1; v <= 8; v++) {
		char text[64];
		snprintf(text, sizeof(text), "label %d", v);
		CHECK(oa_meta_mark_label(&meta, NULL, 90, v, text) == 0, "label %d", v);
		CHECK(oa_meta_mark_label(&meta, NULL, 90, v, "again") == 1, "label %d again", v);
	}
	struct oa_label *l = oa_meta_label_alloc();
	CHECK(l != NULL, "a prepared label");
	for (struct oa_label *x = atomic_load(&meta.global.head); x; x = x->onext)
		oa_arena_owns(x) ? in++ : out++;
	CHECK(in + out == 8 && in > 0, "labels from the arena: %d, from malloc: %d", in, out);
	oa_arena_free(l);
	oa_meta_fini(&meta);
	oa_arena_set(NULL, 0);
	TEST_DONE();
}
