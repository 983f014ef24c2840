/* Unit tests of the shared library: escaping, the span tree, re-writing records. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/format.h"
#include "core/hash.h"
#include "core/trace.h"
#include "core/table.h"

#include "check.h"

/* The tests' random numbers: a linear congruential step, so that every run
 * draws the same cases. */
static void
next_rand(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
}

static void
test_escape_roundtrip(void)
{
	const char *vals[] = {"plain", "tab\there", "nl\nand\rcr", "100%", "%09 literal", "k=v", "", "é ü 中"};

	for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
		for (int key = 0; key < 2; key++) {
			strbuf b = {0};
			char out[64];

			tr_escapes(&b, vals[i], key);
			CHECK(!memchr(b.s ? b.s : "", '\t', b.len) && !memchr(b.s ? b.s : "", '\n', b.len));
			CHECK(!key || !memchr(b.s ? b.s : "", '=', b.len));
			tr_unescape(out, b.s ? b.s : "", b.len);
			CHECK_STR(out, vals[i]);
			sb_free(&b);
		}
	}
	char out[16];
	tr_unescape(out, "50%-%zz%4", 9);	/* bad escapes stay as written */
	CHECK_STR(out, "50%-%zz%4");
}

static const char *names[] = {"test"};

static void
load(tr_trace *t, const char *text)
{
	char *copy = strdup(text), *p = copy, *nl;

	tr_trace_reset(t);
	t->files = names;
	t->trace_id = "t";
	while ((nl = strchr(p, '\n'))) {
		GROW(t->recs, t->caprecs, t->nrecs + 1);
		*nl = '\0';
		t->recs[t->nrecs++] = (tr_record){.line = arena_strndup(&t->mem, p, strlen(p)),
						  .len = (uint32_t)strlen(p), .lineno = t->nrecs + 1, .span = -1};
		p = nl + 1;
	}
	free(copy);
}

static void
test_tree(void)
{
	tr_trace t = {0};

	/* b before a in the input; c's parent is missing; d->e->d is a cycle. */
	load(&t, "S\tt\tb\ta\t10\t5\ts\top\tclient\th\tk=v\n"
		 "S\tt\ta\t\t0\t100\ts\troot\tserver\th\n"
		 "S\tt\tc\tgone\t20\t1\ts\to\t\t\n"
		 "S\tt\td\te\t30\t1\ts\to\t\t\n"
		 "S\tt\te\td\t31\t1\ts\to\t\t\n"
		 "R\tt\tb\tfollows_from\tt\ta\n"
		 "L\tt\tb\t12\tevent=x\n");
	CHECK_EQ(tr_trace_parse(&t), 0);
	CHECK_EQ(t.nspans, 5);
	CHECK_STR(t.spans[0].span_id, "a");
	CHECK_STR(t.spans[1].span_id, "b");
	CHECK_EQ(t.spans[1].parent, 0);
	CHECK_EQ(t.spans[0].first_child, 1);
	CHECK(t.spans[1].flags & TR_SPAN_FOLLOWS);
	CHECK_EQ(t.spans[1].depth, 1);
	CHECK_EQ(t.nroots, 3);
	CHECK_EQ(t.roots[0], 0);
	CHECK_EQ(t.norphans, 1);
	CHECK_EQ(t.ncycles, 1);
	CHECK(t.spans[3].parent == -1 && t.spans[4].parent == 3);	/* d sorts first: it becomes the root */
	CHECK_EQ(t.nlogs, 1);
	CHECK_EQ(t.logs[0].span, 1);
	CHECK_EQ(t.logs[0].time, 12);
	CHECK_STR(tr_span_tag(&t.spans[1], "k"), "v");
	tr_trace_free(&t);
}

