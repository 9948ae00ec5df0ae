/* meta.h: the stream.json metadata of a process's thread streams.
 *
 * The process-wide part (loom, pid, app id, rank, CPUs, required models) is
 * plain data; mark types live in a fixed table and mark labels in a
 * lock-free hash table that only grows.  Nothing is rendered ahead of time:
 * oa_meta_write() composes a thread's stream.json from these tables when it
 * is needed, async-signal-safely (no malloc, no lock, about 1 KiB of
 * stack), so a stream ended by a fatal signal or by _exit() in a signal
 * handler gets the same metadata as one ended normally.
 *
 * Marks are global to a whole trace in the emulator (types and labels of
 * every stream are merged), so each label is written into one stream only:
 * the stream of the thread that added it (its "owner list"), or, for labels
 * added with no owner (fixed labels declared at start), into every stream.
 * Adding a label costs O(1): a writer never walks labels it does not own. */
#ifndef OA_META_H
#define OA_META_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/compiler.h"

#define OA_REQUIRE_OPENMP 0x1u
#define OA_REQUIRE_MPI 0x2u
#define OA_META_NTYPES 100         /* the emulator accepts types 0..99 */
#define OA_META_BUCKETS 4096u      /* label hash buckets */
#define OA_META_SMALL_BUCKETS 128u /* those of a short process's labels (meta.c) */
#define OA_META_CHAIN_MAX 64       /* labels a bucket holds: at most (128 + 4096) x 64 a process */
#define OA_META_LABEL_MAX 480      /* bytes of a label (the emulator takes < 512) */

struct oa_label_list;

/* One label; immutable once published. */
struct oa_label {
	struct oa_label *hnext;      /* hash chain */
	struct oa_label *onext;      /* owner list */
	struct oa_label_list *owner; /* the list it was pushed on */
	int64_t value;
	int type;
	char text[]; /* NUL-terminated, valid UTF-8, at most OA_META_LABEL_MAX */
};

/* What one stream writes besides the process part: a list of labels
 * (pushed by any thread, read by any), and members of its own added after
 * the "ovni" object (program attributes set through the libovni API): JSON
 * text starting with ",", replaced whole, never freed while in use. */
struct oa_label_list {
	struct oa_label *_Atomic head;
	const char *_Atomic attrs;
	/* The same for members inside the "ovni" object (program attributes
	 * under "ovni." that are not the agent's keys). */
	const char *_Atomic ovni_attrs;
};

struct oa_meta_type {
	_Atomic int declared;
	int stack;
	char title[96];
	/* Labels every process has (signal names, kinds of wait): values
	 * fixed_first + i, texts in a table of the caller's that lives as long
	 * as the process; written first, in no hash (nothing allocated). */
	int64_t fixed_first;
	const char *const *fixed;
	_Atomic int nfixed;
};

struct oa_meta {
	int pid;
	int app_id;
	int rank, nranks; /* rank < 0: not set */
	char loom[256];
	int ncpus;
	/* The process's first stream (tid == pid) is open, with the CPUs in
	 * its stream.json: its other threads' leave them out (OA_META_NO_CPUS).
	 * (In the hole before phyids: the header's page is full.) */
	int main_cpus;
	int *phyids; /* loom CPU index i has OS CPU number phyids[i] */
	const char *lib_version, *lib_commit;
	_Atomic unsigned require; /* OA_REQUIRE_* */
	/* More required models (the program's own, libovni API): JSON members
	 * starting with ", ", replaced whole, never freed while in use. */
	const char *_Atomic require_extra;
	/* A newer version of one of the agent's models that the program
	 * requires (ovni, openmp, mpi; NULL: the agent's). */
	const char *_Atomic require_version[3];
	/* Bit t: types[t] is declared (readable).  stream.json is written
	 * from these, so that a process reads only the pages of the types it
	 * declared, not all 100 (4 pages, each a fault). */
	_Atomic uint64_t declared_mask[(OA_META_NTYPES + 63) / 64];
	/* Labels written into every stream: on the header's page (after the
	 * buckets, every stream.json's read of it was a page of its own). */
	struct oa_label_list global;
	/* The buckets of the labels every short process makes (meta.c,
	 * bucket_of), on the header's page too: a page of buckets apart was
	 * a fault of its own in every process.  With them, the header and
	 * the agent's 20 types (oa_meta_type_at) still fill one page. */
	struct oa_label *_Atomic small[OA_META_SMALL_BUCKETS];
	struct oa_meta_type types[OA_META_NTYPES];
	/* The rest, page-aligned. */
	struct oa_label *_Atomic buckets[OA_META_BUCKETS] __attribute__((aligned(4096)));
};

/* Where type t lives in m->types: the agent's own types (80 and up) first,
 * so that a process's declarations share a page with the header instead
 * of the third page of the table (a fault each). */
#define oa_meta_type_at(m, t) (&(m)->types[((t) + OA_META_NTYPES - 80) % OA_META_NTYPES])

/* m must be zeroed (static storage, or an initializer) before its first
 * use; oa_meta_fini() leaves it so. */
int oa_meta_init(struct oa_meta *m) USE_RET;
void oa_meta_fini(struct oa_meta *m);

/* Declare a mark channel type (stack or single) with a title; the first
 * declaration stays. 0, or -1 for a type out of range. */
int oa_meta_mark_type(struct oa_meta *m, int type, int stack, const char *title);
/* Labels of the declared `type` for values first .. first + n - 1: texts[i]
 * (NULL: none), kept by pointer (static storage).  Once per type; a later
 * label for one of those values is refused as already labelled. */
