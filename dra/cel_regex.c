/* SPDX-License-Identifier: Apache-2.0 */
/* RE2 patterns as POSIX EREs (cel_regex.h): a recursive-descent reader of
 * Go's regexp/syntax (Perl flags, as regexp.Compile uses) that writes the
 * equivalent ERE as it goes, or says why it cannot. Character classes are
 * gathered as a set of ASCII bytes (plus "and every non-ASCII character")
 * and written back as one bracket expression in an order POSIX reads
 * unambiguously. */
#include "dra/cel_regex.h"

#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"
#include "base/xalloc.h"

/* Go's limits: a repetition count up to 1000, nested counts multiplying to
 * at most 1000; ours: groups nested 100 deep. */
#define MAX_REPEAT 1000
#define MAX_GROUP_DEPTH 100
#define MAX_POSIX_TEXT (1u << 20)

struct cel_regex {
	regex_t re;
	bool width;    /* can match a non-ASCII character */
	size_t size;   /* expanded atoms */
	char *posix;
};

/* A set of characters: the ASCII bytes, and whether every non-ASCII
 * character belongs too. */
struct cset {
	bool bit[128];
	bool nonascii;
};

/* What a piece of the pattern amounts to. */
struct piece {
	unsigned long size;  /* expanded atoms, capped */
	unsigned long need;  /* Go's repeatIsValid budget the piece needs */
	bool anchor;         /* ^ $ \A \z */
};

struct tr {
	const char *s;
	size_t n, i;
	struct textbuf out;
	bool width;
	enum cel_regex_status st;
	char *why;
	size_t why_size;
	unsigned depth;
};