static void
test_deep_chain(void)
{
	tr_trace t = {0};
	strbuf b = {0};
	const int n = 100000;

	for (int i = 0; i < n; i++) {
		char parent[16] = "";

		if (i)
			snprintf(parent, sizeof parent, "s%d", i - 1);
		sb_addf(&b, "S\tt\ts%d\t%s\t%d\t%d\tsvc\top\t\t\n", i, parent, i, 2 * n - 2 * i);
	}
	load(&t, b.s);
	CHECK_EQ(tr_trace_parse(&t), 0);
	CHECK_EQ(t.nroots, 1);
	CHECK_EQ(t.spans[n - 1].depth, (uint32_t)n - 1);
	tr_trace_free(&t);
	sb_free(&b);
}

static void
test_errors(void)
{
	tr_trace t = {0};

	load(&t, "S\tt\ta\t\tx\t5\ts\top\t\t\n");
	CHECK(tr_trace_parse(&t) < 0);
	load(&t, "S\tt\ta\t\t1\t-5\ts\top\t\t\n");
	CHECK(tr_trace_parse(&t) < 0);
	load(&t, "S\tt\ta\t\t1\t5\ts\top\tbogus\t\n");
	CHECK(tr_trace_parse(&t) < 0);
	load(&t, "S\tt\ta\t\t1\t5\ts\n");
	CHECK(tr_trace_parse(&t) < 0);
	load(&t, "S\tt\ta\t\t1\t5\ts\to\t\t\tnoequals\n");
	CHECK(tr_trace_parse(&t) < 0);
	load(&t, "S\tt\ta\t\t1\t5\ts\to\t\t\nS\tt\ta\t\t2\t5\ts\to\t\t\n");
	CHECK(tr_trace_parse(&t) < 0);	/* duplicate ids */
	load(&t, "L\tt\tnobody\t1\n");
	CHECK(tr_trace_parse(&t) < 0);
	load(&t, "X\tt\tanything\there\nS\tt\ta\t\t\t\ts\to\t\t\n");
	CHECK(tr_trace_parse(&t) == 0 && !(t.spans[0].flags & TR_SPAN_HAS_TIME));
	tr_trace_free(&t);
}

static void
test_rewrite(void)
{
	tr_trace t = {0};
	strbuf out = {0};

	load(&t, "S\tt\ta\t\t0\t9\tcp.svc\top\t\t\tcp.self=3\tx=1\tcp.old=2\n");
	CHECK_EQ(tr_trace_parse(&t), 0);
	tr_write_record(&out, &t, 0, "cp.", "\tcp.self=9", 10);
	/* positional fields that happen to start with the prefix are kept */
	CHECK_STR(out.s, "S\tt\ta\t\t0\t9\tcp.svc\top\t\t\tx=1\tcp.self=9\n");
	sb_free(&out);
	tr_trace_free(&t);
}

/* Read text through the reader; describe what came out as "id:spans ..." and L for lines. */
static void
read_all(const char *text, strbuf *desc)
{
	char path[] = "/tmp/test_lib_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	char *files[] = {path};

	fputs(text, f);
	fclose(f);
	tr_reader *r = tr_reader_new(files, 1);
	for (;;) {
		tr_trace *t;
		const char *line;
		size_t len;
		enum tr_next n = tr_reader_next(r, &t, &line, &len);

		if (n == TR_EOF)
			break;
		if (n == TR_TRACE)
			sb_addf(desc, "%s:%zu ", t->trace_id, t->nspans);
		else if (n == TR_LINE)
			sb_addf(desc, "L(%.*s) ", (int)len, line);
		else
			sb_adds(desc, "BAD ");
	}
	tr_reader_free(r);
	unlink(path);
}

