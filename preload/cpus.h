/* cpus.h: the loom's CPUs (online OS CPUs, indexed 0..N-1) and which thread
 * is shown on which physical CPU.  A thread is put on a physical CPU only
 * when its affinity pins it to exactly one CPU that no other running thread
 * of the loom (any process) holds; otherwise it runs on the virtual CPU -1.
 * Holding is a claim file in <tracedir>/loom.<loom>/.cpus/ ("TID PID", made
 * with O_EXCL; removed only by that thread's process), shared by every
 * process that traces into that loom. */
#ifndef OA_CPUS_H
#define OA_CPUS_H

#include <sched.h>

/* The online CPUs of loom (told by OVNI_CPUS, or read from
 * /sys/devices/system/cpu/online and then told). Returns the count, fills
 * *phyids (malloc'd). */
int oa_cpus_discover(const char *loom, int **phyids);

/* Set the claim directory (once, at process start). */
void oa_cpus_set_dir(const char *tracedir, const char *loom);

/* The loom CPU index a thread with this affinity would be shown on, claiming
 * it for tid; -1 for the virtual CPU. Claims nothing when `set` has several CPUs. */
int oa_cpus_place(const cpu_set_t *set, size_t setsize, int tid);

/* Give back the claim of CPU index `cpu` held by tid (no-op for -1).
 * Async-signal-safe. */
void oa_cpus_release(int cpu, int tid);

#endif
