/*
 * tsb_sha256*: FIPS 180-4's examples, the empty message and a million
 * 'a', in one call and fed in pieces across block boundaries; the hex and
 * base64 forms.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <tilescope/sha256.h>

#include <string.h>

/* FIPS 180-4's examples (and the empty message), one call and fed in
 * pieces across block boundaries. */
static void test_sha256_vectors(void **state)
{
	static const struct {
		const char *msg, *digest;
	} v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	unsigned char d[TSB_SHA256_LEN];
	char x[65], b64[TSB_SHA256_BASE64_LEN];
	tsb_sha256_ctx c;

	(void)state;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		tsb_sha256(v[i].msg, strlen(v[i].msg), d);
		tsb_sha256_hex(d, x);
		assert_string_equal(x, v[i].digest);
		tsb_sha256_init(&c);
		for (size_t j = 0; v[i].msg[j]; j++)
			tsb_sha256_update(&c, v[i].msg + j, 1);
		tsb_sha256_final(&c, d);
		tsb_sha256_hex(d, x);
		assert_string_equal(x, v[i].digest);
	}
	/* A million 'a' (FIPS 180-2's third example), in 1000-byte pieces. */
	char chunk[1000];
	memset(chunk, 'a', sizeof chunk);
	tsb_sha256_init(&c);
	for (int i = 0; i < 1000; i++)
		tsb_sha256_update(&c, chunk, sizeof chunk);
	tsb_sha256_final(&c, d);
	tsb_sha256_hex(d, x);
	assert_string_equal(x, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	tsb_sha256_base64("", 0, b64);
	assert_string_equal(b64, "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_vectors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
