/* SPDX-License-Identifier: Apache-2.0 */
/* Kubernetes quantity text -> exact decimal form, and exact conversion of that
 * form to an integer count of 10^scale units. Owns the grammar, the error text
 * for bad quantities and the round-up-away-from-zero rule; callers never see a
 * float, so "1500m" CPUs compare exactly against NRT capacities.
 *
 * Deliberate differences from k8s.io/apimachinery (which is sloppier than its
 * own documented grammar):
 *  - "+", "-", "." and ".e3" are rejected; apimachinery parses them as 0.
 *  - More than 19 significant digits is ERR_RANGE; apimachinery keeps them,
 *    rounded up to nano precision, which no NRT or pod spec needs.
 *  - An exponent beyond +-1000 is ERR_RANGE; apimachinery silently truncates
 *    the exponent to int32, so "1e4294967296" means 1 there. The limit is on
 *    the normal form ("10e999" is 1e1000, fine; "10e1000" is not), and a zero
 *    mantissa is plain 0 whatever its exponent ("0e99999", "-0Ei").
 *  - A value outside int64 is ERR_RANGE from quantity_scaled; apimachinery
 *    caps binary magnitudes at 2^63-1 (so "-8Ei" is -(2^63-1) there, INT64_MIN
 *    here) and returns an unspecified value for decimal ones. */
#include "quantity.h"

#include "base/textbuf.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

/* Digits in the largest power of ten below 2^64; also the mantissa limit. */
#define MAX_SIG_DIGITS 19
/* Normalised exponents stay within this so scale arithmetic never overflows. */
#define MAX_EXP10 1000
/* Exponent digits are accumulated only up to here: anything larger is out of
 * range anyway, and saturating keeps 60-digit exponents from overflowing. */
#define EXP_SATURATE 1000000L

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* text quoted for a message (textbuf_quote), cut at QUANTITY_MAX_TEXT bytes. */
static void quote_text(char *buf, size_t cap, const char *text, size_t len)
{
	struct textbuf t;

	textbuf_init_fixed(&t, buf, cap);
	textbuf_quote(&t, text, len, QUANTITY_MAX_TEXT, 0);
}

#define QUOTE_CAP (QUANTITY_MAX_TEXT * 4 + 16)

static enum err fail_parse(const char *text, size_t len, struct errmsg *msg)
{
	char quoted[QUOTE_CAP];

	quote_text(quoted, sizeof quoted, text, len);
	errmsg_set(msg, "%s: not a quantity", quoted);
	return ERR_PARSE;
}

static enum err fail_range(const char *text, size_t len, const char *why,
			   struct errmsg *msg)
{
	char quoted[QUOTE_CAP];

	quote_text(quoted, sizeof quoted, text, len);
	errmsg_set(msg, "%s: out of range (%s)", quoted, why);
	return ERR_RANGE;
}

/* Recognises the whole suffix s[0..n); on success sets the power of ten or of
 * two it stands for. "E" alone is exa; "E" followed by anything must be an
 * exponent, which is why "1E3" is 1000 and not 1E times garbage. */
static bool parse_suffix(const char *s, size_t n, long *exp10, uint8_t *exp2)
{
	static const struct {
		char c;
		int8_t exp;
	} dec[] = {
		{ 'n', -9 }, { 'u', -6 }, { 'm', -3 }, { 'k', 3 },
		{ 'M', 6 },  { 'G', 9 },  { 'T', 12 }, { 'P', 15 }, { 'E', 18 },
	};
	static const char bin[] = "KMGTPE";

	*exp10 = 0;
	*exp2 = 0;
	if (n == 0)
		return true;
	if (n == 1) {
		for (size_t i = 0; i < sizeof dec / sizeof dec[0]; i++) {
			if (s[0] == dec[i].c) {
				*exp10 = dec[i].exp;
				return true;
			}
		}
		return false;
	}
	if (n == 2 && s[1] == 'i') {
		const char *p = s[0] != '\0' ? strchr(bin, s[0]) : NULL;

		if (p == NULL)
			return false;
		*exp2 = (uint8_t)(10 * (p - bin + 1));
		return true;
	}
	if (s[0] == 'e' || s[0] == 'E') {
		size_t i = 1;
		bool neg = false;
		long e = 0;

		if (s[i] == '+' || s[i] == '-')
			neg = s[i++] == '-';
		if (i == n)
			return false;
		for (; i < n; i++) {
			if (!is_digit(s[i]))
				return false;
			if (e < EXP_SATURATE)
				e = e * 10 + (s[i] - '0');
		}
		*exp10 = neg ? -e : e;
		return true;
	}
	return false;
}

enum err quantity_parse(const char *text, size_t len, struct quantity *out,
			struct errmsg *msg)
{
	size_t pos = 0;
	size_t int_start, int_len, frac_start = 0, frac_len = 0;
	bool negative = false;
	long suffix_exp10;
	uint8_t exp2;

	if (text == NULL)
		return fail_parse("", 0, msg);
	if (len > QUANTITY_MAX_TEXT)
		return fail_range(text, len, "longer than 64 bytes", msg);

	if (pos < len && (text[pos] == '+' || text[pos] == '-'))
		negative = text[pos++] == '-';
	int_start = pos;
	while (pos < len && is_digit(text[pos]))
		pos++;
	int_len = pos - int_start;
	if (pos < len && text[pos] == '.') {
		frac_start = ++pos;
		while (pos < len && is_digit(text[pos]))
			pos++;
		frac_len = pos - frac_start;
	}
	if (int_len + frac_len == 0)
		return fail_parse(text, len, msg);
	if (!parse_suffix(text + pos, len - pos, &suffix_exp10, &exp2))
		return fail_parse(text, len, msg);

