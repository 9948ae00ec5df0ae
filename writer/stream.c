/* stream.c: stream files.  Creates thread.<tid>/stream.{obs,json}, maps the
 * file in growing windows (the "flush" of the emit path), and closes it by
 * cutting the file at the last event and writing the final metadata.  Every
 * function that runs at close is async-signal-safe: it may run in a fatal
 * signal handler, possibly on a small alternate stack. No descriptor is kept
 * between calls (see stream.h). */
#include "stream.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/log.h"
#include "../common/sys.h"
#include "../common/slab.h"
#include "files.h"
#include "finish.h"
#include "sigblock.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

OA_TLS int oa_sigblock_depth;
OA_TLS int oa_sigblock_cancel;
OA_TLS rlim_t oa_fsize_limit;
OA_TLS int oa_fsize_known;

OA_START_TEXT static size_t page_size(void)
{
	static _Atomic size_t ps; /* several threads may fill it, with the same value */
	size_t v = atomic_load_explicit(&ps, memory_order_relaxed);
	if (!v) {
		v = (size_t)getauxval(AT_PAGESZ); /* sysconf's switch is a page of libc of its own */
		if (!v)
			v = (size_t)sysconf(_SC_PAGESIZE);
		atomic_store_explicit(&ps, v, memory_order_relaxed);
	}
	return v;
}

/* Most stream.json texts fit in one page: they are written with a single
 * write, which a kill cannot cut (the kernel checks for fatal signals
 * between pages), in place.  Replacing the file through a temporary and a
 * rename costs two inode operations, a journal transaction each on a disk
 * file system (~0.1 ms each here), for every thread. */
#define META_INPLACE_MAX 4096

/* Write stream.json in dir so that a reader or a crash never sees a partial
 * file: in place when the text fits in one page (padded with blanks to the
 * length of the text it replaces, so nothing of the old one is left after
 * it); else through a temporary file and a rename. */
static int write_meta_in(char *dir, struct oa_stream *s, int finished, int fresh, int *keep);

static int write_meta(char *dir, struct oa_stream *s, int finished)
{
	return write_meta_in(dir, s, finished, 0, NULL);
}

/* A stream.json larger than a page (rare: many CPUs, many labels) through
 * a temporary and a rename, with the directory's descriptor: a process
 * killed half way leaves none, which its finisher passes over, never one
 * cut short (a fork child's end with 256 CPUs left one that said
 * "finished": 1 and that not even `repair` could read).  keep: as
 * write_meta_in's. */
