/* collect_fmt.h: the wire format between the agent in a traced process and
 * `ovni-auto collect` (a trace collector over TCP).  Both sides include it;
 * nothing here allocates or locks, so the agent may use it on its
 * fatal-signal path.
 *
 * A message is a frame: type (4 ASCII bytes) and payload length (u32, little
 * endian), then the payload.  A FILE frame is followed by `size` raw bytes
 * that its length does not count.
 *
 *   agent                                   collector
 *   HELO "secret=..\nloom=..\npid=..\n..."   ->
 *                                           <- PING (no payload), any number
 *   PONG u64 clock (the agent's trace clock) ->
 *                                           <- WELC "failstop=0|1\nstreams=0|1\n"  or  DENY "reason"
 *   ... the program runs ...
 *   CRSH "sig=N"        (a fatal signal: before its files)
 *   FILE u64 size, "thread.TID/stream.obs"  -> + size bytes
 *   FINI "how=exit|signal|stopped"          ->
 *                                           <- PING ... (the clock again, for drift)
 *                                           <- BYE_
 *                                           <- STOP (fail-stop: finish your streams now)
 * ovnirun --collect says HELO "role=ovnirun", then BEGN before it starts the
 * program and (another connection) DONE after it ended: the collector ends
 * once every session that began is done and every process has sent.
 */
#ifndef OA_COLLECT_FMT_H
#define OA_COLLECT_FMT_H

#include <stdint.h>
#include <string.h>

#define OA_COL_HDR 8
#define OA_COL_MAX_CTRL 4096       /* payload of every frame but FILE data */
#define OA_COL_SECRET_HEX 32       /* 128 bits */
#define OA_COL_RUN_HEX 8
#define OA_COL_SYNC_ROUNDS 64      /* ping-pongs per clock measurement */
#define OA_COL_NAME_MAX 64         /* "thread.<tid>/stream.json" */

#define OA_COL_TYPE(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define OA_COL_HELO OA_COL_TYPE('H', 'E', 'L', 'O')
#define OA_COL_PING OA_COL_TYPE('P', 'I', 'N', 'G')
#define OA_COL_PONG OA_COL_TYPE('P', 'O', 'N', 'G')
#define OA_COL_WELC OA_COL_TYPE('W', 'E', 'L', 'C')
#define OA_COL_DENY OA_COL_TYPE('D', 'E', 'N', 'Y')
#define OA_COL_CRSH OA_COL_TYPE('C', 'R', 'S', 'H')
#define OA_COL_FILE OA_COL_TYPE('F', 'I', 'L', 'E')
#define OA_COL_FINI OA_COL_TYPE('F', 'I', 'N', 'I')
#define OA_COL_BYE OA_COL_TYPE('B', 'Y', 'E', '_')
#define OA_COL_STOP OA_COL_TYPE('S', 'T', 'O', 'P')
#define OA_COL_BEGN OA_COL_TYPE('B', 'E', 'G', 'N') /* ovnirun --collect: a session of the run began */
#define OA_COL_DONE OA_COL_TYPE('D', 'O', 'N', 'E') /* ... and its program ended */

static inline void oa_col_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void oa_col_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t oa_col_get32(const uint8_t *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline uint64_t oa_col_get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Split "HOST:PORT:RUN:SECRET" (HOST may hold colons: an IPv6 address, or
 * "[addr]") in place. Returns 0, or -1 when it is not a contact string. */
static inline int oa_col_parse_contact(char *s, char **host, char **port, char **run, char **secret)
{
	char *c3 = strrchr(s, ':');
	if (!c3)
		return -1;
	*c3 = '\0';
	char *c2 = strrchr(s, ':');
	if (!c2)
		return -1;
	*c2 = '\0';
	char *c1 = strrchr(s, ':');
	if (!c1)
		return -1;
	*c1 = '\0';
	*host = s;
	*port = c1 + 1;
	*run = c2 + 1;
	*secret = c3 + 1;
	if (**host == '[') {
		size_t n = strlen(*host);
		if (n < 2 || (*host)[n - 1] != ']')
			return -1;
		(*host)[n - 1] = '\0';
		(*host)++;
	}
	if (!**host || !**port || strlen(*run) != OA_COL_RUN_HEX || strlen(*secret) != OA_COL_SECRET_HEX)
		return -1;
	for (const char *p = *run; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return -1;
	return 0;
}

#endif
