/* fdroom.h: the agent's discipline with descriptors: it holds none between
 * calls, and opens one for a moment only when the program is not near its
 * limit. */
#ifndef OA_FDROOM_H
#define OA_FDROOM_H

/* Is there room in the descriptor table for the agent's transient
 * descriptors?  No when RLIMIT_NOFILE is tiny (8 or less) or one of the top 8
 * slots below the limit is taken (tables fill from the bottom: the program
 * is near its limit, and a descriptor of ours could take the slot it is
 * about to need; the slot limit - 8 is looked at, nothing is opened).
 * Two system calls; async-signal-safe. */
int oa_fd_room(void);

/* fd moved to a number far from those the program allocates (64 below the
 * descriptor limit, or 100 and up), close-on-exec; the old number is
 * closed.  The new number, or fd itself when it cannot move. */
int oa_fd_move_high(int fd);

/* Up to cap bytes of fd from its current offset, read until the end or
 * cap (EINTR retried): the count.  Async-signal-safe. */
unsigned long oa_read_full(int fd, void *buf, unsigned long cap);

#endif