static void
test_reader(void)
{
	strbuf d = {0};

	/* Groups are handed out as soon as they end; comments pass at once. */
	read_all("#tr/1\nT\tx\nS\tx\ta\t\t1\t1\ts\to\t\t\n# hi\nS\tx\tb\ta\t2\t1\ts\to\t\t\n"
		 "T\ty\nS\ty\ta\t\t1\t1\ts\to\t\t\n", &d);
	CHECK_STR(d.s, "L(# hi) x:2 y:1 ");
	sb_clear(&d);
	/* After sort: T records last, S records interleaved: collected until the end. */
	read_all("S\tx\ta\t\t1\t1\ts\to\t\t\nS\ty\ta\t\t1\t1\ts\to\t\t\nS\tx\tb\ta\t2\t1\ts\to\t\t\n"
		 "T\tx\nT\ty\n", &d);
	CHECK_STR(d.s, "x:2 y:1 ");
	sb_clear(&d);
	/* Loose records of a trace, then its group: merged into one trace. */
	read_all("S\tx\tb\ta\t2\t1\ts\to\t\t\nT\tx\nS\tx\ta\t\t1\t1\ts\to\t\t\n", &d);
	CHECK_STR(d.s, "x:2 ");
	sb_clear(&d);
	/* A future record type with no trace passes through; CRLF is accepted. */
	read_all("Z\t\tfuture\r\nT\tx\r\nS\tx\ta\t\t1\t1\ts\to\t\t\r\n", &d);
	CHECK_STR(d.s, "L(Z\t\tfuture) x:1 ");
	sb_clear(&d);
	/* An S record without a trace id is bad; the reader goes on. */
	read_all("S\nT\tx\nS\tx\ta\t\t1\t1\ts\to\t\t\n", &d);
	CHECK_STR(d.s, "BAD x:1 ");
	sb_free(&d);
}

/* The number writers against printf, at every length and both signs; and
 * sb_addf past the room it first tries. */
static void
test_numbers(void)
{
	static const uint64_t us[] = {0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 12345,
				      1767225600008644ULL, 9999999999999999999ULL,
				      10000000000000000000ULL, UINT64_MAX};
	strbuf b = {0};
	char want[64];
	int ok = 1;

	for (size_t i = 0; i < sizeof us / sizeof us[0]; i++) {
		sb_clear(&b);
		sb_adds(&b, "x");
		sb_addu(&b, us[i]);
		snprintf(want, sizeof want, "x%llu", (unsigned long long)us[i]);
		ok &= strcmp(b.s, want) == 0 && b.len == strlen(want);
	}
	for (uint64_t p10 = 10, k = 1; k <= 19; k++, p10 *= 10)	/* every length's edges */
		for (uint64_t v = p10 - 1; v <= p10; v++) {
			sb_clear(&b);
			sb_addu(&b, v);
			snprintf(want, sizeof want, "%llu", (unsigned long long)v);
			ok &= strcmp(b.s, want) == 0 && b.len == strlen(want);
		}
	/* random numbers of every length: each digit position takes every value */
	uint64_t x = 88172645463325252ULL;
	for (int i = 0; i < 200000 && ok; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;	/* xorshift64 */
		uint64_t v = x >> (i % 64);

		sb_clear(&b);
		sb_addu(&b, v);
		snprintf(want, sizeof want, "%llu", (unsigned long long)v);
		ok &= strcmp(b.s, want) == 0 && b.len == strlen(want);
	}
	for (int64_t v = -100003; v <= 100003 && ok; v += 7) {
		sb_clear(&b);
		sb_addi(&b, v);
		snprintf(want, sizeof want, "%lld", (long long)v);
		ok &= strcmp(b.s, want) == 0;
	}
	sb_clear(&b);
	sb_addi(&b, INT64_MIN);
	ok &= strcmp(b.s, "-9223372036854775808") == 0;
	CHECK(ok);
	sb_clear(&b);
	sb_addf(&b, "%s|%0200d|%s", "a", 7, "z");
	CHECK_EQ(b.len, 204);
	CHECK_EQ(b.s[0], 'a');
	CHECK_EQ(b.s[202], '|');
	CHECK_EQ(b.s[203], 'z');
	CHECK_EQ(b.s[204], '\0');
	sb_free(&b);
}

/* Base64 as OTLP ids in protobuf's JSON come: padded, standard or URL-safe;
 * any other text is refused, so it can be read as an id of its own. */
