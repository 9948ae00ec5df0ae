/* ovnirun_watch.c: see ovnirun_watch.h. */
#include "ovnirun_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../writer/spool.h"
#include "ovnirun_settle.h"

#define MAX_WATCHED 1024 /* spool files followed at once; more are left to their processes */
#define POLL_MS 10       /* how often the list and the files are looked at */

struct watched {
	uint8_t *map;
	size_t len;
	uint64_t upto; /* its count of slots taken when the pass began */
	char procdir[PATH_MAX];
};

static struct watched files[MAX_WATCHED];
static int nfiles;
static char list[PATH_MAX];
static off_t list_off; /* bytes of the list read */
static int pidfd = -1;
static long written;
/* The run's spool (writer/spool.h): the processes' first streams. */
static uint8_t *run_map;
static char run_trace[PATH_MAX], run_path[PATH_MAX + 32];
static char run_loomdir[300]; /* "loom.L": the directory of its loom */
#define MAX_MADE 8
static char dirs_made[MAX_MADE][PATH_MAX + 300];
static int nmade;
static int trace_removed; /* the trace directory was ours, and left empty: removed */
/* The run's slots reserved ahead of the processes that take them: the
 * file is sparse, and a process's MADV_POPULATE_WRITE of a slot with no
 * page yet allocated and zeroed it (~20 us of each traced command on
 * tmpfs, ~7 us less on one allocated).  ovnirun allocates them in
 * RESERVE_CHUNK steps while it has nothing else to do, from the
 * program's pid on (the order pids come in), all OA_RUN_SLOTS at most
 * (2 MiB): the run's files hold as much once 256 processes ran.  Only on
 * a file system with RESERVE_ROOM free (space the program may need is
 * not taken ahead of it); one that refuses (full, no fallocate) leaves
 * the rest to the processes, as before. */
#define RESERVE_CHUNK 16u
#define RESERVE_ROOM (64ull << 20)
static int run_fd = -1;
static unsigned run_reserved, run_reserve_at;

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

const char *watch_start(const char *dir)
{
	if (!dir || !dir[0])
		return NULL;
	/* A pidfd wakes us the moment the program ends; without one (Linux
	 * before 5.3) we do not poll. */
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (fd < 0)
		return NULL;
	close(fd);
	snprintf(list, sizeof(list), "%s/spools", dir);
	/* Writable by the processes of the run that keep our user (the
	 * directory is ours alone: others cannot reach it and write their
	 * spools out themselves). */
	fd = open(list, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		list[0] = '\0';
		return NULL;
	}
	close(fd);
	return list;
}

/* The others keep their order: the order the files were made in, that of
 * a process's streams (oa_spool_unpack_done). */
static void forget(int i)
{
	munmap(files[i].map, files[i].len);
	memmove(&files[i], &files[i + 1], sizeof(files[0]) * (size_t)(nfiles - i - 1));
	nfiles--;
}

/* Processes whose spool is left to them (a slot we could not write): a
 * hash of their directory each.  Their later files are not followed: a
 * recycled tid's later stream would be written before the earlier one,
 * which waits for the process's end. */
#define MAX_LEFT 256
static uint64_t left_to_them[MAX_LEFT];
static int nleft;

static uint64_t dir_hash(const char *dir, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)dir[i]) * 1099511628211ull;
	return h;
}

static int left_to_process(uint64_t h)
{
	for (int i = 0; i < nleft; i++)
		if (left_to_them[i] == h)
			return 1;
	return 0;
}

/* Map the spool file at path, if it is ours to write out. */
static void follow(const char *path)
{
	if (nfiles >= MAX_WATCHED)
		return;
	const char *slash = strrchr(path, '/');
	if (path[0] != '/' || !slash || !oa_spool_name(slash + 1) || (size_t)(slash - path) >= PATH_MAX)
		return;
	if (nleft && left_to_process(dir_hash(path, (size_t)(slash - path))))
		return;
	int fd = open(path, O_RDWR | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return;
	/* Files a process wrote as another user (it changed user) are left
	 * to it: ours would be files that user cannot remove. */
	void *m = MAP_FAILED;
	if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && st.st_size >= OA_SPOOL_HEADER)
		m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	struct watched *w = &files[nfiles++];
	w->map = m;
	w->len = (size_t)st.st_size;
	memcpy(w->procdir, path, (size_t)(slash - path));
	w->procdir[slash - path] = '\0';
}

