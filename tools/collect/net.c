/* net.c: the collector's listening socket and its run's secrets. */
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../common/collect_fmt.h"
#include "../../common/log.h"
#include "collect.h"

/* Listen on ADDR:PORT (NULL: every address, a free port): the socket, the
 * host name to give in the contact and the port. Dies when it cannot. */
int oa_col_listen(const char *spec, char *host, size_t hsize, int *port)
{
	char a[300] = "", p[32] = "0";
	if (spec) {
		const char *colon = strrchr(spec, ':');
		if (!colon) {
			snprintf(a, sizeof(a), "%s", spec);
		} else {
			snprintf(a, sizeof(a), "%.*s", (int)(colon - spec), spec);
			snprintf(p, sizeof(p), "%s", colon + 1);
		}
		if (a[0] == '[' && a[strlen(a) - 1] == ']') {
			memmove(a, a + 1, strlen(a));
			a[strlen(a) - 1] = '\0';
		}
	}
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *ai;
	int g = getaddrinfo(a[0] ? a : NULL, p, &hints, &ai);
	if (g)
		die("cannot listen on %s: %s", spec, gai_strerror(g));
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int one = 1;
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 512) != 0)
		die("cannot listen on %s:", spec ? spec : "a free port");
	freeaddrinfo(ai);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	*port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
					       : ((struct sockaddr_in *)&ss)->sin_port);
	if (a[0] && strcmp(a, "0.0.0.0") && strcmp(a, "::"))
		snprintf(host, hsize, strchr(a, ':') ? "[%s]" : "%s", a);
	else if (gethostname(host, hsize) != 0)
		snprintf(host, hsize, "localhost");
	return fd;
}

/* A fresh secret and run id (hex), from the kernel's random numbers. */
void oa_col_make_secret(char *secret, char *run)
{
	uint8_t r[OA_COL_SECRET_HEX / 2 + OA_COL_RUN_HEX / 2];
	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		die("no random numbers:");
	for (size_t i = 0; i < OA_COL_SECRET_HEX / 2; i++)
		sprintf(secret + 2 * i, "%02x", r[i]);
	for (size_t i = 0; i < OA_COL_RUN_HEX / 2; i++)
		sprintf(run + 2 * i, "%02x", r[OA_COL_SECRET_HEX / 2 + i]);
}
