/* spool.c: short threads' first windows in one file per process (spool.h).
 * Async-signal-safe: system calls, the caller's memory and static buffers
 * guarded by a try-flag, no allocation, no lock. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "../common/compiler.h"
#include "../common/str.h"
#include "../common/sys.h"
#include "../common/fdroom.h"
#include "../common/log.h"
#include "files.h"
#include "meta.h"
#include "ovni_fmt.h"
#include "sigblock.h"
#include "spool.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

_Static_assert(sizeof(struct oa_spool_slot) == OA_SPOOL_SLOT_HEADER, "spool slot header");
_Static_assert(sizeof(struct oa_spool_header) <= OA_SPOOL_TIDS_AT, "spool file header");
_Static_assert((OA_SPOOL_TIDS & (OA_SPOOL_TIDS - 1)) == 0, "tid buckets: a power of two");

static struct oa_spool_slot *slot_at(uint8_t *map, unsigned i)
{
	return (struct oa_spool_slot *)(map + OA_SPOOL_HEADER + (size_t)i * OA_SPOOL_SLOT);
}

int oa_spool_name(const char *name)
{
	size_t n = strlen(name);
	return !strncmp(name, "spool.", 6) && n > 9 && !strcmp(name + n - 3, ".oa");
}

long oa_spool_next(int dfd, long after, char *buf, size_t cap)
{
	long best = -1, n;
	if (lseek(dfd, 0, SEEK_SET) != 0)
		return -1;
	while ((n = syscall(SYS_getdents64, dfd, buf, cap)) > 0) {
		for (long off = 0; off + 19 < n;) {
			unsigned short reclen;
			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			const char *name = buf + off + 19; /* ino, off, reclen, type */
			off += reclen ? reclen : n;
			if (!oa_spool_name(name))
				continue;
			long k = 0;
			const char *p = name + 6;
			while (*p >= '0' && *p <= '9' && k < 1000000000L)
				k = k * 10 + (*p++ - '0');
			if (p == name + 6 || strcmp(p, ".oa"))
				continue; /* not a number of ours (spool.run.oa) */
			if (k > after && (best < 0 || k < best))
				best = k;
		}
	}
	return best;
}

OA_THREAD_TEXT void oa_spool_init(struct oa_spool *sp, const char *procdir, int pid, const char *watch)
{
	/* Written first (an exchange, not a load): a page read before it is
	 * written costs two faults. */
	unsigned nf = atomic_exchange(&sp->nfiles, 0);
	memset(sp->files, 0, sizeof(sp->files[0]) * nf);
	atomic_store(&sp->hint, 0);
	atomic_store(&sp->failed, 0);
	atomic_store(&sp->making, 0);
	sp->pid = pid;
	sp->watch = watch && *watch ? watch : NULL;
	oa_snprintf(sp->procdir, sizeof(sp->procdir), "%s", procdir);
}

static struct oa_spool_header *header_of(uint8_t *map)
{
	return (struct oa_spool_header *)map;
}

static _Atomic uint8_t *tids_of(uint8_t *map)
{
	return (_Atomic uint8_t *)(map + OA_SPOOL_TIDS_AT);
}

/* Tell the watcher about a new file: one line, one write (appends of one
 * write do not interleave).  Nothing happens if it cannot be told: the
 * process then writes its slots out itself at its end. */