/* New lines of the list: the files made since. */
static void read_list(void)
{
	static char buf[1 << 16];
	int fd = open(list, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	for (;;) {
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, list_off);
		if (n <= 0)
			break;
		buf[n] = '\0';
		/* Whole lines only: a line being appended is read next time. */
		char *p = buf, *nl;
		while ((nl = memchr(p, '\n', (size_t)(buf + n - p)))) {
			*nl = '\0';
			follow(p);
			p = nl + 1;
		}
		if (p == buf) {
			if (n < (ssize_t)sizeof(buf) - 1)
				break; /* a line still being appended: next time */
			p = buf + n;   /* longer than the buffer: not a path of ours, skipped */
		}
		list_off += p - buf;
	}
	close(fd);
}

/* One chunk of the run's slots reserved: 1, or 0 when none is left to do. */
static int run_reserve_step(pid_t child)
{
	if (run_fd < 0)
		return 0;
	if (!run_reserved)
		run_reserve_at = (unsigned)child % OA_RUN_SLOTS;
	unsigned i = (run_reserve_at + run_reserved) % OA_RUN_SLOTS, n = RESERVE_CHUNK;
	if (n > OA_RUN_SLOTS - i)
		n = OA_RUN_SLOTS - i;
	if (n > OA_RUN_SLOTS - run_reserved)
		n = OA_RUN_SLOTS - run_reserved;
	int r = fallocate(run_fd, 0, (off_t)OA_SPOOL_HEADER + (off_t)i * OA_SPOOL_SLOT, (off_t)n * OA_SPOOL_SLOT);
	if (r != 0 && errno == EINTR)
		return 1; /* again next time */
	if (r == 0)
		run_reserved += n;
	if (r != 0 || run_reserved >= OA_RUN_SLOTS) {
		close(run_fd);
		run_fd = -1;
	}
	return 1;
}

/* One look: streams written. */
static int poll_once(void)
{
	read_list();
	int n = run_map ? oa_run_unpack(run_trace, run_map, NULL, NULL) : 0;
	/* One pass over the files in the order they were made: a recycled
	 * tid's stream waits for its earlier one, in the same file or one
	 * made before. */
	static struct oa_spool_hold_entry holds[OA_SPOOL_HOLD];
	struct oa_spool_hold hold;
	oa_spool_hold_init(&hold, holds, OA_SPOOL_HOLD);
	for (int i = 0; i < nfiles; i++)
		files[i].upto = files[i].len >= OA_SPOOL_HEADER ? oa_spool_seq(files[i].map) : 0;
	for (int i = 0; i < nfiles;) {
		unsigned left;
		int closed;
		int r = oa_spool_unpack_done(files[i].map, files[i].len, files[i].procdir, &left, &closed, &hold,
					     files[i].upto);
		if (r > 0)
			n += r;
		/* Its image is done with it. */
		if (closed && !left) {
			forget(i);
			continue;
		}
		/* Not a spool, or a slot not writable by us: this file and the
		 * later ones of its process are left to it. */
		if (r < 0) {
			uint64_t h = dir_hash(files[i].procdir, strlen(files[i].procdir));
			if (nleft < MAX_LEFT)
				left_to_them[nleft++] = h;
			for (int j = nfiles - 1; j >= i; j--)
				if (!strcmp(files[j].procdir, files[i].procdir) && j != i)
					forget(j);
			forget(i);
			continue;
		}
		i++;
	}
	written += n;
	return n;
}

void watch_reap_orphans(pid_t keep)
{
	if (getpid() != 1)
		return;
	for (;;) {
		siginfo_t si;
		si.si_pid = 0;
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0 || si.si_pid == keep)
			return;
		waitpid(si.si_pid, NULL, 0);
	}
}

/* The program stopped by a signal of its own or one sent to it alone
 * (`kill -STOP $$`, a supervisor's SIGSTOP): ovnirun stops the same way,
 * so that the shell sees its job stop (before, the terminal hung: the
 * program stopped, ovnirun running); the SIGCONT that continues ovnirun
 * reaches the program (the job's group, or ovnirun's forward).  Not when
 * it runs again already (a terminal's Ctrl-Z stopped both: ovnirun
 * stopped itself then, and the program's stop is reported after). */
static void mirror_stop(pid_t child, int sig)
{
	char buf[1024], *state = proc_stat(child, buf, sizeof(buf));
	if (state && state[0] == 'T')
		watch_stop_self(sig);
}

void watch_stop_self(int sig)
{
	struct sigaction dfl, mine;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	if (sig != SIGSTOP)
		sigaction(sig, &dfl, &mine);
	sigset_t one, old;
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, &old);
	raise(sig);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (sig != SIGSTOP)
		sigaction(sig, &mine, NULL);
}

