/* table.c - CSV and JSON fields of the tools' reports. */
#include "table.h"

#include <string.h>

void
table_csv_field(strbuf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n')
			break;
	if (i == n) {
		sb_add(b, s, n);
		return;
	}
	sb_addc(b, '"');
	for (i = 0; i < n; i++) {
		if (s[i] == '"')
			sb_addc(b, '"');
		sb_addc(b, s[i]);
	}
	sb_addc(b, '"');
}

void
table_json_string(strbuf *b, const char *s, size_t n)
{
	sb_addc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			sb_addc(b, '\\');
			sb_addc(b, (char)c);
		} else if (c < 0x20)
			sb_addf(b, "\\u%04x", c);
		else
			sb_addc(b, (char)c);
	}
	sb_addc(b, '"');
}
