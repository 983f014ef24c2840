/* hash.c - open-addressing map from byte strings to integers. */
#include "hash.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

strmap_slot *
strmap_put_copy(strmap *m, struct arena *mem, const void *key, size_t len, int *added)
{
	strmap_slot *s = strmap_put(m, key, len, added);

	if (*added)
		s->key = arena_strndup(mem, key, len);
	return s;
}

static strmap_slot *
find_slot(strmap_slot *slots, size_t cap, const char *key, size_t len, uint64_t h)
{
	size_t i = (size_t)h & (cap - 1);

	for (;;) {
		strmap_slot *s = &slots[i];

		if (!s->used)
			return s;
		if (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0)
			return s;
		i = (i + 1) & (cap - 1);
	}
}

static void
rehash(strmap *m, size_t ncap)
{
	strmap_slot *ns = xcalloc(ncap, sizeof *ns);

	for (size_t i = 0; i < m->cap; i++) {
		strmap_slot *s = &m->slots[i];

		if (s->used)
			*find_slot(ns, ncap, s->key, s->len, s->hash) = *s;
	}
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
}

strmap_slot *
strmap_put(strmap *m, const char *key, size_t len, int *added)
{
	uint64_t h = hash_bytes(key, len);
	strmap_slot *s;

	if ((m->count + 1) * 4 > m->cap * 3)
		rehash(m, m->cap ? m->cap * 2 : 16);
	s = find_slot(m->slots, m->cap, key, len, h);
	if (s->used) {
		if (added)
			*added = 0;
		return s;
	}
	s->used = 1;
	s->key = key;
	s->len = (uint32_t)len;
	s->hash = h;
	s->val = -1;
	m->count++;
	if (added)
		*added = 1;
	return s;
}

strmap_slot *
strmap_get(const strmap *m, const char *key, size_t len)
{
	strmap_slot *s;

	if (!m->cap)
		return NULL;
	s = find_slot(m->slots, m->cap, key, len, hash_bytes(key, len));
	return s->used ? s : NULL;
}

void
strmap_clear(strmap *m)
{
	/* After one huge trace, give the table back instead of wiping it for every small one. */
	if (m->cap > 4096 && m->count * 16 < m->cap) {
		strmap_free(m);
		return;
	}
	if (m->count)
		memset(m->slots, 0, m->cap * sizeof *m->slots);
	m->count = 0;
}

void
strmap_free(strmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
}

/* ---- sets of 64-bit keys ---- */

#define U64SET_EMPTY UINT64_MAX

static size_t
u64set_slot(const uint64_t *keys, size_t cap, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);

	while (keys[i] != U64SET_EMPTY && keys[i] != key)
		i = (i + 1) & (cap - 1);
	return i;
}

int
u64set_add(u64set *s, uint64_t key)
{
	size_t i;

	if ((s->count + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 64;
		uint64_t *nk = xmalloc(ncap * sizeof *nk);

		memset(nk, 0xff, ncap * sizeof *nk);
		for (size_t j = 0; j < s->cap; j++)
			if (s->keys[j] != U64SET_EMPTY)
				nk[u64set_slot(nk, ncap, s->keys[j])] = s->keys[j];
		free(s->keys);
		s->keys = nk;
		s->cap = ncap;
	}
	i = u64set_slot(s->keys, s->cap, key);
	if (s->keys[i] == key)
		return 0;
	s->keys[i] = key;
	s->count++;
	return 1;
}

void
u64set_each(const u64set *s, void (*f)(void *ctx, uint64_t key), void *ctx)
{
	for (size_t j = 0; j < s->cap; j++)
		if (s->keys[j] != U64SET_EMPTY)
			f(ctx, s->keys[j]);
}

void
u64set_clear(u64set *s)
{
	if (s->count)
		memset(s->keys, 0xff, s->cap * sizeof *s->keys);
	s->count = 0;
}

void
u64set_free(u64set *s)
{
	free(s->keys);
	memset(s, 0, sizeof *s);
}
