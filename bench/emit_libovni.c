/* emit_libovni.c: the emit loop of bench/emit on upstream libovni (built
 * only with OVNI_PREFIX; a unit of its own, as ovni.h and our format header
 * define the same names). */
#include <ovni.h>
#include <time.h>
#include <unistd.h>

void libovni_begin(void);
double libovni_emit(long n);
void libovni_end(void);

void libovni_begin(void)
{
	ovni_version_check();
	ovni_proc_init(1, "bench", getpid());
	ovni_thread_init(getpid());
}

static double ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The loop a libovni user writes for a 0-byte event. */
double libovni_emit(long n)
{
	double t0 = ns();
	for (long i = 0; i < n; i++) {
		struct ovni_ev ev = { 0 };
		ovni_ev_set_mcv(&ev, "OB.");
		ovni_ev_set_clock(&ev, ovni_clock_now());
		ovni_ev_emit(&ev);
	}
	return (ns() - t0) / (double)n;
}

void libovni_end(void)
{
	ovni_flush();
	ovni_thread_free();
	ovni_proc_fini();
}
