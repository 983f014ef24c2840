/* filelist.c - reading the partial files a --merge adds up (tr-cp), and
 * the lists of inputs --files-from gives the filters. */
#include <stdlib.h>
#include <string.h>

#include "core/partial.h"
#include "core/shard.h"
#include "core/util.h"

int
tr_merge_files(char **files, int nfiles,
	       int (*line)(void *ctx, char *line, size_t len, char *err, size_t errlen), void *ctx)
{
	/* the partials' loop, with no partial's frame: the first refused line stops */
	return tr_partial_merge_files(files, nfiles, NULL, NULL, 0, line, ctx) < 0 ? TR_EXIT_INPUT
										    : TR_EXIT_OK;
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
