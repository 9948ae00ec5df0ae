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
 * that a recycled tid's streams are appended in the order they ran (a
 * later one waits while an earlier one is being written: oa_spool_hold,
 * or was taken after the pass began: oa_spool_seq); a
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
	/* A slot of the run's spool: its stream.json was rendered without the
	 * loom's CPUs, which go back in at this offset when it is written out
	 * (from the run's header: oa_run_cpus_apart); 0: none left out. */
	uint32_t cpus_at;
	uint8_t reserved[OA_SPOOL_SLOT_HEADER - 48];
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

/* The tids whose later streams wait, in one pass over a process's slots
 * (unpack: the agent's, a watcher's, a finisher's): slots are written in
 * the order they were taken, and once a slot of tid T is passed without
 * being written because another writer has it (BUSY: a thread of the
 * process settling its tid, an unpack; WATCHED) or its write failed, no
 * later slot of T is written in that pass: a recycled tid's streams are
 * appended to thread.T in the order they ran, never two at once (a
 * watcher that wrote a later stream while a thread of the process wrote
 * the earlier one out made a stream.obs with two headers, or with its
 * clock going backwards).  A slot whose thread runs needs no hold: see
 * oa_spool_seq.  Keyed by the spool's pid and the tid, in the caller's
 * table of `cap` entries (usually a few are used: OA_SPOOL_HOLD is plenty);
 * past it, or with none (cap 0), every slot after the first held waits
 * for the next pass.  Entries carry the tag of the file that made them: a
 * file tried again drops its own (unpack_waiting). */
#define OA_SPOOL_HOLD 256u
struct oa_spool_hold_entry {
	int32_t pid, tid;
	uint16_t watched, tag;
};
struct oa_spool_hold {
	uint32_t n, cap;
	uint16_t tag, all; /* all: 1 + the tag under which the table overflowed */
	struct oa_spool_hold_entry *e;
	/* The agent's passes: its spool, whose files' counts of slots by tid
	 * tell a tid that has no other slot (nothing to hold for it: a
	 * process's end racing its watcher, slot after slot, held each tid it
	 * lost, and a full table held every slot after). */
	const struct oa_spool *sp;
};
void oa_spool_hold_init(struct oa_spool_hold *h, struct oa_spool_hold_entry *e, unsigned cap);

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
 * could not be written (leave the file to its agent).  hold: the pass's
 * (oa_spool_hold_init, then the files of a process in the order they were
 * made); NULL: one of this file alone.  upto: the file's oa_spool_seq at
 * the pass's start (UINT64_MAX: now). */
int oa_spool_unpack_done(uint8_t *map, size_t len, const char *procdir, unsigned *left, int *closed,
			 struct oa_spool_hold *hold, uint64_t upto);

/* A spool file's count of slots taken: a pass over a process's files reads
 * it of each file first (upto), and leaves the slots taken after for the
 * next pass (their threads started while it ran).  A thread whose slot
 * was passed while it ran may end, and its tid be given to a thread that
 * takes a slot (in this file or a later one) and ends before the pass gets
 * there: that later stream waits, and the earlier goes first. */
uint64_t oa_spool_seq(const uint8_t *map);

/* A fork child: the spool is the parent's; forget it without touching it. */
void oa_spool_forget(struct oa_spool *sp);

/* Is `name` (a file name in a process directory) a spool file? */
int oa_spool_name(const char *name);

/* The spool file of the directory open at dfd whose number comes next
 * after `after` (spool.K.oa, the smallest K > after; -1 first): its K, or
 * -1 when none.  A finisher unpacks a process's files in that order, the
 * order they were made (a recycled tid's streams in the order they ran).
 * buf: room for the directory's entries (a few KiB).  Async-signal-safe;
 * moves dfd's offset. */
long oa_spool_next(int dfd, long after, char *buf, size_t cap);

/* How many times an unpack slept for slots the watcher was writing out
 * (the tests tell a wait from a slow machine by it). */
