/* halo.c - contiguous shards with a halo (halo.h). */
#include "core/halo.h"
#include "core/format.h"
#include "core/io.h"
#include "core/args.h"
#include "core/shard.h"
#include "core/util.h"
#include "core/hash.h"

#include <stdlib.h>
#include <string.h>

static int
tag_is_halo(const char *s, size_t n)
{
	static const char tag[] = TR_HALO_TAG "=true";

	return n == sizeof tag - 1 && memcmp(s, tag, n) == 0;
}

int
tr_trace_is_halo(const tr_trace *t)
{
	for (uint32_t i = 0; i < t->ntags; i++)
		if (strcmp(t->tags[i].key, TR_HALO_TAG) == 0 && strcmp(t->tags[i].val, "true") == 0)
			return 1;
	return 0;
}

int
tr_line_is_halo(const char *line, size_t len)
{
	const char *end = line + len, *p = line;

	while (p < end) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));
		const char *stop = tab ? tab : end;

		if (tag_is_halo(p, (size_t)(stop - p)))
			return 1;
		p = stop + 1;
	}
	return 0;
}

/* The traces (T records) of path. */
static size_t
count_traces(const char *path)
{
	tr_input *in = tr_input_open(path);
	size_t len, n = 0;
	char *line;

	while ((line = tr_input_line(in, &len)))
		n += len > 1 && line[0] == 'T' && line[1] == '\t';
	tr_input_close(in);
	return n;
}

/* The first trace of shard k of n over total traces. */
static size_t
shard_start(size_t total, unsigned n, unsigned k)
{
	size_t base = total / n, extra = total % n;

	return k * base + (k < extra ? k : extra);
}

/* An input with no trace (or, for time shards, no timed span): said, as
 * every reader says it; no shard is written. */
static int
no_trace(const char *path)
{
	tr_warn("%s: no trace in the input (--allow-empty accepts that)", tr_path_name(path));
	return -1;
}

int
tr_split_halo(const char *path, unsigned n, size_t halo, const char *prefix, int zstd,
	      int allow_empty)
{
	size_t total = count_traces(path), len, g = 0;

	if (!total && !allow_empty)
		return no_trace(path);
	int was_halo = 0;	/* the current trace was a halo trace already */
	size_t *lo = xcalloc(n + 1, sizeof *lo);
	tr_output **out = xcalloc(n, sizeof *out);
	tr_input *in = tr_input_open(path);
	strbuf name = {0};
	char *line;

	for (unsigned k = 0; k <= n; k++)
		lo[k] = shard_start(total, n, k);
	for (unsigned k = 0; k < n; k++) {
		sb_clear(&name);
		sb_addf(&name, "%s%u.tr%s", prefix, k, zstd ? ".zst" : "");
		out[k] = tr_output_open(name.s, zstd ? 3 : 0);
		tr_output_puts(out[k], TR_FORMAT_HEADER "\n");
	}
	while ((line = tr_input_line(in, &len))) {
		int is_t = len > 1 && line[0] == 'T' && line[1] == '\t';

		if (len == sizeof TR_FORMAT_HEADER - 1 && memcmp(line, TR_FORMAT_HEADER, len) == 0)
			continue;
		g += is_t;
		if (is_t)	/* a shard cut again: its halo stays halo, tagged once */
			was_halo = tr_line_is_halo(line, len);
		size_t at = g ? g - 1 : 0;	/* the trace this line is of */
		for (unsigned k = 0; k < n; k++) {
			int own = !was_halo && at >= lo[k] && at < lo[k + 1];

			if (!own && (!g || at + halo < lo[k] || at >= lo[k + 1] + halo ||
				     lo[k] == lo[k + 1]))
				continue;
			tr_output_write(out[k], line, len);
			if (is_t && !own && !was_halo)
				tr_output_puts(out[k], "\t" TR_HALO_TAG "=true");
			tr_output_puts(out[k], "\n");
		}
	}
	tr_input_close(in);
	for (unsigned k = 0; k < n; k++)
		tr_output_close(out[k]);
	sb_free(&name);
	free(out);
	free(lo);
	return 0;
}

/* The starts of a file's traces, by id, and the span starts' range. */
typedef struct trace_starts {
	strmap start;		/* trace id (as written) -> its earliest span's start */
	arena ids;
	int64_t lo, hi;		/* over every timed span; 0 and 0 when none */
	int64_t end;		/* the latest end of a span: the last shard owns up to it */
	int any;
} trace_starts;

