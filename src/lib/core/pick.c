/* pick.c - traces and tag keys named on the command line (pick.h). */
#include "core/pick.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/util.h"

/* Suggestions are kept for the first few ids only: keeping them costs a
 * comparison per trace and id. */
enum { NSUGGEST = 16 };

struct tr_pick {
	arena mem;
	strmap index;		/* id -> position */
	const char **id;
	uint8_t *met;
	size_t n, cap, nmet;
	const char *near[NSUGGEST];	/* the id met sharing the longest start */
	size_t nearlen[NSUGGEST];
	const char *filtered_by;	/* the traces offered were filtered by this option */
};

tr_pick *
tr_pick_new(void)
{
	return xcalloc(1, sizeof(tr_pick));
}

void
tr_pick_free(tr_pick *p)
{
	if (!p)
		return;
	strmap_free(&p->index);
	free(p->id);
	free(p->met);
	arena_free(&p->mem);
	free(p);
}

void
tr_pick_add(tr_pick *p, const char *id)
{
	size_t len = strlen(id);
	int added;
	strmap_slot *slot = strmap_intern(&p->index, &p->mem, id, len, &added);

	if (!added)
		return;
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		p->id = xrealloc(p->id, p->cap * sizeof *p->id);
		p->met = xrealloc(p->met, p->cap);
	}
	p->id[p->n] = slot->key;
	p->met[p->n++] = 0;
}

int
tr_pick_add_file(tr_pick *p, const char *path, char *err, size_t errsize)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t n;

	if (!f) {
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		char *s = line, *e = line + n;

		lineno++;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (s == e || *s == '#')
			continue;
		*e = '\0';
		if (strchr(s, '\t')) {
			snprintf(err, errsize, "%s:%zu: a TAB inside a trace id", path, lineno);
			free(line);
			fclose(f);
			return -1;
		}
		tr_pick_add(p, s);
	}
	free(line);
	if (ferror(f)) {
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

int
tr_pick_all(const tr_pick *p)
{
	return p->n == 0;
}

static size_t
common_start(const char *a, const char *b)
{
	size_t i = 0;

	while (a[i] && a[i] == b[i])
		i++;
	return i;
}

/* Remember id as the nearest met so far of the first ids not met yet. */
static void
note_near(tr_pick *p, const char *id)
{
	size_t k = p->n < NSUGGEST ? p->n : NSUGGEST;

	for (size_t i = 0; i < k; i++) {
		size_t c;

		if (p->met[i] || (c = common_start(id, p->id[i])) <= p->nearlen[i])
			continue;
		p->nearlen[i] = c;
		p->near[i] = arena_strndup(&p->mem, id, strlen(id));
	}
}

int
tr_pick_match(tr_pick *p, const char *trace_id)
{
	strmap_slot *slot;

	if (!p->n)
		return 1;
	slot = strmap_get(&p->index, trace_id, strlen(trace_id));
	if (!slot) {
		if (p->nmet < p->n)
			note_near(p, trace_id);
		return 0;
	}
	if (!p->met[slot->val]) {
		p->met[slot->val] = 1;
		p->nmet++;
	}
	return 1;
}

size_t
tr_pick_missing(const tr_pick *p, const char *opt)
{
	size_t missing = 0;

	for (size_t i = 0; i < p->n; i++) {
		size_t want = strlen(p->id[i]) / 2;
		const char *near = i < NSUGGEST && p->nearlen[i] >= (want > 4 ? want : 4) ?
				   p->near[i] : NULL;

		if (p->met[i])
			continue;
		missing++;
		if (p->filtered_by)
			tr_warn("%s %s: no trace %s kept has this id", opt, p->id[i], p->filtered_by);
		else if (near)
			tr_warn("%s %s: no trace has this id (did you mean %s?)", opt, p->id[i], near);
		else
			tr_warn("%s %s: no trace has this id", opt, p->id[i]);
	}
	return missing;
}

void
tr_keywatch_init(tr_keywatch *w, const char *key)
{
	memset(w, 0, sizeof *w);
	w->key = key;
}

void
tr_keywatch_free(tr_keywatch *w)
{
	strmap_free(&w->seen);
	arena_free(&w->mem);
}

void
tr_keywatch_note(tr_keywatch *w, const tr_span *s, int had)
{
	if (had) {
		w->hits++;
		return;
	}
	if (w->hits)
		return;	/* found already: no message to prepare */
	for (uint32_t i = 0; i < s->ntags; i++) {
		const char *k = s->tags[i].key;
		int added;
		strmap_slot *slot = strmap_put(&w->seen, k, strlen(k), &added);

		if (added)
			slot->key = arena_strndup(&w->mem, k, strlen(k));
	}
}

int
tr_keywatch_missing(const tr_keywatch *w, const char *opt, const char *const *builtin, size_t n)
{
	const char **names;
	const char *near;
	size_t k = 0;

	if (w->hits)
		return 0;
	names = xmalloc((w->seen.count + n + 1) * sizeof *names);
	for (size_t i = 0; i < n; i++)
		names[k++] = builtin[i];
	for (size_t i = 0; i < w->seen.cap; i++)
		if (w->seen.slots[i].used)
			names[k++] = w->seen.slots[i].key;
	near = closest_name(w->key, names, k);
	if (near)
		tr_warn("%s %s: no span has a tag %s (did you mean %s?)", opt, w->key, w->key, near);
	else
		tr_warn("%s %s: no span has a tag %s", opt, w->key, w->key);
	free(names);
	return 1;
}

void
tr_pick_filtered(tr_pick *p, const char *by)
{
	p->filtered_by = by;
}
