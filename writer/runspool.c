/* runspool.c: the run's spool as ovnirun and the tools see it (spool.h):
 * made, followed, written out, left.  Not linked into the agent, whose
 * side (attach, take, write) is in spool.c. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/log.h"
#include "../common/sys.h"
#include "spool.h"

size_t oa_run_len(void)
{
	return OA_SPOOL_HEADER + (size_t)OA_SPOOL_SLOTS * OA_SPOOL_SLOT;
}

int oa_run_create(const char *path, const char *loom)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	struct oa_spool_header h = {
		.slot_size = OA_SPOOL_SLOT, .nslots = OA_SPOOL_SLOTS, .obs_cap = OA_SPOOL_OBS, .json_cap = OA_SPOOL_JSON
	};
	memcpy(h.magic, OA_SPOOL_MAGIC, 8);
	h.pid = (int32_t)getpid(); /* its ovnirun */
	struct oa_run_header rh;
	memset(&rh, 0, sizeof(rh));
	memcpy(rh.magic, OA_RUN_MAGIC, 8);
	if (strlen(loom) >= sizeof(rh.loom)) {
		oa_nc_close(fd);
		unlink(path);
		return -ENAMETOOLONG;
	}
	strcpy(rh.loom, loom);
	int r = 0;
	if (ftruncate(fd, (off_t)oa_run_len()) != 0 || pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    pwrite(fd, &rh, sizeof(rh), OA_RUN_AT) != (ssize_t)sizeof(rh))
		r = errno ? -errno : -EIO;
	oa_nc_close(fd);
	if (r)
		unlink(path);
	return r;
}

uint8_t *oa_run_open(const char *path, int prepare)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	uint8_t *m = oa_run_map_fd(fd);
	oa_nc_close(fd);
	if (m && prepare)
		atomic_store(&oa_run_header_of(m)->ready, 1);
	return m;
}

/* Slots idx[0, n) in the order they were taken (spool.c's order). */
static void by_seq(uint8_t *map, unsigned *idx, unsigned n)
{
	static uint64_t keys[OA_SPOOL_SLOTS];
	for (unsigned k = 0; k < n; k++)
		keys[k] = oa_spool_order_key(map, idx[k]);
	oa_spool_sort_keys(keys, n);
	for (unsigned k = 0; k < n; k++)
		idx[k] = (unsigned)(keys[k] & 2047);
}

/* The slots of the run in `state` among those marked in bits (done or
 * used), in the order they were taken. */
static unsigned run_slots(uint8_t *map, uint32_t state, _Atomic uint64_t *bits, unsigned *out)
{
	unsigned n = 0;
	for (unsigned w = 0; w < OA_SPOOL_SLOTS / 64; w++) {
		uint64_t b = atomic_load_explicit(&bits[w], memory_order_acquire);
		while (b) {
			unsigned i = w * 64 + (unsigned)__builtin_ctzll(b);
			b &= b - 1;
			if (atomic_load(&oa_spool_slot_at(map, i)->state) == state)
				out[n++] = i;
		}
	}
	by_seq(map, out, n);
	return n;
}

int oa_run_unpack(const char *tracedir, uint8_t *map, int (*alive)(int pid, const uint8_t *obs), unsigned *in_use)
{
	static unsigned idx[OA_SPOOL_SLOTS];
	struct oa_run_header *h = oa_run_header_of(map);
	int done = 0;
	unsigned n = run_slots(map, OA_SPOOL_DONE, alive ? h->used : h->done, idx);
	for (unsigned k = 0; k < n; k++)
		done += oa_run_write(tracedir, map, oa_spool_slot_at(map, idx[k]), OA_SPOOL_DONE) > 0;
	if (alive) {
		n = run_slots(map, OA_SPOOL_LIVE, h->used, idx);
		for (unsigned k = 0; k < n; k++) {
			struct oa_spool_slot *s = oa_spool_slot_at(map, idx[k]);
			if (!alive(s->tid, oa_spool_obs(s)))
				done += oa_run_write(tracedir, map, s, OA_SPOOL_LIVE) > 0;
		}
	}
	if (in_use) {
		*in_use = 0;
		for (unsigned w = 0; w < OA_SPOOL_SLOTS / 64; w++)
			*in_use += (unsigned)__builtin_popcountll(atomic_load(&h->used[w]));
	}
	return done;
}

