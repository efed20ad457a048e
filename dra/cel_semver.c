/* SPDX-License-Identifier: Apache-2.0 */
/* Semantic versions (cel_semver.h), following blang/semver v4's Parse,
 * NewPRVersion and Compare rule for rule. */
#include "dra/cel_semver.h"

#include <string.h>

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alnum_hyphen(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_digit(s[i]))
			return false;
	return true;
}

static bool all_alnum(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_alnum_hyphen(s[i]))
			return false;
	return true;
}

/* strconv.ParseUint(s, 10, 64): at least one digit, no overflow. */
static bool parse_uint(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		uint64_t d = (uint64_t)(s[i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

static bool number(const char *s, size_t n, uint64_t *out, const char **why)
{
	if (!all_digits(s, n)) {
		*why = "invalid character(s) in a version number";
		return false;
	}
	if (n > 1 && s[0] == '0') {
		*why = "version numbers must not have leading zeroes";
		return false;
	}
	if (!parse_uint(s, n, out)) {
		*why = "invalid version number";
		return false;
	}
	return true;
}

/* Calls each dot-separated part of s[0..n) (at least one, maybe empty). */
static bool each_part(const char *s, size_t n, bool (*ok)(const char *, size_t, const char **),
		      const char **why)
{
	size_t start = 0;

	for (size_t i = 0; i <= n; i++) {
		if (i == n || s[i] == '.') {
			if (!ok(s + start, i - start, why))
				return false;
			start = i + 1;
		}
	}
	return true;
}

static bool prerelease_ok(const char *s, size_t n, const char **why)
{
	uint64_t v;

	if (n == 0) {
		*why = "prerelease is empty";
		return false;
	}
	if (all_digits(s, n)) {
		if ((n > 1 && s[0] == '0') || !parse_uint(s, n, &v)) {
			*why = "invalid numeric prerelease identifier";
			return false;
		}
		return true;
	}
	if (!all_alnum(s, n)) {
		*why = "invalid character(s) in prerelease";
		return false;
	}
	return true;
}

static bool build_ok(const char *s, size_t n, const char **why)
{
	if (n == 0) {
		*why = "build metadata is empty";
		return false;
	}
	if (!all_alnum(s, n)) {
		*why = "invalid character(s) in build metadata";
		return false;
	}
	return true;
}

static const char *find(const char *s, size_t n, char c)
{
	return n ? memchr(s, c, n) : NULL;
}

bool cel_semver_parse(const char *text, size_t len, struct cel_semver *out, const char **why)
{
	const char *dot1, *dot2, *patch, *plus, *minus, *end = text + len;
	size_t patch_len;

	memset(out, 0, sizeof *out);
	if (len == 0) {
		*why = "version string empty";
		return false;
	}
	dot1 = find(text, len, '.');
	dot2 = dot1 ? find(dot1 + 1, (size_t)(end - dot1 - 1), '.') : NULL;
	if (dot2 == NULL) {
		*why = "no Major.Minor.Patch elements found";
		return false;
	}
	if (!number(text, (size_t)(dot1 - text), &out->major, why) ||
	    !number(dot1 + 1, (size_t)(dot2 - dot1 - 1), &out->minor, why))
		return false;
	patch = dot2 + 1;
	patch_len = (size_t)(end - patch);
	plus = find(patch, patch_len, '+');
	if (plus != NULL) {
		if (!each_part(plus + 1, (size_t)(end - plus - 1), build_ok, why))
			return false;
		patch_len = (size_t)(plus - patch);
	}
	minus = find(patch, patch_len, '-');
	if (minus != NULL) {
		out->pre = minus + 1;
		out->pre_len = (size_t)(patch + patch_len - out->pre);
		if (!each_part(out->pre, out->pre_len, prerelease_ok, why))
			return false;
		patch_len = (size_t)(minus - patch);
		if (out->pre_len == 0)
			out->pre = NULL;
	}
	return number(patch, patch_len, &out->patch, why);
}

bool cel_semver_parse_normalized(const char *text, size_t len, char *scratch,
				 struct cel_semver *out, const char **why)
{
	const char *end, *part, *last = NULL;
	size_t n = 0, parts = 0;

	if (len > 0 && text[0] == 'v') {
		text++;
		len--;
	}
	end = text + len;
	part = text;
	/* SplitN(s, ".", 3), each part of more than one byte stripped of its
	 * leading zeros ("0" put back when nothing or no digit is left). */
	for (;;) {
		const char *stop = parts < 2 ? find(part, (size_t)(end - part), '.') : NULL;
		const char *p = part, *pend = stop ? stop : end;

		if (parts > 0)
			scratch[n++] = '.';
		last = scratch + n;
		if (pend - p > 1) {
			while (p < pend && *p == '0')
				p++;
			if (p == pend || !is_digit(*p))
				scratch[n++] = '0';
		}
		memcpy(scratch + n, p, (size_t)(pend - p));
		n += (size_t)(pend - p);
		parts++;
		if (stop == NULL)
			break;
		part = stop + 1;
	}
	if (parts < 3) {
		/* The last part given may not carry a prerelease or build. */
		size_t tail = (size_t)(scratch + n - last);

		if (find(last, tail, '+') || find(last, tail, '-')) {
			*why = "short version cannot contain prerelease or build metadata";
			memset(out, 0, sizeof *out);
			return false;
		}
		while (parts++ < 3) {
			memcpy(scratch + n, ".0", 2);
			n += 2;
		}
	}
	return cel_semver_parse(scratch, n, out, why);
}

/* One prerelease identifier against another: numbers below words. */
static int identifier_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	bool anum = all_digits(a, an), bnum = all_digits(b, bn);
	int c;

	if (anum && bnum) {
		if (an != bn)
			return an < bn ? -1 : 1;
		c = memcmp(a, b, an);
		return (c > 0) - (c < 0);
	}
	if (anum != bnum)
		return anum ? -1 : 1;
	c = memcmp(a, b, an < bn ? an : bn);
	if (c != 0)
		return (c > 0) - (c < 0);
	return (an > bn) - (an < bn);
}

static int u64_cmp(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

int cel_semver_cmp(const struct cel_semver *a, const struct cel_semver *b)
{
	size_t i = 0, j = 0;
	int c;

	if ((c = u64_cmp(a->major, b->major)) != 0 || (c = u64_cmp(a->minor, b->minor)) != 0 ||
	    (c = u64_cmp(a->patch, b->patch)) != 0)
		return c;
	/* A version without prerelease is the greater. */
	if (a->pre_len == 0 || b->pre_len == 0)
		return (a->pre_len == 0) - (b->pre_len == 0);
	for (;;) {
		size_t ai = i, bj = j;

		while (i < a->pre_len && a->pre[i] != '.')
			i++;
		while (j < b->pre_len && b->pre[j] != '.')
			j++;
		c = identifier_cmp(a->pre + ai, i - ai, b->pre + bj, j - bj);
		if (c != 0)
			return c;
		if (i >= a->pre_len || j >= b->pre_len)
			return (i < a->pre_len) - (j < b->pre_len);
		i++;
		j++;
	}
}