pid_t watch_wait(pid_t child, int *status)
{
	if (!list[0]) {
		/* Pid 1 of a PID namespace: the orphans it inherits too. */
		for (;;) {
			pid_t w = waitpid(getpid() == 1 ? -1 : child, status, WUNTRACED);
			if (w == child && WIFSTOPPED(*status)) {
				mirror_stop(child, WSTOPSIG(*status));
				continue;
			}
			if (w == child || w < 0)
				return w;
		}
	}
	if (pidfd < 0)
		pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	for (;;) {
		pid_t w = waitpid(child, status, WNOHANG | WUNTRACED);
		if (w == child && WIFSTOPPED(*status)) {
			mirror_stop(child, WSTOPSIG(*status));
			continue;
		}
		if (w != 0)
			return w;
		watch_reap_orphans(child);
		/* As long as there is work, go on with it; else sleep until the
		 * program ends or POLL_MS pass. */
		if (poll_once() > 0 || run_reserve_step(child))
			continue;
		struct pollfd p = { pidfd, POLLIN, 0 };
		if (pidfd >= 0) {
			poll(&p, 1, POLL_MS);
		} else {
			struct timespec ts = { 0, POLL_MS * 1000000L };
			nanosleep(&ts, NULL);
		}
	}
}

long watch_stop(void)
{
	if (!list[0])
		return 0;
	poll_once(); /* what ended last, in processes still running */
	while (nfiles)
		forget(nfiles - 1);
	if (pidfd >= 0)
		close(pidfd);
	pidfd = -1;
	unlink(list);
	list[0] = '\0';
	return written;
}

int watch_run_start(const char *trace, const char *loom)
{
	if (!list[0] || strlen(trace) >= sizeof(run_trace))
		return 0;
	/* Another run's (an ovnirun that was killed, or one writing into the
	 * same directory now) is left alone: `ovni-auto repair` is for it. */
	/* A file size limit under the file's size (`ulimit -f`): none (the
	 * processes' streams then meet the limit in files of their own, where
	 * the agent takes the SIGXFSZ back). */
	struct rlimit rl;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < oa_run_len())
		return 0;
	snprintf(run_trace, sizeof(run_trace), "%s", trace);
	snprintf(run_path, sizeof(run_path), "%s/%s", trace, OA_RUN_SPOOL_NAME);
	snprintf(run_loomdir, sizeof(run_loomdir), "loom.%s", loom);
	/* With the loom's directory: its processes find it there. */
	char made[PATH_MAX + 300];
	snprintf(made, sizeof(made), "%s/loom.%s", trace, loom);
	for (char *p = made + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(made, 0755) == 0) {
			/* Ours: removed at the end if the run wrote nothing there
			 * (a program that did not start, untraced processes). */
			if (nmade < MAX_MADE)
				snprintf(dirs_made[nmade++], sizeof(dirs_made[0]), "%s", made);
		} else if (errno != EEXIST) {
			return 0;
		}
		if (!(*p = c))
			break;
	}
	if (oa_run_create(run_path, loom) != 0)
		return 0;
	run_map = oa_run_open(run_path, 1);
	if (!run_map)
		unlink(run_path);
	else
		run_fd = open(run_path, O_RDWR | O_CLOEXEC);
	struct statfs fs;
	if (run_fd >= 0 && (fstatfs(run_fd, &fs) != 0 ||
			    (unsigned long long)fs.f_bavail * (unsigned long long)fs.f_bsize < RESERVE_ROOM)) {
		close(run_fd);
		run_fd = -1;
	}
	return run_map != NULL;
}

void watch_run_root(pid_t root)
{
	if (run_map)
		oa_run_root(run_map, (int)root);
}

int watch_run_settle(int (*alive)(int pid, const uint8_t *obs))
{
	if (!run_map)
		return 0;
	unsigned in_use;
	return oa_run_unpack(run_trace, run_map, alive, &in_use);
}

int watch_run_ended(const char *loomdir, pid_t pid)
{
	return run_map && !strcmp(loomdir, run_loomdir) && oa_run_has_ended(run_map, (int32_t)pid);
}

unsigned watch_run_end(void)
{
	if (!run_map)
		return 0;
	/* Gone first, then what ended meanwhile: a process that ends later
	 * sees it and writes its stream out itself. */
	oa_run_leave(run_map);
	if (run_fd >= 0)
		close(run_fd);
	run_fd = -1;
	unsigned in_use = 0;
	written += oa_run_unpack(run_trace, run_map, NULL, &in_use);
	munmap(run_map, oa_run_len());
	run_map = NULL;
	if (!in_use)
		unlink(run_path);
	while (nmade > 0) {
		nmade--;
		if (rmdir(dirs_made[nmade]) == 0 && !strcmp(dirs_made[nmade], run_trace))
			trace_removed = 1; /* only when empty */
	}
	return in_use;
}

int watch_trace_removed(void)
{
	return trace_removed;
}
