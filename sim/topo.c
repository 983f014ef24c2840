/*
 * topo.c - systems described by a table (--system), and faults injected
 * into them (--inject).
 *
 * A system is a list of services and a list of operations.  An operation
 * belongs to a service, does some work of its own, and makes calls in
 * steps: a step calls one operation COUNT times, one after the other or all
 * at once.  Operations with a weight are entry points: each request picks
 * one.  A request is simulated message by message, so a fault acts where it
 * would act in a real system:
 *
 *   delay  every message to or from the target's process takes longer
 *   cpu    the target's own work is slower, and so is its sending and
 *          reading of messages
 *   slow   the target's own work is slower
 *   error  half of the target's requests return an error
 *   throw  half of the target's requests throw an exception
 *   down   connections to the target are refused: no server span
 *
 * A handler whose call failed fails itself half of the time, so errors
 * travel up the call tree.  Nothing the fault does is written as a tag:
 * the trace shows only what instrumentation records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

enum proto { P_HTTP, P_GRPC, P_SQL, P_REDIS };

#define MAX_STEPS 6
#define MAX_OPS 48
#define MAX_DEPTH 16

struct step {
	const char *op;      /* id of the operation called */
	int count;           /* calls made */
	bool parallel;       /* all at once, or one after the other */
};

struct op {
	const char *id;      /* how steps name it */
	const char *svc;     /* service that runs it */
	const char *name;    /* span name, client and server side */
	enum proto proto;
	const char *stmt;    /* db.statement of SQL and redis operations */
	int64_t work_min, work_max; /* µs of the handler's own work */
	int weight;          /* > 0: an entry point, picked with this weight */
	struct step steps[MAX_STEPS];
};

struct svc_def {
	const char *name;
	int nhosts;
	int port;
	const char *db;      /* db.system of a database or cache, else NULL */
};

struct system {
	const char *name;
	const struct svc_def *svcs;
	int nsvc;
	const struct op *ops;
	int nops;
	double arrival_mean; /* µs between requests, exponential */
};

/* ------------------------------------------------------------------ */
/* The systems.  Each has an API gateway at its edge: its handler       */
/* forwards the request in one call.                                    */
/* ------------------------------------------------------------------ */

#define GW_MIN 50     /* the gateway's own work per request, µs */
#define GW_MAX 200

/* HotROD's call graph without its batch job, behind an API gateway: one
 * request type, 4 services deep. */
static const struct svc_def HOTROD_SVCS[] = {
	{ "gateway", 2, 443, NULL }, { "frontend", 2, 8080, NULL }, { "customer", 2, 8081, NULL },
	{ "mysql", 1, 3306, "mysql" }, { "driver", 2, 8082, NULL },
	{ "redis", 1, 6379, "redis" }, { "route", 3, 8083, NULL },
};

static const struct op HOTROD_OPS[] = {
	{ "edge", "gateway", "HTTP GET /dispatch", P_HTTP, NULL, GW_MIN, GW_MAX, 1,
	  { { "dispatch", 1, false } } },
	{ "dispatch", "frontend", "HTTP GET /dispatch", P_HTTP, NULL, 300, 1500, 0,
	  { { "customer", 1, false }, { "driver", 1, false }, { "route", 10, true } } },
	{ "customer", "customer", "HTTP GET /customer", P_HTTP, NULL, 20000, 60000, 0,
	  { { "sql", 1, false } } },
	{ "sql", "mysql", "SQL SELECT", P_SQL, "SELECT * FROM customer WHERE customer_id=?",
	  5000, 15000, 0, { { 0 } } },
	{ "driver", "driver", "/driver.DriverService/FindNearest", P_GRPC, NULL, 300, 1500, 0,
	  { { "ids", 1, false }, { "get", 10, false } } },
	{ "ids", "redis", "FindDriverIDs", P_REDIS, "GEORADIUS drivers ? 5 km",
	  10000, 30000, 0, { { 0 } } },
	{ "get", "redis", "GetDriver", P_REDIS, "HGETALL driver:?", 5000, 15000, 0, { { 0 } } },
	{ "route", "route", "HTTP GET /route", P_HTTP, NULL, 20000, 60000, 0, { { 0 } } },
};

