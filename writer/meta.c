/* meta.c: stream.json metadata (see meta.h): the type table, the lock-free
 * label table, the async-signal-safe JSON writer, and the import of an
 * earlier image's labels (with a JSON reader of its own, at stream open). */
#include "meta.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/arena.h"
#include "../common/fdroom.h"
#include "../common/sys.h"
#include "ovni_fmt.h"

#define type_at oa_meta_type_at

OA_START_TEXT int oa_meta_init(struct oa_meta *m)
{
	/* m is zeroed (static storage or an initializer): its types and
	 * buckets are empty already.  Clearing them was 4096 locked stores
	 * and its pages made private in every process (~3% of a loop of
	 * short processes); reading them still faulted in 8 pages.  Labels
	 * made before (a constructor calling the libovni API first) stay, on
	 * their lists as in their buckets.  The header's page, where a short
	 * process's labels go (m->small), is written first (an OR of
	 * nothing): looked up first, it was a read fault, then a write
	 * fault. */
	__atomic_fetch_or((uintptr_t *)&m->small[0], (uintptr_t)0, __ATOMIC_RELAXED);
	return 0;
}

void oa_meta_fini(struct oa_meta *m)
{
	/* Labels are shared by every list: free each once, through the buckets. */
	for (unsigned i = 0; i < OA_META_SMALL_BUCKETS + OA_META_BUCKETS; i++) {
		struct oa_label *_Atomic *b =
			i < OA_META_SMALL_BUCKETS ? &m->small[i] : &m->buckets[i - OA_META_SMALL_BUCKETS];
		struct oa_label *l = atomic_exchange(b, NULL);
		while (l) {
			struct oa_label *n = l->hnext;
			oa_arena_free(l);
			l = n;
		}
	}
	for (int i = 0; i < OA_META_NTYPES; i++)
		atomic_store(&type_at(m, i)->declared, 0);
	for (size_t i = 0; i < ARRAY_LEN(m->declared_mask); i++)
		atomic_store(&m->declared_mask[i], 0);
	for (int i = 0; i < OA_META_NTYPES; i++)
		atomic_store(&type_at(m, i)->nfixed, 0);
	atomic_store(&m->global.head, NULL);
}

OA_START_TEXT size_t oa_meta_sanitize(char *dst, size_t size, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t n = 0;
	if (!size)
		return 0;
	while (*s && n + 1 < size) {
		unsigned c = *s;
		size_t len = c < 0x80             ? 1
			     : (c & 0xe0) == 0xc0 ? 2
			     : (c & 0xf0) == 0xe0 ? 3
			     : (c & 0xf8) == 0xf0 ? 4
						  : 0;
		int ok = len > 0 && !(len == 2 && c < 0xc2) && !(len == 4 && c > 0xf4);
		for (size_t i = 1; ok && i < len; i++)
			ok = (s[i] & 0xc0) == 0x80;
		if (ok && len == 3) /* no overlong forms, no surrogates */
			ok = !(c == 0xe0 && s[1] < 0xa0) && !(c == 0xed && s[1] >= 0xa0);
		if (ok && len == 4)
			ok = !(c == 0xf0 && s[1] < 0x90) && !(c == 0xf4 && s[1] >= 0x90);
		if (!ok || n + len >= size) {
			if (ok) /* a whole character that does not fit: stop */
				break;
			dst[n++] = '?';
			s++;
			continue;
		}
		memcpy(dst + n, s, len);
		n += len;
		s += len;
	}
	dst[n] = '\0';
	return n;
}

OA_START_TEXT int oa_meta_mark_type(struct oa_meta *m, int type, int stack, const char *title)
{
	if (type < 0 || type >= OA_META_NTYPES)
		return -1;
	struct oa_meta_type *t = type_at(m, type);
	int expect = 0;
	/* 0 -> 2 (being filled) -> 1 (readable): readers look for 1 only. */
	if (!atomic_compare_exchange_strong(&t->declared, &expect, 2))
		return 0;
	t->stack = stack;
	oa_meta_sanitize(t->title, sizeof(t->title), title);
	atomic_store_explicit(&t->declared, 1, memory_order_release);
	atomic_fetch_or_explicit(&m->declared_mask[type / 64], (uint64_t)1 << (type % 64), memory_order_release);
	return 0;
}

OA_START_TEXT int oa_meta_fixed_labels(struct oa_meta *m, int type, int64_t first, const char *const *texts, int n)
{
	if (type < 0 || type >= OA_META_NTYPES || n <= 0 ||
	    atomic_load_explicit(&type_at(m, type)->declared, memory_order_acquire) != 1)
		return -1;
	struct oa_meta_type *t = type_at(m, type);
	if (atomic_load(&t->nfixed))
		return 0;
	t->fixed_first = first;
	t->fixed = texts;
	atomic_store_explicit(&t->nfixed, n, memory_order_release);
	return 0;
}

