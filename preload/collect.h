/* collect.h: the agent's side of `ovni-auto collect` (OVNI_COLLECT): join
 * the collector at start, keep the streams in a local directory meanwhile,
 * send them when the process ends.  The wire format is writer/collect_fmt.h. */
#ifndef OA_COLLECT_H
#define OA_COLLECT_H

/* How a process's trace ended, as told to the collector. */
enum oa_col_how { OA_COLLECT_EXIT, OA_COLLECT_SIGNAL, OA_COLLECT_STOPPED };

/* Called once the configuration is read and the clock started, before the
 * process's directories are chosen.  With OVNI_COLLECT set: joins the
 * collector (answering its clock measurement) and points oa_cfg.tracedir at
 * the local directory the streams wait in.  Returns 0, or -1 when
 * OVNI_COLLECT is malformed (the program then runs untraced). */
int oa_col_init(void);

/* A process image the agent does not trace (an exec of a launcher, or of
 * a program the children pattern excludes): the streams its earlier image
 * left in the local directory are sent now. */
void oa_col_untraced_image(void);

/* In a forked child, before its streams are opened: the parent's
 * connection is not ours; join again as the new process when `traced`.
 * Returns -1 when the child must not be traced (the run is stopping). */
int oa_col_after_fork(int traced);

/* After every stream of the process is ended: send them and remove the
 * local copies.  Once per process image that ends (not at exec).
 * Async-signal-safe. */
void oa_col_process_done(enum oa_col_how how, int sig);

/* Is OVNI_COLLECT in effect for this process? */
int oa_col_active(void);

/* The fail-stop watcher's work (preload/agent.c provides it): end every
 * stream, as at exit, and leave the process untraced. */
void agent_collect_stop(void);

#endif
