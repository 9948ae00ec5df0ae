/* exec.c: program replacement.
 * Interposes: execve, execv, execvp, execvpe, execl, execle, execlp, fexecve,
 * execveat.  Before the real call every stream of the process is ended and
 * finished (the new image, loaded with the same environment, continues the
 * calling thread's stream); if the exec fails, tracing resumes.  vfork is not
 * wrapped; a vfork child's exec is recognised by its pid and left alone. */
#include <stdarg.h>
#include <unistd.h>

#include "hooks.h"

#define EXEC_WRAP(call)                                  \
	do {                                             \
		if (!oa_real.execve)                     \
			oa_real_init();                  \
		int traced = agent_exec_begin();         \
		int r = (call);                          \
		agent_exec_failed(traced);               \
		return r;                                \
	} while (0)

OA_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	EXEC_WRAP(oa_real.execve(path, argv, envp));
}

OA_EXPORT int execv(const char *path, char *const argv[])
{
	EXEC_WRAP(oa_real.execv(path, argv));
}

OA_EXPORT int execvp(const char *file, char *const argv[])
{
	EXEC_WRAP(oa_real.execvp(file, argv));
}

OA_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	EXEC_WRAP(oa_real.execvpe(file, argv, envp));
}

OA_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	EXEC_WRAP(oa_real.fexecve(fd, argv, envp));
}

OA_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	EXEC_WRAP(oa_real.execveat(dirfd, path, argv, envp, flags));
}

/* The list forms: collect the arguments on the stack (no malloc). */
static int count_args(va_list ap)
{
	int n = 1;
	while (va_arg(ap, char *))
		n++;
	return n;
}

#define COLLECT_ARGS(argv, arg0, last)               \
	va_list ap;                                  \
	va_start(ap, last);                          \
	int n_ = count_args(ap);                     \
	va_end(ap);                                  \
	char *argv[n_ + 1];                          \
	argv[0] = (char *)(arg0);                    \
	va_start(ap, last);                          \
	for (int i_ = 1; i_ <= n_; i_++)             \
		argv[i_] = va_arg(ap, char *);       \

OA_EXPORT int execl(const char *path, const char *arg, ...)
{
	COLLECT_ARGS(argv, arg, arg);
	va_end(ap);
	EXEC_WRAP(oa_real.execv(path, argv));
}

OA_EXPORT int execlp(const char *file, const char *arg, ...)
{
	COLLECT_ARGS(argv, arg, arg);
	va_end(ap);
	EXEC_WRAP(oa_real.execvp(file, argv));
}

OA_EXPORT int execle(const char *path, const char *arg, ...)
{
	COLLECT_ARGS(argv, arg, arg);
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	EXEC_WRAP(oa_real.execve(path, argv, envp));
}