int oa_meta_fixed_labels(struct oa_meta *m, int type, int64_t first, const char *const *texts, int n);

/* Label a value of a declared mark type; a value keeps its first label.
 * The label is written in the streams that write `owner` (NULL: every
 * stream). Returns 0 when added, 1 when the value already had a label, -1
 * on error (undeclared type, value 0, out of memory). Not for signal
 * handlers (it allocates). */
int oa_meta_mark_label(struct oa_meta *m, struct oa_label_list *owner, int type, int64_t value, const char *label);
/* The same for a value that has never had a label (drawn fresh from a
 * counter: a fork's, an exec's): no lookup, not in the hash, only in the
 * owner's list (which stream.json is written from).  A process that forks
 * writes one page fewer per fork (the hash bucket's, copied on write while
 * the child lives).  0, or -1. */
int oa_meta_mark_label_new(struct oa_meta *m, struct oa_label_list *owner, int type, int64_t value, const char *label);

/* A prepared label (below) for a value never labelled before, into
 * owner's list only (not the hash): async-signal-safe. 0, 1 when the value
 * has a fixed label, -1. */
int oa_meta_label_publish_new(struct oa_meta *m, struct oa_label_list *owner, struct oa_label *l, int type,
			      int64_t value, const char *text);

/* A label prepared ahead of time, to be published from a signal handler. */
struct oa_label *oa_meta_label_alloc(void);
/* Fill and publish a prepared label (async-signal-safe; at most once each). */
int oa_meta_label_publish(struct oa_meta *m, struct oa_label_list *owner, struct oa_label *l, int type, int64_t value,
			  const char *text);

/* `finished` of oa_meta_write/render: 0 while the stream is open (no
 * key), 1 ended ("finished": 1), OA_META_PENDING ended but its stream.obs
 * not cut yet ("finished": 0, which the writer turns into 1 with a
 * one-byte write at OA_META_FINISHED_AT once it is: a process killed in
 * between is then finished by whoever sees it die, as one killed earlier). */
#define OA_META_PENDING 2
/* The offset of that digit: the text before it is fixed. */
#define OA_META_FINISHED_AT (sizeof("{\n \"version\": 3,\n \"ovni\": {\n  \"part\": \"thread\",\n  \"finished\": ") - 1)

/* A flag of `finished`: the text without ovni.loom_cpus.  The format asks
 * for them in one stream of each loom; the agent writes them in each
 * process's main stream, not in its other threads' (with hundreds of CPUs
 * they are kilobytes, more than a spool slot holds). */
#define OA_META_NO_CPUS 0x10

/* Write the stream.json text of thread `tid` to fd: the process part, every
 * declared type, the global labels and those of `own`. Async-signal-safe.
 * Returns 0 or a negative errno. */
int oa_meta_write(const struct oa_meta *m, int fd, int tid, int finished, const struct oa_label_list *own);
/* The same text into buf (cap bytes): its length, or -EOVERFLOW when it does
 * not fit.  Async-signal-safe. */
ssize_t oa_meta_render(const struct oa_meta *m, char *buf, size_t cap, int tid, int finished,
		       const struct oa_label_list *own);
/* The same without the loom's CPUs, *at set to the offset where
 * oa_meta_render_cpus's text goes back in (a slot of the run's spool: its
 * writer puts them back, from the spool's header; spool.h). */
ssize_t oa_meta_render_apart(const struct oa_meta *m, char *buf, size_t cap, int tid, int finished,
			     const struct oa_label_list *own, uint32_t *at);
/* The loom's CPUs as those texts have them ("  \"loom_cpus\": [...],\n"):
 * the length, or -EOVERFLOW.  And a hash of the list (never 0). */
ssize_t oa_meta_render_cpus(const struct oa_meta *m, char *buf, size_t cap);
uint64_t oa_meta_cpus_hash(const struct oa_meta *m);

/* Take over the mark types and labels of an existing stream.json, read
 * from fd (a stream continued after exec keeps what the previous image
 * recorded); the labels go into `owner`. */
int oa_meta_import_marks(struct oa_meta *m, struct oa_label_list *owner, int fd);
/* A reader of JSON text (stream.json) that allocates nothing: usable in a
 * signal handler.  The reader's position p moves over the text up to end. */
struct oa_json {
	const char *p, *end;
};
/* Past blanks. */
void oa_json_ws(struct oa_json *r);
/* Past one value (nested objects and arrays too): 0, or -1. */
int oa_json_skip(struct oa_json *r);
/* At the value of member `key` of the object at r->p: 0, or -1 (no such
 * member, or not an object). */
int oa_json_find(struct oa_json *r, const char *key);

/* The mark types and labels of the stream.json read from fd, one call
 * each: on_type(arg, type, stack, title), then on_label(arg, type, value,
 * text) for each of its labels (either callback may be NULL).  A reader of
 * JSON of our own (no library: the agent links none); 0, or -1 when fd
 * holds no stream.json. */
int oa_meta_scan_fd(int fd, void (*on_type)(void *, int, int, const char *),
		    void (*on_label)(void *, int, int64_t, const char *), void *arg);

/* Copy src to dst (size bytes) as valid UTF-8 JSON-safe text: invalid
 * bytes become '?'. Returns the length written. */
size_t oa_meta_sanitize(char *dst, size_t size, const char *src);

#endif
