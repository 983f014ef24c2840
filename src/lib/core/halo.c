/* halo.c - contiguous shards with a halo (halo.h). */
#include "core/halo.h"
#include "core/format.h"
#include "core/io.h"
#include "core/args.h"
#include "core/shard.h"
#include "core/util.h"

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

size_t
tr_split_halo(const char *path, unsigned n, size_t halo, const char *prefix, int zstd)
{
	size_t total = count_traces(path), len, g = 0;
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
		size_t at = g ? g - 1 : 0;	/* the trace this line is of */
		for (unsigned k = 0; k < n; k++) {
			int own = at >= lo[k] && at < lo[k + 1];

			if (!own && (!g || at + halo < lo[k] || at >= lo[k + 1] + halo ||
				     lo[k] == lo[k + 1]))
				continue;
			tr_output_write(out[k], line, len);
			if (is_t && !own)
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
	return total;
}

int
tr_split_halo_main(char **files, int nfiles, unsigned n, long long halo, const char *prefix,
		   int zstd)
{
	if (!prefix)
		tr_usage_error("--split-time: -o PREFIX names the outputs");
	if (nfiles != 1 || strcmp(files[0], "-") == 0)
		tr_usage_error("--split-time: one file (it is read twice), not standard input");
	if (!tr_file_is_lines(files[0]))
		tr_usage_error("--split-time: %s: not the line format (tr-ingest it first)", files[0]);
	tr_split_halo(files[0], n, halo < 0 ? 0 : (size_t)halo, prefix, zstd);
	return TR_EXIT_OK;
}
