/* floor.c: what the trace format alone costs to write, with no tracer.
 * usage: floor DIR procs N     N processes' streams: loom/proc.I/thread.I,
 *                              each with a stream.obs and a stream.json (as
 *                              a traced /bin/true leaves: 144 and ~1.8 KB)
 *        floor DIR threads N   one process with N threads' streams:
 *                              loom/proc.1/thread.I, the same two files each
 * Writes them under DIR (made; left for the caller to remove) in a loop,
 * with the system calls a writer needs at least (mkdir, open, write,
 * close), and prints the microseconds per stream.  bench/cost.sh adds it
 * to the untraced row it stands beside: the lowest ratio any tracer that
 * writes this format could reach, on this machine and file system. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char json[1783];
static unsigned char obs[144];

static int put(const char *dir, const char *name, const void *buf, size_t len)
{
	char path[4096 + 96];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len) {
		perror(path);
		return -1;
	}
	return close(fd);
}

static int stream(const char *proc, int i)
{
	char dir[4096 + 64];
	snprintf(dir, sizeof(dir), "%s/thread.%d", proc, i);
	if (mkdir(dir, 0755) != 0) {
		perror(dir);
		return -1;
	}
	return put(dir, "stream.obs", obs, sizeof(obs)) || put(dir, "stream.json", json, sizeof(json)) ? -1 : 0;
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[2], "procs") && strcmp(argv[2], "threads")) || atoi(argv[3]) <= 0) {
		fprintf(stderr, "usage: floor DIR procs|threads N\n");
		return 2;
	}
	int n = atoi(argv[3]), procs = !strcmp(argv[2], "procs");
	memset(json, ' ', sizeof(json));
	json[0] = '{';
	json[sizeof(json) - 2] = '}';
	json[sizeof(json) - 1] = '\n';
	memcpy(obs, "ovni\1\0\0\0", 8);
	char loom[4096], proc[4096 + 32];
	snprintf(loom, sizeof(loom), "%s/loom.floor", argv[1]);
	if ((mkdir(argv[1], 0755) && access(argv[1], W_OK)) || mkdir(loom, 0755)) {
		perror(loom);
		return 1;
	}
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 1; i <= n; i++) {
		if (procs || i == 1) {
			snprintf(proc, sizeof(proc), "%s/proc.%d", loom, i);
			if (mkdir(proc, 0755) != 0) {
				perror(proc);
				return 1;
			}
		}
		if (stream(proc, i))
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double us = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e3;
	printf("%.1f us per %s stream (%d)\n", us / n, procs ? "process" : "thread", n);
	return 0;
}
