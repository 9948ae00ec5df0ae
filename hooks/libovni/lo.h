/* lo.h: what the libovni API (libovni.c) and its attributes (attr.c)
 * share: the program's view of its thread, and the helpers both use. */
#ifndef OA_HOOKS_LO_H
#define OA_HOOKS_LO_H

#include "../../preload/json.h"
#include "../hooks.h"

struct lo_thread {
	int ready;     /* 1 between ovni_thread_init and ovni_thread_free, 2 after */
	int state;     /* enum lo_tstate, as the program's events left it */
	json_t *attrs; /* the program's attributes of this thread */
	json_t *view;  /* the agent's "ovni" members, as last read through the API */
};

/* This thread's, as the program's calls left it. */
extern OA_TLS struct lo_thread lo_self;

/* Misuse libovni would abort on: said once on stderr, then ignored. */
void lo_misuse(const char *what);
/* The calling thread's traced state (begun if the agent did not see the
 * thread start), NULL when the agent is not tracing it. */
struct oa_thread *lo_thread(void);
/* The written type of a program mark type, and whether it was moved
 * (the agent uses that number). */
int32_t lo_map_type(int32_t type);
int lo_type_moved(int type);

#endif
