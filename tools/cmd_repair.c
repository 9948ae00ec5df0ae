/* cmd_repair.c: `ovni-auto repair DIR`: make the trace of a process that
 * could not end its streams (SIGKILL, OOM kill, power loss) acceptable to the
 * emulator.  For each unfinished or damaged stream: cut the torn or unwritten
 * tail after the last whole event, close what the thread left open (flush,
 * mark stacks, OpenMP states, labels and tasks, MPI calls, a paused thread), end the
 * thread with OHe, and set "ovni.finished": 1.  Streams with no event at all
 * are set aside (stream.json renamed to stream.json.empty). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../writer/log.h"
#include "../writer/ovni_fmt.h"
#include "trace/reader.h"

static const char usage_text[] =
	"usage: ovni-auto repair [-n] DIR\n"
	"\n"
	"Close the unfinished streams of a trace whose processes could not end them\n"
	"(killed with SIGKILL, by the OOM killer, power loss): cut each stream after\n"
	"its last whole event, close the states its thread left open (flushes, mark\n"
	"stacks, OpenMP states, worksharing labels and tasks, MPI calls; a paused thread is\n"
	"resumed), end the thread (OHe) and mark the stream finished. Every event\n"
	"written before the end is kept. Prints what it repaired.\n"
	"\n"
	"  -n, --dry-run   only say what would be repaired\n"
	"\n"
	"Exit status: 0 when the trace is now complete (or already was), 1 when a\n"
	"stream could not be repaired (its stream.json is unreadable).\n";

struct replay {
	int state; /* 0 unknown, 1 running, 2 paused, 3 cooling, 4 warming, 5 dead */
	int flushing;
	int64_t marks[4096][2]; /* open stack marks: value, type */
	int nmarks;
	uint16_t sub[512];      /* open openmp subsystem states */
	int nsub;
	uint32_t labels[1024];  /* open PPx (high bit) and PQx */
	int nlabels;
	uint16_t mpi[64];       /* open MPI calls: category << 8 | enter value */
	int nmpi;
	uint64_t last;          /* last clock */
};

static const char pairs[][3] = {
	{ 'B', 'b', 'B' }, { 'B', 'j', 'J' }, { 'B', 'f', 'F' }, { 'B', 't', 'T' }, { 'I', 'a', 'A' },
	{ 'I', 'r', 'R' }, { 'I', '[', ']' }, { 'W', 'd', 'D' }, { 'W', 'y', 'Y' }, { 'W', 'c', 'C' },
	{ 'W', 's', 'S' }, { 'W', 'e', 'E' }, { 'W', 'i', 'I' }, { 'T', 'a', 'A' }, { 'T', 'c', 'C' },
	{ 'T', 'd', 'D' }, { 'T', 'r', 'R' }, { 'T', '[', ']' }, { 'T', 'i', 'I' }, { 'T', 's', 'S' },
	{ 'T', 'g', 'G' }, { 'T', 't', 'T' }, { 'T', 'w', 'W' }, { 'T', 'y', 'Y' }, { 'A', '[', ']' },
	{ 'C', 'f', 'F' }, { 'C', 'i', 'I' }, { 'M', 'i', 'I' }, { 'M', 'u', 'U' }, { 'H', '[', ']' },
};

static void replay_event(struct replay *r, const struct rd_event *ev)
{
	const char *m = ev->mcv;
	r->last = ev->clock;
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
		} else if (m[1] == 'M' && ev->size == 12) {
			if (m[2] == '[' && r->nmarks < 4096) {
				r->marks[r->nmarks][0] = rd_i64(ev->payload);
				r->marks[r->nmarks++][1] = rd_i32(ev->payload + 8);
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
	if ((m[1] == 'P' || m[1] == 'Q') && ev->size >= 4) {
		uint32_t v = rd_u32(ev->payload) | (m[1] == 'P' ? 0x80000000u : 0);
		if (m[2] == 'x' && r->nlabels < 1024)
			r->labels[r->nlabels++] = v;
		else if (m[2] == 'e' && r->nlabels)
			r->nlabels--;
		return;
	}
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		if (pairs[i][0] != m[1])
			continue;
		if (m[2] == pairs[i][1] && r->nsub < 512)
			r->sub[r->nsub++] = (uint16_t)((unsigned char)m[1] << 8 | (unsigned char)pairs[i][1]);
		else if (m[2] == pairs[i][2] && r->nsub)
			r->nsub--;
	}
}

struct out {
	uint8_t buf[65536];
	size_t len;
	int n;
};

