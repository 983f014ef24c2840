/* parse_floor - the parser-only floor for tr-ingest: how fast libyajl alone
 * walks a JSON file, with callbacks that do the least an ingester must do.
 *
 * It reads FILE in 256 KiB read() chunks into yajl_parse (SAX), and touches
 * every value: map keys and strings by their length and first byte, numbers
 * through the yajl_number callback (yajl then does not convert them) with a
 * hand loop for integers, as an ingester reading microsecond times would.
 * Nothing is built, nothing is written but one line of counts, printed so the
 * compiler cannot drop the work. yajl's defaults stay on (UTF-8 validation of
 * strings), and several documents in one file are accepted, as tr-ingest does.
 *
 * usage: parse-floor FILE
 * Built by make bench into $(BUILD)/bench/parse-floor; see bench/run.sh. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yajl/yajl_parse.h>

#define CHUNK (256 * 1024)

typedef struct counts {
	uint64_t events;	/* every callback */
	uint64_t keys, strings, ints, floats, other;
	uint64_t sum;		/* folds in what was read, so none of it is dead */
} counts;

static int
on_null(void *ctx)
{
	counts *c = ctx;

	c->events++, c->other++;
	return 1;
}

static int
on_boolean(void *ctx, int v)
{
	counts *c = ctx;

	c->events++, c->other++;
	c->sum += (uint64_t)v;
	return 1;
}

/* Integers by hand (what a span's start time and duration need); anything
 * with a fraction or exponent is only counted: tr-ingest keeps such values as
 * the text it was given. */
static int
on_number(void *ctx, const char *s, size_t n)
{
	counts *c = ctx;
	const char *p = s, *end = s + n;
	uint64_t v = 0;

	c->events++;
	if (p < end && *p == '-')
		p++;
	for (; p < end && *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	if (p == end)
		c->ints++;
	else
		c->floats++;
	c->sum += v;
	return 1;
}

static int
on_string(void *ctx, const unsigned char *s, size_t n)
{
	counts *c = ctx;

	c->events++, c->strings++;
	c->sum += n + (n ? s[0] : 0);
	return 1;
}

static int
on_key(void *ctx, const unsigned char *s, size_t n)
{
	counts *c = ctx;

	c->events++, c->keys++;
	c->sum += n + (n ? s[0] : 0);
	return 1;
}

static int
on_bracket(void *ctx)
{
	counts *c = ctx;

	c->events++;
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_boolean,
	.yajl_number = on_number,	/* so yajl_integer and yajl_double are never called */
	.yajl_string = on_string,
	.yajl_start_map = on_bracket,
	.yajl_map_key = on_key,
	.yajl_end_map = on_bracket,
	.yajl_start_array = on_bracket,
	.yajl_end_array = on_bracket,
};

static void
fail(yajl_handle h, const unsigned char *buf, size_t len, const char *path)
{
	unsigned char *msg = yajl_get_error(h, buf != NULL, buf, len);

	size_t n = strlen((const char *)msg);

	fprintf(stderr, "parse-floor: %s: %s%s", path, (const char *)msg,
		n && msg[n - 1] == '\n' ? "" : "\n");
	yajl_free_error(h, msg);
	exit(1);
}

int
main(int argc, char **argv)
{
	static unsigned char buf[CHUNK];
	counts c = {0};
	ssize_t n;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: parse-floor FILE\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDONLY)) < 0) {
		fprintf(stderr, "parse-floor: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	yajl_handle h = yajl_alloc(&callbacks, NULL, &c);
	yajl_config(h, yajl_allow_multiple_values, 1);
	while ((n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "parse-floor: %s: %s\n", argv[1], strerror(errno));
			return 1;
		}
		if (yajl_parse(h, buf, (size_t)n) != yajl_status_ok)
			fail(h, buf, (size_t)n, argv[1]);
	}
	if (yajl_complete_parse(h) != yajl_status_ok)
		fail(h, NULL, 0, argv[1]);
	yajl_free(h);
	close(fd);
	printf("%llu events: %llu keys, %llu strings, %llu integers, %llu other numbers, "
		"%llu null/bool; checksum %llu\n",
		(unsigned long long)c.events, (unsigned long long)c.keys,
		(unsigned long long)c.strings, (unsigned long long)c.ints,
		(unsigned long long)c.floats, (unsigned long long)c.other,
		(unsigned long long)c.sum);
	return 0;
}
