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

/* The condition variables of the current ABI (GLIBC_2.3.2); clockwait has
 * one version only (2.30). */
#define REALS(X)                                                                                      \
	X(int, init, "pthread_cond_init@GLIBC_2.3.2", (pthread_cond_t *, const pthread_condattr_t *)) \
	X(int, destroy, "pthread_cond_destroy@GLIBC_2.3.2", (pthread_cond_t *))                       \
	X(int, wait, "pthread_cond_wait@GLIBC_2.3.2", (pthread_cond_t *, pthread_mutex_t *))          \
	X(int, timedwait, "pthread_cond_timedwait@GLIBC_2.3.2",                                       \
	  (pthread_cond_t *, pthread_mutex_t *, const struct timespec *))                             \
	X(int, signal, "pthread_cond_signal@GLIBC_2.3.2", (pthread_cond_t *))                         \
	X(int, broadcast, "pthread_cond_broadcast@GLIBC_2.3.2", (pthread_cond_t *))                   \
	X(int, clockwait, "pthread_cond_clockwait",                                                   \
	  (pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *))                  \
	X(int, sem_wait, "sem_wait", (sem_t *))                                                       \
	X(int, sem_trywait, "sem_trywait", (sem_t *))                                                 \
	X(int, sem_timedwait, "sem_timedwait", (sem_t *, const struct timespec *))                    \
	X(int, sem_clockwait, "sem_clockwait", (sem_t *, clockid_t, const struct timespec *))
HOOK_REALS(REALS)

OA_EXPORT OA_THREAD_TEXT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
	return REAL(init)(c, a);
}

OA_EXPORT OA_THREAD_TEXT int pthread_cond_destroy(pthread_cond_t *c)
{
	return REAL(destroy)(c);
}

OA_EXPORT OA_THREAD_TEXT int pthread_cond_signal(pthread_cond_t *c)
{
	return REAL(signal)(c);
}

OA_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	return REAL(broadcast)(c);
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
	BLOCKING(SYNC_COND, REAL(wait)(c, m));
}

OA_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t)
{
	BLOCKING(SYNC_COND, REAL(timedwait)(c, m, t));
}

OA_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t id, const struct timespec *t)
{
	BLOCKING(SYNC_COND, REAL(clockwait)(c, m, id, t));
}

/* Semaphores return -1 with errno: try first, keep the real call's errno. */
#define SEM_TRY_THEN_BLOCK(trycall, call)                              \
	do {                                                           \
		struct oa_thread *t_ = sync_self();                    \
		if (!t_)                                               \
			return call;                                   \
		HOOK_ERRNO_SAVE();                                     \
		if (trycall == 0) {                                    \
			HOOK_ERRNO_RESTORE();                          \
			return 0;                                      \
		}                                                      \
		if (errno != EAGAIN)                                   \
			return -1; /* EINVAL...: what the wait says */ \
		HOOK_ERRNO_RESTORE();                                  \
		int r_;                                                \
		SYNC_WAIT(r_, t_, SYNC_SEM, call);                     \
		return r_;                                             \
	} while (0)

OA_EXPORT OA_THREAD_TEXT int sem_wait(sem_t *s)
{
	SEM_TRY_THEN_BLOCK(REAL(sem_trywait)(s), REAL(sem_wait)(s));
}

OA_EXPORT int sem_timedwait(sem_t *s, const struct timespec *t)
{
	SEM_TRY_THEN_BLOCK(REAL(sem_trywait)(s), REAL(sem_timedwait)(s, t));
}

OA_EXPORT int sem_clockwait(sem_t *s, clockid_t id, const struct timespec *t)
{
	SEM_TRY_THEN_BLOCK(REAL(sem_trywait)(s), REAL(sem_clockwait)(s, id, t));
}
