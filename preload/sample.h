/* sample.h: the sampling mode (OVNI_SAMPLE_US=N): every N microseconds of a
 * traced thread's CPU time, the function it is running is recorded as a value
 * of mark channel 83 ("Sampled function"). */
#ifndef OA_SAMPLE_H
#define OA_SAMPLE_H

struct oa_thread;

/* Process start: set up the signal handler (no-op when sampling is off). */
void oa_sample_init(void);
/* Start / stop the calling thread's timer. */
void oa_sample_thread_start(struct oa_thread *t);
void oa_sample_thread_stop(struct oa_thread *t);
/* The program took the sampling signal (`why`: how): every timer is
 * deleted, one line on stderr (none when why is NULL), a mark on the
 * calling thread.  Once; async-signal-safe. */
void oa_sample_stop(const char *why);
/* The handler installed for the sampling signal (by signal.c, which keeps
 * the program's view of the disposition): a sample of ours is recorded (or
 * dropped once stopped), any other signal goes to the program's
 * disposition (oa_signal_deliver). */
#include <signal.h>
void oa_sample_on_signal(int sig, siginfo_t *si, void *ctx);
/* Who delivers the program's own signals to the program's disposition. */
void oa_sample_set_deliver(void (*fn)(int, siginfo_t *, void *));
/* The signal was sent by one of our sampling timers. */
int oa_sample_is_ours(const siginfo_t *si);
/* The sampling signal, or 0 when sampling is off. */
int oa_sample_signal(void);
/* Label every sampled address seen so far (not in a signal handler). */
struct oa_label_list;
void oa_sample_label(struct oa_label_list *owner);

#endif
