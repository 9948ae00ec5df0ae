/* ovnirun_collect.h: ovnirun's part in a run with `ovni-auto collect`. */
#ifndef OA_OVNIRUN_COLLECT_H
#define OA_OVNIRUN_COLLECT_H

#include <stddef.h>

/* CONTACT, or @FILE holding it, into out. 0, or -1 if it is not one. */
int oa_col_contact(const char *arg, char *out, size_t size);

/* Tell the collector a session begins (done 0) or its program ended (1). 0 or -1. */
int oa_col_session(const char *contact, int done);

#endif