static void put(struct out *o, const char *mcv, uint64_t clock, const void *payload, unsigned n)
{
	if (o->len + OVNI_EV_HEADER_SIZE + n > sizeof(o->buf))
		return;
	uint8_t *p = o->buf + o->len;
	p[0] = ovni_flags_for_payload(n);
	memcpy(p + 1, mcv, 3);
	memcpy(p + 4, &clock, 8);
	if (n)
		memcpy(p + OVNI_EV_HEADER_SIZE, payload, n);
	o->len += OVNI_EV_HEADER_SIZE + n;
	o->n++;
}

/* The events that close everything the thread left open, in a valid order. */
static void closing_events(const struct replay *r, struct out *o)
{
	uint64_t c = r->last;
	if (r->state == 0 || r->state == 5)
		goto marks;
	if (r->state == 2 || r->state == 4)
		put(o, "OHr", c, NULL, 0); /* openmp events need a running thread */
	for (int i = r->nsub - 1; i >= 0; i--) {
		char cat = (char)(r->sub[i] >> 8), open = (char)(r->sub[i] & 0xff), mcv[3] = { 'P', cat, 0 };
		for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++)
			if (pairs[k][0] == cat && pairs[k][1] == open)
				mcv[2] = pairs[k][2];
		put(o, mcv, c, NULL, 0);
	}
	for (int i = r->nlabels - 1; i >= 0; i--) {
		uint32_t id = r->labels[i] & 0x7fffffffu;
		put(o, r->labels[i] & 0x80000000u ? "PPe" : "PQe", c, &id, 4);
	}
	for (int i = r->nmpi - 1; i >= 0; i--) {
		char mcv[3] = { 'M', (char)(r->mpi[i] >> 8), ovni_pair_leave_of((char)(r->mpi[i] & 0xff)) };
		put(o, mcv, c, NULL, 0);
	}
marks:
	for (int i = r->nmarks - 1; i >= 0; i--) {
		uint8_t p[12];
		int32_t type = (int32_t)r->marks[i][1];
		memcpy(p, &r->marks[i][0], 8);
		memcpy(p + 8, &type, 4);
		put(o, "OM]", c, p, 12);
	}
	if (r->flushing)
		put(o, "OF]", c, NULL, 0);
	if (r->state != 0 && r->state != 5)
		put(o, "OHe", c, NULL, 0);
}

static int set_finished(const char *dir)
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
	int r = json_dump_file(root, tmp, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(root);
	return r == 0 && rename(tmp, path) == 0 ? 0 : -1;
}

/* Returns 1 repaired, 0 nothing to do, -1 failed. */
static int repair_stream(struct rd_stream *s, int dry)
{
	if (!s->meta)
		return err("%s: stream.json unreadable (%s): cannot repair", s->relpath, s->meta_error), -1;
	if (s->part && strcmp(s->part, "thread"))
		return 0;
	struct replay *r = calloc(1, sizeof(*r));
	struct rd_event ev;
	int res, nev = 0;
	rd_rewind(s);
	size_t good = OVNI_HEADER_SIZE;
	while ((res = rd_next(s, &ev)) == 1) {
		replay_event(r, &ev);
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
	closing_events(r, o);
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
		printf("repaired %s: %zu events kept, %zu bytes of tail cut, %d closing events added%s\n", s->relpath,
		       (size_t)nev, s->size - good, o->n, s->finished != 1 ? ", marked finished" : "");
		rc = 1;
		if (!dry) {
			char path[4200];
			snprintf(path, sizeof(path), "%s/stream.obs", s->dir);
			int fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd < 0 || ftruncate(fd, (off_t)good) != 0 ||
			    pwrite(fd, o->buf, o->len, (off_t)good) != (ssize_t)o->len || set_finished(s->dir) != 0) {
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

int cmd_repair(int argc, char **argv)
{
	static const struct option opts[] = { { "dry-run", no_argument, 0, 'n' }, { "help", no_argument, 0, 'h' },
					      { 0, 0, 0, 0 } };
	int dry = 0, c;
	while ((c = getopt_long(argc, argv, "nh", opts, NULL)) != -1) {
		switch (c) {
		case 'n': dry = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(usage_text, stderr);
		return 2;
	}
	struct rd_trace t;
	rd_open_or_die(&t, argv[optind]);
	int repaired = 0, failed = 0;
	for (int i = 0; i < t.n; i++) {
		int r = repair_stream(&t.streams[i], dry);
		repaired += r > 0;
		failed += r < 0;
	}
	if (!repaired && !failed)
		printf("nothing to repair: %d streams are complete\n", t.n);
	else
		printf("%s %d of %d streams%s\n", dry ? "would repair" : "repaired", repaired, t.n,
		       failed ? " (some could not be repaired)" : "");
	rd_close(&t);
	return failed ? 1 : 0;
}
