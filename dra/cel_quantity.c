/* SPDX-License-Identifier: Apache-2.0 */
/* Quantities for CEL (cel_quantity.h). Comparisons and sums are exact: a
 * small fixed-size unsigned big number holds the operands once their
 * exponents are aligned, and anything that would not fit is "cannot
 * decide" rather than a rounded guess. */
#include "dra/cel_quantity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 14 words of 32 bits: a 19-digit mantissa times 10^60 times 2^60. */
#define BIG_WORDS 14
#define MAX_MANTISSA 9999999999999999999ULL
#define MAX_EXP10 1000

struct big {
	uint32_t w[BIG_WORDS]; /* little-endian */
};

static void big_set(struct big *b, uint64_t v)
{
	memset(b, 0, sizeof *b);
	b->w[0] = (uint32_t)v;
	b->w[1] = (uint32_t)(v >> 32);
}

static bool big_is_zero(const struct big *b)
{
	for (size_t i = 0; i < BIG_WORDS; i++)
		if (b->w[i])
			return false;
	return true;
}

/* b *= m; false on overflow. */
static bool big_mul(struct big *b, uint32_t m)
{
	uint64_t carry = 0;

	for (size_t i = 0; i < BIG_WORDS; i++) {
		uint64_t v = (uint64_t)b->w[i] * m + carry;

		b->w[i] = (uint32_t)v;
		carry = v >> 32;
	}
	return carry == 0;
}

/* b *= 10^times; false on overflow. */
static bool big_mul_pow10(struct big *b, int64_t times)
{
	for (; times >= 9; times -= 9)
		if (!big_mul(b, 1000000000u))
			return false;
	for (; times > 0; times--)
		if (!big_mul(b, 10))
			return false;
	return true;
}

/* b *= 2^bits; false on overflow. */
static bool big_shl(struct big *b, int64_t bits)
{
	size_t words = (size_t)(bits / 32);
	unsigned shift = (unsigned)(bits % 32);

	if (bits < 0 || words >= BIG_WORDS)
		return bits == 0;
	for (size_t i = BIG_WORDS - words; i < BIG_WORDS; i++)
		if (b->w[i])
			return false;
	if (shift && (b->w[BIG_WORDS - 1 - words] >> (32 - shift)) != 0)
		return false;
	for (size_t i = BIG_WORDS; i-- > 0;) {
		uint32_t hi = i >= words ? b->w[i - words] : 0;
		uint32_t lo = i >= words + 1 ? b->w[i - words - 1] : 0;

		b->w[i] = shift ? (hi << shift) | (lo >> (32 - shift)) : hi;
	}
	return true;
}

/* b /= d; returns the remainder. */
static uint32_t big_div(struct big *b, uint32_t d)
{
	uint64_t rem = 0;

	for (size_t i = BIG_WORDS; i-- > 0;) {
		uint64_t v = (rem << 32) | b->w[i];

		b->w[i] = (uint32_t)(v / d);
		rem = v % d;
	}
	return (uint32_t)rem;
}

static int big_cmp(const struct big *a, const struct big *b)
{
	for (size_t i = BIG_WORDS; i-- > 0;)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	return 0;
}

/* r = a + b; false on overflow. */
static bool big_add(struct big *r, const struct big *a, const struct big *b)
{
	uint64_t carry = 0;

	for (size_t i = 0; i < BIG_WORDS; i++) {
		uint64_t v = (uint64_t)a->w[i] + b->w[i] + carry;

		r->w[i] = (uint32_t)v;
		carry = v >> 32;
	}
	return carry == 0;
}

/* r = a - b with a >= b. */
static void big_sub(struct big *r, const struct big *a, const struct big *b)
{
	int64_t borrow = 0;

	for (size_t i = 0; i < BIG_WORDS; i++) {
		int64_t v = (int64_t)a->w[i] - b->w[i] - borrow;

		borrow = v < 0;
		r->w[i] = (uint32_t)(v + (borrow ? (int64_t)1 << 32 : 0));
	}
}

/* The value if it is at most max. */
static bool big_to_u64(const struct big *b, uint64_t max, uint64_t *out)
{
	for (size_t i = 2; i < BIG_WORDS; i++)
		if (b->w[i])
			return false;
	*out = ((uint64_t)b->w[1] << 32) | b->w[0];
	return *out <= max;
}

