/* collect_io.c: the agent's side of the collector's wire (collect.c):
 * whole sends and receives of frames on a blocking socket, every call
 * bounded by the deadline of the exchange it belongs to. */
#include "collect_io.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "../common/collect_fmt.h"
#include "../writer/clock.h"

/* One deadline for a whole exchange (the start-up handshake, a transfer):
 * a collector, or anything at its address, that answers slowly, a byte at a
 * time or with PINGs forever cannot hold the program longer. */
static uint64_t deadline; /* CLOCK_MONOTONIC ns; one exchange at a time per thread */

void oa_colio_begin(uint64_t seconds)
{
	deadline = oa_clock_mono() + seconds * 1000000000ull;
}

/* Bound the next socket call by what is left: 0, or -1 (ETIMEDOUT). */
static int arm(int fd)
{
	uint64_t now = oa_clock_mono();
	if (now >= deadline) {
		errno = ETIMEDOUT;
		return -1;
	}
	uint64_t left = deadline - now;
	struct timeval tv = { .tv_sec = (time_t)(left / 1000000000ull),
			      .tv_usec = (suseconds_t)(left % 1000000000ull / 1000) + 1 };
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return 0;
}

int oa_colio_send_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	while (n) {
		if (arm(fd))
			return -1;
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int oa_colio_recv_all(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;
	while (n) {
		if (arm(fd))
			return -1;
		ssize_t r = recv(fd, p, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

int oa_colio_send_frame(int fd, uint32_t type, const void *payload, uint32_t len)
{
	uint8_t h[OA_COL_HDR];
	oa_col_put32(h, type);
	oa_col_put32(h + 4, len);
	return oa_colio_send_all(fd, h, sizeof(h)) || (len && oa_colio_send_all(fd, payload, len)) ? -1 : 0;
}

/* Read one frame; its payload (at most `size`, the rest is an error) into buf. */
int oa_colio_recv_frame(int fd, uint32_t *type, char *buf, uint32_t size, uint32_t *len)
{
	uint8_t h[OA_COL_HDR];
	if (oa_colio_recv_all(fd, h, sizeof(h)))
		return -1;
	*type = oa_col_get32(h);
	*len = oa_col_get32(h + 4);
	if (*len >= size)
		return -1;
	if (*len && oa_colio_recv_all(fd, buf, *len))
		return -1;
	buf[*len] = '\0';
	return 0;
}

void oa_colio_extend(uint64_t ns)
{
	deadline += ns;
}
