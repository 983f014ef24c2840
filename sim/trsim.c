/*
 * trsim - a small, seeded, deterministic simulator of a HotROD-style
 * microservice system (frontend, customer, mysql, driver, redis, route,
 * kafka -> analytics, plus an optional batch job).
 *
 * It exists so the tr tools have realistic input whose root cause is known:
 * with --fault on, a batch ReportJob in its *own* traces holds the single
 * mysql connection for 300-800 ms, and frontend requests that reach mysql
 * meanwhile queue behind it.  Those requests are slow although nothing in
 * their own trace says why.
 *
 * Each trace is first simulated as it happened, then recorded as real
 * instrumentation records it (record()): every host has its own clock
 * offset, a span's end is taken a few µs after its work ended, some spans
 * are lost, one service is not instrumented, one sets no span kinds, and
 * no queue wait is written.  --hints records the truth instead, byte for
 * byte what trsim wrote before it had a recorder.
 *
 * The same simulated traces can be written as Jaeger query-API JSON, Zipkin
 * v2 JSON or OTLP/JSON.  Same seed and options => byte-identical output.
 * With --system, topo.c simulates a system from a table instead, with an
 * injected fault, and writes it through the same recorder and writers.
 *
 * Build: cc -std=c11 -O2 -Wall -Wextra -Werror -o build/trsim sim/trsim.c sim/topo.c -lm
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"


/* ------------------------------------------------------------------ */
/* Model constants.  All times are microseconds.                       */
/* ------------------------------------------------------------------ */


#define ARRIVAL_MEAN_US 50000.0 /* exponential inter-arrival of requests */

/*
 * mysql has ONE connection shared by every trace.  At 20 requests/s a
 * 50-150 ms query would need 1-3 connections' worth of time and the queue
 * would grow without bound, so the query itself is short (5-15 ms, ~20% of
 * the connection) and the customer service does most of the ~50-150 ms of
 * work around it.  The batch job adds ~27% load in long bursts: that is the
 * injected fault.
 */
#define CUST_PRE_MIN 20000
#define CUST_PRE_MAX 60000
#define CUST_POST_MIN 10000
#define CUST_POST_MAX 40000
#define QUERY_MIN 5000
#define QUERY_MAX 15000

#define NUM_DRIVERS 10          /* GetDriver calls and route calls per request */
#define REDIS_FAIL_P 0.05       /* chance that one redis call times out */
#define REDIS_TIMEOUT 80000     /* client-side timeout of a redis call */
#define REDIS_TRIES 3           /* tries per GetDriver, the first included */
#define ROUTE_WORKERS 3         /* frontend's route worker pool */

#define BATCH_EVERY_US 2000000  /* ReportJob period ... */
#define BATCH_JITTER_US 300000  /* ... +- this */
#define REPORT_MIN 300000       /* the long report query */
#define REPORT_MAX 800000

/* Lower bounds of "request start -> query reaches mysql"; the scheduler
 * relies on them to know when no later request can overtake a queued one. */
#define FE_DB_DELAY_MIN (300 + HOP_MIN + CUST_PRE_MIN + HOP_MIN)
#define BATCH_DB_DELAY_MIN (500 + HOP_MIN)

#define PENDING_MAX 1024

/* ------------------------------------------------------------------ */
/* PRNG: splitmix64, so results never depend on the C library.          */
/* ------------------------------------------------------------------ */

uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Independent stream per (seed, stream, index): each trace draws from its
 * own generator, so the order in which traces are built cannot change them. */
uint64_t stream_seed(uint64_t seed, uint64_t stream, uint64_t index)
{
	uint64_t s = seed;
	s = splitmix64(&s) ^ (stream << 56) ^ index;
	splitmix64(&s);
	return splitmix64(&s);
}

