/* test_collect_auth.c: the collector handshake's SHA-256 and HMAC against
 * published vectors (FIPS 180-4 examples, RFC 4231 case 2), and the proofs:
 * each side's differs, a wrong secret or nonce gives another one. */
#include "../../common/collect_fmt.h"
#include "test.h"

static void sha_hex(const char *msg, size_t n, char *out)
{
	struct oa_sha256 c;
	uint8_t d[32];
	oa_sha256_init(&c);
	oa_sha256_add(&c, msg, n);
	oa_sha256_end(&c, d);
	oa_col_hex(d, 32, out);
}

int main(void)
{
	char h[65];
	sha_hex("abc", 3, h);
	CHECK(!strcmp(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "sha256(abc) %s", h);
	sha_hex("", 0, h);
	CHECK(!strcmp(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), "sha256('') %s", h);
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"; /* 56 bytes: padding spills */
	sha_hex(two, strlen(two), h);
	CHECK(!strcmp(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"), "sha256(2 blocks) %s", h);
	uint8_t mac[32];
	oa_hmac3("Jefe", "what do ya want ", "for ", "nothing?", mac); /* RFC 4231, test case 2 */
	oa_col_hex(mac, 32, h);
	CHECK(!strcmp(h, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"), "hmac %s", h);
	const char *secret = "00112233445566778899aabbccddeeff";
	const char *a = "0123456789abcdef0123456789abcdef", *b = "fedcba9876543210fedcba9876543210";
	char p1[65], p2[65], p3[65], p4[65];
	oa_col_proof(secret, "collector", a, b, p1);
	oa_col_proof(secret, "agent", b, a, p2);
	oa_col_proof("ffeeddccbbaa99887766554433221100", "collector", a, b, p3);
	oa_col_proof(secret, "collector", b, a, p4);
	CHECK(strlen(p1) == OA_COL_PROOF_HEX, "proof length");
	CHECK(!oa_col_same(p1, p2), "the two sides' proofs differ");
	CHECK(!oa_col_same(p1, p3), "another secret, another proof");
	CHECK(!oa_col_same(p1, p4), "the nonces' order matters");
	char again[65];
	oa_col_proof(secret, "collector", a, b, again);
	CHECK(oa_col_same(p1, again), "the same inputs, the same proof");
	char kvout[40];
	CHECK(oa_col_kv("run=1\nnonce=abc\n", "nonce", kvout, sizeof(kvout)) && !strcmp(kvout, "abc"), "kv");
	CHECK(!oa_col_kv("run=1\n", "nonce", kvout, sizeof(kvout)), "kv missing");
	TEST_DONE();
}
