/* test_symbols.c: code addresses to function names (own ELF reader): a static
 * function (only in .symtab), a global one, one in libc, the cache, and
 * addresses that belong to no function. */
#include <stdint.h>

#include "../../preload/symbols.h"
#include "test.h"

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
	TEST_DONE();
}
