/* ovni_api.h: the libovni 1.x C API as its documentation describes it
 * (function names, arguments and the packed event layout), written for the
 * tests of hooks/libovni/libovni.c.  Not upstream's header. */
#ifndef TEST_OVNI_API_H
#define TEST_OVNI_API_H

#include <stdint.h>
#include <sys/types.h>

struct __attribute__((packed)) ovni_ev {
	uint8_t flags; /* low nibble: payload size - 1 (0: none); 0x10: jumbo */
	uint8_t model, category, value;
	uint64_t clock;
	uint8_t payload[16];
};

#define OVNI_MARK_STACK 1
#define ovni_version_check() ovni_version_check_str("1.14.0")

void ovni_version_check_str(const char *version);
void ovni_version_get(const char **version, const char **commit);
void ovni_proc_init(int app, const char *loom, int pid);
void ovni_proc_set_rank(int rank, int nranks);
void ovni_proc_fini(void);
void ovni_thread_init(pid_t tid);
void ovni_thread_require(const char *model, const char *version);
void ovni_thread_free(void);
int ovni_thread_isready(void);
void ovni_ev_set_mcv(struct ovni_ev *ev, const char *mcv);
uint64_t ovni_ev_get_clock(const struct ovni_ev *ev);
void ovni_ev_set_clock(struct ovni_ev *ev, uint64_t clock);
uint64_t ovni_clock_now(void);
void ovni_payload_add(struct ovni_ev *ev, const uint8_t *buf, int size);
int ovni_ev_size(const struct ovni_ev *ev);
int ovni_payload_size(const struct ovni_ev *ev);
void ovni_add_cpu(int index, int phyid);
void ovni_ev_emit(struct ovni_ev *ev);
void ovni_ev_jumbo_emit(struct ovni_ev *ev, const uint8_t *buf, uint32_t bufsize);
void ovni_flush(void);
int ovni_attr_has(const char *key);
void ovni_attr_set_double(const char *key, double num);
void ovni_attr_set_boolean(const char *key, int value);
void ovni_attr_set_str(const char *key, const char *value);
void ovni_attr_set_json(const char *key, const char *json);
double ovni_attr_get_double(const char *key);
int ovni_attr_get_boolean(const char *key);
const char *ovni_attr_get_str(const char *key);
char *ovni_attr_get_json(const char *key);
void ovni_attr_flush(void);
void ovni_mark_type(int32_t type, long flags, const char *title);
void ovni_mark_label(int32_t type, int64_t value, const char *label);
void ovni_mark_push(int32_t type, int64_t value);
void ovni_mark_pop(int32_t type, int64_t value);
void ovni_mark_set(int32_t type, int64_t value);

#endif
