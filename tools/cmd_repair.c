/* cmd_repair.c: `ovni-auto repair DIR`: make the trace of a process that
 * could not end its streams (SIGKILL, OOM kill, power loss) acceptable to the
 * emulator.  For each unfinished or damaged stream: cut the torn or unwritten
 * tail after the last whole event, close what the thread left open (flush,
 * mark stacks, OpenMP states, labels and tasks, MPI calls, a paused thread), end the
 * thread with OHe, and set "ovni.finished": 1.  Streams with no event at all
 * are set aside (stream.json renamed to stream.json.empty). */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../writer/finish.h"
#include "../writer/spool.h"
#include "../common/log.h"
#include "../writer/ovni_fmt.h"
#include "trace/map.h"
#include "trace/reader.h"

static const struct rd_trace *trace_of_repair; /* the trace being repaired */

static const char usage_text[] =
	"usage: ovni-auto repair [-n] [-p PID]... [--loom NAME] [--how TEXT] [--looms] DIR\n"
	"\n"
	"Close the unfinished streams of a trace whose processes could not end them\n"
	"(killed with SIGKILL, by the OOM killer, power loss).\n"
	"\n"
	"  -n, --dry-run   only say what would be repaired\n"
	"  -p, --pid PID   only the streams of process PID (may be repeated)\n"
	"      --loom NAME only the streams of loom NAME (a PID namespace's loom,\n"
	"                  where pids are those of the namespace)\n"
	"      --looms     only move the processes without an MPI rank out of a loom\n"
	"                  whose other processes have one (see the manual)\n"
	"      --how TEXT  how the process ended (\"exit status 3\", \"signal SIGKILL\",\n"
	"                  \"ended without notice\"): a labelled process event\n"
	"                  (mark 80) before the end of its main thread\n"
	"\n"
	"Exit status: 0 when the trace is now complete (or already was), 1 when a\n"
	"stream could not be repaired (its stream.json is unreadable) or a process\n"
	"still runs (its streams are left to it).\n"
	"\n"
	"The manual page has the details: man ovni-auto-repair\n";

struct out {
	uint8_t buf[1 << 17];
	size_t len;
	int n;
};

static void put(struct out *o, const char *mcv, uint64_t clock, const void *payload, unsigned n)
{
	o->n += oa_put_event(o->buf, sizeof(o->buf), &o->len, mcv, clock, payload, n) == 0;
}

/* The label of the "how it ended" mark: ovni.mark."80".labels. */
static void add_label(json_t *ovni, int64_t value, const char *text)
{
	json_t *mark = json_object_get(ovni, "mark");
	if (!json_is_object(mark)) {
		mark = json_object();
		json_object_set_new(ovni, "mark", mark);
	}
	json_t *type = json_object_get(mark, "80");
	if (!json_is_object(type)) {
		type = json_pack("{s:s, s:s}", "title", "Process events (ovni-auto)", "chan_type", "single");
		json_object_set_new(mark, "80", type);
	}
	json_t *labels = json_object_get(type, "labels");
	if (!json_is_object(labels)) {
		labels = json_object();
		json_object_set_new(type, "labels", labels);
	}
	char key[32];
	snprintf(key, sizeof(key), "%lld", (long long)value);
	json_object_set_new(labels, key, json_string(text));
}

/* A mark type that the events use but the metadata never declared (the
 * process died before it wrote stream.json again): declared now, or the
 * emulator refuses the stream ("cannot find mark with type"). */

static json_t *declared_elsewhere(const char *key)
{
	const struct rd_trace *t = trace_of_repair;
	for (int i = 0; t && i < t->n; i++) {
		json_t *d = t->streams[i].marks ? json_object_get(t->streams[i].marks, key) : NULL;
		if (json_is_object(d))
			return json_deep_copy(d);
	}
	return NULL;
}

