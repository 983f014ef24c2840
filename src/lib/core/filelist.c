/* filelist.c - reading the partial files a --merge adds up (tr-cp), and
 * the lists of inputs --files-from gives the filters. */
#include <stdlib.h>
#include <string.h>

#include "core/shard.h"
#include "core/util.h"

int
tr_merge_files(char **files, int nfiles,
	       int (*line)(void *ctx, char *line, size_t len, char *err, size_t errlen), void *ctx)
{
	static char *std_in[] = {"-"};
	char err[256];

	if (!nfiles) {
		files = std_in;
		nfiles = 1;
	}
	for (int i = 0; i < nfiles; i++) {
		tr_input *in = tr_input_open(files[i]);
		const char *name = tr_path_name(files[i]);
		size_t len;
		char *l;
		int status = TR_EXIT_OK;

		while (status == TR_EXIT_OK && (l = tr_input_line(in, &len))) {
			if (len && l[len - 1] == '\r')
				len--;
			l[len] = '\0';
			if (line(ctx, l, len, err, sizeof err) < 0) {
				tr_warn("%s:%llu: %s", name, (unsigned long long)tr_input_lineno(in), err);
				status = TR_EXIT_INPUT;
			}
		}
		if (status == TR_EXIT_OK && tr_input_report(in, name) < 0)
			status = TR_EXIT_INPUT;
		tr_input_close(in);
		if (status != TR_EXIT_OK)
			return status;
	}
	return TR_EXIT_OK;
}

void
tr_filelist_from(tr_filelist *l, const char *path)
{
	tr_files_from(path, &l->v, &l->n);
}

char **
tr_filelist_with(tr_filelist *l, char **argv, int argc, int *n)
{
	if (!l->n) {
		*n = argc;
		return argv;
	}
	l->v = xrealloc(l->v, ((size_t)l->n + (size_t)argc + 1) * sizeof *l->v);
	for (int i = 0; i < argc; i++)
		l->v[l->n++] = argv[i];
	*n = l->n;
	return l->v;
}
