/* labels.h: names for what the events carry, shared by the tools: mark
 * titles and value labels (from every stream.json of the trace, looked up
 * once), and the names of the OpenMP subsystem states. */
#ifndef OA_LABELS_H
#define OA_LABELS_H

#include <stdint.h>

#include "reader.h"

struct lb_marks;

struct lb_marks *lb_marks_load(struct rd_trace *t);
void lb_marks_free(struct lb_marks *m);
/* The label of a mark value, or "value N"; the string lives as long as m. */
const char *lb_mark_label(struct lb_marks *m, int type, int64_t value);
const char *lb_mark_title(struct lb_marks *m, int type);

/* "barrier: plain" for PBb, ... ; NULL when cat/val open no known state. */
const char *lb_omp_state(char cat, char val);
/* The MPI function of an mpi model event, by its category and enter value
 * ('S', '[' for MPI_Send), or NULL. */
const char *lb_mpi_function(char cat, char val);

#endif
