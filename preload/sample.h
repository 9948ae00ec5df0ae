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
void oa_sample_thread_stop(void);
/* The sampling signal, or 0 when sampling is off. */
int oa_sample_signal(void);
/* Label every sampled address seen so far (not in a signal handler). */
struct oa_label_list;
void oa_sample_label(struct oa_label_list *owner);

#endif
