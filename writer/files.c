/* files.c: the file operations of the stream writer (stream.c): paths
 * below the trace's anchor (a process that changed user), directories made
 * from the leaf up, a stream directory's files opened by full path (one
 * descriptor at a time), writes that finish, files moved between
 * directories.  All async-signal-safe: they run when a stream ends, possibly
 * in a fatal signal handler. */
#include "../common/compiler.h"
#include "../common/sys.h"
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/fdroom.h"

/* The anchor: a directory descriptor to the trace's root, held only by a
 * process that changed user (oa_stream_anchor): the new user may not be
 * able to walk the absolute path (a trace under /root), but paths below
 * the anchor are opened relative to it.  Checked to still be ours (device
 * and inode) before each use; gone (the program closed it), the absolute
 * paths are used again. */
static int anchor_fd = -1;
static size_t anchor_len;
static char anchor_path[4096] OA_LARGE_BSS;
static dev_t anchor_dev;
static ino_t anchor_ino;

int oa_stream_anchor(const char *root)
{
	size_t n = strlen(root);
	if (anchor_fd >= 0 || n == 0 || n >= sizeof(anchor_path))
		return 0;
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	fd = oa_fd_move_high(fd);
	struct stat st;
	if (fstat(fd, &st) != 0) {
		oa_nc_close(fd);
		return -errno;
	}
	memcpy(anchor_path, root, n + 1);
	anchor_len = n;
	anchor_dev = st.st_dev;
	anchor_ino = st.st_ino;
	anchor_fd = fd;
	return 0;
}

OA_EARLY_TEXT int oa_path_at(const char *path, const char **rel)
{
	*rel = path;
	if (anchor_fd < 0 || strncmp(path, anchor_path, anchor_len) || (path[anchor_len] != '/' && path[anchor_len]))
		return AT_FDCWD;
	struct stat st;
	if (fstat(anchor_fd, &st) != 0 || st.st_dev != anchor_dev || st.st_ino != anchor_ino) {
		anchor_fd = -1; /* closed or replaced by the program: not ours */
		return AT_FDCWD;
	}
	*rel = path[anchor_len] ? path + anchor_len + 1 : ".";
	return anchor_fd;
}

int oa_mkdir_at(const char *path, mode_t mode)
{
	const char *rel;
	int d = oa_path_at(path, &rel);
	return mkdirat(d, rel, mode);
}

static int ending;
static int raised;
static struct rlimit before;

OA_START_TEXT void oa_files_ending(int on)
{
	if (!on && raised) {
		setrlimit(RLIMIT_NOFILE, &before);
		raised = 0;
	}
	ending = on;
}

/* Room for a few more descriptors, once per end.  1 when given. */
static int more_room(void)
{
	struct rlimit r;
	if (!ending || raised || getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
		return 0;
	before = r;
	r.rlim_cur += 4;
	if (r.rlim_max != RLIM_INFINITY && r.rlim_cur > r.rlim_max)
		r.rlim_max = r.rlim_cur; /* allowed to a privileged process only */
	if (setrlimit(RLIMIT_NOFILE, &r) != 0)
		return 0;
	raised = 1;
	return 1;
}

OA_START_TEXT int oa_open_at(const char *path, int flags, mode_t mode)
{
	const char *rel;
	int d = oa_path_at(path, &rel);
	int fd = oa_nc_openat(d, rel, flags, mode);
	if (fd < 0 && errno == EMFILE) {
		if (more_room())
			fd = oa_nc_openat(d, rel, flags, mode);
		else
			errno = EMFILE;
	}
	return fd;
}

OA_START_TEXT int oa_unlink_at(const char *path)
{
	const char *rel;
	int d = oa_path_at(path, &rel);
	return unlinkat(d, rel, 0);
}

/* mkdir -p on a path buffer we own (each '/' is cut for a moment):
 * signal-safe, no stack copy. */
/* The leaf: 1 made now, 0 there already, -errno. */
static int mkdir_leaf(const char *path)
{
	return oa_mkdir_at(path, 0755) == 0 ? 1 : errno == EEXIST ? 0 : -errno;
}

OA_START_TEXT int oa_mkdir_p(char *path)
{
	/* Usually only the last one or two are missing: try from the end. */
	int r = mkdir_leaf(path);
	if (r >= 0)
		return r;
	if (r != -ENOENT)
		return r;
	/* A directory above is missing.  Not where the program has put a
	 * file system of its own over the trace or a directory above it (a
	 * sandbox's setup in a mount namespace of its own): the agent's
	 * directories and files would be made in the program's file system
	 * (a tmpfs it sized for itself filled up).  -EXDEV: said already
	 * (oa_files_root_ok says it once). */
	if (oa_files_root_ok && !oa_files_root_ok())
		return -EXDEV;
	char *slash = strrchr(path, '/');
	if (slash && slash != path) {
		*slash = '\0';
		r = oa_mkdir_at(path, 0755) == 0 || errno == EEXIST ? 0 : -errno;
		*slash = '/';
		if (r == 0)
			return mkdir_leaf(path);
	}
	size_t n = strlen(path);
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		char c = path[i];
		path[i] = '\0';
		r = mkdir_leaf(path);
		path[i] = c;
		if (r < 0)
			return r;
	}
	return r;
}

