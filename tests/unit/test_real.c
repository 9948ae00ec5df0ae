/* test_real.c: the agent's own lookup of real functions (preload/real.c)
 * finds what dlsym(RTLD_NEXT)/dlvsym() find: every symbol the agent
 * interposes (the export map), the versions of the condition variables, the
 * functions the agent calls itself, IFUNCs (left to dlsym), data, and
 * names that exist nowhere.  Linked into this program, "after our object"
 * means every library, as RTLD_NEXT from the executable does.
 * oa_real_bind() binds this lazily linked program's PLT slots as the
 * loader would: each one is then what dlsym/dlvsym(RTLD_DEFAULT) say. */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <time.h>

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

extern ElfW(Dyn) _DYNAMIC[];

/* Every JUMP_SLOT of this program holds what dlvsym(RTLD_DEFAULT) gives. */
static void check_plt(void)
{
	const ElfW(Rela) *rel = NULL;
	const ElfW(Sym) *sym = NULL;
	const char *str = NULL;
	const ElfW(Half) *versym = NULL;
	const ElfW(Verneed) *vn = NULL;
	size_t size = 0;
	ElfW(Addr) base = _r_debug.r_map->l_addr;
	/* The loader has relocated some entries in place, not all. */
#define ADDR(v) ((const void *)((v) < base ? (v) + base : (v)))
	for (const ElfW(Dyn) *d = _DYNAMIC; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_JMPREL: rel = ADDR(d->d_un.d_ptr); break;
		case DT_PLTRELSZ: size = d->d_un.d_val; break;
		case DT_SYMTAB: sym = ADDR(d->d_un.d_ptr); break;
		case DT_STRTAB: str = ADDR(d->d_un.d_ptr); break;
		case DT_VERSYM: versym = ADDR(d->d_un.d_ptr); break;
		case DT_VERNEED: vn = ADDR(d->d_un.d_ptr); break;
		}
	}
	CHECK(rel && sym && str && size, "this program has PLT relocations");
	int checked = 0;
	for (size_t k = 0; rel && k < size / sizeof(*rel); k++) {
		uint32_t i = ELF64_R_SYM(rel[k].r_info);
		const char *name = str + sym[i].st_name, *version = NULL;
		for (const ElfW(Verneed) *n = vn; versym && n && !version;
		     n = n->vn_next ? (const void *)((const char *)n + n->vn_next) : NULL) {
			const ElfW(Vernaux) *a = (const void *)((const char *)n + n->vn_aux);
			for (unsigned j = 0; j < n->vn_cnt; j++, a = (const void *)((const char *)a + a->vna_next))
				if (a->vna_other == (versym[i] & 0x7fff))
					version = str + a->vna_name;
		}
		void *want = version ? dlvsym(RTLD_DEFAULT, name, version) : dlsym(RTLD_DEFAULT, name);
		void *got = *(void **)(base + rel[k].r_offset);
		CHECK(got == want, "PLT slot of %s@%s: %p, the loader says %p", name, version ? version : "", got,
		      want);
		checked++;
	}
	CHECK(checked >= 10, "%d PLT slots checked", checked);
}

static void compare_all(void)
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
}

