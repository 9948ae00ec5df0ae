/* procevents.h: the process-event mark channel (procevents.c). The
 * events themselves are agent_proc_event, agent_exit_event,
 * agent_signal_event, agent_exec_refused/attempt and agent_child_gone
 * (agent.h). */
#ifndef OA_PROCEVENTS_H
#define OA_PROCEVENTS_H

#include <stdint.h>

struct oa_thread;

/* At start: the channel's type, its fixed labels (signals), the labels an
 * exit or a real-time signal will need (prepared: they may come from a
 * signal handler). */
void oa_procev_declare(void);
/* An earlier image of this process labelled values up to sequence `last`:
 * go on after them. */
void oa_procev_seen(uint32_t last);
/* A fork child: the prepared labels are its own to use again. */
void oa_procev_after_fork(void);
/* Write the thread's pending "failed exec" event, if any (a shell's PATH
 * search). Async-signal-safe. */
void oa_procev_flush_refused(struct oa_thread *t);

/* The mark of an exit with `status` (as its parent sees it): its value,
 * and its label's text into text. */
#include <stddef.h>
int64_t oa_procev_exit_mark(int status, char *text, size_t len);
/* The label's text of a fork child's mark, "forked from PPID". */
void oa_procev_fork_text(char *text, size_t len, int ppid);
/* The exit label prepared at start, for the one exit it serves (NULL when
 * it was taken).  Async-signal-safe. */
struct oa_label *oa_procev_take_exit_label(void);
/* A failed exec waits to be written (a PATH search that found nothing). */
int oa_procev_refused_active(void);
/* A new value of the channel, unique in the trace (async-signal-safe). */
int64_t oa_procev_value(void);
/* The same with no system call (from a handler that may have interrupted
 * anything: the loom's counter if it is mapped, else the pid-based
 * values); and the mapping made now, outside such a handler. */
int64_t oa_procev_value_mapped(void);
void oa_procev_prepare_values(void);
/* The process's loom changed (it entered a PID namespace): values from
 * that loom's counter from now on. */
void oa_procev_loom_changed(void);
/* A process mark of value `value` on t's stream: its label `text` (with
 * `label` prepared, nothing is allocated; `fresh`: value is one of
 * oa_procev_value's, never labelled, the label hash is not looked at),
 * and the mark at `clock` (no earlier than the stream's last event).  A
 * new process labels its first marks before its stream's first
 * stream.json is written, and writes them once the stream is open. */
struct oa_label;
void oa_procev_label(struct oa_thread *t, struct oa_label *label, int fresh, int64_t value, const char *text);
void oa_procev_emit_at(struct oa_thread *t, int64_t value, uint64_t clock);

#endif
