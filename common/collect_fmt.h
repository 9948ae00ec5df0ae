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
 *   HELO "run=..\nnonce=A\nloom=..\npid=..\n..." ->
 *                                           <- AUTH "nonce=B\nproof=HMAC(secret, collector|A|B)"
 *   (the agent checks the proof: a listener that does not know the secret
 *    learns nothing, and gets nothing more)
 *   PROV "proof=HMAC(secret, agent|B|A)"     ->
 *   (the collector checks it: DENY "wrong secret" otherwise)
 *                                           <- PING (no payload), a bounded number
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
#define OA_COL_MAX_CTRL 4096 /* payload of every frame but FILE data */
#define OA_COL_SECRET_HEX 32 /* 128 bits */
#define OA_COL_RUN_HEX 8
#define OA_COL_SYNC_ROUNDS 64 /* ping-pongs per clock measurement */
#define OA_COL_NAME_MAX 64    /* "thread.<tid>/stream.json" */

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
#define OA_COL_AUTH OA_COL_TYPE('A', 'U', 'T', 'H') /* the collector's nonce and proof */
#define OA_COL_PROV OA_COL_TYPE('P', 'R', 'O', 'V') /* the agent's proof */
#define OA_COL_NONCE_HEX 32                         /* 128 bits */
#define OA_COL_PROOF_HEX 64                         /* HMAC-SHA-256 */
/* The most PINGs a client answers in one exchange: OA_COL_MAX_SERIES
 * measurements of OA_COL_SYNC_ROUNDS in a row (the collector measures again
 * while the round trips are poor; never more than this, or the agent breaks
 * off). */
#define OA_COL_MAX_SERIES 4
#define OA_COL_MAX_PINGS (OA_COL_MAX_SERIES * OA_COL_SYNC_ROUNDS)

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

/* SHA-256 (FIPS 180-4) and HMAC (RFC 2104), small and allocation-free:
 * the proofs of the handshake. */
struct oa_sha256 {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
	unsigned n;
};

static inline uint32_t oa_ror32(uint32_t x, unsigned r)
{
	return x >> r | x << (32 - r);
}

static inline void oa_sha256_block(struct oa_sha256 *c, const uint8_t *b)
{
	static const uint32_t k[64] = {
		0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
		0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
		0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
		0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
		0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
		0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
		0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
		0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
	};
	uint32_t w[64], v[8];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 | (uint32_t)b[4 * i + 2] << 8 |
		       b[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = oa_ror32(w[i - 15], 7) ^ oa_ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = oa_ror32(w[i - 2], 17) ^ oa_ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	for (int i = 0; i < 8; i++)
		v[i] = c->h[i];
	for (int i = 0; i < 64; i++) {
		uint32_t S1 = oa_ror32(v[4], 6) ^ oa_ror32(v[4], 11) ^ oa_ror32(v[4], 25);
		uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
		uint32_t t1 = v[7] + S1 + ch + k[i] + w[i];
		uint32_t S0 = oa_ror32(v[0], 2) ^ oa_ror32(v[0], 13) ^ oa_ror32(v[0], 22);
		uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
		uint32_t t2 = S0 + maj;
		v[7] = v[6];
		v[6] = v[5];
		v[5] = v[4];
		v[4] = v[3] + t1;
		v[3] = v[2];
		v[2] = v[1];
		v[1] = v[0];
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		c->h[i] += v[i];
}

static inline void oa_sha256_init(struct oa_sha256 *c)
{
	static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	memcpy(c->h, h0, sizeof(h0));
	c->len = 0;
	c->n = 0;
}

static inline void oa_sha256_add(struct oa_sha256 *c, const void *data, size_t len)
{
	const uint8_t *p = data;
	c->len += len;
	while (len--) {
		c->buf[c->n++] = *p++;
		if (c->n == 64) {
			oa_sha256_block(c, c->buf);
			c->n = 0;
		}
	}
}

static inline void oa_sha256_end(struct oa_sha256 *c, uint8_t out[32])
{
	uint64_t bits = c->len * 8;
	uint8_t pad = 0x80, zero = 0;
	oa_sha256_add(c, &pad, 1);
	while (c->n != 56)
		oa_sha256_add(c, &zero, 1);
	uint8_t l[8];
	for (int i = 0; i < 8; i++)
		l[i] = (uint8_t)(bits >> (56 - 8 * i));
	oa_sha256_add(c, l, 8);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(c->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)c->h[i];
	}
}

/* HMAC-SHA-256 of the concatenation of three strings, keyed by `key`. */
static inline void oa_hmac3(const char *key, const char *a, const char *b, const char *c, uint8_t out[32])
{
	uint8_t k[64] = { 0 }, pad[64], inner[32];
	size_t kl = strlen(key);
	struct oa_sha256 h;
	if (kl > 64) {
		oa_sha256_init(&h);
		oa_sha256_add(&h, key, kl);
		oa_sha256_end(&h, k);
	} else {
		memcpy(k, key, kl);
	}
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	oa_sha256_init(&h);
	oa_sha256_add(&h, pad, 64);
	oa_sha256_add(&h, a, strlen(a));
	oa_sha256_add(&h, b, strlen(b));
	oa_sha256_add(&h, c, strlen(c));
	oa_sha256_end(&h, inner);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	oa_sha256_init(&h);
	oa_sha256_add(&h, pad, 64);
	oa_sha256_add(&h, inner, 32);
	oa_sha256_end(&h, out);
}

static inline void oa_col_hex(const uint8_t *p, size_t n, char *out)
{
	static const char d[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[p[i] >> 4];
		out[2 * i + 1] = d[p[i] & 15];
	}
	out[2 * n] = '\0';
}

/* The proof a side gives: HMAC(secret, "collector|" or "agent|", mine, theirs)
 * in hex (OA_COL_PROOF_HEX + 1 bytes). The collector proves with
 * (agent's nonce, its own), the agent with (collector's nonce, its own). */
static inline void oa_col_proof(const char *secret, const char *who, const char *n1, const char *n2, char *out)
{
	uint8_t mac[32];
	char label[32];
	size_t w = strlen(who);
	if (w > sizeof(label) - 2)
		w = sizeof(label) - 2;
	memcpy(label, who, w);
	label[w] = '|';
	label[w + 1] = '\0';
	char n1b[OA_COL_NONCE_HEX + 2];
	size_t l1 = strlen(n1);
	if (l1 > OA_COL_NONCE_HEX)
		l1 = OA_COL_NONCE_HEX;
	memcpy(n1b, n1, l1);
	n1b[l1] = '|';
	n1b[l1 + 1] = '\0';
	oa_hmac3(secret, label, n1b, n2, mac);
	oa_col_hex(mac, 32, out);
}

/* Compare two proofs in constant time: 1 when equal. */
static inline int oa_col_same(const char *a, const char *b)
{
	unsigned diff = 0;
	for (int i = 0; i < OA_COL_PROOF_HEX; i++)
		diff |= (unsigned)(a[i] ^ b[i]);
	return !diff && a[OA_COL_PROOF_HEX] == '\0' && b[OA_COL_PROOF_HEX] == '\0';
}

/* The value of `key=` on its own line of a frame's text, into out (at most
 * size - 1 characters): out, or NULL. */
static inline const char *oa_col_kv(const char *text, const char *key, char *out, size_t size)
{
	size_t k = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, k) && p[k] == '=') {
			size_t n = strcspn(p + k + 1, "\n");
			if (n >= size)
				return NULL;
			memcpy(out, p + k + 1, n);
			out[n] = '\0';
			return out;
		}
	}
	return NULL;
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
