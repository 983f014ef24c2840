/* heap.h - a binary min-heap of (key, value) pairs: the earliest end of the
 * work running, the first worker free. Pairs of equal keys come out in the
 * order the sifting leaves them, not in the order they went in: a caller
 * that needs a tie order puts it in the key. */
#ifndef TR_HEAP_H
#define TR_HEAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct tr_heap_item {
	int64_t key;
	int64_t val;
} tr_heap_item;

typedef struct tr_heap {
	tr_heap_item *h;	/* h[0]: the least key, when n > 0 */
	size_t n, cap;
} tr_heap;

/* Grows q as needed (its memory is kept for the next use: empty it with
 * q->n = 0). */
void tr_heap_push(tr_heap *q, int64_t key, int64_t val);
/* The pair of least key, taken out; q must not be empty. */
tr_heap_item tr_heap_pop(tr_heap *q);
void tr_heap_free(tr_heap *q);

#endif
