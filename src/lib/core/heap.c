/* heap.c - the binary min-heap of heap.h. */
#include "core/heap.h"

#include <stdlib.h>

#include "core/util.h"

void
tr_heap_push(tr_heap *q, int64_t key, int64_t val)
{
	size_t i = q->n++;

	GROW(q->h, q->cap, q->n);
	for (; i > 0 && q->h[(i - 1) / 2].key > key; i = (i - 1) / 2)
		q->h[i] = q->h[(i - 1) / 2];
	q->h[i] = (tr_heap_item){key, val};
}

tr_heap_item
tr_heap_pop(tr_heap *q)
{
	tr_heap_item top = q->h[0], last = q->h[--q->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= q->n)
			break;
		if (c + 1 < q->n && q->h[c + 1].key < q->h[c].key)
			c++;
		if (q->h[c].key >= last.key)
			break;
		q->h[i] = q->h[c];
		i = c;
	}
	if (q->n)
		q->h[i] = last;
	return top;
}

void
tr_heap_free(tr_heap *q)
{
	free(q->h);
	q->h = NULL;
	q->n = q->cap = 0;
}