static void
test_b64(void)
{
	static const unsigned char tid[] = {0x3b, 0xa5, 0x56, 0x09, 0xc3, 0xcd, 0xe4, 0x96,
					    0x49, 0xcd, 0x77, 0xd1, 0xf9, 0xdc, 0xd9, 0x36};
	static const char *const bad[] = {"abc", "ab=c", "AB==", "AAB=", "A===", "====", "ab!d", "AA AA==="};
	unsigned char out[32];
	size_t n = 99;

	CHECK(b64_decode("O6VWCcPN5JZJzXfR+dzZNg==", 24, out, &n) == 0 && n == 16 && memcmp(out, tid, 16) == 0);
	CHECK_EQ(b64_decode("Sc130fnc2TY=", 12, out, &n), 0);
	CHECK_EQ(n, 8);
	CHECK_EQ(out[0], 0x49);
	CHECK_EQ(out[7], 0x36);
	CHECK_EQ(b64_decode("-_8=", 4, out, &n), 0);
	CHECK_EQ(n, 2);
	CHECK_EQ(out[0], 0xfb);
	CHECK_EQ(out[1], 0xff);
	CHECK_EQ(b64_decode("+/8=", 4, out, &n), 0);
	CHECK_EQ(n, 2);
	CHECK_EQ(out[0], 0xfb);
	CHECK_EQ(out[1], 0xff);
	CHECK_EQ(b64_decode("AQ==", 4, out, &n), 0);
	CHECK_EQ(n, 1);
	CHECK_EQ(out[0], 1);
	CHECK_EQ(b64_decode("", 0, out, &n), 0);
	CHECK_EQ(n, 0);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECK(b64_decode(bad[i], strlen(bad[i]), out, &n) < 0);
}

/* --units: exact decimals in ms and s, three digits and a unit with auto. */
static void
test_durations(void)
{
	static const struct { int64_t us; int units; const char *text; } cases[] = {
		{1180000, TABLE_US, "1180000"}, {-45, TABLE_US, "-45"},
		{1180000, TABLE_MS, "1180"}, {601234, TABLE_MS, "601.234"}, {45, TABLE_MS, "0.045"},
		{0, TABLE_MS, "0"}, {-1500, TABLE_MS, "-1.5"}, {1180000, TABLE_S, "1.18"},
		{7, TABLE_S, "0.000007"}, {1180000, TABLE_AUTO, "1.18 s"},
		{601234, TABLE_AUTO, "601 ms"}, {45, TABLE_AUTO, "45 µs"}, {0, TABLE_AUTO, "0 µs"},
		{1500, TABLE_AUTO, "1.5 ms"}, {3600000000, TABLE_AUTO, "3600 s"},
		{-2500000, TABLE_AUTO, "-2.5 s"},
	};
	char buf[40];

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		table_duration(buf, sizeof buf, cases[i].us, cases[i].units);
		CHECK_STR(buf, cases[i].text);
	}
	CHECK_EQ(table_units_parse("auto"), TABLE_AUTO);
	CHECK_EQ(table_units_parse("ms"), TABLE_MS);
	CHECK(table_units_parse("sec") < 0 && table_units_parse("") < 0);
}

/* tr_find, tr_scan and tr_split against a byte-at-a-time search, on lines
 * of every length up to 80 with TABs anywhere (across the 16-byte blocks
 * they look at together), NULs and high bytes among them. */
static void
test_find_tabs(void)
{
	static const char alphabet[] = "ab\t\0\xff\t%";
	char line[96];
	unsigned seed = 12345;
	int ok = 1;

	for (int round = 0; round < 20000 && ok; round++) {
		size_t len = (size_t)(round % 81), n = 0, nf;
		const char *end = line + len;
		tr_scan sc;
		tr_field f[40];

		for (size_t i = 0; i < len; i++) {
			next_rand(&seed);
			line[i] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
		}
		for (size_t from = 0; from <= len; from += 7)
			ok &= tr_find(line + from, end, '\t') == memchr(line + from, '\t', len - from);
		tr_scan_init(&sc, line, end, '\t');
		for (size_t i = 0; i < len; i++)
			if (line[i] == '\t')
				ok &= tr_scan_next(&sc) == line + i;
		ok &= tr_scan_next(&sc) == NULL;
		nf = tr_split(line, len, f, 40);
		for (size_t i = 0, start = 0; i <= len; i++)
			if (i == len || line[i] == '\t') {
				ok &= n < nf && f[n].s == line + start && f[n].len == i - start;
				n++;
				start = i + 1;
			}
		ok &= nf == n;
	}
	CHECK(ok);
}

