/* table.c: the hosts (looms) and processes the collector has heard of. */
#include <stdlib.h>
#include <string.h>

#include "collect.h"

struct col_host *col_hosts;
struct col_proc *col_procs;
long col_nprocs;

/* A loom name that is one safe path component. */
int col_valid_loom(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > COL_LOOM_MAX || s[0] == '.')
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
		      *p == '-' || *p == '_' || *p == '+'))
			return 0;
	return 1;
}

struct col_host *col_host_get(const char *loom)
{
	struct col_host **pp = &col_hosts;
	for (; *pp; pp = &(*pp)->next)
		if (!strcmp((*pp)->loom, loom))
			return *pp;
	struct col_host *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	strcpy(h->loom, loom);
	*pp = h; /* in the order they joined */
	return h;
}

struct col_proc *col_proc_get(struct col_host *h, int pid)
{
	struct col_proc **pp = &col_procs;
	for (; *pp; pp = &(*pp)->next)
		if ((*pp)->host == h && (*pp)->pid == pid)
			return *pp;
	struct col_proc *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->host = h;
	p->pid = pid;
	h->nprocs++;
	col_nprocs++;
	*pp = p;
	return p;
}