extern _Atomic unsigned oa_spool_waits;

/* The finisher's side: map the spool file dir/name of a dead process
 * (read-write), unpack every slot into procdir, remove it.  A slot the
 * watcher is writing out is waited for (50 ms at most), then left to it
 * (it writes it from its own mapping: the file goes all the same); with
 * take_watched (`ovni-auto repair`: no watcher is left) it is written
 * again.  hold: as for oa_spool_unpack_done (a process's files one after
 * the other, spool.0.oa first).  Streams written, or -errno. */
int oa_spool_unpack_file(const char *procdir, const char *name, const char *json_like, size_t json_like_len,
			 int take_watched, struct oa_spool_hold *hold);

/* The run's spool.  Under ovnirun, a process that starts with no stream of
 * its pid in the trace (not an exec'd image of a traced one) writes its
 * first stream into a slot of one file of the run, TRACE/spool.run.oa
 * (OA_RUN_SPOOL_NAME), which ovnirun makes, reserves and maps: no
 * directory or file is made by the process for it (two directories and
 * two files, ~50 us of a traced `/bin/true` on tmpfs, more on a disk).
 * ovnirun writes each slot that is DONE out as loom.L/proc.P/thread.T while
 * the program runs, on a core it leaves idle.  The same layout as a
 * process's spool (header page, OA_SPOOL_SLOTS slots); a process takes the
 * slot at pid % OA_RUN_SLOTS or one of the OA_RUN_PROBE after it, so that
 * its parent finds it by pid; the slot's json area keeps its last
 * OA_RUN_PATH bytes for the process directory, relative to the trace; its
 * stream.json is rendered there at the start (a process killed at once
 * keeps its metadata, as one with files does).  A slot leaves the spool
 * as a thread's does: into files of its own when it outgrows it, or when
 * its image execs (the next image goes on in them); at the end (DONE) for
 * ovnirun; by the parent that reaps a child killed in it (oa_run_write,
 * then the usual finish); by ovnirun at the end for a process gone without
 * a parent that did; by the process itself when ovnirun has gone (gone).
 * `ovni-auto repair` writes out what is left. */
#define OA_RUN_SPOOL_NAME "spool.run.oa"
/* 002: the loom's CPUs apart (cpus_at, the header's cpus): an agent and an
 * ovnirun of different builds do not share a file (the one would write
 * the other's slots out without them).  `repair` reads 001 files too. */
#define OA_RUN_MAGIC "oarun002"
#define OA_RUN_MAGIC_001 "oarun001"
/* Of the file's slots, the first OA_RUN_SLOTS are taken (at pid %
 * OA_RUN_SLOTS, or one of the OA_RUN_PROBE after it, wrapping): slots
 * come back often, so their pages stay allocated in the file and mapped in
 * ovnirun (1024 distinct slots cost each process two fresh pages and
 * ovnirun two faults).  The rest of the file is never touched. */
#define OA_RUN_SLOTS 256u
#define OA_RUN_PROBE 32u
#define OA_RUN_PATH 256u
/* Room for a slot's stream.json (a thread's too: one limit for both, no
 * test on the way; a larger one goes to files of its own). */
