/* table.h - one field of a CSV or JSON table, quoted as each format wants;
 * shared by every tool that writes a report (tr-cp, tr-infer, tr-aggregate). */
#ifndef TR_TABLE_H
#define TR_TABLE_H

#include <stddef.h>

#include "util.h"

/* RFC 4180: quoted only when it holds a comma, a quote, CR or LF. */
void table_csv_field(strbuf *b, const char *s, size_t n);
/* A JSON string: quotes, backslashes and control characters escaped. */
void table_json_string(strbuf *b, const char *s, size_t n);

#endif
