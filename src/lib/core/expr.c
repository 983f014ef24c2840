/* expr.c - tokenizer, parser and evaluator of small expressions (expr.h). */
#include "core/expr.h"

#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Evaluating, printing and freeing recurse over the tree, so its height is
 * bounded. The parser recurses too, over parentheses and prefix operators
 * that make no node of their own; its bound lets the canonical text of any
 * tree (at most three parser levels per tree level) parse again. */
#define MAX_DEPTH 200
#define MAX_PARSE_DEPTH (4 * MAX_DEPTH)

enum op {
	OP_LIT, OP_SLOT, OP_AGG, OP_NEG, OP_NOT, OP_AND, OP_OR,
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
	OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_ISNULL, OP_NOTNULL,
	OP_GLOB, OP_NGLOB, OP_MATCH, OP_FN
};

enum fn { FN_BUCKET, FN_ABS, FN_FLOOR, FN_CEIL, FN_ROUND, FN_COALESCE };

static const struct { const char *name; int min, max; } fns[] = {
	[FN_BUCKET] = {"bucket", 2, 2}, [FN_ABS] = {"abs", 1, 1},
	[FN_FLOOR] = {"floor", 1, 1}, [FN_CEIL] = {"ceil", 1, 1},
	[FN_ROUND] = {"round", 1, 1}, [FN_COALESCE] = {"coalesce", 1, 16},
};

struct expr {
	enum op op;
	int type;		/* static type, -1 when known only at run time */
	expr *a, *b;
	expr **args;		/* OP_FN */
	int nargs, fn;
	int slot;		/* OP_SLOT, OP_AGG */
	expr_value lit;		/* OP_LIT */
	char *text;		/* OP_LIT string, OP_SLOT name, OP_AGG call text */
	regex_t *re;		/* OP_MATCH with a literal pattern */
	int height;		/* of the tree below and including this node */
};

/* ---------- tokenizer ---------- */

void *
expr_lex_error(expr_lexer *lx, size_t pos, const char *fmt, ...)
{
	va_list ap;

	if (lx->failed)
		return NULL;
	lx->failed = 1;
	lx->errpos = pos;
	if (lx->err && lx->errlen) {
		va_start(ap, fmt);
		vsnprintf(lx->err, lx->errlen, fmt, ap);
		va_end(ap);
	}
	lx->tok = TK_BAD;
	return NULL;
}

void
expr_lex_init(expr_lexer *lx, const char *src, char *err, size_t errlen)
{
	memset(lx, 0, sizeof *lx);
	lx->src = src;
	lx->err = err;
	lx->errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
	expr_lex_next(lx);
}

void
expr_lex_free(expr_lexer *lx)
{
	free(lx->str);
	lx->str = NULL;
}

int
expr_lex_is(const expr_lexer *lx, const char *word)
{
	size_t n = strlen(word);

	return lx->tok == TK_IDENT && lx->end - lx->pos == n &&
	       strncasecmp(lx->src + lx->pos, word, n) == 0;
}

/* Duration units, in µs. */
static int
unit_scale(const char *u, size_t n, double *scale)
{
	static const struct { const char *name; double us; } units[] = {
		{"us", 1}, {"\xc2\xb5s", 1}, {"ms", 1e3}, {"s", 1e6}, {"m", 60e6}, {"h", 3600e6},
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strlen(units[i].name) == n && memcmp(units[i].name, u, n) == 0) {
			*scale = units[i].us;
			return 0;
		}
	return -1;
}

/* Length of a decimal number at s (digits, fraction, exponent); 0 if none. */
static size_t
scan_number(const char *s, size_t n)
{
	size_t i = 0, digits = 0;

	while (i < n && isdigit((unsigned char)s[i]))
		i++, digits++;
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && isdigit((unsigned char)s[i]))
			i++, digits++;
	}
	if (!digits)
		return 0;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1;
		if (j < n && (s[j] == '+' || s[j] == '-'))
			j++;
		if (j < n && isdigit((unsigned char)s[j])) {
			while (j < n && isdigit((unsigned char)s[j]))
				j++;
			i = j;
		}
	}
	return i;
}

static void
lex_string(expr_lexer *lx, const char *s)
{
	char q = s[0];
	size_t i = 1, n = 0;
	char *out = xmalloc(strlen(s) + 1);

	for (;; i++) {
		char c = s[i];
		if (c == '\0') {
			free(out);
			expr_lex_error(lx, lx->pos, "unterminated string");
			return;
		}
		if (c == q)
			break;
		if (c == '\\' && s[i + 1]) {
			c = s[++i];
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
		}
		out[n++] = c;
	}
	out[n] = '\0';
	lx->str = out;
	lx->slen = n;
	lx->end = lx->pos + i + 1;
	lx->tok = TK_STR;
}

static int
is_ident_char(int c)
{
	return isalnum(c) || c == '_';
}

/* A number with an optional duration unit, as µs. */
static void
lex_number(expr_lexer *lx, const char *s, size_t n)
{
	char buf[64];
	double scale = 1;
	size_t u = n;

	if (n >= sizeof buf)
		return (void)expr_lex_error(lx, lx->pos, "number too long");
	memcpy(buf, s, n);
	buf[n] = '\0';
	while (is_ident_char((unsigned char)s[u]) || (unsigned char)s[u] >= 0x80)
		u++;
	if (u > n && unit_scale(s + n, u - n, &scale) < 0)
		return (void)expr_lex_error(lx, lx->pos + n, "unknown unit '%.*s' (us, ms, s, m, h)",
					    (int)(u - n), s + n);
	lx->num = strtod(buf, NULL) * scale;
	if (!isfinite(lx->num))
		return (void)expr_lex_error(lx, lx->pos, "number out of range");
	lx->tok = TK_NUM;
	lx->end = lx->pos + u;
}