OA_START_TEXT static const char *fixed_label(const struct oa_meta *m, int type, int64_t value)
{
	const struct oa_meta_type *t = type_at(m, type);
	int n = atomic_load_explicit(&t->nfixed, memory_order_acquire);
	if (!n || value < t->fixed_first || value >= t->fixed_first + n)
		return NULL;
	return t->fixed[value - t->fixed_first];
}

/* Each label inserted reads, then writes, its bucket's page: two faults
 * on a fresh page of a new process.  The labels every short process makes
 * (its fork, exec and exit marks, its name) go to the small table on the
 * header's page (those channels get one label per event of a whole
 * process, never per call), and so do small values of any type: the
 * kinds of a channel, such as the "Blocked in" labels an image exec'd in
 * place reads back from its predecessor's stream.json before it declares
 * them fixed (spread over the table, they were six pages more in every
 * `env CMD` or `bash -c CMD`).  The rest spread over the whole table. */
static struct oa_label *_Atomic *bucket_of(struct oa_meta *m, int type, int64_t value)
{
	uint64_t h = (uint64_t)value * 0x9e3779b97f4a7c15ull ^ (uint64_t)type * 0xc2b2ae3d27d4eb4full;
	if (type == OA_MARK_PROC || type == OA_MARK_THREAD_NAME || (uint64_t)value < 4096)
		return &m->small[(h >> 40) & (OA_META_SMALL_BUCKETS - 1)];
	return &m->buckets[(h >> 40) & (OA_META_BUCKETS - 1)];
}

static struct oa_label *find_from(struct oa_label *l, struct oa_label *stop, int type, int64_t value)
{
	for (; l && l != stop; l = l->hnext)
		if (l->value == value && l->type == type)
			return l;
	return NULL;
}

/* Is a chain as long as a lookup may walk?  Past that a value gets no
 * label (its mark is written all the same, shown by its number): no
 * lookup walks more than OA_META_CHAIN_MAX, whatever the program does (a
 * process that gave its threads 300 000 names took 100 us a name, the
 * small table's chains 2 300 long). */
static int chain_full(struct oa_label *l)
{
	int n = 0;
	for (; l; l = l->hnext)
		if (++n >= OA_META_CHAIN_MAX)
			return 1;
	return 0;
}

static void push_owner(struct oa_label_list *list, struct oa_label *l)
{
	l->owner = list;
	struct oa_label *old = atomic_load_explicit(&list->head, memory_order_relaxed);
	do {
		l->onext = old;
	} while (!atomic_compare_exchange_weak_explicit(&list->head, &old, l, memory_order_release,
							memory_order_relaxed));
}

/* Insert l (type, value and text set) unless the value has a label: 0 when
 * inserted, 1 when it had one. Lock-free: a chain only grows at its head. */
OA_START_TEXT static int insert(struct oa_meta *m, struct oa_label_list *owner, struct oa_label *l)
{
	if (fixed_label(m, l->type, l->value))
		return 1;
	struct oa_label *_Atomic *b = bucket_of(m, l->type, l->value);
	struct oa_label *head = atomic_load_explicit(b, memory_order_acquire), *seen = NULL;
	for (;;) {
		if (find_from(head, seen, l->type, l->value))
			return 1;
		if (chain_full(head))
			return -1;
		seen = head; /* only what is pushed in front of it needs a look next time */
		l->hnext = head;
		if (atomic_compare_exchange_weak_explicit(b, &head, l, memory_order_release, memory_order_acquire))
			break;
		/* head now holds the new chain head; the part from `seen` on was checked. */
		if (find_from(head, seen, l->type, l->value))
			return 1;
		seen = l->hnext;
	}
	push_owner(owner ? owner : &m->global, l);
	return 0;
}

/* A label of `type` (declared) for value, its text copied: NULL when the
 * arguments are not one, or no memory. */
OA_START_TEXT static struct oa_label *label_new(struct oa_meta *m, int type, int64_t value, const char *label)
{
	if (type < 0 || type >= OA_META_NTYPES || value == 0 ||
	    atomic_load_explicit(&type_at(m, type)->declared, memory_order_acquire) != 1 || !label)
		return NULL;
	size_t len = strlen(label);
	if (len > OA_META_LABEL_MAX)
		len = OA_META_LABEL_MAX;
	struct oa_label *l = oa_arena_alloc(sizeof(*l) + len + 1);
	if (!l)
		return NULL;
	l->type = type;
	l->value = value;
	l->hnext = NULL;
	oa_meta_sanitize(l->text, len + 1, label);
	return l;
}

