/*
 * sim.h - what trsim's parts share: the seeded generators, the
 * format-neutral trace, the recorder (what instrumentation keeps) and the
 * emitter (Jaeger, Zipkin or OTLP JSON).
 *
 * trsim.c holds the hand-written HotROD model, the writers and the command
 * line; topo.c simulates a system described by a table (--system), with
 * injected faults (--inject).
 */
#ifndef TRSIM_SIM_H
#define TRSIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* Fixed epoch (2026-01-01T00:00:00Z) so output never depends on the clock. */
#define EPOCH_US 1767225600000000LL

#define HOP_MIN 200             /* one-way network transit, µs */
#define HOP_MAX 1000

#define MAX_SPANS 256
#define MAX_TAGS 10
#define ARENA_BYTES 32768
#define MAX_SVC 32              /* services of one system */
#define MAX_HOSTS 3

/* ---- PRNG: splitmix64, so results never depend on the C library. ---- */

uint64_t splitmix64(uint64_t *s);
uint64_t stream_seed(uint64_t seed, uint64_t stream, uint64_t index);
double rng_unit(uint64_t *s);
int64_t rng_range(uint64_t *s, int64_t lo, int64_t hi);
bool rng_chance(uint64_t *s, double p);
int64_t rng_exp(uint64_t *s, double mean);
int64_t transit(uint64_t *rng);
void die(const char *msg);

/* ---- Services and hosts. ---- */

struct service {
	const char *name;
	int nhosts;
	char host[MAX_HOSTS][24];
	char ip[MAX_HOSTS][16];
	int port;
};

/* ---- In-memory trace: format-neutral, written out by one of the writers. ---- */

/* K_NONE: the instrumentation set no kind (Jaeger: no span.kind tag). */
enum kind { K_INTERNAL, K_SERVER, K_CLIENT, K_PRODUCER, K_CONSUMER, K_NONE };
enum ttype { T_STR, T_BOOL, T_INT, T_FLOAT };

struct tag {
	const char *key;
	enum ttype type;
	const char *s;
	int64_t i;
	double f;
	bool hint;           /* known only to the simulator (queue.wait_us) */
	bool status;         /* a status code: not written with --no-status */
};

struct span {
	uint64_t id;
	int parent;          /* index in the trace, -1 for a root */
	bool follows;        /* reference to parent is FOLLOWS_FROM */
	int svc, host;
	int peer_svc, peer_host; /* remote side of client/producer/consumer, -1 none */
	enum kind kind;
	const char *name;
	int64_t start, dur;
	bool error;
	const char *status_msg; /* OTLP status message of an error span */
	const char *event;   /* at most one log/event (a timeout, an exception) */
	int64_t event_ts;
	const char *ex_type, *ex_msg; /* exception.type and .message of the event */
	int ntags;
	struct tag tags[MAX_TAGS];
	bool lost;           /* never reached the collector: not written */
};

struct trace {
	const struct service *svcs; /* the system's services, by span svc */
	uint64_t id_hi, id_lo;
	int n;
	struct span s[MAX_SPANS];
	size_t used;
	char arena[ARENA_BYTES]; /* strings built for this trace's tags */
};

PRINTF_LIKE(2, 3)
const char *strf(struct trace *t, const char *fmt, ...);
struct tag *new_tag(struct span *sp, const char *key, enum ttype type);
void tag_s(struct span *sp, const char *key, const char *v);
void tag_i(struct span *sp, const char *key, int64_t v);
int add_span(struct trace *t, uint64_t *rng, int parent, int svc, int host,
	     enum kind kind, const char *name, int64_t start);
void finish(struct trace *t, int i, int64_t end);
void set_peer(struct trace *t, struct span *sp, int svc, int host);
void new_trace(struct trace *t, uint64_t *rng, const struct service *svcs);

/* ---- Recorder: what real instrumentation keeps of a trace. ---- */

#define SVC_ALL (-2) /* --kindless all */

struct recorder {
	bool queue_tags;        /* write queue.wait_us (the simulator's hint) */
	bool no_status;         /* record no error, status code or exception */
	int64_t clock_skew;     /* each host's clock is off by [-this, this] µs */
	int64_t overlap;        /* a span's end is taken 0..this µs late */
	double span_loss;       /* chance that a span never reaches the collector */
	int uninstrumented;     /* service that records no spans, -1 none */
	int kindless;           /* service whose spans carry no kind, -1 none, SVC_ALL */
	int64_t clock[MAX_SVC][MAX_HOSTS]; /* offset of each host's clock, µs */
};

void recorder_init(struct recorder *r, uint64_t seed, int nsvc);
void record(const struct recorder *r, struct trace *t, uint64_t rng);

/* ---- Emitter: document framing around the traces. ---- */

enum format { F_JAEGER, F_ZIPKIN, F_OTLP };

struct out;

struct emitter {
	struct out *o;
	enum format format;
	bool first; /* nothing written inside the top-level array yet */
};

void emit_begin(struct emitter *e);
void emit_end(struct emitter *e);
void emit_trace(struct emitter *e, const struct trace *t);

/* ---- Table-driven systems with injected faults (topo.c). ---- */

enum fault_kind { F_NONE, F_DELAY, F_CPU, F_SLOW, F_ERROR, F_THROW, F_DOWN };

/* Which traces are written: all, those whose root starts before the fault
 * (the baseline) or those from its start on (the incident). */
enum window { W_ALL, W_BEFORE, W_AFTER };

struct topo_options {
	const struct system *sys;
	uint64_t seed, traces;
	enum fault_kind fault;
	int target;            /* service the fault acts on */
	int64_t fault_start;   /* µs after the epoch */
	enum window window;
	bool wrapper;          /* the gateway's handler writes a wrapper span */
	struct recorder rec;
};

const struct system *system_by_name(const char *name);
const struct service *system_services(const struct system *sys, int *n);
int system_service(const struct system *sys, const char *name);
enum fault_kind fault_by_name(const char *name);
void topo_simulate(const struct topo_options *op, struct trace *t, struct emitter *e);

#endif
