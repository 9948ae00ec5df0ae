/* finish.c: see finish.h.  Async-signal-safe throughout. */
#include "finish.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/fdroom.h"
#include "../common/sys.h"
#include "../common/log.h"
#include "meta.h"
#include "ovni_fmt.h"
#include "sigblock.h"
#include "stream.h"

static void mark_used(struct oa_replay *r, int32_t type, int stack)
{
	for (int i = 0; i < r->nmtypes; i++)
		if (r->mtypes[i] == type) {
			r->mstack[i] |= (char)stack;
			return;
		}
	if (r->nmtypes < 64) {
		r->mtypes[r->nmtypes] = type;
		r->mstack[r->nmtypes++] = (char)stack;
	}
}

static int32_t get_i32(const uint8_t *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

static int64_t get_i64(const uint8_t *p)
{
	int64_t v;
	memcpy(&v, p, 8);
	return v;
}

void oa_replay_event(struct oa_replay *r, const char *m, uint64_t clock, const uint8_t *payload, uint32_t size)
{
	r->last = clock;
	if (m[0] == 'P')
		r->models |= OA_REPLAY_OPENMP;
	else if (m[0] == 'M')
		r->models |= OA_REPLAY_MPI;
	if (m[0] == 'O') {
		if (m[1] == 'H') {
			switch (m[2]) {
			case 'x': r->state = 1; break;
			case 'e': r->state = 5; break;
			case 'p': r->state = 2; break;
			case 'r': r->state = 1; break;
			case 'c': r->state = 3; break;
			case 'w': r->state = 4; break;
			}
		} else if (m[1] == 'F') {
			r->flushing = m[2] == '[';
		} else if (m[1] == 'M' && size == 12 && payload) {
			mark_used(r, get_i32(payload + 8), m[2] != '=');
			if (m[2] == '[' && r->nmarks < 4096) {
				r->marks[r->nmarks][0] = get_i64(payload);
				r->marks[r->nmarks++][1] = get_i32(payload + 8);
			} else if (m[2] == ']' && r->nmarks) {
				r->nmarks--;
			}
		}
		return;
	}
	if (m[0] == 'M') {
		char v = m[2];
		if (ovni_pair_enters(v) && r->nmpi < 64)
			r->mpi[r->nmpi++] = (uint16_t)((unsigned char)m[1] << 8 | (unsigned char)v);
		else if (ovni_pair_leaves(v) && r->nmpi)
			r->nmpi--;
		return;
	}
	if (m[0] != 'P')
		return;
	if ((m[1] == 'P' || m[1] == 'Q') && size >= 4 && payload) {
		uint32_t v = (uint32_t)get_i32(payload) | (m[1] == 'P' ? 0x80000000u : 0);
		if (m[2] == 'x' && r->nlabels < 1024)
			r->labels[r->nlabels++] = v;
		else if (m[2] == 'e' && r->nlabels)
			r->nlabels--;
		return;
	}
	for (size_t i = 0; i < OVNI_OMP_NPAIRS; i++) {
		if (ovni_omp_pairs[i][0] != m[1])
			continue;
		if (m[2] == ovni_omp_pairs[i][1] && r->nsub < 512)
			r->sub[r->nsub++] = (uint16_t)((unsigned char)m[1] << 8 | (unsigned char)ovni_omp_pairs[i][1]);
		else if (m[2] == ovni_omp_pairs[i][2] && r->nsub)
			r->nsub--;
	}
}

OA_START_TEXT int oa_put_event(uint8_t *buf, size_t cap, size_t *len, const char *mcv, uint64_t clock,
			       const void *payload, unsigned n)
{
	if (*len + OVNI_EV_HEADER_SIZE + n > cap)
		return -1;
	uint8_t *p = buf + *len;
	if (n)
		memcpy(p + OVNI_EV_HEADER_SIZE, payload, n);
	oa_put_header(p, ovni_flags_for_payload(n), mcv, clock);
	*len += OVNI_EV_HEADER_SIZE + n;
	return 0;
}

int oa_replay_closers(const struct oa_replay *r, uint8_t *buf, size_t cap, size_t *len)
{
	uint64_t c = r->last;
	int n = 0;
#define PUT(mcv, p, size) (n += oa_put_event(buf, cap, len, mcv, c, p, size) == 0)
	if (r->state == 0 || r->state == 5)
		goto marks;
	if (r->state == 2 || r->state == 4)
		PUT("OHr", NULL, 0); /* openmp events need a running thread */
	for (int i = r->nsub - 1; i >= 0; i--) {
		char cat = (char)(r->sub[i] >> 8), open = (char)(r->sub[i] & 0xff), mcv[3] = { 'P', cat, 0 };
		for (size_t k = 0; k < OVNI_OMP_NPAIRS; k++)
			if (ovni_omp_pairs[k][0] == cat && ovni_omp_pairs[k][1] == open)
				mcv[2] = ovni_omp_pairs[k][2];
		PUT(mcv, NULL, 0);
	}
	for (int i = r->nlabels - 1; i >= 0; i--) {
		uint32_t id = r->labels[i] & 0x7fffffffu;
		PUT(r->labels[i] & 0x80000000u ? "PPe" : "PQe", &id, 4);
	}
	for (int i = r->nmpi - 1; i >= 0; i--) {
		char mcv[3] = { 'M', (char)(r->mpi[i] >> 8), ovni_pair_leave_of((char)(r->mpi[i] & 0xff)) };
		PUT(mcv, NULL, 0);
	}
marks:
	for (int i = r->nmarks - 1; i >= 0; i--) {
		uint8_t p[12];
		int32_t type = (int32_t)r->marks[i][1];
		memcpy(p, &r->marks[i][0], 8);
		memcpy(p + 8, &type, 4);
		PUT("OM]", p, 12);
	}
	if (r->flushing)
		PUT("OF]", NULL, 0);
	if (r->state != 0 && r->state != 5)
		PUT("OHe", NULL, 0);
#undef PUT
	return n;
}

/* --- The agent's side: a gone process, its files read and edited with
 * system calls only, in static buffers one finisher at a time. --- */

static _Atomic int busy;
static struct oa_replay rp OA_LARGE_BSS;
static uint8_t rbuf[1 << 16] OA_LARGE_BSS; /* a window of the stream being read */
static uint8_t obuf[1 << 17] OA_LARGE_BSS; /* the closing events */
static char jbuf[1 << 18] OA_LARGE_BSS;    /* stream.json as found */
static char jout[(1 << 18) + 1024] OA_LARGE_BSS;

/* The whole events of fd (size bytes) replayed into r: the offset after
 * the last one, their number in *nev; -1 when the header is not a stream's. */
static off_t replay_file(int fd, off_t size, struct oa_replay *r, long *nev)
{
	uint8_t hdr[OVNI_HEADER_SIZE];
	*nev = 0;
	if (size < (off_t)OVNI_HEADER_SIZE || pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr, OVNI_STREAM_MAGIC, 4))
		return -1;
	off_t off = OVNI_HEADER_SIZE, boff = 0;
	size_t blen = 0;
	const size_t most =
		OVNI_EV_HEADER_SIZE + 4 + OVNI_MAX_PAYLOAD; /* the largest normal event, and a jumbo's head */
	while (off + (off_t)OVNI_EV_HEADER_SIZE <= size) {
		if (off < boff || off + (off_t)most > boff + (off_t)blen) {
			size_t want = sizeof(rbuf);
			if ((off_t)want > size - off)
				want = (size_t)(size - off);
			ssize_t n = pread(fd, rbuf, want, off);
			if (n < (ssize_t)OVNI_EV_HEADER_SIZE)
				break;
			boff = off;
			blen = (size_t)n;
		}
		const uint8_t *p = rbuf + (off - boff);
		size_t avail = blen - (size_t)(off - boff);
		uint8_t flags = p[0];
		if (!p[1] || !p[2] || !p[3])
			break; /* the zeroed window after the last event */
		uint64_t clock;
		memcpy(&clock, p + 4, 8);
		size_t evsize;
		uint32_t psize;
		const uint8_t *payload;
		if (flags & 0xf0) {
			if (flags != OVNI_JUMBO_FLAGS || avail < OVNI_EV_HEADER_SIZE + 4)
				break;
			memcpy(&psize, p + OVNI_EV_HEADER_SIZE, 4);
			evsize = OVNI_EV_HEADER_SIZE + 4 + (size_t)psize;
			payload = evsize <= avail ? p + OVNI_EV_HEADER_SIZE + 4 : NULL;
		} else {
			psize = ovni_flags_payload_size(flags);
			evsize = OVNI_EV_HEADER_SIZE + psize;
			if (evsize > avail)
				break;
			payload = p + OVNI_EV_HEADER_SIZE;
		}
		if (off + (off_t)evsize > size)
			break; /* torn */
		oa_replay_event(r, (const char *)p + 1, clock, payload, payload ? psize : 0);
		off += (off_t)evsize;
		(*nev)++;
	}
	return off;
}