static void tell_watcher(const struct oa_spool *sp, const char *path)
{
	if (!sp->watch || !oa_fd_room())
		return;
	char line[4300];
	int n = oa_snprintf(line, sizeof(line), "%s\n", path);
	if (n < 0)
		return;
	int fd = open(sp->watch, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t w = oa_nc_write(fd, line, (size_t)n);
	(void)w;
	oa_nc_close(fd);
}

static size_t file_len(void)
{
	return OA_SPOOL_HEADER + (size_t)OA_SPOOL_SLOTS * OA_SPOOL_SLOT;
}

static void file_path(const struct oa_spool *sp, int k, char *path, size_t cap)
{
	oa_snprintf(path, cap, "%s/spool.%d.oa", sp->procdir, k);
}

/* Make spool file number nfiles and map it: 0 or -errno. */
static int add_file_in(struct oa_spool *sp);

/* A file's size may pass `ulimit -f`: the SIGXFSZ that raises is ours. */
OA_THREAD_TEXT static int add_file(struct oa_spool *sp)
{
	sigset_t old;
	oa_sigblock(&old);
	int xfsz = oa_xfsz_pending();
	int r = add_file_in(sp);
	if (r)
		oa_xfsz_forget(xfsz);
	oa_sigrestore(&old);
	return r;
}

OA_THREAD_TEXT static int add_file_in(struct oa_spool *sp)
{
	unsigned n = atomic_load(&sp->nfiles);
	if (n >= OA_SPOOL_FILES)
		return -ENOSPC;
	/* 8 MiB of address space is not ours to take from a program that
	 * limits its own: its threads keep their small windows. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		return -ENOMEM;
	size_t len = file_len();
	char path[4200];
	int fd = -1, e = 0, k = n ? sp->files[n - 1].k + 1 : 0;
	/* An earlier image of the process (exec) may have left some. */
	for (int tries = 0; tries < 256 && fd < 0; tries++, k++) {
		file_path(sp, k, path, sizeof(path));
		fd = oa_open_at(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		/* A process whose first stream is in the run's spool has no
		 * directory yet. */
		if (fd < 0 && errno == ENOENT && !tries && oa_mkdir_p(sp->procdir) >= 0)
			fd = oa_open_at(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 && (e = errno) != EEXIST)
			break;
	}
	if (fd < 0)
		return -(e ? e : EEXIST);
	k--;
	void *m = MAP_FAILED;
	if (ftruncate(fd, (off_t)len) == 0)
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	e = errno;
	struct oa_spool_header h = { .slot_size = OA_SPOOL_SLOT,
				     .nslots = OA_SPOOL_SLOTS,
				     .obs_cap = OA_SPOOL_OBS,
				     .json_cap = OA_SPOOL_JSON,
				     .pid = sp->pid };
	memcpy(h.magic, OA_SPOOL_MAGIC, 8);
	/* The header through the descriptor: its block exists then. */
	if (m != MAP_FAILED && oa_nc_pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		e = errno;
		munmap(m, len);
		m = MAP_FAILED;
	}
	oa_nc_close(fd);
	if (m == MAP_FAILED) {
		oa_unlink_at(path);
		return -e;
	}
	struct oa_spool_file *f = &sp->files[n];
	f->k = k;
	atomic_store(&f->ready, 0);
	f->map = m;
	atomic_store(&sp->hint, 0);
	atomic_store(&sp->nfiles, n + 1); /* publishes the file */
	tell_watcher(sp, path);
	return 0;
}

OA_THREAD_TEXT int oa_spool_ready(const struct oa_spool *sp)
{
	return !atomic_load(&sp->failed);
}

/* Reserve the blocks of slots [0, upto) so that no write through the
 * mapping can fault (SIGBUS on a full file system): fallocate, which on a
 * disk makes unwritten extents (nothing to zero or write back); where the
 * file system has none, MADV_POPULATE_WRITE, which takes the page faults
 * now and reports ENOSPC.  4 slots first (a process with a thread or two),
 * then as many as are ready, up to OA_SPOOL_CHUNK. */
OA_THREAD_TEXT static int prepare(struct oa_spool *sp, struct oa_spool_file *f, unsigned upto)
{
	unsigned r;
	while ((r = atomic_load(&f->ready)) < upto) {
		unsigned n = r < 4 ? 4 : r < OA_SPOOL_CHUNK ? r : OA_SPOOL_CHUNK;
		if (r + n > OA_SPOOL_SLOTS)
			n = OA_SPOOL_SLOTS - r;
		uint8_t *p = (uint8_t *)slot_at(f->map, r);
		size_t len = (size_t)n * OA_SPOOL_SLOT;
		char path[4200];
		file_path(sp, f->k, path, sizeof(path));
		if (!oa_fd_room())
			return -EMFILE; /* a descriptor for a moment: not the program's last */
		sigset_t old;
		oa_sigblock(&old);
		int fd = oa_open_at(path, O_RDWR | O_CLOEXEC, 0);
		int ok = fd >= 0 && oa_fallocate(fd, (off_t)(p - f->map), (off_t)len) == 0;
		int e = errno;
		if (fd >= 0)
			oa_nc_close(fd);
		oa_sigrestore(&old);
		if (!ok && (fd < 0 || (e != EOPNOTSUPP && e != ENOSYS) || madvise(p, len, MADV_POPULATE_WRITE) != 0))
			return -ENOSPC;
		atomic_compare_exchange_strong(&f->ready, &r, r + n);
	}
	return 0;
}

/* The file's count of slots in use for tid's bucket, moved by d (+1 or
 * -1); 255 stays (a count that overflowed is lost: "maybe" for good). */
static void tid_count(uint8_t *map, int tid, int d)
{
	_Atomic uint8_t *c = tids_of(map) + ((unsigned)tid & (OA_SPOOL_TIDS - 1));
	uint8_t v = atomic_load_explicit(c, memory_order_relaxed);
	while (v != 255 && !(d < 0 && v == 0) &&
	       !atomic_compare_exchange_weak_explicit(c, &v, (uint8_t)(v + d), memory_order_relaxed,
						      memory_order_relaxed))
		;
}

/* Slot i of a file, taken (LIVE) for thread tid: its index and its seq. */
OA_THREAD_TEXT static struct oa_spool_slot *taken_as(uint8_t *map, unsigned i, int tid, uint8_t **obs)
{
	struct oa_spool_slot *s = slot_at(map, i);
	s->tid = tid;
	tid_count(map, tid, 1);
	s->idx = i;
	s->spill_base = 0;
	atomic_store_explicit(&s->spilling, 0, memory_order_relaxed);
	/* Release: a pass that reads the header's seq (acquire) sees the tid
	 * of every slot taken up to it. */
	atomic_store_explicit(&s->seq, atomic_fetch_add_explicit(&header_of(map)->seq, 1, memory_order_release) + 1,
			      memory_order_relaxed);
	*obs = oa_spool_obs(s);
	return s;
}

/* A slot of the file that was freed again (the lowest), taken; or NULL. */
static struct oa_spool_slot *take_freed(uint8_t *map, int tid, uint8_t **obs)
{
	struct oa_spool_header *hd = header_of(map);
	for (unsigned w = 0; w < OA_SPOOL_SLOTS / 64; w++) {
		uint64_t bits = atomic_load_explicit(&hd->freed[w], memory_order_relaxed);
		while (bits) {
			uint64_t m = bits & -bits;
			uint64_t was = atomic_fetch_and(&hd->freed[w], ~m);
			bits = was & ~m;
			if (!(was & m))
				continue;
			unsigned i = w * 64 + (unsigned)__builtin_ctzll(m);
			uint32_t expect = OA_SPOOL_FREE;
			/* Freed before its bit was set: FREE, unless the file is
			 * not what we think (then it is left alone). */
			if (i < OA_SPOOL_SLOTS &&
			    atomic_compare_exchange_strong(&slot_at(map, i)->state, &expect, OA_SPOOL_LIVE))
				return taken_as(map, i, tid, obs);
		}
	}
	return NULL;
}

static int self_unpack(struct oa_spool *sp, unsigned nf);

OA_THREAD_TEXT struct oa_spool_slot *oa_spool_take(struct oa_spool *sp, int tid, uint8_t **obs)
{
	int self_tried = 0;
	for (;;) {
		if (atomic_load(&sp->failed))
			return NULL;
		unsigned nf = atomic_load(&sp->nfiles);
		if (nf) {
			/* Slots are handed out in order; the last file's are free,
			 * and those freed again (by a watcher, or a thread that left
			 * its slot) are taken first.  Only the last file's: a
			 * recycled tid's streams are then written in file order,
			 * and in a file in the order of the slots' seq. */
			struct oa_spool_file *f = &sp->files[nf - 1];
			struct oa_spool_slot *again = take_freed(f->map, tid, obs);
			if (again)
				return again;
			for (unsigned i = atomic_load(&sp->hint); i < OA_SPOOL_SLOTS; i++) {
				int p = i >= atomic_load(&f->ready) ? prepare(sp, f, i + 1) : 0;
				if (p) {
					if (p != -EMFILE) /* near the descriptor limit: later maybe */
						atomic_store(&sp->failed, 1);
					return NULL;
				}
				struct oa_spool_slot *s = slot_at(f->map, i);
				uint32_t expect = OA_SPOOL_FREE;
				if (atomic_load_explicit(&s->state, memory_order_relaxed) != OA_SPOOL_FREE ||
				    !atomic_compare_exchange_strong(&s->state, &expect, OA_SPOOL_LIVE))
					continue;
				unsigned h = atomic_load(&sp->hint);
				while (h <= i && !atomic_compare_exchange_weak(&sp->hint, &h, i + 1))
					;
				struct oa_spool_header *hd = header_of(f->map);
				uint32_t tk = atomic_load_explicit(&hd->taken, memory_order_relaxed);
				while (tk <= i && !atomic_compare_exchange_weak(&hd->taken, &tk, i + 1))
					;
				return taken_as(f->map, i, tid, obs);
			}
			if (atomic_load(&sp->nfiles) != nf)
				continue; /* another thread added one */
		}
		/* Full (or none yet): one thread adds a file, the others write
		 * files of their own meanwhile.  With no watcher to free slots
		 * and a few files made, the ended threads' slots are written
		 * out first, and the last file's taken again: the spool stays
		 * as large as the threads alive (without, a process's 64 Ki-th
		 * thread found it full for good, and the threads after wrote
		 * files of their own). */
		if (atomic_exchange(&sp->making, 1))
			return NULL;
		int r;
		if (atomic_load(&sp->nfiles) != nf)
			r = 0;
		else if (!sp->watch && nf >= OA_SPOOL_SELF_FILES && !self_tried && self_unpack(sp, nf))
			r = 0, self_tried = 1;
		else
			r = oa_fd_room() ? add_file(sp) : -EMFILE;
		atomic_store(&sp->making, 0);
		if (r) {
			if (r != -EMFILE) /* near the descriptor limit: later maybe */
				atomic_store(&sp->failed, 1);
			return NULL;
		}
	}
}

/* Zero slot i of the file at map and free it: FREE, then its bit in
 * `freed` (a taker that clears the bit finds it FREE). */
OA_THREAD_TEXT static void release_at(uint8_t *map, unsigned i, size_t used)
{
	struct oa_spool_slot *slot = slot_at(map, i);
	if (used > OA_SPOOL_OBS)
		used = OA_SPOOL_OBS;
	memset(oa_spool_obs(slot), 0, used);
	slot->obs_len = 0;
	slot->json_len = 0;
	if (slot->tid)
		tid_count(map, slot->tid, -1);
	slot->tid = 0;
	slot->spill_base = 0;
	atomic_store_explicit(&slot->spilling, 0, memory_order_relaxed);
	atomic_store_explicit(&slot->state, OA_SPOOL_FREE, memory_order_release);
	if (i < OA_SPOOL_SLOTS)
		atomic_fetch_or(&header_of(map)->freed[i / 64], (uint64_t)1 << (i % 64));
}

void oa_spool_release(struct oa_spool_slot *slot, size_t used)
{
	/* Its index, as the taker wrote it: the file's mapping is before. */
	unsigned i = slot->idx;
	release_at((uint8_t *)slot - OA_SPOOL_HEADER - (size_t)i * OA_SPOOL_SLOT, i, used);
}

/* A slot's sort key: the order it was taken in (seq: an older agent's
 * slots have none), then its index. */
uint64_t oa_spool_order_key(uint8_t *map, unsigned i)
{
	uint64_t seq = atomic_load_explicit(&slot_at(map, i)->seq, memory_order_relaxed);
	if (seq >= (uint64_t)1 << 50)
		seq = ((uint64_t)1 << 50) - 1;
	return seq << 11 | i;
}

/* Move o[r] down the max-heap o[0, n). */
static void sift(uint64_t *o, unsigned r, unsigned n)
{
	for (unsigned c; (c = 2 * r + 1) < n; r = c) {
		if (c + 1 < n && o[c + 1] > o[c])
			c++;
		if (o[r] >= o[c])
			break;
		uint64_t t = o[r];
		o[r] = o[c];
		o[c] = t;
	}
}

/* Heap sort: no recursion, no allocation (a signal handler may be
 * here). */
void oa_spool_sort_keys(uint64_t *o, unsigned n)
{
	for (unsigned k = n; k-- > 0;)
		sift(o, k, n);
	for (unsigned e = n; e-- > 1;) {
		uint64_t t = o[0];
		o[0] = o[e];
		o[e] = t;
		sift(o, 0, e);
	}
}

static _Atomic int order_busy;
static uint64_t order_buf[OA_SPOOL_SLOTS] OA_LARGE_BSS;

/* The order to write a file's slots in: the order they were taken, for a
 * slot taken again after it was freed may come before an older one still
 * to be written, and a recycled tid's streams must be written in the
 * order they ran.  NULL: the index order is that order (no slot was taken
 * again before an older one was written: the usual case), or the buffer
 * is in use (another unpack of this process at once: index order, as
 * before slots were taken again).  Else order_buf, its *n keys sorted
 * (slot index in the low 11 bits); give it back with order_done(). */
/* The order is needed and the buffer is another unpack's (two at once in
 * a process: its end and a thread emptying a full spool): nothing is
 * written now (index order could append a recycled tid's streams out of
 * order); the slots stay for the next pass, or the finisher. */
#define ORDER_BUSY ((uint64_t *)1)

OA_THREAD_TEXT static uint64_t *order_of(uint8_t *map, unsigned nslots, unsigned *n)
{
	uint64_t prev = 0;
	unsigned i;
	for (i = 0; i < nslots; i++) {
		if (atomic_load_explicit(&slot_at(map, i)->state, memory_order_acquire) == OA_SPOOL_FREE)
			continue;
		uint64_t k = oa_spool_order_key(map, i);
		if (k < prev)
			break;
		prev = k;
	}
	if (i == nslots)
		return NULL;
	if (atomic_exchange(&order_busy, 1))
		return ORDER_BUSY;
	uint64_t *o = order_buf;
	unsigned c = 0;
	for (i = 0; i < nslots; i++)
		if (atomic_load_explicit(&slot_at(map, i)->state, memory_order_acquire) != OA_SPOOL_FREE)
			o[c++] = oa_spool_order_key(map, i);
	oa_spool_sort_keys(o, c);
	*n = c;
	return o;
}

static void order_done(uint64_t *o)
{
	if (o && o != ORDER_BUSY)
		atomic_store(&order_busy, 0);
}

/* The slots in use, none written (ORDER_BUSY). */
static unsigned count_in_use(uint8_t *map, unsigned nslots)
{
	unsigned c = 0;
	for (unsigned i = 0; i < nslots; i++)
		c += atomic_load_explicit(&slot_at(map, i)->state, memory_order_acquire) != OA_SPOOL_FREE;
	return c;
}

/* The bytes of stream.obs a LIVE slot holds: its events end at the first
 * zero byte where an event would start, or where the next would not fit. */
static size_t live_length(const uint8_t *obs)
{
	if (memcmp(obs, OVNI_STREAM_MAGIC, 4))
		return 0;
	size_t off = OVNI_HEADER_SIZE;
	while (off + OVNI_EV_HEADER_SIZE <= OA_SPOOL_OBS && obs[off + 1]) {
		uint8_t flags = obs[off];
		size_t n = OVNI_EV_HEADER_SIZE;
		if (ovni_flags_is_jumbo(flags)) {
			uint32_t size;
			if (off + n + 4 > OA_SPOOL_OBS)
				break;
			memcpy(&size, obs + off + n, 4);
			n += 4 + (size_t)size;
		} else {
			n += ovni_flags_payload_size(flags);
		}
		if (off + n > OA_SPOOL_OBS)
			break;
		off += n;
	}
	return off;
}

/* The first `key` in s[0, n) outside a string (a quote inside one is
 * escaped), or NULL. */
static const char *find_key(const char *s, size_t n, const char *key)
{
	size_t k = strlen(key);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(s + i, key, k) && (i == 0 || s[i - 1] != '\\'))
			return s + i;
	return NULL;
}

/* json_like (our stream.json) for thread tid, not finished, into out: the
 * length or -1. */
static ssize_t json_with_tid(const char *like, size_t n, int tid, char *out, size_t cap)
{
	const char *t = find_key(like, n, "\"tid\": ");
	if (!t)
		return -1;
	const char *p = t + 7, *q = p;
	while (q < like + n && ((*q >= '0' && *q <= '9') || *q == '-'))
		q++;
	/* "finished": 1, (or 0, an end cut short) comes before "tid"
	 * (meta.c): left out, up to the next key. */
	const char *f = find_key(like, (size_t)(t - like), "\"finished\": 1,");
	if (!f)
		f = find_key(like, (size_t)(t - like), "\"finished\": 0,");
	size_t a = (size_t)((f ? f : t) - like);
	char num[16];
	int k = oa_snprintf(num, sizeof(num), "\"tid\": %d", tid);
	size_t b = (size_t)(like + n - q);
	if (k < 0 || a + (size_t)k + b > cap)
		return -1;
	memcpy(out, like, a);
	memcpy(out + a, num, (size_t)k);
	memcpy(out + a + k, q, b);
	return (ssize_t)(a + (size_t)k + b);
}

static int write_file(char *dir, const char *name, int flags, const void *buf, size_t len)
{
	int fd = oa_dir_open(dir, name, flags, 0644);
	if (fd < 0)
		return -errno;
	int r = oa_write_all(fd, buf, len);
	oa_nc_close(fd);
	return r;
}

/* All of v[0, n) to fd (a write cut short goes on). */
static int writev_all(int fd, struct iovec *v, int n)
{
	int intr = 0;
	while (n > 0) {
		ssize_t w = writev(fd, v, n);
		if (w < 0 && oa_eintr_again(&intr))
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		for (; n > 0 && (size_t)w >= v->iov_len; v++, n--)
			w -= (ssize_t)v->iov_len;
		if (n > 0) {
			v->iov_base = (char *)v->iov_base + w;
			v->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* A slot's own stream.json into dir: final (DONE), or as at its start
 * (LIVE).  A LIVE slot may hold the final text already (its thread was
 * killed between rendering it and the DONE, maybe before its OHe): written
 * with "finished": 0, for the finisher that follows.  The loom's CPUs,
 * left out of a slot of the run's spool (cpus_at), go back in from
 * `cpus`. */
static int write_slot_json(char *dir, const char *name, struct oa_spool_slot *s, int live, const char *cpus,
			   size_t cpus_len)
{
	const char *j = oa_spool_json(s);
	size_t len = s->json_len, at = OA_META_FINISHED_AT, c = s->cpus_at, from = 0;
	struct iovec v[5];
	int k = 0;
	if (live && len > at && j[at] == '1' && memcmp(j + at - 12, "\"finished\": ", 12) == 0) {
		v[k++] = (struct iovec){ (void *)j, at };
		v[k++] = (struct iovec){ (void *)"0", 1 };
		from = at + 1;
	}
	if (cpus && c > at && c >= from && c <= len) {
		v[k++] = (struct iovec){ (void *)(j + from), c - from };
		v[k++] = (struct iovec){ (void *)cpus, cpus_len };
		from = c;
	}
	v[k++] = (struct iovec){ (void *)(j + from), len - from };
	int fd = oa_dir_open(dir, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	int r = writev_all(fd, v, k);
	oa_nc_close(fd);
	return r;
}

static _Atomic int json_busy;
static char json_buf[(1 << 18) + 4096] OA_LARGE_BSS;

/* One slot's stream into procdir/thread.T (appended to an earlier image's
 * stream of the same tid, as the agent does). */
OA_THREAD_TEXT static int write_slot(const char *procdir, struct oa_spool_slot *s, int live, const char *like,
				     size_t like_len, const char *cpus, size_t cpus_len)
{
	const uint8_t *obs = oa_spool_obs(s);
	size_t len = live ? live_length(obs) : s->obs_len;
	if (len > OA_SPOOL_OBS)
		return -EINVAL;
	if (len <= OVNI_HEADER_SIZE)
		return 0; /* nothing written: no stream */
	/* Past the process's `ulimit -f` (its thread, sigblock.h) nothing is
	 * written, not a stream.json cut short: the slot stays for ovnirun,
	 * or for the finisher. */
	if (oa_fsize_exceeds(len) || oa_fsize_exceeds(s->json_len ? s->json_len : like_len + 16))
		return -EFBIG;
	char dir[4400];
	if (oa_snprintf(dir, sizeof(dir), "%s/thread.%d", procdir, s->tid) < 0)
		return -ENAMETOOLONG;
	int made = oa_mkdir_p(dir);
	if (made < 0)
		return made;
	/* After an earlier stream of a recycled tid (or nothing: a new file).
	 * Its length before this write is noted in the slot first
	 * (spill_base, as the thread's own spill does, spool.h): whoever
	 * writes the slot again after a death half way (a BUSY or WATCHED
	 * slot: redo) cuts back to it, keeping that earlier stream and
	 * writing the slot's once.  A slot found noted so (its thread or an
	 * unpack died writing it) is cut back the same way. */
	int fd = oa_dir_open(dir, "stream.obs", O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return -errno;
	struct stat st;
	int r = fstat(fd, &st) != 0 ? -errno : 0;
	if (r) {
		oa_nc_close(fd);
		return r;
	}
	uint64_t base = (uint64_t)st.st_size;
	if (!r && atomic_load_explicit(&s->spilling, memory_order_acquire) && s->spill_base < base)
		base = s->spill_base;
	if (!r && base < OVNI_HEADER_SIZE)
		base = 0; /* nothing whole there: the stream from its header */
	if (!r && oa_fsize_exceeds(base + len))
		r = -EFBIG;
	if (!r && !atomic_load_explicit(&s->spilling, memory_order_acquire)) {
		s->spill_base = base;
		atomic_store_explicit(&s->spilling, 1, memory_order_release);
	}
	if (!r && base != (uint64_t)st.st_size && ftruncate(fd, (off_t)base) != 0)
		r = -errno;
	if (!r)
		r = base ? oa_write_all(fd, obs + OVNI_HEADER_SIZE, len - OVNI_HEADER_SIZE)
			 : oa_write_all(fd, obs, len);
	oa_nc_close(fd);
	/* After an earlier stream of the tid, its stream.json is replaced
	 * whole (a temporary file, renamed): a write that fails half way
	 * (a full file system) leaves the earlier one readable. */
	const char *name = base ? "stream.json.tmp" : "stream.json";
	if (!r) {
		if (s->json_len && s->json_len <= OA_SPOOL_JSON) {
			r = write_slot_json(dir, name, s, live, cpus, cpus_len);
		} else if (!like || atomic_exchange(&json_busy, 1)) {
			r = -EINVAL;
		} else {
			ssize_t n = json_with_tid(like, like_len, s->tid, json_buf, sizeof(json_buf));
			r = n < 0 ? -EINVAL : write_file(dir, name, O_WRONLY | O_CREAT | O_TRUNC, json_buf, (size_t)n);
			atomic_store(&json_busy, 0);
		}
	}
	if (base) {
		/* In the thread's directory, by a descriptor of it: no second
		 * path on the stack (the end of a process may run on a 16 KiB
		 * thread stack). */
		int dfd = oa_open_dir(dir);
		if (dfd < 0) {
			r = r ? r : dfd;
		} else {
			if (!r && renameat(dfd, name, dfd, "stream.json") != 0)
				r = -errno;
			if (r)
				unlinkat(dfd, name, 0);
			oa_nc_close(dfd);
		}
	}
	/* Not written (a full file system: ENOSPC): what this write left is
	 * taken back, the slot stays for a later try.  A new stream's files
	 * go (a stream.obs without its stream.json, or an empty stream.json,
	 * was a stream no tool could read); after an earlier stream of the
	 * tid, stream.obs is cut back to it. */
	if (r && base)
		oa_dir_truncate(dir, "stream.obs", (off_t)base);
	else if (r && base == 0) {
		const char *rel;
		long cut = oa_path_in(dir, "stream.json");
		if (cut >= 0) {
			int d = oa_path_at(dir, &rel);
			unlinkat(d, rel, 0);
			dir[cut] = '\0';
		}
		if ((cut = oa_path_in(dir, "stream.obs")) >= 0) {
			int d = oa_path_at(dir, &rel);
			unlinkat(d, rel, 0);
			dir[cut] = '\0';
		}
		if (made) {
			int d = oa_path_at(dir, &rel);
			unlinkat(d, rel, AT_REMOVEDIR);
		}
	}
	return r;
}

void oa_spool_hold_init(struct oa_spool_hold *h, struct oa_spool_hold_entry *e, unsigned cap)
{
	h->n = 0;
	h->cap = e ? cap : 0;
	h->tag = 0;
	h->all = 0;
	h->e = e;
	h->sp = NULL;
}

/* May tid have a slot of the process's spool other than its one in map
 * (the files' counts by tid bucket: a slot counts until it is freed)?
 * Without the spool at hand (one file of a finisher): yes. */
static int may_recur(const struct oa_spool_hold *h, uint8_t *map, int tid)
{
	if (!h->sp)
		return 1;
	unsigned b = (unsigned)tid & (OA_SPOOL_TIDS - 1), nf = atomic_load(&h->sp->nfiles);
	for (unsigned j = 0; j < nf && j < OA_SPOOL_FILES; j++) {
		uint8_t *m = h->sp->files[j].map;
		if (m && atomic_load_explicit(tids_of(m) + b, memory_order_relaxed) > (m == map ? 1u : 0u))
			return 1;
	}
	return 0;
}

uint64_t oa_spool_seq(const uint8_t *map)
{
	/* Acquire: the tid of every slot taken up to it (taken_as). */
	return atomic_load_explicit(&((const struct oa_spool_header *)map)->seq, memory_order_acquire);
}

/* Does tid (of pid's spool) wait: 0 no, 1 yes, 2 yes, for a slot the
 * watcher writes out. */
static int held(const struct oa_spool_hold *h, int pid, int tid)
{
	if (h->all)
		return 1;
	for (unsigned i = 0; i < h->n; i++)
		if (h->e[i].tid == tid && h->e[i].pid == pid)
			return 1 + h->e[i].watched;
	return 0;
}

/* Hold tid's later slots (watched: for a slot the watcher writes out; a
 * hold for any other reason wins). */
static void hold_tid(struct oa_spool_hold *h, int pid, int tid, int watched)
{
	if (h->all || tid <= 0)
		return;
	for (unsigned i = 0; i < h->n; i++)
		if (h->e[i].tid == tid && h->e[i].pid == pid) {
			if (!watched)
				h->e[i].watched = 0;
			return;
		}
	if (h->n >= h->cap) {
		h->all = (uint16_t)(h->tag + 1);
		return;
	}
	h->e[h->n++] = (struct oa_spool_hold_entry){ pid, tid, (uint16_t)(watched != 0), h->tag };
}

/* The holds made under tag dropped (its file is tried again). */
static void hold_drop(struct oa_spool_hold *h, uint16_t tag)
{
	unsigned k = 0;
	for (unsigned i = 0; i < h->n; i++)
		if (h->e[i].tag != tag)
			h->e[k++] = h->e[i];
	h->n = k;
	if (h->all == (uint16_t)(tag + 1))
		h->all = 0;
}

/* The agent's passes (oa_spool_unpack, self_unpack): their table and the
 * files' counts of slots taken at the pass's start, static (the end of a
 * process may run on a thread's 16 KiB stack); a second pass at once (a
 * thread's self_unpack and the end) has no table, and reads each file's
 * count when it gets there. */
static _Atomic int pass_busy;
static struct oa_spool_hold_entry pass_holds[OA_SPOOL_HOLD] OA_LARGE_BSS;
static uint64_t pass_upto[OA_SPOOL_FILES] OA_LARGE_BSS;

/* Start a pass of this process over its nf files: 1 if it has the static
 * table (give it back with pass_end), 0 if not (hd then holds nothing). */
static int pass_begin(struct oa_spool *sp, unsigned nf, struct oa_spool_hold *hd)
{
	int mine = !atomic_exchange(&pass_busy, 1);
	oa_spool_hold_init(hd, mine ? pass_holds : NULL, OA_SPOOL_HOLD);
	hd->sp = sp;
	for (unsigned j = 0; mine && j < nf; j++)
		pass_upto[j] = sp->files[j].map ? oa_spool_seq(sp->files[j].map) : 0;
	return mine;
}

static uint64_t pass_upto_of(int mine, unsigned j)
{
	return mine ? pass_upto[j] : UINT64_MAX;
}

static void pass_end(int mine)
{
	if (mine)
		atomic_store(&pass_busy, 0);
}

/* busy: slots the watcher is writing out (WATCHED), left alone unless
 * take_watched, and the later slots of their tids (hold). */
OA_THREAD_TEXT static int unpack_map(uint8_t *map, unsigned nslots, const char *procdir, int dead, const char *like,
				     size_t like_len, int *in_use, int *busy, int take_watched,
				     struct oa_spool_hold *hd, uint64_t upto)
{
	int done = 0, err = 0, pid = header_of(map)->pid;
	*in_use = 0;
	*busy = 0;
	if (nslots > OA_SPOOL_SLOTS)
		nslots = OA_SPOOL_SLOTS;
	unsigned n = nslots;
	uint64_t *order = order_of(map, nslots, &n);
	if (order == ORDER_BUSY) {
		*in_use = (int)count_in_use(map, nslots);
		return 0;
	}
	for (unsigned k = 0; k < n; k++) {
		/* Sealed (a seccomp filter about to go in, stream.h): no more
		 * files; what is left stays for a finisher.  A thread that
		 * started when the spool was full wrote ~1000 slots out while
		 * the seal waited for it (1 s, then the filter went in under
		 * it: SIGSYS). */
		if (__builtin_expect(atomic_load_explicit(&oa_stream_frozen, memory_order_relaxed), 0)) {
			*in_use = (int)count_in_use(map, nslots);
			break;
		}
		unsigned i = order ? (unsigned)(order[k] & 2047) : k;
		struct oa_spool_slot *s = slot_at(map, i);
		uint32_t st = atomic_load(&s->state);
	again:
		if (st == OA_SPOOL_FREE)
			continue;
		/* The watcher's, for a moment: written out (RELEASING) or being
		 * written (WATCHED).  Each one counts as busy, so an ending
		 * process waits for it rather than leaving its main stream to a
		 * finisher (the watcher once passed through BUSY here). */
		if ((st == OA_SPOOL_WATCHED || st == OA_SPOOL_RELEASING) && !take_watched) {
			(*in_use)++;
			(*busy)++;
			if (st == OA_SPOOL_WATCHED)
				if (may_recur(hd, map, s->tid))
					hold_tid(hd, pid, s->tid, 1);
			continue;
		}
		/* Written out by a watcher that died zeroing it: only freed. */
		if (st == OA_SPOOL_RELEASING) {
			if (!atomic_compare_exchange_strong(&s->state, &st, OA_SPOOL_BUSY))
				goto again;
			release_at(map, i, OA_SPOOL_OBS);
			continue;
		}
		/* A dead process's BUSY slot: it died unpacking it; a WATCHED
		 * one here: the watcher is gone. */
		if (!(st == OA_SPOOL_DONE ||
		      (dead && (st == OA_SPOOL_LIVE || st == OA_SPOOL_BUSY || st == OA_SPOOL_WATCHED)))) {
			(*in_use)++;
			/* Another unpack of the process writes it (BUSY). */
			if (st != OA_SPOOL_LIVE && may_recur(hd, map, s->tid))
				hold_tid(hd, pid, s->tid, 0);
			continue;
		}
		/* Taken after the pass began (see oa_spool_seq). */
		if (!dead && atomic_load_explicit(&s->seq, memory_order_relaxed) > upto) {
			(*in_use)++;
			continue;
		}
		/* An earlier stream of its tid is not out yet: after it. */
		int h = held(hd, pid, s->tid);
		if (h) {
			/* Waiting for the watcher, which writes it after (a DONE
			 * slot: it never writes a LIVE one). */
			(*in_use)++;
			*busy += h == 2 && st == OA_SPOOL_DONE;
			continue;
		}
		/* Lost to the watcher (DONE -> WATCHED) between the load and
		 * here: st is its state now, looked at again (counted as in use,
		 * not busy, it kept the file and the process left its main
		 * stream to a finisher). */
		if (st != OA_SPOOL_BUSY && !atomic_compare_exchange_strong(&s->state, &st, OA_SPOOL_BUSY))
			goto again;
		int redo = st == OA_SPOOL_BUSY || st == OA_SPOOL_WATCHED;
		int live = st == OA_SPOOL_LIVE || (redo && !s->obs_len);
		int r = write_slot(procdir, s, live, like, like_len, NULL, 0);
		if (r < 0) {
			err = r;
			/* Kept for a later try (repair). */
			atomic_store(&s->state, st);
			(*in_use)++;
			if (may_recur(hd, map, s->tid))
				hold_tid(hd, pid, s->tid, 0);
			continue;
		}
		done++;
		release_at(map, i, live ? OA_SPOOL_OBS : s->obs_len);
	}
	order_done(order);
	return done ? done : err;
}

/* unpack_map, then, while only slots the watcher is writing out (WATCHED)
 * keep the file, a moment for them (~25 us each on tmpfs, a few ms on a
 * disk), 50 ms at most.  Still WATCHED then (the watcher was descheduled),
 * they are the watcher's: it holds a mapping of the file and writes them
 * from it, so the caller removes the file as if they were done (and a
 * process ending finishes its own stream as usual). */
_Atomic unsigned oa_spool_waits;

OA_THREAD_TEXT static int unpack_waiting(uint8_t *map, unsigned nslots, const char *procdir, int dead, const char *like,
					 size_t like_len, int *in_use, int *busy, int take_watched,
					 struct oa_spool_hold *hd, uint64_t upto)
{
	/* Each try keeps the holds of the files before this one. */
	uint16_t tag = ++hd->tag;
	int r = unpack_map(map, nslots, procdir, dead, like, like_len, in_use, busy, take_watched, hd, upto);
	for (int tries = 0; *busy && *in_use == *busy && tries < 100; tries++) {
		atomic_fetch_add_explicit(&oa_spool_waits, 1, memory_order_relaxed);
		struct timespec ts = { 0, 500000 };
		nanosleep(&ts, NULL);
		hold_drop(hd, tag);
		int r2 = unpack_map(map, nslots, procdir, dead, like, like_len, in_use, busy, take_watched, hd, upto);
		r = r2 > 0 ? (r > 0 ? r + r2 : r2) : r;
	}
	return r;
}

OA_THREAD_TEXT int oa_spool_unpack(struct oa_spool *sp, int dead, const char *json_like, size_t json_like_len)
{
	int total = 0, err = 0;
	unsigned nf = atomic_load(&sp->nfiles), kept = 0;
	for (unsigned j = 0; j < nf; j++)
		if (sp->files[j].map)
			atomic_store(&header_of(sp->files[j].map)->closed, 1);
	struct oa_spool_hold hd;
	int mine = pass_begin(sp, nf, &hd);
	/* Every file, then, while only slots the watcher is writing out
	 * (WATCHED, and the later slots of their tids) keep a file, every
	 * file again (a moment for them, 50 ms at most), from a new table:
	 * a hold of a slot the watcher has written since is gone. */
	uint64_t keep = 0;
	for (int tries = 0;; tries++) {
		int wait = 0;
		keep = 0;
		if (tries) {
			oa_spool_hold_init(&hd, hd.e, hd.cap);
			hd.sp = sp;
		}
		for (unsigned j = 0; j < nf; j++) {
			struct oa_spool_file *f = &sp->files[j];
			if (!f->map)
				continue;
			int in_use, busy;
			int r = unpack_map(f->map, atomic_load(&f->ready), sp->procdir, dead, json_like, json_like_len,
					   &in_use, &busy, 0, &hd, pass_upto_of(mine, j));
			if (r > 0)
				total += r;
			else if (r < 0)
				err = r;
			if (in_use > busy)
				keep |= 1ull << j;
			else if (busy)
				wait = 1;
		}
		if (!wait || tries >= 100)
			break;
		atomic_fetch_add_explicit(&oa_spool_waits, 1, memory_order_relaxed);
		struct timespec ts = { 0, 500000 };
		nanosleep(&ts, NULL);
	}
	pass_end(mine);
	/* A file with only the watcher's slots left: the watcher holds a
	 * mapping of it and writes them from there. */
	for (unsigned j = 0; j < nf; j++) {
		struct oa_spool_file *f = &sp->files[j];
		if (!f->map)
			continue;
		if ((keep >> j) & 1) {
			kept++;
			continue;
		}
		char path[4200];
		file_path(sp, f->k, path, sizeof(path));
		munmap(f->map, file_len());
		f->map = NULL;
		oa_unlink_at(path);
	}
	if (!kept)
		atomic_store(&sp->nfiles, 0);
	else
		atomic_store(&sp->failed, 1); /* a thread still holds a slot: no more */
	return total ? total : err;
}

/* A process with no watcher, its last file full: the DONE slots of its
 * files written out and freed, file by file in the order they were made
 * (a recycled tid's streams in the order they ran, as oa_spool_unpack
 * writes them), the files kept.  On the thread that found the file full,
 * signals blocked: the work the process's end would do, done now.
 * Returns whether the last file has a slot free again. */
static int self_unpack(struct oa_spool *sp, unsigned nf)
{
	sigset_t old;
	oa_sigblock(&old);
	int xfsz = oa_xfsz_pending();
	int err = 0;
	struct oa_spool_hold hold;
	int mine = pass_begin(sp, nf, &hold);
	for (unsigned j = 0; j < nf && !err; j++) {
		struct oa_spool_file *f = &sp->files[j];
		int in_use, busy;
		if (f->map && unpack_map(f->map, atomic_load(&f->ready), sp->procdir, 0, NULL, 0, &in_use, &busy, 0,
					 &hold, pass_upto_of(mine, j)) < 0)
			err = 1;
	}
	pass_end(mine);
	if (err)
		oa_xfsz_forget(xfsz);
	oa_sigrestore(&old);
	struct oa_spool_header *hd = header_of(sp->files[nf - 1].map);
	for (unsigned w = 0; w < OA_SPOOL_SLOTS / 64; w++)
		if (atomic_load_explicit(&hd->freed[w], memory_order_relaxed))
			return 1;
	return 0;
}

/* Slot i of map, DONE for thread tid, written out (or waited for while
 * someone else writes it): 0 when it is out (or no longer tid's), -errno. */
static int settle_slot(const char *procdir, uint8_t *map, unsigned i, int tid)
{
	struct oa_spool_slot *s = slot_at(map, i);
	for (int tries = 0;; tries++) {
		uint32_t st = atomic_load(&s->state);
		if (st == OA_SPOOL_FREE || st == OA_SPOOL_LIVE || s->tid != tid)
			return 0;
		if (st == OA_SPOOL_DONE) {
			if (!atomic_compare_exchange_strong(&s->state, &st, OA_SPOOL_BUSY))
				continue;
			int r = write_slot(procdir, s, 0, NULL, 0, NULL, 0);
			if (r < 0) {
				atomic_store(&s->state, OA_SPOOL_DONE);
				return r;
			}
			release_at(map, i, s->obs_len);
			return 0;
		}
		/* WATCHED, RELEASING, BUSY: being written out by the watcher or
		 * another unpack of this process; a moment for it. */
		if (tries >= 100)
			return -EBUSY;
		atomic_fetch_add_explicit(&oa_spool_waits, 1, memory_order_relaxed);
		struct timespec ts = { 0, 500000 };
		nanosleep(&ts, NULL);
	}
}

int oa_spool_settle(struct oa_spool *sp, int tid, const struct oa_spool_slot *mine)
{
	int done = 0;
	unsigned nf = atomic_load(&sp->nfiles);
	unsigned b = (unsigned)tid & (OA_SPOOL_TIDS - 1);
	for (unsigned j = 0; j < nf; j++) {
		uint8_t *map = sp->files[j].map;
		if (!map)
			continue;
		struct oa_spool_header *hd = header_of(map);
		unsigned c = atomic_load_explicit(tids_of(map) + b, memory_order_acquire);
		int own = mine && (const uint8_t *)mine > map && (const uint8_t *)mine < map + file_len();
		if (c <= (unsigned)own)
			continue;
		/* This file may hold an earlier stream of tid: its slots handed
		 * out, those of tid in the order they were taken (usually one). */
		unsigned taken = atomic_load(&hd->taken);
		if (taken > OA_SPOOL_SLOTS)
			taken = OA_SPOOL_SLOTS;
		uint64_t last = 0;
		for (;;) {
			unsigned pick = OA_SPOOL_SLOTS;
			uint64_t best = UINT64_MAX;
			for (unsigned i = 0; i < taken; i++) {
				struct oa_spool_slot *s = slot_at(map, i);
				if (s == mine || s->tid != tid)
					continue;
				uint32_t st = atomic_load_explicit(&s->state, memory_order_acquire);
				if (st == OA_SPOOL_FREE || st == OA_SPOOL_LIVE)
					continue;
				uint64_t k = oa_spool_order_key(map, i);
				if (k > last && k < best)
					best = k, pick = i;
			}
			if (pick == OA_SPOOL_SLOTS)
				break;
			last = best;
			if (settle_slot(sp->procdir, map, pick, tid) < 0)
				return done; /* left: written after, as before */
			done++;
		}
	}
	return done;
}

void oa_spool_forget(struct oa_spool *sp)
{
	unsigned nf = atomic_load(&sp->nfiles);
	for (unsigned j = 0; j < nf; j++)
		if (sp->files[j].map)
			munmap(sp->files[j].map, file_len());
	memset(sp->files, 0, sizeof(sp->files[0]) * nf);
	atomic_store(&sp->nfiles, 0);
	atomic_store(&sp->hint, 0);
	atomic_store(&sp->failed, 0);
	atomic_store(&sp->making, 0);
}

int oa_spool_unpack_file(const char *procdir, const char *name, const char *json_like, size_t json_like_len,
			 int take_watched, struct oa_spool_hold *hold)
{
	char path[4400];
	if (oa_snprintf(path, sizeof(path), "%s/%s", procdir, name) < 0)
		return -ENAMETOOLONG;
	int fd = oa_open_at(path, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	struct stat st;
	struct oa_spool_header h;
	static const struct oa_spool_header none;
	void *m = MAP_FAILED;
	ssize_t hn = fstat(fd, &st) == 0 ? pread(fd, &h, sizeof(h), 0) : -1;
	if (hn == 0 || (hn == (ssize_t)sizeof(h) && !memcmp(&h, &none, sizeof(h)))) {
		/* Its process died making it (add_file_in: created, sized,
		 * then the header): no slot of it was ever handed out. */
		oa_nc_close(fd);
		oa_unlink_at(path);
		return 0;
	}
	if (hn == (ssize_t)sizeof(h) && !memcmp(h.magic, OA_SPOOL_MAGIC, 8) && h.slot_size == OA_SPOOL_SLOT &&
	    h.obs_cap == OA_SPOOL_OBS && h.json_cap == OA_SPOOL_JSON && h.nslots <= OA_SPOOL_SLOTS &&
	    (uint64_t)st.st_size >= OA_SPOOL_HEADER + (uint64_t)h.nslots * OA_SPOOL_SLOT)
		m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int e = errno;
	oa_nc_close(fd);
	if (m == MAP_FAILED)
		return -(e ? e : EINVAL);
	int in_use, busy;
	struct oa_spool_hold own;
	struct oa_spool_hold_entry few[8];
	if (!hold)
		oa_spool_hold_init(hold = &own, few, 8);
	/* Only the slots handed out: the others' blocks were never reserved,
	 * and on a full tmpfs even a read of one through the mapping is a
	 * SIGBUS (the finisher may be a traced program's parent). */
	unsigned taken = atomic_load(&header_of(m)->taken);
	int r = unpack_waiting(m, taken < h.nslots ? taken : h.nslots, procdir, 1, json_like, json_like_len, &in_use,
			       &busy, take_watched, hold, UINT64_MAX);
	munmap(m, (size_t)st.st_size);
	if (in_use == busy) /* nothing, or only what the watcher writes from its mapping */
		oa_unlink_at(path);
	return r;
}

int oa_spool_unpack_done(uint8_t *map, size_t len, const char *procdir, unsigned *left, int *closed,
			 struct oa_spool_hold *hold, uint64_t upto)
{
	struct oa_spool_header *h = header_of(map);
	*left = 0;
	*closed = 0;
	if (len < OA_SPOOL_HEADER || memcmp(h->magic, OA_SPOOL_MAGIC, 8) || h->slot_size != OA_SPOOL_SLOT ||
	    h->obs_cap != OA_SPOOL_OBS || h->json_cap != OA_SPOOL_JSON || h->nslots > OA_SPOOL_SLOTS ||
	    len < OA_SPOOL_HEADER + (size_t)h->nslots * OA_SPOOL_SLOT)
		return -EINVAL;
	struct oa_spool_hold own;
	struct oa_spool_hold_entry few[8];
	if (!hold)
		oa_spool_hold_init(hold = &own, few, 8);
	int pid = h->pid;
	/* Read before the slots: a slot is handed out before it is counted
	 * here, and only after the image closed the file can nothing more be. */
	*closed = (int)atomic_load(&h->closed);
	if (upto == UINT64_MAX)
		upto = oa_spool_seq(map);
	unsigned taken = atomic_load(&h->taken);
	if (taken > h->nslots)
		taken = h->nslots;
	/* Every slot handed out, from the first: a freed one is taken again. */
	unsigned n = taken;
	uint64_t *order = order_of(map, taken, &n);
	if (order == ORDER_BUSY) {
		*left = count_in_use(map, taken);
		return 0;
	}
	int done = 0;
	for (unsigned k = 0; k < n; k++) {
		unsigned i = order ? (unsigned)(order[k] & 2047) : k;
		struct oa_spool_slot *s = slot_at(map, i);
		uint32_t st = atomic_load(&s->state);
		if (st == OA_SPOOL_FREE || st == OA_SPOOL_RELEASING)
			continue;
		/* Being written by the process (or a repair), or an earlier
		 * stream of its tid is: left, with its tid's later slots.  Its
		 * thread runs, or it was taken after the pass began: left (a
		 * later stream of its tid comes after it, in the next pass). */
		if (st == OA_SPOOL_BUSY || st == OA_SPOOL_WATCHED || (st == OA_SPOOL_DONE && held(hold, pid, s->tid))) {
			hold_tid(hold, pid, s->tid, 0);
			(*left)++;
			continue;
		}
		if (st != OA_SPOOL_DONE || atomic_load_explicit(&s->seq, memory_order_relaxed) > upto) {
			(*left)++;
			continue;
		}
		if (!atomic_compare_exchange_strong(&s->state, &st, OA_SPOOL_WATCHED)) {
			hold_tid(hold, pid, s->tid, 0);
			(*left)++;
			continue;
		}
		int r = write_slot(procdir, s, 0, NULL, 0, NULL, 0);
		st = OA_SPOOL_WATCHED;
		/* Released only if nobody took it over meanwhile (repair takes a
		 * WATCHED slot over when no watcher is left); RELEASING, never
		 * BUSY, while it is zeroed: an agent ending its process waits
		 * for it (a BUSY slot meant "someone else is writing it" and the
		 * process left its main stream to a finisher). */
		if (!atomic_compare_exchange_strong(&s->state, &st, r == 0 ? OA_SPOOL_RELEASING : OA_SPOOL_DONE)) {
			hold_tid(hold, pid, s->tid, 0);
			continue;
		}
		if (r == 0) {
			release_at(map, i, s->obs_len);
			done++;
			continue;
		}
		order_done(order);
		return r; /* left DONE for the agent, with the rest of the file */
	}
	order_done(order);
	return done;
}

/* ---- The run's spool (spool.h) ---- */

_Static_assert(sizeof(struct oa_spool_header) <= OA_RUN_AT, "run spool: the spool header first");
_Static_assert(OA_RUN_AT + sizeof(struct oa_run_header) <= OA_SPOOL_TIDS_AT, "run spool header");
_Static_assert(OA_RUN_CPUS_SLOT0 >= OA_RUN_SLOTS, "run spool: the CPUs after the slots taken");

static struct oa_run_header *run_header(uint8_t *map)
{
	return (struct oa_run_header *)(map + OA_RUN_AT);
}

static const char *run_rel(struct oa_spool_slot *s)
{
	return oa_spool_json(s) + OA_SLOT_JSON;
}

/* The file at fd mapped, if it is a run's spool of our layout. */
OA_RUN_TEXT uint8_t *oa_run_map_fd(int fd)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || (size_t)st.st_size != file_len())
		return NULL;
	void *m = mmap(NULL, file_len(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	struct oa_spool_header *h = header_of(m);
	/* Touched first by a write that changes nothing: a write fault on a
	 * shared mapping maps its one page, where a read maps the 16 around
	 * it that are in memory (fault-around: the slots other processes
	 * wrote), each of them one more to unmap at exit (~4 us a process
	 * on tmpfs; the header is written at the slot's taking anyway). */
	atomic_fetch_or_explicit(&h->taken, 0, memory_order_relaxed);
	if (memcmp(h->magic, OA_SPOOL_MAGIC, 8) || memcmp(run_header(m)->magic, OA_RUN_MAGIC, 8) ||
	    h->slot_size != OA_SPOOL_SLOT || h->nslots != OA_SPOOL_SLOTS || h->json_cap != OA_SPOOL_JSON ||
	    h->obs_cap != OA_SPOOL_OBS) {
		munmap(m, file_len());
		return NULL;
	}
	return m;
}

OA_RUN_TEXT uint8_t *oa_run_attach(const char *path, int root_pid, const char *loom)
{
	if (!oa_fd_room())
		return NULL;
	int fd = oa_open_at(path, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	uint8_t *m = oa_run_map_fd(fd);
	oa_nc_close(fd);
	struct oa_run_header *h = m ? run_header(m) : NULL;
	if (m && (!atomic_load(&h->ready) || atomic_load(&h->gone) || atomic_load(&h->root_pid) != root_pid ||
		  oa_strcmp(h->loom, loom))) {
		munmap(m, file_len());
		m = NULL;
	}
	return m;
}

OA_RUN_TEXT struct oa_spool_slot *oa_run_take(uint8_t *map, int pid, const char *rel, uint8_t **obs)
{
	size_t rl = strlen(rel);
	if (rl >= OA_RUN_PATH || pid <= 0 || atomic_load(&run_header(map)->gone))
		return NULL;
	unsigned i0 = (unsigned)pid % OA_RUN_SLOTS;
	for (unsigned k = 0; k < OA_RUN_PROBE; k++) {
		unsigned i = (i0 + k) % OA_RUN_SLOTS;
		struct oa_spool_slot *s = slot_at(map, i);
		uint32_t expect = OA_SPOOL_FREE;
		/* One in use (its bit in the header's page) is left as it was.
		 * Else its blocks reserved first (the file is sparse), and its
		 * pages mapped by that, never by a touch: a touch of a page
		 * without a block on a full file system (the trace filled a
		 * tmpfs or a disk) is a SIGBUS, which killed every process that
		 * started then; a read maps the pages in memory around it too
		 * (the slots of the pids before: ~4 more to unmap at exit). */
		if ((atomic_load_explicit(&run_header(map)->used[i / 64], memory_order_relaxed) >> (i % 64)) & 1)
			continue;
		if (madvise(s, OA_SPOOL_SLOT, MADV_POPULATE_WRITE) != 0)
			return NULL;
		if (!atomic_compare_exchange_strong(&s->state, &expect, OA_SPOOL_LIVE))
			continue;
		memcpy(oa_spool_json(s) + OA_SLOT_JSON, rel, rl + 1);
		s->json_len = 0;
		s->obs_len = 0;
		atomic_fetch_or(&run_header(map)->used[i / 64], (uint64_t)1 << (i % 64));
		/* As taken_as(), here: its text is the threads'. */
		s->tid = pid;
		_Atomic uint8_t *c = tids_of(map) + ((unsigned)pid & (OA_SPOOL_TIDS - 1));
		uint8_t v = atomic_load_explicit(c, memory_order_relaxed);
		while (v != 255 && !atomic_compare_exchange_weak_explicit(c, &v, (uint8_t)(v + 1), memory_order_relaxed,
									  memory_order_relaxed))
			;
		s->idx = i;
		s->spill_base = 0;
		s->cpus_at = 0;
		atomic_store_explicit(&s->spilling, 0, memory_order_relaxed);
		atomic_store_explicit(&s->seq, atomic_fetch_add(&header_of(map)->seq, 1) + 1, memory_order_relaxed);
		*obs = oa_spool_obs(s);
		return s;
	}
	return NULL;
}

struct oa_spool_slot *oa_run_find(uint8_t *map, int pid)
{
	if (!oa_run_maybe(map, pid))
		return NULL;
	/* The first in the probe order: each slot looked at is a page (an
	 * earlier process of a recycled pid may hold one after it: rare). */
	unsigned i0 = (unsigned)pid % OA_RUN_SLOTS;
	for (unsigned k = 0; k < OA_RUN_PROBE; k++) {
		unsigned i = (i0 + k) % OA_RUN_SLOTS;
		/* Slots not in use are not touched (oa_run_take: maybe no
		 * block, a SIGBUS on a full file system). */
		if (!((atomic_load(&run_header(map)->used[i / 64]) >> (i % 64)) & 1))
			continue;
		struct oa_spool_slot *s = slot_at(map, i);
		if (atomic_load(&s->state) != OA_SPOOL_FREE && s->tid == pid)
			return s;
	}
	return NULL;
}

OA_RUN_TEXT void oa_run_done(uint8_t *map, struct oa_spool_slot *s)
{
	unsigned i = s->idx;
	atomic_thread_fence(memory_order_seq_cst); /* DONE before gone is read (oa_run_gone) */
	if (i < OA_SPOOL_SLOTS)
		atomic_fetch_or(&run_header(map)->done[i / 64], (uint64_t)1 << (i % 64));
}

OA_RUN_TEXT int oa_run_gone(uint8_t *map)
{
	return (int)atomic_load_explicit(&run_header(map)->gone, memory_order_seq_cst);
}

/* The loom's CPUs as the header has them (NULL: none). */
static const char *run_cpus(uint8_t *map, size_t *len)
{
	struct oa_run_header *h = run_header(map);
	*len = 0;
	if (atomic_load_explicit(&h->cpus, memory_order_acquire) != 2)
		return NULL;
	*len = h->cpus_len;
	if (!*len || *len > OA_RUN_CPUS_MAX)
		return NULL;
	return (const char *)map + OA_RUN_CPUS_AT;
}

OA_RUN_TEXT int oa_run_cpus_apart(uint8_t *map, const struct oa_meta *m)
{
	struct oa_run_header *h = run_header(map);
	uint64_t hash = oa_meta_cpus_hash(m);
	uint32_t st = atomic_load_explicit(&h->cpus, memory_order_acquire);
	if (st == 2)
		return atomic_load_explicit(&h->cpus_hash, memory_order_relaxed) == hash;
	/* The first: the text written through the mapping, its blocks
	 * reserved first (as a slot's, oa_run_take).  One that fails, or
	 * dies in between, leaves the state at 1: every process of the run
	 * keeps its CPUs in its own text, as before. */
	size_t want = ((size_t)m->ncpus * 40 + 64 + 4095) & ~(size_t)4095;
	if (st != 0 || m->ncpus <= 0 || want > OA_RUN_CPUS_MAX || !atomic_compare_exchange_strong(&h->cpus, &st, 1))
		return 0;
	char *text = (char *)map + OA_RUN_CPUS_AT;
	ssize_t n = madvise(text, want, MADV_POPULATE_WRITE) == 0 ? oa_meta_render_cpus(m, text, want) : -1;
	if (n <= 0)
		return 0;
	h->cpus_len = (uint32_t)n;
	atomic_store_explicit(&h->cpus_hash, hash, memory_order_relaxed);
	atomic_store_explicit(&h->cpus, 2, memory_order_release);
	return 1;
}

/* Slot s taken over (expect -> BUSY) and written out into procdir, or
 * into tracedir/<its directory> when procdir is NULL. */
static int run_write(const char *tracedir, const char *procdir, uint8_t *map, struct oa_spool_slot *s, uint32_t expect)
{
	uint32_t was = expect;
	if (!atomic_compare_exchange_strong(&s->state, &was, OA_SPOOL_BUSY))
		return 0;
	unsigned i = s->idx;
	if (i < OA_SPOOL_SLOTS)
		atomic_fetch_and(&run_header(map)->done[i / 64], ~((uint64_t)1 << (i % 64)));
	/* Its directory, under the trace's, never elsewhere. */
	char dir[4400];
	int r = 0;
	if (!procdir) {
		const char *rel = run_rel(s);
		size_t rl = 0;
		while (rl < OA_RUN_PATH && rel[rl])
			rl++;
		if (rl == OA_RUN_PATH || strncmp(rel, "loom.", 5) || strstr(rel, "..") || !strstr(rel, "/proc.") ||
		    oa_snprintf(dir, sizeof(dir), "%s/%s", tracedir, rel) < 0)
			r = -EINVAL;
		procdir = dir;
	}
	int live = expect != OA_SPOOL_DONE;
	size_t cl;
	const char *cpus = run_cpus(map, &cl);
	/* Its directory first (usually new): one mkdir less than finding it
	 * missing from the thread's; and no more than that one: a trace that
	 * was deleted meanwhile (a process that outlived its run, whose trace
	 * the user removed) is not made again. */
	if (!r) {
		const char *rel;
		int d = oa_path_at(procdir, &rel);
		if (mkdirat(d, rel, 0755) != 0 && errno != EEXIST)
			r = -errno;
		else
			r = write_slot(procdir, s, live, NULL, 0, cpus, cl);
	}
	if (r < 0) {
		atomic_store(&s->state, expect);
		if (!live && i < OA_SPOOL_SLOTS)
			atomic_fetch_or(&run_header(map)->done[i / 64], (uint64_t)1 << (i % 64));
		return r;
	}
	oa_run_release(map, s, live ? OA_SPOOL_OBS : s->obs_len);
	return 1;
}

void oa_run_release(uint8_t *map, struct oa_spool_slot *s, size_t used)
{
	unsigned i = s->idx;
	release_at(map, i, used);
	if (i < OA_SPOOL_SLOTS)
		atomic_fetch_and(&run_header(map)->used[i / 64], ~((uint64_t)1 << (i % 64)));
}

int oa_run_write(const char *tracedir, uint8_t *map, struct oa_spool_slot *s, uint32_t expect)
{
	return run_write(tracedir, NULL, map, s, expect);
}

int oa_run_write_in(const char *procdir, uint8_t *map, struct oa_spool_slot *s)
{
	int r = run_write(NULL, procdir, map, s, OA_SPOOL_DONE);
	/* The last process of the run (ovnirun gone): the file goes with it
	 * (TRACE/loom.L/proc.P -> TRACE/spool.run.oa). */
	struct oa_run_header *h = run_header(map);
	for (unsigned w = 0; w < OA_SPOOL_SLOTS / 64; w++)
		if (atomic_load(&h->used[w]))
			return r;
	char path[4400];
	if (oa_snprintf(path, sizeof(path), "%s", procdir) < 0)
		return r;
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(path, '/');
		if (!slash || slash == path)
			return r;
		*slash = '\0';
	}
	size_t n = strlen(path);
	if (n + sizeof("/" OA_RUN_SPOOL_NAME) <= sizeof(path)) {
		memcpy(path + n, "/" OA_RUN_SPOOL_NAME, sizeof("/" OA_RUN_SPOOL_NAME));
		oa_unlink_at(path);
	}
	return r;
}