OA_START_TEXT int oa_meta_mark_label(struct oa_meta *m, struct oa_label_list *owner, int type, int64_t value,
				     const char *label)
{
	/* Cheap check first: most calls label a value that already has one. */
	if (type >= 0 && type < OA_META_NTYPES && value != 0) {
		if (fixed_label(m, type, value))
			return 1;
		struct oa_label *_Atomic *b = bucket_of(m, type, value);
		struct oa_label *head = atomic_load_explicit(b, memory_order_acquire);
		if (find_from(head, NULL, type, value))
			return 1;
		if (chain_full(head))
			return -1; /* nothing allocated: the pieces are never freed */
	}
	struct oa_label *l = label_new(m, type, value, label);
	if (!l)
		return -1;
	int r = insert(m, owner, l);
	if (r)
		oa_arena_free(l);
	return r;
}

OA_START_TEXT int oa_meta_mark_label_new(struct oa_meta *m, struct oa_label_list *owner, int type, int64_t value,
					 const char *label)
{
	struct oa_label *l = label_new(m, type, value, label);
	if (!l)
		return -1;
	push_owner(owner ? owner : &m->global, l);
	return 0;
}

OA_START_TEXT struct oa_label *oa_meta_label_alloc(void)
{
	return oa_arena_alloc(sizeof(struct oa_label) + OA_META_LABEL_MAX + 1);
}

OA_START_TEXT int oa_meta_label_publish(struct oa_meta *m, struct oa_label_list *owner, struct oa_label *l, int type,
					int64_t value, const char *text)
{
	if (!l || type < 0 || type >= OA_META_NTYPES || value == 0 ||
	    atomic_load_explicit(&type_at(m, type)->declared, memory_order_acquire) != 1)
		return -1;
	l->type = type;
	l->value = value;
	oa_meta_sanitize(l->text, OA_META_LABEL_MAX + 1, text);
	return insert(m, owner, l);
}

OA_START_TEXT int oa_meta_label_publish_new(struct oa_meta *m, struct oa_label_list *owner, struct oa_label *l,
					    int type, int64_t value, const char *text)
{
	if (!l || !owner || type < 0 || type >= OA_META_NTYPES || value == 0 ||
	    atomic_load_explicit(&type_at(m, type)->declared, memory_order_acquire) != 1)
		return -1;
	if (fixed_label(m, type, value))
		return 1;
	l->type = type;
	l->value = value;
	l->hnext = NULL;
	oa_meta_sanitize(l->text, OA_META_LABEL_MAX + 1, text);
	push_owner(owner, l);
	return 0;
}

/* ---- the async-signal-safe JSON writer ---- */

/* The JSON writer: buffered writes to fd, or, with fd < 0, the whole text
 * into a caller's buffer (err = EOVERFLOW when it does not fit). */
struct jw {
	int fd;
	int err;
	size_t n, cap;
	char *buf;
	size_t cpus_at; /* where the loom's CPUs were left out (OA_META_NO_CPUS) */
};

OA_START_TEXT static void jw_flush(struct jw *w)
{
	size_t off = 0;
	if (w->fd < 0) {
		if (w->n == w->cap)
			w->err = EOVERFLOW;
		return;
	}
	int intr = 0;
	while (off < w->n && !w->err) {
		ssize_t r = write(w->fd, w->buf + off, w->n - off);
		if (r < 0 && oa_eintr_again(&intr))
			continue;
		if (r <= 0)
			w->err = r < 0 ? errno : EIO;
		else
			off += (size_t)r;
	}
	w->n = 0;
}

OA_START_TEXT static void jw_putc(struct jw *w, char c)
{
	if (w->n == w->cap) {
		jw_flush(w);
		if (w->n == w->cap)
			return; /* rendering into a buffer that is full */
	}
	w->buf[w->n++] = c;
}

/* `len` bytes at once where they fit (two renders of every stream.json
 * per process: a byte at a time was ~10 us of a short process's cost). */
OA_START_TEXT static void jw_bytes(struct jw *w, const char *s, size_t len)
{
	if (w->cap - w->n >= len) {
		memcpy(w->buf + w->n, s, len);
		w->n += len;
		return;
	}
	while (len--)
		jw_putc(w, *s++);
}

OA_START_TEXT static void jw_raw(struct jw *w, const char *s)
{
	jw_bytes(w, s, strlen(s));
}

/* Bytes a JSON string writes as they are: not '"', '\\', a control
 * character or DEL (nor the terminating NUL). */