/* A name; dotted names are one token: s.duration, process.ip */
static void
lex_ident(expr_lexer *lx, const char *s)
{
	size_t i = 0;

	for (;;) {
		while (is_ident_char((unsigned char)s[i]))
			i++;
		if (s[i] != '.' || !(isalpha((unsigned char)s[i + 1]) || s[i + 1] == '_'))
			break;
		i++;
	}
	lx->tok = TK_IDENT;
	lx->end = lx->pos + i;
}

static void
lex_operator(expr_lexer *lx, const char *s)
{
	static const struct { const char *text; enum expr_tok tok; } ops[] = {
		{"->", TK_ARROW}, {"==", TK_EQ}, {"!=", TK_NE}, {"<>", TK_NE}, {"<=", TK_LE},
		{">=", TK_GE}, {"=~", TK_MATCH}, {"!~", TK_NGLOB}, {"(", TK_LP}, {")", TK_RP},
		{"[", TK_LB}, {"]", TK_RB}, {",", TK_COMMA}, {"+", TK_PLUS}, {"-", TK_MINUS},
		{"*", TK_STAR}, {"/", TK_SLASH}, {"%", TK_PCT}, {"=", TK_EQ}, {"<", TK_LT},
		{">", TK_GT}, {"~", TK_GLOB},
	};

	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		size_t k = strlen(ops[i].text);
		if (strncmp(s, ops[i].text, k) == 0) {
			lx->tok = ops[i].tok;
			lx->end = lx->pos + k;
			return;
		}
	}
	expr_lex_error(lx, lx->pos, "unexpected character '%c'", *s);
}

void
expr_lex_next(expr_lexer *lx)
{
	const char *src = lx->src;
	size_t p = lx->end, n;

	if (lx->failed)
		return;
	free(lx->str);
	lx->str = NULL;
	for (;;) {
		while (isspace((unsigned char)src[p]))
			p++;
		if (src[p] != '#')
			break;
		while (src[p] && src[p] != '\n')	/* a comment to the end of the line */
			p++;
	}
	lx->pos = p;
	const char *s = src + p;
	if (!*s) {
		lx->tok = TK_EOF;
		lx->end = p;
	} else if (*s == '"' || *s == '\'')
		lex_string(lx, s);
	else if ((n = scan_number(s, SIZE_MAX)) > 0)	/* the NUL ends the scan */
		lex_number(lx, s, n);
	else if (isalpha((unsigned char)*s) || *s == '_')
		lex_ident(lx, s);
	else
		lex_operator(lx, s);
}

/* ---------- values ---------- */

/* Strict decimal number syntax: [-+]digits[.digits][e[-+]digits]. */
static int
parse_number_text(const char *s, size_t n, double *out)
{
	size_t i = 0;
	char buf[64];

	if (n && (s[0] == '-' || s[0] == '+'))
		i = 1;
	if (n == i || n >= sizeof buf || scan_number(s + i, n - i) != n - i)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*out = strtod(buf, NULL);
	return 0;
}

expr_value
expr_from_text(const char *s, size_t n)
{
	double d;

	if (parse_number_text(s, n, &d) == 0) {
		expr_value v = expr_num(d);
		/* keep the text of integers a double cannot hold exactly */
		if (fabs(d) >= 9007199254740992.0 && !memchr(s, '.', n) && !memchr(s, 'e', n)) {
			v.str = s;
			v.len = n;
		}
		return v;
	}
	if (n == 4 && memcmp(s, "true", 4) == 0)
		return expr_bool(1);
	if (n == 5 && memcmp(s, "false", 5) == 0)
		return expr_bool(0);
	return expr_str(s, n);
}

int
expr_compare(expr_value a, expr_value b)
{
	if (a.type != b.type)
		return a.type < b.type ? -1 : 1;	/* NULL < NUM < STR < BOOL, stable */
	switch (a.type) {
	case EV_NULL:
		return 0;
	case EV_NUM:
	case EV_BOOL:
		return a.num < b.num ? -1 : a.num > b.num;
	case EV_STR: {
		size_t n = a.len < b.len ? a.len : b.len;
		int c = memcmp(a.str, b.str, n);
		return c ? (c < 0 ? -1 : 1) : (a.len < b.len ? -1 : a.len > b.len);
	}
	}
	return 0;
}

const char *
expr_format(expr_value v, char *buf, size_t size, size_t *len)
{
	switch (v.type) {
	case EV_NULL:
		buf[0] = '\0';
		break;
	case EV_BOOL:
		snprintf(buf, size, "%s", v.num ? "true" : "false");
		break;
	case EV_STR:
		*len = v.len;
		return v.str;
	case EV_NUM:
		if (v.str) {
			*len = v.len;
			return v.str;
		}
		if (v.num == floor(v.num) && fabs(v.num) < 9.2e18)
			snprintf(buf, size, "%lld", (long long)v.num);
		else if (isnan(v.num) || isinf(v.num))
			buf[0] = '\0';
		else
			fmt_double(buf, size, v.num);
		break;
	}
	*len = strlen(buf);
	return buf;
}

int
expr_truthy(expr_value v)
{
	switch (v.type) {
	case EV_NUM:
	case EV_BOOL:
		return v.num != 0;
	case EV_STR:
		return v.len > 0;
	default:
		return 0;
	}
}

