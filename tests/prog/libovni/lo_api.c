/* lo_api.c: a program instrumented with libovni, as runtimes are, for the
 * tests of hooks/libovni/libovni.c (tests/run/t960_libovni.sh).  Linked to a
 * libovni.so.1 (the stub of this directory in the tests).  It uses every
 * function of the API: process and thread init with its own CPU list, a
 * required model, its thread states (OHx on a CPU, OHp/OHr, OHe), marks
 * (one type that the agent also uses: 85), attributes, raw and jumbo
 * events, and a forked child that keeps emitting.  It prints what the API
 * returned, for the test to compare.  LO_MODE changes the run:
 *   version0   built for libovni 0.0.0 (libovni aborts at its check)
 *   version15  built for libovni 1.15.0
 *   odd        an unsorted region (an event earlier than the one before
 *              it, as ovnisort takes) and a required ovni model 1.9.0 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ovni_api.h"

#define NTHREADS 3

static void emit(const char *mcv, const void *payload, int n)
{
	struct ovni_ev ev;
	memset(&ev, 0, sizeof(ev));
	ovni_ev_set_mcv(&ev, mcv);
	ovni_ev_set_clock(&ev, ovni_clock_now());
	if (n)
		ovni_payload_add(&ev, payload, n);
	ovni_ev_emit(&ev);
}

/* OHx as a runtime writes it: cpu, creator tid, tag. */
static void thread_execute(int32_t cpu)
{
	uint8_t p[16] = { 0 };
	int32_t creator = -1;
	memcpy(p, &cpu, 4);
	memcpy(p + 4, &creator, 4);
	emit("OHx", p, 16);
}

/* Worker 0 pins itself to CPU 1 (the agent shows it there), then the main
 * thread says so too with OAr, as a runtime does for its workers. */
static _Atomic int pinned_tid, told;