/* Field k (0: the record type) of line, its length in *n; NULL when the
 * line has fewer fields. */
static const char *
field(const char *line, size_t len, unsigned k, size_t *n)
{
	const char *p = line, *end = line + len;

	for (; k; k--) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));

		if (!tab)
			return NULL;
		p = tab + 1;
	}
	const char *tab = memchr(p, '\t', (size_t)(end - p));

	*n = (size_t)((tab ? tab : end) - p);
	return p;
}

/* Pass one: every S record's start, the least of each trace's kept. */
static void
read_starts(const char *path, trace_starts *ts)
{
	tr_input *in = tr_input_open(path);
	size_t len, idlen = 0, slen = 0;
	char *line, num[32];

	while ((line = tr_input_line(in, &len))) {
		const char *id = field(line, len, 1, &idlen), *s = field(line, len, 4, &slen);
		char *end;
		int added;

		if (len < 2 || line[0] != 'S' || line[1] != '\t' || !s || !slen)
			continue;
		memcpy(num, s, slen < sizeof num ? slen : sizeof num - 1);
		num[slen < sizeof num ? slen : sizeof num - 1] = 0;
		long long t = strtoll(num, &end, 10);
		if (*end || slen >= sizeof num || t < -TR_TIME_MAX || t > TR_TIME_MAX)
			tr_die(TR_EXIT_INPUT,
			       "%s:%llu: an S record's start is not a whole number of microseconds: %.40s",
			       tr_path_name(path), (unsigned long long)tr_input_lineno(in), num);
		strmap_slot *slot = strmap_put_copy(&ts->start, &ts->ids, id, idlen, &added);
		if (added || t < slot->val)
			slot->val = t;
		ts->lo = ts->any && ts->lo < t ? ts->lo : t;
		ts->hi = ts->any && ts->hi > t ? ts->hi : t;
		ts->end = ts->any && ts->end > t ? ts->end : t;
		ts->any = 1;
		size_t dlen = 0;
		const char *d = field(line, len, 5, &dlen);
		int64_t dur;

		if (d && parse_i64(d, dlen, &dur) == 0 && dur > 0 && dur <= TR_TIME_MAX &&
		    t + dur > ts->end)	/* a long-lived span's windows come after the last start */
			ts->end = t + dur;
	}
	tr_input_close(in);
}

/* a + b and a * b held within ±INT64_MAX: a bound past every time is as
 * good as any other. */
static int64_t
sat_add(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : -INT64_MAX) : r;
}

