/* temporal_label.c - the labels of spans and resources, which the graph
 * builds as it inserts a trace and the report prints. */
#include "temporal_impl.h"

#include <string.h>

#include "core/format.h"

static int
occupying_kind(int kind)
{
	return kind != TR_KIND_CLIENT && kind != TR_KIND_PRODUCER;
}

int
tp_resource_name(const temporal *tp, const tr_span *s, strbuf *b)
{
	const char *k = tp->o.resource_key ? tr_span_tag(s, tp->o.resource_key) : NULL;

	sb_adds(b, s->service);
	if (*s->host) {
		sb_addc(b, '@');
		sb_adds(b, s->host);
	}
	if (k) {
		sb_addc(b, '/');
		sb_adds(b, k);
	}
	return k != NULL;
}

const tp_label *
tpr_span_label(temporal *tp, wtrace *w, int32_t span, int32_t res)
{
	const tr_span *s = &w->t.spans[span];
	strbuf *b = &tp->text;
	size_t svclen;

	sb_clear(b);
	sb_adds(b, s->service);
	svclen = b->len;
	sb_addc(b, ':');
	sb_adds(b, s->operation);
	if (occupying_kind(s->kind)) {
		sb_adds(b, " on ");
		sb_adds(b, tp->res[res].name);
	} else if (s->kind) {
		sb_adds(b, " (");
		sb_adds(b, tr_kind_name(s->kind));
		sb_addc(b, ')');
	}
	size_t idlen = strlen(s->span_id);
	tp_label *l = arena_alloc(&w->t.mem, sizeof *l + b->len + idlen + 2);
	l->len = (uint32_t)b->len;
	l->svclen = (uint32_t)svclen;
	memcpy(l->text, b->s, b->len + 1);
	memcpy(l->text + b->len + 1, s->span_id, idlen + 1);
	return l;
}

/* Durations for people: in the units asked for, a bare number with its
 * unit; without --units (units < 0) 0.5 ms, 11.0 ms, 12 µs. */
void
tp_add_dur(strbuf *b, int64_t us, int units)
{
	static const char *const unit[] = {" µs", " ms", " s", ""};
	char text[40];

	if (units < 0) {
		if (us >= 100 || us <= -100)
			sb_addf(b, "%.1f ms", (double)us / 1000.0);
		else
			sb_addf(b, "%lld µs", (long long)us);
		return;
	}
	table_duration(text, sizeof text, us, units);
	sb_adds(b, text);
	sb_adds(b, unit[units]);
}

void
tp_add_pct(strbuf *b, int64_t part, int64_t whole)
{
	sb_addf(b, "%.1f%%", whole > 0 ? 100.0 * (double)part / (double)whole : 0.0);
}