__attribute__((noinline)) static int write_json_renamed(char *dir, const struct oa_meta *m, int tid, int finished,
							const struct oa_label_list *own, int *keep)
{
	int dfd = oa_open_dir(dir);
	if (dfd < 0)
		return dfd;
	int fd = oa_nc_openat(dfd, "stream.json.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int r = fd < 0 ? -errno : oa_meta_write(m, fd, tid, finished, own);
	if (r == 0 && renameat(dfd, "stream.json.tmp", dfd, "stream.json") != 0)
		r = -errno;
	if (r && fd >= 0)
		unlinkat(dfd, "stream.json.tmp", 0);
	if (!r && keep)
		*keep = fd;
	else if (fd >= 0)
		oa_nc_close(fd);
	oa_nc_close(dfd);
	return r;
}

/* The loom's CPUs in its stream.json, or not: a thread other than the
 * first of its process, whose stream has them (oa_meta.main_cpus). */
static inline int meta_flags(const struct oa_stream *s)
{
	return s->tid != s->meta->pid && s->meta->main_cpus ? OA_META_NO_CPUS : 0;
}

/* fresh: dir was made just now, stream.json is new (no size to ask).
 * s->json_size: the size this stream last wrote it with (0: not known),
 * which spares asking again.  keep: where the descriptor of the file
 * written is left open (when it returns 0), for finish_files. */
OA_START_TEXT static int write_meta_in(char *dir, struct oa_stream *s, int finished, int fresh, int *keep)
{
	if (!s->meta)
		return 0;
	char buf[META_INPLACE_MAX];
	ssize_t n = oa_meta_render(s->meta, buf, sizeof(buf), s->tid, finished | meta_flags(s), &s->labels);
	uint32_t known = fresh ? 0 : s->json_size;
	s->json_size = 0;
	if (n > 0) {
		int fd = oa_dir_open(dir, "stream.json", O_WRONLY | O_CREAT, 0644);
		if (fd < 0)
			return -errno;
		struct stat st = { 0 };
		int r = 0;
		if (known)
			st.st_size = known;
		else if (!fresh && fstat(fd, &st) != 0)
			r = -errno;
		if (r == 0 && st.st_size <= (off_t)sizeof(buf)) {
			size_t len = (size_t)n;
			if ((size_t)st.st_size > len) {
				memset(buf + len - 1, ' ', (size_t)st.st_size - len);
				len = (size_t)st.st_size;
				buf[len - 1] = '\n';
			}
			ssize_t w;
			/* Past `ulimit -f` it would be written in part, a
			 * stream.json that is no JSON: the one there stays
			 * ("finished": 0), for whoever finishes the stream. */
			if (oa_fsize_exceeds(len)) {
				oa_nc_close(fd);
				return -EFBIG;
			}
			int intr = 0;
			do
				w = oa_nc_pwrite(fd, buf, len, 0);
			while (w < 0 && oa_eintr_again(&intr));
			r = w == (ssize_t)len ? 0 : w < 0 ? -errno : -EIO;
			if (!r)
				s->json_size = (uint32_t)len;
			if (!r && keep)
				*keep = fd;
			else
				oa_nc_close(fd);
			return r;
		}
		oa_nc_close(fd);
		if (r)
			return r;
	}
	return write_json_renamed(dir, s->meta, s->tid, finished | meta_flags(s), &s->labels, keep);
}

static int advance(struct oa_stream *s, int fd, uint64_t cur, size_t need, size_t ps);

/* The bytes of stream.obs (size bytes at fd) up to the end of its last
 * whole event, those events replayed into r (or NULL).  Out of the usual
 * path (noinline): only for a stream that ends in zeros. */
__attribute__((noinline)) static uint64_t whole_events(int fd, uint64_t size, struct oa_replay *r)
{
	uint8_t buf[2048];
	uint64_t off = OVNI_HEADER_SIZE;
	while (off + OVNI_EV_HEADER_SIZE <= size) {
		ssize_t n = pread(fd, buf, sizeof(buf), (off_t)off);
		if (n < (ssize_t)OVNI_EV_HEADER_SIZE || !buf[1])
			break; /* the zeros an unfinished window ends with */
		uint64_t len = OVNI_EV_HEADER_SIZE, pl;
		const uint8_t *payload = buf + OVNI_EV_HEADER_SIZE;
		if (ovni_flags_is_jumbo(buf[0])) {
			uint32_t j;
			if (n < (ssize_t)OVNI_EV_HEADER_SIZE + 4)
				break;
			memcpy(&j, buf + OVNI_EV_HEADER_SIZE, 4);
			pl = j;
			payload += 4;
			len += 4 + pl;
		} else {
			pl = ovni_flags_payload_size(buf[0]);
			len += pl;
		}
		if (off + len > size)
			break;
		if (r) {
			uint64_t clock;
			memcpy(&clock, buf + 4, 8);
			/* A payload past what was read (a large jumbo event): its
			 * name is enough for what it leaves open. */
			int whole = len <= (uint64_t)n;
			oa_replay_event(r, (const char *)buf + 1, clock, whole ? payload : NULL,
					whole ? (uint32_t)pl : 0);
		}
		off += len;
	}
	return off;
}

/* stream.obs (size bytes at fd) of an earlier image whose end nobody cut:
 * its window whole, zeros after its events (its caller saw an 8-byte tail
 * of zeros; a finished stream ends with an event's clock or payload).  Cut back
 * to its last whole event, and what its thread left open closed, its OHe
 * last (as a seen exec ends it): the new image's OHx follows, not a hole no
 * reader gets past.  Returns the new size.  Out of line, its buffers in
 * its own frame (a thread on a 16 KiB stack opens files), and the replay
 * (~72 KiB) mapped for the moment. */
__attribute__((noinline)) static uint64_t cut_unended(int fd, uint64_t size)
{
	struct oa_replay *rp = mmap(NULL, sizeof(*rp), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t good = whole_events(fd, size, rp == MAP_FAILED ? NULL : rp);
	uint8_t closers[1024];
	size_t cl = 0;
	if (good < size) {
		if (rp != MAP_FAILED)
			oa_replay_closers(rp, closers, sizeof(closers), &cl);
		if (ftruncate(fd, (off_t)good) == 0) {
			size = good;
			if (cl && pwrite(fd, closers, cl, (off_t)good) == (ssize_t)cl)
				size = good + cl;
		}
	}
	if (rp != MAP_FAILED)
		munmap(rp, sizeof(*rp));
	return size;
}

/* Create or continue stream.obs in s->path and map its first window. */
/* fresh: the directory was made just now (nothing to continue). */
static int open_files(struct oa_stream *s, int append, int fresh)
{
	int r;
	if (fresh)
		append = 0;
	int flags = O_RDWR | O_CREAT | (append ? 0 : O_TRUNC);
	int fd = oa_dir_open(s->path, "stream.obs", flags, 0644);
	if (fd < 0)
		return -errno;
	uint64_t start = 0;
	if (append) {
		struct stat st;
		char hdr[OVNI_HEADER_SIZE];
		int ok = fstat(fd, &st) == 0;
		if (ok && st.st_size >= (off_t)OVNI_HEADER_SIZE &&
		    pread(fd, hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr) && memcmp(hdr, OVNI_STREAM_MAGIC, 4) == 0)
			start = (uint64_t)st.st_size;
		else if ((!ok || st.st_size != 0) && ftruncate(fd, 0) != 0)
			goto fail_errno;
		/* An earlier image whose end nobody cut (an exec the agent did
		 * not see: another preloaded library that calls libc's execve
		 * through its own handle, as libtorsocks does) left its window
		 * whole, zeros after its events (cut_unended). */
		uint64_t tail = 1;
		if (start > OVNI_HEADER_SIZE + 8 && start <= (64u << 20) &&
		    pread(fd, &tail, sizeof(tail), (off_t)(start - 8)) == (ssize_t)sizeof(tail) && !tail)
			start = cut_unended(fd, start);
	}
	if (start == 0) {
		uint8_t hdr[OVNI_HEADER_SIZE];
		uint32_t version = OVNI_STREAM_VERSION;
		memcpy(hdr, OVNI_STREAM_MAGIC, 4);
		memcpy(hdr + 4, &version, 4);
		if ((r = oa_write_all(fd, hdr, sizeof(hdr))) != 0)
			goto fail;
		start = OVNI_HEADER_SIZE;
	}
	if ((r = write_meta_in(s->path, s, 0, fresh, NULL)) != 0)
		goto fail;
	/* Map the first window at the end of what is already there. */
	s->map_off = start;
	s->committed_size = start;
	if ((r = advance(s, fd, start, 0, page_size())) != 0)
		goto fail;
	oa_nc_close(fd);
	return 0;
fail_errno:
	r = -errno;
fail:
	oa_nc_close(fd);
	return r;
}

/* Path buffers of streams whose owner gave none: two paths a piece, in
 * chunks of 16 (zero pages until a path is written). */
static struct oa_slab path_slab;

OA_START_TEXT void oa_stream_give_paths(struct oa_stream *s, char *mem)
{
	s->path = mem;
	s->final_path = mem + OA_STREAM_PATH;
}

OA_START_TEXT int oa_stream_make_paths(struct oa_stream *s)
{
	if (!s->path) {
		char *m = oa_slab_take(&path_slab, 2 * OA_STREAM_PATH, 64, 16);
		if (!m)
			return -ENOMEM;
		oa_stream_give_paths(s, m);
	}
	const char *base = s->path_base;
	if (!base)
		return 0;
	if ((size_t)oa_snprintf(s->path, OA_STREAM_PATH, "%s/thread.%d", base, s->tid) >= OA_STREAM_PATH ||
	    (s->final_base && (size_t)oa_snprintf(s->final_path, OA_STREAM_PATH, "%s/thread.%d", s->final_base,
						  s->tid) >= OA_STREAM_PATH))
		return -ENAMETOOLONG;
	s->path_base = s->final_base = NULL;
	return 0;
}

/* The stream's directory for a message: its path, or what it will be. */
static const char *where(const struct oa_stream *s)
{
	return s->path_base ? s->path_base : s->path ? s->path : "?";
}

/* The stream's window is slot (its obs area at obs), of the run's spool
 * mapped at run or of its process's (NULL).  Inlined: each caller keeps
 * its text section. */
static inline __attribute__((always_inline)) void slot_window(struct oa_stream *s, struct oa_spool_slot *slot,
							      uint8_t *obs, uint8_t *run)
{
	s->slot = slot;
	s->run = run;
	s->map = obs;
	s->map_len = OA_SPOOL_OBS;
	s->map_off = 0;
	s->pos = obs + OVNI_HEADER_SIZE;
	s->soft_end = obs + OA_SPOOL_OBS - OA_STREAM_RESERVE;
	s->committed_size = OVNI_HEADER_SIZE;
	s->live = 1;
	atomic_store(&s->closed, 0);
}

/* The first window in a spool slot: no system call. */
__attribute__((noinline)) OA_THREAD_TEXT static int open_slot(struct oa_stream *s, struct oa_spool *sp)
{
	uint8_t *obs;
	struct oa_spool_slot *slot = oa_spool_take(sp, s->tid, &obs);
	if (!slot)
		return -1;
	uint32_t version = OVNI_STREAM_VERSION;
	memcpy(obs, OVNI_STREAM_MAGIC, 4);
	memcpy(obs + 4, &version, 4);
	/* No stream.json yet: the end renders it into the slot (DONE).  A
	 * slot left LIVE by a process that died is written out by a finisher
	 * with its process's main stream.json, its tid put in
	 * (writer/spool.c, write_slot): what a render here would have said
	 * but for the labels the thread owned at its start, which a thread
	 * just started does not have.  Rendering it here cost every thread
	 * start ~1.7 KB of JSON. */
	slot->json_len = 0;
	slot_window(s, slot, obs, NULL);
	return 0;
}

/* s's stream.json into buf for its slot: without the loom's CPUs where
 * the run's spool keeps them apart (*at: where they go back in; 0 when
 * not apart). */
OA_RUN_TEXT static ssize_t render_slot_text(struct oa_stream *s, char *buf, size_t cap, int finished, uint32_t *at)
{
	*at = 0;
	return s->cpus_apart ? oa_meta_render_apart(s->meta, buf, cap, s->tid, finished, &s->labels, at)
			     : oa_meta_render(s->meta, buf, cap, s->tid, finished | meta_flags(s), &s->labels);
}

/* The same in a slot of the run's spool (spool.h), its stream.json
 * rendered there now: a process killed in it keeps its metadata. */
__attribute__((noinline)) OA_RUN_TEXT static int open_run_slot(struct oa_stream *s, const struct oa_stream_cfg *cfg)
{
	uint8_t *obs;
	struct oa_spool_slot *slot;
	if (cfg->spool || !cfg->meta || s->has_final || !(slot = oa_run_take(cfg->run, s->tid, cfg->run_rel, &obs)))
		return -1;
	uint32_t at;
	s->cpus_apart = !meta_flags(s) && oa_run_cpus_apart(cfg->run, s->meta);
	ssize_t n = render_slot_text(s, oa_spool_json(slot), OA_SLOT_JSON, 0, &at);
	if (n <= 0) {
		oa_run_release(cfg->run, slot, 0);
		return -1;
	}
	slot->cpus_at = at;
	uint32_t version = OVNI_STREAM_VERSION;
	memcpy(obs, OVNI_STREAM_MAGIC, 4);
	memcpy(obs + 4, &version, 4);
	slot->json_len = (uint32_t)n;
	slot_window(s, slot, obs, cfg->run);
	return 0;
}

/* A slot's stream into files of its own (it outgrew the slot, or its
 * stream.json does not fit there): the directory, stream.obs with what the
 * slot holds (after an earlier image's stream of this tid, if any), and
 * stream.json.  Signals are blocked by the caller.  Returns a descriptor of
 * stream.obs (O_RDWR) and its size in *size, or -errno. */
static int spill_slot(struct oa_stream *s, uint64_t len, int finished, uint64_t *size)
{
	const uint8_t *obs = s->map;
	/* Under a `ulimit -f` its files could not hold it (nor grow a window):
	 * it stays in its slot, which ends it (its process, or ovnirun, writes
	 * it out whole); not a stream.obs cut at the limit and no stream.json. */
	if (oa_fsize_exceeds(page_size()) || oa_fsize_exceeds(len))
		return -EFBIG;
	int fresh = oa_stream_make_paths(s);
	if (fresh < 0)
		return fresh;
	/* An earlier stream of its tid still in the spool goes first. */
	if (s->spool)
		oa_spool_settle(s->spool, s->tid, s->slot);
	fresh = oa_mkdir_p(s->path);
	if (fresh < 0)
		return fresh;
	int fd = oa_dir_open(s->path, "stream.obs", O_RDWR | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return -errno;
	struct stat st;
	int r = fstat(fd, &st) != 0 ? -errno : 0;
	/* What stream.obs held before (an earlier stream of a recycled tid)
	 * is noted in the slot while its copy is made (spool.h): a try that
	 * failed is cut off here, one its process died in by whoever writes
	 * the slot out. */
	struct oa_spool_slot *slot = s->slot;
	if (!r && atomic_load_explicit(&slot->spilling, memory_order_relaxed)) {
		if (ftruncate(fd, (off_t)slot->spill_base) != 0 || fstat(fd, &st) != 0)
			r = -errno;
	} else if (!r) {
		slot->spill_base = (uint64_t)st.st_size;
		atomic_store_explicit(&slot->spilling, 1, memory_order_release);
	}
	if (!r && st.st_size >= (off_t)OVNI_HEADER_SIZE)
		r = oa_write_all(fd, obs + OVNI_HEADER_SIZE, len - OVNI_HEADER_SIZE);
	else if (!r && (st.st_size == 0 || ftruncate(fd, 0) == 0))
		r = oa_write_all(fd, obs, len);
	else if (!r)
		r = -errno;
	if (!r && fstat(fd, &st) != 0)
		r = -errno;
	if (!r)
		r = write_meta_in(s->path, s, finished, fresh, NULL);
	if (r) {
		oa_nc_close(fd);
		return r;
	}
	*size = (uint64_t)st.st_size;
	return fd;
}

OA_START_TEXT void oa_emit_bracket(struct oa_stream *s, uint64_t t0, uint64_t t1)
{
	unsigned q = oa_emit_enter(s);
	uint64_t f0 = 0, f1 = 0;
	int flushed;
	if (oa_emit_ready(s) && oa_reserve(s, 2 * OVNI_EV_HEADER_SIZE, &f0, &f1, &flushed) == 0) {
		uint8_t *p = s->pos;
		uint64_t last = s->last_clock;
		if (flushed) {
			oa_put_header(p, 0, "OF[", f0);
			oa_put_header(p + OVNI_EV_HEADER_SIZE, 0, "OF]", f1);
			p += 2 * OVNI_EV_HEADER_SIZE;
			last = f1;
		}
		if (t0 < last)
			t0 = last;
		if (t1 < t0)
			t1 = t0;
		oa_put_header(p, 0, "OF[", t0);
		oa_put_header(p + OVNI_EV_HEADER_SIZE, 0, "OF]", t1);
		s->pos = p + 2 * OVNI_EV_HEADER_SIZE;
		s->last_clock = t1;
	}
	oa_emit_leave(s, q);
}

OA_START_TEXT int oa_stream_write_once(char *dir, const struct oa_meta *m, int tid, const struct oa_label_list *own,
				       const uint8_t *obs, size_t len)
{
	sigset_t old;
	oa_sigblock(&old);
	int xfsz = oa_xfsz_pending();
	/* Past `ulimit -f` nothing at all, not files cut at the limit. */
	if (oa_fsize_exceeds(len) || oa_fsize_exceeds(META_INPLACE_MAX)) {
		oa_sigrestore(&old);
		return -EFBIG;
	}
	int r = oa_mkdir_p(dir);
	if (r == 0)
		r = -EEXIST; /* an earlier stream of this tid: the caller goes on the usual way */
	if (r < 0) {
		oa_sigrestore(&old);
		return r;
	}
	int fd = oa_dir_open(dir, "stream.obs", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	r = fd < 0 ? -errno : oa_write_all(fd, obs, len);
	if (fd >= 0)
		oa_nc_close(fd);
	if (!r) {
		/* One write when it fits a page (a reader never sees part of
		 * it), as write_meta_in does. */
		char buf[META_INPLACE_MAX];
		ssize_t n = oa_meta_render(m, buf, sizeof(buf), tid, 1, own);
		if (n > 0) {
			fd = oa_dir_open(dir, "stream.json", O_WRONLY | O_CREAT | O_TRUNC, 0644);
			r = fd < 0 ? -errno : oa_write_all(fd, buf, (size_t)n);
			if (fd >= 0)
				oa_nc_close(fd);
		} else {
			r = write_json_renamed(dir, m, tid, 1, own, NULL);
		}
	}
	if (r)
		oa_xfsz_forget(xfsz);
	oa_sigrestore(&old);
	return r;
}

/* The same into a slot of the run's spool, DONE at once for ovnirun to
 * write out: no directory or file made by the process (a shell's subshell
 * that runs a builtin and exits made two directories and two files).
 * Signals are blocked by the caller. */
__attribute__((noinline)) OA_RUN_TEXT int oa_run_write_once(uint8_t *map, const char *procdir, const char *rel,
							    const struct oa_meta *m, int tid,
							    const struct oa_label_list *own, const uint8_t *obs,
							    size_t len)
{
	uint8_t *o;
	struct oa_spool_slot *slot;
	if (len > OA_SPOOL_OBS || !(slot = oa_run_take(map, tid, rel, &o)))
		return -1;
	uint32_t at = 0;
	ssize_t n = oa_run_cpus_apart(map, m)
			    ? oa_meta_render_apart(m, oa_spool_json(slot), OA_SLOT_JSON, tid, 1, own, &at)
			    : oa_meta_render(m, oa_spool_json(slot), OA_SLOT_JSON, tid, 1, own);
	if (n <= 0) {
		oa_run_release(map, slot, 0);
		return -1;
	}
	memcpy(o, obs, len);
	slot->cpus_at = at;
	slot->json_len = (uint32_t)n;
	slot->obs_len = len;
	atomic_store_explicit(&slot->state, OA_SPOOL_DONE, memory_order_release);
	oa_run_done(map, slot);
	if (!oa_run_gone(map))
		return 0;
	/* ovnirun is gone: written out by us (close_run_slot). */
	int xfsz = oa_xfsz_pending();
	int r = oa_run_write_in(procdir, map, slot);
	if (r < 0)
		oa_xfsz_forget(xfsz);
	return 0;
}

OA_START_TEXT int oa_stream_open(struct oa_stream *s, const struct oa_stream_cfg *cfg)
{
	int r;

	s->map = NULL;
	s->pos = s->soft_end = NULL;
	s->map_len = 0;
	s->map_off = 0;
	s->failed = 0;
	s->nflush = 0;
	s->paused = 0;
	s->held = 0;
	s->nclosers = 0;
	s->live = 0;
	s->meta_written = 0;
	s->cpus_apart = 0;
	s->json_size = 0;
	s->commit_fd1 = 0;
	s->pend_clock = 0;
	/* A fork child's slot may come from a thread of the parent that was
	 * inside a flush at the fork: not this stream's. */
	s->remapping = 0;
	s->open_gen++;
	s->tid = cfg->tid;
	s->meta = cfg->meta;
	if (!cfg->append) {
		atomic_store(&s->labels.head, NULL);
		atomic_store(&s->labels.attrs, NULL);
		atomic_store(&s->labels.ovni_attrs, NULL);
	}
	s->max_window = cfg->max_window ? cfg->max_window : OA_STREAM_DEFAULT_WINDOW;
	if (s->max_window < OA_STREAM_MIN_WINDOW)
		s->max_window = OA_STREAM_MIN_WINDOW;
	s->window = OA_STREAM_MIN_WINDOW;
	/* emit_seq keeps counting across reuses of the slot (a closer may hold it). */
	atomic_store(&s->closed, 1);
	s->path_base = s->final_base = NULL;
	if (cfg->dir) {
		if (strlen(cfg->dir) >= OA_STREAM_PATH || (cfg->final_dir && strlen(cfg->final_dir) >= OA_STREAM_PATH))
			return -ENAMETOOLONG;
		if ((r = oa_stream_make_paths(s)) != 0)
			return r;
		/* The caller may pass the stream's own buffers (a reopen):
		 * memmove.  final_path is written only when there is one (its
		 * page). */
		memmove(s->path, cfg->dir, strlen(cfg->dir) + 1);
		if (cfg->final_dir)
			memmove(s->final_path, cfg->final_dir, strlen(cfg->final_dir) + 1);
		s->has_final = cfg->final_dir != NULL;
	} else if (cfg->base) {
		s->path_base = cfg->base;
		s->final_base = cfg->final_base;
		s->has_final = cfg->final_base != NULL;
	} else {
		return -EINVAL;
	}

	s->slot = NULL;
	s->spool = cfg->spool ? cfg->spool : cfg->settle;
	if (cfg->run && open_run_slot(s, cfg) == 0)
		return 0;
	if (cfg->spool && cfg->meta && !s->has_final) {
		if (open_slot(s, cfg->spool) == 0)
			return 0;
		if (!oa_fd_room()) /* the caller counted on a slot */
			return -EMFILE;
	}
	if ((r = oa_stream_make_paths(s)) != 0)
		return r;

	sigset_t old;
	oa_sigblock(&old);
	int xfsz = oa_xfsz_pending();
	/* Under a `ulimit -f` smaller than a page the stream's first window
	 * cannot be had: no directory or file is made (an empty stream.json
	 * left there is a stream no tool reads). */
	if (oa_fsize_exceeds(page_size())) {
		oa_sigrestore(&old);
		return -EFBIG;
	}
	/* Files of its own while the spool may hold an earlier stream of its
	 * tid (no slot was free): that one goes first. */
	if (s->spool && !s->has_final)
		oa_spool_settle(s->spool, s->tid, NULL);
	int fresh = 0;
	if ((s->has_final && (r = oa_mkdir_p(s->final_path)) < 0) || (r = fresh = oa_mkdir_p(s->path)) < 0) {
		oa_xfsz_forget(xfsz);
		oa_sigrestore(&old);
		return r;
	}
	/* Staged: the final directory may hold an earlier image's stream. */
	if (s->has_final)
		fresh = 0;
	r = open_files(s, cfg->append, fresh);
	if (r)
		oa_xfsz_forget(xfsz);
	oa_sigrestore(&old);
	if (r != 0)
		return r;
	s->nflush = 0;
	s->live = 1;
	atomic_store(&s->closed, 0);
	return 0;
}

_Atomic int oa_stream_frozen;

_Atomic int oa_sys_work OA_FORK_DATA; /* with what a fork child writes: not a page of .bss more */

static int advance_window(struct oa_stream *s, size_t need, uint64_t *t0, uint64_t *t1);

int oa_stream_advance(struct oa_stream *s, size_t need, uint64_t *t0, uint64_t *t1)
{
	*t0 = oa_clock_now();
	if (!oa_sys_work_enter()) {
		errno = EPERM;
		return -EPERM;
	}
	int r = advance_window(s, need, t0, t1);
	oa_sys_work_leave();
	return r;
}

static int advance_window(struct oa_stream *s, size_t need, uint64_t *t0, uint64_t *t1)
{
	/* Near the descriptor limit the agent steps aside: the stream ends
	 * here rather than take a slot the program may be about to need. */
	if (!oa_fd_room()) {
		errno = EMFILE;
		return -EMFILE;
	}
	size_t ps = page_size();
	uint64_t cur = s->map ? oa_stream_size(s) : s->map_off;
	sigset_t old;
	oa_sigblock(&old);
	/* A slot's stream has its paths before it is remapping: the end of a
	 * crash reaches stream.obs through them. */
	int r = s->slot ? oa_stream_make_paths(s) : 0;
	if (r != 0) {
		oa_sigrestore(&old);
		errno = -r;
		return r;
	}
	s->committed_size = cur;
	int xfsz = oa_xfsz_pending();
	atomic_signal_fence(memory_order_seq_cst);
	s->remapping = 1;
	atomic_signal_fence(memory_order_seq_cst);
	int fd;
	struct oa_spool_slot *slot = s->slot;
	if (slot) {
		/* Outgrew its slot: files of its own from now on. */
		uint64_t size = 0;
		uint8_t *obs = s->map;
		fd = spill_slot(s, cur, 0, &size);
		if (fd >= 0) {
			s->map = NULL;
			s->map_len = 0;
			s->committed_size = size;
			r = advance(s, fd, size, need, ps);
			if (r == 0) {
				s->slot = NULL;
				if (s->run)
					oa_run_release(s->run, slot, cur);
				else
					oa_spool_release(slot, cur);
				s->run = NULL;
			} else {
				s->map = obs; /* the slot is still the stream's */
				s->map_len = OA_SPOOL_OBS;
				s->committed_size = cur;
			}
		} else {
			r = fd;
		}
	} else {
		fd = oa_dir_open(s->path, "stream.obs", O_RDWR, 0);
		r = fd < 0 ? -errno : advance(s, fd, cur, need, ps);
	}
	if (fd >= 0)
		oa_nc_close(fd);
	atomic_signal_fence(memory_order_seq_cst);
	s->remapping = 0;
	oa_xfsz_forget(xfsz); /* also after a smaller window that fitted */
	oa_sigrestore(&old);
	if (r != 0) {
		errno = -r;
		return r;
	}
	s->nflush++;
	*t1 = oa_clock_now();
	s->flush_ns += *t1 - *t0;
	return 0;
}

OA_START_TEXT static int advance(struct oa_stream *s, int fd, uint64_t cur, size_t need, size_t ps)
{
	uint64_t off = cur & ~(uint64_t)(ps - 1);
	if (s->map && s->window < s->max_window)
		s->window *= 2;
	/* The first window is one page: most streams of short processes and
	 * threads never fill it, and cutting a file whose reserved blocks go
	 * beyond the one written frees blocks (a journal transaction on a disk
	 * file system, ~0.1 ms).  The next window is twice the minimum. */
	size_t len = !s->map && s->nflush == 0 ? ps : s->window;
	size_t min = (size_t)(cur - off) + need + OA_STREAM_RESERVE;
	min = (min + ps - 1) & ~(ps - 1);
	if (len < min)
		len = min;

	/* The blocks must exist before the program writes through the mapping:
	 * a write into a hole of a full file system would raise SIGBUS in the
	 * traced program.  Extend the file, then take every page fault now with
	 * MADV_POPULATE_WRITE, which reserves the blocks and reports ENOSPC as an
	 * error.  Kernels without it (< 5.14) get fallocate() instead. */
	uint64_t fsize = off + len;
	int first = s->nflush == 0 && len <= OA_STREAM_MIN_WINDOW;
	if (first) {
		/* Small first window, which may never fill: reserve its blocks
		 * (this also extends the file) and let it fault in lazily, as
		 * prefaulting costs a TLB shootdown per thread. */
		if (oa_fallocate(fd, (off_t)off, (off_t)len) != 0 &&
		    (errno != EOPNOTSUPP || ftruncate(fd, (off_t)fsize) != 0))
			return -errno;
	} else if (ftruncate(fd, (off_t)fsize) != 0) {
		/* Past `ulimit -f` (EFBIG): the smallest window that fits, to
		 * get as close to the limit as the events allow. */
		if (errno != EFBIG || len == min || ftruncate(fd, (off_t)(off + min)) != 0)
			return -errno;
		len = min;
		fsize = off + len;
	}
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
	if (m == MAP_FAILED)
		return -errno;
	if (!first && madvise(m, len, MADV_POPULATE_WRITE) != 0) {
		int e = errno;
		int r = e == EINVAL ? oa_fallocate(fd, (off_t)off, (off_t)len) : -1;
		if (r != 0 && e == EINVAL && (errno == EOPNOTSUPP || errno == ENOSYS))
			r = posix_fallocate(fd, (off_t)off, (off_t)len) ? -1 : 0;
		if (r != 0) {
			munmap(m, len);
			return -(e == EINVAL ? errno : ENOSPC);
		}
	}
	void *old = s->map;
	size_t old_len = s->map_len;
	s->map = m;
	s->map_len = len;
	s->map_off = off;
	s->pos = (uint8_t *)m + (cur - off);
	s->soft_end = (uint8_t *)m + len - OA_STREAM_RESERVE;
	if (old)
		munmap(old, old_len);
	return 0;
}

/* at_end: from oa_stream_end (the stream is closed, it must not grow:
 * written only where it fits before the reserve, which the end needs). */
static void write_pending(struct oa_stream *s, int at_end)
{
	struct oa_stamp at = { s->pend_clock, s->pend_tsc, s->pend_tsc0, s->pend_ns0 };
	s->pend_clock = 0;
	if (!s->map || s->remapping || (!at_end && atomic_load_explicit(&s->closed, memory_order_relaxed)))
		return;
	uint64_t clock = oa_clock_of_stamp(at);
	if (clock < s->last_clock)
		clock = s->last_clock;
	unsigned n = s->pend_n < 2 ? s->pend_n : 2;
	int resume = s->pend_resume && s->paused;
	size_t size = (resume ? OVNI_EV_HEADER_SIZE : 0) + n * (OVNI_EV_HEADER_SIZE + 12);
	uint64_t t0 = 0, t1 = 0;
	int flushed;
	if (!size)
		return;
	if (at_end) {
		if (s->pos + size > s->soft_end)
			return; /* the end resumes the thread itself */
		flushed = 0;
	} else if (oa_reserve(s, size, &t0, &t1, &flushed) != 0) {
		return;
	}
	uint8_t *p = s->pos;
	if (resume) {
		oa_put_header(p, 0, "OHr", clock);
		p += OVNI_EV_HEADER_SIZE;
		s->paused = 0;
	}
	for (unsigned i = 0; i < n; i++) {
		memcpy(p + OVNI_EV_HEADER_SIZE, &s->pend_value[i], 8);
		memcpy(p + OVNI_EV_HEADER_SIZE + 8, &s->pend_type[i], 4);
		oa_put_header(p, ovni_flags_for_payload(12), "OM]", clock);
		p += OVNI_EV_HEADER_SIZE + 12;
	}
	oa_commit(s, p, clock, flushed, t0, t1);
}

OA_THREAD_TEXT uint64_t oa_emit_wait_begin(struct oa_stream *s, unsigned n, const int32_t *type, const int64_t *value,
					   int pause)
{
	uint64_t used = 0, t0 = 0, t1 = 0;
	int flushed;
	if (n > 2)
		n = 2;
	unsigned q = oa_emit_enter(s);
	uint64_t clock = oa_clock_now(); /* inside the bracket, as oa_emit's */
	if (!oa_emit_ready(s))
		goto out;
	if (clock < s->last_clock)
		clock = s->last_clock;
	size_t size = n * (OVNI_EV_HEADER_SIZE + 12) + (pause ? OVNI_EV_HEADER_SIZE : 0);
	if (!size || oa_reserve(s, size, &t0, &t1, &flushed) != 0)
		goto out;
	uint8_t *p = s->pos;
	for (unsigned i = 0; i < n; i++) {
		memcpy(p + OVNI_EV_HEADER_SIZE, &value[i], 8);
		memcpy(p + OVNI_EV_HEADER_SIZE + 8, &type[i], 4);
		oa_put_header(p, ovni_flags_for_payload(12), "OM[", clock);
		p += OVNI_EV_HEADER_SIZE + 12;
	}
	if (pause) {
		oa_put_header(p, 0, "OHp", clock);
		p += OVNI_EV_HEADER_SIZE;
		s->paused = 1;
	}
	used = oa_commit(s, p, clock, flushed, t0, t1);
out:
	oa_emit_leave(s, q);
	return used;
}

void oa_stream_write_pending(struct oa_stream *s)
{
	write_pending(s, 0);
}

OA_START_TEXT uint64_t oa_emit_state(struct oa_stream *s, const char *mcv, int paused)
{
	return oa_emit_state_at(s, mcv, paused, 0);
}

OA_THREAD_TEXT uint64_t oa_emit_state_at(struct oa_stream *s, const char *mcv, int paused, uint64_t clock)
{
	unsigned q = oa_emit_enter(s);
	uint64_t used = oa_emit_core(s, mcv, clock ? clock : oa_clock_now(), NULL, 0);
	if (used)
		s->paused = paused; /* in the same bracket as the event */
	oa_emit_leave(s, q);
	return used;
}

uint64_t oa_emit_jumbo(struct oa_stream *s, const char *mcv, const void *data, uint32_t n)
{
	return oa_emit_jumbo_at(s, mcv, 0, data, n);
}

static uint64_t emit_jumbo(struct oa_stream *s, const char *mcv, uint64_t clock, const void *data, uint32_t n, int raw)
{
	uint64_t used = 0, t0 = 0, t1 = 0, last;
	int flushed;
	unsigned q = oa_emit_enter(s);
	if ((uint64_t)n + OVNI_EV_HEADER_SIZE + 4 >= OVNI_JUMBO_MAX || !oa_emit_ready(s))
		goto out;
	last = s->last_clock; /* after a reopen or a wait's end, which write events */
	if (!clock)
		clock = oa_clock_now();
	if (!raw && clock < last)
		clock = last;
	size_t size = OVNI_EV_HEADER_SIZE + 4 + n;
	if (oa_reserve(s, size, &t0, &t1, &flushed) != 0)
		goto out;
	uint8_t *p = s->pos;
	memcpy(p + OVNI_EV_HEADER_SIZE, &n, 4);
	memcpy(p + OVNI_EV_HEADER_SIZE + 4, data, n);
	oa_put_header(p, OVNI_JUMBO_FLAGS, mcv, clock);
	used = oa_commit(s, p + size, clock, flushed, t0, t1);
	if (raw && s->last_clock < last)
		s->last_clock = last;
out:
	oa_emit_leave(s, q);
	return used;
}

uint64_t oa_emit_jumbo_at(struct oa_stream *s, const char *mcv, uint64_t clock, const void *data, uint32_t n)
{
	return emit_jumbo(s, mcv, clock, data, n, 0);
}

uint64_t oa_emit_jumbo_raw_at(struct oa_stream *s, const char *mcv, uint64_t clock, const void *data, uint32_t n)
{
	return emit_jumbo(s, mcv, clock, data, n, 1);
}

/* The staging directory's proc.P and loom.L above a staged stream that was
 * moved out: removed when empty (the last thread of the process to end
 * does it; a thread that starts later makes them again), so that a run
 * staged with OVNI_TMPDIR leaves nothing there.  The path is cut in place
 * and restored. */
static void remove_stage_parents(char *path)
{
	char *cut[2] = { NULL, NULL };
	for (int i = 0; i < 2; i++) {
		char *slash = strrchr(path, '/');
		if (!slash || slash == path)
			break;
		*slash = '\0';
		cut[i] = slash;
		const char *name = strrchr(path, '/');
		name = name ? name + 1 : path;
		if (strncmp(name, i ? "loom." : "proc.", 5) != 0)
			break;
		const char *rel;
		int d = oa_path_at(path, &rel);
		if (unlinkat(d, rel, AT_REMOVEDIR) != 0)
			break;
	}
	for (int i = 0; i < 2; i++)
		if (cut[i])
			*cut[i] = '/';
}

/* Cut stream.obs at len, write stream.json (finished), move staged files.
 * Signals are blocked by the caller. */
OA_START_TEXT static int finish_files(struct oa_stream *s, uint64_t len)
{
	int r = oa_dir_truncate(s->path, "stream.obs", (off_t)len);
	if (s->commit_fd1) {
		/* The final stream.json says "finished": 0 (oa_stream_end): 1 now
		 * that stream.obs is whole. */
		int fd = s->commit_fd1 - 1;
		s->commit_fd1 = 0;
		ssize_t w = r ? 1 : oa_nc_pwrite(fd, "1", 1, (off_t)OA_META_FINISHED_AT);
		if (w != 1)
			r = w < 0 ? -errno : -EIO;
		oa_nc_close(fd);
	}
	int m = s->meta_written ? 0 : write_meta(s->path, s, 1);
	if (!r)
		r = m;
	if (s->has_final) {
		int a = oa_move_file(s->path, s->final_path, "stream.obs");
		int b = oa_move_file(s->path, s->final_path, "stream.json");
		if (!r)
			r = a ? a : b;
		const char *rel;
		int d = oa_path_at(s->path, &rel);
		unlinkat(d, rel, AT_REMOVEDIR);
		remove_stage_parents(s->path);
	}
	return r;
}

/* A stream's stream.json rendered into its slot in place: a thread
 * spool's, which has no text until its end (open_slot; no buffer on the
 * stack either: a frame of kilobytes above the render made it touch a new
 * page of each new thread's stack, a fault each). */
OA_RUN_TEXT static ssize_t render_in_place(struct oa_stream *s, int finished)
{
	struct oa_spool_slot *slot = s->slot;
	uint32_t at;
	slot->json_len = 0;
	atomic_signal_fence(memory_order_seq_cst);
	ssize_t n = render_slot_text(s, oa_spool_json(slot), OA_SLOT_JSON, finished, &at);
	slot->cpus_at = at;
	atomic_signal_fence(memory_order_seq_cst);
	slot->json_len = n > 0 ? (uint32_t)n : 0;
	return n;
}

/* A slot of the run's spool has had a text since its start
 * (open_run_slot): the new one is rendered apart and copied over it whole,
 * so that a process killed while it renders, or while it then writes its
 * stream out to files of its own because the text does not fit, leaves
 * the one it had for whoever writes the slot out (a LIVE slot's is written
 * with "finished": 0) instead of none, which left the slot in the spool
 * and the trace unfinished.  Only the copy itself (a few hundred
 * nanoseconds) still shows a dying process no text.  A text that does not
 * fit leaves the slot's as it was.  Returns the length, or <= 0 when it
 * does not fit. */
__attribute__((noinline)) OA_RUN_TEXT static ssize_t render_in_run_slot(struct oa_stream *s, int finished)
{
	/* Not on an alternate signal stack (a crash handler's, maybe the
	 * program's own of 8 KiB, below a signal frame of up to ~3 KiB): no
	 * buffer of kilobytes there.  In place: a kill in the render then
	 * leaves no text, but nobody kills a crashing process in those
	 * microseconds. */
	stack_t ss;
	if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK))
		return render_in_place(s, finished);
	struct oa_spool_slot *slot = s->slot;
	char buf[OA_SLOT_JSON];
	uint32_t at;
	ssize_t n = render_slot_text(s, buf, sizeof(buf), finished, &at);
	if (n <= 0)
		return n;
	slot->json_len = 0;
	atomic_signal_fence(memory_order_seq_cst);
	memcpy(oa_spool_json(slot), buf, (size_t)n);
	slot->cpus_at = at;
	atomic_signal_fence(memory_order_seq_cst);
	slot->json_len = (uint32_t)n;
	return n;
}

__attribute__((noinline)) OA_RUN_TEXT static ssize_t render_in_slot(struct oa_stream *s, int finished)
{
	return s->run ? render_in_run_slot(s, finished) : render_in_place(s, finished);
}

int oa_stream_sync_meta(struct oa_stream *s)
{
	/* A slot's stream.json is written when it ends; one of the run's
	 * spool, which a finisher takes as it is when the process dies in it,
	 * is rendered there again now (memory only: a process about to be
	 * sealed makes no system call). */
	if (s->live && !s->meta_written && s->slot && s->run)
		return render_in_slot(s, 0) > 0 ? 0 : -ENOSPC;
	if (!s->live || s->meta_written || s->slot)
		return 0;
	sigset_t old;
	oa_sigblock(&old);
	int r = write_meta(s->path, s, 0);
	oa_sigrestore(&old);
	return r;
}

/* A slot of the run's spool DONE, for ovnirun; gone, it writes it out no
 * more: we do (whichever of us sees the other's store takes the slot). */
__attribute__((noinline)) OA_RUN_TEXT static int close_run_slot(struct oa_stream *s, struct oa_spool_slot *slot)
{
	oa_run_done(s->run, slot);
	if (!oa_run_gone(s->run))
		return 0;
	sigset_t old;
	oa_sigblock(&old);
	int xfsz = oa_xfsz_pending();
	int r = oa_run_write_in(s->path_base, s->run, slot);
	if (r < 0)
		oa_xfsz_forget(xfsz);
	oa_sigrestore(&old);
	return r < 0 ? r : 0;
}

/* Close a stream whose window is a spool slot: its stream.json into the
 * slot, which is then DONE (the spool is unpacked later); or, when it does
 * not fit there, files of its own now. */
__attribute__((noinline)) OA_RUN_TEXT static int close_slot(struct oa_stream *s)
{
	struct oa_spool_slot *slot = s->slot;
	uint64_t len = oa_stream_size(s);
	ssize_t n = s->meta_written ? (ssize_t)slot->json_len : render_in_slot(s, 1);
	int r = 0;
	if (n > 0) {
		slot->obs_len = len;
		atomic_store_explicit(&slot->state, OA_SPOOL_DONE, memory_order_release);
		if (s->run)
			r = close_run_slot(s, slot);
	} else {
		sigset_t old;
		oa_sigblock(&old);
		int xfsz = oa_xfsz_pending();
		uint64_t size;
		int fd = spill_slot(s, len, 1, &size);
		if (fd >= 0)
			oa_nc_close(fd);
		r = fd < 0 ? fd : 0;
		if (r)
			oa_xfsz_forget(xfsz);
		oa_sigrestore(&old);
		if (s->run)
			oa_run_release(s->run, slot, len);
		else
			oa_spool_release(slot, len);
	}
	s->slot = NULL;
	s->run = NULL;
	s->map = s->pos = s->soft_end = NULL;
	s->live = 0;
	return r;
}

OA_START_TEXT int oa_stream_close(struct oa_stream *s)
{
	if (!s->live)
		return -EBADF;
	if (s->slot)
		return close_slot(s);
	sigset_t old;
	oa_sigblock(&old);
	uint64_t len = oa_stream_size(s);
	if (s->map)
		munmap(s->map, s->map_len);
	s->map = s->pos = s->soft_end = NULL;
	s->live = 0;
	int xfsz = oa_xfsz_pending();
	int r = finish_files(s, len);
	if (r)
		oa_xfsz_forget(xfsz);
	oa_sigrestore(&old);
	return r;
}

void (*oa_stream_reopened)(struct oa_stream *s);

int oa_stream_reopen(struct oa_stream *s)
{
	int expect = 1;
	if (!atomic_compare_exchange_strong(&s->reopen, &expect, 0))
		return -1;
	struct oa_closer closers[OA_STREAM_MAX_CLOSERS];
	unsigned reopen_n = s->nclosed_at_end;
	memcpy(closers, s->closers, sizeof(closers));
	/* A staged stream was moved to its final place at the end: it goes on
	 * there. */
	struct oa_stream_cfg cfg = { .dir = s->path_base   ? NULL
					    : s->has_final ? s->final_path
							   : s->path,
				     .base = s->path_base,
				     .final_dir = NULL,
				     .max_window = s->max_window,
				     .tid = s->tid,
				     .append = 1,
				     .meta = s->meta };
	int r = oa_stream_open(s, &cfg);
	if (r != 0)
		return r;
	uint8_t p[16];
	int32_t cpu = -1, creator = -1;
	uint64_t tag = 0, clock = oa_clock_now();
	memcpy(p, &cpu, 4);
	memcpy(p + 4, &creator, 4);
	memcpy(p + 8, &tag, 8);
	memcpy(s->pos + OVNI_EV_HEADER_SIZE, p, 16);
	oa_put_header(s->pos, ovni_flags_for_payload(16), "OHx", clock);
	s->pos += OVNI_EV_HEADER_SIZE + 16;
	/* The states the end closed are open again for the owner (the first
	 * window always has room for them). */
	for (unsigned i = 0; i < reopen_n; i++) {
		const struct oa_closer *c = &closers[i];
		int has_arg = (c->open & OA_CLOSER_ARG) != 0;
		char mcv[4], close[4];
		oa_mcv_unpack(c->open, mcv);
		oa_mcv_unpack(c->close, close);
		if (has_arg)
			memcpy(s->pos + OVNI_EV_HEADER_SIZE, &c->arg, 4);
		oa_put_header(s->pos, has_arg ? ovni_flags_for_payload(4) : 0, mcv, clock);
		s->pos += OVNI_EV_HEADER_SIZE + (has_arg ? 4 : 0);
		oa_stream_opened(s, mcv, close, has_arg, c->arg);
	}
	s->last_clock = clock;
	if (oa_stream_reopened)
		oa_stream_reopened(s);
	return 0;
}

void oa_stream_fail(struct oa_stream *s)
{
	static _Atomic int said;
	int e = errno;
	s->failed = 1;
	atomic_store(&s->closed, 1);
	/* The trace's root is no longer the run's here (a file system the
	 * program mounted over it): said once, by oa_files_root_ok. */
	int moved = e == EXDEV || (e == ENOENT && oa_files_root_ok && !oa_files_root_ok());
	if (!atomic_load(&oa_stream_frozen) && !moved && !atomic_exchange(&said, 1))
		oa_log("cannot extend the stream of thread %d in %s (error %d): its trace ends here", s->tid, where(s),
		       e);
}

/* The closings of the states still open (oa_stream_track), innermost
 * first, at p; returns the bytes written (the reserve holds them all). */
OA_START_TEXT static size_t put_closers(struct oa_stream *s, uint8_t *p, uint64_t clock)
{
	unsigned n = s->nclosers;
	if (n > OA_STREAM_MAX_CLOSERS)
		n = OA_STREAM_MAX_CLOSERS; /* deeper ones were never remembered */
	size_t len = 0;
	while (n--) {
		const struct oa_closer *c = &s->closers[n];
		int has_arg = (c->open & OA_CLOSER_ARG) != 0;
		char mcv[4];
		oa_mcv_unpack(c->close, mcv);
		if (has_arg)
			memcpy(p + len + OVNI_EV_HEADER_SIZE, &c->arg, 4);
		oa_put_header(p + len, has_arg ? ovni_flags_for_payload(4) : 0, mcv, clock);
		len += OVNI_EV_HEADER_SIZE + (has_arg ? 4 : 0);
	}
	s->nclosed_at_end = s->nclosers > OA_STREAM_MAX_CLOSERS ? OA_STREAM_MAX_CLOSERS : s->nclosers;
	s->nclosers = 0;
	return len;
}

OA_START_TEXT int oa_stream_end(struct oa_stream *s)
{
	if (!s->live)
		return -EBADF;
	if (s->pend_clock)
		write_pending(s, 1); /* not inside a flush: it returns */
	uint64_t clock = oa_clock_now();
	if (clock < s->last_clock)
		clock = s->last_clock;
	if (s->remapping) {
		/* Interrupted inside a flush (only a synchronous fault gets here:
		 * the flush blocks the other signals): write the OHe through a
		 * descriptor of our own after the last whole event. */
		uint8_t ev[2 * OVNI_EV_HEADER_SIZE + OA_STREAM_MAX_CLOSERS * (OVNI_EV_HEADER_SIZE + 4)];
		size_t n = 0;
		if (s->paused) {
			oa_put_header(ev, 0, "OHr", clock);
			n += OVNI_EV_HEADER_SIZE;
		}
		n += put_closers(s, ev + n, clock);
		oa_put_header(ev + n, 0, "OHe", clock);
		n += OVNI_EV_HEADER_SIZE;
		sigset_t old;
		oa_sigblock(&old);
		int xfsz = oa_xfsz_pending();
		int r = -EIO;
		int fd = oa_dir_open(s->path, "stream.obs", O_WRONLY, 0);
		if (fd >= 0) {
			r = oa_nc_pwrite(fd, ev, n, (off_t)s->committed_size) == (ssize_t)n ? 0 : -EIO;
			oa_nc_close(fd);
		}
		s->live = 0;
		int f = finish_files(s, s->committed_size + n);
		if (r || f)
			oa_xfsz_forget(xfsz);
		oa_sigrestore(&old);
		return r ? r : f;
	}
	if (!s->map)
		return -EBADF;
	/* The reserve after soft_end always holds these two events. A paused
	 * thread is resumed first: OHe needs a running thread. */
	if (s->paused) {
		oa_put_header(s->pos, 0, "OHr", clock);
		s->pos += OVNI_EV_HEADER_SIZE;
		s->paused = 0;
	}
	if (s->meta && s->pos + 2 * OVNI_EV_HEADER_SIZE <= s->soft_end) {
		/* The final stream.json, the costliest part of an end, is
		 * written before the OHe inside a flush (OF[ OF]), so that the
		 * agent's own work shows as such instead of as the thread's
		 * time or its joiner's wait (a spooled stream renders it into
		 * its slot). */
		oa_put_header(s->pos, 0, "OF[", clock);
		s->pos += OVNI_EV_HEADER_SIZE;
		if (s->slot) {
			s->meta_written = render_in_slot(s, 1) > 0;
		} else {
			sigset_t old;
			oa_sigblock(&old);
			int xfsz = oa_xfsz_pending();
			/* "finished" is set once stream.obs is cut to its length
			 * (finish_files): a kill in between must not leave a
			 * stream that says finished with zeros after its events. */
			int fd = -1;
			s->meta_written = write_meta_in(s->path, s, OA_META_PENDING, 0, &fd) == 0;
			if (fd >= 0)
				s->commit_fd1 = fd + 1;
			if (!s->meta_written)
				oa_xfsz_forget(xfsz);
			oa_sigrestore(&old);
		}
		uint64_t c1 = oa_clock_now();
		if (c1 > clock)
			clock = c1;
		oa_put_header(s->pos, 0, "OF]", clock);
		s->pos += OVNI_EV_HEADER_SIZE;
	}
	s->pos += put_closers(s, s->pos, clock);
	oa_put_header(s->pos, 0, "OHe", clock);
	s->pos += OVNI_EV_HEADER_SIZE;
	s->last_clock = clock;
	return oa_stream_close(s);
}

OA_START_TEXT void oa_stream_drop(struct oa_stream *s)
{
	atomic_store(&s->closed, 1);
	if (s->commit_fd1) /* a fork child of a process ending this stream */
		oa_nc_close(s->commit_fd1 - 1);
	s->commit_fd1 = 0;
	s->pend_clock = 0;
	s->remapping = 0;
	if (s->map && !s->slot)
		munmap(s->map, s->map_len);
	s->slot = NULL; /* a fork child: the slot is the parent's */
	s->map = s->pos = s->soft_end = NULL;
	s->live = 0;
}

int oa_stream_unslot(struct oa_stream *s)
{
	if (!s->live || !s->slot || !s->run)
		return 0;
	uint64_t t0, t1;
	return oa_stream_advance(s, 0, &t0, &t1);
}
