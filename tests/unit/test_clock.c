/* test_clock.c - per-host clock offsets from RPCs (clock.c).
 *
 * Property: hosts with random true offsets, RPCs with the same transit both
 * ways and random queueing before the server, at least one unqueued RPC a
 * pair: the estimated offsets are the true ones (against the reference
 * host), and once applied every server lies within its client. By hand: a
 * single RPC that fits moves no clock; one that does not fit moves it as
 * little as needed; RPCs in both directions agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "core/trace.h"
#include "core/util.h"

#include "check.h"

/* One trace of one RPC: client on host c at [cs, ce], server on host s;
 * times as the hosts' clocks show them. */
static void
rpc(tr_clock *clk, const char *c, const char *s, int64_t cs, int64_t ce, int64_t ss, int64_t se,
    int64_t *check_fit, int64_t off_c, int64_t off_s)
{
	static const char *files[] = {"<clock>"};
	char line[3][256];
	tr_trace t = {0};

	t.files = files;
	snprintf(line[0], sizeof line[0], "T\tr");
	snprintf(line[1], sizeof line[1], "S\tr\tc\t\t%lld\t%lld\tsvc\tcall\tclient\t%s",
		 (long long)cs, (long long)(ce - cs), c);
	snprintf(line[2], sizeof line[2], "S\tr\ts\tc\t%lld\t%lld\tsvc\tserve\tserver\t%s",
		 (long long)ss, (long long)(se - ss), s);
	t.trace_id = "r";
	GROW(t.recs, t.caprecs, 3);
	for (int i = 0; i < 3; i++)
		t.recs[i] = (tr_record){.line = line[i], .len = (uint32_t)strlen(line[i]), .lineno = (uint64_t)i + 1};
	t.nrecs = 3;
	if (tr_trace_parse(&t) < 0) {
		CHECK(0, "the RPC parses");
		return;
	}
	if (check_fit) {	/* after the offsets: the server within the client */
		int64_t a = cs - off_c, b = ce - off_c, x = ss - off_s, y = se - off_s;

		if (x < a || y > b)
			(*check_fit)++;
	} else
		tr_clock_add_trace(clk, &t);
	tr_trace_free(&t);
}

/* Random hosts and RPCs; twice: once to note, once to check the fit. */
static void
property(uint64_t seed)
{
	enum { H = 5, N = 60 };
	static const char *hosts[H] = {"a", "b", "c", "d", "e"};
	int64_t truth[H];
	tr_clock *clk = tr_clock_new();
	int64_t misfits = 0;

	rng_state = seed;
	for (int h = 0; h < H; h++)
		truth[h] = range(-30000, 30000);
	for (int pass = 0; pass < 2; pass++) {
		uint64_t saved = rng_state;

		for (int k = 0; k < N; k++) {
			int x = k % (H - 1), y = x + 1;	/* a chain a-b-c-d-e, both ways */
			if (k % 3 == 2) {
				int z = x;

				x = y;
				y = z;
			}
			int64_t t0 = range(0, 1000000), tr = 300, work = range(100, 5000);
			int64_t queue = k < 2 * (H - 1) ? 0 : range(0, 20000);
			int64_t cs = t0, ss = t0 + tr + queue, se = ss + work, ce = se + tr;

			rpc(clk, hosts[x], hosts[y], cs + truth[x], ce + truth[x], ss + truth[y], se + truth[y],
			    pass ? &misfits : NULL, tr_clock_offset(clk, hosts[x]), tr_clock_offset(clk, hosts[y]));
		}
		if (!pass)
			tr_clock_solve(clk);
		rng_state = saved;
	}
	int64_t ref = tr_clock_offset(clk, "a") - truth[0];
	for (int h = 0; h < H; h++)
		CHECK(tr_clock_offset(clk, hosts[h]) - truth[h] == ref,
		      "seed %llu: host %s offset %lld, true %lld (reference shift %lld)",
		      (unsigned long long)seed, hosts[h], (long long)tr_clock_offset(clk, hosts[h]),
		      (long long)truth[h], (long long)ref);
	CHECK(misfits == 0, "seed %llu: %lld servers outside their clients", (unsigned long long)seed,
	      (long long)misfits);
	tr_clock_free(clk);
}

