/* identity.c: user changes.
 * Interposes: setuid, seteuid, setreuid, setresuid, chroot.
 * A daemon that drops root (nginx's workers, PostgreSQL under runuser, a
 * server calling setuid(65534)) must still be able to finish the streams
 * it began as root and to start new ones: before the real call, while the
 * process is still privileged, the agent hands its directory and files to
 * the new effective user (agent_user_change).  glibc applies the change to
 * every thread (SIGSETXID), so one call covers the process.  chroot: the
 * trace's absolute paths would lead into the jail; from then on they are
 * resolved from a descriptor to the trace directory opened before it. */
#include <dlfcn.h>
#include <unistd.h>

#include "hooks.h"

#define REALS(X)                                              \
	X(int, setuid, "setuid", (uid_t))                     \
	X(int, seteuid, "seteuid", (uid_t))                   \
	X(int, setreuid, "setreuid", (uid_t, uid_t))          \
	X(int, setresuid, "setresuid", (uid_t, uid_t, uid_t)) \
	X(int, chroot, "chroot", (const char *))
HOOK_REALS(REALS)

OA_EXPORT int setuid(uid_t uid)
{
	agent_user_change(uid);
	return REAL(setuid)(uid);
}

OA_EXPORT int seteuid(uid_t euid)
{
	agent_user_change(euid);
	return REAL(seteuid)(euid);
}

OA_EXPORT int setreuid(uid_t ruid, uid_t euid)
{
	agent_user_change(euid);
	return REAL(setreuid)(ruid, euid);
}

OA_EXPORT int setresuid(uid_t ruid, uid_t euid, uid_t suid)
{
	agent_user_change(euid);
	return REAL(setresuid)(ruid, euid, suid);
}

OA_EXPORT int chroot(const char *path)
{
	agent_root_change();
	return REAL(chroot)(path);
}
