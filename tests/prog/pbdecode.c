/* pbdecode.c: walks a protobuf Trace (a stream of field-1 TracePackets) as
 * written by `ovni-auto export --format=perfetto`, checking the wire format
 * (varints, lengths, nesting) without a schema, and prints counts: packets,
 * track descriptors (60), track events (11) by type (field 9), and the
 * names (field 23 / 2) seen. Exit 1 on any malformed byte. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long packets, descriptors, events, types[8];

static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (*p >= end)
			return -1;
		uint8_t b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

/* Walk a message; `kind`: 0 Trace, 1 TracePacket, 2 TrackEvent, 3 other. */
static int walk(const uint8_t *p, const uint8_t *end, int kind)
{
	while (p < end) {
		uint64_t k, v;
		if (varint(&p, end, &k))
			return -1;
		unsigned field = (unsigned)(k >> 3), wire = (unsigned)(k & 7);
		if (wire == 0) {
			if (varint(&p, end, &v))
				return -1;
			if (kind == 2 && field == 9 && v < 8)
				types[v]++;
		} else if (wire == 1) {
			if (end - p < 8)
				return -1;
			p += 8;
		} else if (wire == 2) {
			if (varint(&p, end, &v) || v > (uint64_t)(end - p))
				return -1;
			const uint8_t *q = p;
			p += v;
			if (kind == 0 && field == 1) {
				packets++;
				if (walk(q, p, 1))
					return -1;
			} else if (kind == 1 && field == 60) {
				descriptors++;
				if (walk(q, p, 3))
					return -1;
			} else if (kind == 1 && field == 11) {
				events++;
				if (walk(q, p, 2))
					return -1;
			} else if ((kind == 2 && field == 23) || (kind == 3 && field == 2)) {
				printf("name %.*s\n", (int)v, (const char *)q);
			} else if (kind == 3 && (field == 3 || field == 4 || field == 8)) {
				if (walk(q, p, 3))
					return -1;
			}
		} else if (wire == 5) {
			if (end - p < 4)
				return -1;
			p += 4;
		} else {
			return -1;
		}
	}
	return p == end ? 0 : -1;
}

int main(int argc, char **argv)
{
	FILE *f = argc == 2 ? fopen(argv[1], "rb") : NULL;
	if (!f)
		return 2;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		return 2;
	if (walk(buf, buf + n, 0)) {
		fprintf(stderr, "pbdecode: malformed protobuf\n");
		return 1;
	}
	printf("packets %ld\ndescriptors %ld\nevents %ld\n", packets, descriptors, events);
	printf("begin %ld\nend %ld\ninstant %ld\ncounter %ld\n", types[1], types[2], types[3], types[4]);
	return 0;
}
