/* stub.c: a stand-in libovni.so.1 for the tests (built with that soname):
 * every function of the API says on stderr that it was called, once, and
 * does nothing (ovni_version_get reports $STUB_VERSION).  A test program linked to it shows, without the agent, that
 * it runs on its own libovni, and under the agent, that none of its calls
 * reached this library. */
#include <stdio.h>
#include <stdlib.h>
#include "ovni_api.h"

static int said;
static void called(const char *fn)
{
	if (!said++)
		fprintf(stderr, "stub libovni: %s called\n", fn);
}

void ovni_version_check_str(const char *version)
{
	called("ovni_version_check_str");
	(void)version;
}

/* The version a newer libovni would report: $STUB_VERSION (else none). */
void ovni_version_get(const char **version, const char **commit)
{
	called("ovni_version_get");
	if (getenv("STUB_VERSION"))
		*version = getenv("STUB_VERSION");
	(void)commit;
}

void ovni_proc_init(int app, const char *loom, int pid)
{
	called("ovni_proc_init");
	(void)app;
	(void)loom;
	(void)pid;
}

void ovni_proc_set_rank(int rank, int nranks)
{
	called("ovni_proc_set_rank");
	(void)rank;
	(void)nranks;
}

void ovni_proc_fini(void)
{
	called("ovni_proc_fini");
}

void ovni_thread_init(pid_t tid)
{
	called("ovni_thread_init");
	(void)tid;
}

void ovni_thread_require(const char *model, const char *version)
{
	called("ovni_thread_require");
	(void)model;
	(void)version;
}

void ovni_thread_free(void)
{
	called("ovni_thread_free");
}

int ovni_thread_isready(void)
{
	called("ovni_thread_isready");
	return 0;
}

void ovni_ev_set_mcv(struct ovni_ev *ev, const char *mcv)
{
	called("ovni_ev_set_mcv");
	(void)ev;
	(void)mcv;
}

uint64_t ovni_ev_get_clock(const struct ovni_ev *ev)
{
	called("ovni_ev_get_clock");
	(void)ev;
	return 0;
}

void ovni_ev_set_clock(struct ovni_ev *ev, uint64_t clock)
{
	called("ovni_ev_set_clock");
	(void)ev;
	(void)clock;
}

uint64_t ovni_clock_now(void)
{
	called("ovni_clock_now");
	return 0;
}

void ovni_payload_add(struct ovni_ev *ev, const uint8_t *buf, int size)
{
	called("ovni_payload_add");
	(void)ev;
	(void)buf;
	(void)size;
}

int ovni_ev_size(const struct ovni_ev *ev)
{
	called("ovni_ev_size");
	(void)ev;
	return 0;
}

int ovni_payload_size(const struct ovni_ev *ev)
{
	called("ovni_payload_size");
	(void)ev;
	return 0;
}

void ovni_add_cpu(int index, int phyid)
{
	called("ovni_add_cpu");
	(void)index;
	(void)phyid;
}

void ovni_ev_emit(struct ovni_ev *ev)
{
	called("ovni_ev_emit");
	(void)ev;
}

void ovni_ev_jumbo_emit(struct ovni_ev *ev, const uint8_t *buf, uint32_t bufsize)
{
	called("ovni_ev_jumbo_emit");
	(void)ev;
	(void)buf;
	(void)bufsize;
}

void ovni_flush(void)
{
	called("ovni_flush");
}

int ovni_attr_has(const char *key)
{
	called("ovni_attr_has");
	(void)key;
	return 0;
}

void ovni_attr_set_double(const char *key, double num)
{
	called("ovni_attr_set_double");
	(void)key;
	(void)num;
}

void ovni_attr_set_boolean(const char *key, int value)
{
	called("ovni_attr_set_boolean");
	(void)key;
	(void)value;
}

void ovni_attr_set_str(const char *key, const char *value)
{
	called("ovni_attr_set_str");
	(void)key;
	(void)value;
}

void ovni_attr_set_json(const char *key, const char *json)
{
	called("ovni_attr_set_json");
	(void)key;
	(void)json;
}

double ovni_attr_get_double(const char *key)
{
	called("ovni_attr_get_double");
	(void)key;
	return 0;
}

int ovni_attr_get_boolean(const char *key)
{
	called("ovni_attr_get_boolean");
	(void)key;
	return 0;
}

const char * ovni_attr_get_str(const char *key)
{
	called("ovni_attr_get_str");
	(void)key;
	return NULL;
}

char * ovni_attr_get_json(const char *key)
{
	called("ovni_attr_get_json");
	(void)key;
	return NULL;
}

void ovni_attr_flush(void)
{
	called("ovni_attr_flush");
}

void ovni_mark_type(int32_t type, long flags, const char *title)
{
	called("ovni_mark_type");
	(void)type;
	(void)flags;
	(void)title;
}

void ovni_mark_label(int32_t type, int64_t value, const char *label)
{
	called("ovni_mark_label");
	(void)type;
	(void)value;
	(void)label;
}

void ovni_mark_push(int32_t type, int64_t value)
{
	called("ovni_mark_push");
	(void)type;
	(void)value;
}

void ovni_mark_pop(int32_t type, int64_t value)
{
	called("ovni_mark_pop");
	(void)type;
	(void)value;
}

void ovni_mark_set(int32_t type, int64_t value)
{
	called("ovni_mark_set");
	(void)type;
	(void)value;
}
