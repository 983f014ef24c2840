/* hash.h - open-addressing maps to integers from byte strings (strmap)
 * and from 64-bit numbers (u64map).
 * Keys are not copied: they must outlive the map (arena memory, usually). */
#ifndef TR_HASH_H
#define TR_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct strmap_slot {
	const char *key;
	uint32_t len;
	uint32_t used;
	uint64_t hash;
	int64_t val;
} strmap_slot;

typedef struct strmap {
	strmap_slot *slots;
	size_t cap, count;	/* cap is a power of two */
} strmap;

/* Returns the slot for key, inserting it with val = -1 and *added = 1 when absent. */
strmap_slot *strmap_put(strmap *m, const char *key, size_t len, int *added);
/* strmap_put for a key the caller does not keep (a scratch buffer, a pair
 * of numbers on the stack): when it is new, the slot keeps a copy of it in
 * mem (NUL-terminated, so a string key stays one). */
struct arena;
strmap_slot *strmap_put_copy(strmap *m, struct arena *mem, const void *key, size_t len,
			     int *added);
/* A name's dense index: strmap_put_copy, and a new key's val is the
 * number of keys before it (0, 1, 2, ...), so arrays indexed by it grow
 * by one entry, which the caller appends when *added. The map must hold
 * only keys put here. */
strmap_slot *strmap_intern(strmap *m, struct arena *mem, const void *key, size_t len,
			   int *added);
/* The key of m closest to name (closest_name, util.h), or NULL: for a
 * "did you mean" after a name no record had. */
const char *strmap_closest(const strmap *m, const char *name);
/* Returns the slot for key or NULL. */
strmap_slot *strmap_get(const strmap *m, const char *key, size_t len);
void strmap_clear(strmap *m);	/* keep the slots for reuse */
void strmap_free(strmap *m);

/* An open-addressing map from 64-bit keys (a pair of numbers) to
 * integers, hashed by multiplication: no bytes to compare. UINT64_MAX is
 * not a key. */
typedef struct u64map {
	uint64_t *keys;
	int64_t *vals;
	size_t cap, count;	/* cap is a power of two */
} u64map;

/* The value of key, inserted as -1 with *added = 1 when absent. */
int64_t *u64map_put(u64map *m, uint64_t key, int *added);
/* The value of key, or NULL when absent. */
const int64_t *u64map_get(const u64map *m, uint64_t key);
/* Calls f(ctx, key, value) for every key, in no order. */
void u64map_each(const u64map *m, void (*f)(void *ctx, uint64_t key, int64_t val), void *ctx);
void u64map_clear(u64map *m);	/* keep the slots for reuse */
void u64map_free(u64map *m);

#endif
