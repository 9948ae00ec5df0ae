/* table.c: the hosts (looms) and processes the collector has heard of. */
#include <stdlib.h>
#include <string.h>

#include "collect.h"

struct oa_col_host *oa_col_hosts;
struct oa_col_proc *oa_col_procs;
long oa_col_nprocs;

/* A loom name that is one safe path component. */
int oa_col_valid_loom(const char *s)
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

struct oa_col_host *oa_col_host_get(const char *loom)
{
	struct oa_col_host **pp = &oa_col_hosts;
	for (; *pp; pp = &(*pp)->next)
		if (!strcmp((*pp)->loom, loom))
			return *pp;
	struct oa_col_host *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	strcpy(h->loom, loom);
	*pp = h; /* in the order they joined */
	return h;
}

struct oa_col_proc *oa_col_proc_get(struct oa_col_host *h, int pid)
{
	struct oa_col_proc **pp = &oa_col_procs;
	for (; *pp; pp = &(*pp)->next)
		if ((*pp)->host == h && (*pp)->pid == pid)
			return *pp;
	struct oa_col_proc *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->host = h;
	p->pid = pid;
	h->nprocs++;
	oa_col_nprocs++;
	*pp = p;
	return p;
}
