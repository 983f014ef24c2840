/* test_shard.c - the shard hash against published FNV-1a vectors, and the
 * K/N parser (the regrouping is tested through tr-ingest: ingest_shard.bats). */
#include <stdio.h>
#include <string.h>

#include "core/shard.h"
#include "core/util.h"

#define CHECK_NO_RNG
#include "check.h"

static void
hash_vectors(void)
{
	/* 64-bit FNV-1a test vectors (Fowler, Noll, Vo: the reference test suite) */
	CHECK_EQ(tr_shard_hash("", 0), 0xcbf29ce484222325ull);
	CHECK_EQ(tr_shard_hash("a", 1), 0xaf63dc4c8601ec8cull);
	CHECK_EQ(tr_shard_hash("foobar", 6), 0x85944171f73967e8ull);
	/* a trace id: every byte counts, none beyond len */
	CHECK_EQ(tr_shard_hash("abc", 2), tr_shard_hash("ab", 2)); /* len bounds the bytes */
	CHECK(tr_shard_hash("ab", 2) != tr_shard_hash("ba", 2), "order counts");
}

static void
parse(void)
{
	unsigned k = 9, n = 9;

	CHECK_EQ(tr_shard_parse("0/1", &k, &n), 0);
	CHECK_EQ(k, 0u);
	CHECK_EQ(n, 1u);
	CHECK_EQ(tr_shard_parse("7/8", &k, &n), 0);
	CHECK_EQ(k, 7u);
	CHECK_EQ(n, 8u);
	CHECK_EQ(tr_shard_parse("65535/65536", &k, &n), 0); /* the largest */
	CHECK_EQ(n, 65536u);
	const char *bad[] = {"", "1", "8/8", "0/0", "-1/4", "1/-4", "a/4", "1/4x", "1 /4",
			     "0/65537", "/4", "1/", "99999999999999999999/4"};

	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECK(tr_shard_parse(bad[i], &k, &n) < 0, "\"%s\" not refused", bad[i]);
}

int
main(void)
{
	tr_setprogname("test_shard");
	hash_vectors();
	parse();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