#define OA_SLOT_JSON (OA_SPOOL_JSON - OA_RUN_PATH)
/* In the header page, after struct oa_spool_header, before the tid counts. */
#define OA_RUN_AT 1024u
#define OA_RUN_ENDED 96u
struct oa_run_header {
	char magic[8];
	_Atomic uint32_t ready;                     /* the slots' blocks are reserved: slots may be taken */
	_Atomic uint32_t gone;                      /* ovnirun is gone: a process writes its own slot out */
	_Atomic uint64_t done[OA_SPOOL_SLOTS / 64]; /* DONE slots, for ovnirun */
	_Atomic uint64_t used[OA_SPOOL_SLOTS / 64]; /* slots taken and not yet written out */
	/* Whose it is: the run's first process (OVNI_ROOT_PID: another run's,
	 * or a stale one, is not ours) and the loom whose directory ovnirun
	 * made (a process of another loom, a PID namespace's, makes its own). */
	_Atomic int32_t root_pid;
	char loom[256];
	/* Processes that ended with every stream of theirs finished, by pid
	 * (OA_RUN_ENDED entries, at pid % OA_RUN_ENDED: a later one takes the
	 * place).  ovnirun's last look at the trace reads one stream.json of
	 * such a process, not one per thread (oa_run_has_ended). */
	_Atomic int32_t ended[OA_RUN_ENDED];
	/* The loom's CPUs as stream.json text (cpus_len bytes at
	 * OA_RUN_CPUS_AT in the file), written once by the run's first process
	 * to get here (cpus: 1 while it does, 2 when they are there; the hash
	 * of its list, oa_meta_cpus_hash).  A process with the same list
	 * leaves them out of its slot's stream.json and whoever writes the
	 * slot out puts them back: with hundreds of CPUs they are kilobytes,
	 * more than a slot holds (every process of a 128-CPU machine wrote
	 * files of its own). */
	_Atomic uint32_t cpus;
	uint32_t cpus_len;
	_Atomic uint64_t cpus_hash;
};
/* Where that text is: the file's last slots, which the run never takes. */
#define OA_RUN_CPUS_MAX (1u << 20)
#define OA_RUN_CPUS_AT (OA_SPOOL_HEADER + (size_t)OA_SPOOL_SLOTS * OA_SPOOL_SLOT - OA_RUN_CPUS_MAX)
#define OA_RUN_CPUS_SLOT0 ((OA_RUN_CPUS_AT - OA_SPOOL_HEADER) / OA_SPOOL_SLOT)

static inline struct oa_spool_slot *oa_spool_slot_at(uint8_t *map, unsigned i)
{
	return (struct oa_spool_slot *)(map + OA_SPOOL_HEADER + (size_t)i * OA_SPOOL_SLOT);
}
static inline struct oa_spool_header *oa_spool_header_of(uint8_t *map)
{
	return (struct oa_spool_header *)map;
}
static inline struct oa_run_header *oa_run_header_of(uint8_t *map)
{
	return (struct oa_run_header *)(map + OA_RUN_AT);
}

/* The note that process pid ended with all its streams finished, set by
 * its end (after the last of them), taken back by its first thread other
 * than the main one (an earlier process's note, of a pid given again, or
 * an earlier image's): a note is only ever true of the process that now
 * has the streams of loom.L/proc.PID.  Entries taken by another pid are
 * lost, never wrong. */
static inline void oa_run_mark_ended(uint8_t *map, int32_t pid)
{
	atomic_store(&oa_run_header_of(map)->ended[(uint32_t)pid % OA_RUN_ENDED], pid);
}
static inline void oa_run_unmark_ended(uint8_t *map, int32_t pid)
{
	int32_t was = pid;
	atomic_compare_exchange_strong(&oa_run_header_of(map)->ended[(uint32_t)pid % OA_RUN_ENDED], &was, 0);
}
/* May the run's spool hold a slot of pid?  The header's count of slots in
 * use by pid & (OA_SPOOL_TIDS - 1): a byte of the header page. */
static inline int oa_run_maybe(uint8_t *map, int32_t pid)
{
	_Atomic uint8_t *c = (_Atomic uint8_t *)(map + OA_SPOOL_TIDS_AT) + ((uint32_t)pid & (OA_SPOOL_TIDS - 1));
	return pid > 0 && atomic_load_explicit(c, memory_order_acquire) != 0;
}

static inline int oa_run_has_ended(uint8_t *map, int32_t pid)
{
	return pid > 0 && atomic_load(&oa_run_header_of(map)->ended[(uint32_t)pid % OA_RUN_ENDED]) == pid;
}