/* Parse the one record line (len bytes, NULs allowed) with spans' tags
 * read or only checked; the message, if it failed, in msg. */
static int
parse_one(tr_trace *t, const char *line, size_t len, int unread, strbuf *msg)
{
	tr_trace_reset(t);
	t->files = names;
	t->trace_id = "t";
	t->span_tags_unread = unread;
	GROW(t->recs, t->caprecs, 1);
	t->recs[0] = (tr_record){.line = arena_strndup(&t->mem, line, len), .len = (uint32_t)len,
				 .lineno = 1, .span = -1};
	t->nrecs = 1;
	sb_clear(msg);
	tr_warn_to(msg);
	int r = tr_trace_parse(t);

	tr_warn_to(NULL);
	return r;
}

/* TR_READ_NO_SPAN_TAGS: an S record whose tags are only checked is refused
 * exactly when, and with the message with which, it is refused with its
 * tags read, and its positional fields read the same. Random records of
 * 6 to 14 fields from bytes that matter (TAB, '=', '%', NUL, digits, a
 * kind), tag regions across the 32-byte blocks the check looks at. */
static void
test_unread_span_tags(void)
{
	static const char *pieces[] = {"a", "=", "k=v", "1", "12", "server", "%09", "", "\0",
				       "x=", "=y", "long-key.name=some/long/value?q=1", "-3", "%"};
	tr_trace a = {0}, b = {0};
	strbuf line = {0}, ma = {0}, mb = {0};
	unsigned seed = 4242;
	int ok = 1, refused = 0, taken = 0;

	for (int round = 0; round < 20000 && ok; round++) {
		next_rand(&seed);
		size_t nf = 6 + (seed >> 16) % 9;

		sb_clear(&line);
		if ((seed >> 28) % 16)
			sb_add(&line, "S\tt\tid", 6);
		else	/* an empty span id: refused before any tag */
			sb_add(&line, "S\tt\t", 5);
		for (size_t i = 3; i < nf; i++) {
			next_rand(&seed);
			/* mostly sensible positional fields, any piece in a tag */
			const char *pc = i == 4 || i == 5 ? ((seed >> 20) % 8 ? "15" : pieces[(seed >> 16) % 14]) :
					 i == 8 ? ((seed >> 20) % 8 ? "client" : pieces[(seed >> 16) % 14]) :
					 i < 10 ? ((seed >> 20) % 8 ? "s" : pieces[(seed >> 16) % 14]) :
					 pieces[(seed >> 16) % 14];
			size_t n = pc[0] || pc == pieces[8] ? (pc == pieces[8] ? 1 : strlen(pc)) : 0;

			sb_addc(&line, '\t');
			sb_add(&line, pc, n);
			if (i >= 10 && (seed >> 24) % 3 == 0)	/* longer tags: other block edges */
				sb_add(&line, "=0123456789abcdef", 1 + (seed >> 26) % 16);
		}
		int ra = parse_one(&a, line.s, line.len, 0, &ma), rb = parse_one(&b, line.s, line.len, 1, &mb);

		ok &= ra == rb && ma.len == mb.len && (!ma.len || memcmp(ma.s, mb.s, ma.len) == 0);
		if (ok && ra == 0) {
			const tr_span *x = &a.spans[0], *y = &b.spans[0];

			ok &= strcmp(x->span_id, y->span_id) == 0 && strcmp(x->host, y->host) == 0 &&
			      strcmp(x->service, y->service) == 0 && strcmp(x->operation, y->operation) == 0 &&
			      x->start == y->start && x->duration == y->duration && x->kind == y->kind &&
			      y->ntags == 0;
		}
		if (!ok)
			fprintf(stderr, "record %.*s: %d \"%s\" / %d \"%s\"\n", (int)line.len, line.s, ra,
				ma.s ? ma.s : "", rb, mb.s ? mb.s : "");
		refused += ra < 0;
		taken += ra == 0;
	}
	CHECK(ok);
	CHECK(refused > 1000 && taken > 1000);	/* both kinds were tried */
	tr_trace_free(&a);
	tr_trace_free(&b);
	sb_free(&line);
	sb_free(&ma);
	sb_free(&mb);
}

