/* cmd_upgrade.c: `ovni-auto upgrade OLD NEW`: a trace in format v1 (one
 * metadata.json per process, thread.TID event files without header) becomes
 * a format-v3 trace the current emulator reads: one stream directory per
 * thread with stream.obs (header + the same events) and stream.json (the
 * process metadata, the loom CPUs, and the models its events use). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/log.h"
#include "../writer/ovni_fmt.h"
#include "trace/reader.h"

static const char usage_text[] =
	"usage: ovni-auto upgrade OLD NEW\n"
	"\n"
	"Convert the format-v1 trace in directory OLD (loom.*/proc.*/metadata.json\n"
	"and thread.* event files) into a format-v3 trace in the new directory NEW,\n"
	"which the current ovni emulator and every ovni-auto tool read.\n"
	"\n"
	"The manual page has the details: man ovni-auto-upgrade\n";

static const struct {
	char letter;
	const char *model, *version;
} models[] = {
	{ 'P', "openmp", "1.0.0" }, { 'V', "nosv", "2.0.0" },   { '6', "nanos6", "1.0.0" }, { 'T', "tampi", "1.0.0" },
	{ 'D', "nodes", "1.0.0" },  { 'K', "kernel", "1.0.0" }, { 'M', "mpi", "1.0.0" },
};

static int mkdirs(const char *path)
{
	char buf[4200];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int cmd_upgrade(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (argc != 3) {
		fputs(usage_text, stderr);
		return 2;
	}
	struct stat st;
	if (stat(argv[2], &st) == 0)
		die("%s exists: give a new directory", argv[2]);
	struct rd_trace t;
	rd_open_or_die(&t, argv[1]);
	if (!t.v1)
		die("%s is not a format-v1 trace (it has stream.json files)", argv[1]);
	int nev_total = 0;
	for (int i = 0; i < t.n; i++) {
		struct rd_stream *s = &t.streams[i];
		if (!s->meta)
			die("%s: %s", s->relpath, s->meta_error);
		/* Which models do its events use? Also validates the framing. */
		struct rd_event ev;
		int r, nev = 0;
		unsigned used = 0;
		rd_rewind(s);
		while ((r = rd_next(s, &ev)) == 1) {
			nev++;
			for (size_t k = 0; k < sizeof(models) / sizeof(models[0]); k++)
				if (ev.mcv[0] == models[k].letter)
					used |= 1u << k;
		}
		if (r < 0)
			die("%s: %s", s->relpath, s->error);
		json_t *req = rd_json_path(s->meta, "ovni.require");
		for (size_t k = 0; k < sizeof(models) / sizeof(models[0]); k++)
			if (used & (1u << k))
				json_object_set_new(req, models[k].model, json_string(models[k].version));
		json_object_set_new(json_object_get(s->meta, "ovni"), "lib",
				    json_pack("{s:s, s:s}", "version", "upgraded from format v1 by ovni-auto", "commit",
					      "unknown"));
		char dir[4300], path[4400];
		snprintf(dir, sizeof(dir), "%s/%s", argv[2], s->relpath);
		if (mkdirs(dir) != 0)
			die("cannot create %s:", dir);
		snprintf(path, sizeof(path), "%s/stream.json", dir);
		if (json_dump_file(s->meta, path, JSON_INDENT(1) | JSON_SORT_KEYS) != 0)
			die("cannot write %s:", path);
		snprintf(path, sizeof(path), "%s/stream.obs", dir);
		FILE *f = fopen(path, "w");
		uint32_t version = OVNI_STREAM_VERSION;
		if (!f || fwrite(OVNI_STREAM_MAGIC, 1, 4, f) != 4 || fwrite(&version, 1, 4, f) != 4 ||
		    (s->size && fwrite(s->data, 1, s->size, f) != s->size) || fclose(f) != 0)
			die("cannot write %s:", path);
		nev_total += nev;
	}
	printf("upgraded %d streams, %d events: %s -> %s (format v3)\n", t.n, nev_total, argv[1], argv[2]);
	rd_close(&t);
	return 0;
}