double rng_unit(uint64_t *s)
{
	return (double)(splitmix64(s) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [lo, hi]; the modulo bias is far below anything visible. */
int64_t rng_range(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(splitmix64(s) % (uint64_t)(hi - lo + 1));
}

bool rng_chance(uint64_t *s, double p)
{
	return rng_unit(s) < p;
}

int64_t rng_exp(uint64_t *s, double mean)
{
	return (int64_t)llround(-mean * log1p(-rng_unit(s)));
}

int64_t transit(uint64_t *rng)
{
	return rng_range(rng, HOP_MIN, HOP_MAX);
}

void die(const char *msg)
{
	fprintf(stderr, "trsim: %s\n", msg);
	exit(1);
}

/* ------------------------------------------------------------------ */
/* Services and hosts.                                                  */
/* ------------------------------------------------------------------ */

enum svc { S_FRONTEND, S_CUSTOMER, S_MYSQL, S_DRIVER, S_REDIS, S_ROUTE,
	   S_ANALYTICS, S_KAFKA, S_BATCH, S_COUNT };


/* kafka emits no spans; it only appears as a remote endpoint. */
static const struct service SERVICES[S_COUNT] = {
	[S_FRONTEND] = { "frontend", 2, { "frontend-0", "frontend-1" },
			 { "10.0.1.10", "10.0.1.11" }, 8080 },
	[S_CUSTOMER] = { "customer", 2, { "customer-0", "customer-1" },
			 { "10.0.2.10", "10.0.2.11" }, 8081 },
	[S_MYSQL] = { "mysql", 1, { "mysql-0" }, { "10.0.3.10" }, 3306 },
	[S_DRIVER] = { "driver", 2, { "driver-0", "driver-1" },
		       { "10.0.4.10", "10.0.4.11" }, 8082 },
	[S_REDIS] = { "redis", 1, { "redis-0" }, { "10.0.5.10" }, 6379 },
	[S_ROUTE] = { "route", 3, { "route-0", "route-1", "route-2" },
		      { "10.0.6.10", "10.0.6.11", "10.0.6.12" }, 8083 },
	[S_ANALYTICS] = { "analytics", 1, { "analytics-0" }, { "10.0.7.10" }, 8084 },
	[S_KAFKA] = { "kafka", 1, { "kafka-0" }, { "10.0.8.10" }, 9092 },
	[S_BATCH] = { "batch", 1, { "batch-0" }, { "10.0.9.10" }, 8085 },
};

/* HotROD's four customers and where they live (pickup location). */
static const struct customer {
	int id;
	const char *location;
} CUSTOMERS[] = {
	{ 123, "577,322" }, { 392, "115,277" }, { 567, "211,653" }, { 731, "728,326" },
};

/* ------------------------------------------------------------------ */
/* In-memory trace: format-neutral, written out by one of the writers.  */
/* ------------------------------------------------------------------ */


/* printf into the trace's arena; the string lives until the next trace. */
const char *strf(struct trace *t, const char *fmt, ...)
{
	size_t room = sizeof t->arena - t->used;
	char *dst = t->arena + t->used;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(dst, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room)
		die("trace string arena full");
	t->used += (size_t)n + 1;
	return dst;
}

struct tag *new_tag(struct span *sp, const char *key, enum ttype type)
{
	if (sp->ntags == MAX_TAGS)
		die("too many tags on one span");
	struct tag *g = &sp->tags[sp->ntags++];
	*g = (struct tag){ .key = key, .type = type };
	return g;
}

void tag_s(struct span *sp, const char *key, const char *v)
{
	new_tag(sp, key, T_STR)->s = v;
}

void tag_i(struct span *sp, const char *key, int64_t v)
{
	new_tag(sp, key, T_INT)->i = v;
}

static void tag_f(struct span *sp, const char *key, double v)
{
	new_tag(sp, key, T_FLOAT)->f = v;
}

/* A tag that only the simulator can know; written with --queue-tags. */
static void tag_hint_i(struct span *sp, const char *key, int64_t v)
{
	struct tag *g = new_tag(sp, key, T_INT);
	g->i = v;
	g->hint = true;
}

static int pick_host(uint64_t *rng, int svc)
{
	return (int)rng_range(rng, 0, SERVICES[svc].nhosts - 1);
}

int add_span(struct trace *t, uint64_t *rng, int parent, int svc, int host,
		    enum kind kind, const char *name, int64_t start)
{
	if (t->n == MAX_SPANS)
		die("too many spans in one trace");
	uint64_t id;
	do
		id = splitmix64(rng);
	while (id == 0); /* 0 means "no id" in every format */
	t->s[t->n] = (struct span){ .id = id, .parent = parent, .svc = svc,
				    .host = host, .peer_svc = -1, .peer_host = -1,
				    .kind = kind, .name = name, .start = start };
	return t->n++;
}

void finish(struct trace *t, int i, int64_t end)
{
	t->s[i].dur = end - t->s[i].start;
}

void set_peer(struct trace *t, struct span *sp, int svc, int host)
{
	sp->peer_svc = svc;
	sp->peer_host = host;
	tag_s(sp, "peer.service", t->svcs[svc].name);
}

void new_trace(struct trace *t, uint64_t *rng, const struct service *svcs)
{
	t->svcs = svcs;
	t->n = 0;
	t->used = 0;
	t->id_hi = splitmix64(rng);
	t->id_lo = splitmix64(rng);
}

/* ------------------------------------------------------------------ */
/* Building blocks: an RPC is a client span in the caller's process and */
/* a server span in the callee's.                                       */
/* ------------------------------------------------------------------ */

struct call {
	int client, server;
};

static struct call rpc_open(struct trace *t, uint64_t *rng, int parent, int callee,
			    const char *cname, const char *sname,
			    int64_t sent, int64_t started)
{
	const struct span *p = &t->s[parent];
	int c = add_span(t, rng, parent, p->svc, p->host, K_CLIENT, cname, sent);
	int h = pick_host(rng, callee);
	int s = add_span(t, rng, c, callee, h, K_SERVER, sname, started);
	set_peer(t, &t->s[c], callee, h);
	return (struct call){ c, s };
}

/* Ends the server span at server_end; the client sees the reply one network
 * hop later.  Returns the client's end time. */
static int64_t rpc_close(struct trace *t, uint64_t *rng, struct call k, int64_t server_end)
{
	int64_t end = server_end + transit(rng);
	finish(t, k.server, server_end);
	finish(t, k.client, end);
	return end;
}

static void http_tags(struct span *sp, const char *url, bool with_status)
{
	tag_s(sp, "component", "net/http");
	tag_s(sp, "http.method", "GET");
	tag_s(sp, "http.url", url);
	if (with_status)
		new_tag(sp, "http.status_code", T_INT)->i = 200, sp->tags[sp->ntags - 1].status = true;
}

static void grpc_tags(struct span *sp)
{
	tag_s(sp, "component", "gRPC");
	tag_s(sp, "rpc.system", "grpc");
	tag_s(sp, "rpc.service", "driver.DriverService");
	tag_s(sp, "rpc.method", "FindNearest");
	new_tag(sp, "rpc.grpc.status_code", T_INT)->status = true;
}

static void db_tags(struct span *sp, const char *component, const char *system,
		    const char *stmt)
{
	tag_s(sp, "component", component);
	tag_s(sp, "db.system", system);
	tag_s(sp, "db.statement", stmt);
}

/*
 * A mysql query: client span from `sent`, server span from `started` (when
 * the single connection picked it up, not when it arrived).  The wait in
 * between is what queue.wait_us records.  Returns the client's end time.
 */
static int64_t sql_query(struct trace *t, uint64_t *rng, int parent, const char *name,
			 const char *stmt, int64_t sent, int64_t arrived,
			 int64_t started, int64_t service)
{
	struct call q = rpc_open(t, rng, parent, S_MYSQL, name, name, sent, started);
	db_tags(&t->s[q.client], "sql", "mysql", stmt);
	tag_s(&t->s[q.client], "db.user", "root");
	db_tags(&t->s[q.server], "mysql", "mysql", stmt);
	tag_s(&t->s[q.server], "db.name", "hotrod");
	tag_hint_i(&t->s[q.server], "queue.wait_us", started - arrived);
	return rpc_close(t, rng, q, started + service);
}

/* ------------------------------------------------------------------ */
/* Plans: the part of a trace up to its mysql query, drawn ahead so the  */
/* scheduler can serve queries in order of arrival at mysql.             */
/* ------------------------------------------------------------------ */

struct plan {
	bool batch;
	uint64_t index;    /* request number (or batch run number) */
	uint64_t seq;      /* admission order: FIFO tie-break */
	uint64_t rng;      /* trace generator, continued when building */
	int64_t arrival;   /* root span start */
	int64_t pre;       /* caller's own work before its first call */
	int64_t hop1;      /* frontend -> customer */
	int64_t work;      /* customer's work before the query */
	int64_t hop2;      /* -> mysql */
	int64_t db_arrive; /* query reaches mysql */
	int64_t service;   /* mysql processing time */
};

static struct plan plan_request(uint64_t seed, uint64_t index, int64_t arrival)
{
	struct plan p = { .index = index, .arrival = arrival,
			  .rng = stream_seed(seed, 1, index) };
	p.pre = rng_range(&p.rng, 300, 1500);
	p.hop1 = transit(&p.rng);
	p.work = rng_range(&p.rng, CUST_PRE_MIN, CUST_PRE_MAX);
	p.hop2 = transit(&p.rng);
	p.service = rng_range(&p.rng, QUERY_MIN, QUERY_MAX);
	p.db_arrive = arrival + p.pre + p.hop1 + p.work + p.hop2;
	return p;
}

static struct plan plan_batch(uint64_t seed, uint64_t index, int64_t arrival)
{
	struct plan p = { .batch = true, .index = index, .arrival = arrival,
			  .rng = stream_seed(seed, 2, index) };
	p.pre = rng_range(&p.rng, 500, 3000);
	p.hop2 = transit(&p.rng);
	p.service = rng_range(&p.rng, REPORT_MIN, REPORT_MAX);
	p.db_arrive = arrival + p.pre + p.hop2;
	return p;
}

/* ------------------------------------------------------------------ */
/* Frontend request: HTTP GET /dispatch.                                */
/* ------------------------------------------------------------------ */

static int64_t build_customer(struct trace *t, uint64_t *rng, const struct plan *p,
			      int root, int64_t db_start, const struct customer *cu)
{
	int64_t sent = p->arrival + p->pre;
	struct call fe = rpc_open(t, rng, root, S_CUSTOMER, "HTTP GET /customer",
				  "HTTP GET /customer", sent, sent + p->hop1);
	http_tags(&t->s[fe.client],
		  strf(t, "http://customer:8081/customer?customer=%d", cu->id), true);
	http_tags(&t->s[fe.server], strf(t, "/customer?customer=%d", cu->id), true);

	int64_t q_sent = sent + p->hop1 + p->work;
	const char *stmt = strf(t, "SELECT * FROM customer WHERE customer_id=%d", cu->id);
	int64_t got = sql_query(t, rng, fe.server, "SQL SELECT", stmt, q_sent,
				p->db_arrive, db_start, p->service);
	int64_t done = got + rng_range(rng, CUST_POST_MIN, CUST_POST_MAX);
	return rpc_close(t, rng, fe, done);
}

/* One GetDriver lookup with client-side retries.  Only the driver's client
 * spans exist: each timed-out try is its own error span, then a new try. */
static int64_t get_driver(struct trace *t, uint64_t *rng, int parent,
			  const char *driver_id, int64_t now)
{
	const struct span *p = &t->s[parent];
	for (int attempt = 1; attempt <= REDIS_TRIES; attempt++) {
		int c = add_span(t, rng, parent, p->svc, p->host, K_CLIENT, "GetDriver", now);
		struct span *sp = &t->s[c];
		set_peer(t, sp, S_REDIS, 0);
		db_tags(sp, "redis", "redis", strf(t, "HGETALL driver:%s", driver_id));
		tag_s(sp, "param.driverID", driver_id);
		tag_i(sp, "retry.attempt", attempt);
		if (!rng_chance(rng, REDIS_FAIL_P)) {
			int64_t end = now + rng_range(rng, 5000, 15000);
			finish(t, c, end);
			return end;
		}
		/* the timer fires a little late; the retry follows a short backoff */
		int64_t end = now + REDIS_TIMEOUT + rng_range(rng, 50, 1500);
		sp->error = true;
		sp->status_msg = "timeout";
		sp->event = "timeout";
		sp->event_ts = now + REDIS_TIMEOUT;
		finish(t, c, end);
		now = end + rng_range(rng, 200, 1000);
	}
	return now; /* all tries failed: the driver is skipped */
}

static int64_t build_driver(struct trace *t, uint64_t *rng, int root, int64_t now,
			    const struct customer *cu, const char *drivers[])
{
	int64_t arrive = now + transit(rng);
	struct call fe = rpc_open(t, rng, root, S_DRIVER, "gRPC FindNearest",
				  "/driver.DriverService/FindNearest", now, arrive);
	grpc_tags(&t->s[fe.client]);
	grpc_tags(&t->s[fe.server]);
	tag_s(&t->s[fe.server], "param.location", cu->location);

	int64_t at = arrive + rng_range(rng, 100, 600);
	int64_t r_arrive = at + transit(rng);
	struct call ids = rpc_open(t, rng, fe.server, S_REDIS, "FindDriverIDs",
				   "FindDriverIDs", at, r_arrive);
	const char *cmd = strf(t, "GEORADIUS drivers %s 5 km", cu->location);
	db_tags(&t->s[ids.client], "redis", "redis", cmd);
	db_tags(&t->s[ids.server], "redis", "redis", cmd);
	tag_s(&t->s[ids.server], "param.location", cu->location);
	at = rpc_close(t, rng, ids, r_arrive + rng_range(rng, 10000, 30000));

	for (int i = 0; i < NUM_DRIVERS; i++) {
		drivers[i] = strf(t, "T7%05dC", (int)rng_range(rng, 0, 99999));
		at = get_driver(t, rng, fe.server, drivers[i], at + rng_range(rng, 50, 300));
	}
	return rpc_close(t, rng, fe, at + rng_range(rng, 200, 1000));
}

static int earliest(const int64_t *v, int n)
{
	int best = 0;
	for (int i = 1; i < n; i++)
		if (v[i] < v[best])
			best = i;
	return best;
}

/* One route call per driver through a pool of ROUTE_WORKERS: a call starts
 * only when a worker frees, which the trace shows as staggered client spans. */
static int64_t build_route(struct trace *t, uint64_t *rng, int root, int64_t now,
			   const struct customer *cu)
{
	int64_t worker[ROUTE_WORKERS];
	int64_t done = now;
	for (int w = 0; w < ROUTE_WORKERS; w++)
		worker[w] = now;
	for (int k = 0; k < NUM_DRIVERS; k++) {
		int w = earliest(worker, ROUTE_WORKERS);
		int64_t sent = (worker[w] > now ? worker[w] : now) + rng_range(rng, 20, 200);
		int64_t arrive = sent + transit(rng);
		struct call c = rpc_open(t, rng, root, S_ROUTE, "HTTP GET /route",
					 "HTTP GET /route", sent, arrive);
		int dx = (int)rng_range(rng, 100, 900), dy = (int)rng_range(rng, 100, 900);
		const char *q = strf(t, "/route?dropoff=%d,%d&pickup=%s", dx, dy, cu->location);
		http_tags(&t->s[c.client], strf(t, "http://route:8083%s", q), true);
		http_tags(&t->s[c.server], q, true);
		tag_hint_i(&t->s[c.server], "queue.wait_us", 0); /* route has no queue */
		tag_f(&t->s[c.server], "route.eta_min", (double)rng_range(rng, 100, 3000) / 100.0);
		worker[w] = rpc_close(t, rng, c, arrive + rng_range(rng, 20000, 60000));
		if (worker[w] > done)
			done = worker[w];
	}
	return done;
}

/* kafka publish at the end of the request and its analytics consumer, which
 * runs after the producer finished: FOLLOWS_FROM, not a nested call. */
static int64_t build_publish(struct trace *t, uint64_t *rng, int root, int64_t now,
			     uint64_t request)
{
	const struct span *r = &t->s[root];
	int p = add_span(t, rng, root, r->svc, r->host, K_PRODUCER,
			 "publish dispatch.events", now);
	set_peer(t, &t->s[p], S_KAFKA, 0);
	tag_s(&t->s[p], "component", "kafka");
	tag_s(&t->s[p], "messaging.system", "kafka");
	tag_s(&t->s[p], "messaging.destination", "dispatch.events");
	tag_s(&t->s[p], "messaging.message_id", strf(t, "dispatch-%llu", (unsigned long long)request));
	int64_t pend = now + rng_range(rng, 300, 2000);
	finish(t, p, pend);

	int64_t cstart = pend + rng_range(rng, 2000, 20000);
	int c = add_span(t, rng, p, S_ANALYTICS, 0, K_CONSUMER, "process dispatch.events", cstart);
	struct span *sp = &t->s[c];
	sp->follows = true;
	sp->peer_svc = S_KAFKA;
	sp->peer_host = 0;
	tag_s(sp, "component", "kafka");
	tag_s(sp, "messaging.system", "kafka");
	tag_s(sp, "messaging.destination", "dispatch.events");
	tag_s(sp, "messaging.operation", "process");
	tag_s(sp, "messaging.kafka.consumer_group", "analytics");
	tag_i(sp, "messaging.kafka.partition", rng_range(rng, 0, 5));
	finish(t, c, cstart + rng_range(rng, 1000, 5000));
	return pend;
}

static void build_request(struct trace *t, struct plan *p, int64_t db_start)
{
	uint64_t *rng = &p->rng;
	const char *drivers[NUM_DRIVERS];
	new_trace(t, rng, SERVICES);
	const struct customer *cu = &CUSTOMERS[rng_range(rng, 0, 3)];
	int root = add_span(t, rng, -1, S_FRONTEND, pick_host(rng, S_FRONTEND), K_SERVER,
			    "HTTP GET /dispatch", p->arrival);
	http_tags(&t->s[root], strf(t, "/dispatch?customer=%d", cu->id), true);
	tag_s(&t->s[root], "customer.id", strf(t, "%d", cu->id));

	int64_t now = build_customer(t, rng, p, root, db_start, cu);
	now = build_driver(t, rng, root, now + rng_range(rng, 100, 500), cu, drivers);
	now = build_route(t, rng, root, now + rng_range(rng, 100, 500), cu);
	now = build_publish(t, rng, root, now + rng_range(rng, 200, 1000), p->index);
	finish(t, root, now + rng_range(rng, 100, 500));
}

/* ------------------------------------------------------------------ */
/* Batch job: ReportJob, the off-path fault.                            */
/* ------------------------------------------------------------------ */

static void build_batch(struct trace *t, struct plan *p, int64_t db_start)
{
	uint64_t *rng = &p->rng;
	new_trace(t, rng, SERVICES);
	int root = add_span(t, rng, -1, S_BATCH, 0, K_INTERNAL, "ReportJob", p->arrival);
	tag_s(&t->s[root], "component", "cron");
	tag_s(&t->s[root], "job.name", "dispatch-report");
	tag_i(&t->s[root], "job.run", (int64_t)p->index);

	int64_t sent = p->arrival + p->pre;
	int64_t got = sql_query(t, rng, root, "SQL SELECT report",
				"SELECT driver_id, COUNT(*) FROM dispatch GROUP BY driver_id",
				sent, p->db_arrive, db_start, p->service);
	int64_t rstart = got + rng_range(rng, 100, 500);
	int r = add_span(t, rng, root, S_BATCH, 0, K_INTERNAL, "render report", rstart);
	tag_s(&t->s[r], "component", "report");
	int64_t rend = rstart + rng_range(rng, 5000, 30000);
	finish(t, r, rend);
	finish(t, root, rend + rng_range(rng, 100, 500));
}

/* ------------------------------------------------------------------ */
/* Buffered output: hand-rolled number formatting because printf would   */
/* dominate the run time at a million spans.                             */
/* ------------------------------------------------------------------ */

struct out {
	FILE *f;
	size_t n;
	char buf[1 << 16];
};

static void out_flush(struct out *o)
{
	if (o->n && fwrite(o->buf, 1, o->n, o->f) != o->n)
		die("write error");
	o->n = 0;
}

static void out_raw(struct out *o, const char *s, size_t len)
{
	if (o->n + len > sizeof o->buf) {
		out_flush(o);
		if (len > sizeof o->buf) {
			if (fwrite(s, 1, len, o->f) != len)
				die("write error");
			return;
		}
	}
	memcpy(o->buf + o->n, s, len);
	o->n += len;
}

static void out_s(struct out *o, const char *s)
{
	out_raw(o, s, strlen(s));
}

static void out_c(struct out *o, char c)
{
	if (o->n == sizeof o->buf)
		out_flush(o);
	o->buf[o->n++] = c;
}

static void out_i64(struct out *o, int64_t v)
{
	char tmp[24];
	int i = sizeof tmp;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	do {
		tmp[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[--i] = '-';
	out_raw(o, tmp + i, sizeof tmp - (size_t)i);
}

static void out_f64(struct out *o, double v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof tmp, "%.15g", v);
	out_raw(o, tmp, (size_t)n);
}

static void out_hex64(struct out *o, uint64_t v)
{
	char tmp[16];
	for (int i = 15; i >= 0; i--, v >>= 4)
		tmp[i] = "0123456789abcdef"[v & 15];
	out_raw(o, tmp, sizeof tmp);
}

/* JSON string with quotes; lower folds ASCII to lower case (Zipkin names). */
static void out_jstr_case(struct out *o, const char *s, bool lower)
{
	out_c(o, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			out_c(o, '\\');
			out_c(o, (char)c);
		} else if (c < 0x20) {
			char esc[8];
			snprintf(esc, sizeof esc, "\\u%04x", c);
			out_s(o, esc);
		} else {
			out_c(o, (char)(lower && c >= 'A' && c <= 'Z' ? c + 32 : c));
		}
	}
	out_c(o, '"');
}

static void out_jstr(struct out *o, const char *s)
{
	out_jstr_case(o, s, false);
}

static void out_trace_id(struct out *o, const struct trace *t)
{
	out_hex64(o, t->id_hi);
	out_hex64(o, t->id_lo);
}

/* ,"key":"<hex id>" */
static void out_id_field(struct out *o, const char *key, uint64_t id)
{
	out_s(o, ",\"");
	out_s(o, key);
	out_s(o, "\":\"");
	out_hex64(o, id);
	out_c(o, '"');
}

/* Tag value as text, for formats whose tags are strings (Zipkin). */
static const char *tag_text(const struct tag *g, char *buf, size_t len)
{
	switch (g->type) {
	case T_STR: return g->s;
	case T_BOOL: return g->i ? "true" : "false";
	case T_INT: snprintf(buf, len, "%lld", (long long)g->i); return buf;
	case T_FLOAT: snprintf(buf, len, "%.15g", g->f); return buf;
	}
	return "";
}

static const char *const KIND_NAME[] = { "internal", "server", "client", "producer", "consumer", NULL };
static const char *const ZIPKIN_KIND[] = { NULL, "SERVER", "CLIENT", "PRODUCER", "CONSUMER", NULL };
static const int OTLP_KIND[] = { 1, 2, 3, 4, 5, 0 }; /* 0: UNSPECIFIED, left out */

/*
 * Processes (service + host) of a trace, numbered in order of first use, as
 * Jaeger numbers processIDs.  proc[i] = process number of span i (-1 for a
 * lost span, which names no process); first[j] = a span of process j.
 * Returns the number of processes.
 */
static int trace_processes(const struct trace *t, int *proc, int *first)
{
	int np = 0;
	for (int i = 0; i < t->n; i++) {
		proc[i] = -1;
		if (t->s[i].lost)
			continue;
		int j = 0;
		while (j < np && (t->s[first[j]].svc != t->s[i].svc ||
				  t->s[first[j]].host != t->s[i].host))
			j++;
		if (j == np)
			first[np++] = i;
		proc[i] = j;
	}
	return np;
}

/* ------------------------------------------------------------------ */
/* Jaeger query-API JSON.                                               */
/* ------------------------------------------------------------------ */

static void jaeger_kv(struct out *o, const char *key, const char *type)
{
	out_s(o, "{\"key\":");
	out_jstr(o, key);
	out_s(o, ",\"type\":\"");
	out_s(o, type);
	out_s(o, "\",\"value\":");
}

static void jaeger_tag(struct out *o, const struct tag *g)
{
	static const char *const TYPE[] = { "string", "bool", "int64", "float64" };
	jaeger_kv(o, g->key, TYPE[g->type]);
	switch (g->type) {
	case T_STR: out_jstr(o, g->s); break;
	case T_BOOL: out_s(o, g->i ? "true" : "false"); break;
	case T_INT: out_i64(o, g->i); break;
	case T_FLOAT: out_f64(o, g->f); break;
	}
	out_c(o, '}');
}

static void jaeger_span(struct out *o, const struct trace *t, int i, int proc)
{
	const struct span *sp = &t->s[i];
	out_s(o, "{\"traceID\":\"");
	out_trace_id(o, t);
	out_c(o, '"');
	out_id_field(o, "spanID", sp->id);
	out_s(o, ",\"flags\":1,\"operationName\":");
	out_jstr(o, sp->name);
	out_s(o, ",\"references\":[");
	if (sp->parent >= 0) {
		out_s(o, sp->follows ? "{\"refType\":\"FOLLOWS_FROM\",\"traceID\":\""
				     : "{\"refType\":\"CHILD_OF\",\"traceID\":\"");
		out_trace_id(o, t);
		out_c(o, '"');
		out_id_field(o, "spanID", t->s[sp->parent].id);
		out_c(o, '}');
	}
	out_s(o, "],\"startTime\":");
	out_i64(o, sp->start);
	out_s(o, ",\"duration\":");
	out_i64(o, sp->dur);
	out_s(o, ",\"tags\":[");
	bool any = KIND_NAME[sp->kind] != NULL;
	if (any) {
		jaeger_kv(o, "span.kind", "string");
		out_jstr(o, KIND_NAME[sp->kind]);
		out_c(o, '}');
	}
	for (int k = 0; k < sp->ntags; k++, any = true) {
		if (any)
			out_c(o, ',');
		jaeger_tag(o, &sp->tags[k]);
	}
	if (sp->error)
		out_s(o, any ? ",{\"key\":\"error\",\"type\":\"bool\",\"value\":true}"
			     : "{\"key\":\"error\",\"type\":\"bool\",\"value\":true}");
	out_s(o, "],\"logs\":[");
	if (sp->event) {
		out_s(o, "{\"timestamp\":");
		out_i64(o, sp->event_ts);
		out_s(o, ",\"fields\":[{\"key\":\"event\",\"type\":\"string\",\"value\":");
		out_jstr(o, sp->event);
		if (sp->ex_type) {
			out_s(o, "},");
			jaeger_kv(o, "exception.type", "string");
			out_jstr(o, sp->ex_type);
			out_s(o, "},");
			jaeger_kv(o, "exception.message", "string");
			out_jstr(o, sp->ex_msg);
		}
		out_s(o, "}]}");
	}
	out_s(o, "],\"processID\":\"p");
	out_i64(o, proc + 1);
	out_s(o, "\",\"warnings\":null}");
}

static void jaeger_process(struct out *o, const struct trace *t, const struct span *sp, int proc)
{
	const struct service *sv = &t->svcs[sp->svc];
	out_s(o, "\"p");
	out_i64(o, proc + 1);
	out_s(o, "\":{\"serviceName\":");
	out_jstr(o, sv->name);
	out_s(o, ",\"tags\":[");
	jaeger_kv(o, "hostname", "string");
	out_jstr(o, sv->host[sp->host]);
	out_s(o, "},");
	jaeger_kv(o, "ip", "string");
	out_jstr(o, sv->ip[sp->host]);
	out_s(o, "},");
	jaeger_kv(o, "jaeger.version", "string");
	out_s(o, "\"Go-2.30.0\"}]}");
}

static void jaeger_trace(struct out *o, const struct trace *t)
{
	int proc[MAX_SPANS], first[MAX_SPANS];
	int np = trace_processes(t, proc, first);
	out_s(o, "{\"traceID\":\"");
	out_trace_id(o, t);
	out_s(o, "\",\"spans\":[");
	bool any = false;
	for (int i = 0; i < t->n; i++) {
		if (t->s[i].lost)
			continue;
		if (any)
			out_c(o, ',');
		jaeger_span(o, t, i, proc[i]);
		any = true;
	}
	out_s(o, "],\"processes\":{");
	for (int j = 0; j < np; j++) {
		if (j)
			out_c(o, ',');
		jaeger_process(o, t, &t->s[first[j]], j);
	}
	out_s(o, "},\"warnings\":null}");
}

/* ------------------------------------------------------------------ */
/* Zipkin v2 JSON.  An RPC server span reuses its client's id and is     */
/* marked shared, as B3 propagation does.                                */
/* ------------------------------------------------------------------ */

static bool zipkin_shared(const struct trace *t, const struct span *sp)
{
	return sp->kind == K_SERVER && sp->parent >= 0 && t->s[sp->parent].kind == K_CLIENT;
}

/* Zipkin id of span i.  Only one level: a client is never shared itself. */
static uint64_t zipkin_id(const struct trace *t, int i)
{
	const struct span *sp = &t->s[i];
	return zipkin_shared(t, sp) ? t->s[sp->parent].id : sp->id;
}

/* The span whose id Zipkin records as parentId, or -1. */
static int zipkin_parent(const struct trace *t, int i)
{
	const struct span *sp = &t->s[i];
	return zipkin_shared(t, sp) ? t->s[sp->parent].parent : sp->parent;
}

static void zipkin_endpoint(struct out *o, const struct trace *t, const char *key,
			    int svc, int host, bool port)
{
	const struct service *sv = &t->svcs[svc];
	out_s(o, ",\"");
	out_s(o, key);
	out_s(o, "\":{\"serviceName\":");
	out_jstr(o, sv->name);
	out_s(o, ",\"ipv4\":\"");
	out_s(o, sv->ip[host]);
	out_c(o, '"');
	if (port) {
		out_s(o, ",\"port\":");
		out_i64(o, sv->port);
	}
	out_c(o, '}');
}

static void zipkin_tags(struct out *o, const struct span *sp)
{
	char buf[32];
	out_s(o, ",\"tags\":{");
	for (int k = 0; k < sp->ntags; k++) {
		if (k)
			out_c(o, ',');
		out_jstr(o, sp->tags[k].key);
		out_c(o, ':');
		out_jstr(o, tag_text(&sp->tags[k], buf, sizeof buf));
	}
	if (sp->error)
		out_s(o, sp->ntags ? ",\"error\":\"true\"" : "\"error\":\"true\"");
	out_c(o, '}');
}

static void zipkin_span(struct out *o, const struct trace *t, int i)
{
	const struct span *sp = &t->s[i];
	int zp = zipkin_parent(t, i);
	out_s(o, "{\"traceId\":\"");
	out_trace_id(o, t);
	out_c(o, '"');
	if (zp >= 0)
		out_id_field(o, "parentId", zipkin_id(t, zp));
	out_id_field(o, "id", zipkin_id(t, i));
	if (ZIPKIN_KIND[sp->kind]) {
		out_s(o, ",\"kind\":\"");
		out_s(o, ZIPKIN_KIND[sp->kind]);
		out_c(o, '"');
	}
	out_s(o, ",\"name\":");
	out_jstr_case(o, sp->name, true);
	out_s(o, ",\"timestamp\":");
	out_i64(o, sp->start);
	out_s(o, ",\"duration\":");
	out_i64(o, sp->dur);
	zipkin_endpoint(o, t, "localEndpoint", sp->svc, sp->host, false);
	if (sp->peer_svc >= 0)
		zipkin_endpoint(o, t, "remoteEndpoint", sp->peer_svc, sp->peer_host, true);
	else if (zipkin_shared(t, sp))
		zipkin_endpoint(o, t, "remoteEndpoint", t->s[sp->parent].svc,
				t->s[sp->parent].host, false);
	if (sp->event) {
		out_s(o, ",\"annotations\":[{\"timestamp\":");
		out_i64(o, sp->event_ts);
		out_s(o, ",\"value\":");
		out_jstr(o, sp->event);
		out_s(o, "}]");
	}
	zipkin_tags(o, sp);
	if (zipkin_shared(t, sp))
		out_s(o, ",\"shared\":true");
	out_c(o, '}');
}

/* ------------------------------------------------------------------ */
/* OTLP/JSON: one resourceSpans entry per (trace, process).             */
/* ------------------------------------------------------------------ */

static void otlp_nanos(struct out *o, const char *key, int64_t us)
{
	out_s(o, ",\"");
	out_s(o, key);
	out_s(o, "\":\"");
	out_i64(o, us);
	out_s(o, "000\""); /* µs -> ns without overflow worries */
}

static void otlp_attr(struct out *o, const struct tag *g)
{
	out_s(o, "{\"key\":");
	out_jstr(o, g->key);
	switch (g->type) {
	case T_STR:
		out_s(o, ",\"value\":{\"stringValue\":");
		out_jstr(o, g->s);
		break;
	case T_BOOL:
		out_s(o, ",\"value\":{\"boolValue\":");
		out_s(o, g->i ? "true" : "false");
		break;
	case T_INT: /* int64 is a JSON string in proto3 JSON */
		out_s(o, ",\"value\":{\"intValue\":\"");
		out_i64(o, g->i);
		out_c(o, '"');
		break;
	case T_FLOAT:
		out_s(o, ",\"value\":{\"doubleValue\":");
		out_f64(o, g->f);
		break;
	}
	out_s(o, "}}");
}

static void otlp_str_attr(struct out *o, const char *key, const char *v)
{
	struct tag g = { .key = key, .type = T_STR, .s = v };
	otlp_attr(o, &g);
}

static void otlp_span(struct out *o, const struct trace *t, int i)
{
	const struct span *sp = &t->s[i];
	out_s(o, "{\"traceId\":\"");
	out_trace_id(o, t);
	out_c(o, '"');
	out_id_field(o, "spanId", sp->id);
	if (sp->parent >= 0)
		out_id_field(o, "parentSpanId", t->s[sp->parent].id);
	out_s(o, ",\"name\":");
	out_jstr(o, sp->name);
	if (OTLP_KIND[sp->kind]) { /* proto3 JSON leaves out a zero enum */
		out_s(o, ",\"kind\":");
		out_i64(o, OTLP_KIND[sp->kind]);
	}
	otlp_nanos(o, "startTimeUnixNano", sp->start);
	otlp_nanos(o, "endTimeUnixNano", sp->start + sp->dur);
	out_s(o, ",\"attributes\":[");
	for (int k = 0; k < sp->ntags; k++) {
		if (k)
			out_c(o, ',');
		otlp_attr(o, &sp->tags[k]);
	}
	out_c(o, ']');
	if (sp->event) {
		out_s(o, ",\"events\":[{\"timeUnixNano\":\"");
		out_i64(o, sp->event_ts);
		out_s(o, "000\",\"name\":");
		out_jstr(o, sp->event);
		if (sp->ex_type) {
			out_s(o, ",\"attributes\":[");
			otlp_str_attr(o, "exception.type", sp->ex_type);
			out_c(o, ',');
			otlp_str_attr(o, "exception.message", sp->ex_msg);
			out_c(o, ']');
		}
		out_s(o, "}]");
	}
	if (sp->follows) {
		out_s(o, ",\"links\":[{\"traceId\":\"");
		out_trace_id(o, t);
		out_c(o, '"');
		out_id_field(o, "spanId", t->s[sp->parent].id);
		out_s(o, "}]");
	}
	if (sp->error) {
		out_s(o, ",\"status\":{\"code\":2,\"message\":");
		out_jstr(o, sp->status_msg);
		out_s(o, "}}");
	} else {
		out_s(o, ",\"status\":{}}");
	}
}

static void otlp_resource(struct out *o, const struct trace *t, const int *proc, int j,
			  const struct span *first)
{
	const struct service *sv = &t->svcs[first->svc];
	out_s(o, "{\"resource\":{\"attributes\":[");
	otlp_str_attr(o, "service.name", sv->name);
	out_c(o, ',');
	otlp_str_attr(o, "host.name", sv->host[first->host]);
	out_c(o, ',');
	otlp_str_attr(o, "host.ip", sv->ip[first->host]);
	out_s(o, "]},\"scopeSpans\":[{\"scope\":{\"name\":\"trsim\",\"version\":\"1.0\"},\"spans\":[");
	bool any = false;
	for (int i = 0; i < t->n; i++) {
		if (proc[i] != j)
			continue;
		if (any)
			out_c(o, ',');
		otlp_span(o, t, i);
		any = true;
	}
	out_s(o, "]}]}");
}

/* ------------------------------------------------------------------ */
/* Emitter: document framing around the traces.                         */
/* ------------------------------------------------------------------ */


static void emit_sep(struct emitter *e)
{
	if (!e->first)
		out_s(e->o, ",\n");
	e->first = false;
}

void emit_begin(struct emitter *e)
{
	static const char *const HEAD[] = { "{\"data\":[\n", "[\n", "{\"resourceSpans\":[\n" };
	e->first = true;
	out_s(e->o, HEAD[e->format]);
}

void emit_end(struct emitter *e)
{
	static const char *const TAIL[] = {
		"],\"total\":0,\"limit\":0,\"offset\":0,\"errors\":null}\n", "]\n", "]}\n" };
	if (!e->first)
		out_c(e->o, '\n');
	out_s(e->o, TAIL[e->format]);
}

void emit_trace(struct emitter *e, const struct trace *t)
{
	int proc[MAX_SPANS], first[MAX_SPANS], np;
	switch (e->format) {
	case F_JAEGER:
		emit_sep(e);
		jaeger_trace(e->o, t);
		break;
	case F_ZIPKIN:
		for (int i = 0; i < t->n; i++) {
			if (t->s[i].lost)
				continue;
			emit_sep(e);
			zipkin_span(e->o, t, i);
		}
		break;
	case F_OTLP:
		np = trace_processes(t, proc, first);
		for (int j = 0; j < np; j++) {
			emit_sep(e);
			otlp_resource(e->o, t, proc, j, &t->s[first[j]]);
		}
		break;
	}
}

/* ------------------------------------------------------------------ */
/* Recorder: what real instrumentation keeps of a trace that happened.  */
/* Each knob draws from its own streams, so turning one off changes     */
/* nothing else, and all of them off gives the bytes of the truth.      */
/* ------------------------------------------------------------------ */


/* Host clocks are drawn once per run: a host keeps its offset across
 * traces, as an unsynchronised clock does over a few minutes. */
void recorder_init(struct recorder *r, uint64_t seed, int nsvc)
{
	for (int svc = 0; svc < nsvc; svc++)
		for (int h = 0; h < MAX_HOSTS; h++) {
			uint64_t rng = stream_seed(seed, 5, (uint64_t)(svc * 3 + h));
			r->clock[svc][h] = r->clock_skew
				? rng_range(&rng, -r->clock_skew, r->clock_skew) : 0;
		}
}

/* Drops the simulator's hints and, with no_status, the status codes. */
static void drop_tags(struct span *sp, bool hints, bool status)
{
	int kept = 0;
	for (int k = 0; k < sp->ntags; k++)
		if (!(hints && sp->tags[k].hint) && !(status && sp->tags[k].status))
			sp->tags[kept++] = sp->tags[k];
	sp->ntags = kept;
}

/* Turns the simulated truth into what was recorded, span by span.  rng is
 * the trace's own recording stream; every span draws the same numbers
 * whatever the knobs, so one knob never moves another's draws. */
void record(const struct recorder *r, struct trace *t, uint64_t rng)
{
	for (int i = 0; i < t->n; i++) {
		struct span *sp = &t->s[i];
		bool lost = rng_chance(&rng, r->span_loss);
		int64_t late = rng_range(&rng, 0, r->overlap);
		sp->lost = lost || sp->svc == r->uninstrumented;
		sp->dur += late;
		int64_t off = r->clock[sp->svc][sp->host];
		sp->start += off;
		sp->event_ts += off;
		if (sp->svc == r->kindless || r->kindless == SVC_ALL)
			sp->kind = K_NONE;
		if (!r->queue_tags || r->no_status)
			drop_tags(sp, !r->queue_tags, r->no_status);
		if (r->no_status)
			sp->error = false, sp->event = NULL;
	}
}

/* ------------------------------------------------------------------ */
/* Scheduler: the single mysql connection serves queries FIFO by arrival */
/* time at mysql, across all traces.  Plans wait in `pending` until no   */
/* later request could still reach mysql earlier.                        */
/* ------------------------------------------------------------------ */

struct pending {
	int n;
	struct plan p[PENDING_MAX];
};

static void pending_add(struct pending *q, struct plan p, uint64_t *seq)
{
	if (q->n == PENDING_MAX)
		die("pending queue overflow");
	p.seq = (*seq)++;
	q->p[q->n++] = p;
}

/* Index of the query that reached mysql first (FIFO; ties by admission). */
static int pending_first(const struct pending *q)
{
	int best = 0;
	for (int i = 1; i < q->n; i++) {
		const struct plan *a = &q->p[i], *b = &q->p[best];
		if (a->db_arrive < b->db_arrive ||
		    (a->db_arrive == b->db_arrive && a->seq < b->seq))
			best = i;
	}
	return best;
}

struct sim {
	uint64_t seed;
	uint64_t traces;    /* frontend requests to simulate */
	bool fault;
	uint64_t arrivals;  /* generator of request arrival times */
	uint64_t schedule;  /* generator of batch start times */
	uint64_t planned;   /* requests admitted so far */
	uint64_t batches;   /* batch runs admitted so far */
	uint64_t seq;
	struct plan next_req, next_batch;
	int64_t db_free;    /* when the mysql connection is free again */
	struct recorder rec;
};

static void sim_init(struct sim *s, uint64_t seed, uint64_t traces, bool fault,
		     struct recorder rec)
{
	*s = (struct sim){ .seed = seed, .traces = traces, .fault = fault,
			   .arrivals = stream_seed(seed, 3, 0),
			   .schedule = stream_seed(seed, 4, 0), .db_free = EPOCH_US,
			   .rec = rec };
	recorder_init(&s->rec, seed, S_COUNT);
	s->next_req = plan_request(seed, 0, EPOCH_US + rng_exp(&s->arrivals, ARRIVAL_MEAN_US));
	s->next_batch = plan_batch(seed, 0, EPOCH_US + rng_range(&s->schedule, 200000, BATCH_EVERY_US));
}

/* Batch runs only happen while frontend traffic is still being generated. */
static bool batch_due(const struct sim *s)
{
	return s->fault && s->planned < s->traces &&
	       s->next_batch.arrival < s->next_req.arrival;
}

/* Moves the earliest upcoming request or batch run into `q`. */
static void admit_next(struct sim *s, struct pending *q)
{
	if (batch_due(s)) {
		pending_add(q, s->next_batch, &s->seq);
		int64_t at = s->next_batch.arrival + BATCH_EVERY_US +
			     rng_range(&s->schedule, -BATCH_JITTER_US, BATCH_JITTER_US);
		s->next_batch = plan_batch(s->seed, ++s->batches, at);
		return;
	}
	pending_add(q, s->next_req, &s->seq);
	int64_t at = s->next_req.arrival + rng_exp(&s->arrivals, ARRIVAL_MEAN_US);
	s->next_req = plan_request(s->seed, ++s->planned, at);
}

/* Earliest time any not-yet-admitted query could reach mysql. */
static int64_t arrival_bound(const struct sim *s)
{
	if (s->planned >= s->traces)
		return INT64_MAX;
	int64_t b = s->next_req.arrival + FE_DB_DELAY_MIN;
	if (s->fault && s->next_batch.arrival + BATCH_DB_DELAY_MIN < b)
		b = s->next_batch.arrival + BATCH_DB_DELAY_MIN;
	return b;
}

static void serve(struct sim *s, struct plan *p, struct trace *t, struct emitter *e)
{
	int64_t start = p->db_arrive > s->db_free ? p->db_arrive : s->db_free;
	s->db_free = start + p->service;
	if (p->batch)
		build_batch(t, p, start);
	else
		build_request(t, p, start);
	record(&s->rec, t, stream_seed(s->seed, p->batch ? 7 : 6, p->index));
	emit_trace(e, t);
}

static void simulate(struct sim *s, struct trace *t, struct pending *q, struct emitter *e)
{
	emit_begin(e);
	while (s->planned < s->traces || q->n > 0) {
		if (s->planned < s->traces)
			admit_next(s, q);
		int64_t bound = arrival_bound(s);
		while (q->n > 0) {
			int i = pending_first(q);
			if (q->p[i].db_arrive > bound)
				break;
			struct plan p = q->p[i];
			q->p[i] = q->p[--q->n];
			serve(s, &p, t, e);
		}
	}
	emit_end(e);
}

/* ------------------------------------------------------------------ */
/* Command line.                                                        */
/* ------------------------------------------------------------------ */

static const char USAGE[] =
	"usage: trsim [--seed N] [--traces N] [--format jaeger|zipkin|otlp]\n"
	"             [--fault on|off] [--hints] [--queue-tags] [--clock-skew US]\n"
	"             [--overlap US] [--span-loss P] [--uninstrumented SVC|none]\n"
	"             [--kindless SVC|none|all] [--no-status] [-o FILE]\n"
	"       trsim --system hotrod|shop [--inject FAULT:SVC] [--fault-start MS]\n"
	"             [--window all|before|after] [--wrapper-spans] [options above]\n"
	"\n"
	"Simulates a HotROD-style microservice system and writes its traces as\n"
	"real instrumentation records them (the realism options below).\n"
	"With --system, simulates a system from trsim's table instead, with\n"
	"a fault injected into one service.\n"
	"  --seed N       PRNG seed (default 1); same options => same bytes\n"
	"  --traces N     frontend requests to simulate (default 100);\n"
	"                 batch ReportJob traces come on top\n"
	"  --format F     jaeger (query-API JSON, default), zipkin (v2 JSON)\n"
	"                 or otlp (OTLP/JSON)\n"
	"  --fault on|off batch job holding the single mysql connection\n"
	"                 (default on)\n"
	"  --hints        record the truth: --queue-tags --clock-skew 0\n"
	"                 --overlap 0 --span-loss 0 --uninstrumented none\n"
	"                 --kindless none (options after it still apply)\n"
	"  --queue-tags   write queue.wait_us on mysql and route server spans\n"
	"  --clock-skew US  each host's clock is off by up to US µs (default 5000)\n"
	"  --overlap US   span ends are taken up to US µs late (default 5)\n"
	"  --span-loss P  chance that a span is lost (default 0.01)\n"
	"  --uninstrumented SVC  service that records no spans (default redis)\n"
	"  --kindless SVC service whose spans have no kind (default route;\n"
	"                 all: no span has a kind)\n"
	"  --no-status    record no errors: no error tag or status, no status\n"
	"                 code, no exception or timeout event\n"
	"  --system S     hotrod (HotROD's calls, no batch job) or shop\n"
	"                 (24 services, calls up to 6 deep); realism defaults\n"
	"                 as above but --uninstrumented none --kindless none\n"
	"  --inject F:SVC fault F on service SVC from --fault-start on: delay\n"
	"                 (its messages), cpu (its work and messaging), slow\n"
	"                 (its work), error, throw (half its requests fail),\n"
	"                 down (connections refused)\n"
	"  --fault-start MS  when the fault starts, in ms after the run's\n"
	"                 start, its epoch (default 0)\n"
	"  --window W     write all traces (default), those whose root starts\n"
	"                 before the fault starts, or after\n"
	"  --wrapper-spans  the gateway's handler writes a childless span\n"
	"                 covering the request beside its forwarded call\n"
	"  -o FILE        write to FILE instead of stdout\n"
	"  --help         show this help\n";

/* What real instrumentation records; --hints gives HINTS instead. */
static const struct recorder REALISTIC = {
	.clock_skew = 5000, .overlap = 5, .span_loss = 0.01,
	.uninstrumented = S_REDIS, .kindless = S_ROUTE,
};
static const struct recorder HINTS = {
	.queue_tags = true, .uninstrumented = -1, .kindless = -1,
};

struct options {
	uint64_t seed;
	uint64_t traces;
	enum format format;
	bool fault, fault_given;
	struct recorder rec;
	const char *uninstrumented, *kindless; /* NULL: the model's default */
	const char *inject;                    /* FAULT:SVC */
	struct topo_options topo;              /* with --system */
	const char *path;
};

static void usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "trsim: %s%s%s\n%s", msg, arg ? ": " : "", arg ? arg : "", USAGE);
	exit(2);
}

