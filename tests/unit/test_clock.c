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

#include "clock.h"
#include "trace.h"
#include "util.h"

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

int
main(void)
{
	tr_setprogname("test_clock");
	by_hand();
	for (uint64_t seed = 1; seed <= 50; seed++)
		property(seed);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