/* The stream's directory, opened a moment before use (never kept). */
int oa_open_dir(const char *path)
{
	int fd = oa_open_at(path, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

/* A file of a stream's directory is opened by its full path, the name
 * appended for a moment to the directory's path in the stream's own
 * buffer (`dir`, 4096 bytes, owned by the caller): one descriptor at a time
 * and no directory descriptor, so that a program one slot from its
 * descriptor limit still lets a stream end (and every file operation costs
 * one open and one close less). */
OA_START_TEXT long oa_path_in(char *dir, const char *name)
{
	size_t n = strlen(dir), m = strlen(name);
	if (n + 1 + m >= 4096)
		return -1;
	dir[n] = '/';
	memcpy(dir + n + 1, name, m + 1);
	return (long)n;
}

OA_START_TEXT int oa_dir_open(char *dir, const char *name, int flags, mode_t mode)
{
	long n = oa_path_in(dir, name);
	if (n < 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = oa_open_at(dir, flags | O_CLOEXEC, mode);
	int e = errno;
	dir[n] = '\0';
	errno = e;
	return fd;
}

OA_START_TEXT int oa_dir_truncate(char *dir, const char *name, off_t len)
{
	long n = oa_path_in(dir, name);
	if (n < 0)
		return -ENAMETOOLONG;
	const char *rel;
	int r, d = oa_path_at(dir, &rel);
	if (d == AT_FDCWD) {
		r = truncate(dir, len) == 0 ? 0 : -errno; /* one call, no descriptor */
	} else {
		int fd = oa_nc_openat(d, rel, O_WRONLY | O_CLOEXEC, 0);
		r = fd < 0 || ftruncate(fd, len) != 0 ? -errno : 0;
		if (fd >= 0)
			oa_nc_close(fd);
	}
	dir[n] = '\0';
	return r;
}

OA_START_TEXT int oa_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	int intr = 0;
	while (len) {
		ssize_t w = oa_nc_write(fd, p, len);
		if (w < 0) {
			if (oa_eintr_again(&intr))
				continue;
			return -errno;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

OA_START_TEXT int oa_fallocate(int fd, off_t off, off_t len)
{
	int r, intr = 0;
	while ((r = fallocate(fd, 0, off, len)) != 0 && oa_eintr_again(&intr))
		;
	return r;
}

/* Move a file between two directories (paths in the stream's buffers);
 * across file systems (OVNI_TMPDIR on another one) copy it in the kernel
 * (no buffer on our stack). */
int oa_move_file(char *from, char *to, const char *name)
{
	long nf = oa_path_in(from, name), nt = oa_path_in(to, name);
	int r = 0;
	if (nf < 0 || nt < 0) {
		r = -ENAMETOOLONG;
		goto out;
	}
	const char *rf, *rt;
	int df = oa_path_at(from, &rf), dt = oa_path_at(to, &rt);
	if (renameat(df, rf, dt, rt) == 0)
		goto out;
	if (errno != EXDEV) {
		r = -errno;
		goto out;
	}
	int in = oa_open_at(from, O_RDONLY | O_CLOEXEC, 0);
	if (in < 0) {
		r = -errno;
		goto out;
	}
	int outfd = oa_open_at(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (outfd < 0) {
		r = -errno;
		oa_nc_close(in);
		goto out;
	}
	for (int intr = 0;;) {
		ssize_t n = sendfile(outfd, in, NULL, 1 << 30);
		if (n == 0)
			break;
		if (n < 0) {
			if (oa_eintr_again(&intr))
				continue;
			r = -errno;
			break;
		}
	}
	oa_nc_close(in);
	oa_nc_close(outfd);
	if (r == 0)
		unlinkat(df, rf, 0);
out:
	if (nf >= 0)
		from[nf] = '\0';
	if (nt >= 0)
		to[nt] = '\0';
	return r;
}