static void declare_types(json_t *ovni, const struct oa_replay *r)
{
	json_t *mark = json_object_get(ovni, "mark");
	if (!json_is_object(mark)) {
		mark = json_object();
		json_object_set_new(ovni, "mark", mark);
	}
	for (int i = 0; i < r->nmtypes; i++) {
		char key[16], title[64];
		snprintf(key, sizeof(key), "%d", (int)r->mtypes[i]);
		if (json_object_get(mark, key))
			continue;
		/* As another stream of the trace declares it (the emulator wants
		 * one title per type), else the agent's own title. */
		json_t *d = declared_elsewhere(key);
		if (!d) {
			static const char *const agent[] = { "Process events (ovni-auto)", "Blocked in (ovni-auto)",
							     "Called from (ovni-auto)", "Sampled function (ovni-auto)",
							     "Thread name (ovni-auto)" };
			int k = (int)r->mtypes[i] - OA_MARK_PROC;
			if (k >= 0 && k < 5)
				snprintf(title, sizeof(title), "%s", agent[k]);
			else
				snprintf(title, sizeof(title), "Mark %d (declared by repair)", (int)r->mtypes[i]);
			d = json_pack("{s:s, s:s}", "title", title, "chan_type", r->mstack[i] ? "stack" : "single");
		}
		json_object_set_new(mark, key, d);
	}
}

/* A model that the events use but ovni.require does not name (a thread
 * whose stream.json was written before the process enabled the model,
 * and that died before it wrote it again): required now, at the version
 * another stream of the trace requires, else the agent's. */
static void require_models(json_t *ovni, const struct oa_replay *r)
{
	static const struct {
		unsigned bit;
		const char *name, *version;
	} models[] = { { OA_REPLAY_OPENMP, "openmp", OVNI_MODEL_OPENMP_VERSION },
		       { OA_REPLAY_MPI, "mpi", OVNI_MODEL_MPI_VERSION } };
	json_t *req = json_object_get(ovni, "require");
	if (!json_is_object(req)) {
		req = json_object();
		json_object_set_new(ovni, "require", req);
	}
	for (size_t m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
		if (!(r->models & models[m].bit) || json_object_get(req, models[m].name))
			continue;
		const char *v = models[m].version;
		const struct rd_trace *t = trace_of_repair;
		for (int i = 0; t && i < t->n; i++) {
			json_t *o = t->streams[i].meta ? json_object_get(t->streams[i].meta, "ovni") : NULL;
			json_t *rq = o ? json_object_get(json_object_get(o, "require"), models[m].name) : NULL;
			if (json_is_string(rq)) {
				v = json_string_value(rq);
				break;
			}
		}
		json_object_set_new(req, models[m].name, json_string(v));
	}
}

