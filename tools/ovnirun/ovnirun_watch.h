/* ovnirun_watch.h: the threads' spools written out while the run goes on.
 * A traced process's threads (all but its first) start in slots of a
 * spool file of their process (writer/spool.h), which the process writes
 * out as thread.T/ directories when it ends: ~25 us per thread on tmpfs,
 * up to milliseconds on a disk, all at the end of a process that ran
 * thousands of threads.  Under ovnirun each process appends the path of
 * every spool file it makes to a list of ours (OVNI_SPOOL_WATCH), and
 * ovnirun, which only waits for the program, writes out the slots of the
 * threads that ended (oa_spool_unpack_done) while the program runs, on a
 * core the program leaves idle.  The trace is the same either way. */
#ifndef OA_OVNIRUN_WATCH_H
#define OA_OVNIRUN_WATCH_H

#include <stdint.h>
#include <sys/types.h>

/* Make the list in `dir` (ovnirun's private directory): its path, to give
 * the program as OVNI_SPOOL_WATCH, or NULL when there is none (no pidfd to
 * wait with: ovnirun then blocks in waitpid as before). */
const char *watch_start(const char *dir);

/* Wait for `child` like waitpid(child, status, 0), writing spools out
 * meanwhile.  Returns child, or -1 with errno. */
pid_t watch_wait(pid_t child, int *status);
/* Stop ovnirun with sig as its default would (the disposition set to
 * SIG_DFL and the signal unblocked for the moment): a stop it was sent
 * (forwarded to the program first), or the program's own (watch_wait). */
void watch_stop_self(int sig);

/* As pid 1 of a PID namespace (`unshare -p -f ovnirun ./app`), reap the
 * orphans the kernel gives it, as any init does (a script that waits for
 * a daemon to go with `kill -0` waited forever on its zombie), but not
 * `keep` (the program, waited for apart); elsewhere nothing.  watch_wait
 * calls it while the program runs (every 10 ms at most), settle_run while
 * it waits for the run's last processes. */
void watch_reap_orphans(pid_t keep);

/* Forget the files and remove the list; the streams written while the
 * program ran. */
long watch_stop(void);

/* The run's spool (writer/spool.h) in the trace directory `trace` (made
 * here, with the directory of `loom`), followed while the program runs: 1
 * when made (the processes of that loom in the run of watch_run_root's
 * pid, the program, use it), 0 without a watcher or when it cannot be made (or
 * one is there already: another run's).  At the end, while processes of
 * the run finish: watch_run_settle writes out what ended and what is
 * gone (alive: is the process with that pid, whose stream begins with
 * those bytes, still running?).  Then watch_run_end: from now on each
 * process writes its own; the file is removed unless a slot is in use
 * (processes still running): their number. */
int watch_run_start(const char *trace, const char *loom);
void watch_run_root(pid_t root);
int watch_run_settle(int (*alive)(int pid, const uint8_t *obs));
/* Did process pid of the loom directory `loomdir` ("loom.L") end with all
 * its streams finished, as the run's spool says (oa_run_has_ended)? */
int watch_run_ended(const char *loomdir, pid_t pid);
unsigned watch_run_end(void);
/* Did watch_run_end remove the trace directory (made by the run, left
 * empty: no process was traced)? */
int watch_trace_removed(void);

#endif
