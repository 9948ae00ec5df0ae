/* handover.h: a pending fork child's start, handed to the program it execs
 * (agent.c, "A fork child starts late").  The child passes its fork and its
 * exec in OVNI_FORKED; the new image writes them first.  It does so only
 * when the new image will be traced: a dynamic ELF program of our kind and
 * loader (or a script whose interpreter is one), neither set-user/group-ID
 * nor with file capabilities (the loader would drop LD_PRELOAD), and a
 * program the configuration traces (OVNI_CHILDREN, launchers). */
#ifndef OA_HANDOVER_H
#define OA_HANDOVER_H

#include <stddef.h>
#include <stdint.h>

/* The longest exec path handed over (a longer one is not handed over). */
#define OA_HANDOVER_PATH 400

struct oa_handover {
	int pid, ppid, parent_tid;
	uint64_t t_fork, t_exec;
	char path[OA_HANDOVER_PATH + 1];
};

/* Will the program exec'd as `path` (a name without '/' is looked up in
 * PATH, as execvp does), argv, envp be traced? */
int oa_handover_target_traced(const char *path, char *const argv[], char *const envp[]);

/* "OVNI_FORKED=..." into buf: 1, or 0 when it does not fit. */
int oa_handover_format(char *buf, size_t len, int pid, int ppid, int parent_tid, uint64_t t_fork, uint64_t t_exec,
		       const char *path);

/* The value of OVNI_FORKED into h: 0, or -1 when it is not one. */
int oa_handover_parse(const char *v, struct oa_handover *h);

#endif