void oa_run_root(uint8_t *map, int root_pid)
{
	atomic_store(&oa_run_header_of(map)->root_pid, root_pid);
}

void oa_run_leave(uint8_t *map)
{
	atomic_store_explicit(&oa_run_header_of(map)->gone, 1, memory_order_seq_cst);
}

int oa_run_unpack_file(const char *tracedir, int write, int (*alive)(int pid))
{
	char path[4200];
	if (oa_snprintf(path, sizeof(path), "%s/%s", tracedir, OA_RUN_SPOOL_NAME) < 0)
		return -ENAMETOOLONG;
	int fd = open(path, write ? O_RDWR | O_CLOEXEC : O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	struct stat st;
	void *m = MAP_FAILED;
	if (fstat(fd, &st) == 0 && (size_t)st.st_size == oa_run_len())
		m = mmap(NULL, oa_run_len(), write ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED || (memcmp(oa_run_header_of(m)->magic, OA_RUN_MAGIC, 8) &&
				memcmp(oa_run_header_of(m)->magic, OA_RUN_MAGIC_001, 8))) {
		if (m != MAP_FAILED)
			munmap(m, oa_run_len());
		oa_nc_close(fd);
		return -EINVAL;
	}
	static unsigned idx[OA_SPOOL_SLOTS];
	unsigned k = 0;
	/* Not the loom's CPUs' text, at the end (spool.h): slots of an older
	 * ovnirun, which took all, may be there.  Each slot's state read from
	 * the file, not through the mapping: most slots have no block, and on
	 * a full tmpfs a read of one through a mapping is a SIGBUS (`check`
	 * and `repair` of a trace that filled its file system died so). */
	unsigned nslots = atomic_load(&oa_run_header_of(m)->cpus) ? OA_RUN_CPUS_SLOT0 : OA_SPOOL_SLOTS;
	for (unsigned i = 0; i < nslots; i++) {
		uint32_t state = OA_SPOOL_FREE;
		if (pread(fd, &state, sizeof(state),
			  (off_t)((const uint8_t *)oa_spool_slot_at(m, i) - (const uint8_t *)m)) ==
			    (ssize_t)sizeof(state) &&
		    state != OA_SPOOL_FREE)
			idx[k++] = i;
	}
	oa_nc_close(fd);
	int n = 0, err = 0, left = 0;
	if (!write) {
		munmap(m, oa_run_len());
		return (int)k;
	}
	/* In the order taken: DONE as it is, the others (a process, or a
	 * writer, that died) as cut short; a process still running keeps
	 * its slot. */
	by_seq(m, idx, k);
	for (unsigned j = 0; j < k; j++) {
		struct oa_spool_slot *s = oa_spool_slot_at(m, idx[j]);
		uint32_t st2 = atomic_load(&s->state);
		if (st2 != OA_SPOOL_DONE && alive && alive(s->tid)) {
			left++;
			continue;
		}
		int r = oa_run_write(tracedir, m, s, st2);
		if (r > 0)
			n++;
		else if (r < 0)
			err = r, left++;
	}
	/* Not while its ovnirun follows it (processes find it by its path). */
	int owner = oa_spool_header_of(m)->pid;
	int watched = !atomic_load(&oa_run_header_of(m)->gone) && owner > 0 && alive && alive(owner);
	if (!left && !watched)
		unlink(path);
	munmap(m, oa_run_len());
	return n ? n : err;
}
