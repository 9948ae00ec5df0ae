/* test_real.c: the agent's own lookup of real functions (preload/real.c)
 * finds what dlsym(RTLD_NEXT)/dlvsym() find: every symbol the agent
 * interposes (the export map), the versions of the condition variables, the
 * functions the agent calls itself, IFUNCs (left to dlsym), data, and
 * names that exist nowhere.  Linked into this program, "after our object"
 * means every library, as RTLD_NEXT from the executable does. */
#include <dlfcn.h>

#include "../../preload/real.h"
#include "test.h"

static int compared;

static void same(const char *name, const char *version)
{
	void *want = version ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name);
	void *got = oa_real_lookup(name, version);
	compared++;
	CHECK(got == want, "%s%s%s: %p, dlsym says %p", name, version ? "@" : "", version ? version : "", got,
	      want);
}

int main(void)
{
	FILE *f = fopen(EXPORTS_MAP, "r");
	CHECK(f != NULL, "open %s", EXPORTS_MAP);
	char line[256];
	int found = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char name[200];
		if (sscanf(line, " %199[A-Za-z0-9_];", name) == 1 && strcmp(name, "global") && strcmp(name, "local")) {
			same(name, NULL);
			found += dlsym(RTLD_NEXT, name) != NULL;
		}
	}
	if (f)
		fclose(f);
	CHECK(compared > 200 && found >= 60, "%d interposed symbols compared, %d found in libc", compared, found);
	static const char *const cond[] = { "pthread_cond_wait",    "pthread_cond_timedwait", "pthread_cond_signal",
					    "pthread_cond_broadcast", "pthread_cond_init",      "pthread_cond_destroy" };
	for (size_t i = 0; i < sizeof(cond) / sizeof(cond[0]); i++) {
		same(cond[i], "GLIBC_2.3.2");
		same(cond[i], "GLIBC_2.2.5");
		CHECK(oa_real_lookup(cond[i], "GLIBC_2.3.2") != oa_real_lookup(cond[i], "GLIBC_2.2.5"),
		      "two versions of %s", cond[i]);
	}
	same("pthread_cond_wait", "NO_SUCH_VERSION");
	static const char *const other[] = { "execveat", "quick_exit", "_Exit",  "sigaction", "memcpy", "strlen",
					     "gettimeofday", "environ",  "stdout", "errno",     "no_such_symbol_here" };
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		same(other[i], NULL);
	CHECK(oa_real_lookup("no_such_symbol_here", NULL) == NULL, "a missing symbol is NULL");
	void *slot = NULL;
	CHECK(oa_real_one(&slot, "write") == dlsym(RTLD_NEXT, "write") && slot == dlsym(RTLD_NEXT, "write"),
	      "oa_real_one fills the field");
	TEST_DONE();
}
