/* partial.c - the frame of a --partial file (partial.h). */
#include "core/partial.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
tr_partial_header(strbuf *b, const char *kind, const char *made_for)
{
	sb_addf(b, "#tr-%s-partial/%d\t%s\n", kind, TR_PARTIAL_VERSION, made_for);
}

void
tr_partial_end(strbuf *b, uint64_t records)
{
	sb_addf(b, "#end\t%" PRIu64 "\n", records);
}

void
tr_partial_check_start(tr_partial_check *c, const char *kind, const char *made_for)
{
	memset(c, 0, sizeof *c);
	c->kind = kind;
	c->made_for = made_for;
}

/* The first line: this tool's header, this version, made for the same. */
static int
check_header(tr_partial_check *c, const char *line, size_t len, char *what, size_t whatlen)
{
	char want[64];
	int n = snprintf(want, sizeof want, "#tr-%s-partial/", c->kind);
	const char *p = line + n, *tab;
	size_t ml = strlen(c->made_for);

	if (len < (size_t)n || memcmp(line, want, (size_t)n) != 0) {
		snprintf(what, whatlen, "not a tr-%s --partial file (its first line is not %s%d)",
			 c->kind, want, TR_PARTIAL_VERSION);
		return -1;
	}
	long v = strtol(p, NULL, 10);
	if (v != TR_PARTIAL_VERSION) {
		snprintf(what, whatlen, "a partial of format %ld, this tr-%s merges format %d: make it again",
			 v, c->kind, TR_PARTIAL_VERSION);
		return -1;
	}
	tab = memchr(line, '\t', len);
	if (!tab || (size_t)(line + len - tab - 1) != ml || memcmp(tab + 1, c->made_for, ml) != 0) {
		snprintf(what, whatlen, "a partial made for something else (another query, other options)");
		return -1;
	}
	c->state = 1;
	c->records = 0;
	return 0;
}

/* "#end\tN": the count must be that of the records read. */
static int
check_end(tr_partial_check *c, const char *line, size_t len, char *what, size_t whatlen)
{
	char num[32];
	size_t n = len - 5 < sizeof num - 1 ? len - 5 : sizeof num - 1;
	char *end;

	memcpy(num, line + 5, n);
	num[n] = '\0';
	unsigned long long want = strtoull(num, &end, 10);
	if (!n || *end || want != c->records) {
		snprintf(what, whatlen, "the end mark counts %s records, %llu were read", num,
			 (unsigned long long)c->records);
		return -1;
	}
	c->state = 2;
	return 0;
}

int
tr_partial_check_line(tr_partial_check *c, const char *line, size_t len, char *what,
		      size_t whatlen)
{
	while (len && line[len - 1] == '\r')
		len--;
	c->lines++;
	if (c->state == 0)
		return check_header(c, line, len, what, whatlen);
	if (c->state == 2 && len >= 4 && memcmp(line, "#tr-", 4) == 0)
		return check_header(c, line, len, what, whatlen);	/* partials one after the other (cat) */
	if (c->state == 2) {
		snprintf(what, whatlen, "a line after the end mark");
		return -1;
	}
	if (len >= 5 && memcmp(line, "#end\t", 5) == 0)
		return check_end(c, line, len, what, whatlen);
	if (len == 0 || line[0] == '#')
		return 0;
	c->records++;
	return 1;
}

int
tr_partial_check_end(const tr_partial_check *c, char *what, size_t whatlen)
{
	if (c->state == 2)
		return 0;
	if (c->lines == 0)
		snprintf(what, whatlen, "an empty file, not a partial");
	else
		snprintf(what, whatlen, "the partial has no end mark: it was cut short");
	return -1;
}

/* One file (c NULL: no partial's frame to check); 0, -1 for a bad record
 * (more may follow), -2 for a bad frame. */
static int
merge_file(tr_input *in, tr_partial_check *c, tr_partial_merge_fn merge, void *ctx, int keep_going)
{
	char what[256], *line;
	size_t len;
	int bad = 0, k;

	while ((line = tr_input_line(in, &len))) {
		while (len && line[len - 1] == '\r')
			len--;
		line[len] = '\0';
		k = c ? tr_partial_check_line(c, line, len, what, sizeof what) : 1;
		if (k > 0 && merge(ctx, line, len, what, sizeof what) < 0)
			k = -1, bad = 1;
		else if (k < 0)
			k = -2;
		if (k < 0)
			tr_warn("%s:%llu: %s", tr_input_name(in), (unsigned long long)tr_input_lineno(in), what);
		if (k == -2 || (k == -1 && !keep_going))
			return k;
	}
	if (tr_input_report(in, NULL) < 0)	/* a cut zstd frame: records are missing */
		return -2;
	if (c && tr_partial_check_end(c, what, sizeof what) < 0) {
		tr_warn("%s:%llu: %s", tr_input_name(in), (unsigned long long)tr_input_lineno(in) + 1, what);
		return -2;
	}
	return bad ? -1 : 0;
}

int
tr_partial_merge_files(char **files, int nfiles, const char *kind, const char *made_for,
		       int keep_going, tr_partial_merge_fn merge, void *ctx)
{
	static char *dash[] = {"-"};
	int status = 0;

	if (!nfiles) {
		files = dash;
		nfiles = 1;
	}
	for (int i = 0; i < nfiles; i++) {
		tr_input *in = tr_input_open(files[i]);
		int k = tr_partial_merge_input(in, kind, made_for, keep_going, merge, ctx);

		tr_input_close(in);
		if (k < 0)
			return -1;
		if (k)
			status = k;
	}
	return status;
}

int
tr_partial_merge_input(tr_input *in, const char *kind, const char *made_for, int keep_going,
		       tr_partial_merge_fn merge, void *ctx)
{
	tr_partial_check c;

	if (kind)
		tr_partial_check_start(&c, kind, made_for);
	int k = merge_file(in, kind ? &c : NULL, merge, ctx, keep_going);

	if (k == -2 || (k == -1 && !keep_going))
		return -1;
	return k < 0 ? TR_EXIT_INPUT : 0;
}
