/* names.h: thread names (names.c). */
#ifndef OA_NAMES_H
#define OA_NAMES_H

/* Label the calling thread with `name` (mark channel 84). */
void names_set(const char *name);
/* Label the calling thread with the name of its start routine. */
void names_start_routine(void *(*fn)(void *));

#endif