#define JW_PLAIN(c) ((c) >= 0x20 && (c) != '"' && (c) != '\\' && (c) != 0x7f)
#define JW_ROW(b)                                                                                             \
	JW_PLAIN(b + 0), JW_PLAIN(b + 1), JW_PLAIN(b + 2), JW_PLAIN(b + 3), JW_PLAIN(b + 4), JW_PLAIN(b + 5), \
		JW_PLAIN(b + 6), JW_PLAIN(b + 7), JW_PLAIN(b + 8), JW_PLAIN(b + 9), JW_PLAIN(b + 10),         \
		JW_PLAIN(b + 11), JW_PLAIN(b + 12), JW_PLAIN(b + 13), JW_PLAIN(b + 14), JW_PLAIN(b + 15)
static const unsigned char jw_plain[256] = { JW_ROW(0),   JW_ROW(16),  JW_ROW(32),  JW_ROW(48),
					     JW_ROW(64),  JW_ROW(80),  JW_ROW(96),  JW_ROW(112),
					     JW_ROW(128), JW_ROW(144), JW_ROW(160), JW_ROW(176),
					     JW_ROW(192), JW_ROW(208), JW_ROW(224), JW_ROW(240) };

/* A JSON string's characters, escaped where they must be: the text is
 * valid UTF-8 already (sanitized). */
OA_START_TEXT static void jw_str_body(struct jw *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	for (; *s; s++) {
		size_t run = 0; /* the bytes that need no escape, at once (a table: two
				 * renders of each stream.json were ~27K instructions here) */
		while (jw_plain[(unsigned char)s[run]])
			run++;
		if (run) {
			jw_bytes(w, s, run);
			s += run;
			if (!*s)
				break;
		}
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			jw_putc(w, '\\');
			jw_putc(w, (char)c);
		} else if (c < 0x20 || c == 0x7f) {
			jw_raw(w, "\\u00");
			jw_putc(w, hex[c >> 4]);
			jw_putc(w, hex[c & 15]);
		} else {
			jw_putc(w, (char)c);
		}
	}
}

OA_START_TEXT static void jw_str(struct jw *w, const char *s)
{
	jw_putc(w, '"');
	jw_str_body(w, s);
	jw_putc(w, '"');
}

