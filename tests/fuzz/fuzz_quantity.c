/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for topology/quantity. Quantity text comes straight from
 * NodeResourceTopology objects and pod specs, so the parser must hold up on
 * any bytes. Beyond "no crash, no over-read", this checks properties that tie
 * parse, scaled and is_exact together, so a wrong answer aborts as loudly as a
 * bad pointer:
 *  - the normal form is canonical and survives a print/parse round trip;
 *  - rounding up away from zero nests: Value() == ceil(MilliValue() / 1000)
 *    (which implies milli >= value*1000 - 999 for positive values), and a
 *    coarser scale never overflows where a finer one fits;
 *  - is_exact(s) means the next finer scale is exactly 1000 times larger;
 *  - errors are only ERR_PARSE / ERR_RANGE, with a one-line message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology/quantity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "fuzz_quantity: %s:%d: %s\n", __FILE__, \
				__LINE__, #cond);                          \
			abort();                                           \
		}                                                          \
	} while (0)

/* The scales checked, coarse to fine, each 1000 times the next. */
static const int scales[] = { 3, 0, -3, -9 };
#define N_SCALES (sizeof scales / sizeof scales[0])

/* v / d rounded away from zero, without the overflow of (v + d - 1) / d. */
static int64_t div_away(int64_t v, int64_t d)
{
	int64_t q = v / d;

	if (v % d != 0)
		q += v > 0 ? 1 : -1;
	return q;
}

static int64_t pow10_i64(int n)
{
	int64_t p = 1;

	while (n-- > 0)
		p *= 10;
	return p;
}

/* Prints q in a form quantity_parse must read back to the identical struct;
 * returns the length, or 0 if it is longer than QUANTITY_MAX_TEXT. buf must
 * hold FORMAT_CAP bytes: a binary quantity spells out its up to 1000 zeros. */
#define FORMAT_CAP 1100
static size_t format(const struct quantity *q, char *buf)
{
	static const char *const bin[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
	char digits[24];
	int nd = snprintf(digits, sizeof digits, "%llu", (unsigned long long)q->mantissa);
	size_t n = 0;

	if (q->negative)
		buf[n++] = '-';
	if (q->exp2 == 0) {
		n += (size_t)snprintf(buf + n, FORMAT_CAP - n, "%se%d", digits, (int)q->exp10);
	} else {
		/* Binary suffixes take no exponent: place the point by hand. */
		int point = nd + q->exp10; /* digits before the point */

		if (point <= 0) {
			buf[n++] = '.';
			for (int i = 0; i < -point; i++)
				buf[n++] = '0';
			memcpy(buf + n, digits, (size_t)nd);
			n += (size_t)nd;
		} else if (point < nd) {
			memcpy(buf + n, digits, (size_t)point);
			n += (size_t)point;
			buf[n++] = '.';
			memcpy(buf + n, digits + point, (size_t)(nd - point));
			n += (size_t)(nd - point);
		} else {
			memcpy(buf + n, digits, (size_t)nd);
			n += (size_t)nd;
			for (int i = nd; i < point; i++)
				buf[n++] = '0';
		}
		n += (size_t)snprintf(buf + n, FORMAT_CAP - n, "%s", bin[q->exp2 / 10]);
	}
	return n <= QUANTITY_MAX_TEXT ? n : 0;
}

static void check_canonical(const struct quantity *q)
{
	CHECK(q->exp2 % 10 == 0 && q->exp2 <= 60);
	CHECK(q->exp10 >= -1000 && q->exp10 <= 1000);
	CHECK(q->mantissa <= 9999999999999999999ULL);
	if (q->mantissa == 0) {
		CHECK(!q->negative && q->exp10 == 0 && q->exp2 == 0);
		CHECK(quantity_is_zero(q) && quantity_sign(q) == 0);
	} else {
		CHECK(q->mantissa % 10 != 0);
		CHECK(!quantity_is_zero(q));
		CHECK(quantity_sign(q) == (q->negative ? -1 : 1));
	}
}

static void check_round_trip(const struct quantity *q)
{
	char buf[FORMAT_CAP];
	size_t n = format(q, buf);
	struct quantity back;
	struct errmsg msg;

	if (n == 0)
		return;
	if (quantity_parse(buf, n, &back, &msg) != ERR_OK) {
		fprintf(stderr, "fuzz_quantity: reparse of %s: %s\n", buf, msg.text);
		abort();
	}
	CHECK(back.negative == q->negative && back.mantissa == q->mantissa &&
	      back.exp10 == q->exp10 && back.exp2 == q->exp2);
}

static void check_scaling(const struct quantity *q)
{
	int64_t v[N_SCALES];
	enum err e[N_SCALES];

	for (size_t i = 0; i < N_SCALES; i++) {
		v[i] = 0;
		e[i] = quantity_scaled(q, scales[i], &v[i]);
		CHECK(e[i] == ERR_OK || e[i] == ERR_RANGE);
		/* Rounding away from zero never turns something into nothing. */
		if (e[i] == ERR_OK)
			CHECK((v[i] > 0) - (v[i] < 0) == quantity_sign(q));
	}
	for (size_t i = 0; i + 1 < N_SCALES; i++) {
		int64_t step = pow10_i64(scales[i] - scales[i + 1]);

		/* The finer value is the larger in magnitude: if it fits, so
		 * does the coarser, and rounding twice equals rounding once. */
		if (e[i + 1] == ERR_OK) {
			CHECK(e[i] == ERR_OK);
			CHECK(v[i] == div_away(v[i + 1], step));
		}
		if (quantity_is_exact(q, scales[i])) {
			CHECK(quantity_is_exact(q, scales[i + 1]));
			if (e[i + 1] == ERR_OK)
				CHECK(v[i + 1] / step == v[i] && v[i + 1] % step == 0);
		}
		if (!quantity_is_exact(q, scales[i + 1]))
			CHECK(!quantity_is_exact(q, scales[i]));
	}
	/* Exact at the finest scale and representable: nothing was rounded, so
	 * the coarser value is an exact multiple only when is_exact says so. */
	if (e[N_SCALES - 1] == ERR_OK && quantity_is_exact(q, scales[N_SCALES - 1])) {
		for (size_t i = 0; i + 1 < N_SCALES; i++) {
			int64_t step = pow10_i64(scales[i] - scales[N_SCALES - 1]);

			CHECK(quantity_is_exact(q, scales[i]) ==
			      (v[N_SCALES - 1] % step == 0));
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct quantity q;
	struct errmsg msg;
	enum err e;

	memset(&msg, 0, sizeof msg);
	e = quantity_parse((const char *)data, size, &q, &msg);
	if (e != ERR_OK) {
		size_t n = strlen(msg.text);

		CHECK(e == ERR_PARSE || e == ERR_RANGE);
		CHECK(n > 0 && msg.text[0] == '"');
		CHECK(strchr(msg.text, '\n') == NULL);
		if (e == ERR_PARSE) {
			static const char tail[] = "\": not a quantity";

			CHECK(n >= sizeof tail - 1 &&
			      strcmp(msg.text + n - (sizeof tail - 1), tail) == 0);
		} else {
			CHECK(strstr(msg.text, "\": out of range") != NULL);
		}
		return 0;
	}
	CHECK(size <= QUANTITY_MAX_TEXT);
	check_canonical(&q);
	check_round_trip(&q);
	check_scaling(&q);
	return 0;
}
