/* collect.h: the parts of `ovni-auto collect` (tools/cmd_collect.c is the
 * command and its event loop): what the collector knows of hosts and
 * processes (table.c), where received streams go (store.c) and the clock
 * offsets (clocks.c). */
#ifndef OA_TOOLS_COLLECT_H
#define OA_TOOLS_COLLECT_H

#include <stdint.h>
#include <stdio.h>

#define COL_LOOM_MAX 200

struct oa_col_host {
	char loom[COL_LOOM_MAX + 1];
	int measured;       /* 0, 1 (at join), 2 (and again later) */
	int joins_measured; /* processes measured at their join (the first 3) */
	int nmeasured;      /* series in all (at most MEASURE_MAX) */
	double first, last; /* offsets (ns, added to the host's clocks) */
	double first_mean, first_std, last_mean, last_std, first_rtt, last_rtt;
	uint64_t t_first, t_last; /* collector clock of each measurement */
	int nprocs;
	struct oa_col_host *next;
};

enum oa_col_proc_state { PROC_RUNNING, PROC_FINISHED, PROC_LOST };

struct oa_col_proc {
	struct oa_col_host *host;
	int pid;
	char prog[64];
	enum oa_col_proc_state state;
	int crashed;            /* its fatal signal, from its CRSH */
	int stopped;            /* it finished because we told it to (fail-stop) */
	int watch;              /* has an open watch connection */
	uint64_t watch_lost_at; /* when that connection ended (collector clock), 0 */
	int nstreams;
	uint64_t bytes;
	struct oa_col_proc *next;
};

/* table.c */
struct oa_col_host *oa_col_host_get(const char *loom);
struct oa_col_proc *oa_col_proc_get(struct oa_col_host *h, int pid);
extern struct oa_col_host *oa_col_hosts;
extern struct oa_col_proc *oa_col_procs;
extern long oa_col_nprocs;
int oa_col_valid_loom(const char *s);

/* store.c: files of one transfer wait in DIR/.incoming/<id>/ and move into
 * DIR/loom.L/proc.P/ when the process says FINI.  Names are checked: only
 * "thread.<digits>/stream.obs" or ".../stream.json". */
int oa_col_store_open_root(const char *dir);                   /* 0 or -errno */
int oa_col_store_begin(unsigned id);                           /* make the transfer's directory */
int oa_col_store_file(unsigned id, const char *name, int *fd); /* 0, -EINVAL (bad name), -errno */
int oa_col_store_commit(unsigned id, const char *loom, int pid, int *nstreams);
void oa_col_store_abort(unsigned id);
int oa_col_store_root(void);                               /* the trace directory's descriptor */
void oa_col_store_cleanup(void);                           /* removes .incoming */
int oa_col_write_file(const char *name, const char *text); /* a small file of ours in DIR, replaced whole */

/* clocks.c */
uint64_t oa_col_clock(void); /* the collector's CLOCK_MONOTONIC, ns */
/* Measure the offset of the agent at fd (blocking, until `deadline` at
 * most, collector clock): 0; -2 it answered in step but too slowly for the
 * deadline; -1 it did not answer as an agent does. */
int oa_col_clock_measure(int fd, uint64_t deadline, double *median, double *mean, double *std, double *rtt);
void oa_col_clock_write(FILE *summary);

/* clocks.c: measure a host's clock through one of its processes (fd):
 * the first processes of a host (again = 0) or a later one (again = 1).
 * 0, 1 when the host's first offset was just measured, -2 when the agent
 * answered too slowly (no series complete), -1 when it did not answer.
 * poor: its first round trip was far from the best seen (measure the next
 * process again). */
int oa_col_host_measure(struct oa_col_host *h, int fd, int again);
int oa_col_host_poor(const struct oa_col_host *h);

/* net.c */
int oa_col_listen(const char *spec, char *host, size_t hsize, int *port);
void oa_col_make_secret(char *secret, char *run);

/* report.c: processes running, finished, lost, and their streams */
void oa_col_counts(long *running, long *finished, long *lost, long *streams);
/* DIR/.collect-status: the collector's pid, state and counts */
void oa_col_status(uint64_t total_bytes, const char *state);
/* `collect --status DIR`: print it (1 when there is none) */
int oa_col_show_status(const char *dir);
/* The end: clock offsets, what did not finish, collect.txt (and stderr
 * unless quiet), the status "done". */
void oa_col_summary(const char *outdir, uint64_t total_bytes, long ngarbage, int quiet);

#endif
