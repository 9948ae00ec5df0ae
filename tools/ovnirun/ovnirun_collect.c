/* ovnirun_collect.c: `ovnirun --collect CONTACT`: tell the collector that
 * a session of the run begins and ends, so that the collector finishes once
 * every session ended and every process sent its streams
 * (see tools/cmd_collect.c). */
#include "ovnirun_collect.h"

#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../common/collect_fmt.h"

int oa_col_contact(const char *arg, char *out, size_t size)
{
	if (arg[0] != '@') {
		snprintf(out, size, "%s", arg);
	} else {
		FILE *f = fopen(arg + 1, "r");
		if (!f || !fgets(out, (int)size, f)) {
			if (f)
				fclose(f);
			return -1;
		}
		fclose(f);
		out[strcspn(out, "\r\n")] = '\0';
	}
	char copy[600], *h, *p, *r, *s;
	snprintf(copy, sizeof(copy), "%s", out);
	return oa_col_parse_contact(copy, &h, &p, &r, &s);
}

static int frame(int fd, uint32_t type, const char *text)
{
	uint8_t m[OA_COL_HDR + 512];
	size_t n = strlen(text);
	if (n > 512)
		return -1;
	oa_col_put32(m, type);
	oa_col_put32(m + 4, (uint32_t)n);
	memcpy(m + OA_COL_HDR, text, n);
	return send(fd, m, OA_COL_HDR + n, MSG_NOSIGNAL) == (ssize_t)(OA_COL_HDR + n) ? 0 : -1;
}

int oa_col_session(const char *contact, int done)
{
	char copy[600], *host, *port, *run, *secret;
	snprintf(copy, sizeof(copy), "%s", contact);
	if (oa_col_parse_contact(copy, &host, &port, &run, &secret))
		return -1;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	if (getaddrinfo(host, port, &hints, &ai))
		return -1;
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct timeval tv = { .tv_sec = 2 }; /* connect() too */
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	int r = fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) ? -1 : 0;
	freeaddrinfo(ai);
	/* The handshake of collect_fmt.h: the collector proves it knows the
	 * secret before we do; the secret itself never travels. */
	char hello[200], mine[OA_COL_NONCE_HEX + 1], theirs[OA_COL_NONCE_HEX + 1], proof[OA_COL_PROOF_HEX + 1];
	char want[OA_COL_PROOF_HEX + 1], reply[300];
	uint8_t rnd[OA_COL_NONCE_HEX / 2];
	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
		r = -1;
	oa_col_hex(rnd, sizeof(rnd), mine);
	snprintf(hello, sizeof(hello), "run=%s\nnonce=%s\nrole=ovnirun\n", run, mine);
	uint8_t h[OA_COL_HDR];
	if (!r)
		r = frame(fd, OA_COL_HELO, hello);
	uint32_t len = 0;
	if (!r)
		r = recv(fd, h, sizeof(h), MSG_WAITALL) == (ssize_t)sizeof(h) && oa_col_get32(h) == OA_COL_AUTH &&
				    (len = oa_col_get32(h + 4)) < sizeof(reply) &&
				    recv(fd, reply, len, MSG_WAITALL) == (ssize_t)len
			    ? 0
			    : -1;
	if (!r) {
		reply[len] = '\0';
		oa_col_proof(secret, "collector", mine, oa_col_kv(reply, "nonce", theirs, sizeof(theirs)) ? theirs : "",
			     want);
		r = oa_col_kv(reply, "proof", proof, sizeof(proof)) && oa_col_same(proof, want) ? 0 : -1;
	}
	if (!r) {
		oa_col_proof(secret, "agent", theirs, mine, want);
		snprintf(hello, sizeof(hello), "proof=%s\n", want);
		r = frame(fd, OA_COL_PROV, hello);
	}
	if (!r)
		r = recv(fd, h, sizeof(h), MSG_WAITALL) == (ssize_t)sizeof(h) && oa_col_get32(h) == OA_COL_WELC ? 0
														: -1;
	if (!r)
		r = frame(fd, done ? OA_COL_DONE : OA_COL_BEGN, "");
	if (fd >= 0)
		close(fd);
	return r;
}
