/* owner.h: a process that changes user (a daemon dropping root: nginx's
 * workers, PostgreSQL under runuser, setuid(65534)) must still finish its
 * streams and start new ones, and its children must still create their
 * process directories.  While it is still privileged, its own directory and
 * files go to the new user, and the new user (that user only: nothing
 * becomes writable by users the program never became) is granted write
 * access to the loom directory and to the trace directory (the looms of
 * the PID namespaces its children make) with a POSIX ACL entry. */
#ifndef OA_OWNER_H
#define OA_OWNER_H

#include <sys/types.h>

/* Add user:uid:rwx (and a mask) to dir's access ACL. 0 or -errno. */
int oa_owner_grant(const char *dir, uid_t uid);

/* chown procdir, its thread.* directories and their stream files to
 * uid:gid (-1 keeps one). 0 or -errno. */
int oa_owner_give(const char *procdir, uid_t uid, gid_t gid);

#endif