/* v in decimal at out (room for 21 bytes): its length. */
OA_START_TEXT static int jw_digits(char *out, int64_t v)
{
	char tmp[24];
	int n = 0;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[n++] = '-';
	for (int i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

OA_START_TEXT static void jw_int(struct jw *w, int64_t v)
{
	char out[24];
	jw_bytes(w, out, (size_t)jw_digits(out, v));
}

/* One label of a mark type's table: `,\n     "VALUE": "TEXT"` (no comma
 * first), written in place while it fits and its text needs no escape
 * (the ~45 labels of every stream.json: four calls and as many memcpy
 * each were most of a render), else through the general writers. */
OA_START_TEXT static void jw_label(struct jw *w, int first, int64_t value, const char *text)
{
	if (w->cap - w->n >= 40) {
		char *p = w->buf + w->n, *end = w->buf + w->cap - 1; /* room for the closing quote */
		if (!first)
			*p++ = ',';
		*p++ = '\n';
		for (int k = 0; k < 5; k++)
			*p++ = ' ';
		*p++ = '"';
		p += jw_digits(p, value);
		*p++ = '"', *p++ = ':', *p++ = ' ', *p++ = '"';
		while (*text && p < end && jw_plain[(unsigned char)*text])
			*p++ = *text++;
		w->n = (size_t)(p - w->buf);
		if (!*text) {
			w->buf[w->n++] = '"';
			return;
		}
		jw_str_body(w, text); /* an escape, or the buffer is full: the rest as usual */
		jw_putc(w, '"');
		return;
	}
	jw_raw(w, first ? "\n     \"" : ",\n     \"");
	jw_int(w, value);
	jw_raw(w, "\": ");
	jw_str(w, text);
}

OA_START_TEXT static void jw_key(struct jw *w, const char *indent, const char *key)
{
	jw_raw(w, indent);
	jw_str(w, key);
	jw_raw(w, ": ");
}

static const char *fixed_label(const struct oa_meta *m, int type, int64_t value);

/* The labels of `type` in list l, but the values the type's fixed table
 * names (written before them): an earlier image's stream.json read back
 * after an exec holds those too, and a duplicate key is not JSON that
 * the emulator's reader accepts. */
OA_START_TEXT static void jw_labels(struct jw *w, const struct oa_meta *m, const struct oa_label *l, int type,
				    int *first)
{
	for (; l; l = l->onext) {
		if (l->type != type || fixed_label(m, type, l->value))
			continue;
		jw_label(w, *first, l->value, l->text);
		*first = 0;
	}
}

static void compose(struct jw *w, const struct oa_meta *m, int tid, int finished, const struct oa_label_list *own);

/* A model's required version: the program's newer one, else the agent's. */
OA_START_TEXT static void jw_require_version(struct jw *w, const struct oa_meta *m, int i, const char *mine)
{
	const char *v = atomic_load_explicit(&m->require_version[i], memory_order_acquire);
	jw_str(w, v ? v : mine);
}

/* "  \"loom_cpus\": [...],\n", as compose writes it (inlined there: the
 * start's text has no room for a call). */
__attribute__((always_inline)) static inline void jw_cpus(struct jw *w, const struct oa_meta *m)
{
	jw_key(w, "  ", "loom_cpus");
	jw_putc(w, '[');
	for (int i = 0; i < m->ncpus; i++) {
		jw_raw(w, i ? ", {\"index\": " : "{\"index\": ");
		jw_int(w, i);
		jw_raw(w, ", \"phyid\": ");
		jw_int(w, m->phyids[i]);
		jw_putc(w, '}');
	}
	jw_raw(w, "],\n");
}

int oa_meta_write(const struct oa_meta *m, int fd, int tid, int finished, const struct oa_label_list *own)
{
	char buf[768];
	struct jw w = { .fd = fd, .cap = sizeof(buf), .buf = buf };
	compose(&w, m, tid, finished, own);
	jw_flush(&w);
	return w.err ? -w.err : 0;
}

OA_START_TEXT ssize_t oa_meta_render(const struct oa_meta *m, char *buf, size_t cap, int tid, int finished,
				     const struct oa_label_list *own)
{
	struct jw w = { .fd = -1, .cap = cap, .buf = buf };
	compose(&w, m, tid, finished, own);
	jw_flush(&w);
	return w.err ? -w.err : (ssize_t)w.n;
}

OA_RUN_TEXT ssize_t oa_meta_render_apart(const struct oa_meta *m, char *buf, size_t cap, int tid, int finished,
					 const struct oa_label_list *own, uint32_t *at)
{
	struct jw w = { .fd = -1, .cap = cap, .buf = buf };
	compose(&w, m, tid, finished | OA_META_NO_CPUS, own);
	jw_flush(&w);
	*at = (uint32_t)w.cpus_at;
	return w.err ? -w.err : (ssize_t)w.n;
}

OA_RUN_TEXT ssize_t oa_meta_render_cpus(const struct oa_meta *m, char *buf, size_t cap)
{
	struct jw w = { .fd = -1, .cap = cap, .buf = buf };
	jw_cpus(&w, m);
	jw_flush(&w);
	return w.err ? -w.err : (ssize_t)w.n;
}

OA_RUN_TEXT uint64_t oa_meta_cpus_hash(const struct oa_meta *m)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)m->ncpus;
	for (int i = 0; i < m->ncpus && m->phyids; i++)
		h = (h ^ (uint64_t)(uint32_t)m->phyids[i]) * 1099511628211ull;
	return h ? h : 1;
}

_Static_assert(OVNI_METADATA_VERSION == 3, "OA_META_FINISHED_AT counts one digit of version 3");