static uint64_t parse_u64(const char *opt, const char *s)
{
	char *end;
	if (!s || !*s || *s == '-')
		usage_error("expected a non-negative number after", opt);
	unsigned long long v = strtoull(s, &end, 10);
	if (*end)
		usage_error("bad number", s);
	return (uint64_t)v;
}

static enum format parse_format(const char *s)
{
	if (s && !strcmp(s, "jaeger"))
		return F_JAEGER;
	if (s && !strcmp(s, "zipkin"))
		return F_ZIPKIN;
	if (s && !strcmp(s, "otlp"))
		return F_OTLP;
	usage_error("unknown format", s ? s : "(missing)");
	return F_JAEGER;
}

/* A service of the model by name (sys NULL: the HotROD model), -1 for
 * "none", SVC_ALL for "all" where allowed. */
static int parse_service(const char *opt, const char *s, const struct system *sys,
			 bool all)
{
	if (s && !strcmp(s, "none"))
		return -1;
	if (s && all && !strcmp(s, "all"))
		return SVC_ALL;
	int i = sys ? system_service(sys, s) : -1;
	for (int k = 0; !sys && s && k < S_COUNT; k++)
		if (!strcmp(s, SERVICES[k].name))
			i = k;
	if (i < 0)
		usage_error(opt, s ? s : "(missing)");
	return i;
}

