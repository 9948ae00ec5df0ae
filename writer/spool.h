/* spool.h: the first window of short threads' streams, in one file of
 * their process.
 *
 * A thread stream needs a directory and two files (thread.T/stream.obs and
 * stream.json), three inodes that cost more than the thread itself: ~19 us
 * on tmpfs, 0.3-1.7 ms on a disk, against ~28 us for an untraced
 * pthread_create + join.  So a thread that is not the process's first one
 * writes its events into a slot of the process's spool file
 * (PROCDIR/spool.N.oa), mapped shared like any window: SIGKILL loses nothing.
 * Its thread.T files are made only when it outgrows the slot (then it goes
 * on as any stream), or when the process ends, exec's or crashes (the agent
 * unpacks the spool, once for all its threads), or by whoever finishes a
 * process that could not (oa_finish_process: ovnirun, a parent, `ovni-auto
 * repair`).  Under ovnirun, ovnirun writes the DONE slots out while the
 * process runs (oa_spool_unpack_done), on a core the program leaves idle,
 * so that an ending process has little left to write, and frees them: the
 * agent takes a freed slot again (the lowest) before a fresh one, so a
 * process whose threads come and go keeps writing a few pages that stay
 * mapped (a fresh slot's page costs one or two page faults in the program
 * and as many in the watcher).  Only the last file's slots are taken
 * again, and slots are written out in the order they were taken (seq), so
 * that a recycled tid's streams are appended in the order they ran; a
 * thread about to write files of its own writes its tid's earlier streams
 * out of the spool first (oa_spool_settle).  With no watcher, a process
 * whose spool has OA_SPOOL_SELF_FILES files writes the ended threads out
 * itself when the last one is full, and takes their slots again.
 *
 * File: a header page, then OA_SPOOL_SLOTS slots of OA_SPOOL_SLOT bytes: a
 * 64-byte slot header, the room for stream.json (as at the thread's start,
 * then as at its end), and the stream.obs bytes (from its 8-byte file
 * header on).  Slot states: FREE, LIVE (a thread writes it), DONE (ended,
 * obs_len and json_len are valid), BUSY (being unpacked).  A slot is
 * zeroed before it is FREE again, so the events of a LIVE slot end at the
 * first zero byte.  WATCHED: a watcher (ovnirun) is writing a DONE slot out;
 * RELEASING: it has, and is zeroing the slot (then FREE).  BUSY is never the
 * watcher's: an agent or finisher found dead with a BUSY slot died writing
 * it out, and the slot is written again.
 * Everything here is async-signal-safe. */
#ifndef OA_SPOOL_H
#define OA_SPOOL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define OA_SPOOL_MAGIC "oaspool2"
#define OA_SPOOL_HEADER 4096u
#define OA_SPOOL_SLOT (8u * 1024u)
#define OA_SPOOL_SLOTS 1024u /* per file */
#define OA_SPOOL_FILES 64u   /* at most, per process: 64K spooled threads */
#define OA_SPOOL_SLOT_HEADER 64u
#define OA_SPOOL_JSON 3008u /* room for stream.json, after the slot header */
#define OA_SPOOL_OBS (OA_SPOOL_SLOT - OA_SPOOL_SLOT_HEADER - OA_SPOOL_JSON)
#define OA_SPOOL_CHUNK 64u  /* at most, slots prepared (their blocks reserved) at once */
#define OA_SPOOL_TIDS 2048u /* buckets of the header's count of slots by tid */
/* With no watcher, a process whose last file is full and that has this
 * many writes out its ended threads' slots itself (oa_spool_take): 1, the
 * same work as at its end, in steps of at most a file, over pages that
 * stay mapped (plain LD_PRELOAD, 2000 short threads on tmpfs: 2282 -> 1256
 * page faults, 0.31 -> 0.24 s; 4 files: no change below 4096 threads). */
#define OA_SPOOL_SELF_FILES 1u

enum {
	OA_SPOOL_FREE = 0,
	OA_SPOOL_LIVE = 1,
	OA_SPOOL_DONE = 2,
	OA_SPOOL_BUSY = 3,
	OA_SPOOL_WATCHED = 4,
	OA_SPOOL_RELEASING = 5
};

struct oa_spool_slot {
	_Atomic uint32_t state;
	int32_t tid;
	uint32_t json_len;
	uint32_t idx; /* its index in the file (set when taken) */
	uint64_t obs_len;
	_Atomic uint64_t seq; /* the order it was taken in, in its file (from 1) */
	/* Someone is writing it out to thread.T/stream.obs: its thread (it
	 * outgrew the slot, or its stream.json does not fit) or an unpack
	 * (the agent's, the watcher's, a finisher's).  The file was
	 * spill_base bytes long before (0: new; more: an earlier stream of a
	 * recycled tid), and may hold part or all of the slot after.
	 * Whoever writes a slot found so (its writer died in between, or
	 * tries again after a failure) cuts it back to spill_base first:
	 * nothing twice, nothing of the earlier stream lost, no stream
	 * without its header. */
	uint64_t spill_base;
	_Atomic uint32_t spilling;
	uint8_t reserved[OA_SPOOL_SLOT_HEADER - 44];
};

