/* expr.h - small expressions over named slots: numbers (durations in µs),
 * strings, booleans and null; arithmetic, comparisons, and/or/not, glob (~)
 * and regex (=~) matching, a few scalar functions. Shared by tr-aggregate's
 * query language and tr-infer's threshold conditions.
 *
 * Null: arithmetic with null gives null, so does division by zero; a
 * comparison with null is false, except "x == null" / "x != null", which
 * test for null. and/or/not read null as false.
 * A string compared with a number compares as a number when its text is one,
 * else the comparison is false; when both types are known while parsing
 * (a string literal against a number) it is a type error. */
#ifndef TR_EXPR_H
#define TR_EXPR_H

#include <stddef.h>

#include "core/util.h"

typedef enum { EV_NULL, EV_NUM, EV_STR, EV_BOOL } expr_type;
/* A value. str is NUL-terminated at str[len] (glob and regex need it). */
typedef struct expr_value {
	expr_type type;
	double num;		/* EV_NUM; EV_BOOL: 0 or 1 */
	const char *str;	/* EV_STR */
	size_t len;
} expr_value;
typedef struct expr expr;

/* resolve maps an identifier (letters, digits, _ and dots: "s.duration") to
 * a slot index (>= 0) or -1 when unknown */
typedef int (*expr_resolve_fn)(void *ctx, const char *name, size_t len);

/* Parse src; NULL on error with a message in err and its byte offset in *errpos. */
expr *expr_parse(const char *src, expr_resolve_fn resolve, void *ctx,
		 char *err, size_t errlen, size_t *errpos);
expr_value expr_eval(const expr *e, const expr_value *slots);
int expr_truthy(expr_value v);
void expr_free(expr *e);

static inline expr_value expr_null(void) { return (expr_value){EV_NULL, 0, NULL, 0}; }
static inline expr_value expr_num(double v) { return (expr_value){EV_NUM, v, NULL, 0}; }
static inline expr_value expr_bool(int v) { return (expr_value){EV_BOOL, v != 0, NULL, 0}; }
static inline expr_value expr_str(const char *s, size_t n) { return (expr_value){EV_STR, 0, s, n}; }

/* Read a value from text as a tag carries it: a number when the whole text
 * is one, true/false as booleans, else a string (s must be NUL-terminated). */
expr_value expr_from_text(const char *s, size_t n);
/* Total order for sorting values: null < bool < number < string. */
int expr_compare(expr_value a, expr_value b);
/* v as text: the string itself, or written to buf (size >= 32) for
 * numbers, integers exactly. */
const char *expr_format(expr_value v, char *buf, size_t size, size_t *len);

/* --- For the query language: the tokenizer and the parser at a position. --- */

enum expr_tok {
	TK_EOF, TK_NUM, TK_STR, TK_IDENT, TK_LP, TK_RP, TK_LB, TK_RB, TK_COMMA,
	TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH, TK_PCT,
	TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE, TK_GLOB, TK_NGLOB, TK_MATCH,
	TK_ARROW, TK_BAD
};

typedef struct expr_hooks {
	/* A field: name (dotted) with an optional subscript key (s.tag["k"]),
	 * key NULL when none. Returns a slot >= 0 and its static type in *type
	 * (-1 when only known at run time); -1 with err set when unknown. */
	int (*field)(void *ctx, const char *name, size_t len, const char *key, size_t keylen,
		     int *type, char *err, size_t errlen);
	/* A call name(args) that is no scalar function: an aggregate. Returns a
	 * slot and takes the args on success; -1 with err set otherwise. */
	int (*call)(void *ctx, const char *name, size_t len, expr **args, int nargs,
		    int distinct, char *err, size_t errlen);
	void *ctx;
	/* Hooks for the arguments of such a call (an aggregate reads rows while
	 * the expression around it reads groups); NULL: the same hooks. */
	const struct expr_hooks *arg_hooks;
} expr_hooks;

typedef struct expr_lexer {
	const char *src;
	size_t pos;		/* start of the current token */
	size_t end;		/* just past it */
	enum expr_tok tok;
	double num;		/* TK_NUM, in µs when it had a duration unit */
	char *str;		/* TK_STR unescaped (owned), TK_IDENT: NULL */
	size_t slen;
	int depth;		/* nesting, bounded */
	char *err;
	size_t errlen, errpos;
	int failed;
} expr_lexer;

void expr_lex_init(expr_lexer *lx, const char *src, char *err, size_t errlen);
void expr_lex_next(expr_lexer *lx);
/* Record an error at pos (the first one wins); returns NULL for convenience. */
void *expr_lex_error(expr_lexer *lx, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Is the current token the identifier word (case-insensitive)? */
int expr_lex_is(const expr_lexer *lx, const char *word);
void expr_lex_free(expr_lexer *lx);

/* Parse one expression from the current token; stops before the first token
 * that cannot continue it (a query keyword, a comma, ...). */
expr *expr_parse_lx(expr_lexer *lx, const expr_hooks *h);
/* Static type of a parsed expression: an expr_type, or -1 when unknown. */
int expr_static_type(const expr *e);
/* Canonical text of e (keywords lower-case, single spaces): for matching a
 * Select item against a GroupBy item and for --explain. */
void expr_print(const expr *e, strbuf *b);
/* The slot e reads when e is that alone (a name or an aggregate call),
 * else -1. */
int expr_slot(const expr *e);
/* The comparisons slot = "text" (either way round) in e, at most max:
 * their slots and texts into slot[] and text[]; returns how many. */
size_t expr_string_equalities(const expr *e, int *slot, const char **text, size_t max);
/* Does e contain an aggregate call (a slot from hooks->call)? */
int expr_has_call(const expr *e);
/* Does e read no slot? Then *v is its value. */
int expr_constant(const expr *e, expr_value *v);
/* Canonical text of a call: NAME upper-case, "(DISTINCT a, b)"; no
 * parentheses when there are no arguments (COUNT). */
void expr_call_text(strbuf *b, const char *name, size_t len, expr *const *args, int nargs,
		    int distinct);

#endif