static void *worker(void *arg)
{
	int i = (int)(long)arg;
	ovni_thread_init(gettid());
	ovni_thread_require("lotest", "1.0.0");
	thread_execute(-1);
	if (i == 0 && sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(1, &set);
		if (sched_setaffinity(0, sizeof(set), &set) == 0) {
			int32_t one = 1;
			emit("OAs", &one, 4);
			pinned_tid = gettid();
			/* spin, not sleep: a sleep is a pause of the agent's */
			struct timespec t0, t1;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			do {
				sched_yield();
				clock_gettime(CLOCK_MONOTONIC, &t1);
			} while (!told && t1.tv_sec - t0.tv_sec < 3);
		}
	}
	ovni_mark_push(5, 2);
	emit("OHp", NULL, 0);
	usleep(1000);
	emit("OHr", NULL, 0);
	ovni_mark_pop(5, 2);
	ovni_mark_set(85, 10 + i);
	emit("OHe", NULL, 0);
	ovni_flush();
	ovni_thread_free();
	return NULL;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *mode = getenv("LO_MODE") ? getenv("LO_MODE") : "";
	if (!strcmp(mode, "version0"))
		ovni_version_check_str("0.0.0");
	else if (!strcmp(mode, "version15"))
		ovni_version_check_str("1.15.0");
	else
		ovni_version_check();
	const char *version = NULL, *commit = NULL;
	ovni_version_get(&version, &commit);
	printf("version %s\n", version ? version : "(null)");
	char host[256] = "localhost";
	gethostname(host, sizeof(host));
	const char *loom = getenv("LO_LOOM");
	ovni_proc_init(7, loom ? loom : host, getpid());
	ovni_proc_set_rank(0, 1);
	printf("ready before init %d\n", ovni_thread_isready());
	ovni_thread_init(gettid());
	printf("ready after init %d\n", ovni_thread_isready());
	ovni_thread_require("lotest", "1.0.0");
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	for (int c = 0; c < ncpus; c++)
		ovni_add_cpu(c, c);
	thread_execute(0);

	ovni_mark_type(5, OVNI_MARK_STACK, "lotest phase");
	ovni_mark_label(5, 1, "setup");
	ovni_mark_label(5, 2, "worker pause");
	ovni_mark_type(85, 0, "lotest clash");
	ovni_mark_label(85, 1, "main");
	ovni_mark_push(5, 1);
	ovni_mark_set(85, 1);

	ovni_attr_set_double("lotest.ratio", 2.5);
	ovni_attr_set_boolean("lotest.flag", 1);
	ovni_attr_set_str("lotest.name", "abc");
	ovni_attr_set_json("lotest.obj", "{\"a\": [1, 2]}");
	ovni_attr_set_str("ovni.loom", "mine"); /* the agent's: refused */
	char *obj = ovni_attr_get_json("lotest.obj");
	printf("attr ratio %.1f flag %d name %s has %d/%d obj %s\n", ovni_attr_get_double("lotest.ratio"),
	       ovni_attr_get_boolean("lotest.flag"), ovni_attr_get_str("lotest.name"), ovni_attr_has("lotest.name"),
	       ovni_attr_has("lotest.none"), obj ? obj : "(null)");
	free(obj);
	/* libovni's own metadata is in the same tree: the agent's is read */
	ovni_attr_set_str("ovni.lotest_note", "kept");
	const char *title = ovni_attr_get_str("ovni.mark.5.title"), *chan = ovni_attr_get_str("ovni.mark.5.chan_type");
	const char *clash = ovni_attr_get_str("ovni.mark.85.title"), *note = ovni_attr_get_str("ovni.lotest_note");
	printf("ovni attrs %s/%s %s note %s pid %d has %d/%d\n", title ? title : "(null)", chan ? chan : "(null)",
	       clash ? clash : "(null)", note ? note : "(null)", (int)ovni_attr_get_double("ovni.pid") == getpid(),
	       ovni_attr_has("ovni.loom"), ovni_attr_has("ovni.mark.6"));
	fprintf(stderr, "loom attr %s\n", ovni_attr_get_str("ovni.loom"));
	ovni_attr_flush();

	if (!strcmp(mode, "odd")) {
		ovni_thread_require("ovni", "1.9.0");
		uint64_t t = ovni_clock_now();
		struct ovni_ev u;
		memset(&u, 0, sizeof(u));
		ovni_ev_set_mcv(&u, "OU[");
		ovni_ev_set_clock(&u, t);
		ovni_ev_emit(&u);
		ovni_ev_set_mcv(&u, "OB.");
		ovni_ev_set_clock(&u, t - 777);
		ovni_ev_emit(&u);
		ovni_ev_set_mcv(&u, "OU]");
		ovni_ev_set_clock(&u, t + 1);
		ovni_ev_emit(&u);
		printf("unsorted %llu\n", (unsigned long long)(t - 777));
	}

	struct ovni_ev ev;
	memset(&ev, 0, sizeof(ev));
	ovni_ev_set_mcv(&ev, "OB.");
	ovni_ev_set_clock(&ev, 123);
	uint8_t two[2] = { 1, 2 };
	ovni_payload_add(&ev, two, 2);
	printf("event clock %llu size %d payload %d\n", (unsigned long long)ovni_ev_get_clock(&ev), ovni_ev_size(&ev),
	       ovni_payload_size(&ev));

	pthread_t th[NTHREADS];
	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (int k = 0; k < 2000 && !pinned_tid && sysconf(_SC_NPROCESSORS_ONLN) > 1; k++)
		usleep(1000);
	if (pinned_tid) {
		int32_t p[2] = { 1, pinned_tid };
		emit("OAr", p, 8);
	}
	told = 1;
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);

	pid_t pid = fork();
	if (pid == 0) {
		/* The child is a process of its own in the trace. */
		ovni_mark_set(85, 99);
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);

	ovni_mark_pop(5, 1);
	emit("OHe", NULL, 0);
	ovni_flush();
	ovni_thread_free();
	printf("ready after free %d\n", ovni_thread_isready());
	ovni_proc_fini();
	printf("done\n");
	return 0;
}