struct oa_spool_header {
	char magic[8];
	uint32_t slot_size, nslots, obs_cap, json_cap;
	int32_t pid;
	/* For a watcher (oa_spool_unpack_done): slots [0, taken) were handed
	 * out; `closed`: the agent takes no more (its image is ending). */
	_Atomic uint32_t taken;
	_Atomic uint32_t closed;
	/* Slots taken so far (each slot's seq), and the slots freed again
	 * (a bit each): a freed slot is taken again before a fresh one, so
	 * that a process whose threads come and go writes a few pages that
	 * stay mapped.  Files of an older agent have zeros here. */
	_Atomic uint64_t seq;
	_Atomic uint64_t freed[OA_SPOOL_SLOTS / 64];
};
/* And at the end of the header page (after the struct, not in it: the
 * struct is built on a thread's stack when a file is made), the slots in
 * use (taken, not yet freed) by tid & (OA_SPOOL_TIDS - 1), one byte each,
 * 255 meaning "maybe, count lost": a thread about to write files of its
 * own looks for earlier streams of its tid only in files whose count says
 * there may be one (oa_spool_settle).  Files of an older agent have zeros
 * there. */
#define OA_SPOOL_TIDS_AT (OA_SPOOL_HEADER - OA_SPOOL_TIDS)

/* One spool file, mapped. */
struct oa_spool_file {
	uint8_t *map;
	_Atomic unsigned ready; /* slots whose blocks are reserved */
	int k;                  /* its name: spool.<k>.oa */
};

/* A process's spool, as its agent holds it: files are added as they fill
 * (slots are freed by unpacking: a watcher's while the process runs, the
 * agent's at the end). */
struct oa_spool {
	struct oa_spool_file files[OA_SPOOL_FILES];
	_Atomic unsigned nfiles;
	_Atomic unsigned hint; /* where the next search for a fresh slot starts */
	_Atomic int failed;    /* no more files can be made: threads use their own */
	_Atomic int making;    /* a thread is adding a file */
	int pid;
	const char *watch; /* a watcher's list: each new file's path is appended to it (or NULL) */
	char procdir[4096];
};

/* Start a process's spool (no file yet) for procdir (absolute).  watch:
 * the file where a watcher (ovnirun, OVNI_SPOOL_WATCH) learns of each
 * spool file made, to write the DONE slots out while the process runs;
 * NULL or "" for none.  Kept as a pointer. */
void oa_spool_init(struct oa_spool *sp, const char *procdir, int pid, const char *watch);

/* Does the spool have a file with a slot it could give now? */
int oa_spool_ready(const struct oa_spool *sp);

/* A free slot for thread tid (LIVE), its obs area in *obs; NULL when none
 * is free (the thread then writes files of its own).  Adds a file when
 * the last one is full. */
struct oa_spool_slot *oa_spool_take(struct oa_spool *sp, int tid, uint8_t **obs);

/* The json and obs areas of a slot: a short thread's events end in the
 * slot's first page, with its header and stream.json (one page touched). */
static inline char *oa_spool_json(struct oa_spool_slot *slot)
{
	return (char *)slot + OA_SPOOL_SLOT_HEADER;
}
static inline uint8_t *oa_spool_obs(struct oa_spool_slot *slot)
{
	return (uint8_t *)slot + OA_SPOOL_SLOT_HEADER + OA_SPOOL_JSON;
}

/* Before thread tid writes a stream of its own (thread.T files: it starts
 * without a slot, or outgrows or leaves its slot `mine`, or NULL): the
 * streams of the same tid that ended earlier in the spool and are not
 * written out yet (a tid the kernel gave again) are written out first, in
 * the order they ran, so that thread.T/stream.obs keeps its streams in
 * time order.  One the watcher is writing out is waited for (50 ms at
 * most).  Only files whose count for the tid says so are looked at: the
 * usual thread finds none.  Async-signal-safe; the caller blocks signals.
 * Returns the streams written. */
int oa_spool_settle(struct oa_spool *sp, int tid, const struct oa_spool_slot *mine);

/* Zero what a slot holds (used: obs bytes written) and free it. */
void oa_spool_release(struct oa_spool_slot *slot, size_t used);

/* Write the streams of the spool's DONE slots (also LIVE ones when `dead`:
 * the process is gone; their stream.json then comes from `json_like`, the
 * stream.json of another thread of the process, with their tid) into
 * thread.T directories of its procdir, and free the slots.  Each file with
 * no slot left in use is removed and unmapped.  Returns the number of
 * streams written, or -errno. */
int oa_spool_unpack(struct oa_spool *sp, int dead, const char *json_like, size_t json_like_len);

/* The watcher's side, for a process that is running: write out the DONE
 * slots of a spool file mapped at map (len bytes) whose directory is
 * procdir, in the order they were taken, and free them (the agent takes
 * them again).  *left: slots still in use; *closed: its image takes no
 * more (when nothing is left, the file is done with).  A slot the watcher
 * cannot write (no permission) is left DONE for the agent.  Returns the
 * streams written, or -errno for a file that is not a spool or a slot that
 * could not be written (leave the file to its agent). */
int oa_spool_unpack_done(uint8_t *map, size_t len, const char *procdir, unsigned *left, int *closed);

/* A fork child: the spool is the parent's; forget it without touching it. */
void oa_spool_forget(struct oa_spool *sp);

/* Is `name` (a file name in a process directory) a spool file? */
int oa_spool_name(const char *name);

/* How many times an unpack slept for slots the watcher was writing out
 * (the tests tell a wait from a slow machine by it). */
extern _Atomic unsigned oa_spool_waits;

/* The finisher's side: map the spool file dir/name of a dead process
 * (read-write), unpack every slot into procdir, remove it.  A slot the
 * watcher is writing out is waited for (50 ms at most), then left to it
 * (it writes it from its own mapping: the file goes all the same); with
 * take_watched (`ovni-auto repair`: no watcher is left) it is written
 * again.  Streams written, or -errno. */
int oa_spool_unpack_file(const char *procdir, const char *name, const char *json_like, size_t json_like_len,
			 int take_watched);

#endif