/* ---------- parser ---------- */

static expr *
node(enum op op, int type)
{
	expr *e = xcalloc(1, sizeof *e);
	e->op = op;
	e->type = type;
	e->slot = -1;
	e->height = 1;
	return e;
}

void
expr_free(expr *e)
{
	if (!e)
		return;
	expr_free(e->a);
	expr_free(e->b);
	for (int i = 0; i < e->nargs; i++)
		expr_free(e->args[i]);
	free(e->args);
	free(e->text);
	if (e->re) {
		regfree(e->re);
		free(e->re);
	}
	free(e);
}

int
expr_static_type(const expr *e)
{
	return e->type;
}

static expr *parse_or(expr_lexer *lx, const expr_hooks *h);

/* e with its children in place: its height, or NULL when the tree grows
 * too high (a long chain such as 1-1-1-... as much as deep nesting). */
static expr *
grown(expr_lexer *lx, expr *e, size_t pos)
{
	int h = 0;

	if (e->a && e->a->height > h)
		h = e->a->height;
	if (e->b && e->b->height > h)
		h = e->b->height;
	for (int i = 0; i < e->nargs; i++)
		if (e->args[i]->height > h)
			h = e->args[i]->height;
	e->height = h + 1;
	if (e->height > MAX_DEPTH) {
		expr_free(e);
		return expr_lex_error(lx, pos, "expression nested too deeply");
	}
	return e;
}

static const char *
type_name(int t)
{
	return t == EV_NUM ? "number" : t == EV_STR ? "string" : t == EV_BOOL ? "boolean" : "null";
}

/* The scalar function named name, or -1. */
static int
find_fn(const char *name, size_t len)
{
	for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++)
		if (strlen(fns[f].name) == len && strncasecmp(fns[f].name, name, len) == 0)
			return (int)f;
	return -1;
}

/* A scalar function call: check the arguments, take them. */
static expr *
scalar_call(expr_lexer *lx, int f, expr **args, int nargs, int distinct, size_t pos)
{
	if (nargs < fns[f].min || nargs > fns[f].max || distinct)
		return expr_lex_error(lx, pos, "%s takes %d argument%s", fns[f].name, fns[f].min,
				      fns[f].min == 1 ? "" : "s");
	for (int i = 0; i < nargs && f != FN_COALESCE; i++)
		if (args[i]->type != -1 && args[i]->type != EV_NUM && args[i]->type != EV_NULL)
			return expr_lex_error(lx, pos, "%s needs numbers, not a %s", fns[f].name,
					      type_name(args[i]->type));
	/* checked before the node takes the arguments: on error the caller frees them */
	for (int i = 0; i < nargs; i++)
		if (args[i]->height >= MAX_DEPTH)
			return expr_lex_error(lx, pos, "expression nested too deeply");
	expr *e = node(OP_FN, f == FN_COALESCE ? -1 : EV_NUM);
	e->fn = f;
	e->args = args;
	e->nargs = nargs;
	return grown(lx, e, pos);
}

/* Any other call goes to hooks->call: an aggregate, read as a slot. */
static expr *
hook_call(expr_lexer *lx, const expr_hooks *h, const char *name, size_t len, expr **args,
	  int nargs, int distinct, size_t pos)
{
	char msg[200] = "";
	strbuf text = {0};

	if (!h || !h->call)
		return expr_lex_error(lx, pos, "unknown function %.*s", (int)len, name);
	expr_call_text(&text, name, len, args, nargs, distinct);
	int slot = h->call(h->ctx, name, len, args, nargs, distinct, msg, sizeof msg);
	if (slot < 0) {
		sb_free(&text);
		return expr_lex_error(lx, pos, "%s", msg[0] ? msg : "unknown function");
	}
	expr *e = node(OP_AGG, -1);
	e->slot = slot;
	e->text = text.s;
	free(args);
	return e;
}

/* name ( [DISTINCT] args ): the current token is '('. */
static expr *
parse_call(expr_lexer *lx, const expr_hooks *h, const char *name, size_t len, size_t pos)
{
	expr **args = NULL, *e = NULL;
	size_t cap = 0;
	int nargs = 0, distinct = 0, f = find_fn(name, len);
	const expr_hooks *argh = f < 0 && h && h->arg_hooks ? h->arg_hooks : h;

	expr_lex_next(lx);
	if (expr_lex_is(lx, "distinct")) {
		distinct = 1;
		expr_lex_next(lx);
	}
	while (lx->tok != TK_RP) {
		GROW(args, cap, (size_t)nargs + 1);
		if (!(args[nargs] = parse_or(lx, argh)))
			goto fail;
		nargs++;
		if (lx->tok != TK_COMMA)
			break;
		expr_lex_next(lx);
		if (lx->tok == TK_RP) {
			expr_lex_error(lx, lx->pos, "expected an argument after ','");
			goto fail;
		}
	}
	if (lx->tok != TK_RP) {
		expr_lex_error(lx, lx->pos, "expected ')' after the arguments of %.*s", (int)len, name);
		goto fail;
	}
	expr_lex_next(lx);
	e = f >= 0 ? scalar_call(lx, f, args, nargs, distinct, pos)
		   : hook_call(lx, h, name, len, args, nargs, distinct, pos);
	if (e)
		return e;
fail:
	for (int i = 0; i < nargs; i++)
		expr_free(args[i]);
	free(args);
	return NULL;
}