static enum window parse_window(const char *s)
{
	static const char *const NAME[] = { "all", "before", "after" };
	for (int i = 0; s && i < 3; i++)
		if (!strcmp(s, NAME[i]))
			return (enum window)i;
	usage_error("--window takes all, before or after", s);
	return W_ALL;
}

/* --inject FAULT:SVC, once the system is known. */
static void parse_inject(struct topo_options *t, const char *s)
{
	const char *colon = s ? strchr(s, ':') : NULL;
	char kind[16];
	if (!colon || colon - s >= (long)sizeof kind)
		usage_error("--inject takes FAULT:SERVICE", s);
	memcpy(kind, s, (size_t)(colon - s));
	kind[colon - s] = '\0';
	t->fault = fault_by_name(kind);
	if ((int)t->fault <= F_NONE)
		usage_error("unknown fault (delay, cpu, slow, error, throw, down)", kind);
	t->target = parse_service("unknown service for --inject", colon + 1, t->sys, false);
	if (t->target < 0)
		usage_error("--inject needs a service", s);
}

/* Resolves the options that name services, once the model is known. */
static void resolve_services(struct options *op)
{
	const struct system *sys = op->topo.sys;
	if (op->uninstrumented || sys)
		op->rec.uninstrumented = parse_service("unknown service for --uninstrumented",
						       op->uninstrumented ? op->uninstrumented : "none",
						       sys, false);
	if (op->kindless || sys)
		op->rec.kindless = parse_service("unknown service for --kindless",
						 op->kindless ? op->kindless : "none", sys, true);
	if (!sys && (op->inject || op->topo.window != W_ALL || op->topo.wrapper ||
		     op->topo.fault_start))
		usage_error("--inject, --fault-start, --window and --wrapper-spans need --system",
			    NULL);
	if (sys && op->fault_given)
		usage_error("--fault is the HotROD model's batch job; with --system use --inject",
			    NULL);
	if (op->inject)
		parse_inject(&op->topo, op->inject);
	op->topo.seed = op->seed;
	op->topo.traces = op->traces;
	op->topo.rec = op->rec;
}

