/* childenv.h: the environment a child program gets.  When a program execs or
 * spawns with an environment that lost the agent (LD_PRELOAD) or its OVNI_*
 * settings, they are put back so the child is traced into the same trace.
 * No malloc: the caller provides the arrays (on its stack). */
#ifndef OA_CHILDENV_H
#define OA_CHILDENV_H

#include <stddef.h>

/* At process start: remember the agent's path and the OVNI_* variables. */
void oa_childenv_init(void);

/* Upper bound of entries the result may need beyond envp's own count. */
#define OA_CHILDENV_EXTRA 40
/* Bytes of text the result may need for envp (any length of LD_PRELOAD). */
size_t oa_childenv_text_size(char *const envp[]);

/* Fill out[] (at least count(envp) + OA_CHILDENV_EXTRA + 1 entries) with envp
 * plus what is missing; strings built are written in text[], of at least
 * oa_childenv_text_size(envp) bytes.  `own` and `own2` (or NULL): a
 * "NAME=value" of this child's own, which replaces any NAME in envp
 * (OVNI_NSPID, OVNI_FORKED).  Returns out, or envp itself when nothing was
 * missing or added. */
char *const *oa_childenv(char *const envp[], char **out, char *text, char *own, char *own2);

/* The environment of a program that cannot load the agent (its file is not
 * reachable from here: a chroot, a sandbox's own file system, where the
 * loader would print an error for every program started): envp with the
 * agent's file taken out of LD_PRELOAD (the variable dropped if nothing is
 * left), in out[] (at least count(envp) + 1 entries) and text (at least
 * oa_childenv_text_size(envp) bytes).  Returns out. */
char *const *oa_childenv_without_agent(char *const envp[], char **out, char *text);

/* The environment of a program started by a sealed process (agent.h): envp
 * with OVNI_DISABLE=1 in place of any OVNI_DISABLE, in out[] (at least
 * count(envp) + 2 entries).  Returns out. */
char *const *oa_childenv_sealed(char *const envp[], char **out);

/* Room for the `own` string of oa_childenv (agent_nspid_env). */
#define OA_CHILDENV_OWN 80

/* Can this process read the agent's file by the name children get? (A
 * mount namespace of its own may hide it.) */
int oa_childenv_lib_reachable(void);

/* One more "OVNI_X=value" (static storage) for the programs this process
 * starts, replacing the one of that name it had; ignored when full. */
void oa_childenv_add(char *entry);

/* Number of entries of envp. */
size_t oa_childenv_count(char *const envp[]);

#endif