static expr *
parse_field(expr_lexer *lx, const expr_hooks *h)
{
	const char *name = lx->src + lx->pos;
	size_t len = lx->end - lx->pos, pos = lx->pos;
	char *key = NULL;
	size_t keylen = 0;
	int type = -1, slot;
	char msg[200] = "";

	expr_lex_next(lx);
	if (lx->tok == TK_LB) {
		expr_lex_next(lx);
		if (lx->tok != TK_STR)
			return expr_lex_error(lx, lx->pos, "expected a quoted key after '['");
		key = lx->str;
		keylen = lx->slen;
		lx->str = NULL;
		expr_lex_next(lx);
		if (lx->tok != TK_RB) {
			free(key);
			return expr_lex_error(lx, lx->pos, "expected ']'");
		}
		expr_lex_next(lx);
	}
	slot = h && h->field ? h->field(h->ctx, name, len, key, keylen, &type, msg, sizeof msg) : -1;
	if (slot < 0) {
		free(key);
		if (!msg[0])
			snprintf(msg, sizeof msg, "unknown name '%.*s'", (int)len, name);
		return expr_lex_error(lx, pos, "%s", msg);
	}
	expr *e = node(OP_SLOT, type);
	e->slot = slot;
	/* The text reads back as the same field: quotes and backslashes of the
	 * key are escaped again. */
	strbuf t = {0};

	sb_add(&t, name, len);
	if (key) {
		sb_adds(&t, "[\"");
		for (size_t i = 0; i < keylen; i++) {
			if (key[i] == '"' || key[i] == '\\')
				sb_addc(&t, '\\');
			sb_addc(&t, key[i]);
		}
		sb_adds(&t, "\"]");
	}
	e->text = t.s;
	free(key);
	return e;
}

/* The resolver of the plain API, reached through the lexer-level parser. */
typedef struct plain_ctx {
	expr_resolve_fn resolve;
	void *ctx;
} plain_ctx;

static int
plain_field(void *ctx, const char *name, size_t len, const char *key, size_t keylen,
	    int *type, char *err, size_t errlen)
{
	plain_ctx *p = ctx;
	(void)keylen;
	*type = -1;
	if (key) {
		snprintf(err, errlen, "'%.*s' takes no subscript", (int)len, name);
		return -1;
	}
	return p->resolve ? p->resolve(p->ctx, name, len) : -1;
}

static expr *
parse_primary(expr_lexer *lx, const expr_hooks *h)
{
	expr *e;

	switch (lx->tok) {
	case TK_NUM:
		e = node(OP_LIT, EV_NUM);
		e->lit = expr_num(lx->num);
		expr_lex_next(lx);
		return e;
	case TK_STR:
		e = node(OP_LIT, EV_STR);
		e->text = lx->str;
		e->lit = expr_str(lx->str, lx->slen);
		lx->str = NULL;
		expr_lex_next(lx);
		return e;
	case TK_LP:
		expr_lex_next(lx);
		if (!(e = parse_or(lx, h)))
			return NULL;
		if (lx->tok != TK_RP) {
			expr_free(e);
			return expr_lex_error(lx, lx->pos, "expected ')'");
		}
		expr_lex_next(lx);
		return e;
	case TK_IDENT:
		if (expr_lex_is(lx, "null") || expr_lex_is(lx, "true") || expr_lex_is(lx, "false")) {
			int isnull = expr_lex_is(lx, "null");
			e = node(OP_LIT, isnull ? EV_NULL : EV_BOOL);
			e->lit = isnull ? expr_null() : expr_bool(expr_lex_is(lx, "true"));
			expr_lex_next(lx);
			return e;
		}
		{
			/* name( : a call; blanks may come before the parenthesis */
			size_t q = lx->end;
			while (lx->src[q] == ' ' || lx->src[q] == '\t')
				q++;
			if (lx->src[q] == '(') {
				const char *name = lx->src + lx->pos;
				size_t len = lx->end - lx->pos, pos = lx->pos;
				expr_lex_next(lx);	/* now at '(' */
				return parse_call(lx, h, name, len, pos);
			}
		}
		return parse_field(lx, h);
	case TK_EOF:
		return expr_lex_error(lx, lx->pos, "unexpected end of the expression");
	case TK_BAD:
		return NULL;
	default:
		return expr_lex_error(lx, lx->pos, "unexpected '%.*s'", (int)(lx->end - lx->pos),
				      lx->src + lx->pos);
	}
}

static int
numeric_ok(const expr *e)
{
	return e->type == -1 || e->type == EV_NUM || e->type == EV_NULL;
}

static expr *
parse_unary(expr_lexer *lx, const expr_hooks *h)
{
	if (++lx->depth > MAX_PARSE_DEPTH)
		return expr_lex_error(lx, lx->pos, "expression nested too deeply");
	expr *e;
	if (lx->tok == TK_MINUS) {
		size_t pos = lx->pos;
		expr_lex_next(lx);
		expr *a = parse_unary(lx, h);
		if (!a)
			return NULL;
		if (!numeric_ok(a)) {
			int t = a->type;
			expr_free(a);
			return expr_lex_error(lx, pos, "cannot negate a %s", type_name(t));
		}
		e = node(OP_NEG, EV_NUM);
		e->a = a;
		e = grown(lx, e, pos);
	} else
		e = parse_primary(lx, h);
	lx->depth--;
	return e;
}

static expr *
binary(expr_lexer *lx, size_t pos, enum op op, int type, expr *a, expr *b)
{
	expr *e = node(op, type);
	e->a = a;
	e->b = b;
	return grown(lx, e, pos);
}

