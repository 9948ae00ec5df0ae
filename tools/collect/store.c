/* store.c: where the collector writes what it receives (see collect.h).
 * Everything is opened relative to the trace directory's descriptor, one
 * checked component at a time, never following a link: a client names only
 * "thread.<digits>/stream.obs|json"; the loom and pid come from its checked
 * HELO.  A transfer that does not reach FINI leaves nothing behind. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"

static int root = -1, incoming = -1;

int oa_col_store_root(void)
{
	return root;
}

int oa_col_store_open_root(const char *dir)
{
	mkdir(dir, 0755);
	root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -errno;
	mkdirat(root, ".incoming", 0700);
	incoming = openat(root, ".incoming", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return incoming < 0 ? -errno : 0;
}

static int subdir(int dfd, const char *name, int create)
{
	if (create && mkdirat(dfd, name, 0755) != 0 && errno != EEXIST)
		return -errno;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Remove a directory tree of plain files and directories (ours). */
static void remove_tree(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		DIR *d = fdopendir(fd);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (unlinkat(fd, e->d_name, 0) != 0)
				remove_tree(fd, e->d_name);
		}
		if (d)
			closedir(d);
		else
			close(fd);
	}
	unlinkat(dfd, name, AT_REMOVEDIR);
}

static void id_name(unsigned id, char *out, size_t size)
{
	snprintf(out, size, "t%u", id);
}

int oa_col_store_begin(unsigned id)
{
	char n[32];
	id_name(id, n, sizeof(n));
	remove_tree(incoming, n);
	int fd = subdir(incoming, n, 1);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* "thread.<1-10 digits>/stream.obs" or ".../stream.json": the thread
 * directory name is copied to dir, the file name to file. */
static int check_name(const char *name, char *dir, const char **file)
{
	if (strncmp(name, "thread.", 7))
		return -EINVAL;
	const char *p = name + 7;
	size_t digits = 0;
	while (p[digits] >= '0' && p[digits] <= '9')
		digits++;
	if (digits == 0 || digits > 10 || p[digits] != '/' || p[0] == '0')
		return -EINVAL;
	const char *f = p + digits + 1;
	if (strcmp(f, "stream.obs") && strcmp(f, "stream.json"))
		return -EINVAL;
	memcpy(dir, name, (size_t)(f - 1 - name));
	dir[f - 1 - name] = '\0';
	*file = f;
	return 0;
}

int oa_col_store_file(unsigned id, const char *name, int *out)
{
	char dir[32], n[32];
	const char *file;
	if (check_name(name, dir, &file))
		return -EINVAL;
	id_name(id, n, sizeof(n));
	int t = subdir(incoming, n, 0);
	if (t < 0)
		return t;
	int d = subdir(t, dir, 1);
	close(t);
	if (d < 0)
		return d;
	/* Sent twice in one transfer is a protocol error. */
	int fd = openat(d, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	int e = errno;
	close(d);
	if (fd < 0)
		return e == EEXIST ? -EINVAL : -e;
	*out = fd;
	return 0;
}

void oa_col_store_abort(unsigned id)
{
	char n[32];
	id_name(id, n, sizeof(n));
	remove_tree(incoming, n);
}

/* Move every thread directory of the transfer into loom.L/proc.P/. */
int oa_col_store_commit(unsigned id, const char *loom, int pid, int *nstreams)
{
	char n[32], ln[COL_LOOM_MAX + 8], pn[32];
	id_name(id, n, sizeof(n));
	snprintf(ln, sizeof(ln), "loom.%s", loom);
	snprintf(pn, sizeof(pn), "proc.%d", pid);
	int r = 0, l = -1, p = -1;
	int t = subdir(incoming, n, 0);
	*nstreams = 0;
	if (t < 0) {
		r = t;
		goto out;
	}
	/* Nothing sent (a process that wrote no stream): no empty loom or
	 * process directory, which the emulator would refuse. */
	int any = 0;
	int probe = openat(t, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *pd = probe < 0 ? NULL : fdopendir(probe);
	for (struct dirent *e; pd && (e = readdir(pd));)
		any |= !strncmp(e->d_name, "thread.", 7);
	if (pd)
		closedir(pd);
	if (!any)
		goto out;
	l = subdir(root, ln, 1);
	p = l < 0 ? l : subdir(l, pn, 1);
	if (p < 0) {
		r = p;
		goto out;
	}
	int dup = openat(t, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dup < 0 ? NULL : fdopendir(dup);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "thread.", 7))
			continue;
		/* A stream sent again (an earlier transfer of this pid) is replaced. */
		remove_tree(p, e->d_name);
		if (renameat(t, e->d_name, p, e->d_name) != 0)
			r = -errno;
		else
			(*nstreams)++;
	}
	if (d)
		closedir(d);
out:
	if (p >= 0)
		close(p);
	if (l >= 0)
		close(l);
	if (t >= 0)
		close(t);
	remove_tree(incoming, n);
	return r;
}

void oa_col_store_cleanup(void)
{
	if (incoming >= 0)
		close(incoming);
	incoming = -1;
	remove_tree(root, ".incoming");
}

int oa_col_write_file(const char *name, const char *text)
{
	char tmp[96];
	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	/* Created new: whatever stands at that name (a link someone planted to
	 * a file elsewhere) is removed, never written through. */
	unlinkat(root, tmp, 0);
	int fd = openat(root, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	size_t n = strlen(text);
	int r = write(fd, text, n) == (ssize_t)n ? 0 : -EIO;
	if (close(fd) != 0)
		r = -EIO;
	if (!r && renameat(root, tmp, root, name) != 0)
		r = -errno;
	if (r)
		unlinkat(root, tmp, 0);
	return r;
}