/* hash_bytes against its definition (the tail bytes copied into a zeroed
 * word): colours are picked by it, so its values must not move. */
static void
test_hash_bytes(void)
{
	unsigned char buf[48];
	unsigned seed = 99;
	int ok = 1;

	for (int round = 0; round < 20000 && ok; round++) {
		size_t n = (size_t)(round % 41), off = (size_t)(round / 41) % 8;
		uint64_t h, w;

		for (size_t i = 0; i < n; i++) {
			next_rand(&seed);
			buf[off + i] = (unsigned char)(seed >> 16);
		}
		h = 0xcbf29ce484222325ULL ^ ((uint64_t)n * 0x9e3779b97f4a7c15ULL);
		size_t i = 0;

		for (; n - i >= 8; i += 8) {
			memcpy(&w, buf + off + i, 8);
			h = (h ^ w) * 0x100000001b3ULL;
			h ^= h >> 29;
		}
		w = 0;
		memcpy(&w, buf + off + i, n - i);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 33;
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 33;
		ok &= hash_bytes(buf + off, n) == h;
	}
	CHECK(ok);
}

/* tr_scan_digits, tr_scan_id_digits and tr_scan_time_digits against a
 * byte-at-a-time reading: runs of 0 to 20 digits followed by a TAB, a
 * letter, a '/' or ':' (next to the digits in ASCII), a high byte, or the
 * end of the buffer, starting at 8 different offsets. */
static void
test_scan_digits(void)
{
	static const char after[] = "\ta/:\xff";
	char whole[56];
	unsigned seed = 777;
	int ok = 1;

	for (int round = 0; round < 50000 && ok; round++) {
		size_t ndig = (size_t)(round % 21), len;
		char *buf = whole + (size_t)(round / 21) % 8;
		uint64_t want = 0, got[3];
		const char *end[3];

		next_rand(&seed);
		for (size_t i = 0; i < ndig; i++) {
			next_rand(&seed);
			buf[i] = (char)('0' + (seed >> 16) % 10);
			want = want * 10 + (uint64_t)(buf[i] - '0');
		}
		len = ndig;
		if ((seed >> 8) % 7) {	/* else the digits end the buffer */
			buf[len++] = after[(seed >> 12) % (sizeof after - 1)];
			for (; len < 48 && (seed >> 4) % 2; len++)	/* sometimes more */
				buf[len] = (char)('0' + len % 10);
		}
		end[0] = tr_scan_digits(buf, buf + len, &got[0]);
		end[1] = tr_scan_id_digits(buf, buf + len, &got[1]);
		end[2] = tr_scan_time_digits(buf, buf + len, &got[2]);
		for (int k = 0; k < 3; k++)
			ok &= end[k] == buf + ndig && got[k] == want;
	}
	CHECK(ok);
}

static void
count_keys(void *ctx, uint64_t key, int64_t val)
{
	int64_t *sum = ctx;

	sum[0]++;
	sum[1] += (int64_t)(key & 0xffffffff) - val;
}

/* u64map: pairs of numbers as keys, through many rehashes; a key is added
 * once; clear empties it for reuse. */
