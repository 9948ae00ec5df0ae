/* cmd_sion.c: `ovni-auto sion FILE`: the metadata of a SIONlib container,
 * its tasks, chunks and sizes; `--extract TASK` writes one task's bytes. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/log.h"
#include "linktest/sion.h"

static const char usage_text[] =
	"usage: ovni-auto sion [--extract TASK [-o FILE]] SIONFILE\n"
	"\n"
	"Read a SIONlib container (file-format version 3 to 5) without SIONlib.\n"
	"\n"
	"  -x, --extract TASK   write the bytes of global task TASK (all its blocks),\n"
	"                       following the mapping of a multi-file set\n"
	"                       (SIONFILE.000001, ...)\n"
	"  -o, --output FILE    where to write them (default: standard output)\n"
	"\n"
	"The manual page has the details: man ovni-auto-sion\n";

static void list64(const char *key, const int64_t *v, int n, char open, char close)
{
	printf("%-26s%c", key, open);
	for (int i = 0; i < n; i++)
		printf("%s%lld", i ? ", " : "", (long long)v[i]);
	printf("%c\n", close);
}

static void print_meta(const struct sion_file *s)
{
	printf("%-26s%02x%02x%02x%02x\n", "sion.endian_raw", s->endian_raw[0], s->endian_raw[1], s->endian_raw[2],
	       s->endian_raw[3]);
	printf("%-26s%d\n%-26s%d\n%-26s%d\n%-26s%d\n", "sion.version", s->version, "sion.patch", s->patch, "sion.ffv",
	       s->ffv, "sion.fsblk", s->fsblksize);
	printf("%-26s%d\n%-26s%d\n%-26s%d\n", "sion.ntasks", s->ntasks, "sion.nfiles", s->nfiles, "sion.filenumber",
	       s->filenumber);
	printf("%-26s%lld\n%-26s%lld\n", "sion.flag1", (long long)s->flag1, "sion.flag2", (long long)s->flag2);
	printf("%-26s%s\n", "sion.prefix", s->prefix);
	list64("sion.granks", s->globalrank, s->ntasks, '(', ')');
	list64("sion.chunks", s->chunksize, s->ntasks, '(', ')');
	printf("%-26s%d\n%-26s%lld\n%-26s%llu\n", "sion.maxchunks", s->maxchunks, "sion.start_of_varheader",
	       (long long)s->start_of_varheader, "sion.meta1_end", (unsigned long long)s->meta1_end);
	printf("%-26s[", "sion.starts");
	for (int i = 0; i < s->ntasks; i++)
		printf("%s%llu", i ? ", " : "", (unsigned long long)s->start[i]);
	printf("]\n%-26s%llu\n", "sion.globalskip", (unsigned long long)s->globalskip);
	list64("sion.blockcount", s->blockcount, s->ntasks, '(', ')');
	list64("sion.blocksizes", s->blocksize, s->ntasks * s->maxchunks, '(', ')');
	printf("%-26s%llu\n%-26s%llu\n%-26s", "sion.filesize", (unsigned long long)s->filesize, "sion.meta2_end",
	       (unsigned long long)s->meta2_end, "sion.trailing");
	for (size_t i = 0; i < s->ntrailing; i++)
		printf("%02x", s->trailing[i]);
	printf("\n");
}

int cmd_sion(int argc, char **argv)
{
	static const struct option opts[] = { { "extract", required_argument, 0, 'x' },
					      { "output", required_argument, 0, 'o' },
					      { "help", no_argument, 0, 'h' },
					      { 0, 0, 0, 0 } };
	long task = -1;
	const char *output = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "x:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'x': task = atol(optarg); break;
		case 'o': output = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(usage_text, stderr);
		return 2;
	}
	const char *path = argv[optind];
	struct sion_file s;
	char msg[512];
	if (sion_open(&s, path, msg, sizeof(msg)) != 0)
		die("%s: %s", path, msg);
	if (task < 0) {
		print_meta(&s);
		for (int t = 0; t < s.ntasks; t++)
			printf("task %d %llu\n", t, (unsigned long long)sion_task_size(&s, t));
		sion_close(&s);
		return 0;
	}
	/* A global task: in a multi-file set, the mapping of file 0 says where. */
	long local = task;
	if (s.nfiles > 1) {
		if (!s.mapping || task >= s.mapping_size)
			die("%s: task %ld: no mapping entry (file %d of %d holds the mapping)", path, task,
			    s.filenumber, s.nfiles);
		int file = s.mapping[2 * task];
		local = s.mapping[2 * task + 1];
		if (file != s.filenumber) {
			char other[4200];
			snprintf(other, sizeof(other), "%s.%06d", path, file);
			sion_close(&s);
			if (sion_open(&s, other, msg, sizeof(msg)) != 0)
				die("%s: %s", other, msg);
		}
	}
	if (local < 0 || local >= s.ntasks)
		die("%s: task %ld: the file has tasks 0..%d", path, task, s.ntasks - 1);
	FILE *out = output ? fopen(output, "wb") : stdout;
	if (!out)
		die("cannot write %s:", output);
	if (sion_task_write(&s, (int)local, out) != 0)
		die("%s: task %ld: cannot read its data:", path, task);
	if (out != stdout)
		fclose(out);
	sion_close(&s);
	return 0;
}