/* One level of left-associative arithmetic: * / % over unary operands
 * (additive 0), + - over products (additive 1). */
static int
arith_op(const expr_lexer *lx, int additive, enum op *op)
{
	if (additive && (lx->tok == TK_PLUS || lx->tok == TK_MINUS))
		*op = lx->tok == TK_PLUS ? OP_ADD : OP_SUB;
	else if (!additive && (lx->tok == TK_STAR || lx->tok == TK_SLASH || lx->tok == TK_PCT))
		*op = lx->tok == TK_STAR ? OP_MUL : lx->tok == TK_SLASH ? OP_DIV : OP_MOD;
	else
		return 0;
	return 1;
}

static expr *
parse_arith(expr_lexer *lx, const expr_hooks *h, int additive)
{
	expr *a = additive ? parse_arith(lx, h, 0) : parse_unary(lx, h);
	enum op op;

	while (a && arith_op(lx, additive, &op)) {
		size_t pos = lx->pos;
		expr_lex_next(lx);
		expr *b = additive ? parse_arith(lx, h, 0) : parse_unary(lx, h);
		if (!b)
			break;
		int bad = !numeric_ok(a) ? a->type : !numeric_ok(b) ? b->type : -1;
		if (!(a = binary(lx, pos, op, EV_NUM, a, b)))
			return NULL;
		if (bad != -1) {
			expr_free(a);
			return expr_lex_error(lx, pos, "arithmetic needs numbers, not a %s",
					      type_name(bad));
		}
	}
	if (lx->failed) {
		expr_free(a);
		return NULL;
	}
	return a;
}

static expr *
parse_add(expr_lexer *lx, const expr_hooks *h)
{
	return parse_arith(lx, h, 1);
}

static int
is_null_lit(const expr *e)
{
	return e->op == OP_LIT && e->lit.type == EV_NULL;
}

/* ---------- regular expressions: a bound before compiling ---------- */

/* The C library compiles a repetition by copying what it repeats: x+ is xx*,
 * x{2,9} nine copies, so "a++++..." doubles with each + and nested counts
 * multiply, until memory runs out. A pattern is measured first in those
 * copies and refused over these bounds; back-references (\1), which make
 * matching exponential, are refused too. */
#define REGEX_MAX_COST 20000.0
#define REGEX_MAX_DEPTH 32

typedef struct re_frame {
	double total;	/* alternatives closed so far */
	double seq;	/* the alternative being read */
	double last;	/* the item a quantifier would repeat */
} re_frame;

/* The bound {n}, {n,} or {n,m} at p: the copies it makes (at least 1); its
 * end in *end, or NULL when p starts no bound (then '{' is a character). */
static double
re_bound(const char *p, const char **end)
{
	char *e;
	double n, m;

	*end = NULL;
	if (p[1] < '0' || p[1] > '9')
		return 1;
	n = strtod(p + 1, &e);
	m = n;
	if (*e == ',') {
		m = n + 1;	/* unbounded: its last copy repeats */
		if (e[1] >= '0' && e[1] <= '9')
			m = strtod(e + 1, &e);
		else
			e++;
	}
	if (*e != '}')
		return 1;
	*end = e;
	return m > n ? (m > 1 ? m : 1) : (n > 1 ? n : 1);
}

/* The end of the bracket expression that starts at p ('['), or NULL. */
static const char *
re_bracket_end(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	for (; *p && *p != ']'; p++)
		if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *q = strchr(p + 2, p[1]);

			while (q && q[1] != ']')
				q = strchr(q + 1, p[1]);
			if (!q)
				return NULL;
			p = q + 1;
		}
	return *p ? p : NULL;
}

/* NULL when pattern is within the bounds, else why not. A malformed
 * pattern is left to regcomp to name. */
static const char *
regex_over_bounds(const char *p)
{
	re_frame st[REGEX_MAX_DEPTH + 1] = {{0, 0, 0}};
	int depth = 0;
	const char *end;

	for (; *p; p++) {
		re_frame *f = &st[depth];
		double k;

		end = NULL;
		switch (*p) {
		case '(':
			if (depth == REGEX_MAX_DEPTH)
				return "groups nested too deep";
			st[++depth] = (re_frame){0, 0, 0};
			continue;
		case ')':
			if (!depth)
				break;	/* a character */
			k = f->total + f->seq + 1;
			f = &st[--depth];
			f->seq += k;
			f->last = k;
			continue;
		case '|':
			f->total += f->seq;
			f->seq = f->last = 0;
			continue;
		case '*':
		case '?':
			f->seq += 1;
			f->last += 1;
			continue;
		case '+':
			f->seq += f->last;
			f->last *= 2;
			break;
		case '{':
			k = re_bound(p, &end);
			if (!end)
				break;
			f->seq += f->last * (k - 1);
			f->last *= k;
			p = end;
			break;
		case '[':
			if (!(end = re_bracket_end(p)))
				return NULL;
			p = end;
			f->seq += 1;
			f->last = 1;
			continue;
		case '\\':
			if (p[1] >= '1' && p[1] <= '9')
				return "back-references (\\1 to \\9) are not supported";
			if (p[1])
				p++;
			f->seq += 1;
			f->last = 1;
			continue;
		default:
			f->seq += 1;
			f->last = 1;
			continue;
		}
		if (*p == ')' || (*p == '{' && !end)) {	/* read as a character */
			f->seq += 1;
			f->last = 1;
		}
		if (f->total + f->seq > REGEX_MAX_COST)
			return "too large once its repetitions are expanded (at most 20000 copies of its "
			       "characters: fewer or smaller counts, no stacked + or {n})";
	}
	for (double sum = 0; depth >= 0; depth--)
		if ((sum += st[depth].total + st[depth].seq) > REGEX_MAX_COST)
			return "too large once its repetitions are expanded (at most 20000 copies of its "
			       "characters: fewer or smaller counts, no stacked + or {n})";
	return NULL;
}

