/* test_env.c: common/env.h: oa_getenv and oa_env() against the environment,
 * with the start-time table (oa_env_snapshot) on and off: the first entry
 * of a name wins, a name that is a prefix of another is not taken for it,
 * oa_env_set and oa_env_unset fill the table anew, and with the table off
 * every read sees the environment as it is now. */
#include <stdlib.h>
#include <string.h>

#include "../../common/env.h"
#include "test.h"

extern char **environ;

static int same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

int main(void)
{
	static char *env[] = { "PATH=/bin",
			       "OVNI_LOOMX=not the loom",
			       "OVNI_LOOM=first",
			       "OVNI_LOOM=second",
			       "OVNI_TSC",
			       "OVNI_OMP_TSC=0",
			       "OVNI_DEBUG=",
			       "OVNI_=x",
			       "O=1",
			       "",
			       "OVNI_APPID=7",
			       NULL };
	char **saved = environ;
	/* setenv copies environ once it needs to grow: give it a copy it may free */
	size_t n = sizeof(env) / sizeof(env[0]);
	char **copy = malloc(n * sizeof(*copy));
	memcpy(copy, env, n * sizeof(*copy));
	environ = copy;

	for (int on = 0; on < 2; on++) {
		oa_env_snapshot(on);
		CHECK(oa_env_snap_on == on, "table %d", on);
		CHECK(same(oa_env(OA_ENV_LOOM), "first"), "on=%d: %s", on, oa_env(OA_ENV_LOOM));
		CHECK(same(oa_env(OA_ENV_LOOM), oa_getenv("OVNI_LOOM")), "on=%d", on);
		CHECK(oa_env(OA_ENV_TSC) == NULL, "on=%d: no '=' is no value", on);
		CHECK(same(oa_env(OA_ENV_OMP_TSC), "0"), "on=%d", on);
		CHECK(same(oa_env(OA_ENV_DEBUG), ""), "on=%d: set and empty", on);
		CHECK(same(oa_env(OA_ENV_APPID), "7"), "on=%d", on);
		CHECK(oa_env(OA_ENV_TRACEDIR) == NULL, "on=%d: unset", on);
		for (int e = 0; e < OA_ENV_N; e++)
			CHECK(same(oa_env((enum oa_env)e), oa_getenv(oa_env_names[e])), "on=%d: %s", on,
			      oa_env_names[e]);
	}

	/* Table on: the agent's own changes are seen at once. */
	oa_env_snapshot(1);
	CHECK(oa_env_set(OA_ENV_TRACEDIR, "/t") == 0, "setenv");
	CHECK(same(oa_env(OA_ENV_TRACEDIR), "/t"), "set: %s", oa_env(OA_ENV_TRACEDIR));
	CHECK(oa_env_snap_on == 1, "still on");
	CHECK(oa_env_unset(OA_ENV_APPID) == 0, "unsetenv");
	CHECK(oa_env(OA_ENV_APPID) == NULL, "unset: %s", oa_env(OA_ENV_APPID));
	CHECK(same(oa_env(OA_ENV_LOOM), oa_getenv("OVNI_LOOM")), "the loom after a setenv");

	/* Table off: a change behind the agent's back (the program's) is seen. */
	oa_env_snapshot(0);
	setenv("OVNI_BUFSIZE", "4M", 1);
	CHECK(same(oa_env(OA_ENV_BUFSIZE), "4M"), "off: %s", oa_env(OA_ENV_BUFSIZE));

	/* Prefix tests stop at the entry's end. */
	CHECK(oa_env_prefix("OVNI_", "OVNI_", 5), "prefix");
	CHECK(!oa_env_prefix("OVN", "OVNI_", 5), "short entry");
	CHECK(oa_env_is("A=1", "A", 1) && !oa_env_is("AB=1", "A", 1) && !oa_env_is("A", "A", 1), "is");

	CHECK(oa_str_has("/lib64/ld-linux-x86-64.so.2", "/ld-linux") && !oa_str_has("/lib/ld-musl.so", "/ld-linux") &&
		      oa_str_has("a:/x/libovni-auto.so", "/x/libovni-auto.so") && !oa_str_has("/x/libovni", "/x/libovni-auto.so") &&
		      oa_str_has("", ""),
	      "oa_str_has");

	environ = saved;
	free(copy);
	TEST_DONE();
}
