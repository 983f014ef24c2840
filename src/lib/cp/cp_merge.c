/* cp_merge.c - tr-cp --folded --merge: folded stacks added up.
 *
 * Folded output is its own partial: each line is a call path and its
 * critical-path µs summed over the traces, so the lines of runs over
 * disjoint traces add up, stack by stack, to those of one run over all of
 * them, and are written in the same order (the lines sorted bytewise). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cp/cp.h"

struct cp_folded_sum {
	arena mem;
	strmap stacks;		/* stack text -> index */
	const char **stack;
	int64_t *value;
	size_t n, cap;
};

cp_folded_sum *
cp_folded_sum_new(void)
{
	return xcalloc(1, sizeof(cp_folded_sum));
}

int
cp_folded_sum_line(cp_folded_sum *f, char *line, size_t len, char *err, size_t errlen)
{
	char *sp = NULL, *end;
	long long v;
	int added;

	if (!len)
		return 0;
	for (size_t i = len; i-- > 0;)	/* the value follows the last space */
		if (line[i] == ' ') {
			sp = line + i;
			break;
		}
	if (!sp || sp == line) {
		snprintf(err, errlen, "not a folded stack (want \"frame;frame... value\")");
		return -1;
	}
	errno = 0;
	v = strtoll(sp + 1, &end, 10);
	if (end != line + len || sp + 1 == end || sp[1] == '-' || sp[1] == '+' || errno || v <= 0) {
		snprintf(err, errlen, "bad value after the stack (want a count of µs above 0)");
		return -1;
	}
	strmap_slot *slot = strmap_intern(&f->stacks, &f->mem, line, (size_t)(sp - line), &added);

	if (added) {
		if (f->n == f->cap) {
			f->cap = f->cap ? 2 * f->cap : 256;
			f->stack = xrealloc(f->stack, f->cap * sizeof *f->stack);
			f->value = xrealloc(f->value, f->cap * sizeof *f->value);
		}
		f->stack[f->n] = slot->key;
		f->value[f->n++] = 0;
	}
	if (__builtin_add_overflow(f->value[slot->val], (int64_t)v, &f->value[slot->val])) {
		snprintf(err, errlen, "the stack's total overflows 64 bits");
		return -1;
	}
	return 0;
}

static int
line_cmp(const void *pa, const void *pb)
{
	return strcmp(*(char *const *)pa, *(char *const *)pb);
}

void
cp_folded_sum_write(cp_folded_sum *f, tr_output *out)
{
	char **lines = xcalloc(f->n ? f->n : 1, sizeof *lines);
	strbuf b = {0};

	for (size_t i = 0; i < f->n; i++) {
		sb_clear(&b);
		sb_addf(&b, "%s %lld\n", f->stack[i], (long long)f->value[i]);
		lines[i] = xstrdup(b.s);
	}
	qsort(lines, f->n, sizeof *lines, line_cmp);
	for (size_t i = 0; i < f->n; i++) {
		tr_output_puts(out, lines[i]);
		free(lines[i]);
	}
	free(lines);
	sb_free(&b);
}

void
cp_folded_sum_free(cp_folded_sum *f)
{
	if (!f)
		return;
	strmap_free(&f->stacks);
	arena_free(&f->mem);
	free(f->stack);
	free(f->value);
	free(f);
}