/* Glob and regex: strings on both sides; a regex is a literal, compiled once. */
static expr *
check_match(expr_lexer *lx, expr *e, size_t pos)
{
	const expr *a = e->a, *b = e->b;
	char m[128];
	int rc;

	if ((a->type != -1 && a->type != EV_STR) || (b->type != -1 && b->type != EV_STR)) {
		expr_free(e);
		return expr_lex_error(lx, pos, "~ and =~ match strings");
	}
	if (e->op != OP_MATCH)
		return e;
	if (b->op != OP_LIT) {
		expr_free(e);
		return expr_lex_error(lx, pos, "=~ needs a quoted regular expression");
	}
	const char *over = regex_over_bounds(b->lit.str);

	if (over) {
		expr_free(e);
		return expr_lex_error(lx, pos, "regular expression %s", over);
	}
	e->re = xmalloc(sizeof *e->re);
	if ((rc = regcomp(e->re, b->lit.str, REG_EXTENDED | REG_NOSUB)) != 0) {
		regerror(rc, e->re, m, sizeof m);
		free(e->re);
		e->re = NULL;
		expr_free(e);
		return expr_lex_error(lx, pos, "bad regular expression: %s", m);
	}
	return e;
}

static expr *
parse_cmp(expr_lexer *lx, const expr_hooks *h)
{
	expr *a = parse_add(lx, h);
	enum op op;

	if (!a)
		return NULL;
	switch (lx->tok) {
	case TK_EQ: op = OP_EQ; break;
	case TK_NE: op = OP_NE; break;
	case TK_LT: op = OP_LT; break;
	case TK_LE: op = OP_LE; break;
	case TK_GT: op = OP_GT; break;
	case TK_GE: op = OP_GE; break;
	case TK_GLOB: op = OP_GLOB; break;
	case TK_NGLOB: op = OP_NGLOB; break;
	case TK_MATCH: op = OP_MATCH; break;
	default: return a;
	}
	size_t pos = lx->pos;
	expr_lex_next(lx);
	expr *b = parse_add(lx, h);
	if (!b) {
		expr_free(a);
		return NULL;
	}
	if ((op == OP_EQ || op == OP_NE) && (is_null_lit(a) || is_null_lit(b))) {
		expr *v = is_null_lit(a) ? b : a;
		expr_free(is_null_lit(a) ? a : b);
		expr *e = node(op == OP_EQ ? OP_ISNULL : OP_NOTNULL, EV_BOOL);
		e->a = v;
		return grown(lx, e, pos);
	}
	expr *e = binary(lx, pos, op, EV_BOOL, a, b);
	if (!e)
		return NULL;
	if (op == OP_GLOB || op == OP_NGLOB || op == OP_MATCH)
		return check_match(lx, e, pos);
	int ta = a->type, tb = b->type;
	if (ta != -1 && tb != -1 && ta != EV_NULL && tb != EV_NULL && ta != tb) {
		expr_free(e);
		return expr_lex_error(lx, pos, "cannot compare a %s with a %s", type_name(ta),
				      type_name(tb));
	}
	return e;
}

static expr *
parse_not(expr_lexer *lx, const expr_hooks *h)
{
	if (expr_lex_is(lx, "not")) {
		size_t pos = lx->pos;

		if (++lx->depth > MAX_PARSE_DEPTH)
			return expr_lex_error(lx, lx->pos, "expression nested too deeply");
		expr_lex_next(lx);
		expr *a = parse_not(lx, h);
		lx->depth--;
		if (!a)
			return NULL;
		expr *e = node(OP_NOT, EV_BOOL);
		e->a = a;
		return grown(lx, e, pos);
	}
	return parse_cmp(lx, h);
}

static expr *
parse_and(expr_lexer *lx, const expr_hooks *h)
{
	expr *a = parse_not(lx, h);

	while (a && expr_lex_is(lx, "and")) {
		size_t pos = lx->pos;

		expr_lex_next(lx);
		expr *b = parse_not(lx, h);
		if (!b) {
			expr_free(a);
			return NULL;
		}
		a = binary(lx, pos, OP_AND, EV_BOOL, a, b);
	}
	return a;
}

static expr *
parse_or(expr_lexer *lx, const expr_hooks *h)
{
	if (++lx->depth > MAX_PARSE_DEPTH)
		return expr_lex_error(lx, lx->pos, "expression nested too deeply");
	expr *a = parse_and(lx, h);

	while (a && expr_lex_is(lx, "or")) {
		size_t pos = lx->pos;

		expr_lex_next(lx);
		expr *b = parse_and(lx, h);
		if (!b) {
			expr_free(a);
			return NULL;
		}
		a = binary(lx, pos, OP_OR, EV_BOOL, a, b);
	}
	lx->depth--;
	return a;
}

expr *
expr_parse_lx(expr_lexer *lx, const expr_hooks *h)
{
	if (lx->failed)
		return NULL;
	expr *e = parse_or(lx, h);
	if (lx->failed) {
		expr_free(e);
		return NULL;
	}
	return e;
}