static int64_t
sat_mul(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Shard k's own windows [from[k], from[k + 1]): n even runs of whole
 * windows from the window of the first start past the last. */
static void
own_ranges(const trace_starts *ts, unsigned n, int64_t window, int64_t *from)
{
	int64_t first = ts->lo / window * window;

	if (ts->lo % window < 0)
		first -= window;	/* floor, as tr-pag's windows from 0 */
	int64_t step = ((ts->hi - first) / n / window + 1) * window;

	for (unsigned k = 0; k <= n; k++)
		from[k] = sat_add(first, sat_mul(k, step));
	if (from[n] <= ts->end)	/* the windows of spans still running after the last start */
		from[n] = sat_add(ts->end / window * window, window);
}

/* Pass two: each line of a trace to the shards whose range, with the
 * halo, holds its start; the decision kept while the id stays the same. */
static void
write_shards(const char *path, const trace_starts *ts, unsigned n, const int64_t *from,
	     int64_t halo, tr_output **out)
{
	tr_input *in = tr_input_open(path);
	const char *prev = NULL;
	size_t len, idlen, prevlen = 0;
	int64_t t = 0;
	int timed = 0;
	char *line;

	while ((line = tr_input_line(in, &len))) {
		const char *id = field(line, len, 1, &idlen);

		if (len == sizeof TR_FORMAT_HEADER - 1 && memcmp(line, TR_FORMAT_HEADER, len) == 0)
			continue;
		if (!id)
			id = "", idlen = 0;
		if (!prev || idlen != prevlen || memcmp(id, prev, idlen) != 0) {
			const strmap_slot *slot = strmap_get(&ts->start, id, idlen);

			timed = slot != NULL;
			t = slot ? slot->val : 0;
			prev = slot ? slot->key : NULL;	/* the map's copy outlives the line */
			prevlen = idlen;
		}
		for (unsigned k = 0; timed && k < n; k++)
			if (t >= sat_add(from[k], -halo) && t < sat_add(from[k + 1], halo)) {
				tr_output_write(out[k], line, len);
				tr_output_puts(out[k], "\n");
			}
	}
	tr_input_close(in);
}

int
tr_split_time(const char *path, unsigned n, int64_t window, int64_t halo, const char *prefix,
	      int zstd, int allow_empty)
{
	trace_starts ts = {0};

	read_starts(path, &ts);
	if (!ts.any && !allow_empty) {	/* nothing to place in time: no shard written */
		strmap_free(&ts.start);
		arena_free(&ts.ids);
		return no_trace(path);
	}
	int64_t *from = xcalloc(n + 1, sizeof *from);
	tr_output **out = xcalloc(n, sizeof *out);
	strbuf name = {0};

	own_ranges(&ts, n, window, from);
	for (unsigned k = 0; k < n; k++) {
		sb_clear(&name);
		sb_addf(&name, "%s%u.own", prefix, k);
		tr_output *own = tr_output_open(name.s, 0);
		sb_clear(&name);
		sb_addf(&name, "%lld,%lld\n", (long long)from[k], (long long)from[k + 1]);
		tr_output_sb(own, &name);
		tr_output_close(own);
		sb_clear(&name);
		sb_addf(&name, "%s%u.tr%s", prefix, k, zstd ? ".zst" : "");
		out[k] = tr_output_open(name.s, zstd ? 3 : 0);
		tr_output_puts(out[k], TR_FORMAT_HEADER "\n");
	}
	write_shards(path, &ts, n, from, halo, out);
	for (unsigned k = 0; k < n; k++)
		tr_output_close(out[k]);
	strmap_free(&ts.start);
	arena_free(&ts.ids);
	sb_free(&name);
	free(out);
	free(from);
	return 0;
}

int
tr_split_option(tr_split_opts *o, int opt, const char *arg)
{
	size_t len = opt == TR_OPT_HALO ? strlen(arg) : 0;	/* the others' arg may be NULL */

	switch (opt) {
	case TR_OPT_SPLIT_TIME: o->n = (unsigned)tr_arg_count("--split-time", arg, 1, TR_SPLIT_MAX); break;
	case TR_OPT_HALO:
		o->has_halo = 1;
		/* a unit makes it a duration (6s), a plain number a count of traces */
		o->halo_is_time = len && ((arg[len - 1] >= 'a' && arg[len - 1] <= 'z') ||
					  (arg[len - 1] >= 'A' && arg[len - 1] <= 'Z'));
		o->halo = o->halo_is_time ? tr_arg_duration("--halo", arg, 0)
					  : tr_arg_count("--halo", arg, 0, TR_ARG_NO_MAX);
		if (o->halo_is_time && o->halo > TR_TIME_MAX)
			tr_usage_error("--halo %s: beyond the times a span can have (2^61 us)", arg);
		break;
	case TR_OPT_WINDOW:
		o->window = tr_arg_duration("--window", arg, 1);
		if (o->window > TR_TIME_MAX)
			tr_usage_error("--window %s: beyond the times a span can have (2^61 us)", arg);
		break;
	default: return 0;
	}
	return 1;
}

int
tr_split_given(const tr_split_opts *o)
{
	return o->n || o->has_halo || o->window;
}

int
tr_split_halo_main(const tr_split_opts *o, char **files, int nfiles, const char *prefix, int zstd,
		   int allow_empty)
{
	if (!o->n)
		tr_usage_error("%s goes with --split-time", o->window ? "--window" : "--halo");
	if (o->window && !o->halo_is_time)
		tr_usage_error("--window: the halo is a duration with its unit (--halo 6s), the "
			       "time before and after a shard's windows");
	if (o->halo_is_time && !o->window)
		tr_usage_error("--halo DURATION goes with --window D (time shards); a count of "
			       "traces has no unit");
	if (!prefix)
		tr_usage_error("--split-time: -o PREFIX names the outputs");
	if (nfiles != 1 || strcmp(files[0], "-") == 0)
		tr_usage_error("--split-time: one file (it is read twice), not standard input");
	if (!tr_file_is_lines(files[0]))
		tr_usage_error("--split-time: %s: not the line format (tr-ingest it first)", files[0]);
	if (o->window ? tr_split_time(files[0], o->n, o->window, o->halo, prefix, zstd, allow_empty) :
	    tr_split_halo(files[0], o->n, (size_t)o->halo, prefix, zstd, allow_empty))
		return TR_EXIT_INPUT;
	return TR_EXIT_OK;
}
