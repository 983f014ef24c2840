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