OA_START_TEXT static void compose(struct jw *w, const struct oa_meta *m, int tid, int finished,
				  const struct oa_label_list *own)
{
	int no_cpus = finished & OA_META_NO_CPUS;
	finished &= ~OA_META_NO_CPUS;
	jw_raw(w, "{\n \"version\": ");
	jw_int(w, OVNI_METADATA_VERSION);
	jw_raw(w, ",\n \"ovni\": {\n");
	jw_key(w, "  ", "part");
	jw_str(w, "thread");
	/* Early, where a parent that reaps the process looks for it. */
	jw_raw(w, finished == OA_META_PENDING ? ",\n  \"finished\": 0,\n"
		  : finished                  ? ",\n  \"finished\": 1,\n"
					      : ",\n");
	jw_key(w, "  ", "tid");
	jw_int(w, tid);
	jw_raw(w, ",\n");
	jw_key(w, "  ", "pid");
	jw_int(w, m->pid);
	jw_raw(w, ",\n");
	jw_key(w, "  ", "loom");
	jw_str(w, m->loom);
	jw_raw(w, ",\n");
	jw_key(w, "  ", "app_id");
	jw_int(w, m->app_id);
	jw_raw(w, ",\n");
	if (m->rank >= 0 && m->nranks > 0) {
		jw_key(w, "  ", "rank");
		jw_int(w, m->rank);
		jw_raw(w, ",\n");
		jw_key(w, "  ", "nranks");
		jw_int(w, m->nranks);
		jw_raw(w, ",\n");
	}
	if (no_cpus)
		w->cpus_at = w->n;
	else
		jw_cpus(w, m);
	jw_key(w, "  ", "require");
	jw_raw(w, "{\"ovni\": ");
	jw_require_version(w, m, 0, OVNI_MODEL_OVNI_VERSION);
	if (atomic_load(&m->require) & OA_REQUIRE_OPENMP) {
		jw_raw(w, ", \"openmp\": ");
		jw_require_version(w, m, 1, OVNI_MODEL_OPENMP_VERSION);
	}
	if (atomic_load(&m->require) & OA_REQUIRE_MPI) {
		jw_raw(w, ", \"mpi\": ");
		jw_require_version(w, m, 2, OVNI_MODEL_MPI_VERSION);
	}
	const char *extra = atomic_load_explicit(&m->require_extra, memory_order_acquire);
	if (extra)
		jw_raw(w, extra);
	jw_raw(w, "},\n");
	jw_key(w, "  ", "lib");
	jw_raw(w, "{\"version\": ");
	jw_str(w, m->lib_version ? m->lib_version : "");
	jw_raw(w, ", \"commit\": ");
	jw_str(w, m->lib_commit ? m->lib_commit : "");
	jw_putc(w, '}');
	int ntypes = 0;
	for (int t = 0; t < OA_META_NTYPES; t++) {
		uint64_t mask = atomic_load_explicit(&m->declared_mask[t / 64], memory_order_acquire) >> (t % 64);
		if (!mask) {
			t |= 63; /* none declared in the rest of this word */
			continue;
		}
		if (!(mask & 1) || atomic_load_explicit(&type_at(m, t)->declared, memory_order_acquire) != 1)
			continue;
		jw_raw(w, ntypes++ ? ",\n   \"" : ",\n  \"mark\": {\n   \"");
		jw_int(w, t);
		jw_raw(w, "\": {\"title\": ");
		jw_str(w, type_at(m, t)->title);
		jw_raw(w, type_at(m, t)->stack ? ", \"chan_type\": \"stack\", \"labels\": {"
					       : ", \"chan_type\": \"single\", \"labels\": {");
		int first = 1;
		int nfixed = atomic_load_explicit(&type_at(m, t)->nfixed, memory_order_acquire);
		for (int i = 0; i < nfixed; i++) {
			const char *text = type_at(m, t)->fixed[i];
			if (!text)
				continue;
			jw_label(w, first, type_at(m, t)->fixed_first + i, text);
			first = 0;
		}
		jw_labels(w, m, atomic_load_explicit(&m->global.head, memory_order_acquire), t, &first);
		if (own)
			jw_labels(w, m, atomic_load_explicit(&own->head, memory_order_acquire), t, &first);
		jw_raw(w, first ? "}}" : "\n   }}");
	}
	if (ntypes)
		jw_raw(w, "\n  }");
	const char *ovni_attrs = own ? atomic_load_explicit(&own->ovni_attrs, memory_order_acquire) : NULL;
	if (ovni_attrs)
		jw_raw(w, ovni_attrs);
	jw_raw(w, "\n }");
	const char *attrs = own ? atomic_load_explicit(&own->attrs, memory_order_acquire) : NULL;
	if (attrs)
		jw_raw(w, attrs);
	jw_raw(w, "\n}\n");
}

/* A label read back from a stream this image rewrites: it must be written
 * there again, even when this image already has it in another stream. */
static void import_label(struct oa_meta *m, struct oa_label_list *owner, int type, int64_t value, const char *text)
{
	if (oa_meta_mark_label(m, owner, type, value, text) != 1 || !owner)
		return;
	struct oa_label *l = find_from(atomic_load(bucket_of(m, type, value)), NULL, type, value);
	if (!l || l->owner == &m->global)
		return; /* written in every stream already */
	/* Owned by this list may mean an earlier stream of the same slot (a
	 * failed exec frees the caller's slot, its new stream takes it again
	 * with an empty list, and overwrites the stream.json read here): the
	 * list itself says whether it holds the label. */
	for (struct oa_label *o = atomic_load(&owner->head); o; o = o->onext)
		if (o->type == type && o->value == value)
			return;
	size_t len = strlen(text) > OA_META_LABEL_MAX ? OA_META_LABEL_MAX : strlen(text);
	struct oa_label *copy = malloc(sizeof(*copy) + len + 1);
	if (!copy)
		return;
	copy->type = type;
	copy->value = value;
	copy->hnext = NULL; /* in the owner list only (never freed) */
	oa_meta_sanitize(copy->text, len + 1, text);
	push_owner(owner, copy);
}

/* ---- reading stream.json back: a small JSON reader ---- */