/* |q| * 10^(q.exp10 - exp10) * 2^(q.exp2 - exp2), both differences >= 0. */
static bool magnitude(const struct quantity *q, int64_t exp10, int64_t exp2, struct big *out)
{
	big_set(out, q->mantissa);
	return big_mul_pow10(out, q->exp10 - exp10) && big_shl(out, q->exp2 - exp2);
}

/* The canonical quantity of mag * 10^exp10 * 2^exp2: trailing decimal
 * zeros folded into exp10, and binary factors into exp2 when the digits
 * would be too many otherwise. */
static bool from_big(struct big *mag, bool negative, int64_t exp10, int64_t exp2,
		     struct quantity *out)
{
	uint64_t m;

	memset(out, 0, sizeof *out);
	if (big_is_zero(mag))
		return true;
	for (;;) {
		struct big t = *mag;

		if (big_div(&t, 10) != 0)
			break;
		*mag = t;
		exp10++;
	}
	while (!big_to_u64(mag, MAX_MANTISSA, &m) && exp2 + 10 <= 60) {
		struct big t = *mag;

		if (big_div(&t, 1024) != 0)
			return false;
		*mag = t;
		exp2 += 10;
	}
	if (!big_to_u64(mag, MAX_MANTISSA, &m) || exp10 > MAX_EXP10 || exp10 < -MAX_EXP10)
		return false;
	out->negative = negative;
	out->mantissa = m;
	out->exp10 = (int32_t)exp10;
	out->exp2 = (uint8_t)exp2;
	return true;
}

static int mag_cmp(const struct quantity *a, const struct quantity *b)
{
	double la = log10((double)a->mantissa) + a->exp10 + a->exp2 * 0.30102999566398120;
	double lb = log10((double)b->mantissa) + b->exp10 + b->exp2 * 0.30102999566398120;
	int64_t e = a->exp10 < b->exp10 ? a->exp10 : b->exp10;
	struct big x, y;

	/* Apart by more than the logarithms' rounding, they decide; close,
	 * the exponents differ by at most ~40 and the exact magnitudes fit
	 * the big numbers. */
	if (la - lb > 1e-9 || lb - la > 1e-9 || !magnitude(a, e, 0, &x) || !magnitude(b, e, 0, &y))
		return la > lb ? 1 : -1;
	return big_cmp(&x, &y);
}

int cel_qty_cmp(const struct cel_qty *a, const struct cel_qty *b)
{
	int sa = quantity_sign(&a->q), sb = quantity_sign(&b->q), c;

	if (sa != sb)
		return sa < sb ? -1 : 1;
	if (sa == 0)
		return 0;
	c = mag_cmp(&a->q, &b->q);
	return sa < 0 ? -c : c;
}

bool cel_qty_add(const struct cel_qty *a, const struct cel_qty *b, bool subtract,
		 struct cel_qty *out)
{
	int64_t e = a->q.exp10 < b->q.exp10 ? a->q.exp10 : b->q.exp10;
	int64_t s = a->q.exp2 < b->q.exp2 ? a->q.exp2 : b->q.exp2;
	bool an = a->q.negative, bn = b->q.negative != subtract;
	struct big x, y, r;
	bool rn;

	/* apimachinery's int64 amounts keep the scale of a zero operand's
	 * other side; otherwise the smaller scale, an integer one only when
	 * both are. */
	if (quantity_is_zero(&b->q)) {
		*out = *a;
		return true;
	}
	if (quantity_is_zero(&a->q)) {
		*out = *b;
		out->q.negative = bn;
		return true;
	}
	out->int_rep = a->int_rep && b->int_rep;
	if (!magnitude(&a->q, e, s, &x) || !magnitude(&b->q, e, s, &y))
		return false;
	if (an == bn) {
		if (!big_add(&r, &x, &y))
			return false;
		rn = an;
	} else if (big_cmp(&x, &y) >= 0) {
		big_sub(&r, &x, &y);
		rn = an;
	} else {
		big_sub(&r, &y, &x);
		rn = bn;
	}
	return from_big(&r, rn, e, s, &out->q);
}

void cel_qty_from_int(int64_t v, struct cel_qty *out)
{
	struct big b;
	uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	big_set(&b, mag);
	from_big(&b, v < 0, 0, 0, &out->q);
	out->int_rep = true;
}

