/* test_heap.c - the min-heap of core/heap.h: whatever order pairs go in,
 * with pops mixed in, each pop is the least key left, and every pair comes
 * out once with its value. */
#include <stdio.h>
#include <stdlib.h>

#include "core/heap.h"
#include "core/util.h"

#include "check.h"

/* n pairs, keys from a narrow range (many ties), popped in between: each
 * pop against a sorted model of what is in the heap. */
static void
mixed(uint64_t seed, size_t n, int64_t keys)
{
	tr_heap q = {0};
	int64_t *model = xcalloc(n, sizeof *model);
	size_t in = 0, pushed = 0, *seen = xcalloc(n, sizeof *seen);
	int ok = 1;

	rng_state = seed;
	while (pushed < n || q.n) {
		if (pushed < n && (q.n == 0 || range(0, 2) > 0)) {
			int64_t k = range(-keys, keys);

			tr_heap_push(&q, k, (int64_t)pushed++);
			model[in++] = k;
			continue;
		}
		size_t least = 0;

		for (size_t j = 1; j < in; j++)
			least = model[j] < model[least] ? j : least;
		tr_heap_item top = tr_heap_pop(&q);

		ok &= top.key == model[least] && top.val >= 0 && (size_t)top.val < n;
		if (top.val >= 0 && (size_t)top.val < n)
			seen[top.val]++;
		model[least] = model[--in];
	}
	for (size_t i = 0; i < n; i++)
		ok &= seen[i] == 1;
	CHECK(ok, "seed %llu, %zu pairs, keys within %lld: a pop was not the least key left, "
	      "or a value came out other than once", (unsigned long long)seed, n, (long long)keys);
	CHECK_EQ(q.n, (size_t)0);
	tr_heap_free(&q);
	free(model);
	free(seen);
}

int
main(void)
{
	tr_setprogname("test_heap");
	for (uint64_t seed = 1; seed <= 200; seed++)
		mixed(seed, (size_t)(seed % 97) + 1, seed % 2 ? 3 : 1000000);
	mixed(7, 5000, 50);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
