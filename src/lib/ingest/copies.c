/* copies.c - strings copied into the batch's arena, which the converters
 * and the assembly of a batch both make. */
#include "ingest/context.h"

#include <ctype.h>
#include <string.h>

const char *
ig_strn(ingest *g, const char *s, size_t n)
{
	return arena_strndup(&g->batch.mem, s, n);
}

const char *
ig_str(ingest *g, const char *s)
{
	return s ? ig_strn(g, s, strlen(s)) : "";
}

const char *
ig_lower(ingest *g, const char *s)
{
	size_t n = strlen(s);
	char *p = arena_strndup(&g->batch.mem, s, n);

	for (size_t i = 0; i < n; i++)
		p[i] = (char)tolower((unsigned char)p[i]);
	return p;
}
