/* mktrace.c: writes a trace from a text description, for the tests of the
 * trace tools (valid traces and traces broken in one precise way).
 * usage: mktrace DIR < SPEC
 * SPEC lines:
 *   stream RELDIR JSON        start a stream: RELDIR/stream.json gets JSON
 *   ev MCV CLOCK [FIELD...]   an event; FIELD is i32:N u32:N i64:N u64:N or
 *                             str:TEXT (NUL-terminated); "jumbo" first makes
 *                             it a jumbo event
 *   raw HEXBYTES              bytes appended as they are (damage)
 *   header HEXBYTES           replace the 8-byte stream header
 *   v1proc RELDIR JSON        format v1: RELDIR/metadata.json gets JSON
 *   v1thread RELPATH          format v1: events go to RELPATH, no header
 * Lines starting with # are comments. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static FILE *obs;
static char dir[4096];

static void mkdirs(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
	mkdir(buf, 0755);
}

static size_t field(const char *f, uint8_t *out)
{
	if (!strncmp(f, "i32:", 4) || !strncmp(f, "u32:", 4)) {
		uint32_t v = (uint32_t)strtoll(f + 4, NULL, 0);
		memcpy(out, &v, 4);
		return 4;
	}
	if (!strncmp(f, "i64:", 4) || !strncmp(f, "u64:", 4)) {
		uint64_t v = (uint64_t)strtoull(f + 4, NULL, 0);
		if (f[0] == 'i')
			v = (uint64_t)strtoll(f + 4, NULL, 0);
		memcpy(out, &v, 8);
		return 8;
	}
	if (!strncmp(f, "str:", 4)) {
		size_t n = strlen(f + 4) + 1;
		memcpy(out, f + 4, n);
		return n;
	}
	fprintf(stderr, "mktrace: bad field %s\n", f);
	exit(2);
}

static void hexbytes(const char *h)
{
	for (; h[0] && h[1]; h += 2) {
		unsigned v;
		sscanf(h, "%2x", &v);
		fputc((int)v, obs);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mktrace DIR < SPEC\n");
		return 2;
	}
	char line[8192];
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		char *save, *word = strtok_r(line, " ", &save);
		if (!strcmp(word, "stream")) {
			char *rel = strtok_r(NULL, " ", &save);
			char *json = save;
			if (obs)
				fclose(obs);
			snprintf(dir, sizeof(dir), "%s/%s", argv[1], rel);
			mkdirs(dir);
			char path[4200];
			snprintf(path, sizeof(path), "%s/stream.json", dir);
			FILE *j = fopen(path, "w");
			fputs(json, j);
			fclose(j);
			snprintf(path, sizeof(path), "%s/stream.obs", dir);
			obs = fopen(path, "w+");
			fwrite("ovni\1\0\0\0", 1, 8, obs);
		} else if (!strcmp(word, "v1proc")) {
			char *rel = strtok_r(NULL, " ", &save);
			snprintf(dir, sizeof(dir), "%s/%s", argv[1], rel);
			mkdirs(dir);
			char path[4200];
			snprintf(path, sizeof(path), "%s/metadata.json", dir);
			FILE *j = fopen(path, "w");
			fputs(save, j);
			fclose(j);
		} else if (!strcmp(word, "v1thread")) {
			char path[4200];
			if (obs)
				fclose(obs);
			snprintf(path, sizeof(path), "%s/%s", argv[1], strtok_r(NULL, " ", &save));
			obs = fopen(path, "w");
		} else if (!strcmp(word, "header")) {
			fseek(obs, 0, SEEK_SET);
			hexbytes(strtok_r(NULL, " ", &save));
			fseek(obs, 0, SEEK_END);
		} else if (!strcmp(word, "raw")) {
			hexbytes(strtok_r(NULL, " ", &save));
		} else if (!strcmp(word, "ev")) {
			char *f = strtok_r(NULL, " ", &save);
			int jumbo = !strcmp(f, "jumbo");
			const char *mcv = jumbo ? strtok_r(NULL, " ", &save) : f;
			uint64_t clock = strtoull(strtok_r(NULL, " ", &save), NULL, 0);
			uint8_t payload[4096];
			size_t n = 0;
			while ((f = strtok_r(NULL, " ", &save)))
				n += field(f, payload + n);
			uint8_t flags = jumbo ? 0x13 : (uint8_t)(n ? n - 1 : 0);
			fputc(flags, obs);
			fwrite(mcv, 1, 3, obs);
			fwrite(&clock, 1, 8, obs);
			if (jumbo) {
				uint32_t len = (uint32_t)n;
				fwrite(&len, 1, 4, obs);
			}
			fwrite(payload, 1, n, obs);
		} else {
			fprintf(stderr, "mktrace: unknown line '%s'\n", word);
			return 2;
		}
	}
	if (obs)
		fclose(obs);
	return 0;
}