static ssize_t read_at(int dfd, const char *path, char *buf, size_t cap)
{
	int fd = openat(dfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	size_t n = oa_read_full(fd, buf, cap);
	oa_nc_close(fd);
	return (ssize_t)n;
}

/* After the '{' of the object that is member `key` of the object whose
 * '{' is at `obj` (the structural reader of meta.c), or NULL. */
static const char *object_in(const char *obj, const char *end, const char *key)
{
	struct oa_json r = { obj, end };
	if (!obj || oa_json_find(&r, key) != 0 || r.p >= end || *r.p != '{')
		return NULL;
	return r.p + 1;
}

static int object_empty(const char *inside, const char *end)
{
	struct oa_json r = { inside, end };
	oa_json_ws(&r);
	return r.p < end && *r.p == '}';
}

/* "ovni": {... "finished": 1 ...} */
OA_START_TEXT static int is_finished(const char *s, size_t n)
{
	struct oa_json r = { s, s + n };
	if (oa_json_find(&r, "ovni") != 0 || oa_json_find(&r, "finished") != 0)
		return 0;
	return r.p < s + n && *r.p == '1';
}

/* stream.json text s (n bytes) with "finished": 1 and, when how is set,
 * the label `value: how` of mark 80 (declared if missing), into out; its
 * length, or -1 when s is not our metadata or out too small. */
static ssize_t edit_meta(const char *s, size_t n, char *out, size_t cap, int64_t value, const char *how)
{
	const char *end = s + n, *ovni = object_in(s, end, "ovni");
	if (!ovni || object_empty(ovni, end))
		return -1;
	char label[400], text[256];
	const char *at2 = NULL; /* where the label goes, when inside mark 80 */
	const char *ins1 = "\n  \"finished\": 1,", *ins2 = "";
	/* An end killed before it set the "finished": 0 it wrote (stream.c
	 * finish_files): that digit becomes 1 (it is before any insertion
	 * point but ovni's start; in a JSON string, quotes are escaped). */
	const char *pend = memmem(s, n, "\"finished\": 0", 13);
	if (pend && pend < ovni)
		pend = NULL;
	if (pend)
		ins1 = "";
	char first[600];
	if (how) {
		size_t k = 0;
		for (; how[k] && k + 1 < sizeof(text); k++) /* we wrote it: just in case, no escapes needed */
			text[k] = how[k] == '"' || how[k] == '\\' || (unsigned char)how[k] < 0x20 ? '?' : how[k];
		text[k] = '\0';
		const char *mark = object_in(ovni - 1, end, "mark");
		const char *t80 = object_in(mark ? mark - 1 : NULL, end, "80");
		const char *labels = object_in(t80 ? t80 - 1 : NULL, end, "labels");
		if (labels) {
			at2 = labels;
			oa_snprintf(label, sizeof(label), "\n     \"%lld\": \"%s\"%s", (long long)value, text,
				    object_empty(labels, end) ? "" : ",");
		} else if (t80) {
			at2 = t80;
			oa_snprintf(label, sizeof(label), "\"labels\": {\"%lld\": \"%s\"}, ", (long long)value, text);
		} else if (mark) {
			at2 = mark;
			oa_snprintf(
				label, sizeof(label),
				"\n   \"80\": {\"title\": \"Process events (ovni-auto)\", \"chan_type\": \"single\", "
				"\"labels\": {\"%lld\": \"%s\"}}%s",
				(long long)value, text, object_empty(mark, end) ? "" : ",");
		} else {
			oa_snprintf(
				first, sizeof(first),
				"%s\n  \"mark\": {\"80\": {\"title\": \"Process events (ovni-auto)\", \"chan_type\": "
				"\"single\", \"labels\": {\"%lld\": \"%s\"}}},",
				ins1, (long long)value, text);
			ins1 = first;
		}
		if (at2)
			ins2 = label;
	}
	size_t l1 = strlen(ins1), l2 = strlen(ins2);
	if (n + l1 + l2 > cap)
		return -1;
	size_t a = (size_t)(ovni - s), b = at2 ? (size_t)(at2 - s) : n;
	char *o = out;
	memcpy(o, s, a), o += a;
	memcpy(o, ins1, l1), o += l1;
	memcpy(o, s + a, b - a), o += b - a;
	memcpy(o, ins2, l2), o += l2;
	memcpy(o, s + b, n - b), o += n - b;
	if (pend)
		out[(pend - s) + 12 + l1 + (at2 && at2 <= pend ? l2 : 0)] = '1';
	return o - out;
}

static int write_at(int dfd, const char *path, const char *tmp, const char *buf, size_t n, const struct stat *like)
{
	int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	if (like && geteuid() == 0)
		(void)!fchown(fd, like->st_uid, like->st_gid); /* the stream's owner keeps it */
	size_t off = 0;
	int intr = 0;
	while (off < n) {
		ssize_t r = write(fd, buf + off, n - off);
		if (r < 0 && oa_eintr_again(&intr))
			continue;
		if (r <= 0) {
			int e = r < 0 ? errno : EIO;
			oa_nc_close(fd);
			unlinkat(dfd, tmp, 0);
			return -e;
		}
		off += (size_t)r;
	}
	oa_nc_close(fd);
	return renameat(dfd, tmp, dfd, path) == 0 ? 0 : -errno;
}

/* One thread directory `name` of the process directory dfd: 1 finished
 * (or set aside), 0 nothing to do, -errno. */
/* The models the events use (oa_replay.models) that "ovni": {"require":
 * {...}} does not name, added to it (a thread whose stream.json was written
 * before its process enabled the model): s into out, its length; 0 when
 * nothing is missing, -1 when it cannot be done. */
static ssize_t add_requires(const char *s, size_t n, char *out, size_t cap, unsigned models)
{
	static const struct {
		unsigned bit;
		const char *key, *text;
	} all[] = { { OA_REPLAY_OPENMP, "openmp", "\"openmp\": \"" OVNI_MODEL_OPENMP_VERSION "\", " },
		    { OA_REPLAY_MPI, "mpi", "\"mpi\": \"" OVNI_MODEL_MPI_VERSION "\", " } };
	const char *end = s + n, *ovni = object_in(s, end, "ovni");
	const char *req = object_in(ovni ? ovni - 1 : NULL, end, "require");
	if (!req || object_empty(req, end))
		return models ? -1 : 0;
	char ins[128] = "";
	size_t k = 0;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		struct oa_json r = { req - 1, end };
		if (!(models & all[i].bit) || oa_json_find(&r, all[i].key) == 0)
			continue;
		size_t l = strlen(all[i].text);
		memcpy(ins + k, all[i].text, l);
		k += l;
	}
	if (!k)
		return 0;
	size_t a = (size_t)(req - s);
	if (n + k > cap)
		return -1;
	memcpy(out, s, a);
	memcpy(out + a, ins, k);
	memcpy(out + a + k, s + a, n - a);
	return (ssize_t)(n + k);
}