static void
test_u64map(void)
{
	u64map m = {0};
	int added;
	int64_t sum[2] = {0, 0};

	for (uint64_t i = 0; i < 5000; i++) {
		*u64map_put(&m, i << 32 | (i * 7 % 13), &added) = (int64_t)(i * 7 % 13);
		CHECK(added);
	}
	CHECK_EQ(m.count, 5000);
	for (uint64_t i = 0; i < 5000; i += 3) {
		int64_t *v = u64map_put(&m, i << 32 | (i * 7 % 13), &added);

		CHECK(!added && *v == (int64_t)(i * 7 % 13));
	}
	CHECK(*u64map_put(&m, 0, &added) == 0 && !added);	/* the pair (0, 0) is a key */
	u64map_each(&m, count_keys, sum);
	CHECK_EQ(sum[0], 5000);
	CHECK_EQ(sum[1], 0);
	u64map_clear(&m);
	CHECK(m.count == 0 && *u64map_put(&m, 1 << 20, &added) == -1 && added);
	u64map_free(&m);
}

/* parse_i64 against strtoll on random strings: every length, a sign or
 * not, now and then a byte that is not a digit, numbers past 2^63. */
static void
test_parse_i64(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	int ok = 1;

	for (int i = 0; i < 200000 && ok; i++) {
		char s[32], *end;
		size_t n = 0, len;
		int64_t got;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;	/* xorshift64 */
		len = x % 21;
		if (x >> 60 == 1)
			s[n++] = '-';
		else if (x >> 60 == 2)
			s[n++] = '+';
		for (size_t k = 0; k < len; k++)
			s[n++] = (char)('0' + (x >> (k % 60)) % 10);
		if (n && (x >> 56 & 15) == 3)	/* a stray byte somewhere */
			s[(x >> 32) % n] = (char)":/ a9"[(x >> 40) % 5];
		s[n] = '\0';
		errno = 0;
		long long want = strtoll(s, &end, 10);
		int valid = n && *end == '\0' && errno != ERANGE && s[0] != ' ' &&
			    !(n == 1 && (s[0] == '-' || s[0] == '+'));
		int r = parse_i64(s, n, &got);

		ok &= valid ? r == 0 && got == want : r == -1;
		if (!ok)
			fprintf(stderr, "parse_i64(\"%s\"): %d %lld, want %s %lld\n", s, r,
				(long long)got, valid ? "valid" : "invalid", want);
	}
	CHECK(ok);
}

/* utf8_char_len against the definition: a lead byte's length, continuation
 * bytes, and a code point that is neither overlong, a surrogate nor beyond
 * U+10FFFF; every first and second byte, with a few third and fourth. */
