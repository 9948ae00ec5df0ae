/* owner.c: the trace stays writable by whoever the process becomes (see
 * owner.h). */
#include "owner.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../common/log.h"
#include "../writer/files.h"

/* Every path here is taken below the trace's anchor when there is one
 * (oa_path_at: a process that chrooted reaches the trace through it; by
 * its absolute path the jail hid the directories, which kept their owner
 * and the new user could write nothing: its threads ran untraced). */
static int open_dir(const char *dir)
{
	const char *rel;
	int d = oa_path_at(dir, &rel);
	return openat(d, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int chown_at(const char *path, uid_t uid, gid_t gid)
{
	const char *rel;
	int d = oa_path_at(path, &rel);
	return fchownat(d, rel, uid, gid, AT_SYMLINK_NOFOLLOW);
}

/* The kernel's POSIX ACL extended attribute (system.posix_acl_access):
 * a version, then entries sorted by tag and id. */
#define ACL_VERSION 2
#define ACL_USER_OBJ 0x01
#define ACL_USER 0x02
#define ACL_GROUP_OBJ 0x04
#define ACL_GROUP 0x08
#define ACL_MASK 0x10
#define ACL_OTHER 0x20
#define ACL_MAX 64

struct acl_entry {
	uint16_t tag, perm;
	uint32_t id;
};

static int by_tag(const struct acl_entry *a, const struct acl_entry *b)
{
	if (a->tag != b->tag)
		return a->tag < b->tag ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int grant_fd(int fd, uid_t uid)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return -errno;
	if (st.st_uid == uid)
		return 0;
	uint8_t buf[4 + ACL_MAX * 8];
	struct acl_entry e[ACL_MAX + 2];
	int n = 0;
	ssize_t len = fgetxattr(fd, "system.posix_acl_access", buf, sizeof(buf));
	if (len >= 4 && (len - 4) % 8 == 0) {
		for (ssize_t off = 4; off < len && n < ACL_MAX; off += 8, n++) {
			memcpy(&e[n].tag, buf + off, 2);
			memcpy(&e[n].perm, buf + off + 2, 2);
			memcpy(&e[n].id, buf + off + 4, 4);
		}
	} else {
		/* None yet: the one the mode stands for. */
		e[n++] = (struct acl_entry){ ACL_USER_OBJ, (uint16_t)((st.st_mode >> 6) & 7), UINT32_MAX };
		e[n++] = (struct acl_entry){ ACL_GROUP_OBJ, (uint16_t)((st.st_mode >> 3) & 7), UINT32_MAX };
		e[n++] = (struct acl_entry){ ACL_OTHER, (uint16_t)(st.st_mode & 7), UINT32_MAX };
	}
	int have_mask = 0;
	for (int i = 0; i < n; i++) {
		if (e[i].tag == ACL_USER && e[i].id == uid && (e[i].perm & 7) == 7)
			return 0; /* granted already */
		if (e[i].tag == ACL_USER && e[i].id == uid) {
			e[i].perm = 7;
			uid = (uid_t)-1; /* updated in place */
		}
		if (e[i].tag == ACL_MASK) {
			e[i].perm = 7;
			have_mask = 1;
		}
	}
	if (uid != (uid_t)-1)
		e[n++] = (struct acl_entry){ ACL_USER, 7, (uint32_t)uid };
	if (!have_mask)
		e[n++] = (struct acl_entry){ ACL_MASK, 7, UINT32_MAX };
	/* Insertion sort: a handful of entries. */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && by_tag(&e[j], &e[j - 1]) < 0; j--) {
			struct acl_entry t = e[j];
			e[j] = e[j - 1];
			e[j - 1] = t;
		}
	uint32_t version = ACL_VERSION;
	memcpy(buf, &version, 4);
	for (int i = 0; i < n; i++) {
		memcpy(buf + 4 + 8 * i, &e[i].tag, 2);
		memcpy(buf + 4 + 8 * i + 2, &e[i].perm, 2);
		memcpy(buf + 4 + 8 * i + 4, &e[i].id, 4);
	}
	return fsetxattr(fd, "system.posix_acl_access", buf, 4 + 8 * (size_t)n, 0) == 0 ? 0 : -errno;
}

int oa_owner_grant(const char *dir, uid_t uid)
{
	int fd = open_dir(dir);
	if (fd < 0)
		return -errno;
	int r = grant_fd(fd, uid);
	close(fd);
	return r;
}

/* chown dir/name if it exists (a name appended to the caller's buffer). */
static int chown_in(char *path, size_t size, size_t len, const char *name, uid_t uid, gid_t gid)
{
	if (len + 1 + strlen(name) >= size)
		return -ENAMETOOLONG;
	path[len] = '/';
	strcpy(path + len + 1, name);
	int r = chown_at(path, uid, gid) == 0 || errno == ENOENT ? 0 : -errno;
	path[len] = '\0';
	return r;
}

int oa_owner_give(const char *procdir, uid_t uid, gid_t gid)
{
	char path[4600];
	size_t plen = strlen(procdir);
	if (plen >= sizeof(path) - 80)
		return -ENAMETOOLONG;
	memcpy(path, procdir, plen + 1);
	if (chown_at(path, uid, gid) != 0)
		return errno == ENOENT ? 0 : -errno;
	int fd = open_dir(procdir);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return -e;
	}
	struct dirent *e;
	int r = 0;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "thread.", 7))
			continue;
		size_t len = plen + 1 + strlen(e->d_name);
		if (len >= sizeof(path) - 40)
			continue;
		path[plen] = '/';
		strcpy(path + plen + 1, e->d_name);
		if (chown_at(path, uid, gid) != 0 && !r)
			r = -errno;
		int a = chown_in(path, sizeof(path), len, "stream.obs", uid, gid);
		int b = chown_in(path, sizeof(path), len, "stream.json", uid, gid);
		if (!r)
			r = a ? a : b;
		path[plen] = '\0';
	}
	closedir(d);
	return r;
}
