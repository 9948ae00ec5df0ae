/* ovnirun_settle.h: the end of a run.  `ovnirun APP && ovniemu ovni` must
 * never see an unfinished trace: after the program ends, ovnirun waits
 * (bounded) for the processes of the run that are still finishing their
 * streams, finishes those of processes that are gone without finishing them
 * (a Go program's raw exit_group, SIGKILL, quick_exit, a stack overflow)
 * with `ovni-auto repair`, and names the processes it left running. */
#ifndef OA_OVNIRUN_SETTLE_H
#define OA_OVNIRUN_SETTLE_H

#include <stddef.h>
#include <sys/types.h>

/* `dir`: the trace directory; `root`: the program's pid, `status` its wait
 * status;
 * `wait_ms`: how long processes still running may take. Prints what it did
 * unless quiet; returns the number of processes left running. */
int settle_run(const char *dir, pid_t root, int status, int wait_ms, int quiet);
/* The run's loom when ovnirun runs in a PID namespace of its own and
 * shares the directory (LOOM.runns<inode>, ovnirun.c): settle_run and
 * settle_staged look at it and its nested namespaces' looms alone.  Either
 * way, another such run's loom (".runns") is never looked at: its pids are
 * not ours to look up, and its streams were finished under it. */
void settle_own_loom(const char *loom);

/* The directory ovnirun was run from: /proc/self/exe's, or where /proc is
 * not mounted (a chroot, a container) the path it was executed by
 * (AT_EXECFN), made absolute; kept from the first call, which is made
 * before anything could change the working directory.  0, or -1. */
int self_dir(char *out, size_t size);

/* Under a launcher (mpirun, srun, any step of a Slurm job: every rank
 * runs its own ovnirun into one trace directory) settle_run is not run: the
 * other ranks' processes may run on, here or on other hosts.  Only the
 * program is looked at: when it ended without finishing its streams (a
 * rank killed by SIGKILL), they are finished, saying how (`ovni-auto
 * repair --loom LOOM --pid ROOT`).  1 when it did, 0 when nothing was
 * needed, -1 when it could not. */
int settle_rank(const char *dir, const char *loom, pid_t root, int status, int quiet);

/* With -t: the streams a process of the run left in the staging
 * directory `stage` when it was killed (a process moves its own at its
 * end; a parent does not finish a staged child): those of processes that
 * are gone and made their directory in the trace `dir` are finished there
 * (`ovni-auto repair`, saying how: `status` for `root`), then moved into
 * the trace.  The number of processes moved. */
int settle_staged(const char *stage, const char *dir, pid_t root, int status, int quiet);

/* The streams and the processes with one, as settle_run's last look at
 * every stream.json saw them, when nothing was changed after it: 1, else 0
 * (count them again). */
int settle_counts(long *threads, long *procs);

/* /proc/PID/stat after the command's name (from the state on) into buf,
 * or NULL when there is no such process.  Async-signal-safe. */
char *proc_stat(pid_t pid, char *buf, size_t size);

/* `ovni-auto view -q DIR`: DIR/view.html. Returns 0 when it was written. */
int settle_view(const char *dir);

#endif
