/* registry.h: the process's list of thread streams.  Slots are allocated by
 * the threads themselves and never unlinked, so any thread (an exiting one, a
 * fatal signal handler) can walk the list without a lock and end the streams
 * of threads that are still running. */
#ifndef OA_REGISTRY_H
#define OA_REGISTRY_H

#include "stream.h"

/* Once per process (and again in a fork child): set up the memory barrier. */
void oa_registry_init(void);
/* The memory barrier's registration made now, while the process has one
 * thread (it is slow once there are others): called before a thread
 * starts.  Once per process; errno kept. */
void oa_registry_barrier_ready(void);

/* A slot for the calling thread, in state OPENING. NULL if out of memory.
 * slot_size and offset (the same on every call) let the caller embed the
 * stream at `offset` of a larger per-thread struct of slot_size bytes. */
struct oa_stream *oa_registry_acquire(size_t slot_size, size_t offset);
/* The next slot that needs memory is this one (zeroed, slot_size bytes,
 * never freed: static storage), not calloc's: a process's first thread
 * takes no heap (common/arena.h says why). */
void oa_registry_seed(void *slot);

/* After acquiring (OPENING): may the stream be created? 0 when the process
 * is already ending (the caller then abandons the slot, untraced). */
int oa_registry_may_open(void);

/* The owner made its stream visible: OPENING -> OPEN. Returns 0, or -1 when
 * the process is already ending (the caller then ends its own stream). */
int oa_registry_publish(struct oa_stream *s);

/* The owner claims its own stream to end it. 0 if it now owns the end,
 * -1 if another thread already claimed it (then it must not touch it). */
int oa_registry_claim_self(struct oa_stream *s);

/* After the owner closed its stream itself: the slot may be reused. */
void oa_registry_release(struct oa_stream *s);

/* Give up an OPENING slot whose stream could not be opened. */
void oa_registry_abandon(struct oa_stream *s);

/* Called for each stream that oa_registry_end_others() ends, while the caller
 * owns it and its thread no longer emits: write the last events, close. */
typedef void (*oa_end_fn)(struct oa_stream *s, void *arg);

/* Mark the process as ending; wait (bounded, ~5 s) for threads that are
 * creating or ending their own stream; claim every OPEN stream except
 * `self`, wait (bounded: ~1 s, ~10 s for a thread inside a flush) until their
 * threads are out of the emit path, then call end() for each.
 * Async-signal-safe.  Returns how many streams it ended; streams whose
 * thread stayed inside an emit longer than the bound are left alone
 * (`ovni-auto repair` closes them).  A second caller (exit from two threads,
 * a crash during exit) ends nothing and returns once the first caller has
 * called oa_registry_done() (bounded, ~10 s), so that the process does not
 * die under it. */
int oa_registry_end_others(struct oa_stream *self, oa_end_fn end, void *arg);

/* After oa_registry_end_others(): wait again (bounded, ~5 s) for threads
 * that are ending their own stream (one that published its stream as the
 * process began ending ends it itself, maybe after the first wait). */
void oa_registry_settle(struct oa_stream *self);

/* The caller of oa_registry_end_others() has also ended its own stream. */
void oa_registry_done(void);

/* Wait (bounded) until the process's streams are all ended. */
void oa_registry_wait_ended(void);

/* A failed exec: the process goes on, new streams may open again. */
void oa_registry_resume(void);

/* Nonzero once oa_registry_end_others() has started. */
int oa_registry_ending(void);

/* Fork child: every slot but `keep` belonged to a thread that does not exist
 * here: drop them without writing (they are the parent's files). */
void oa_registry_after_fork(struct oa_stream *keep);

/* Iterate (for statistics and tests). */
struct oa_stream *oa_registry_first(void);

#endif