static bool fail(struct tr *t, enum cel_regex_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool fail(struct tr *t, enum cel_regex_status st, const char *fmt, ...)
{
	va_list ap;
	struct textbuf tb;

	if (t->st == CEL_REGEX_OK) {
		t->st = st;
		if (t->why_size > 0) {
			textbuf_init_fixed(&tb, t->why, t->why_size);
			va_start(ap, fmt);
			textbuf_vprintf(&tb, fmt, ap);
			va_end(ap);
		}
	}
	return false;
}

static char at(const struct tr *t, size_t k)
{
	return t->i + k < t->n ? t->s[t->i + k] : '\0';
}

static bool more(const struct tr *t)
{
	return t->i < t->n;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alnum(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void set_range(struct cset *cs, unsigned lo, unsigned hi)
{
	for (unsigned c = lo; c <= hi && c < 128; c++)
		cs->bit[c] = true;
}

static void set_merge(struct cset *into, const struct cset *from)
{
	for (unsigned c = 0; c < 128; c++)
		into->bit[c] = into->bit[c] || from->bit[c];
	into->nonascii = into->nonascii || from->nonascii;
}

static void set_negate(struct cset *cs)
{
	for (unsigned c = 0; c < 128; c++)
		cs->bit[c] = !cs->bit[c];
	cs->nonascii = !cs->nonascii;
}

/* RE2's ASCII classes, by the letter of \d \w \s or the POSIX name. */
static bool named_class(const char *name, size_t len, struct cset *cs)
{
	static const struct {
		const char *name;
		const char *ranges; /* pairs lo, hi */
	} classes[] = {
		{ "d", "09" }, { "digit", "09" }, { "w", "09AZaz__" }, { "word", "09AZaz__" },
		{ "s", "\t\n\f\r  " }, { "alnum", "09AZaz" }, { "alpha", "AZaz" },
		{ "ascii", "\x01\x7f" }, { "blank", "  \t\t" }, { "cntrl", "\x01\x1f\x7f\x7f" },
		{ "graph", "!~" }, { "lower", "az" }, { "print", " ~" },
		{ "punct", "!/:@[`{~" }, { "space", "\t\r  " }, { "upper", "AZ" },
		{ "xdigit", "09AFaf" },
	};

	memset(cs, 0, sizeof *cs);
	for (size_t k = 0; k < sizeof classes / sizeof classes[0]; k++) {
		const char *r = classes[k].ranges;

		if (strlen(classes[k].name) != len || memcmp(classes[k].name, name, len) != 0)
			continue;
		for (; r[0] && r[1]; r += 2)
			set_range(cs, (unsigned char)r[0], (unsigned char)r[1]);
		if (strcmp(classes[k].name, "ascii") == 0 || strcmp(classes[k].name, "cntrl") == 0)
			cs->bit[0] = true;
		return true;
	}
	return false;
}

/* Writes a set as one bracket expression: ']' first, '[' '^' '-' last,
 * never "[." "[:" "[=" inside, a '^' never first. */
static void emit_set(struct tr *t, const struct cset *cs)
{
	static const char last[] = "[^-";
	bool any = false;

	if (cs->nonascii)
		t->width = true;
	for (unsigned c = 1; c < 128; c++)
		any = any || cs->bit[c];
	if (!any) {
		/* Nothing ASCII (but NUL): only a byte >= 0x80 matches, which a
		 * text this engine decides never holds. */
		t->width = true;
		textbuf_adds(&t->out, "[^\x01-\x7f]");
		return;
	}
	if (cs->bit['^'] && !cs->bit['-']) {
		bool only = true;

		for (unsigned c = 1; c < 128; c++)
			only = only && (c == '^' || !cs->bit[c]);
		if (only) {
			textbuf_adds(&t->out, "\\^");
			return;
		}
	}
	textbuf_addc(&t->out, '[');
	if (cs->bit[']'])
		textbuf_addc(&t->out, ']');
	for (unsigned c = 1; c < 128; c++) {
		unsigned hi = c;

		if (!cs->bit[c] || c == ']' || strchr(last, (int)c))
			continue;
		while (hi + 1 < 128 && cs->bit[hi + 1] && hi + 1 != ']' &&
		       !strchr(last, (int)(hi + 1)))
			hi++;
		textbuf_addc(&t->out, (char)c);
		if (hi >= c + 2)
			textbuf_addc(&t->out, '-');
		if (hi >= c + 1)
			textbuf_addc(&t->out, (char)hi);
		c = hi;
	}
	if (cs->bit['['])
		textbuf_addc(&t->out, '[');
	if (cs->bit['^'] && textbuf_str(&t->out)[textbuf_len(&t->out) - 1] == '[' &&
	    !cs->bit['['] && !cs->bit[']']) {
		/* '^' would be first: put '-' before it. */
		textbuf_adds(&t->out, "-^");
	} else {
		if (cs->bit['^'])
			textbuf_addc(&t->out, '^');
		if (cs->bit['-'])
			textbuf_addc(&t->out, '-');
	}
	textbuf_addc(&t->out, ']');
}

static void emit_literal(struct tr *t, char c)
{
	if (strchr(".[\\()*+?{|^$", c))
		textbuf_addc(&t->out, '\\');
	else if (c == ']' || c == '}')
		textbuf_addc(&t->out, '[');
	textbuf_addc(&t->out, c);
	if (c == ']' || c == '}')
		textbuf_addc(&t->out, ']');
}

static int hex_digit(char c)
{
	if (is_digit(c))
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return -1;
}

/* \x41 or \x{41}: the code point, or -1. */
static long hex_escape(struct tr *t)
{
	long v = 0;

	if (at(t, 0) == '{') {
		size_t k = 1;

		for (; hex_digit(at(t, k)) >= 0; k++) {
			v = v * 16 + hex_digit(at(t, k));
			if (v > 0x10FFFF)
				return -1;
		}
		if (k == 1 || at(t, k) != '}')
			return -1;
		t->i += k + 1;
		return v;
	}
	if (hex_digit(at(t, 0)) < 0 || hex_digit(at(t, 1)) < 0)
		return -1;
	v = hex_digit(at(t, 0)) * 16 + hex_digit(at(t, 1));
	t->i += 2;
	return v;
}

enum esc { ESC_FAIL, ESC_CHAR, ESC_SET, ESC_BEGIN, ESC_END };

/* One escape, t->i past the backslash: a character, a class or an anchor. */
static enum esc escape(struct tr *t, bool in_class, unsigned *ch, struct cset *cs)
{
	static const char controls[] = "a\af\ft\tn\nr\rv\v";
	char c = at(t, 0);
	const char *p;

	if (!more(t))
		return fail(t, CEL_REGEX_INVALID, "trailing backslash at end of expression"),
		       ESC_FAIL;
	t->i++;
	if (is_digit(c))
		return fail(t, CEL_REGEX_UNSUPPORTED, "octal escapes and backreferences (\\%c)", c),
		       ESC_FAIL;
	if ((p = strchr("dDwWsS", c)) != NULL && c) {
		char name[2] = { (char)(c | 0x20), '\0' };

		named_class(name, 1, cs);
		if (c >= 'A' && c <= 'Z')
			set_negate(cs);
		return ESC_SET;
	}
	if (c == 'x') {
		long v = hex_escape(t);

		if (v < 0)
			return fail(t, CEL_REGEX_INVALID, "invalid escape sequence \\x"), ESC_FAIL;
		if (v == 0 || v >= 0x80)
			return fail(t, CEL_REGEX_UNSUPPORTED,
				    "\\x escapes of NUL or non-ASCII characters"), ESC_FAIL;
		*ch = (unsigned)v;
		return ESC_CHAR;
	}
	for (size_t k = 0; controls[k]; k += 2) {
		if (controls[k] == c) {
			*ch = (unsigned char)controls[k + 1];
			return ESC_CHAR;
		}
	}
	if (!in_class && (c == 'A' || c == 'z'))
		return c == 'A' ? ESC_BEGIN : ESC_END;
	if (c == 'b' || c == 'B')
		return fail(t, CEL_REGEX_UNSUPPORTED, "word boundaries (\\%c)", c), ESC_FAIL;
	if (c == 'p' || c == 'P')
		return fail(t, CEL_REGEX_UNSUPPORTED, "Unicode classes (\\%c)", c), ESC_FAIL;
	if (c == 'Q')
		return fail(t, CEL_REGEX_UNSUPPORTED, "quoting with \\Q...\\E"), ESC_FAIL;
	if ((unsigned char)c < 0x80 && !is_alnum(c)) {
		if (c == '\0')
			return fail(t, CEL_REGEX_UNSUPPORTED, "NUL in a pattern"), ESC_FAIL;
		*ch = (unsigned char)c;
		return ESC_CHAR;
	}
	return fail(t, CEL_REGEX_INVALID, "invalid escape sequence"), ESC_FAIL;
}

/* One character of a pattern (not an escape): ASCII, not NUL. */
static bool plain_char(struct tr *t, unsigned *ch)
{
	unsigned char c = (unsigned char)at(t, 0);

	if (c == 0)
		return fail(t, CEL_REGEX_UNSUPPORTED, "NUL in a pattern");
	if (c >= 0x80)
		return fail(t, CEL_REGEX_UNSUPPORTED, "non-ASCII characters in a pattern");
	t->i++;
	*ch = c;
	return true;
}

/* One member of a bracket: a character (maybe a range's end) or a class. */
static enum esc class_item(struct tr *t, unsigned *ch, struct cset *cs)
{
	if (at(t, 0) == '\\') {
		t->i++;
		return escape(t, true, ch, cs);
	}
	return plain_char(t, ch) ? ESC_CHAR : ESC_FAIL;
}

static bool parse_class(struct tr *t, struct piece *p)
{
	struct cset set, item;
	bool negated, first = true;

	memset(&set, 0, sizeof set);
	t->i++;
	negated = at(t, 0) == '^';
	if (negated)
		t->i++;
	for (;;) {
		unsigned lo, hi;
		enum esc e;

		if (!more(t))
			return fail(t, CEL_REGEX_INVALID, "missing closing ]");
		if (at(t, 0) == ']' && !first) {
			t->i++;
			break;
		}
		first = false;
		if (at(t, 0) == '[' && at(t, 1) == ':') {
			const char *close = NULL;

			for (size_t k = t->i + 2; k + 1 < t->n; k++) {
				if (t->s[k] == ':' && t->s[k + 1] == ']') {
					close = t->s + k;
					break;
				}
			}
			if (close != NULL) {
				const char *name = t->s + t->i + 2;

				if (name[0] == '^')
					return fail(t, CEL_REGEX_UNSUPPORTED,
						    "negated POSIX classes ([:^name:])");
				if (!named_class(name, (size_t)(close - name), &item) ||
				    (close - name) <= 1)
					return fail(t, CEL_REGEX_INVALID,
						    "invalid character class range");
				set_merge(&set, &item);
				t->i = (size_t)(close - t->s) + 2;
				continue;
			}
		}
		memset(&item, 0, sizeof item);
		e = class_item(t, &lo, &item);
		if (e == ESC_FAIL)
			return false;
		if (e == ESC_SET) {
			set_merge(&set, &item);
			continue;
		}
		if (at(t, 0) == '-' && at(t, 1) != ']' && t->i + 1 < t->n) {
			t->i++;
			if (class_item(t, &hi, &item) != ESC_CHAR)
				return t->st == CEL_REGEX_OK ? fail(t, CEL_REGEX_INVALID,
								    "invalid character class range")
							     : false;
			if (hi < lo)
				return fail(t, CEL_REGEX_INVALID, "invalid character class range");
			set_range(&set, lo, hi);
		} else {
			set_range(&set, lo, lo);
		}
	}
	if (negated)
		set_negate(&set);
	emit_set(t, &set);
	p->size = 1;
	return true;
}

static bool parse_alt(struct tr *t, struct piece *p);

static bool parse_group(struct tr *t, struct piece *p)
{
	t->i++;
	if (at(t, 0) == '?') {
		char c = at(t, 1);

		if (c == ':') {
			t->i += 2;
		} else if (c == '=' || c == '!' ||
			   (c == '<' && (at(t, 2) == '=' || at(t, 2) == '!'))) {
			return fail(t, CEL_REGEX_INVALID, "lookaround is not RE2 syntax");
		} else if (c == '<' || (c == 'P' && at(t, 2) == '<')) {
			size_t k = c == '<' ? 2 : 3, start = k;

			while (is_alnum(at(t, k)) || at(t, k) == '_')
				k++;
			if (k == start || at(t, k) != '>')
				return fail(t, CEL_REGEX_INVALID, "invalid named capture");
			t->i += k + 1;
		} else {
			size_t k = 1;

			while (strchr("imsU-", at(t, k)) && at(t, k))
				k++;
			if (k > 1 && (at(t, k) == ')' || at(t, k) == ':'))
				return fail(t, CEL_REGEX_UNSUPPORTED,
					    "flags such as (?i) or (?s:...)");
			return fail(t, CEL_REGEX_INVALID, "invalid or unsupported Perl syntax");
		}
	}
	if (++t->depth > MAX_GROUP_DEPTH)
		return fail(t, CEL_REGEX_UNSUPPORTED, "groups nested deeper than %d",
			    MAX_GROUP_DEPTH);
	textbuf_addc(&t->out, '(');
	if (!parse_alt(t, p))
		return false;
	if (at(t, 0) != ')' || !more(t))
		return fail(t, CEL_REGEX_INVALID, "missing closing )");
	t->i++;
	t->depth--;
	textbuf_addc(&t->out, ')');
	p->anchor = false;
	return true;
}

/* {n}, {n,} or {n,m} at s[k] (Go's parseRepeat); *end past it. max -1:
 * no upper bound. Anything else makes '{' a literal. */
static bool repeat_braces(const struct tr *t, size_t k, long *min, long *max, size_t *end)
{
	long v[2] = { -1, -1 };
	int which = 0;

	if (k >= t->n || t->s[k] != '{')
		return false;
	k++;
	for (;;) {
		size_t start = k;
		long x = 0;

		while (k < t->n && is_digit(t->s[k])) {
			if (x < 100000000)
				x = x * 10 + (t->s[k] - '0');
			k++;
		}
		if (k == start) {
			if (which == 0)
				return false;
		} else {
			if (k - start > 1 && t->s[start] == '0')
				return false;
			v[which] = x;
		}
		if (k < t->n && t->s[k] == ',' && which == 0) {
			which = 1;
			k++;
			continue;
		}
		break;
	}
	if (k >= t->n || t->s[k] != '}')
		return false;
	*min = v[0];
	*max = which == 0 ? v[0] : v[1];
	*end = k + 1;
	return true;
}

static bool quantifier_next(const struct tr *t)
{
	long a, b;
	size_t e;

	return at(t, 0) == '*' || at(t, 0) == '+' || at(t, 0) == '?' ||
	       repeat_braces(t, t->i, &a, &b, &e);
}

static unsigned long mul_cap(unsigned long a, unsigned long b)
{
	return b != 0 && a > (CEL_REGEX_MAX_SIZE + 1ul) / b ? CEL_REGEX_MAX_SIZE + 1ul : a * b;
}

static bool parse_atom(struct tr *t, struct piece *p)
{
	unsigned ch = 0;
	struct cset cs;
	long a, b;
	size_t e;

	memset(p, 0, sizeof *p);
	p->size = 1;
	switch (at(t, 0)) {
	case '(':
		return parse_group(t, p);
	case '[':
		return parse_class(t, p);
	case '.':
		t->i++;
		t->width = true;
		textbuf_adds(&t->out, "[^\n]");
		return true;
	case '^':
	case '$':
		textbuf_addc(&t->out, at(t, 0));
		t->i++;
		p->anchor = true;
		return true;
	case '*':
	case '+':
	case '?':
		return fail(t, CEL_REGEX_INVALID, "missing argument to repetition operator");
	case '{':
		if (repeat_braces(t, t->i, &a, &b, &e))
			return fail(t, CEL_REGEX_INVALID,
				    "missing argument to repetition operator");
		t->i++;
		emit_literal(t, '{');
		return true;
	case '\\':
		t->i++;
		memset(&cs, 0, sizeof cs);
		switch (escape(t, false, &ch, &cs)) {
		case ESC_FAIL:
			return false;
		case ESC_SET:
			emit_set(t, &cs);
			return true;
		case ESC_BEGIN:
		case ESC_END:
			textbuf_addc(&t->out, t->s[t->i - 1] == 'A' ? '^' : '$');
			p->anchor = true;
			return true;
		case ESC_CHAR:
			emit_literal(t, (char)ch);
			return true;
		}
		return false;
	default:
		if (!plain_char(t, &ch))
			return false;
		emit_literal(t, (char)ch);
		return true;
	}
}

/* An atom and its repetition, if any: * + ? {n} {n,} {n,m}, each maybe
 * followed by '?' (non-greedy, dropped: it never changes whether a text
 * matches). */
static bool parse_repeat(struct tr *t, struct piece *p)
{
	long min = 0, max = -1;
	size_t end;
	unsigned long m;

	if (!parse_atom(t, p))
		return false;
	if (!quantifier_next(t))
		return true;
	if (p->anchor)
		return fail(t, CEL_REGEX_UNSUPPORTED, "repetition of an anchor (^* or $+)");
	if (at(t, 0) == '{') {
		repeat_braces(t, t->i, &min, &max, &end);
		if (min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max))
			return fail(t, CEL_REGEX_INVALID, "invalid repeat count");
		t->i = end;
		if (max == min)
			textbuf_printf(&t->out, "{%ld}", min);
		else if (max < 0)
			textbuf_printf(&t->out, "{%ld,}", min);
		else
			textbuf_printf(&t->out, "{%ld,%ld}", min, max);
		/* Go's repeatIsValid: the counts of nested {} multiply. */
		m = (unsigned long)(max < 0 ? min : max);
		p->need = m == 0 ? 0 : p->need > 1 ? mul_cap(m, p->need) : m;
		if ((min >= 2 || max >= 2) && p->need > MAX_REPEAT)
			return fail(t, CEL_REGEX_INVALID, "invalid repeat count");
		p->size = mul_cap(p->size, m > 1 ? m : 1);
	} else {
		textbuf_addc(&t->out, at(t, 0));
		t->i++;
	}
	if (at(t, 0) == '?')
		t->i++;
	if (quantifier_next(t))
		return fail(t, CEL_REGEX_INVALID, "invalid nested repetition operator");
	return true;
}

static bool parse_alt(struct tr *t, struct piece *p)
{
	memset(p, 0, sizeof *p);
	for (;;) {
		while (more(t) && at(t, 0) != '|' && at(t, 0) != ')') {
			struct piece q;

			if (!parse_repeat(t, &q))
				return false;
			p->size += q.size;
			if (q.need > p->need)
				p->need = q.need;
			if (p->size > CEL_REGEX_MAX_SIZE)
				return fail(t, CEL_REGEX_UNSUPPORTED,
					    "pattern expands beyond %d atoms", CEL_REGEX_MAX_SIZE);
		}
		if (at(t, 0) != '|' || !more(t))
			return true;
		t->i++;
		textbuf_addc(&t->out, '|');
	}
}

enum cel_regex_status cel_regex_compile(const char *pattern, size_t len, struct cel_regex **out,
					char *why, size_t why_size)
{
	struct tr t;
	struct piece p;
	struct cel_regex *re;
	char err[128];
	int rc;

	*out = NULL;
	memset(&t, 0, sizeof t);
	t.s = pattern;
	t.n = len;
	t.why = why;
	t.why_size = why_size;
	if (why_size > 0)
		why[0] = '\0';
	textbuf_init(&t.out, MAX_POSIX_TEXT);
	if (parse_alt(&t, &p) && more(&t))
		fail(&t, CEL_REGEX_INVALID, "unexpected )");
	if (t.st == CEL_REGEX_OK && textbuf_failed(&t.out))
		fail(&t, CEL_REGEX_UNSUPPORTED, "pattern too long");
	if (t.st != CEL_REGEX_OK) {
		textbuf_free(&t.out);
		return t.st;
	}
	re = xcalloc(1, sizeof *re);
	re->width = t.width;
	re->size = p.size;
	re->posix = textbuf_take(&t.out, NULL);
	rc = regcomp(&re->re, re->posix, REG_EXTENDED | REG_NOSUB);
	if (rc != 0) {
		regerror(rc, &re->re, err, sizeof err);
		fail(&t, CEL_REGEX_UNSUPPORTED, "the C library's regcomp refuses it: %s", err);
		free(re->posix);
		free(re);
		return t.st;
	}
	*out = re;
	return CEL_REGEX_OK;
}

void cel_regex_free(struct cel_regex *re)
{
	if (re == NULL)
		return;
	regfree(&re->re);
	free(re->posix);
	free(re);
}

int cel_regex_match(const struct cel_regex *re, const char *text, size_t len)
{
	if (memchr(text, '\0', len) != NULL)
		return -1;
	if (re->width) {
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)text[i] >= 0x80)
				return -1;
	}
	return regexec(&re->re, text, 0, NULL, 0) == 0;
}

size_t cel_regex_size(const struct cel_regex *re)
{
	return re->size;
}

const char *cel_regex_posix(const struct cel_regex *re)
{
	return re->posix;
}