static int set_finished(const char *dir, int64_t how_value, const char *how, const struct oa_replay *rp)
{
	char path[4200], tmp[4300];
	snprintf(path, sizeof(path), "%s/stream.json", dir);
	snprintf(tmp, sizeof(tmp), "%s/stream.json.tmp", dir);
	json_t *root = json_load_file(path, 0, NULL);
	json_t *ovni = root ? json_object_get(root, "ovni") : NULL;
	if (!json_is_object(ovni)) {
		json_decref(root);
		return -1;
	}
	json_object_set_new(ovni, "finished", json_integer(1));
	if (how)
		add_label(ovni, how_value, how);
	declare_types(ovni, rp);
	require_models(ovni, rp);
	int r = json_dump_file(root, tmp, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(root);
	if (r == 0 && rename(tmp, path) == 0)
		return 0;
	unlink(tmp); /* a full disk: no stream.json.tmp left beside the old one */
	return -1;
}

/* stream.json in the thread directory `dir` names loom `loom`. */
static int set_loom(const char *dir, const char *loom)
{
	char path[4700], tmp[4800];
	snprintf(path, sizeof(path), "%s/stream.json", dir);
	snprintf(tmp, sizeof(tmp), "%s/stream.json.tmp", dir);
	json_t *root = json_load_file(path, 0, NULL);
	json_t *ovni = root ? json_object_get(root, "ovni") : NULL;
	if (!json_is_object(ovni)) {
		json_decref(root);
		return err("%s: unreadable", path), -1;
	}
	json_object_set_new(ovni, "loom", json_string(loom));
	int r = json_dump_file(root, tmp, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(root);
	if (r == 0 && rename(tmp, path) == 0)
		return 0;
	unlink(tmp); /* a full disk: no stream.json.tmp left beside the old one */
	return -1;
}

/* A value of the process-event mark for "how it ended", unique in the
 * trace: the agent's values are the pid's and loom's with a sequence from
 * 1 (oa_proc_value); this one takes the last of the sequence's range. */
/* A value whose low 32 bits no label of mark 80 in the trace has (the
 * emulator keeps only those). */
static int64_t how_value_of(const char *loom, long long pid)
{
	const struct rd_trace *t = trace_of_repair;
	uint64_t h = oa_loom_hash(loom ? loom : "");
	uint32_t low = ((uint32_t)h ^ 0xa5a5a5a5u ^ (uint32_t)pid) | 256;
	for (int tries = 0; t && tries < 1000; tries++, low += 257) {
		int used = low < 256;
		for (int i = 0; i < t->n && !used; i++) {
			json_t *labels = t->streams[i].marks
						 ? json_object_get(json_object_get(t->streams[i].marks, "80"), "labels")
						 : NULL;
			const char *key;
			json_t *v;
			json_object_foreach(labels, key, v)
			{
				if ((uint32_t)strtoull(key, NULL, 10) == low) {
					used = 1;
					break;
				}
			}
		}
		if (!used)
			break;
	}
	return (int64_t)((((h >> 32) & 0x7fffffff) | 1) << 32 | low) ^ (int64_t)((uint64_t)0x40000000 << 32);
}

/* Returns 1 repaired, 0 nothing to do, -1 failed.  `how`: the label of the
 * mark that says how the process ended, on this (its main) thread, or NULL. */
static int repair_stream(struct rd_stream *s, int dry, const char *how)
{
	if (!s->meta) {
		/* Killed between creating stream.json and writing it (SIGKILL at a
		 * thread's or process's very start): an empty file, nothing to
		 * keep; set aside like a stream with no event. */
		char from[4200], to[4300];
		struct stat st;
		snprintf(from, sizeof(from), "%s/stream.json", s->dir);
		if (stat(from, &st) == 0 && st.st_size == 0) {
			printf("repaired %s: empty stream.json (killed as it started), set aside (stream.json.empty)\n",
			       s->relpath);
			snprintf(to, sizeof(to), "%s/stream.json.empty", s->dir);
			return dry || rename(from, to) == 0 ? 1 : -1;
		}
		return err("%s: stream.json unreadable (%s): cannot repair", s->relpath, s->meta_error), -1;
	}
	if (s->part && strcmp(s->part, "thread"))
		return 0;
	struct oa_replay *r = calloc(1, sizeof(*r));
	struct rd_event ev;
	int res, nev = 0;
	rd_rewind(s);
	size_t good = OVNI_HEADER_SIZE;
	while ((res = rd_next(s, &ev)) == 1) {
		oa_replay_event(r, ev.mcv, ev.clock, ev.payload, ev.size);
		good = s->off;
		nev++;
	}
	int torn = res < 0 && s->size >= OVNI_HEADER_SIZE && !memcmp(s->data, OVNI_STREAM_MAGIC, 4);
	if (res < 0 && !torn) {
		err("%s: %s: cannot repair", s->relpath, s->error);
		free(r);
		return -1;
	}
	struct out *o = calloc(1, sizeof(*o));
	/* Only a main thread's "how" needs one: the search looks at every
	 * stream's labels (once per stream, 2000 threads took 5 s). */
	int64_t hv = how ? how_value_of(s->loom, s->pid) : 0;
	if (how && nev > 0 && r->state != 0 && r->state != 5) {
		uint8_t p[12];
		int32_t type = OA_MARK_PROC;
		memcpy(p, &hv, 8);
		memcpy(p + 8, &type, 4);
		put(o, "OM=", r->last, p, 12);
	}
	o->n += oa_replay_closers(r, o->buf, sizeof(o->buf), &o->len);
	int rc = 0;
	if (nev == 0) {
		printf("repaired %s: no event, set aside (stream.json.empty)\n", s->relpath);
		if (!dry) {
			char from[4200], to[4300];
			snprintf(from, sizeof(from), "%s/stream.json", s->dir);
			snprintf(to, sizeof(to), "%s/stream.json.empty", s->dir);
			rc = rename(from, to) == 0 ? 1 : -1;
		} else {
			rc = 1;
		}
	} else if (torn || o->n || s->finished != 1) {
		printf("repaired %s: %zu events kept, %zu bytes of tail cut, %d closing events added%s%s%s\n",
		       s->relpath, (size_t)nev, s->size - good, o->n, s->finished != 1 ? ", marked finished" : "",
		       how ? "; " : "", how ? how : "");
		rc = 1;
		if (!dry) {
			char path[4200];
			snprintf(path, sizeof(path), "%s/stream.obs", s->dir);
			int fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd < 0 || ftruncate(fd, (off_t)good) != 0 ||
			    pwrite(fd, o->buf, o->len, (off_t)good) != (ssize_t)o->len ||
			    set_finished(s->dir, hv, how, r) != 0) {
				err("%s: cannot write the repair:", s->relpath);
				rc = -1;
			}
			if (fd >= 0)
				close(fd);
		}
	}
	free(o);
	free(r);
	return rc;
}

/* Processes without a rank in a loom whose other processes have one: moved
 * to loom L.norank (the emulator wants every process of a loom ranked, or
 * none; the host, the name before the first '.', stays the same).  Returns
 * the number moved, -1 on a failure. */
static uint64_t proc_key(const char *loom, long long pid)
{
	uint64_t k = (oa_loom_hash(loom) ^ ((uint64_t)pid * 0x9E3779B97F4A7C15ull)) | 1;
	return k;
}

static int split_looms(struct rd_trace *t, int dry)
{
	/* Which looms have a ranked process, which processes are ranked: one
	 * pass (a trace of 70 000 processes has no time for pairs). */
	struct ck_map ranked_looms = { 0 }, ranked_procs = { 0 }, moved_procs = { 0 };
	for (int i = 0; i < t->n; i++) {
		struct rd_stream *a = &t->streams[i];
		if (!a->loom || a->rank < 0)
			continue;
		ck_map_put(&ranked_looms, oa_loom_hash(a->loom) | 1, 1);
		ck_map_put(&ranked_procs, proc_key(a->loom, a->pid), 1);
	}
	int moved = 0, failed = 0;
	uint64_t v;
	for (int i = 0; i < t->n && ranked_looms.n; i++) {
		struct rd_stream *a = &t->streams[i];
		if (!a->loom || !a->meta || strstr(a->loom, ".norank") ||
		    !ck_map_get(&ranked_looms, oa_loom_hash(a->loom) | 1, &v) ||
		    ck_map_get(&ranked_procs, proc_key(a->loom, a->pid), &v) ||
		    ck_map_get(&moved_procs, proc_key(a->loom, a->pid), &v))
			continue;
		ck_map_put(&moved_procs, proc_key(a->loom, a->pid), 1);
		/* The process's directory (the stream's parent) moves whole, once. */
		char procdir[4200], newloom[600], newdir[4400];
		snprintf(procdir, sizeof(procdir), "%s", a->dir);
		char *slash = strrchr(procdir, '/');
		if (!slash)
			continue;
		*slash = '\0';
		const char *procname = strrchr(procdir, '/');
		if (!procname || strncmp(procname, "/proc.", 6))
			continue;
		snprintf(newloom, sizeof(newloom), "%s.norank", a->loom);
		snprintf(newdir, sizeof(newdir), "%s/loom.%s", t->dir, newloom);
		printf("%s %s: no MPI rank in a loom of ranks: to loom %s\n", dry ? "would move" : "moved",
		       procdir + strlen(t->dir) + 1, newloom);
		moved++;
		if (dry)
			continue;
		mkdir(newdir, 0755);
		snprintf(newdir + strlen(newdir), sizeof(newdir) - strlen(newdir), "%s", procname);
		if (rename(procdir, newdir) != 0) {
			err("cannot move %s:", procdir);
			failed++;
			continue;
		}
		/* Its streams name their new loom. */
		const char *oldloom = a->loom;
		long long pid = a->pid;
		for (int j = i; j < t->n; j++) {
			struct rd_stream *b = &t->streams[j];
			if (!b->loom || b->pid != pid || strcmp(b->loom, oldloom) || !b->dir)
				continue;
			char json[4600];
			snprintf(json, sizeof(json), "%s%s", newdir, strrchr(b->dir, '/'));
			if (set_loom(json, newloom) != 0)
				failed++;
		}
	}
	ck_map_free(&ranked_looms);
	ck_map_free(&ranked_procs);
	ck_map_free(&moved_procs);
	return failed ? -1 : moved;
}

/* The directories of process pid in every loom of the trace, locked
 * (flock, as a parent that reaps the process and finishes its streams
 * does): the repair reads them once that one is done.  Their descriptors
 * (held until exit) go to fds; their number. */
static int lock_process(const char *trace, const char *loom, long long pid, int *fds, int max)
{
	int n = 0;
	DIR *d = opendir(trace);
	struct dirent *e;
	while (d && n < max && (e = readdir(d))) {
		if (strncmp(e->d_name, "loom.", 5) || (loom && strcmp(e->d_name + 5, loom)))
			continue;
		char path[4400];
		snprintf(path, sizeof(path), "%s/%s/proc.%lld", trace, e->d_name, pid);
		int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
			;
		fds[n++] = fd;
	}
	if (d)
		closedir(d);
	return n;
}

/* The threads of process directory `pd` that its agent left in spool files
 * (writer/spool.h): written out as streams; those of threads that were
 * still running get the main thread's stream.json (or another thread's)
 * with their tid, and are repaired below like any other.  The count. */
static int spools_failed; /* spool files that kept streams: a failed repair */
static int unpack_spools(const char *pd, long long pid, int dry)
{
	DIR *d = opendir(pd);
	if (!d)
		return 0;
	static char like[1 << 18], dents[1 << 15];
	size_t like_len = 0;
	int got_like = 0, total = 0;
	/* In the order they were made, one pass over them all (spool.h). */
	static struct oa_spool_hold_entry holds[OA_SPOOL_HOLD];
	struct oa_spool_hold hold;
	oa_spool_hold_init(&hold, holds, OA_SPOOL_HOLD);
	for (long k = -1; (k = oa_spool_next(dirfd(d), k, dents, sizeof(dents))) >= 0;) {
		char name[40];
		snprintf(name, sizeof(name), "spool.%ld.oa", k);
		if (dry) {
			printf("would write the threads spooled in %s/%s\n", pd, name);
			continue;
		}
		if (!got_like++) {
			char path[4400];
			snprintf(path, sizeof(path), "%s/thread.%lld/stream.json", pd, pid);
			FILE *f = fopen(path, "r");
			if (f) {
				like_len = fread(like, 1, sizeof(like) - 1, f);
				fclose(f);
			}
		}
		int n = oa_spool_unpack_file(pd, name, like_len ? like : NULL, like_len, 1, &hold);
		if (n < 0) {
			err("%s/%s: %s: some threads stay in it", pd, name, strerror(-n));
			spools_failed++;
		} else if (n > 0)
			printf("wrote %d streams spooled in %s/%s\n", n, pd, name);
		total += n > 0 ? n : 0;
	}
	closedir(d);
	return total;
}

/* Is the process that writes procdir (".../proc.PID") still running here?
 * Its agent keeps its streams' windows and its spool mapped: a mapping in
 * /proc/PID/maps of a file of procdir (the same device and inode, at the
 * same path after "/proc.PID/") says so.  A repair of a live process's
 * streams was overwritten by the process's own end (a stream.json cut in
 * the middle, a thread.0) and could not be repaired again.  Another pid
 * namespace's process, or another host's, is not seen: repaired as before. */
static int still_writing(const char *procdir, long long pid)
{
	char path[64], needle[48], line[4800], mine[9200];
	snprintf(path, sizeof(path), "/proc/%lld/maps", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	snprintf(needle, sizeof(needle), "/proc.%lld/", pid);
	int live = 0;
	while (!live && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long ino;
		int at = 0;
		if (sscanf(line, "%*s %*s %*s %x:%x %lu %n", &maj, &min, &ino, &at) < 3 || !ino || !at)
			continue;
		char *p = line + at;
		p[strcspn(p, "\n")] = '\0';
		char *tail = strstr(p, needle);
		if (!tail)
			continue;
		snprintf(mine, sizeof(mine), "%s/%s", procdir, tail + strlen(needle));
		struct stat st;
		live = stat(mine, &st) == 0 && st.st_ino == ino && major(st.st_dev) == maj && minor(st.st_dev) == min;
	}
	fclose(f);
	return live;
}

/* still_writing for the process directory of a stream (or a process
 * directory itself), said once per process; the last answer is kept (the
 * streams of a process come together). */
static int live_procs;
static int skip_live(const char *dir, long long pid)
{
	static char last[4400];
	static int last_live;
	char pd[4400];
	snprintf(pd, sizeof(pd), "%s", dir);
	char *p = strstr(pd, "/proc.");
	if (!p)
		return 0;
	char *end = strchr(p + 1, '/');
	if (end)
		*end = '\0';
	if (!strcmp(pd, last))
		return last_live;
	snprintf(last, sizeof(last), "%s", pd);
	last_live = still_writing(pd, pid);
	if (last_live) {
		live_procs++;
		printf("%s: its process is still running (it maps its streams): left as it is; repair it once it "
		       "has ended\n",
		       pd);
	}
	return last_live;
}

static int unpack_all_spools(const char *trace, const char *loom, const long long *pids, int npids, int dry)
{
	DIR *d = opendir(trace);
	if (!d)
		return 0;
	int total = 0;
	struct dirent *l;
	while ((l = readdir(d))) {
		if (strncmp(l->d_name, "loom.", 5) || (loom && strcmp(l->d_name + 5, loom)))
			continue;
		char ld[4400];
		snprintf(ld, sizeof(ld), "%s/%s", trace, l->d_name);
		DIR *pd = opendir(ld);
		struct dirent *p;
		while (pd && (p = readdir(pd))) {
			if (strncmp(p->d_name, "proc.", 5))
				continue;
			long long pid = atoll(p->d_name + 5);
			int mine = !npids;
			for (int k = 0; k < npids; k++)
				mine |= pid == pids[k];
			if (!mine)
				continue;
			char path[4400];
			snprintf(path, sizeof(path), "%s/%s", ld, p->d_name);
			if (!skip_live(path, pid))
				total += unpack_spools(path, pid, dry);
		}
		if (pd)
			closedir(pd);
	}
	closedir(d);
	return total;
}

/* Is process pid running (here), not a zombie? */
static int pid_alive(int pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* With --pid, the run's spool writes out only those processes' streams:
 * the others count as running (left there). */
static const long long *only_pids;
static int only_npids, listed_running;
static int listed_alive(int pid)
{
	int listed = !only_npids;
	for (int k = 0; k < only_npids && !listed; k++)
		listed = pid == only_pids[k];
	int alive = !listed || pid_alive(pid);
	listed_running += only_npids && listed && alive;
	return alive;
}

/* The run's spool (writer/spool.h) that its ovnirun could not empty (it was
 * killed, or processes of the run outlived it): the streams of processes
 * that are gone written out, to be finished below like any other (and
 * before the processes' own spools, which take their main stream's
 * stream.json for threads that have none: written out of the run's spool
 * when the process was killed). */
static int unpack_run_spool(const char *trace, int dry)
{
	int in_use = oa_run_unpack_file(trace, 0, NULL);
	if (in_use <= 0)
		return 0;
	if (dry) {
		printf("would write the streams in %s/%s (%d)\n", trace, OA_RUN_SPOOL_NAME, in_use);
		return in_use;
	}
	int n = oa_run_unpack_file(trace, 1, listed_alive);
	if (n < 0)
		err("%s/%s: %s: some streams stay in it", trace, OA_RUN_SPOOL_NAME, strerror(-n));
	else if (n > 0)
		printf("wrote %d streams of %s/%s\n", n, trace, OA_RUN_SPOOL_NAME);
	int left = only_npids ? listed_running : oa_run_unpack_file(trace, 0, NULL);
	if (left > 0) {
		live_procs += left;
		printf("%s/%s: %d stream%s of processes still running left there; repair it once they have ended\n",
		       trace, OA_RUN_SPOOL_NAME, left, left > 1 ? "s" : "");
	}
	return n > 0 ? n : 0;
}

int cmd_repair(int argc, char **argv)
{
	static const struct option opts[] = { { "dry-run", no_argument, 0, 'n' },
					      { "help", no_argument, 0, 'h' },
					      { "pid", required_argument, 0, 'p' },
					      { "how", required_argument, 0, 1 },
					      { "looms", no_argument, 0, 2 },
					      { "loom", required_argument, 0, 3 },
					      { 0, 0, 0, 0 } };
	int dry = 0, c, npids = 0, looms_only = 0;
	long long pids[64];
	const char *how = NULL, *loom = NULL;
	while ((c = getopt_long(argc, argv, "np:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n': dry = 1; break;
		case 'p':
			if (npids < 64)
				pids[npids++] = atoll(optarg);
			break;
		case 1: how = optarg; break;
		case 2: looms_only = 1; break;
		case 3: loom = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(usage_text, stderr);
		return 2;
	}
	int locks[256], nlocks = 0;
	for (int k = 0; k < npids; k++)
		nlocks += lock_process(argv[optind], loom, pids[k], locks + nlocks, 256 - nlocks);
	/* The run's spool first (a killed process's main stream is there),
	 * except for another PID namespace's process (--loom: its pid is
	 * not ours to look up, and the run's spool is not its). */
	only_pids = pids;
	only_npids = npids;
	int unspooled = looms_only || (loom && npids) ? 0 : unpack_run_spool(argv[optind], dry);
	if (!looms_only)
		unspooled += unpack_all_spools(argv[optind], loom, pids, npids, dry);
	struct rd_trace t;
	/* Not rd_open_or_die: its hint for spool files left (their streams
	 * still running) is "run repair", which this is; each such stream is
	 * said below, with what to do. */
	char msg[600];
	if (rd_open(&t, argv[optind], msg, sizeof(msg)) != 0)
		die("%s", msg);
	trace_of_repair = &t;
	int repaired = 0, failed = 0;
	if (looms_only) {
		int m = split_looms(&t, dry);
		if (m == 0)
			printf("nothing to move: every loom has ranks on all its processes or on none\n");
		rd_close(&t);
		return m < 0 ? 1 : 0;
	}
	for (int i = 0; i < t.n; i++) {
		struct rd_stream *s = &t.streams[i];
		/* A stream whose stream.json is unreadable (a thread killed as it
		 * created it) has no pid of its own: its directory's. */
		long long pid = s->pid;
		const char *pd = s->meta || !s->dir ? NULL : strstr(s->dir, "/proc.");
		if (pd)
			pid = atoll(pd + 6);
		int mine = !npids;
		for (int k = 0; k < npids; k++)
			mine |= pid == pids[k];
		if (loom && (strncmp(s->relpath, "loom.", 5) || strncmp(s->relpath + 5, loom, strlen(loom)) ||
			     s->relpath[5 + strlen(loom)] != '/'))
			mine = 0;
		if (!mine || (s->dir && skip_live(s->dir, pid)))
			continue;
		/* The label goes on the main thread (tid == pid) only. */
		int r = repair_stream(s, dry, how && s->tid == s->pid ? how : NULL);
		repaired += r > 0;
		failed += r < 0;
	}
	int moved = npids ? 0 : split_looms(&t, dry);
	failed += moved < 0;
	failed += spools_failed;
	if (!repaired && !failed && moved <= 0 && !unspooled && !live_procs)
		printf("nothing to repair: %d streams are complete\n", t.n);
	else
		printf("%s %d of %d streams%s%s\n", dry ? "would repair" : "repaired", repaired, t.n,
		       failed ? " (some could not be repaired)" : "",
		       live_procs ? " (processes still running were left as they are)" : "");
	rd_close(&t);
	return failed || live_procs ? 1 : 0;
}