/* µs of clock skew or overlap; an hour at most, so draws cannot overflow. */
static int64_t parse_us(const char *opt, const char *s)
{
	uint64_t v = parse_u64(opt, s);
	if (v > 3600000000u)
		usage_error("more than an hour (3600000000 µs) after", opt);
	return (int64_t)v;
}

static double parse_chance(const char *opt, const char *s)
{
	char *end;
	double v = s ? strtod(s, &end) : -1;
	if (!s || !*s || *end || !(v >= 0 && v <= 1))
		usage_error("expected a probability from 0 to 1 after", opt);
	return v;
}

static bool parse_onoff(const char *s)
{
	if (s && !strcmp(s, "on"))
		return true;
	if (s && !strcmp(s, "off"))
		return false;
	usage_error("--fault takes on or off", s);
	return true;
}

static struct options parse_args(int argc, char **argv)
{
	struct options op = { .seed = 1, .traces = 100, .format = F_JAEGER, .fault = true,
			      .rec = REALISTIC };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(USAGE, stdout);
			exit(0);
		} else if (!strcmp(a, "--seed")) {
			op.seed = parse_u64(a, v), i++;
		} else if (!strcmp(a, "--traces")) {
			op.traces = parse_u64(a, v), i++;
		} else if (!strcmp(a, "--format")) {
			op.format = parse_format(v), i++;
		} else if (!strcmp(a, "--fault")) {
			op.fault = parse_onoff(v), i++;
			op.fault_given = true;
		} else if (!strcmp(a, "--hints")) {
			op.rec = HINTS;
			op.uninstrumented = op.kindless = "none";
		} else if (!strcmp(a, "--queue-tags")) {
			op.rec.queue_tags = true;
		} else if (!strcmp(a, "--clock-skew")) {
			op.rec.clock_skew = parse_us(a, v), i++;
		} else if (!strcmp(a, "--overlap")) {
			op.rec.overlap = parse_us(a, v), i++;
		} else if (!strcmp(a, "--span-loss")) {
			op.rec.span_loss = parse_chance(a, v), i++;
		} else if (!strcmp(a, "--uninstrumented")) {
			op.uninstrumented = v ? v : "(missing)", i++;
		} else if (!strcmp(a, "--kindless")) {
			op.kindless = v ? v : "(missing)", i++;
		} else if (!strcmp(a, "--no-status")) {
			op.rec.no_status = true;
		} else if (!strcmp(a, "--system")) {
			op.topo.sys = system_by_name(v);
			if (!op.topo.sys)
				usage_error("unknown system (hotrod, shop)", v ? v : "(missing)");
			i++;
		} else if (!strcmp(a, "--inject")) {
			op.inject = v ? v : "", i++;
		} else if (!strcmp(a, "--fault-start")) {
			uint64_t ms = parse_u64(a, v);
			if (ms > 3600000u * 24)
				usage_error("more than a day (86400000 ms) after", a);
			op.topo.fault_start = EPOCH_US + (int64_t)ms * 1000, i++;
		} else if (!strcmp(a, "--window")) {
			op.topo.window = parse_window(v), i++;
		} else if (!strcmp(a, "--wrapper-spans")) {
			op.topo.wrapper = true;
		} else if (!strcmp(a, "-o")) {
			if (!v)
				usage_error("-o needs a file name", NULL);
			op.path = v, i++;
		} else {
			usage_error("unknown option", a);
		}
	}
	resolve_services(&op);
	return op;
}

int main(int argc, char **argv)
{
	struct options op = parse_args(argc, argv);
	FILE *f = op.path ? fopen(op.path, "wb") : stdout;
	if (!f) {
		perror(op.path);
		return 1;
	}
	/* big structures live on the heap, not in globals or on the stack */
	struct out *o = malloc(sizeof *o);
	struct trace *t = malloc(sizeof *t);
	struct pending *q = malloc(sizeof *q);
	struct sim *s = malloc(sizeof *s);
	if (!o || !t || !q || !s)
		die("out of memory");
	o->f = f;
	o->n = 0;
	q->n = 0;
	struct emitter e = { .o = o, .format = op.format };

	if (op.topo.sys) {
		topo_simulate(&op.topo, t, &e);
	} else {
		sim_init(s, op.seed, op.traces, op.fault, op.rec);
		simulate(s, t, q, &e);
	}
	out_flush(o);
	if (fflush(f) != 0 || ferror(f) || (op.path && fclose(f) != 0))
		die("write error");
	free(o);
	free(t);
	free(q);
	free(s);
	return 0;
}