/* An online shop: 24 services, three request types, calls up to 6 deep
 * (7 services), shared callees (pricing, inventory, feature-store,
 * postgres), fan-out. */
static const struct svc_def SHOP_SVCS[] = {
	{ "gateway", 2, 443, NULL }, { "web", 2, 8080, NULL }, { "auth", 2, 8081, NULL },
	{ "session-cache", 1, 6379, "redis" }, { "postgres", 1, 5432, "postgresql" },
	{ "catalog", 3, 8082, NULL }, { "search", 2, 8083, NULL },
	{ "search-index", 2, 9200, NULL }, { "pricing", 2, 8084, NULL },
	{ "currency", 1, 8085, NULL }, { "inventory", 2, 8086, NULL },
	{ "recommend", 2, 8087, NULL }, { "feature-store", 1, 6380, "redis" },
	{ "cart", 2, 8088, NULL }, { "cart-cache", 1, 6381, "redis" },
	{ "checkout", 2, 8089, NULL }, { "payment", 2, 8090, NULL },
	{ "fraud", 2, 8091, NULL }, { "risk-model", 2, 8092, NULL },
	{ "ledger", 2, 8093, NULL }, { "shipping", 2, 8094, NULL },
	{ "geo", 2, 8095, NULL }, { "notification", 1, 8096, NULL },
	{ "email", 1, 8097, NULL },
};

