/* check.h - what the unit tests that draw random traces share: a CHECK that
 * counts, and a seeded splitmix64 generator (no rand(), no clock), so that
 * a failing seed fails again. Include once, in the test's one file. */
#ifndef TR_TEST_CHECK_H
#define TR_TEST_CHECK_H

#include <stdint.h>
#include <stdio.h>

static int passed, failed;

#define CHECK(cond, ...) do { \
	if (cond) passed++; \
	else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
} while (0)

static uint64_t rng_state;

static uint64_t
rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number in [lo, hi]. */
static int64_t
range(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

#endif