expr *
expr_parse(const char *src, expr_resolve_fn resolve, void *ctx, char *err, size_t errlen,
	   size_t *errpos)
{
	expr_lexer lx;
	plain_ctx pc = {resolve, ctx};
	expr_hooks h = {plain_field, NULL, &pc, NULL};

	expr_lex_init(&lx, src, err, errlen);
	expr *e = expr_parse_lx(&lx, &h);
	if (e && lx.tok != TK_EOF) {
		expr_free(e);
		e = expr_lex_error(&lx, lx.pos, "unexpected '%.*s' after the expression",
				   (int)(lx.end - lx.pos), src + lx.pos);
	}
	if (!e && errpos)
		*errpos = lx.errpos;
	expr_lex_free(&lx);
	return e;
}

/* ---------- evaluation ---------- */

/* A value as a number for arithmetic: numbers, and strings that read as one. */
static int
as_number(expr_value v, double *d)
{
	if (v.type == EV_NUM) {
		*d = v.num;
		return 0;
	}
	if (v.type == EV_STR)
		return parse_number_text(v.str, v.len, d);
	return -1;
}

/* -2 when a and b cannot be compared (null, mixed types) */
static int
compare_values(expr_value a, expr_value b)
{
	double x, y;

	if (a.type == EV_NULL || b.type == EV_NULL)
		return -2;
	if (a.type == EV_STR && b.type == EV_STR)
		return expr_compare(a, b);
	if (a.type == EV_BOOL || b.type == EV_BOOL)
		return a.type == b.type ? expr_compare(a, b) : -2;
	if (as_number(a, &x) < 0 || as_number(b, &y) < 0)
		return -2;
	return x < y ? -1 : x > y;
}

static expr_value
eval_fn(const expr *e, const expr_value *slots)
{
	double x, w;

	if (e->fn == FN_COALESCE) {
		for (int i = 0; i < e->nargs; i++) {
			expr_value v = expr_eval(e->args[i], slots);
			if (v.type != EV_NULL)
				return v;
		}
		return expr_null();
	}
	if (as_number(expr_eval(e->args[0], slots), &x) < 0)
		return expr_null();
	switch (e->fn) {
	case FN_BUCKET:
		if (as_number(expr_eval(e->args[1], slots), &w) < 0 || w <= 0)
			return expr_null();
		return expr_num(floor(x / w) * w);
	case FN_ABS: return expr_num(fabs(x));
	case FN_FLOOR: return expr_num(floor(x));
	case FN_CEIL: return expr_num(ceil(x));
	case FN_ROUND: return expr_num(round(x));
	}
	return expr_null();
}

static expr_value
eval_arith(const expr *e, const expr_value *slots)
{
	double x, y;

	if (as_number(expr_eval(e->a, slots), &x) < 0 || as_number(expr_eval(e->b, slots), &y) < 0)
		return expr_null();
	switch (e->op) {
	case OP_ADD: return expr_num(x + y);
	case OP_SUB: return expr_num(x - y);
	case OP_MUL: return expr_num(x * y);
	case OP_DIV: return y == 0 ? expr_null() : expr_num(x / y);
	case OP_MOD: return y == 0 ? expr_null() : expr_num(fmod(x, y));
	default: return expr_null();
	}
}

static expr_value
eval_match(const expr *e, const expr_value *slots)
{
	expr_value a = expr_eval(e->a, slots), b = expr_eval(e->b, slots);
	char buf[32];
	size_t len;

	if (a.type == EV_NULL || b.type != EV_STR)
		return expr_bool(0);
	if (a.type != EV_STR)	/* match numbers by their text */
		a = expr_str(expr_format(a, buf, sizeof buf, &len), len);
	if (e->op == OP_MATCH)
		return expr_bool(regexec(e->re, a.str, 0, NULL, 0) == 0);
	int m = fnmatch(b.str, a.str, 0) == 0;
	return expr_bool(e->op == OP_GLOB ? m : !m);
}

expr_value
expr_eval(const expr *e, const expr_value *slots)
{
	int c;

	switch (e->op) {
	case OP_LIT:
		return e->lit;
	case OP_SLOT:
	case OP_AGG:
		return slots[e->slot];
	case OP_NEG: {
		double x;
		return as_number(expr_eval(e->a, slots), &x) < 0 ? expr_null() : expr_num(-x);
	}
	case OP_NOT:
		return expr_bool(!expr_truthy(expr_eval(e->a, slots)));
	case OP_AND:
		return expr_bool(expr_truthy(expr_eval(e->a, slots)) &&
				 expr_truthy(expr_eval(e->b, slots)));
	case OP_OR:
		return expr_bool(expr_truthy(expr_eval(e->a, slots)) ||
				 expr_truthy(expr_eval(e->b, slots)));
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_MOD:
		return eval_arith(e, slots);
	case OP_ISNULL:
		return expr_bool(expr_eval(e->a, slots).type == EV_NULL);
	case OP_NOTNULL:
		return expr_bool(expr_eval(e->a, slots).type != EV_NULL);
	case OP_GLOB: case OP_NGLOB: case OP_MATCH:
		return eval_match(e, slots);
	case OP_FN:
		return eval_fn(e, slots);
	default:
		break;
	}
	c = compare_values(expr_eval(e->a, slots), expr_eval(e->b, slots));
	if (c == -2)
		return expr_bool(0);
	switch (e->op) {
	case OP_EQ: return expr_bool(c == 0);
	case OP_NE: return expr_bool(c != 0);
	case OP_LT: return expr_bool(c < 0);
	case OP_LE: return expr_bool(c <= 0);
	case OP_GT: return expr_bool(c > 0);
	case OP_GE: return expr_bool(c >= 0);
	default: return expr_null();
	}
}

