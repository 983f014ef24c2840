/* json.h - JSON text as the tools write it, encoded by libjansson: a value
 * built as a json_t and dumped into a buffer, or a string alone where a
 * document is streamed row by row and its layout (a row a line, numbers
 * with fixed decimals) is the writer's. jansson refuses text that is not
 * UTF-8, and JSON must be: a byte that starts no well-formed UTF-8
 * character becomes U+FFFD (the character itself), one per byte. */
#ifndef TR_JSON_H
#define TR_JSON_H

#include <stddef.h>

#include <jansson.h>

#include "core/util.h"

/* A JSON string holding s[0,n), bytes that are not UTF-8 replaced; dies
 * when out of memory, like xmalloc. */
json_t *tr_json_text(const char *s, size_t n);
/* Appends the text of v, dumped with jansson's flags (JSON_COMPACT, or 0:
 * ", " and ": " between members), and drops the caller's reference to v. */
void tr_json_put(strbuf *b, json_t *v, size_t flags);
/* Appends s[0,n) as a JSON string. */
void tr_json_string(strbuf *b, const char *s, size_t n);
/* Sets member key of object o to v (a new reference, consumed). */
void tr_json_set(json_t *o, const char *key, json_t *v);

#endif
