/* sionswap.c: writes a copy of a little-endian SIONlib file with its
 * metadata in big-endian order (what a big-endian writer would produce; the
 * task data is left as it is), for the reader's byte-order tests.
 * usage: sionswap IN OUT */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *buf;
static long size;

static void sw32(long off)
{
	if (off + 4 > size)
		exit(3);
	uint32_t v;
	memcpy(&v, buf + off, 4);
	v = __builtin_bswap32(v);
	memcpy(buf + off, &v, 4);
}

static void sw64(long off)
{
	if (off + 8 > size)
		exit(3);
	uint64_t v;
	memcpy(&v, buf + off, 8);
	v = __builtin_bswap64(v);
	memcpy(buf + off, &v, 8);
}

static int32_t get32(long off)
{
	int32_t v;
	memcpy(&v, buf + off, 4);
	return v;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		return 2;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)size);
	if (fread(buf, 1, (size_t)size, f) != (size_t)size)
		return 2;
	fclose(f);
	long n = get32(24), maxchunks;
	int64_t s;
	memcpy(buf + 4, "\1\1\1\1", 4);
	for (long o = 8; o < 36; o += 4)
		sw32(o);
	sw64(36);
	sw64(44);
	for (long i = 0; i < 2 * n; i++)
		sw64(1076 + 8 * i);
	maxchunks = get32(1076 + 16 * n);
	sw32(1076 + 16 * n);
	memcpy(&s, buf + 1080 + 16 * n, 8);
	sw64(1080 + 16 * n);
	for (long i = 0; i < n * (1 + maxchunks); i++)
		sw64(s + 8 * i);
	long end = s + 8 * n * (1 + maxchunks);
	if (end + 4 <= size) {
		long m = get32(end);
		sw32(end);
		for (long i = 0; i < 2 * m && end + 4 + 4 * i + 4 <= size; i++)
			sw32(end + 4 + 4 * i);
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(buf, 1, (size_t)size, f) != (size_t)size)
		return 2;
	return fclose(f) != 0;
}
