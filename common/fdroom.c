/* fdroom.c: may the agent open a descriptor for a moment? (see fdroom.h) */
#include "fdroom.h"
#include "compiler.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#define FD_TOP 8 /* slots below the limit the agent leaves to the program */

OA_START_TEXT int oa_fd_room(void)
{
	int saved = errno;
	struct rlimit rl;
	int room = 1;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (1u << 20)) {
		/* Asked without making a descriptor (a probe that made one
		 * could take the very slot the program needs). */
		if (rl.rlim_cur <= FD_TOP || fcntl((int)rl.rlim_cur - FD_TOP, F_GETFD) >= 0)
			room = 0;
	}
	errno = saved;
	return room;
}

int oa_fd_move_high(int fd)
{
	struct rlimit rl;
	int low = 100;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > 256)
		low = (int)(rl.rlim_cur - 64);
	int high = fcntl(fd, F_DUPFD_CLOEXEC, low);
	if (high < 0)
		return fd;
	close(fd);
	return high;
}

OA_START_TEXT unsigned long oa_read_full(int fd, void *buf, unsigned long cap)
{
	unsigned long n = 0;
	while (n < cap) {
		ssize_t r = read(fd, (char *)buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (unsigned long)r;
	}
	return n;
}