bool cel_qty_as_int64(const struct cel_qty *a, int64_t *out)
{
	return a->int_rep && quantity_is_exact(&a->q, 0) &&
	       quantity_scaled(&a->q, 0, out) == ERR_OK;
}

/* 10^e correctly rounded, as Go's math.Pow10. */
static double pow10_exact(int64_t e)
{
	char buf[32];

	if (e >= 0 && e <= 22) {
		double p = 1;

		for (int64_t i = 0; i < e; i++)
			p *= 10;
		return p;
	}
	snprintf(buf, sizeof buf, "1e%lld", (long long)e);
	return strtod(buf, NULL);
}

double cel_qty_approx(const struct cel_qty *a)
{
	double v = ldexp((double)a->q.mantissa * pow10_exact(a->q.exp10), a->q.exp2);

	return a->q.negative ? -v : v;
}

static size_t digit_count(uint64_t v)
{
	size_t n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

void cel_qty_from_capacity(const struct quantity *q, struct cel_qty *out)
{
	int64_t v;
	uint64_t mag;

	out->q = *q;
	out->int_rep = false;
	if (quantity_is_zero(q)) {
		out->int_rep = true;
		return;
	}
	if (!quantity_is_exact(q, 0) || quantity_scaled(q, 0, &v) != ERR_OK)
		return;
	mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	if (q->exp2 != 0 && mag >= 1024) {
		/* Canonical binary text: <n>Ki..Ei, an int64 amount while
		 * 15 - digits(n) - 0.3 * exponent - 1 >= 0 (ParseQuantity). */
		int k = 0;

		while (k < 6 && mag % 1024 == 0) {
			mag /= 1024;
			k++;
		}
		out->int_rep = 15 - (int)digit_count(mag) - 3 * k - 1 >= 0;
		return;
	}
	/* Canonical decimal text: <n><SI suffix>, n without factors of 1000;
	 * an int64 amount up to 18 digits. */
	while (mag % 1000 == 0)
		mag /= 1000;
	out->int_rep = digit_count(mag) <= 18;
}

/* --- ParseQuantity's view of the text --- */

struct k8s_text {
	bool fast;     /* an int64 amount */
	bool int_rep;  /* ... with a scale >= 0 */
	bool zero;     /* every digit is 0 */
	bool negative;
	bool binary;   /* a Ki..Ei suffix */
	double log10;  /* of the magnitude, roughly (not zero) */
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* strconv.ParseInt(s, 10, 32): a sign, at least one digit, the range. */
static bool parse_int32(const char *s, size_t n, int64_t *out)
{
	bool neg = n > 0 && s[0] == '-';
	size_t i = n > 0 && (s[0] == '-' || s[0] == '+');
	int64_t v = 0;

	if (i == n)
		return false;
	for (; i < n; i++) {
		if (!is_digit(s[i]) || (v = v * 10 + (s[i] - '0')) > 2147483648LL)
			return false;
	}
	if (!neg && v > 2147483647LL)
		return false;
	*out = neg ? -v : v;
	return true;
}

/* quantitySuffixer.interpret: a decimal or binary SI suffix, or an
 * exponent "e<int32>" / "E<int32>". */
static bool interpret_suffix(const char *s, size_t n, bool *binary, int64_t *exponent)
{
	static const char *const dec[] = { "n", "u", "m", "", "k", "M", "G", "T", "P", "E" };
	static const char *const bin[] = { "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };

	*binary = false;
	for (size_t k = 0; k < sizeof dec / sizeof dec[0]; k++) {
		if (strlen(dec[k]) == n && memcmp(dec[k], s, n) == 0) {
			*exponent = 3 * ((int64_t)k - 3);
			return true;
		}
	}
	for (size_t k = 0; k < sizeof bin / sizeof bin[0]; k++) {
		if (n == 2 && memcmp(bin[k], s, 2) == 0) {
			*binary = true;
			*exponent = 10 * ((int64_t)k + 1);
			return true;
		}
	}
	return n >= 2 && (s[0] == 'e' || s[0] == 'E') && parse_int32(s + 1, n - 1, exponent);
}

/* parseQuantityString and ParseQuantity's choice of representation. */
static bool k8s_text(const char *s, size_t n, struct k8s_text *out)
{
	static const char letters[] = "eEinumkKMGTP";
	size_t pos = 0, num = 0, denom = 0, denom_zeros = 0, suffix;
	int64_t exponent, scale, lead;

	memset(out, 0, sizeof *out);
	if (n == 0)
		return false;
	if (s[0] == '+' || s[0] == '-')
		out->negative = s[pos++] == '-';
	while (pos < n && s[pos] == '0')
		pos++;
	while (pos < n && is_digit(s[pos])) {
		pos++;
		num++;
	}
	lead = (int64_t)num - 1;
	if (pos < n && s[pos] == '.') {
		pos++;
		while (pos < n && is_digit(s[pos])) {
			if (num == 0 && s[pos] == '0' && denom_zeros == denom)
				denom_zeros++;
			pos++;
			denom++;
		}
	}
	out->zero = num == 0 && denom_zeros == denom;
	if (num == 0) {
		num = 1; /* "0" */
		lead = -(int64_t)denom_zeros - 1;
	}
	suffix = pos;
	while (pos < n && memchr(letters, s[pos], sizeof letters - 1) != NULL)
		pos++;
	if (pos < n && (s[pos] == '+' || s[pos] == '-'))
		pos++;
	while (pos < n && is_digit(s[pos]))
		pos++;
	if (pos < n || !interpret_suffix(s + suffix, n - suffix, &out->binary, &exponent))
		return false;
	out->log10 = (double)lead + (double)exponent * (out->binary ? 0.30102999566398120 : 1.0);
	if (out->binary) {
		out->fast = denom == 0 && 15 - (int64_t)num - exponent * 3 / 10 - 1 >= 0;
		out->int_rep = out->fast;
		return true;
	}
	scale = exponent - (int64_t)denom;
	out->fast = 18 - (int64_t)(num + denom) >= 0 && scale >= -9;
	out->int_rep = out->fast && scale >= 0;
	return true;
}

/* Rounds |q| up to a whole number of nanos (inf.RoundUp at scale 9). */
static bool round_to_nano(struct quantity *q)
{
	struct big b;
	bool rest = false;

	if (q->mantissa == 0 || q->exp10 >= -9)
		return true;
	big_set(&b, q->mantissa);
	if (!big_shl(&b, q->exp2))
		return false;
	for (int64_t i = q->exp10; i < -9; i++)
		rest = big_div(&b, 10) != 0 || rest;
	if (rest) {
		struct big one;

		big_set(&one, 1);
		if (!big_add(&b, &b, &one))
			return false;
	}
	return from_big(&b, q->negative, -9, 0, q);
}

enum cel_qty_parsed cel_qty_parse(const char *text, size_t len, struct cel_qty *out)
{
	static const struct quantity cap = { false, 9223372036854775807ULL, 0, 0 };
	static const struct quantity nano = { false, 1, -9, 0 };
	struct k8s_text k;
	struct errmsg msg;

	memset(out, 0, sizeof *out);
	if (!k8s_text(text, len, &k))
		return CEL_QTY_BAD;
	out->int_rep = k.int_rep;
	if (quantity_parse(text, len, &out->q, &msg) != ERR_OK) {
		/* Beyond topology/quantity's digits or exponents, only the
		 * values apimachinery itself rounds or caps are known: ".",
		 * "+" and "-." (zero), a decimal below a nano (one nano), a
		 * binary beyond 2^63 (the cap). */
		if (k.zero)
			out->q = (struct quantity){ 0 };
		else if (!k.fast && k.log10 < -9.5)
			out->q = nano;
		else if (!k.fast && k.binary && k.log10 > 19.5)
			out->q = cap;
		else
			return CEL_QTY_UNKNOWN;
		out->q.negative = k.negative && !k.zero;
		return CEL_QTY_OK;
	}
	if (k.fast)
		return CEL_QTY_OK;
	/* An inf.Dec: rounded up to nanos; a binary one capped at 2^63 - 1. */
	if (!round_to_nano(&out->q))
		return CEL_QTY_UNKNOWN;
	if (k.binary && mag_cmp(&out->q, &cap) > 0 && !quantity_is_zero(&out->q)) {
		bool neg = out->q.negative;

		out->q = cap;
		out->q.negative = neg;
	}
	return CEL_QTY_OK;
}