void oa_json_ws(struct oa_json *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
		r->p++;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

static int json_hex4(struct oa_json *r, unsigned *out)
{
	if (r->end - r->p < 4)
		return -1;
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(r->p[i]);
		if (h < 0)
			return -1;
		v = v << 4 | (unsigned)h;
	}
	r->p += 4;
	*out = v;
	return 0;
}

/* A string at r->p (its '"'), unescaped into out (cut to cap - 1 bytes,
 * UTF-8); 0, or -1 when it is not a string. */
OA_START_TEXT static int json_string(struct oa_json *r, char *out, size_t cap)
{
	size_t n = 0;
	if (r->p >= r->end || *r->p != '"')
		return -1;
	r->p++;
	while (r->p < r->end && *r->p != '"') {
		/* A run of plain bytes at once: a byte-at-a-time copy was most
		 * of the ~90K instructions an exec'd image spent reading back
		 * its predecessor's stream.json. */
		const char *q = memchr(r->p, '"', (size_t)(r->end - r->p));
		if (!q)
			q = r->end;
		const char *b = memchr(r->p, '\\', (size_t)(q - r->p));
		if (b)
			q = b;
		if (q > r->p) {
			size_t run = (size_t)(q - r->p);
			if (n + 1 < cap) {
				size_t k = run < cap - 1 - n ? run : cap - 1 - n;
				memcpy(out + n, r->p, k);
				n += k;
			}
			r->p = q;
			continue;
		}
		unsigned c = (unsigned char)*r->p++;
		char enc[4];
		size_t len = 1;
		enc[0] = (char)c;
		if (c == '\\') {
			if (r->p >= r->end)
				return -1;
			char e = *r->p++;
			unsigned u;
			switch (e) {
			case 'b': enc[0] = '\b'; break;
			case 'f': enc[0] = '\f'; break;
			case 'n': enc[0] = '\n'; break;
			case 'r': enc[0] = '\r'; break;
			case 't': enc[0] = '\t'; break;
			case 'u':
				if (json_hex4(r, &u))
					return -1;
				if (u >= 0xd800 && u < 0xdc00 && r->end - r->p >= 6 && r->p[0] == '\\' &&
				    r->p[1] == 'u') {
					unsigned lo;
					r->p += 2;
					if (json_hex4(r, &lo) || lo < 0xdc00 || lo > 0xdfff)
						return -1;
					u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				}
				if (u < 0x80) {
					enc[0] = (char)u;
				} else if (u < 0x800) {
					enc[0] = (char)(0xc0 | u >> 6), enc[1] = (char)(0x80 | (u & 63)), len = 2;
				} else if (u < 0x10000) {
					enc[0] = (char)(0xe0 | u >> 12), enc[1] = (char)(0x80 | ((u >> 6) & 63));
					enc[2] = (char)(0x80 | (u & 63)), len = 3;
				} else {
					enc[0] = (char)(0xf0 | u >> 18), enc[1] = (char)(0x80 | ((u >> 12) & 63));
					enc[2] = (char)(0x80 | ((u >> 6) & 63)), enc[3] = (char)(0x80 | (u & 63)),
					len = 4;
				}
				break;
			default: enc[0] = e; break; /* \" \\ \/ */
			}
		}
		if (n + len < cap) {
			memcpy(out + n, enc, len);
			n += len;
		}
	}
	if (r->p >= r->end)
		return -1;
	r->p++;
	if (cap)
		out[n < cap ? n : cap - 1] = '\0';
	return 0;
}

/* Past any value (nested objects and arrays too); 0 or -1. */
OA_START_TEXT int oa_json_skip(struct oa_json *r)
{
	oa_json_ws(r);
	if (r->p >= r->end)
		return -1;
	if (*r->p == '"')
		return json_string(r, NULL, 0);
	if (*r->p != '{' && *r->p != '[') {
		while (r->p < r->end && *r->p != ',' && *r->p != '}' && *r->p != ']' && *r->p != ' ' && *r->p != '\n')
			r->p++;
		return 0;
	}
	int depth = 0;
	while (r->p < r->end) {
		char c = *r->p;
		if (c == '"') {
			if (json_string(r, NULL, 0))
				return -1;
			continue;
		}
		r->p++;
		if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0)
			return 0;
	}
	return -1;
}

/* The members of the object at r->p, one at a time: 1 with the key in
 * key (the reader at its value), 0 at the object's end, -1 on an error.
 * *first: 1 before the first member. */