static int finish_stream(int dfd, const char *name, long pid, const char *how, int64_t (*value)(long pid))
{
	char json[300], tmp[320], obs[300];
	oa_snprintf(json, sizeof(json), "%s/stream.json", name);
	oa_snprintf(tmp, sizeof(tmp), "%s/stream.json.tmp", name);
	oa_snprintf(obs, sizeof(obs), "%s/stream.obs", name);
	ssize_t jn = read_at(dfd, json, jbuf, sizeof(jbuf));
	if (jn < 0 || (size_t)jn >= sizeof(jbuf) || is_finished(jbuf, (size_t)jn))
		return 0; /* not a stream, too large to edit here (repair will), or done */
	int fd = openat(dfd, obs, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		int e = errno;
		if (fd >= 0)
			oa_nc_close(fd);
		return -e;
	}
	memset(&rp, 0, sizeof(rp));
	long nev = 0;
	off_t good = replay_file(fd, st.st_size, &rp, &nev);
	if (good < 0 || nev == 0 || jn == 0) {
		/* Nothing the thread did (killed as it started): set aside. */
		oa_nc_close(fd);
		char aside[320];
		oa_snprintf(aside, sizeof(aside), "%s/stream.json.empty", name);
		return renameat(dfd, json, dfd, aside) == 0 ? 1 : -errno;
	}
	size_t len = 0;
	long tid = atol(name + 7);
	int64_t v = 0;
	const char *label = NULL;
	if (how && tid == pid && rp.state != 0 && rp.state != 5) {
		uint8_t p[12];
		int32_t type = OA_MARK_PROC;
		v = value(pid);
		memcpy(p, &v, 8);
		memcpy(p + 8, &type, 4);
		if (oa_put_event(obuf, sizeof(obuf), &len, "OM=", rp.last, p, 12) == 0)
			label = how;
	}
	oa_replay_closers(&rp, obuf, sizeof(obuf), &len);
	int r = 0;
	/* Past the finisher's `ulimit -f` (a traced parent's): nothing cut
	 * short, the stream left for ovnirun or `ovni-auto repair`. */
	if (oa_fsize_exceeds((uint64_t)good + len))
		r = -EFBIG;
	else if (ftruncate(fd, good) != 0 || pwrite(fd, obuf, len, good) != (ssize_t)len)
		r = -errno;
	struct stat js;
	int have = fstatat(dfd, json, &js, AT_SYMLINK_NOFOLLOW) == 0;
	oa_nc_close(fd);
	if (r)
		return r;
	ssize_t m = edit_meta(jbuf, (size_t)jn, jout, sizeof(jout), v, label);
	if (m < 0)
		return -EINVAL;
	const char *text = jout;
	ssize_t m2 = add_requires(jout, (size_t)m, jbuf, sizeof(jbuf), rp.models);
	if (m2 > 0) {
		text = jbuf;
		m = m2;
	}
	r = oa_fsize_exceeds((uint64_t)m) ? -EFBIG : write_at(dfd, json, tmp, text, (size_t)m, have ? &js : NULL);
	return r ? r : 1;
}