	/* Integer and fraction digits as one string; the point only moves exp10. */
	char digits[QUANTITY_MAX_TEXT];
	size_t total = int_len + frac_len;
	size_t first = 0, last = total;

	memcpy(digits, text + int_start, int_len);
	memcpy(digits + int_len, text + frac_start, frac_len);
	while (first < total && digits[first] == '0')
		first++;
	if (first == total) {
		/* Zero has no sign and no scale: "-0e99999" and "0Ei" are plain 0. */
		*out = (struct quantity){ 0 };
		return ERR_OK;
	}
	while (digits[last - 1] == '0')
		last--;
	if (last - first > MAX_SIG_DIGITS)
		return fail_range(text, len, "more than 19 significant digits", msg);

	uint64_t mantissa = 0;
	for (size_t i = first; i < last; i++)
		mantissa = mantissa * 10 + (uint64_t)(digits[i] - '0');

	/* suffix_exp10 is saturated and both lengths are <= 64: no overflow. */
	long exp10 = suffix_exp10 - (long)frac_len + (long)(total - last);
	if (exp10 > MAX_EXP10 || exp10 < -MAX_EXP10)
		return fail_range(text, len, "exponent beyond +-1000", msg);

	out->negative = negative;
	out->mantissa = mantissa;
	out->exp10 = (int32_t)exp10;
	out->exp2 = exp2;
	return ERR_OK;
}

enum err quantity_scaled(const struct quantity *q, int scale, int64_t *out)
{
	/* A negative result may reach INT64_MIN, one further than a positive. */
	const u128 limit = q->negative ? (u128)INT64_MAX + 1 : (u128)INT64_MAX;
	int64_t d = (int64_t)q->exp10 - scale;
	u128 mag;

	if (q->mantissa == 0) {
		*out = 0;
		return ERR_OK;
	}
	/* mantissa < 2^64, so a shift up to 63 stays below 2^127. Larger exp2 is
	 * outside what quantity_parse produces. */
	if (q->exp2 > 63)
		return ERR_RANGE;
	mag = (u128)q->mantissa << q->exp2;

	if (d >= 0) {
		/* Each step keeps mag <= limit < 2^64 before multiplying by 10. */
		for (int64_t i = 0; i < d; i++) {
			if (mag > limit)
				return ERR_RANGE;
			mag *= 10;
		}
	} else if (d < -38) {
		/* 10^39 > 2^127 > mag: a nonzero fraction below one rounds up to 1. */
		mag = 1;
	} else {
		u128 div = 1;

		for (int64_t i = 0; i < -d; i++)
			div *= 10;
		/* Round up, away from zero: Kubernetes would rather over-reserve
		 * than hand out zero of something that was asked for. */
		mag = mag / div + (mag % div != 0);
	}
	if (mag > limit)
		return ERR_RANGE;
	if (q->negative)
		*out = mag == (u128)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
	else
		*out = (int64_t)mag;
	return ERR_OK;
}

/* Multiplicity of the prime p in m (m != 0). */
static int64_t valuation(uint64_t m, uint64_t p)
{
	int64_t v = 0;

	while (m % p == 0) {
		m /= p;
		v++;
	}
	return v;
}

bool quantity_is_exact(const struct quantity *q, int scale)
{
	int64_t k = (int64_t)scale - q->exp10;

	/* value / 10^scale = mantissa * 2^exp2 / 10^k, an integer exactly when
	 * 2^k and 5^k both divide mantissa * 2^exp2. Counting factors avoids
	 * any big arithmetic, whatever the exponents. */
	if (q->mantissa == 0 || k <= 0)
		return true;
	return valuation(q->mantissa, 5) >= k &&
	       valuation(q->mantissa, 2) + q->exp2 >= k;
}

bool quantity_is_zero(const struct quantity *q)
{
	return q->mantissa == 0;
}

int quantity_sign(const struct quantity *q)
{
	if (q->mantissa == 0)
		return 0;
	return q->negative ? -1 : 1;
}

void quantity_format(const struct quantity *q, char *buf)
{
	u128 m;
	char digits[48];
	int n = 0, o = 0;

	if (q->mantissa == 0) {
		buf[0] = '0';
		buf[1] = '\0';
		return;
	}
	if (q->exp2 != 0 && q->exp10 == 0) {
		/* Keep the binary suffix: the digits stay within 19. */
		static const char *const suffix[] = { "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };

		snprintf(buf, QUANTITY_FORMAT_MAX, "%s%llu%s", q->negative ? "-" : "",
			 (unsigned long long)q->mantissa, suffix[q->exp2 / 10 - 1]);
		return;
	}
	/* mantissa < 10^19 < 2^64 and exp2 <= 60: the product fits 128 bits. */
	m = (u128)q->mantissa << q->exp2;
	while (m) {
		digits[n++] = (char)('0' + (int)(m % 10));
		m /= 10;
	}
	if (q->negative)
		buf[o++] = '-';
	while (n)
		buf[o++] = digits[--n];
	if (q->exp10 != 0)
		o += snprintf(buf + o, (size_t)(QUANTITY_FORMAT_MAX - o), "e%d", (int)q->exp10);
	buf[o] = '\0';
}
