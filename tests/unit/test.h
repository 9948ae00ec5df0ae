/* test.h: tiny helpers for the unit tests: OK()/ERR() checks that count
 * failures, and a reader of stream.obs files written by the writer. */
#ifndef OA_TEST_H
#define OA_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../writer/ovni_fmt.h"

static int test_failures;
static int test_checks;

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		test_checks++;                                                  \
		if (!(cond)) {                                                  \
			test_failures++;                                        \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
		}                                                               \
	} while (0)

#define TEST_DONE()                                                                     \
	do {                                                                            \
		printf("%d checks, %d failed\n", test_checks, test_failures);          \
		return test_failures ? 1 : 0;                                           \
	} while (0)

static inline char *test_tmpdir(const char *name)
{
	char tmpl[256];
	snprintf(tmpl, sizeof(tmpl), "%s/oa-%s.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
	char *d = mkdtemp(tmpl);
	return d ? strdup(d) : NULL;
}

static inline void test_rmrf(const char *dir)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

static inline uint8_t *test_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	struct stat st;
	fstat(fd, &st);
	uint8_t *buf = malloc((size_t)st.st_size + 1);
	ssize_t n = read(fd, buf, (size_t)st.st_size);
	close(fd);
	*len = n < 0 ? 0 : (size_t)n;
	return buf;
}

/* One decoded event. */
struct test_ev {
	uint8_t flags;
	char mcv[4];
	uint64_t clock;
	const uint8_t *payload;
	uint32_t size; /* payload bytes (jumbo: data bytes) */
	size_t offset;
};

/* Next event at *off, 1 if one was read, 0 at the end, -1 if malformed. */
static inline int test_next_ev(const uint8_t *buf, size_t len, size_t *off, struct test_ev *ev)
{
	if (*off == len)
		return 0;
	if (*off + OVNI_EV_HEADER_SIZE > len)
		return -1;
	const uint8_t *p = buf + *off;
	ev->offset = *off;
	ev->flags = p[0];
	memcpy(ev->mcv, p + 1, 3);
	ev->mcv[3] = '\0';
	memcpy(&ev->clock, p + 4, 8);
	size_t size = OVNI_EV_HEADER_SIZE;
	if (ovni_flags_is_jumbo(ev->flags)) {
		if (*off + 16 > len)
			return -1;
		memcpy(&ev->size, p + 12, 4);
		ev->payload = p + 16;
		size += 4 + ev->size;
	} else {
		ev->size = ovni_flags_payload_size(ev->flags);
		ev->payload = p + 12;
		size += ev->size;
	}
	if (*off + size > len)
		return -1;
	*off += size;
	return 1;
}

#endif
