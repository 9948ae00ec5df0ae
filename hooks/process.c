/* process.c: new processes.
 * Interposes: fork, _Fork, posix_spawn, posix_spawnp.
 * fork runs the agent's atfork child handler (the child drops the parent's
 * streams and starts its own process); the parent records the child's pid
 * as a process event.  _Fork runs no atfork handlers, so the child is set up
 * here.  posix_spawn children (also what system() and popen() use) are
 * traced through their environment, re-injected when the caller passed one
 * without the agent.  vfork is not wrapped (its child returns through our
 * frame on the parent's stack); its exec is handled in exec.c. */
#include <dlfcn.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../preload/childenv.h"
#include "hooks.h"

static struct {
	pid_t (*fork)(void);
	pid_t (*_Fork)(void);
	int (*posix_spawn)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
			   char *const[], char *const[]);
	int (*posix_spawnp)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
			    char *const[], char *const[]);
} real;

__attribute__((constructor(102))) static void process_resolve(void)
{
	*(void **)&real.fork = dlsym(RTLD_NEXT, "fork");
	*(void **)&real._Fork = dlsym(RTLD_NEXT, "_Fork");
	*(void **)&real.posix_spawn = dlsym(RTLD_NEXT, "posix_spawn");
	*(void **)&real.posix_spawnp = dlsym(RTLD_NEXT, "posix_spawnp");
}

static void record_child(const char *what, const char *path, pid_t pid)
{
	char label[512];
	int saved = errno;
	if (path)
		snprintf(label, sizeof(label), "%s %s: child %d", what, path, (int)pid);
	else
		snprintf(label, sizeof(label), "%s: child %d", what, (int)pid);
	agent_proc_event(label);
	errno = saved;
}

OA_EXPORT pid_t fork(void)
{
	if (!real.fork)
		process_resolve();
	pid_t pid = real.fork();
	if (pid > 0 && hook_tracing())
		record_child("fork", NULL, pid);
	return pid;
}

OA_EXPORT pid_t _Fork(void)
{
	if (!real._Fork)
		process_resolve();
	pid_t pid = real._Fork();
	if (pid == 0)
		agent_fork_child();
	else if (pid > 0 && hook_tracing())
		record_child("fork", NULL, pid);
	return pid;
}

#define SPAWN(fn, pid, path, fa, attr, argv, envp)                                              \
	do {                                                                                    \
		if (!real.fn)                                                                   \
			process_resolve();                                                      \
		if (!hook_tracing())                                                            \
			return real.fn(pid, path, fa, attr, argv, envp);                        \
		char *out_[oa_childenv_count(envp) + OA_CHILDENV_EXTRA + 1];                    \
		char text_[oa_childenv_text_size(envp)];                                        \
		pid_t child_ = 0;                                                               \
		int r_ = real.fn(&child_, path, fa, attr, argv, oa_childenv(envp, out_, text_)); \
		if (pid)                                                                        \
			*pid = child_;                                                          \
		if (r_ == 0)                                                                    \
			record_child("spawn", path, child_);                                    \
		return r_;                                                                      \
	} while (0)

OA_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			  const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	SPAWN(posix_spawn, pid, path, fa, attr, argv, envp);
}

OA_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	SPAWN(posix_spawnp, pid, file, fa, attr, argv, envp);
}