static size_t
utf8_reference(const unsigned char *u, size_t n)
{
	static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
	size_t len = u[0] < 0x80 ? 1 : u[0] >= 0xc0 && u[0] < 0xe0 ? 2 : u[0] >= 0xe0 && u[0] < 0xf0 ? 3 :
		     u[0] >= 0xf0 && u[0] < 0xf8 ? 4 : 0;
	uint32_t cp = len == 1 ? u[0] : len == 2 ? u[0] & 0x1f : len == 3 ? u[0] & 0x0f : u[0] & 0x07;

	if (len <= 1 || len > n)
		return len <= n ? len : 0;
	for (size_t i = 1; i < len; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (u[i] & 0x3f);
	}
	if (cp < least[len] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static void
test_utf8(void)
{
	static const unsigned char tails[] = {0x00, 0x41, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff};
	int ok = 1;

	for (unsigned a = 0; a < 256; a++)
		for (unsigned b = 0; b < 256; b++)
			for (size_t t = 0; t < sizeof tails; t++)
				for (size_t n = 1; n <= 4; n++) {
					unsigned char u[4] = {(unsigned char)a, (unsigned char)b, tails[t], 0x80};
					size_t got = utf8_char_len((const char *)u, n), want = utf8_reference(u, n);

					if (got != want && ok) {
						fprintf(stderr, "utf8_char_len(%02x %02x %02x 80, %zu): %zu, want %zu\n",
							a, b, tails[t], n, got, want);
						ok = 0;
					}
				}
	CHECK(ok);
	CHECK_EQ(utf8_char_len("\xf0\x9f\x98\x80", 4), 4);	/* U+1F600 */
	CHECK_EQ(utf8_char_len("\xf4\x90\x80\x80", 4), 0);	/* U+110000 */
}

/* tr_span_error's verdict alone (f NULL, one pass over the tags) is the
 * verdict it gives with the details (a lookup per rule), on random spans
 * whose tags mix the failure rules' keys, look-alikes and repeats, with
 * and without an exception event. */
static void
test_failure_verdict(void)
{
	static const char *const keys[] = {"error", "otel.status_code", "http.status_code",
		"http.response.status_code", "rpc.grpc.status_code", "grpc.status_code",
		"http.method", "http.s", "e", "grpc", "rpc", "otel.status_description", "host",
		"http.status_codes", "http.status_cod", "http.response", "errors", "er", "ot",
		"rpc.grpc.status", "gr", "retry.attempt", "h", "http"};
	static const char *const vals[] = {"true", "false", "OK", "ERROR", "200", "399", "404",
		"500", "0", "14", "", "abc", "2000", "-1", "1e3"};
	static const char *const kinds[] = {"client", "server", ""};
	unsigned seed = 29;
	size_t disagree = 0, failed = 0;
	strbuf text = {0};
	tr_trace t = {0};

	for (int n = 0; n < 2000; n++) {
		sb_clear(&text);
		next_rand(&seed);
		sb_addf(&text, "S\tt\ta\t\t0\t1\ts\top\t%s\th", kinds[(seed >> 16) % 3]);
		next_rand(&seed);
		for (unsigned k = 0, nk = (seed >> 16) % 5; k < nk; k++) {
			next_rand(&seed);
			sb_addf(&text, "\t%s=", keys[(seed >> 16) % (sizeof keys / sizeof *keys)]);
			next_rand(&seed);
			sb_adds(&text, vals[(seed >> 16) % (sizeof vals / sizeof *vals)]);
		}
		next_rand(&seed);
		sb_adds(&text, (seed >> 16) % 4 ? "\n" : "\nL\tt\ta\t0\tevent=exception\n");
		load(&t, text.s);
		CHECK_EQ(tr_trace_parse(&t), 0);
		tr_failure f;
		int alone = tr_span_error(&t, 0, NULL), with = tr_span_error(&t, 0, &f);

		if (alone != with && disagree++ < 5)
			fprintf(stderr, "verdict %d alone, %d with details: %s", alone, with, text.s);
		failed += (size_t)with;
	}
	CHECK_EQ(disagree, 0);
	CHECK(failed > 100 && failed < 1900);	/* both verdicts were tried */
	sb_free(&text);
	tr_trace_free(&t);
}

/* tr_field_count: digits only, within max; anything else refused. */
static void
test_field_count(void)
{
	static const struct { const char *s; uint64_t max; int ok; uint64_t v; } cases[] = {
		{"0", 10, 1, 0}, {"10", 10, 1, 10}, {"11", 10, 0, 0}, {"", 10, 0, 0},
		{"+5", 10, 0, 0}, {"-1", 10, 0, 0}, {"5x", 10, 0, 0}, {" 5", 10, 0, 0},
		{"9223372036854775807", INT64_MAX, 1, INT64_MAX},
		{"9223372036854775808", INT64_MAX, 0, 0}, {"4294967296", UINT32_MAX, 0, 0},
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		tr_field f = {cases[i].s, strlen(cases[i].s)};
		uint64_t v = 12345;
		int ok = tr_field_count(&f, cases[i].max, &v) == 0;

		CHECK(ok == cases[i].ok, "\"%s\" within %llu: %s", cases[i].s,
		      (unsigned long long)cases[i].max, ok ? "taken" : "refused");
		if (ok && cases[i].ok)
			CHECK_EQ(v, cases[i].v);
	}
}

int
main(void)
{
	tr_setprogname("test_lib");
	test_parse_i64();
	test_escape_roundtrip();
	test_tree();
	test_deep_chain();
	test_errors();
	test_rewrite();
	test_reader();
	test_numbers();
	test_b64();
	test_durations();
	test_u64map();
	test_find_tabs();
	test_scan_digits();
	test_hash_bytes();
	test_unread_span_tags();
	test_utf8();
	test_failure_verdict();
	test_field_count();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
