/* json.c: jansson, loaded only when a program needs it (see json.h).
 * The agent links no JSON library: a process that never uses the libovni
 * attribute API maps one object (ours) instead of two.  The jansson
 * functions the agent calls are defined here, hidden, each forwarding to
 * the library opened by oa_json_load(). */
#include "json.h"
#include "../common/compiler.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../common/log.h"

/* The functions that return a value; json_delete apart. */
#define JSON_FUNCS_RET(X)                                                                           \
	X(json_t *, json_object, (void), ())                                                        \
	X(json_t *, json_array, (void), ())                                                         \
	X(json_t *, json_string, (const char *v), (v))                                              \
	X(json_t *, json_integer, (json_int_t v), (v))                                              \
	X(json_t *, json_real, (double v), (v))                                                     \
	X(json_t *, json_true, (void), ())                                                          \
	X(json_t *, json_false, (void), ())                                                         \
	X(size_t, json_object_size, (const json_t *o), (o))                                         \
	X(json_t *, json_object_get, (const json_t *o, const char *k), (o, k))                      \
	X(int, json_object_set_new, (json_t * o, const char *k, json_t *v), (o, k, v))              \
	X(int, json_object_del, (json_t * o, const char *k), (o, k))                                \
	X(json_t *, json_array_get, (const json_t *a, size_t i), (a, i))                            \
	X(int, json_array_append_new, (json_t * a, json_t * v), (a, v))                             \
	X(const char *, json_string_value, (const json_t *s), (s))                                  \
	X(double, json_number_value, (const json_t *j), (j))                                        \
	X(int, json_equal, (const json_t *a, const json_t *b), (a, b))                              \
	X(json_t *, json_copy, (json_t * v), (v))                                                   \
	X(json_t *, json_loads, (const char *in, size_t f, json_error_t *e), (in, f, e))            \
	X(json_t *, json_loadb, (const char *b, size_t n, size_t f, json_error_t *e), (b, n, f, e)) \
	X(char *, json_dumps, (const json_t *j, size_t f), (j, f))                                  \
	X(json_t *, json_vpack_ex, (json_error_t * e, size_t f, const char *fmt, va_list ap), (e, f, fmt, ap))
#define JSON_FUNCS(X) JSON_FUNCS_RET(X) X(void, json_delete, (json_t * j), (j))

static struct {
#define FIELD(ret, name, params, args) ret(*name) params;
	JSON_FUNCS(FIELD)
#undef FIELD
} J OA_LARGE_BSS; /* a program with libovni only: not among the small variables every process writes */

static _Atomic int state; /* 0 not tried, 1 loaded, -1 unavailable */

int oa_json_load(void)
{
	int s = atomic_load(&state);
	if (s)
		return s > 0 ? 0 : -1;
	void *h = dlopen("libjansson.so.4", RTLD_NOW | RTLD_LOCAL);
	int ok = h != NULL;
#define RESOLVE(ret, name, params, args)                  \
	if (ok && !(*(void **)&J.name = dlsym(h, #name))) \
		ok = 0;
	JSON_FUNCS(RESOLVE)
#undef RESOLVE
	if (!ok)
		oa_log("cannot load libjansson.so.4 (the libovni attribute API needs it): attributes are not recorded");
	atomic_store(&state, ok ? 1 : -1);
	return ok ? 0 : -1;
}

int oa_json_ready(void)
{
	return atomic_load(&state) > 0;
}

/* Each function: the library's (loaded at first use if it was not yet);
 * without it, what jansson returns on failure (NULL, -1, 0). */
#define FORWARD(ret, name, params, args) \
	ret name params                  \
	{                                \
		if (oa_json_load() != 0) \
			return (ret)0;   \
		return J.name args;      \
	}
JSON_FUNCS_RET(FORWARD)

void json_delete(json_t *j)
{
	if (oa_json_load() == 0)
		J.json_delete(j);
}

json_t *json_pack(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	json_t *r = json_vpack_ex(NULL, 0, fmt, ap);
	va_end(ap);
	return r;
}