int main(void)
{
	const char *volatile four = "four";
	/* Before any of them is called (lazy binding): all bound at once. */
	int left = -1, from = -1;
	static char table[4096], again[4096];
	unsetenv("OVNI_BIND");
	int bound = oa_real_bind(&left, &from, table, sizeof(table));
	CHECK(bound >= 10 && left == 0 && from == 0, "oa_real_bind: %d bound, %d left, %d from OVNI_BIND", bound, left,
	      from);
	check_plt();
	/* OVNI_BIND: this program's answers (as the agent's, with the same
	 * build and libc, in a child) serve again, and give the same slots;
	 * strlen is an IFUNC, resolved again. */
	CHECK(strlen(table) > 34 && table[16] == ':' && table[33] == ':' && strchr(table + 34, 'L') &&
	      strchr(table + 34, 'I'),
	      "a table for the children: %s", table);
	setenv("OVNI_BIND", table, 1);
	int bound2 = oa_real_bind(&left, &from, again, sizeof(again));
	CHECK(bound2 == bound && from >= bound / 2 && again[0] == 0,
	      "bound again from OVNI_BIND: %d of %d (%d before), none written", from, bound2, bound);
	check_plt();
	CHECK(strlen(four) == 4, "an IFUNC taken from OVNI_BIND runs");
	/* Another libc's table (its build ID differs): not used, ours made. */
	table[20] = table[20] == '0' ? '1' : '0';
	setenv("OVNI_BIND", table, 1);
	bound2 = oa_real_bind(&left, &from, again, sizeof(again));
	CHECK(bound2 == bound && from == 0 && again[0] && strcmp(again, table),
	      "another libc's OVNI_BIND is not used: %d from it", from);
	check_plt();
	/* A value this code does not read: looked up from there on. */
	table[20] = again[20];
	strcpy(table + 34, "L!!!!");
	setenv("OVNI_BIND", table, 1);
	bound2 = oa_real_bind(&left, &from, again, sizeof(again));
	CHECK(bound2 == bound && from == 0, "a garbled OVNI_BIND is not used: %d from it", from);
	check_plt();
	unsetenv("OVNI_BIND");
	struct timespec ts;
	CHECK(clock_gettime(CLOCK_MONOTONIC, &ts) == 0 && strlen(four) == 4 && pthread_self() != 0,
	      "bound functions run (a vDSO one, an IFUNC, libc)");
	/* The same answers walking the list, and from the scope read once. */
	compare_all();
	oa_real_scope(1);
	compare_all();
	oa_real_scope(0);
	/* After the constructors: the objects loaded at start still answer
	 * (this program is one of them, up to the loader), and what they
	 * lack is looked for in objects loaded since. */
	CHECK(oa_real_scope_lasts(), "the objects loaded at start serve lookups after start");
	compare_all();
	CHECK(oa_real_lookup("cos", NULL) == NULL && dlsym(RTLD_NEXT, "cos") == NULL, "no libm yet");
	void *m = dlopen("libm.so.6", RTLD_NOW | RTLD_GLOBAL);
	CHECK(m != NULL, "dlopen libm: %s", dlerror());
	same("cos", NULL);
	CHECK(oa_real_lookup("cos", NULL) != NULL, "found in an object loaded after start");
	same("malloc", NULL); /* still libc's, loaded first */
	if (m)
		dlclose(m);
	same("cos", NULL);
	compare_all();
	/* The vDSO's clock (writer/clock.h calls it directly). */
	int (*vdso_gettime)(clockid_t, struct timespec *) =
		(int (*)(clockid_t, struct timespec *))oa_real_vdso(OA_VDSO_CLOCK_GETTIME);
#if defined(__x86_64__)
	/* (aarch64's vDSO has no GNU hash table: NULL there, and the clock
	 * calls libc's clock_gettime.) */
	CHECK(vdso_gettime != NULL, "the vDSO's clock_gettime found");
#endif
	if (vdso_gettime) {
		struct timespec a, b, c;
		clock_gettime(CLOCK_MONOTONIC, &a);
		CHECK(vdso_gettime(CLOCK_MONOTONIC, &b) == 0, "the vDSO's clock_gettime runs");
		clock_gettime(CLOCK_MONOTONIC, &c);
		long long na = a.tv_sec * 1000000000ll + a.tv_nsec, nb = b.tv_sec * 1000000000ll + b.tv_nsec,
			  nc = c.tv_sec * 1000000000ll + c.tv_nsec;
		CHECK(na <= nb && nb <= nc, "the vDSO's CLOCK_MONOTONIC between two of libc's: %lld %lld %lld", na,
		      nb, nc);
	}
	CHECK(oa_real_vdso("no_such_vdso_function", "LINUX_2.6") == NULL, "a missing vDSO function is NULL");
	void *slot = NULL;
	CHECK(oa_real_one(&slot, "write") == dlsym(RTLD_NEXT, "write") && slot == dlsym(RTLD_NEXT, "write"),
	      "oa_real_one fills the field");
	TEST_DONE();
}
