/* real.h: the real libc/libpthread functions behind our interposers,
 * resolved once at load time (dlsym RTLD_NEXT; dlvsym GLIBC_2.3.2 for the
 * condition variables), never on a hot or signal path. */
#ifndef OA_REAL_H
#define OA_REAL_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>

struct oa_real {
	int (*pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	int (*pthread_setaffinity_np)(pthread_t, size_t, const cpu_set_t *);
	int (*sched_setaffinity)(pid_t, size_t, const cpu_set_t *);
	void (*_exit)(int) __attribute__((noreturn));
	void (*_Exit)(int) __attribute__((noreturn));
	void (*exit)(int) __attribute__((noreturn));
	void (*abort)(void) __attribute__((noreturn));
	void (*quick_exit)(int) __attribute__((noreturn));
	int (*sigaction)(int, const struct sigaction *, struct sigaction *);
	int (*execve)(const char *, char *const[], char *const[]);
	int (*execvpe)(const char *, char *const[], char *const[]);
	int (*execv)(const char *, char *const[]);
	int (*execvp)(const char *, char *const[]);
	int (*fexecve)(int, char *const[], char *const[]);
	int (*execveat)(int, const char *, char *const[], char *const[], int);
};

extern struct oa_real oa_real;

/* Resolve every symbol (idempotent; called by the constructor and by a hook
 * that runs before it). Returns 0 when every symbol was found. */
int oa_real_init(void);
/* The real `name` (its default version, or `version` when not NULL): the
 * first definition in an object loaded after the agent, as
 * dlsym(RTLD_NEXT)/dlvsym() find it, without the loader's lock. */
void *oa_real_lookup(const char *name, const char *version);
/* A function of the vDSO (name@version), or NULL. */
void *oa_real_vdso(const char *name, const char *version);
/* The vDSO's clock_gettime, by its name on this architecture. */
#if defined(__aarch64__)
#define OA_VDSO_CLOCK_GETTIME "__kernel_clock_gettime", "LINUX_2.6.39"
#else
#define OA_VDSO_CLOCK_GETTIME "__vdso_clock_gettime", "LINUX_2.6"
#endif
/* Is an object whose file name begins with prefix (len bytes) loaded?
 * From the loader's list itself, not dl_iterate_phdr: another preloaded
 * library may interpose that and not be ready before its constructor
 * (libfakechroot's crashed in ours: `fakechroot chroot / true`, 139). */
int oa_real_loaded(const char *prefix, size_t len);
/* The file name the loader loaded the agent by (its link map's), or NULL. */
const char *oa_real_self_name(void);
/* oa_real_scope(1): read the global scope once; until oa_real_scope(0),
 * lookups and binding search that copy (from the constructors only: no
 * object comes or goes while they run).  After oa_real_scope(0), lookups
 * still search its objects loaded at start, which never go away, and
 * walk the loader's list only for what those lack (oa_real_scope_lasts()
 * says whether they can: then a hook may look up its real functions at its
 * first call, without the loader's lock). */
void oa_real_scope(int on);
/* The program itself (not a library) defines `name`: from the copy of the
 * scope, while the constructors run (0 otherwise). */
int oa_real_program_defines(const char *name);
int oa_real_scope_lasts(void);
/* Bind every PLT slot of the agent now, as the loader's -z now would (the
 * object is linked lazily so that a disabled agent binds none; real.c).
 * Returns how many were bound; *left gets those left to the loader's lazy
 * resolver (weak references to nothing; 0 normally), *from_parent those
 * taken from OVNI_BIND (what a traced parent with the same agent and libc
 * bound).  When OVNI_BIND does not serve this process, table (table_len
 * bytes, ~1 KB) gets the value its children should have, else "". */
int oa_real_bind(int *left, int *from_parent, char *table, size_t table_len);
/* "OVNI_BIND=VALUE" for the programs this process starts (childenv.c adds
 * it to their environment; the program's own does not have it), NULL when
 * none: the one this process used, or one kept with oa_real_bind_keep. */
const char *oa_real_bind_string(void);
void oa_real_bind_keep(const char *s);
/* Resolve one of them (its field and its name) and return it. */
void *oa_real_one(void **field, const char *name);

#endif