static void
by_hand(void)
{
	tr_clock *clk = tr_clock_new();

	/* one queued RPC that fits: no evidence of skew */
	rpc(clk, "web", "rk", 400, 14300, 12000, 14000, NULL, 0, 0);
	tr_clock_solve(clk);
	CHECK(tr_clock_offset(clk, "rk") == 0 && tr_clock_offset(clk, "web") == 0, "one fitting RPC moves nothing");
	CHECK(tr_clock_min_transit(clk, "web", "rk") == 11600, "the request transit seen, %lld",
	      (long long)tr_clock_min_transit(clk, "web", "rk"));
	CHECK(tr_clock_min_transit(clk, "rk", "web") == -1, "no RPC went the other way");
	tr_clock_free(clk);

	/* one RPC whose server ends 100 µs after its client: moved 100 µs */
	clk = tr_clock_new();
	rpc(clk, "c", "b", 0, 13500, 12600, 13600, NULL, 0, 0);
	tr_clock_solve(clk);
	CHECK(tr_clock_offset(clk, "b") - tr_clock_offset(clk, "c") == 100, "moved as little as needed: %lld",
	      (long long)(tr_clock_offset(clk, "b") - tr_clock_offset(clk, "c")));
	tr_clock_free(clk);

	/* two RPCs, one queued: the least delayed one decides (+5 ms) */
	clk = tr_clock_new();
	rpc(clk, "web", "rk", 400, 14300, 17000, 19000, NULL, 0, 0);
	rpc(clk, "web", "rk", 20400, 22600, 25700, 27300, NULL, 0, 0);
	tr_clock_solve(clk);
	CHECK(tr_clock_offset(clk, "rk") - tr_clock_offset(clk, "web") == 5000, "+5 ms: %lld",
	      (long long)(tr_clock_offset(clk, "rk") - tr_clock_offset(clk, "web")));
	CHECK(tr_clock_min_transit(clk, "web", "rk") == 300, "transit in the reference clock, %lld",
	      (long long)tr_clock_min_transit(clk, "web", "rk"));
	tr_clock_host_get(clk, 0, &(tr_clock_host){0});
	CHECK(tr_clock_nhosts(clk) == 2, "two hosts");
	tr_clock_free(clk);

	/* the same host pair in both directions: one offset */
	clk = tr_clock_new();
	rpc(clk, "x", "y", 0, 1000, 2300, 2700, NULL, 0, 0);	/* y +2 ms, transit 300 */
	rpc(clk, "y", "x", 5000, 6000, 3300, 3700, NULL, 0, 0);
	tr_clock_solve(clk);
	CHECK(tr_clock_offset(clk, "y") - tr_clock_offset(clk, "x") == 2000, "both ways: %lld",
	      (long long)(tr_clock_offset(clk, "y") - tr_clock_offset(clk, "x")));
	CHECK(tr_clock_offset(clk, "nosuch") == 0, "a host no RPC named keeps its clock");
	tr_clock_free(clk);

	/* a cycle a-b-c: a-b and b-c (two unqueued RPCs each) set the offsets
	 * (0); the one RPC a-c does not fit them (c's server 5 ms after the
	 * client's start): a and c report it, b does not */
	clk = tr_clock_new();
	rpc(clk, "a", "b", 0, 1000, 300, 700, NULL, 0, 0);
	rpc(clk, "a", "b", 2000, 3000, 2300, 2700, NULL, 0, 0);
	rpc(clk, "b", "c", 0, 1000, 300, 700, NULL, 0, 0);
	rpc(clk, "b", "c", 2000, 3000, 2300, 2700, NULL, 0, 0);
	rpc(clk, "a", "c", 0, 1000, 5000, 5500, NULL, 0, 0);
	tr_clock_solve(clk);
	size_t dis[3] = {0};
	for (size_t i = 0; i < tr_clock_nhosts(clk); i++) {
		tr_clock_host h;

		tr_clock_host_get(clk, i, &h);
		dis[h.host[0] - 'a'] = h.disagreeing;
	}
	CHECK(dis[0] == 1 && dis[1] == 0 && dis[2] == 1,
	      "the pair closing a cycle disagrees: a %zu b %zu c %zu", dis[0], dis[1], dis[2]);
	tr_clock_solve(clk);	/* solving again counts the same */
	tr_clock_host_get(clk, 0, &(tr_clock_host){0});
	{
		tr_clock_host h;
		size_t sum = 0;

		for (size_t i = 0; i < tr_clock_nhosts(clk); i++) {
			tr_clock_host_get(clk, i, &h);
			sum += h.disagreeing;
		}
		CHECK(sum == 2, "solved twice, counted once: %zu", sum);
	}
	tr_clock_free(clk);
}

/* Random traces for the two first passes: RPCs between hosts with skewed
 * clocks, and what the light pass must read as the full parse does: escaped
 * ids and hosts (h%32 is h2), orphans, spans their own parent, untimed
 * spans, FOLLOWS_FROM references, logs, records of other types, comments;
 * with bad set, now and then a bad record or a parent cycle. */
