/* fuzz_trace.c: libFuzzer target over the readers. The first byte of an
 * input chooses: bit 1 set, the rest is a SIONlib/LinkTest file, read by
 * `sion`, `sion --extract` and `linktest` (all outputs); otherwise it
 * becomes one stream of a trace in a temporary directory, bit 0 choosing
 * whether the rest is stream.obs (with a valid stream.json) or stream.json
 * (with a small valid stream.obs), and the trace goes through check, dump,
 * stats, repair -n and export, in process. Any crash, hang or sanitizer
 * report is a bug; error messages and exit statuses are expected. */
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tools/cmds.h"
#include "../tools/linktest/heatmap.h"
#include "../tools/linktest/linktest.h"
#include "../tools/linktest/sion.h"

static char dir[64], sdir[128];

static const char meta[] =
	"{\"version\":3,\"ovni\":{\"part\":\"thread\",\"tid\":1,\"pid\":1,\"loom\":\"n\",\"app_id\":1,"
	"\"loom_cpus\":[{\"index\":0,\"phyid\":0}],\"require\":{\"ovni\":\"1.1.0\",\"openmp\":\"1.2.1\"},"
	"\"lib\":{\"version\":\"f\",\"commit\":\"f\"},\"finished\":1,"
	"\"mark\":{\"5\":{\"title\":\"T\",\"chan_type\":\"stack\"}}}}";

static const uint8_t obs[] = { 'o', 'v', 'n', 'i', 1, 0, 0, 0, 0x0f, 'O', 'H', 'x', 1, 0, 0, 0, 0, 0, 0, 0,
			       0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0,
			       0x00, 'O', 'H', 'e', 2, 0, 0, 0, 0, 0, 0, 0 };

static void put(const char *name, const void *data, size_t n)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", sdir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || (n && write(fd, data, n) != (ssize_t)n))
		abort();
	close(fd);
}

static void run(int (*cmd)(int, char **), const char *a0, const char *a1, const char *a2, const char *a3)
{
	char *argv[6] = { (char *)a0, (char *)a1, (char *)a2, (char *)a3, NULL, NULL };
	int argc = a3 ? 4 : a2 ? 3 : 2;
	optind = 1;
	cmd(argc, argv);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	snprintf(dir, sizeof(dir), "/tmp/oa-fuzz.%d", (int)getpid());
	snprintf(sdir, sizeof(sdir), "%s/loom.n/proc.1/thread.1", dir);
	char cmd[200];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s", sdir);
	if (system(cmd) != 0)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 2) {
		char sion[128], out[160];
		snprintf(sion, sizeof(sion), "%s.sion", dir);
		snprintf(out, sizeof(out), "%s.out", dir);
		int fd = open(sion, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || (size > 1 && write(fd, data + 1, size - 1) != (ssize_t)(size - 1)))
			abort();
		close(fd);
		/* The library layer (the commands exit on a bad file, as CLIs do). */
		struct sion_file sf;
		char msg[512];
		if (sion_open(&sf, sion, msg, sizeof(msg)) == 0) {
			char buf[4096];
			for (int t = 0; t < sf.ntasks && t < 64; t++)
				for (uint64_t off = 0; off < sion_task_size(&sf, t) && off < (1u << 20); off += sizeof(buf))
					if (sion_task_read(&sf, t, off, buf, sizeof(buf)) < 0)
						break;
			struct lt_run r;
			if (lt_decode(&sf, &r, msg, sizeof(msg)) == 0 && r.n <= 256) {
				double *m = calloc((size_t)r.n * (size_t)r.n, sizeof(double));
				for (int a = 0; a < r.n; a++)
					for (int k = 0; k < r.n - 1; k++)
						m[((size_t)k + 1) % (size_t)r.n * (size_t)r.n + (size_t)a] = r.rank[a].timing[k];
				snprintf(out, sizeof(out), "%s.png", dir);
				hm_write(out, m, r.n, "fuzz");
				free(m);
			}
			lt_free(&r);
			sion_close(&sf);
		}
		return 0;
	}
	if (data[0] & 1) {
		put("stream.json", data + 1, size - 1);
		put("stream.obs", obs, sizeof(obs));
	} else {
		put("stream.json", meta, strlen(meta));
		put("stream.obs", data + 1, size - 1);
	}
	char out[128];
	snprintf(out, sizeof(out), "%s.json", dir);
	run(cmd_check, "check", "-q", dir, NULL);
	run(cmd_dump, "dump", dir, NULL, NULL);
	run(cmd_stats, "stats", dir, NULL, NULL);
	run(cmd_repair, "repair", "-n", dir, NULL);
	run(cmd_export, "export", "-o", out, dir);
	snprintf(out, sizeof(out), "-o%s.html", dir);
	run(cmd_view, "view", "-q", out, dir);
	return 0;
}
