/* SPDX-License-Identifier: Apache-2.0 */
/* int(), uint(), double() and string() (cel_funcs.h), with the ranges and
 * the number syntax of cel-go, which parses with Go's strconv and prints
 * doubles with strconv.FormatFloat(d, 'g', -1, 64). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dra/cel_funcs.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* strconv.ParseUint(s, 10, 64) / ParseInt(s, 10, 64): digits only (a sign
 * for ints), no spaces, no underscores. */
static bool parse_digits(const char *s, size_t n, uint64_t limit, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		uint64_t d;

		if (!is_digit(s[i]))
			return false;
		d = (uint64_t)(s[i] - '0');
		if (v > (limit - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

struct cel_val cel_to_int(struct cel_ctx *c, const struct cel_val *v)
{
	switch (v->kind) {
	case CEL_V_INT:
		return *v;
	case CEL_V_UINT:
		if (v->v.u > (uint64_t)INT64_MAX)
			return cel_error(c, "integer overflow");
		return cel_int((int64_t)v->v.u);
	case CEL_V_DOUBLE:
		/* Both ends excluded, as cel-go's doubleToInt64Checked. */
		if (isnan(v->v.d) || v->v.d <= -9223372036854775808.0 ||
		    v->v.d >= 9223372036854775808.0)
			return cel_error(c, "integer overflow");
		return cel_int((int64_t)v->v.d);
	case CEL_V_STRING: {
		const char *s = v->v.s.p;
		size_t n = v->v.s.len;
		bool neg = n > 0 && s[0] == '-';
		uint64_t mag;

		if (n > 0 && (s[0] == '-' || s[0] == '+'))
			s++, n--;
		if (!parse_digits(s, n, neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, &mag))
			return cel_error(c, "string is not an int");
		return cel_int(neg ? (mag > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)mag)
				   : (int64_t)mag);
	}
	default:
		return cel_no_overload(c, "int", v, NULL);
	}
}

struct cel_val cel_to_uint(struct cel_ctx *c, const struct cel_val *v)
{
	struct cel_val r = { .kind = CEL_V_UINT };

	switch (v->kind) {
	case CEL_V_UINT:
		return *v;
	case CEL_V_INT:
		if (v->v.i < 0)
			return cel_error(c, "unsigned integer overflow");
		r.v.u = (uint64_t)v->v.i;
		return r;
	case CEL_V_DOUBLE:
		if (isnan(v->v.d) || v->v.d < 0 || v->v.d >= 18446744073709551616.0)
			return cel_error(c, "unsigned integer overflow");
		r.v.u = (uint64_t)v->v.d;
		return r;
	case CEL_V_STRING:
		if (!parse_digits(v->v.s.p, v->v.s.len, UINT64_MAX, &r.v.u))
			return cel_error(c, "string is not a uint");
		return r;
	default:
		return cel_no_overload(c, "uint", v, NULL);
	}
}

static bool word_is(const char *s, size_t n, const char *word)
{
	if (strlen(word) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((s[i] | 0x20) != word[i])
			return false;
	return true;
}

/* strconv.ParseFloat's decimal syntax: sign, digits with at most one
 * point, an exponent; or inf, infinity, nan. Hexadecimal floats are left
 * undecided. */
static struct cel_val parse_double(struct cel_ctx *c, const char *s, size_t n)
{
	struct cel_val r = { .kind = CEL_V_DOUBLE };
	size_t i = 0, digits = 0;
	bool neg = n > 0 && s[0] == '-';

	if (n > 0 && (s[0] == '-' || s[0] == '+'))
		i++;
	if (word_is(s + i, n - i, "inf") || word_is(s + i, n - i, "infinity")) {
		r.v.d = neg ? -INFINITY : INFINITY;
		return r;
	}
	if (i == 0 && word_is(s, n, "nan")) {
		r.v.d = NAN;
		return r;
	}
	if (n - i > 2 && s[i] == '0' && (s[i + 1] | 0x20) == 'x')
		return cel_unknown(c, "double() of a hexadecimal float");
	for (; i < n && is_digit(s[i]); i++)
		digits++;
	if (i < n && s[i] == '.')
		for (i++; i < n && is_digit(s[i]); i++)
			digits++;
	if (digits > 0 && i < n && (s[i] | 0x20) == 'e') {
		size_t start;

		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		start = i;
		while (i < n && is_digit(s[i]))
			i++;
		if (i == start)
			digits = 0;
	}
	if (digits == 0 || i != n)
		return cel_error(c, "string is not a double");
	/* The text is all ASCII digits and signs, NUL-terminated at n. */
	r.v.d = strtod(s, NULL);
	if (isinf(r.v.d))
		return cel_error(c, "double out of range");
	return r;
}

struct cel_val cel_to_double(struct cel_ctx *c, const struct cel_val *v)
{
	struct cel_val r = { .kind = CEL_V_DOUBLE };

	switch (v->kind) {
	case CEL_V_DOUBLE:
		return *v;
	case CEL_V_INT:
		r.v.d = (double)v->v.i;
		return r;
	case CEL_V_UINT:
		r.v.d = (double)v->v.u;
		return r;
	case CEL_V_STRING:
		if (!cel_charge(c, cel_string_units(v->v.s.len)))
			return cel_error(c, "actual cost limit exceeded");
		return parse_double(c, v->v.s.p, v->v.s.len);
	default:
		return cel_no_overload(c, "double", v, NULL);
	}
}

void cel_format_double(double d, char *buf)
{
	char e[40], digits[24];
	size_t nd = 0, o = 0;
	int prec, exp;
	const char *p;

	if (isnan(d) || isinf(d) || d == 0) {
		strcpy(buf, isnan(d) ? "NaN" : isinf(d) ? (d > 0 ? "+Inf" : "-Inf")
					     : (signbit(d) ? "-0" : "0"));
		return;
	}
	/* The shortest digits that read back to d. */
	for (prec = 1; prec < 17; prec++) {
		snprintf(e, sizeof e, "%.*e", prec - 1, d);
		if (strtod(e, NULL) == d)
			break;
	}
	snprintf(e, sizeof e, "%.*e", prec - 1, d);
	p = e[0] == '-' ? e + 1 : e;
	for (; *p != 'e'; p++)
		if (is_digit(*p))
			digits[nd++] = *p;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	exp = atoi(p + 1);
	if (d < 0)
		buf[o++] = '-';
	if (exp < -4 || exp >= 6) {
		/* %e: d[.ddd]e±XX */
		buf[o++] = digits[0];
		if (nd > 1) {
			buf[o++] = '.';
			memcpy(buf + o, digits + 1, nd - 1);
			o += nd - 1;
		}
		snprintf(buf + o, 32 - o, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
		return;
	}
	if (exp < 0) {
		buf[o++] = '0';
		buf[o++] = '.';
		for (int z = 0; z < -exp - 1; z++)
			buf[o++] = '0';
		memcpy(buf + o, digits, nd);
		o += nd;
	} else {
		for (size_t k = 0; k <= (size_t)exp; k++)
			buf[o++] = k < nd ? digits[k] : '0';
		if (nd > (size_t)exp + 1) {
			buf[o++] = '.';
			memcpy(buf + o, digits + exp + 1, nd - (size_t)exp - 1);
			o += nd - (size_t)exp - 1;
		}
	}
	buf[o] = '\0';
}

struct cel_val cel_to_string(struct cel_ctx *c, const struct cel_val *v)
{
	char buf[32];
	char *out;
	size_t n;

	switch (v->kind) {
	case CEL_V_STRING:
		return *v;
	case CEL_V_BOOL:
		return v->v.b ? cel_string("true", 4) : cel_string("false", 5);
	case CEL_V_INT:
		snprintf(buf, sizeof buf, "%lld", (long long)v->v.i);
		break;
	case CEL_V_UINT:
		snprintf(buf, sizeof buf, "%llu", (unsigned long long)v->v.u);
		break;
	case CEL_V_DOUBLE:
		cel_format_double(v->v.d, buf);
		break;
	case CEL_V_QUANTITY:
	case CEL_V_SEMVER:
		return cel_unknown(c, "string() of a quantity or version");
	default:
		return cel_no_overload(c, "string", v, NULL);
	}
	n = strlen(buf);
	out = cel_text(c, n);
	memcpy(out, buf, n);
	return cel_string(out, n);
}