static void
write_traces(FILE *f, int header, int first, int ntraces, int bad)
{
	static const char *const hosts[] = {"h1", "h2", "h%32", "h3", "", "h%0Dx"};
	static const char *const kinds[] = {"client", "server", "", "internal", "producer", "consumer"};
	static const int64_t skew[] = {0, 4000, 4000, -2500, 0, 900};

	if (header)
		fputs("#tr/1\n", f);
	for (int t = first; t < first + ntraces; t++) {
		int n = (int)range(1, 8), hostof[8], kindof[8];

		fprintf(f, "T\tt%d\n", t);
		if (range(0, 9) == 0)
			fputs("# a comment line\n", f);
		for (int i = 0; i < n; i++) {
			int par = i ? (int)range(-2, i - 1) : -1;	/* -2: a parent that was lost */
			int64_t st = range(0, 100000), dur = range(0, 20000);

			hostof[i] = (int)range(0, 5);
			/* mostly clients, and servers below them: many RPCs */
			if (par >= 0 && kindof[par] == 0 && range(0, 3))
				kindof[i] = 1;
			else
				kindof[i] = range(0, 1) ? 0 : (int)range(1, 5);
			st += skew[hostof[i]];
			const char *id = range(0, 4) ? "s" : "%73";	/* s%d, spelt two ways */

			fprintf(f, "S\tt%d\t%s%d\t", t, id, i);
			if (par == -2)
				fputs("lost", f);
			else if (par >= 0)
				fprintf(f, "s%d", range(0, 9) ? par : i);	/* now and then its own parent */
			if (range(0, 12) == 0)
				fputs("\t\t", f);	/* no time */
			else
				fprintf(f, "\t%lld\t%lld", (long long)st, (long long)dur);
			fprintf(f, "\tsvc\top\t%s\t%s\tk=v", kinds[kindof[i]], hosts[hostof[i]]);
			if (bad && range(0, 40) == 0)
				fputs("\tnot-a-tag", f);
			fputc('\n', f);
			if (par >= 0 && range(0, 5) == 0)
				fprintf(f, "R\tt%d\t%s%d\tfollows_from\t%s\ts%d\n", t, id, i,
					range(0, 1) ? "" : "t%31", par);
			if (range(0, 6) == 0)
				fprintf(f, "L\tt%d\t%s%d\t%lld\tevent=x\n", t, id, i, (long long)st);
			if (range(0, 15) == 0)
				fprintf(f, "X\tt%d\twhatever\n", t);
		}
		if (bad && range(0, 30) == 0)	/* a cycle: the parse cuts it where it sorts */
			fprintf(f, "S\tt%d\tc1\tc2\t5\t5\tsvc\top\tclient\th1\nS\tt%d\tc2\tc1\t6\t1\tsvc\top\tserver\th2\n",
				t, t);
	}
}

static char *
temp_traces(uint64_t seed, int header, int first, int n, int bad)
{
	char *path = xstrdup("/tmp/test_clock.XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f) {
		perror(path);
		exit(2);
	}
	rng_state = seed * 7919 + (uint64_t)first;
	write_traces(f, header, first, n, bad);
	fclose(f);
	return path;
}

/* The light pass and the full one give the same clock: offsets, reference
 * hosts, RPC counts, disagreements, request transits, and the order the
 * hosts are named in (-v lists them so). The same records without the
 * header line are not taken by the light pass. */
static void
same_clock(uint64_t seed, int bad, int flags)
{
	char *light[2], *full[2];
	tr_clock *a, *b;

	for (int k = 0; k < 2; k++) {
		light[k] = temp_traces(seed, 1, k * 40, 40, bad);
		full[k] = temp_traces(seed, 0, k * 40, 40, bad);
	}
	a = tr_clock_from_inputs(light, 2, NULL, 0, 0, flags);
	b = tr_clock_from_inputs(full, 2, NULL, 0, 0, flags);
	CHECK(tr_clock_nhosts(a) == tr_clock_nhosts(b), "seed %llu: %zu hosts, the full pass %zu",
	      (unsigned long long)seed, tr_clock_nhosts(a), tr_clock_nhosts(b));
	for (size_t i = 0; i < tr_clock_nhosts(a) && i < tr_clock_nhosts(b); i++) {
		tr_clock_host x, y;

		tr_clock_host_get(a, i, &x);
		tr_clock_host_get(b, i, &y);
		CHECK(strcmp(x.host, y.host) == 0 && strcmp(x.reference, y.reference) == 0 &&
		      x.offset == y.offset && x.rpcs == y.rpcs && x.disagreeing == y.disagreeing,
		      "seed %llu: host %zu: %s %+lld against %s (%zu RPCs, %zu disagree); the full pass: "
		      "%s %+lld against %s (%zu, %zu)", (unsigned long long)seed, i, x.host,
		      (long long)x.offset, x.reference, x.rpcs, x.disagreeing, y.host, (long long)y.offset,
		      y.reference, y.rpcs, y.disagreeing);
		for (size_t j = 0; j < tr_clock_nhosts(a); j++) {
			tr_clock_host z;

			tr_clock_host_get(a, j, &z);
			CHECK(tr_clock_min_transit(a, x.host, z.host) == tr_clock_min_transit(b, x.host, z.host),
			      "seed %llu: transit %s -> %s", (unsigned long long)seed, x.host, z.host);
		}
	}
	tr_clock_free(a);
	tr_clock_free(b);
	for (int k = 0; k < 2; k++) {
		unlink(light[k]);
		unlink(full[k]);
		free(light[k]);
		free(full[k]);
	}
}

int
main(void)
{
	tr_setprogname("test_clock");
	by_hand();
	for (uint64_t seed = 1; seed <= 50; seed++)
		property(seed);
	for (uint64_t seed = 1; seed <= 40; seed++) {
		same_clock(seed, 0, 0);
		same_clock(seed, 1, TR_READ_KEEP_GOING);
		same_clock(seed, 1, 0);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
