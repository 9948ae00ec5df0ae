/* sion.h: a reader for SIONlib containers (file-format version 5, also 3-4),
 * without SIONlib: META1 header, per-task chunk locations (independent and
 * collective layouts), META2 footer with the bytes written per task and
 * block, multi-file mappings, both byte orders. Files are read with pread:
 * sparse, nominally huge files are never read whole. */
#ifndef OA_SION_H
#define OA_SION_H

#include <stdint.h>
#include <stdio.h>

struct sion_file {
	int fd;
	uint64_t filesize;
	int swap; /* metadata in the other byte order */
	uint8_t endian_raw[4];
	int32_t version, patch, ffv, fsblksize, ntasks, nfiles, filenumber;
	int64_t flag1, flag2;
	char prefix[1025];
	int64_t *globalrank; /* [ntasks] */
	int64_t *chunksize;  /* [ntasks] */
	int32_t maxchunks;
	int64_t start_of_varheader;
	uint64_t meta1_end;
	uint64_t *start;     /* [ntasks]: offset of each task's chunk in block 0 */
	uint64_t globalskip; /* bytes of one block */
	int64_t *blockcount; /* [ntasks] */
	int64_t *blocksize;  /* [maxchunks * ntasks], block-major */
	uint64_t meta2_end;
	uint8_t *trailing; /* bytes after META2 (the multi-file mapping) */
	size_t ntrailing;
	int32_t mapping_size; /* 0 when there is no mapping */
	int32_t *mapping;     /* [2 * mapping_size]: file number, local rank */
};

/* Open and validate. 0, or -1 with a message naming the offset and field. */
int sion_open(struct sion_file *s, const char *path, char *err, size_t errlen);
void sion_close(struct sion_file *s);

/* Bytes of task t's logical stream (all its blocks). */
uint64_t sion_task_size(const struct sion_file *s, int t);
/* Copy up to n bytes of task t's stream from logical offset `off`. Returns
 * the bytes read, or -1 on a read error. */
long sion_task_read(const struct sion_file *s, int t, uint64_t off, void *buf, size_t n);
/* Write task t's whole stream to f. 0 or -1. */
int sion_task_write(const struct sion_file *s, int t, FILE *f);

#endif