OA_START_TEXT static int json_member(struct oa_json *r, char *key, size_t cap, int *first)
{
	oa_json_ws(r);
	if (*first) {
		if (r->p >= r->end || *r->p != '{')
			return -1;
		r->p++;
		*first = 0;
		oa_json_ws(r);
	} else if (r->p < r->end && *r->p == ',') {
		r->p++;
		oa_json_ws(r);
	}
	if (r->p < r->end && *r->p == '}') {
		r->p++;
		return 0;
	}
	if (json_string(r, key, cap))
		return -1;
	oa_json_ws(r);
	if (r->p >= r->end || *r->p != ':')
		return -1;
	r->p++;
	oa_json_ws(r);
	return 1;
}

/* At the value of key `want` of the object at r->p: 0, or -1. */
OA_START_TEXT int oa_json_find(struct oa_json *r, const char *want)
{
	char key[64];
	int first = 1, k;
	while ((k = json_member(r, key, sizeof(key), &first)) == 1) {
		if (!strcmp(key, want))
			return 0;
		if (oa_json_skip(r))
			return -1;
	}
	return -1;
}

/* The labels object at r->p of mark type `type`, each to on_label; the
 * reader ends past it.  0, or -1 on an error. */
OA_START_TEXT static int scan_labels(struct oa_json *r, int type, void (*on_label)(void *, int, int64_t, const char *),
				     void *arg, char *text)
{
	char key[64];
	int lf = 1, k;
	while ((k = json_member(r, key, sizeof(key), &lf)) == 1) {
		if (r->p < r->end && *r->p == '"') {
			if (json_string(r, text, OA_META_LABEL_MAX * 4 + 1))
				return -1;
			on_label(arg, type, strtoll(key, NULL, 10), text);
		} else if (oa_json_skip(r)) {
			return -1;
		}
	}
	return k < 0 ? -1 : 0;
}

OA_START_TEXT int oa_meta_scan_fd(int fd, void (*on_type)(void *, int, int, const char *),
				  void (*on_label)(void *, int, int64_t, const char *), void *arg)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size <= 0 || st.st_size > (64 << 20))
		return -1;
	size_t size = (size_t)st.st_size;
	char *buf = malloc(size + 1);
	if (!buf)
		return -1;
	size_t got = oa_read_full(fd, buf, size);
	buf[got] = '\0'; /* a byte to look at past the end */
	struct oa_json r = { buf, buf + got };
	char *text = malloc(OA_META_LABEL_MAX * 4 + 1);
	int ok = text && oa_json_find(&r, "ovni") == 0 && oa_json_find(&r, "mark") == 0;
	char tkey[32], key[64], title[128], kind[16];
	int first = 1;
	while (ok && json_member(&r, tkey, sizeof(tkey), &first) == 1) {
		/* One type: its title and kind, then its labels.  One pass where
		 * they come in that order (as this writer writes them); labels
		 * found before the title or kind are read after the type's end. */
		struct oa_json labels = { NULL, NULL };
		int f = 1, k, type = atoi(tkey), declared = 0;
		title[0] = kind[0] = '\0';
		while ((k = json_member(&r, key, sizeof(key), &f)) == 1) {
			if (!strcmp(key, "title") && *r.p == '"') {
				ok = !json_string(&r, title, sizeof(title));
			} else if (!strcmp(key, "chan_type") && *r.p == '"') {
				ok = !json_string(&r, kind, sizeof(kind));
			} else if (!strcmp(key, "labels") && on_label && !labels.p) {
				if (title[0] && kind[0]) {
					if (on_type && !declared)
						on_type(arg, type, !strcmp(kind, "stack"), title);
					declared = 1;
					ok = !scan_labels(&r, type, on_label, arg, text);
				} else {
					labels = r;
					ok = !oa_json_skip(&r);
				}
			} else {
				ok = !oa_json_skip(&r);
			}
			if (!ok)
				break;
		}
		if (!ok || k < 0)
			break;
		if (!title[0] || !kind[0])
			continue;
		if (on_type && !declared)
			on_type(arg, type, !strcmp(kind, "stack"), title);
		if (labels.p)
			scan_labels(&labels, type, on_label, arg, text);
	}
	free(text);
	free(buf);
	return ok ? 0 : -1;
}

struct import {
	struct oa_meta *m;
	struct oa_label_list *owner;
};

OA_START_TEXT static void import_type(void *arg, int type, int stack, const char *title)
{
	oa_meta_mark_type(((struct import *)arg)->m, type, stack, title);
}

OA_START_TEXT static void import_one(void *arg, int type, int64_t value, const char *text)
{
	struct import *im = arg;
	import_label(im->m, im->owner, type, value, text);
}

OA_START_TEXT int oa_meta_import_marks(struct oa_meta *m, struct oa_label_list *owner, int fd)
{
	struct import im = { m, owner };
	return oa_meta_scan_fd(fd, import_type, import_one, &im);
}