/* ---------- printing ---------- */

static const char *const op_text[] = {
	[OP_AND] = "and", [OP_OR] = "or", [OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*",
	[OP_DIV] = "/", [OP_MOD] = "%", [OP_EQ] = "==", [OP_NE] = "!=", [OP_LT] = "<",
	[OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=", [OP_GLOB] = "~", [OP_NGLOB] = "!~",
	[OP_MATCH] = "=~",
};

/* Binding strength, loosest first; a child is parenthesized only where
 * the parser would otherwise group it differently. */
static int
precedence(const expr *e)
{
	switch (e->op) {
	case OP_OR: return 1;
	case OP_AND: return 2;
	case OP_NOT: return 3;
	case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
	case OP_ISNULL: case OP_NOTNULL: case OP_GLOB: case OP_NGLOB: case OP_MATCH:
		return 4;
	case OP_ADD: case OP_SUB: return 5;
	case OP_MUL: case OP_DIV: case OP_MOD: return 6;
	case OP_NEG: return 7;
	default: return 8;
	}
}

static void
print_child(const expr *e, strbuf *b, int parens)
{
	if (parens)
		sb_addc(b, '(');
	expr_print(e, b);
	if (parens)
		sb_addc(b, ')');
}

static void
print_literal(const expr_value *v, strbuf *b)
{
	char buf[32];
	size_t len;
	const char *s;

	if (v->type == EV_STR) {
		sb_addc(b, '"');
		for (size_t i = 0; i < v->len; i++) {
			if (v->str[i] == '"' || v->str[i] == '\\')
				sb_addc(b, '\\');
			sb_addc(b, v->str[i]);
		}
		sb_addc(b, '"');
	} else if (v->type == EV_NULL)
		sb_adds(b, "null");
	else {
		s = expr_format(*v, buf, sizeof buf, &len);
		sb_add(b, s, len);
	}
}

void
expr_print(const expr *e, strbuf *b)
{
	int p = precedence(e);

	switch (e->op) {
	case OP_LIT:
		print_literal(&e->lit, b);
		return;
	case OP_SLOT:
	case OP_AGG:
		sb_adds(b, e->text);
		return;
	case OP_NEG:
		sb_adds(b, e->a->op == OP_NEG ? "- " : "-");
		print_child(e->a, b, precedence(e->a) < p);
		return;
	case OP_NOT:
		sb_adds(b, "not ");
		print_child(e->a, b, precedence(e->a) < p);
		return;
	case OP_ISNULL:
	case OP_NOTNULL:
		print_child(e->a, b, precedence(e->a) <= p);
		sb_adds(b, e->op == OP_ISNULL ? " == null" : " != null");
		return;
	case OP_FN:
		sb_adds(b, fns[e->fn].name);
		sb_addc(b, '(');
		for (int i = 0; i < e->nargs; i++) {
			if (i)
				sb_adds(b, ", ");
			expr_print(e->args[i], b);
		}
		sb_addc(b, ')');
		return;
	default:
		/* left-associative, except comparisons, which do not chain */
		print_child(e->a, b, precedence(e->a) < p || (p == 4 && precedence(e->a) == p));
		sb_addf(b, " %s ", op_text[e->op]);
		print_child(e->b, b, precedence(e->b) <= p);
	}
}

int
expr_slot(const expr *e)
{
	return e && (e->op == OP_SLOT || e->op == OP_AGG) ? e->slot : -1;
}

size_t
expr_string_equalities(const expr *e, int *slot, const char **text, size_t max)
{
	size_t n = 0;

	if (!e || !max)
		return 0;
	if (e->op == OP_EQ) {
		const expr *s = e->a->op == OP_SLOT ? e->a : e->b, *l = s == e->a ? e->b : e->a;

		if (s->op == OP_SLOT && l->op == OP_LIT && l->lit.type == EV_STR) {
			slot[0] = s->slot;
			text[0] = l->lit.str;
			return 1;
		}
	}
	for (int i = 0; i < e->nargs && n < max; i++)
		n += expr_string_equalities(e->args[i], slot + n, text + n, max - n);
	n += expr_string_equalities(e->a, slot + n, text + n, max - n);
	n += expr_string_equalities(e->b, slot + n, text + n, max - n);
	return n;
}

int
expr_has_call(const expr *e)
{
	if (!e)
		return 0;
	if (e->op == OP_AGG)
		return 1;
	for (int i = 0; i < e->nargs; i++)
		if (expr_has_call(e->args[i]))
			return 1;
	return expr_has_call(e->a) || expr_has_call(e->b);
}

int
expr_constant(const expr *e, expr_value *v)
{
	if (!e || e->op == OP_SLOT || e->op == OP_AGG)
		return e == NULL;
	for (int i = 0; i < e->nargs; i++)
		if (!expr_constant(e->args[i], v))
			return 0;
	if (!expr_constant(e->a, v) || !expr_constant(e->b, v))
		return 0;
	*v = expr_eval(e, NULL);
	return 1;
}

void
expr_call_text(strbuf *b, const char *name, size_t len, expr *const *args, int nargs,
	       int distinct)
{
	for (size_t i = 0; i < len; i++)
		sb_addc(b, (char)toupper((unsigned char)name[i]));
	if (!nargs && !distinct)
		return;
	sb_adds(b, distinct ? "(DISTINCT " : "(");
	for (int i = 0; i < nargs; i++) {
		if (i)
			sb_adds(b, ", ");
		expr_print(args[i], b);
	}
	sb_addc(b, ')');
}
