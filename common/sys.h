/* sys.h: a few system calls made directly, not through libc's wrappers.
 * A traced process that calls a wrapper the program itself never calls
 * faults that wrapper's page of libc in (~2.5 us on this project's VMs,
 * docs/internals.md "Cost per process"): uname, sched_getaffinity and
 * clock_gettime at every start, and what a fork child of a shell checks
 * before its exec (childenv.c, handover.c).  The result is the
 * kernel's: the value, or -errno (errno is left alone). */
#ifndef OA_SYS_H
#define OA_SYS_H

#include <sys/syscall.h>

/* Headers of glibc before 2.32 lack it (the number is one on every
 * architecture since Linux 5.8). */
#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif

#if defined(__x86_64__)
static inline long oa_sys4(long n, long a, long b, long c, long d)
{
	long r;
	register long r10 __asm__("r10") = d;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
	return r;
}
#elif defined(__aarch64__)
static inline long oa_sys4(long n, long a, long b, long c, long d)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	return x0;
}
#else
#include <errno.h>
#include <unistd.h>
static inline long oa_sys4(long n, long a, long b, long c, long d)
{
	int saved = errno;
	long r = syscall(n, a, b, c, d);
	if (r < 0)
		r = -errno;
	errno = saved;
	return r;
}
#endif

static inline long oa_sys3(long n, long a, long b, long c)
{
	return oa_sys4(n, a, b, c, 0);
}

/* Does this thread run on libc's thread pointer?  Not a thread another
 * runtime made by a raw clone with a thread pointer of its own (the Go
 * runtime, without cgo): there the agent's thread-local variables, errno
 * and libc's own are not where the code looks for them, and a signal
 * handler of the agent's that such a runtime forwards a signal to must
 * not touch them.  On x86-64 glibc's thread control block begins with a
 * pointer to itself; other runtimes' thread pointers (Go's: its m.tls)
 * do not.  Elsewhere it cannot be told this way: 1. */
static inline int oa_libc_tls(void)
{
#if defined(__x86_64__)
	unsigned long base = 0;
	if (oa_sys3(SYS_arch_prctl, 0x1003 /* ARCH_GET_FS */, (long)&base, 0) != 0)
		return 1;
	return base && *(const unsigned long *)base == base;
#else
	return 1;
#endif
}

/* The calls libc makes cancellation points, made directly (errno set as
 * libc would), for the agent's file work inside its windows
 * (writer/sigblock.h), where cancellation is disabled.  glibc 2.36 turns
 * asynchronous cancellation on inside each cancellation point whatever the
 * state, and its SIGCANCEL handler looks at that type only: a cancel that
 * another thread's pthread_cancel sent just before the window disabled it
 * (the program's own asynchronous cancellation) unwound the thread from
 * inside the agent's open, its stream half flushed ("could not finish the
 * stream", t114 under ovnirun, one run in ~40).  A system call made
 * directly is no cancellation point: the cancel waits for the window's
 * end. */
#include <errno.h>
#include <sys/types.h>
static inline long oa_nc_ret(long r)
{
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}
static inline int oa_nc_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return (int)oa_nc_ret(oa_sys4(SYS_openat, dirfd, (long)path, flags, (long)mode));
}
static inline int oa_nc_close(int fd)
{
	return (int)oa_nc_ret(oa_sys3(SYS_close, fd, 0, 0));
}
static inline ssize_t oa_nc_write(int fd, const void *buf, size_t n)
{
	return oa_nc_ret(oa_sys3(SYS_write, fd, (long)buf, (long)n));
}
static inline ssize_t oa_nc_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return oa_nc_ret(oa_sys4(SYS_pwrite64, fd, (long)buf, (long)n, (long)off));
}

/* fstatat(2) where the kernel's struct stat is libc's (x86_64, aarch64);
 * libc's elsewhere.  0 or -errno. */
#include <fcntl.h>
#include <sys/stat.h>
static inline long oa_fstatat(int dirfd, const char *path, struct stat *st)
{
#if (defined(__x86_64__) || defined(__aarch64__)) && defined(SYS_newfstatat)
	return oa_sys4(SYS_newfstatat, dirfd, (long)path, (long)st, 0);
#else
	return fstatat(dirfd, path, st, 0) == 0 ? 0 : -errno;
#endif
}

/* Another try after a call failed with EINTR, counted in *tries: no
 * (errno kept) after OA_EINTR_TRIES of them.  So many in a row are not
 * signals but a ptrace'd process whose every call is made to fail
 * (strace's inject: a traced bash spun for ever in a pwrite loop). */
#define OA_EINTR_TRIES 1000
static inline int oa_eintr_again(int *tries)
{
	return errno == EINTR && ++*tries < OA_EINTR_TRIES;
}

#endif