/* The order slots are written out in (the order they were taken): slot
 * i's key (its index in the low 11 bits), and n keys sorted in place. */
uint64_t oa_spool_order_key(uint8_t *map, unsigned i);
void oa_spool_sort_keys(uint64_t *keys, unsigned n);

/* The file at fd mapped, if it is a run's spool of our layout, or NULL. */
uint8_t *oa_run_map_fd(int fd);

/* ovnirun: make the file (0 or -errno), then map it (ready), or NULL.  It
 * stays sparse: a process reserves its slot's blocks when it takes it
 * (MADV_POPULATE_WRITE: a full file system is no slot, never a SIGBUS),
 * so that a run costs the pages of its slots in use, not 8 MiB. */
int oa_run_create(const char *path, const char *loom);
/* The run's first process, once ovnirun has started it. */
void oa_run_root(uint8_t *map, int root_pid);
uint8_t *oa_run_open(const char *path, int prepare);
size_t oa_run_len(void);

/* A process of run root_pid and loom `loom`: map the run's spool at path
 * if it is ready and theirs (or NULL). */
uint8_t *oa_run_attach(const char *path, int root_pid, const char *loom);

/* A slot for process pid (LIVE), its directory `rel` (relative to the
 * trace) noted in it; its obs area in *obs.  NULL when none is free. */
struct oa_spool_slot *oa_run_take(uint8_t *map, int pid, const char *rel, uint8_t **obs);

struct oa_meta;
/* May this process leave its loom's CPUs out of its slot's stream.json?
 * Yes when the run's header holds the same list; the run's first process
 * to ask writes its own there.  Async-signal-safe. */
int oa_run_cpus_apart(uint8_t *map, const struct oa_meta *m);

/* The slot process pid holds (the first found), or NULL; without a probe
 * when the header's count says there is none. */
struct oa_spool_slot *oa_run_find(uint8_t *map, int pid);

/* A slot just made DONE (its obs_len and json_len set): shown to ovnirun. */
void oa_run_done(uint8_t *map, struct oa_spool_slot *s);

/* Free a run slot its stream left (into files of its own), used: the obs
 * bytes it wrote. */
void oa_run_release(uint8_t *map, struct oa_spool_slot *s, size_t used);

/* Is ovnirun gone (a process then writes its slot out itself)? */
int oa_run_gone(uint8_t *map);

/* Write slot s out into tracedir/<its directory>/thread.T and free it, if
 * it is in state `expect` (DONE, or LIVE for a process that is gone): 1,
 * 0 when it is not (someone else has it), or -errno (left as it was).
 * Signals should be blocked by the caller. */
int oa_run_write(const char *tracedir, uint8_t *map, struct oa_spool_slot *s, uint32_t expect);

/* The process itself, ovnirun gone: its DONE slot s into procdir (its
 * own directory).  1, 0 (not DONE: ovnirun took it), or -errno. */
int oa_run_write_in(const char *procdir, uint8_t *map, struct oa_spool_slot *s);

/* ovnirun: write the DONE slots out (in the order they were taken); with
 * alive (the end of the run), the LIVE slots of processes that are gone
 * too.  The streams written; *in_use: slots left. */
int oa_run_unpack(const char *tracedir, uint8_t *map, int (*alive)(int pid, const uint8_t *obs), unsigned *in_use);

/* ovnirun, at its end: gone (what ends from now on is written out by its
 * process). */
void oa_run_leave(uint8_t *map);

/* `ovni-auto repair` and `check`: the run's spool of trace `tracedir`,
 * if any.  write 0: the slots in use.  write 1: every slot in use written
 * out (in the order taken: DONE ones as they are, the others as cut
 * short), but those of processes that alive() says still run; the file
 * removed when none is left and its ovnirun (the header's pid) is gone.
 * The slots in use (write 0) or the streams written, 0 for no file (or
 * none), or -errno. */
int oa_run_unpack_file(const char *tracedir, int write, int (*alive)(int pid));

#endif
