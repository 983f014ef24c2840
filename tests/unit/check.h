/* check.h - what every unit test shares: checks that count and, when one
 * fails, print on stderr where, what and the values compared; and a seeded
 * splitmix64 generator (no rand(), no clock), so that a failing seed fails
 * again (left out with CHECK_NO_RNG defined, for a test with its own).
 * Include once, in the test's one file.
 *
 *   CHECK(cond)                 prints the condition
 *   CHECK(cond, fmt, ...)       prints the message
 *   CHECK_EQ(actual, expected)  numbers: prints both values
 *   CHECK_STR(actual, expected) strings (NULL allowed): prints both
 *   CHECK_NEAR(actual, expected, eps)
 */
#ifndef TR_TEST_CHECK_H
#define TR_TEST_CHECK_H

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;

/* CHECK with one argument or more: the 17th of the list is the macro. */
#define CHECK_PICK(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, m, ...) m
#define CHECK(...) CHECK_PICK(__VA_ARGS__, CHECK_MSG, CHECK_MSG, CHECK_MSG, CHECK_MSG, CHECK_MSG, \
	CHECK_MSG, CHECK_MSG, CHECK_MSG, CHECK_MSG, CHECK_MSG, CHECK_MSG, CHECK_MSG, CHECK_MSG, \
	CHECK_MSG, CHECK_MSG, CHECK_COND, _)(__VA_ARGS__)
#define CHECK_COND(cond) do { \
	if (cond) passed++; \
	else { failed++; fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)
#define CHECK_MSG(cond, ...) do { \
	if (cond) passed++; \
	else { failed++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); } \
} while (0)

static inline void
check_fail_head(const char *file, int line, const char *a, const char *b)
{
	failed++;
	fprintf(stderr, "FAIL %s:%d: %s == %s\n", file, line, a, b);
}

static inline void
check_eq_i(intmax_t a, intmax_t b, const char *sa, const char *sb, const char *file, int line)
{
	if (a == b) {
		passed++;
		return;
	}
	check_fail_head(file, line, sa, sb);
	fprintf(stderr, "  expected: %" PRIdMAX "\n  actual:   %" PRIdMAX "\n", b, a);
}

static inline void
check_eq_u(uintmax_t a, uintmax_t b, const char *sa, const char *sb, const char *file, int line)
{
	if (a == b) {
		passed++;
		return;
	}
	check_fail_head(file, line, sa, sb);
	fprintf(stderr, "  expected: %" PRIuMAX "\n  actual:   %" PRIuMAX "\n", b, a);
}

static inline void
check_eq_f(long double a, long double b, const char *sa, const char *sb, const char *file, int line)
{
	if (a == b) {
		passed++;
		return;
	}
	check_fail_head(file, line, sa, sb);
	fprintf(stderr, "  expected: %.17Lg\n  actual:   %.17Lg\n", b, a);
}

/* Numbers of any arithmetic type, each argument evaluated once; the sum's
 * type picks how they are compared and printed. */
#define CHECK_EQ(a, b) _Generic((a) + (b), \
	float: check_eq_f, double: check_eq_f, long double: check_eq_f, \
	unsigned int: check_eq_u, unsigned long: check_eq_u, unsigned long long: check_eq_u, \
	default: check_eq_i)((a), (b), #a, #b, __FILE__, __LINE__)

static inline void
check_str(const char *a, const char *b, const char *sa, const char *sb, const char *file, int line)
{
	if (a == b || (a && b && strcmp(a, b) == 0)) {
		passed++;
		return;
	}
	check_fail_head(file, line, sa, sb);
	fprintf(stderr, "  expected: %s%s%s\n  actual:   %s%s%s\n", b ? "\"" : "", b ? b : "NULL",
		b ? "\"" : "", a ? "\"" : "", a ? a : "NULL", a ? "\"" : "");
}
#define CHECK_STR(a, b) check_str((a), (b), #a, #b, __FILE__, __LINE__)

static inline void
check_near(double a, double b, double eps, const char *sa, const char *sb, const char *file, int line)
{
	if (fabs(a - b) < eps) {
		passed++;
		return;
	}
	check_fail_head(file, line, sa, sb);
	fprintf(stderr, "  expected: %.17g (within %g)\n  actual:   %.17g\n", b, eps, a);
}
#define CHECK_NEAR(a, b, eps) check_near((a), (b), (eps), #a, #b, __FILE__, __LINE__)

#ifndef CHECK_NO_RNG
static uint64_t rng_state;

static inline uint64_t
rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number in [lo, hi]. */
static inline int64_t
range(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}
#endif

#endif