struct dirent64_raw {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

OA_START_TEXT int oa_finish_needed(const char *tracedir, const char *loom, long pid)
{
	size_t n = strlen(tracedir) + strlen(loom) + 80;
	if (n > 8192)
		return 1; /* oa_finish_process tells */
	char path[n];
	if (oa_snprintf(path, n, "%s/loom.%s/proc.%ld/thread.%ld/stream.json", tracedir, loom, pid, pid) < 0)
		return 1;
	const char *rel;
	int at = oa_path_at(path, &rel);
	/* "finished" is the second member of "ovni" in our stream.json; one
	 * written otherwise is looked at whole by oa_finish_process. */
	char head[256];
	ssize_t hn = read_at(at, rel, head, sizeof(head));
	return hn >= 0 && !is_finished(head, (size_t)hn);
}

static int finish_process(const char *procdir, long pid, const char *how, int64_t (*value)(long pid), int all);

int oa_finish_process(const char *procdir, long pid, const char *how, int64_t (*value)(long pid))
{
	return finish_process(procdir, pid, how, value, 0);
}

int oa_finish_process_all(const char *procdir, long pid, const char *how, int64_t (*value)(long pid))
{
	return finish_process(procdir, pid, how, value, 1);
}

static int finish_process(const char *procdir, long pid, const char *how, int64_t (*value)(long pid), int all)
{
	char main_json[4400];
	oa_snprintf(main_json, sizeof(main_json), "%s/thread.%ld/stream.json", procdir, pid);
	if (atomic_exchange(&busy, 1))
		return -EBUSY;
	const char *rel;
	int at = oa_path_at(main_json, &rel), r = 0;
	/* The usual case, a child that ended its streams: one small read
	 * ("finished" comes early in our stream.json). */
	char head[8192];
	ssize_t hn = read_at(at, rel, head, sizeof(head));
	if (hn < 0 || (!all && is_finished(head, (size_t)hn)))
		goto out; /* not traced here (another loom, untraced), or done */
	if (!oa_fd_room()) {
		r = -EMFILE;
		goto out;
	}
	const char *main_rel = rel;
	int main_at = at;
	size_t main_len = 0;
	at = oa_path_at(procdir, &rel);
	int dfd = openat(at, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		r = -errno;
		goto out;
	}
	if (flock(dfd, LOCK_EX | LOCK_NB) != 0) {
		r = -EBUSY; /* a repair is at it */
		oa_nc_close(dfd);
		goto out;
	}
	static char dents[8192] OA_LARGE_BSS;
	long n;
	int done = 0, failed = 0;
	/* Threads in the spool first (spool.h): their streams are written out,
	 * those of threads still running then with the main thread's
	 * stream.json for theirs, and finished below like any other. */
	int spooled = 0;
	/* In the order they were made, one pass over them all: a recycled
	 * tid's streams in the order they ran. */
	static struct oa_spool_hold_entry holds[OA_SPOOL_HOLD] OA_LARGE_BSS;
	struct oa_spool_hold hold;
	oa_spool_hold_init(&hold, holds, OA_SPOOL_HOLD); /* the table untouched until a hold */
	for (long k = -1; (k = oa_spool_next(dfd, k, dents, sizeof(dents))) >= 0;) {
		if (!spooled++) {
			ssize_t jn = read_at(main_at, main_rel, jbuf, sizeof(jbuf)); /* the main thread's */
			if (jn < 0 || (size_t)jn >= sizeof(jbuf))
				jn = 0;
			main_len = (size_t)jn;
		}
		char name[40];
		oa_snprintf(name, sizeof(name), "spool.%ld.oa", k);
		int u = oa_spool_unpack_file(procdir, name, main_len ? jbuf : NULL, main_len, 0, &hold);
		if (u < 0)
			failed = u;
	}
	lseek(dfd, 0, SEEK_SET);
	while ((n = syscall(SYS_getdents64, dfd, dents, sizeof(dents))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64_raw *d = (struct dirent64_raw *)(dents + off);
			off += d->reclen;
			if (strncmp(d->name, "thread.", 7) || !d->name[7])
				continue;
			int k = finish_stream(dfd, d->name, pid, how, value);
			if (k > 0)
				done += k;
			else if (k < 0)
				failed = k;
		}
	}
	r = done ? done : failed;
	oa_nc_close(dfd); /* and its lock */
out:
	atomic_store(&busy, 0);
	return r;
}
