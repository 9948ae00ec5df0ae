/* An LD_PRELOAD library that wraps execve and calls libc's through a
 * handle of its own (dlopen of libc, RTLD_NOLOAD), as libtorsocks does:
 * the exec goes past the agent's interposer, which does not see it. */
#include <dlfcn.h>
#include <stddef.h>

int execve(const char *path, char *const argv[], char *const envp[])
{
	static int (*real)(const char *, char *const[], char *const[]);
	if (!real) {
		void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
		real = h ? (int (*)(const char *, char *const[], char *const[]))dlsym(h, "execve") : NULL;
	}
	return real ? real(path, argv, envp) : -1;
}