static const struct op SHOP_OPS[] = {
	{ "edge-browse", "gateway", "HTTP GET /browse", P_HTTP, NULL, GW_MIN, GW_MAX, 5,
	  { { "browse", 1, false } } },
	{ "edge-add", "gateway", "HTTP POST /cart", P_HTTP, NULL, GW_MIN, GW_MAX, 3,
	  { { "add", 1, false } } },
	{ "edge-buy", "gateway", "HTTP POST /checkout", P_HTTP, NULL, GW_MIN, GW_MAX, 2,
	  { { "buy", 1, false } } },
	{ "browse", "web", "HTTP GET /browse", P_HTTP, NULL, 300, 1200, 0,
	  { { "auth", 1, false }, { "list", 1, false }, { "recommend", 1, false } } },
	{ "add", "web", "HTTP POST /cart", P_HTTP, NULL, 300, 1200, 0,
	  { { "auth", 1, false }, { "cart", 1, false } } },
	{ "buy", "web", "HTTP POST /checkout", P_HTTP, NULL, 300, 1200, 0,
	  { { "auth", 1, false }, { "order", 1, false } } },
	{ "auth", "auth", "/auth.Auth/Check", P_GRPC, NULL, 1000, 3000, 0,
	  { { "session", 1, false }, { "users", 1, false } } },
	{ "session", "session-cache", "GET", P_REDIS, "GET session:?", 200, 800, 0, { { 0 } } },
	{ "users", "postgres", "SELECT users", P_SQL, "SELECT * FROM users WHERE id=$1",
	  1000, 4000, 0, { { 0 } } },
	{ "list", "catalog", "HTTP GET /products", P_HTTP, NULL, 2000, 6000, 0,
	  { { "query", 1, false }, { "quote", 4, true }, { "check", 4, true } } },
	{ "item", "catalog", "HTTP GET /products/{id}", P_HTTP, NULL, 1000, 3000, 0,
	  { { "quote", 1, false } } },
	{ "query", "search", "/search.Search/Query", P_GRPC, NULL, 3000, 8000, 0,
	  { { "lookup", 1, false } } },
	{ "lookup", "search-index", "HTTP GET /_search", P_HTTP, NULL, 2000, 6000, 0, { { 0 } } },
	{ "quote", "pricing", "/pricing.Pricing/Quote", P_GRPC, NULL, 1000, 3000, 0,
	  { { "rate", 1, false } } },
	{ "rate", "currency", "HTTP GET /rates", P_HTTP, NULL, 1000, 2000, 0, { { 0 } } },
	{ "check", "inventory", "/inventory.Inventory/Check", P_GRPC, NULL, 1000, 3000, 0,
	  { { "stock", 1, false } } },
	{ "reserve", "inventory", "/inventory.Inventory/Reserve", P_GRPC, NULL, 1000, 3000, 0,
	  { { "take", 1, false } } },
	{ "stock", "postgres", "SELECT stock", P_SQL, "SELECT qty FROM stock WHERE sku=$1",
	  1000, 4000, 0, { { 0 } } },
	{ "take", "postgres", "UPDATE stock", P_SQL, "UPDATE stock SET qty=qty-$1 WHERE sku=$2",
	  1000, 4000, 0, { { 0 } } },
	{ "recommend", "recommend", "HTTP GET /recommendations", P_HTTP, NULL, 3000, 8000, 0,
	  { { "features", 1, false }, { "item", 3, true } } },
	{ "features", "feature-store", "HGETALL", P_REDIS, "HGETALL features:?", 500, 2000, 0,
	  { { 0 } } },
	{ "cart", "cart", "HTTP POST /cart/items", P_HTTP, NULL, 2000, 5000, 0,
	  { { "cart-get", 1, false }, { "quote", 1, false }, { "check", 1, false },
	    { "cart-set", 1, false } } },
	{ "cart-get", "cart-cache", "GET", P_REDIS, "GET cart:?", 200, 800, 0, { { 0 } } },
	{ "cart-set", "cart-cache", "SET", P_REDIS, "SET cart:? ?", 200, 800, 0, { { 0 } } },
	{ "order", "checkout", "HTTP POST /orders", P_HTTP, NULL, 3000, 8000, 0,
	  { { "cart-get", 1, false }, { "quote", 2, true }, { "charge", 1, false },
	    { "ship", 1, false }, { "insert", 1, false }, { "notify", 1, false } } },
	{ "insert", "postgres", "INSERT orders", P_SQL, "INSERT INTO orders VALUES ($1, $2, $3)",
	  1000, 4000, 0, { { 0 } } },
	{ "charge", "payment", "/payment.Payment/Charge", P_GRPC, NULL, 3000, 8000, 0,
	  { { "score", 1, false }, { "post", 1, false } } },
	{ "score", "fraud", "/fraud.Fraud/Score", P_GRPC, NULL, 2000, 5000, 0,
	  { { "predict", 1, false } } },
	{ "predict", "risk-model", "HTTP POST /predict", P_HTTP, NULL, 5000, 15000, 0,
	  { { "features", 1, false } } },
	{ "post", "ledger", "/ledger.Ledger/Post", P_GRPC, NULL, 1000, 3000, 0,
	  { { "entry", 1, false } } },
	{ "entry", "postgres", "INSERT ledger", P_SQL, "INSERT INTO ledger VALUES ($1, $2)",
	  1000, 4000, 0, { { 0 } } },
	{ "ship", "shipping", "HTTP POST /shipments", P_HTTP, NULL, 2000, 5000, 0,
	  { { "route", 1, false }, { "reserve", 1, false } } },
	{ "route", "geo", "/geo.Geo/Route", P_GRPC, NULL, 3000, 10000, 0, { { 0 } } },
	{ "notify", "notification", "/notify.Notify/Send", P_GRPC, NULL, 1000, 2000, 0,
	  { { "send", 1, false } } },
	{ "send", "email", "HTTP POST /send", P_HTTP, NULL, 2000, 6000, 0, { { 0 } } },
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const struct system SYSTEMS[] = {
	{ "hotrod", HOTROD_SVCS, COUNT(HOTROD_SVCS), HOTROD_OPS, COUNT(HOTROD_OPS), 50000 },
	{ "shop", SHOP_SVCS, COUNT(SHOP_SVCS), SHOP_OPS, COUNT(SHOP_OPS), 50000 },
};

const struct system *system_by_name(const char *name)
{
	for (int i = 0; name && i < COUNT(SYSTEMS); i++)
		if (!strcmp(name, SYSTEMS[i].name))
			return &SYSTEMS[i];
	return NULL;
}

int system_service(const struct system *sys, const char *name)
{
	for (int i = 0; name && i < sys->nsvc; i++)
		if (!strcmp(name, sys->svcs[i].name))
			return i;
	return -1;
}

/* ------------------------------------------------------------------ */
/* Faults.  Their sizes are fixed here, one line each.                  */
/* ------------------------------------------------------------------ */

static const char *const FAULT_NAME[] = {
	[F_NONE] = "none", [F_DELAY] = "delay", [F_CPU] = "cpu", [F_SLOW] = "slow",
	[F_ERROR] = "error", [F_THROW] = "throw", [F_DOWN] = "down",
};

enum fault_kind fault_by_name(const char *name)
{
	for (int i = 0; name && i < COUNT(FAULT_NAME); i++)
		if (!strcmp(name, FAULT_NAME[i]))
			return (enum fault_kind)i;
	return (enum fault_kind)-1;
}

#define DELAY_MIN 10000        /* delay: added to each message, µs */
#define DELAY_MAX 12000
#define CPU_FACTOR 4           /* cpu: own work this many times slower ... */
#define CPU_MSG_MIN 1000       /* ... and each message sent or read costs this more */
#define CPU_MSG_MAX 3000
#define SLOW_MIN 20000         /* slow: own work this much longer */
#define SLOW_MAX 40000
#define FAIL_P 0.5             /* error, throw: share of the target's requests that fail */
#define BASE_FAIL_P 0.002      /* any handler fails now and then, fault or not */
#define PROPAGATE_P 0.5        /* a handler whose call failed fails too */
#define MSG_MIN 20             /* sending or reading a message, µs */
#define MSG_MAX 100

/* ------------------------------------------------------------------ */
/* A system made ready to run: services with hosts, steps resolved.     */
/* ------------------------------------------------------------------ */

struct topo {
	const struct system *sys;
	struct service svcs[MAX_SVC];
	int op_svc[MAX_OPS];
	int step_op[MAX_OPS][MAX_STEPS];
	int total_weight;
};

static int op_index(const struct system *sys, const char *id)
{
	for (int i = 0; i < sys->nops; i++)
		if (!strcmp(id, sys->ops[i].id))
			return i;
	die("system table: a step names an unknown operation");
	return -1;
}

static void topo_init(struct topo *tp, const struct system *sys)
{
	if (sys->nsvc > MAX_SVC || sys->nops > MAX_OPS)
		die("system table too large");
	*tp = (struct topo){ .sys = sys };
	for (int i = 0; i < sys->nsvc; i++) {
		const struct svc_def *d = &sys->svcs[i];
		struct service *sv = &tp->svcs[i];
		sv->name = d->name;
		sv->nhosts = d->nhosts;
		sv->port = d->port;
		for (int h = 0; h < d->nhosts && h < MAX_HOSTS; h++) {
			snprintf(sv->host[h], sizeof sv->host[h], "%.20s-%c", d->name, '0' + h);
			snprintf(sv->ip[h], sizeof sv->ip[h], "10.1.%u.1%c", (unsigned)(i + 1) & 255u, '0' + h);
		}
	}
	for (int i = 0; i < sys->nops; i++) {
		const struct op *o = &sys->ops[i];
		tp->op_svc[i] = system_service(sys, o->svc);
		if (tp->op_svc[i] < 0)
			die("system table: an operation names an unknown service");
		tp->total_weight += o->weight;
		for (int k = 0; k < MAX_STEPS; k++)
			tp->step_op[i][k] = o->steps[k].op ? op_index(sys, o->steps[k].op) : -1;
	}
}

/* ------------------------------------------------------------------ */
/* One request, simulated message by message.                           */
/* ------------------------------------------------------------------ */

/* A handler at work: the server span of one operation. */
struct frame {
	int op, span;
	int step, rep;       /* next call: step, and calls of it made */
	int64_t now;         /* the handler's time */
	int64_t group_start, group_end; /* a parallel step's calls */
	int64_t post;        /* own work left for after the calls */
	bool failed;         /* one of its calls failed */
};

struct run {
	const struct topo *tp;
	const struct topo_options *op;
	struct trace *t;
	uint64_t *rng;
};

static bool faulty(const struct run *r, enum fault_kind k, int svc, int64_t at)
{
	return r->op->fault == k && svc == r->op->target && at >= r->op->fault_start;
}

/* One message from one service to another, sent at `at`. */
static int64_t hop(const struct run *r, int from, int to, int64_t at)
{
	int64_t d = transit(r->rng);
	int64_t extra = rng_range(r->rng, DELAY_MIN, DELAY_MAX);
	if (faulty(r, F_DELAY, from, at) || faulty(r, F_DELAY, to, at))
		d += extra;
	return d;
}

/* Sending or reading one message in service svc. */
static int64_t msg_cost(const struct run *r, int svc, int64_t at)
{
	int64_t d = rng_range(r->rng, MSG_MIN, MSG_MAX);
	int64_t extra = rng_range(r->rng, CPU_MSG_MIN, CPU_MSG_MAX);
	return faulty(r, F_CPU, svc, at) ? d + extra : d;
}

/* The own work of operation op, started at `at`. */
static int64_t own_work(const struct run *r, int op, int64_t at)
{
	const struct op *o = &r->tp->sys->ops[op];
	int svc = r->tp->op_svc[op];
	int64_t w = rng_range(r->rng, o->work_min, o->work_max);
	int64_t slow = rng_range(r->rng, SLOW_MIN, SLOW_MAX);
	if (faulty(r, F_CPU, svc, at))
		w *= CPU_FACTOR;
	if (faulty(r, F_SLOW, svc, at))
		w += slow;
	return w;
}

static void proto_tags(struct run *r, struct span *sp, int op, bool client)
{
	const struct op *o = &r->tp->sys->ops[op];
	const struct service *sv = &r->tp->svcs[r->tp->op_svc[op]];
	const char *db = r->tp->sys->svcs[r->tp->op_svc[op]].db;
	const char *path = strchr(o->name, '/');
	switch (o->proto) {
	case P_HTTP:
		tag_s(sp, "component", "net/http");
		tag_s(sp, "http.method", strf(r->t, "%.*s", (int)(path - o->name - 6), o->name + 5));
		tag_s(sp, "http.url", client ? strf(r->t, "http://%s:%d%s", sv->name, sv->port, path)
					     : path);
		break;
	case P_GRPC:
		tag_s(sp, "component", "gRPC");
		tag_s(sp, "rpc.system", "grpc");
		tag_s(sp, "rpc.service", strf(r->t, "%.*s", (int)(strrchr(o->name, '/') - o->name - 1),
					      o->name + 1));
		tag_s(sp, "rpc.method", strrchr(o->name, '/') + 1);
		break;
	case P_SQL:
	case P_REDIS:
		tag_s(sp, "component", client ? (o->proto == P_SQL ? "sql" : "redis") : db);
		tag_s(sp, "db.system", db);
		tag_s(sp, "db.statement", o->stmt);
		break;
	}
}

/* The status code a response carries, as its protocol writes it. */
static void status_tag(struct span *sp, enum proto proto, bool failed)
{
	struct tag *g = NULL;
	if (proto == P_HTTP)
		(g = new_tag(sp, "http.status_code", T_INT))->i = failed ? 500 : 200;
	else if (proto == P_GRPC)
		(g = new_tag(sp, "rpc.grpc.status_code", T_INT))->i = failed ? 2 : 0;
	if (g)
		g->status = true;
}

static void fail_span(struct span *sp, const char *msg)
{
	sp->error = true;
	sp->status_msg = msg;
}

/* Starts handler op in span `span` at time `at`. */
static struct frame frame_open(struct run *r, int op, int span, int64_t at)
{
	int64_t w = own_work(r, op, at);
	bool leaf = r->tp->step_op[op][0] < 0;
	int64_t pre = leaf ? w : w * rng_range(r->rng, 30, 70) / 100;
	return (struct frame){ .op = op, .span = span, .now = at + pre, .post = w - pre };
}

/* A call from handler f to operation callee at `at`: the client span and,
 * unless the callee is down, the callee's handler (returned in *child). */
static bool call_open(struct run *r, struct frame *f, int callee, int64_t at,
		      struct frame *child, int64_t *client_end)
{
	struct trace *t = r->t;
	const struct op *o = &r->tp->sys->ops[callee];
	int from = t->s[f->span].svc, to = r->tp->op_svc[callee];
	int c = add_span(t, r->rng, f->span, from, t->s[f->span].host, K_CLIENT, o->name, at);
	int host = (int)rng_range(r->rng, 0, r->tp->svcs[to].nhosts - 1);
	set_peer(t, &t->s[c], to, host);
	proto_tags(r, &t->s[c], callee, true);
	int64_t sent = at + msg_cost(r, from, at);
	int64_t arrive = sent + hop(r, from, to, sent);
	if (faulty(r, F_DOWN, to, sent)) {
		/* the refusal comes back one hop later; nothing runs on the callee */
		int64_t end = arrive + hop(r, to, from, arrive) + msg_cost(r, from, arrive);
		struct span *sp = &t->s[c];
		fail_span(sp, "connection refused");
		sp->event = "exception";
		sp->event_ts = end;
		sp->ex_type = "ConnectionRefusedError";
		sp->ex_msg = strf(t, "dial tcp %s:%d: connect: connection refused",
				  r->tp->svcs[to].ip[host], r->tp->svcs[to].port);
		finish(t, c, end);
		f->failed = true;
		*client_end = end;
		return false;
	}
	int s = add_span(t, r->rng, c, to, host, K_SERVER, o->name, arrive);
	proto_tags(r, &t->s[s], callee, false);
	*child = frame_open(r, callee, s, arrive);
	return true;
}

/* Ends handler f: its own remaining work, then whether it failed. */
static int64_t frame_close(struct run *r, struct frame *f)
{
	struct span *sp = &r->t->s[f->span];
	const struct op *o = &r->tp->sys->ops[f->op];
	int64_t end = f->now + f->post;
	bool base = rng_chance(r->rng, BASE_FAIL_P);
	bool hit = rng_chance(r->rng, FAIL_P);
	bool up = rng_chance(r->rng, PROPAGATE_P);
	bool error = hit && faulty(r, F_ERROR, sp->svc, sp->start);
	bool thrown = hit && faulty(r, F_THROW, sp->svc, sp->start);
	bool failed = base || error || thrown || (f->failed && up);
	status_tag(sp, o->proto, failed);
	if (failed)
		fail_span(sp, thrown ? "exception" : "internal error");
	if (thrown) {
		sp->event = "exception";
		sp->event_ts = end - rng_range(r->rng, 10, 100);
		sp->ex_type = "IllegalStateException";
		sp->ex_msg = strf(r->t, "%s: unexpected state", o->name);
	}
	finish(r->t, f->span, end);
	return end;
}

/* The caller's side of a finished call: the reply travels back and is read. */
static void call_close(struct run *r, struct frame *parent, const struct frame *child,
		       int64_t server_end)
{
	struct trace *t = r->t;
	int c = t->s[child->span].parent;
	int from = t->s[child->span].svc, to = t->s[parent->span].svc;
	int64_t got = server_end + hop(r, from, to, server_end);
	int64_t end = got + msg_cost(r, to, got);
	const struct op *o = &r->tp->sys->ops[child->op];
	bool failed = t->s[child->span].error;
	status_tag(&t->s[c], o->proto, failed);
	if (failed) {
		fail_span(&t->s[c], "error response");
		parent->failed = true;
	}
	finish(t, c, end);
	if (r->tp->sys->ops[parent->op].steps[parent->step].parallel) {
		if (end > parent->group_end)
			parent->group_end = end;
	} else {
		parent->now = end + rng_range(r->rng, 50, 300);
	}
}

/* The next call of handler f, or -1 when it has made them all. */
static int next_call(struct run *r, struct frame *f, int64_t *at)
{
	const struct op *o = &r->tp->sys->ops[f->op];
	while (f->step < MAX_STEPS && r->tp->step_op[f->op][f->step] >= 0) {
		const struct step *st = &o->steps[f->step];
		if (f->rep == 0)
			f->group_start = f->group_end = f->now;
		if (f->rep < st->count) {
			f->rep++;
			if (!st->parallel) {
				*at = f->now;
				return r->tp->step_op[f->op][f->step];
			}
			f->group_start += rng_range(r->rng, 20, 200);
			*at = f->group_start;
			return r->tp->step_op[f->op][f->step];
		}
		if (st->parallel)
			f->now = f->group_end + rng_range(r->rng, 50, 300);
		f->step++;
		f->rep = 0;
	}
	return -1;
}

/* A refused call ends at once; the handler goes on. */
static void call_refused(struct run *r, struct frame *f, int64_t end)
{
	if (r->tp->sys->ops[f->op].steps[f->step].parallel) {
		if (end > f->group_end)
			f->group_end = end;
	} else {
		f->now = end + rng_range(r->rng, 50, 300);
	}
}

/* The gateway's handler span (--wrapper-spans): the handler runs from just
 * after the request is read to just before the reply is written, and the
 * forwarded call inside it; but the call's client span is the root's
 * child, beside the handler's, not under it. */
static void wrapper_span(struct run *r, int root)
{
	struct trace *t = r->t;
	const struct span *rs = &t->s[root];
	int64_t start = rs->start + rng_range(r->rng, 10, 50);
	int64_t end = rs->start + rs->dur - rng_range(r->rng, 10, 50);
	int w = add_span(t, r->rng, root, rs->svc, rs->host, K_INTERNAL,
			 strf(t, "%s handler", rs->name), start);
	finish(t, w, end);
}

static int pick_entry(const struct run *r)
{
	int64_t x = rng_range(r->rng, 1, r->tp->total_weight);
	for (int i = 0; i < r->tp->sys->nops; i++) {
		x -= r->tp->sys->ops[i].weight;
		if (x <= 0)
			return i;
	}
	return 0;
}

/* Builds one request's trace; no recursion: an explicit stack of handlers. */
static void build(struct run *r, int64_t arrival)
{
	struct trace *t = r->t;
	struct frame stack[MAX_DEPTH];
	new_trace(t, r->rng, r->tp->svcs);
	int entry = pick_entry(r);
	int svc = r->tp->op_svc[entry];
	int host = (int)rng_range(r->rng, 0, r->tp->svcs[svc].nhosts - 1);
	int root = add_span(t, r->rng, -1, svc, host, K_SERVER, r->tp->sys->ops[entry].name, arrival);
	proto_tags(r, &t->s[root], entry, false);
	int depth = 0;
	stack[depth++] = frame_open(r, entry, root, arrival);
	while (depth > 0) {
		struct frame *f = &stack[depth - 1];
		int64_t at, end;
		int callee = next_call(r, f, &at);
		if (callee >= 0) {
			if (depth == MAX_DEPTH)
				die("system table: calls nested too deep");
			if (call_open(r, f, callee, at, &stack[depth], &end))
				depth++;
			else
				call_refused(r, f, end);
			continue;
		}
		end = frame_close(r, f);
		if (--depth > 0)
			call_close(r, &stack[depth - 1], f, end);
	}
	if (r->op->wrapper)
		wrapper_span(r, root);
}

static bool in_window(const struct topo_options *op, int64_t arrival)
{
	if (op->window == W_BEFORE)
		return arrival < op->fault_start;
	if (op->window == W_AFTER)
		return arrival >= op->fault_start;
	return true;
}

void topo_simulate(const struct topo_options *op, struct trace *t, struct emitter *e)
{
	struct topo *tp = malloc(sizeof *tp);
	if (!tp)
		die("out of memory");
	topo_init(tp, op->sys);
	struct recorder rec = op->rec;
	recorder_init(&rec, op->seed, op->sys->nsvc);
	uint64_t arrivals = stream_seed(op->seed, 12, 0);
	int64_t arrival = EPOCH_US;
	emit_begin(e);
	for (uint64_t i = 0; i < op->traces; i++) {
		arrival += rng_exp(&arrivals, op->sys->arrival_mean);
		uint64_t rng = stream_seed(op->seed, 10, i);
		struct run r = { .tp = tp, .op = op, .t = t, .rng = &rng };
		build(&r, arrival);
		if (!in_window(op, arrival))
			continue;
		record(&rec, t, stream_seed(op->seed, 11, i));
		emit_trace(e, t);
	}
	emit_end(e);
	free(tp);
}
