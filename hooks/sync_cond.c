/* sync_cond.c: condition variables and semaphores.
 * Interposes: pthread_cond_init, pthread_cond_destroy, pthread_cond_wait,
 * pthread_cond_timedwait, pthread_cond_clockwait, pthread_cond_signal,
 * pthread_cond_broadcast, sem_wait, sem_timedwait, sem_clockwait.
 * glibc has two ABIs of the condition variable functions: every one of them
 * is resolved with dlvsym(..., "GLIBC_2.3.2") so that one ABI is used for a
 * variable from init to destroy (mixing them corrupts or hangs). A condition
 * wait always blocks and is recorded; a semaphore wait is tried first. */
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>

#include "sync.h"

static struct {
	int (*init)(pthread_cond_t *, const pthread_condattr_t *);
	int (*destroy)(pthread_cond_t *);
	int (*wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
	int (*clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
	int (*signal)(pthread_cond_t *);
	int (*broadcast)(pthread_cond_t *);
	int (*sem_wait)(sem_t *);
	int (*sem_trywait)(sem_t *);
	int (*sem_timedwait)(sem_t *, const struct timespec *);
	int (*sem_clockwait)(sem_t *, clockid_t, const struct timespec *);
} real;

__attribute__((constructor(102))) static void cond_init(void)
{
#define V(field, name) *(void **)&real.field = dlvsym(RTLD_NEXT, name, "GLIBC_2.3.2")
	V(init, "pthread_cond_init");
	V(destroy, "pthread_cond_destroy");
	V(wait, "pthread_cond_wait");
	V(timedwait, "pthread_cond_timedwait");
	V(signal, "pthread_cond_signal");
	V(broadcast, "pthread_cond_broadcast");
#undef V
#define R(field, name) *(void **)&real.field = dlsym(RTLD_NEXT, name)
	R(clockwait, "pthread_cond_clockwait"); /* one version only (2.30) */
	R(sem_wait, "sem_wait");
	R(sem_trywait, "sem_trywait");
	R(sem_timedwait, "sem_timedwait");
	R(sem_clockwait, "sem_clockwait");
#undef R
}

#define RESOLVED(f) (real.f ? real.f : (cond_init(), real.f))

OA_EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
	return RESOLVED(init)(c, a);
}

OA_EXPORT int pthread_cond_destroy(pthread_cond_t *c)
{
	return RESOLVED(destroy)(c);
}

OA_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	return RESOLVED(signal)(c);
}

OA_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	return RESOLVED(broadcast)(c);
}

#define BLOCKING(kind, call)                        \
	do {                                        \
		struct oa_thread *t_ = sync_self(); \
		if (!t_)                            \
			return call;                \
		int r_;                             \
		SYNC_WAIT(r_, t_, kind, call);      \
		return r_;                          \
	} while (0)

OA_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	BLOCKING(SYNC_COND, RESOLVED(wait)(c, m));
}

OA_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t)
{
	BLOCKING(SYNC_COND, RESOLVED(timedwait)(c, m, t));
}

OA_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t id, const struct timespec *t)
{
	BLOCKING(SYNC_COND, RESOLVED(clockwait)(c, m, id, t));
}

/* Semaphores return -1 with errno: try first, keep the real call's errno. */
#define SEM_TRY_THEN_BLOCK(trycall, call)                              \
	do {                                                           \
		struct oa_thread *t_ = sync_self();                    \
		if (!t_)                                               \
			return call;                                   \
		int saved_ = errno;                                    \
		if (trycall == 0) {                                    \
			errno = saved_;                                \
			return 0;                                      \
		}                                                      \
		if (errno != EAGAIN)                                   \
			return -1; /* EINVAL...: what the wait says */ \
		errno = saved_;                                        \
		int r_;                                                \
		SYNC_WAIT(r_, t_, SYNC_SEM, call);                     \
		return r_;                                             \
	} while (0)

OA_EXPORT int sem_wait(sem_t *s)
{
	SEM_TRY_THEN_BLOCK(RESOLVED(sem_trywait)(s), RESOLVED(sem_wait)(s));
}

OA_EXPORT int sem_timedwait(sem_t *s, const struct timespec *t)
{
	SEM_TRY_THEN_BLOCK(RESOLVED(sem_trywait)(s), RESOLVED(sem_timedwait)(s, t));
}

OA_EXPORT int sem_clockwait(sem_t *s, clockid_t id, const struct timespec *t)
{
	SEM_TRY_THEN_BLOCK(RESOLVED(sem_trywait)(s), RESOLVED(sem_clockwait)(s, id, t));
}
