/* sion.c: SIONlib container reader (see sion.h). Every size and count comes
 * from the file, so each is checked against the file size before use, and
 * products are computed without overflow. */
#include "sion.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define META1_FIXED 52
#define PREFIX_LEN 1024

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int rd(const struct sion_file *s, uint64_t off, void *buf, size_t n)
{
	if (off > s->filesize || n > s->filesize - off)
		return -1;
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(s->fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

static int32_t i32(const struct sion_file *s, const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return (int32_t)(s->swap ? __builtin_bswap32(v) : v);
}

static int64_t i64(const struct sion_file *s, const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return (int64_t)(s->swap ? __builtin_bswap64(v) : v);
}

/* Read n i64 values at off into a new array. */
static int64_t *i64s(struct sion_file *s, uint64_t off, uint64_t n)
{
	if (n > s->filesize / 8 + 1)
		return NULL;
	uint8_t *raw = malloc(n * 8 + 1);
	int64_t *out = malloc(n * 8 + 1);
	if (!raw || !out || rd(s, off, raw, n * 8) != 0) {
		free(raw);
		free(out);
		return NULL;
	}
	for (uint64_t i = 0; i < n; i++)
		out[i] = i64(s, raw + 8 * i);
	free(raw);
	return out;
}

int sion_open(struct sion_file *s, const char *path, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (s->fd < 0 || fstat(s->fd, &st) != 0)
		return fail(err, errlen, "%s: %s", path, strerror(errno));
	s->filesize = (uint64_t)st.st_size;
	uint8_t h[META1_FIXED];
	if (rd(s, 0, h, 4) != 0 || memcmp(h, "sion", 4))
		return fail(err, errlen, "offset 0x0: magic: not a SIONlib file (no \"sion\")");
	if (rd(s, 0, h, META1_FIXED) != 0)
		return fail(err, errlen, "offset 0x4: the header is cut short (%llu bytes)",
			    (unsigned long long)s->filesize);
	memcpy(s->endian_raw, h + 4, 4);
	if (h[4] > 1)
		return fail(err, errlen, "offset 0x4: endianness byte %u, expected 0 or 1", h[4]);
	int host_big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	s->swap = h[4] != host_big;
	s->version = i32(s, h + 8);
	s->patch = i32(s, h + 12);
	s->ffv = i32(s, h + 16);
	s->fsblksize = i32(s, h + 20);
	s->ntasks = i32(s, h + 24);
	s->nfiles = i32(s, h + 28);
	s->filenumber = i32(s, h + 32);
	s->flag1 = i64(s, h + 36);
	s->flag2 = i64(s, h + 44);
	if (s->ffv < 3)
		return fail(err, errlen, "offset 0x10: file format version %d is older than 3 (not supported)", s->ffv);
	if (s->fsblksize <= 0)
		return fail(err, errlen, "offset 0x14: fsblksize = %d, expected > 0", s->fsblksize);
	if (s->ntasks < 1)
		return fail(err, errlen, "offset 0x18: ntasks = %d, expected >= 1", s->ntasks);
	if (s->nfiles < 1)
		return fail(err, errlen, "offset 0x1c: nfiles = %d, expected >= 1", s->nfiles);
	if ((s->flag1 >> 32) != 50 && s->ffv >= 5)
		return fail(err, errlen, "offset 0x24: key-value mode %lld is not supported (only 50, none)",
			    (long long)(s->flag1 >> 32));
	uint64_t n = (uint64_t)s->ntasks;
	s->meta1_end = 1088 + 16 * n;
	if (s->meta1_end > s->filesize)
		return fail(err, errlen, "offset 0x18: ntasks = %d needs a %llu-byte header, the file has %llu",
			    s->ntasks, (unsigned long long)s->meta1_end, (unsigned long long)s->filesize);
	if (rd(s, META1_FIXED, s->prefix, PREFIX_LEN) != 0)
		return fail(err, errlen, "offset 0x34: prefix cut short");
	s->prefix[PREFIX_LEN] = '\0';
	s->globalrank = i64s(s, 1076, n);
	s->chunksize = i64s(s, 1076 + 8 * n, n);
	uint8_t tail[12];
	if (!s->globalrank || !s->chunksize || rd(s, 1076 + 16 * n, tail, 12) != 0)
		return fail(err, errlen, "offset 0x434: task table cut short");
	s->maxchunks = i32(s, tail);
	s->start_of_varheader = i64(s, tail + 4);
	if (s->maxchunks < 1 || (uint64_t)s->maxchunks > s->filesize / 8)
		return fail(err, errlen, "offset 0x%llx: maxchunks = %d, expected between 1 and the file's size / 8",
			    (unsigned long long)(1076 + 16 * n), s->maxchunks);

	/* Chunk positions: cumulative sums (format >= 4 stores aligned sizes). */
	uint64_t bs = (uint64_t)s->fsblksize;
	s->start = calloc(n, sizeof(uint64_t));
	uint64_t pos = (s->meta1_end + bs - 1) / bs * bs;
	s->globalskip = 0;
	for (uint64_t t = 0; t < n; t++) {
		int64_t c = s->chunksize[t];
		if (c < 0 || (uint64_t)c > s->filesize)
			return fail(err, errlen, "offset 0x%llx: chunksize of task %llu = %lld, outside the file",
				    (unsigned long long)(1076 + 8 * n + 8 * t), (unsigned long long)t, (long long)c);
		uint64_t size = s->ffv <= 3 ? ((uint64_t)c + bs - 1) / bs * bs : (uint64_t)c;
		s->start[t] = pos;
		pos += size;
		s->globalskip += size;
	}
	uint64_t need = 8 * n * (1 + (uint64_t)s->maxchunks);
	if (s->start_of_varheader < (int64_t)s->start[0] || (uint64_t)s->start_of_varheader > s->filesize ||
	    need > s->filesize - (uint64_t)s->start_of_varheader)
		return fail(err, errlen,
			    "offset 0x%llx: start_of_varheader = %lld, the footer does not fit in the file",
			    (unsigned long long)(1080 + 16 * n), (long long)s->start_of_varheader);
	uint64_t S = (uint64_t)s->start_of_varheader;
	s->blockcount = i64s(s, S, n);
	s->blocksize = i64s(s, S + 8 * n, n * (uint64_t)s->maxchunks);
	if (!s->blockcount || !s->blocksize)
		return fail(err, errlen, "offset 0x%llx: footer cut short", (unsigned long long)S);
	for (uint64_t t = 0; t < n; t++) {
		if (s->blockcount[t] < 0 || s->blockcount[t] > s->maxchunks)
			return fail(err, errlen, "offset 0x%llx: blockcount of task %llu = %lld, expected 0..%d",
				    (unsigned long long)(S + 8 * t), (unsigned long long)t, (long long)s->blockcount[t],
				    s->maxchunks);
		for (int64_t b = 0; b < s->blockcount[t]; b++) {
			int64_t sz = s->blocksize[(uint64_t)b * n + t];
			if (sz > s->chunksize[t] && s->ffv >= 4)
				return fail(err, errlen,
					    "offset 0x%llx: task %llu block %lld holds %lld bytes, its chunk %lld",
					    (unsigned long long)(S + 8 * n + 8 * ((uint64_t)b * n + t)),
					    (unsigned long long)t, (long long)b, (long long)sz,
					    (long long)s->chunksize[t]);
		}
	}
	s->meta2_end = S + need;
	s->ntrailing = (size_t)(s->filesize - s->meta2_end);
	if (s->ntrailing > (1u << 26))
		s->ntrailing = 1u << 26;
	s->trailing = malloc(s->ntrailing + 1);
	if (s->ntrailing && rd(s, s->meta2_end, s->trailing, s->ntrailing) != 0)
		s->ntrailing = 0;
	if (s->ntrailing >= 4) {
		int32_t m = i32(s, s->trailing);
		if (m > 0 && (uint64_t)m * 8 + 4 <= s->ntrailing) {
			s->mapping_size = m;
			s->mapping = malloc(sizeof(int32_t) * 2 * (size_t)m);
			for (int32_t i = 0; i < 2 * m; i++)
				s->mapping[i] = i32(s, s->trailing + 4 + 4 * (size_t)i);
		}
	}
	return 0;
}

void sion_close(struct sion_file *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->globalrank);
	free(s->chunksize);
	free(s->start);
	free(s->blockcount);
	free(s->blocksize);
	free(s->trailing);
	free(s->mapping);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

static uint64_t block_bytes(const struct sion_file *s, int t, int64_t b)
{
	int64_t sz = s->blocksize[(uint64_t)b * (uint64_t)s->ntasks + (uint64_t)t];
	return sz > 0 ? (uint64_t)sz : 0; /* unused entries: 0 (or -1 in old files) */
}

uint64_t sion_task_size(const struct sion_file *s, int t)
{
	uint64_t total = 0;
	for (int64_t b = 0; b < s->blockcount[t]; b++)
		total += block_bytes(s, t, b);
	return total;
}

long sion_task_read(const struct sion_file *s, int t, uint64_t off, void *buf, size_t n)
{
	size_t done = 0;
	for (int64_t b = 0; b < s->blockcount[t] && done < n; b++) {
		uint64_t len = block_bytes(s, t, b);
		if (off >= len) {
			off -= len;
			continue;
		}
		uint64_t take = len - off < n - done ? len - off : n - done;
		uint64_t at = s->start[t] + (uint64_t)b * s->globalskip + off;
		if (rd(s, at, (char *)buf + done, (size_t)take) != 0)
			return -1;
		done += (size_t)take;
		off = 0;
	}
	return (long)done;
}

int sion_task_write(const struct sion_file *s, int t, FILE *f)
{
	char buf[65536];
	uint64_t total = sion_task_size(s, t), off = 0;
	while (off < total) {
		long n = sion_task_read(s, t, off, buf, sizeof(buf));
		if (n <= 0 || fwrite(buf, 1, (size_t)n, f) != (size_t)n)
			return -1;
		off += (uint64_t)n;
	}
	return 0;
}
