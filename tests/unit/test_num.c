/* test_num.c: common/num.h against libc's strtoull and strtoll in base 10:
 * the values, where parsing stops, errno on overflow. */
#include <errno.h>
#include <stdlib.h>

#include "../../common/num.h"
#include "test.h"

int main(void)
{
	static const char *in[] = { "0",
				    "7",
				    "42:13",
				    "  12",
				    "\t-5x",
				    "+9",
				    "-0",
				    "",
				    "x1",
				    "-",
				    "+",
				    "18446744073709551615",
				    "18446744073709551616",
				    "99999999999999999999999",
				    "9223372036854775807",
				    "9223372036854775808",
				    "-9223372036854775808",
				    "-9223372036854775809",
				    "-1",
				    "123456789012:rest",
				    "0-3,5" };
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		char *e1, *e2;
		errno = 0;
		unsigned long long a = strtoull(in[i], &e1, 10);
		int err1 = errno;
		errno = 0;
		unsigned long long b = oa_strtoull(in[i], &e2);
		int err2 = errno;
		CHECK(a == b && e1 == e2 && err1 == err2, "strtoull(\"%s\"): %llu/%llu, end %td/%td, errno %d/%d", in[i],
		      a, b, e1 - in[i], e2 - in[i], err1, err2);
		errno = 0;
		long long c = strtoll(in[i], &e1, 10);
		err1 = errno;
		errno = 0;
		long long d = oa_strtoll(in[i], &e2);
		err2 = errno;
		CHECK(c == d && e1 == e2 && err1 == err2, "strtoll(\"%s\"): %lld/%lld, end %td/%td, errno %d/%d", in[i], c,
		      d, e1 - in[i], e2 - in[i], err1, err2);
	}
	CHECK(oa_strtoull("5", NULL) == 5 && oa_strtoll("-5", NULL) == -5, "without an end pointer");
	/* Sizes (OVNI_BUFSIZE, ovnirun -b): the one reading both use. */
	static const struct {
		const char *in;
		size_t want;
	} sz[] = { { "1048576", 1048576 }, { "4M", 4u << 20 }, { "512k", 512u << 10 }, { "8MB", 8u << 20 },
		   { "1G", (size_t)1 << 30 }, { "64kb", 64u << 10 }, { "0", 0 }, { "", 0 }, { "abc", 0 }, { "-1", 0 },
		   { "+4M", 0 }, { " 4M", 0 }, { "4X", 0 }, { "4MM", 0 }, { "99999999999999999999", 0 },
		   { "17179869184G", 0 } };
	for (size_t i = 0; i < sizeof(sz) / sizeof(sz[0]); i++)
		CHECK(oa_parse_size(sz[i].in) == sz[i].want, "size \"%s\": %zu, not %zu", sz[i].in,
		      oa_parse_size(sz[i].in), sz[i].want);
	TEST_DONE();
}
