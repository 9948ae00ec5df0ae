/* report.c: what the collector says about its run: the status file
 * (`collect --status`), and the summary at the end (collect.txt). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/log.h"
#include "collect.h"

void oa_col_counts(long *running, long *finished, long *lost, long *streams)
{
	*running = *finished = *lost = *streams = 0;
	for (struct oa_col_proc *p = oa_col_procs; p; p = p->next) {
		*running += p->state == PROC_RUNNING;
		*finished += p->state == PROC_FINISHED;
		*lost += p->state == PROC_LOST;
		*streams += p->nstreams;
	}
}

void oa_col_status(uint64_t total_bytes, const char *state)
{
	long running, finished, lost, streams, hosts = 0;
	oa_col_counts(&running, &finished, &lost, &streams);
	for (struct oa_col_host *h = oa_col_hosts; h; h = h->next)
		hosts += h->nprocs > 0;
	char text[512];
	snprintf(text, sizeof(text),
		 "pid %d\nstate %s\nhosts %ld\nprocesses running %ld finished %ld lost %ld\nstreams %ld\nbytes %llu\n",
		 (int)getpid(), state, hosts, running, finished, lost, streams, (unsigned long long)total_bytes);
	oa_col_write_file(".collect-status", text);
}

int oa_col_show_status(const char *dir)
{
	char path[4200], text[1024];
	snprintf(path, sizeof(path), "%s/.collect-status", dir);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "ovni-auto collect: no collector status in %s\n", dir);
		return 1;
	}
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	int pid = atoi(text + 4);
	fputs(text, stdout);
	if (!strstr(text, "state done") && (pid <= 0 || kill(pid, 0) != 0))
		printf("(the collector is no longer running)\n");
	return 0;
}

/* The end: offsets, what did not finish, the summary. */
void oa_col_summary(const char *outdir, uint64_t total_bytes, long ngarbage, int quiet)
{
	long running, finished, lost, streams, hosts = 0;
	oa_col_counts(&running, &finished, &lost, &streams);
	for (struct oa_col_host *h = oa_col_hosts; h; h = h->next)
		hosts += h->nprocs > 0;
	char *sum = NULL;
	size_t sumlen = 0;
	FILE *f = open_memstream(&sum, &sumlen);
	fprintf(f, "ovni-auto collect: %s\n", outdir);
	fprintf(f, "  %ld hosts, %ld processes (%ld finished, %ld did not), %ld streams, %.1f KiB\n", hosts,
		running + finished + lost, finished, running + lost, streams, (double)total_bytes / 1024);
	oa_col_clock_write(f);
	for (struct oa_col_proc *p = oa_col_procs; p; p = p->next) {
		if (p->state == PROC_FINISHED && !p->crashed && !p->stopped)
			continue;
		const char *what = p->state == PROC_RUNNING ? "did not finish (still running or killed)"
				   : p->state == PROC_LOST  ? "did not finish (vanished: killed?)"
				   : p->crashed             ? "died of a signal; its streams are complete"
							    : "stopped by fail-stop; its streams are complete";
		fprintf(f, "  %s/proc.%d (%s): %s", p->host->loom, p->pid, p->prog[0] ? p->prog : "?", what);
		if (p->crashed)
			fprintf(f, " (signal %d)", p->crashed);
		fputc('\n', f);
	}
	if (ngarbage)
		fprintf(f, "  %ld connections dropped (not of this run, or broken off)\n", ngarbage);
	fclose(f);
	oa_col_write_file("collect.txt", sum);
	if (!quiet)
		fputs(sum, stderr);
	free(sum);
	oa_col_store_cleanup();
	oa_col_status(total_bytes, "done");
}
