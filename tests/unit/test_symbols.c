/* test_symbols.c: code addresses to function names (own ELF reader): a static
 * function (only in .symtab), a global one, one in libc, the cache, and
 * addresses that belong to no function. */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "../../preload/symbols.h"
#include "test.h"

/* What the module takes from the writer (writer/stream.h): a seal coming
 * (a seccomp filter) and the work it waits for. */
_Atomic int oa_sys_work, oa_stream_frozen;

__attribute__((noinline)) static int local_helper(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int global_worker(int x)
{
	return local_helper(x) + 2;
}

int main(void)
{
	CHECK(global_worker(1) == 6, "code runs");
	uintptr_t a = (uintptr_t)&local_helper + 4, b = (uintptr_t)&global_worker + 2;
	CHECK(!strcmp(oa_sym_name(a), "local_helper"), "static function: %s", oa_sym_name(a));
	CHECK(!strcmp(oa_sym_name(b), "global_worker"), "global function: %s", oa_sym_name(b));
	CHECK(oa_sym_start(a) == (uintptr_t)&local_helper, "start of local_helper");
	CHECK(oa_sym_name(a) == oa_sym_name(a), "cached (same string)");
	const char *p = oa_sym_name((uintptr_t)&fprintf + 1);
	CHECK(strstr(p, "printf") != NULL, "libc function: %s", p);
	int on_stack;
	CHECK(!strcmp(oa_sym_name((uintptr_t)&on_stack), "??"), "stack address: %s", oa_sym_name((uintptr_t)&on_stack));
	CHECK(!strcmp(oa_sym_name(0), "??"), "NULL");
	/* Many distinct addresses: the cache keeps answering. */
	for (uintptr_t i = 0; i < 5000; i++)
		if (strcmp(oa_sym_name((uintptr_t)&global_worker + (i % 3)), "global_worker"))
			CHECK(0, "lookup %lu", (unsigned long)i);
	/* A seal coming: an address whose object was never read gives no
	 * name (reading it would be system calls under the filter), and is
	 * not kept so; the cached ones still answer. */
	atomic_store(&oa_stream_frozen, 1);
	const char *q = oa_sym_name((uintptr_t)&strlen + 1);
	CHECK(!strcmp(q, "??"), "frozen, libc's strlen not looked up: %s", q);
	CHECK(!strcmp(oa_sym_name(b), "global_worker"), "frozen, cached: %s", oa_sym_name(b));
	CHECK(oa_sys_work == 0, "no work left counted: %d", oa_sys_work);
	atomic_store(&oa_stream_frozen, 0);
	q = oa_sym_name((uintptr_t)&strlen + 1);
	CHECK(strcmp(q, "??") != 0, "after the seal, looked up: %s", q);
	TEST_DONE();
}
