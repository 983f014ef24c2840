/* hash.c - open-addressing maps to integers from byte strings (strmap)
 * and from 64-bit numbers (u64map). */
#include "core/hash.h"
#include "core/util.h"

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

strmap_slot *
strmap_intern(strmap *m, struct arena *mem, const void *key, size_t len, int *added)
{
	strmap_slot *s = strmap_put_copy(m, mem, key, len, added);

	if (*added)
		s->val = (int64_t)(m->count - 1);
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

/* ---- maps from 64-bit keys ---- */

#define U64_EMPTY UINT64_MAX

static size_t
u64map_slot(const uint64_t *keys, size_t cap, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);

	while (keys[i] != U64_EMPTY && keys[i] != key)
		i = (i + 1) & (cap - 1);
	return i;
}

static void
u64map_grow(u64map *m)
{
	size_t ncap = m->cap ? 2 * m->cap : 64;
	uint64_t *nk = xmalloc(ncap * sizeof *nk);
	int64_t *nv = xmalloc(ncap * sizeof *nv);

	memset(nk, 0xff, ncap * sizeof *nk);
	for (size_t j = 0; j < m->cap; j++)
		if (m->keys[j] != U64_EMPTY) {
			size_t i = u64map_slot(nk, ncap, m->keys[j]);

			nk[i] = m->keys[j];
			nv[i] = m->vals[j];
		}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
}

int64_t *
u64map_put(u64map *m, uint64_t key, int *added)
{
	size_t i;

	if ((m->count + 1) * 2 > m->cap)
		u64map_grow(m);
	i = u64map_slot(m->keys, m->cap, key);
	*added = m->keys[i] != key;
	if (*added) {
		m->keys[i] = key;
		m->vals[i] = -1;
		m->count++;
	}
	return &m->vals[i];
}

const int64_t *
u64map_get(const u64map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = u64map_slot(m->keys, m->cap, key);
	return m->keys[i] == key ? &m->vals[i] : NULL;
}

void
u64map_each(const u64map *m, void (*f)(void *ctx, uint64_t key, int64_t val), void *ctx)
{
	for (size_t j = 0; j < m->cap; j++)
		if (m->keys[j] != U64_EMPTY)
			f(ctx, m->keys[j], m->vals[j]);
}

void
u64map_clear(u64map *m)
{
	/* as strmap_clear: after one huge use, give the table back instead
	 * of wiping it for every small one */
	if (m->cap > 4096 && m->count * 16 < m->cap) {
		u64map_free(m);
		return;
	}
	if (m->count)
		memset(m->keys, 0xff, m->cap * sizeof *m->keys);
	m->count = 0;
}

void
u64map_free(u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

const char *
strmap_closest(const strmap *m, const char *name)
{
	const char **keys = xmalloc((m->count + 1) * sizeof *keys), *near;
	size_t k = 0;

	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].used)
			keys[k++] = m->slots[i].key;
	near = closest_name(name, keys, k);
	free(keys);
	return near;
}
