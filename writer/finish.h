/* finish.h: ending the streams of a process that is gone without ending
 * them itself (killed by SIGKILL, a raw exit_group as Go's runtime does, a
 * stack overflow): read each unfinished stream back, cut it after its last
 * whole event, close the states its thread left open, end the thread (OHe)
 * and mark the stream finished.
 *
 * Two users: `ovni-auto repair` (any trace, after the fact) and the agent
 * in a parent that reaps a traced child (hooks/wait.c), which may run in a
 * SIGCHLD handler: everything here is async-signal-safe (system calls and
 * static buffers, no allocation, no lock but a try-flag). */
#ifndef OA_FINISH_H
#define OA_FINISH_H

#include <stddef.h>
#include <stdint.h>

/* What a thread left open, found by replaying its events. */
struct oa_replay {
	int state; /* 0 unknown, 1 running, 2 paused, 3 cooling, 4 warming, 5 dead */
	int flushing;
	int64_t marks[4096][2]; /* open stack marks: value, type */
	int nmarks;
	uint16_t sub[512]; /* open openmp subsystem states */
	int nsub;
	uint32_t labels[1024]; /* open PPx (high bit) and PQx */
	int nlabels;
	uint16_t mpi[64]; /* open MPI calls: category << 8 | enter value */
	int nmpi;
	uint64_t last;      /* last clock */
	int32_t mtypes[64]; /* mark types the events use */
	char mstack[64];    /* ... with OM[ / OM] (a stack channel) */
	int nmtypes;
	unsigned models; /* OA_REPLAY_OPENMP, OA_REPLAY_MPI: models the events use */
};

#define OA_REPLAY_OPENMP 1u
#define OA_REPLAY_MPI 2u

/* One event (mcv: its three characters; payload: size bytes) into r. */
void oa_replay_event(struct oa_replay *r, const char *mcv, uint64_t clock, const uint8_t *payload, uint32_t size);

/* Appends one event to buf (len: bytes used; cap: its size); 0, or -1 when
 * it does not fit. */
int oa_put_event(uint8_t *buf, size_t cap, size_t *len, const char *mcv, uint64_t clock, const void *payload,
		 unsigned n);

/* Appends the events that close what r left open, in a valid order, the
 * last OHe included (none for a thread that never started or had ended);
 * the number of events. */
int oa_replay_closers(const struct oa_replay *r, uint8_t *buf, size_t cap, size_t *len);

/* The agent's side: the process `pid` whose directory is `procdir`
 * (absolute, reached through oa_path_at) is gone.  If its main stream is
 * unfinished, every unfinished stream of the directory is finished; the main
 * thread gets a process event (mark 80) labelled `how`, its value from
 * value(pid) (called only when needed).  Streams with no event are set aside
 * (stream.json.empty), as repair does.  The directory is locked (flock) for
 * the time: a repair of the same process waits, another finisher gives up.
 * Returns the number of streams finished, 0 when there was nothing to do,
 * or -errno (busy, unreadable, no descriptor room). */
int oa_finish_process(const char *procdir, long pid, const char *how, int64_t (*value)(long pid));
/* The same when the main stream is finished too: the threads of a process
 * whose main thread left (pthread_exit) before it died in their spool. */
int oa_finish_process_all(const char *procdir, long pid, const char *how, int64_t (*value)(long pid));

/* Is the process pid of loom.<loom> under tracedir gone without finishing
 * its main stream (oa_finish_process has work)?  0 when it finished, or
 * has no stream there (another loom, untraced).  A parent asks this of
 * every child it reaps, after a fork: it uses ~300 bytes of stack and
 * writes no static page (each page written is a copy-on-write fault). */
int oa_finish_needed(const char *tracedir, const char *loom, long pid);

#endif
