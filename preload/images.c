/* images.c: what earlier images of this process (before an exec) wrote in
 * its directory: a thread whose stream an earlier image began continues it
 * with its labels, and the process's event values and OpenMP ids go on
 * after theirs. */
#include "images.h"

#include <dirent.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "../common/log.h"
#include "../common/sys.h"
#include "../writer/meta.h"
#include "../writer/ovni_fmt.h"
#include "agent.h"
#include "config.h"
#include "procevents.h"

/* What an earlier image of this process recorded in the stream we continue:
 * its labels are written again at our end, and process-event values and
 * OpenMP ids go on after its own. */
OA_START_TEXT void oa_images_import(struct oa_thread *t, const char *base, const char *final_base)
{
	char rel[48];
	oa_snprintf(rel, sizeof(rel), "thread.%d/stream.json", t->tid);
	int dfd = open(final_base ? final_base : base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int fd = dfd < 0 ? -1 : openat(dfd, rel, O_RDONLY | O_CLOEXEC);
	if (dfd >= 0)
		oa_nc_close(dfd);
	if (fd < 0)
		return;
	int r = oa_meta_import_marks(&oa_meta, &t->s.labels, fd);
	oa_nc_close(fd);
	(void)r;
}

/* The tids (but the main thread's) of the streams in the process
 * directory, hashed: bit tid % 4096.  Stale bits (a fork child's, its
 * parent's) only mean a look that finds nothing.  Unknown (the directory
 * could not be read, or dead threads of a spool are written there after
 * the scan): every tid may have one. */
/* A page of its own, touched by a process with threads only (and
 * aligned: the large objects after it keep their offsets in their pages,
 * the symbol scope the part of its first page every process writes). */
#define TID_BITS (511 * 64)
static struct {
	_Atomic uint64_t bits[TID_BITS / 64];
	_Atomic int unknown;
} tids OA_LARGE_BSS __attribute__((aligned(4096)));

OA_THREAD_TEXT void oa_images_note(int tid)
{
	unsigned b = (unsigned)tid % TID_BITS;
	uint64_t m = (uint64_t)1 << (b % 64);
	if (!(atomic_load_explicit(&tids.bits[b / 64], memory_order_relaxed) & m))
		atomic_fetch_or_explicit(&tids.bits[b / 64], m, memory_order_relaxed);
}

OA_THREAD_TEXT int oa_images_may_have(int tid)
{
	unsigned b = (unsigned)tid % TID_BITS;
	return atomic_load_explicit(&tids.unknown, memory_order_relaxed) ||
	       (atomic_load_explicit(&tids.bits[b / 64], memory_order_relaxed) >> (b % 64) & 1);
}

struct earlier {
	uint32_t *last;
	int *execs;
};

OA_START_TEXT static void earlier_label(void *arg, int type, int64_t v, const char *text)
{
	struct earlier *e = arg;
	/* Not the fixed values (signals), written in every stream; every
	 * other label here is this process's (its directory). */
	if (type != OA_MARK_PROC || (v >= 0 && v < 256))
		return;
	uint32_t seq = oa_proc_value_seq(oa_cfg.loom, oa_meta.pid, v);
	if (seq > *e->last)
		*e->last = seq;
	/* Every exec labelled "exec PATH"; one that failed also "exec failed
	 * PATH". A label is in one stream only. */
	if (!strncmp(text, "exec failed ", 12))
		(*e->execs)--;
	else if (!strncmp(text, "exec ", 5))
		(*e->execs)++;
}

/* The process-event labels of every stream an earlier image of this
 * process wrote (each label is in the stream of the thread that made it):
 * process-event values go on after the last one, and the number of images
 * (successful execs) gives OpenMP ids of their own. Once per image. */
OA_START_TEXT int oa_images_scan(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		atomic_store(&tids.unknown, 1);
		return 0;
	}
	uint32_t last = 0;
	int execs = 0, spooled = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		/* A spool file (spool.K.oa): threads of an earlier process of
		 * this pid, or of an earlier image, that died in it. */
		if (!strncmp(e->d_name, "spool.", 6))
			spooled = 1;
		if (strncmp(e->d_name, "thread.", 7))
			continue;
		int tid = atoi(e->d_name + 7);
		if (tid != oa_meta.pid)
			oa_images_note(tid);
		int dfd = openat(dirfd(d), e->d_name, O_PATH | O_DIRECTORY | O_CLOEXEC);
		int fd = dfd < 0 ? -1 : openat(dfd, "stream.json", O_RDONLY | O_CLOEXEC);
		if (dfd >= 0)
			oa_nc_close(dfd);
		if (fd < 0)
			continue;
		struct earlier ea = { &last, &execs };
		oa_meta_scan_fd(fd, NULL, earlier_label, &ea);
		oa_nc_close(fd);
	}
	closedir(d);
	if (spooled)
		atomic_store(&tids.unknown, 1);
	oa_procev_seen(last);
	if (execs > oa_exec_generation)
		oa_exec_generation = execs;
	return spooled;
}
