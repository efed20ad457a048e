/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for the functions and operators of dra/cel's subset: CEL's
 * typing (heterogeneous equality, numbers compared across types, overflow
 * and division by zero as errors), strings and conversions, Kubernetes'
 * Quantity and Semver libraries (with apimachinery's int64-or-decimal
 * representation behind isInteger), and matches() with RE2 syntax
 * translated to POSIX EREs: what translates and what is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "dra/cel.h"
#include "dra/cel_regex.h"
#include "tests/support/cel_device.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

static struct dra_device dev;

static int build_device(void **state)
{
	(void)state;
	cel_dev_init(&dev, "dev-0");
	cel_dev_string(&dev, "x.io", "product", "NVIDIA A100");
	cel_dev_string(&dev, "x.io", "raw", "a\xff" "b");
	cel_dev_capacity(&dev, "x.io", "memory", "40Gi");
	cel_dev_capacity(&dev, "x.io", "fraction", "1500m");
	cel_dev_capacity(&dev, "x.io", "tebi", "1Ti");
	cel_dev_capacity(&dev, "x.io", "pebi", "1Pi");
	cel_dev_capacity(&dev, "x.io", "pebiAsTebi", "1024Ti");
	cel_dev_capacity(&dev, "x.io", "digits19", "1234567890123456789");
	cel_dev_capacity(&dev, "x.io", "digits18", "123456789012345678");
	cel_dev_capacity(&dev, "x.io", "zero", "0");
	return 0;
}

static int free_device(void **state)
{
	(void)state;
	dra_device_cleanup(&dev);
	return 0;
}

struct eval_case {
	const char *expr;
	enum dra_cel_value want;
	const char *err;
};

static void run(const struct eval_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *m = cel_dev_mismatch(cases[i].expr, &dev, "x.io", cases[i].want,
						 cases[i].err);

		if (m)
			fail_msg("%s", m);
	}
}

#define T DRA_CEL_TRUE
#define F DRA_CEL_FALSE
#define E DRA_CEL_ERROR
#define U DRA_CEL_UNKNOWN

static void numbers_follow_cel_typing(void **state)
{
	static const struct eval_case cases[] = {
		{ "1 == 1.0 && 1 == 1u && 1u == 1.0", T, NULL },
		{ "1 == '1'", F, NULL },
		{ "[1, 'a'] == [1, 'a'] && [1] != [1, 2] && [] == []", T, NULL },
		{ "null == null && !(null == 0) && 0 != null", T, NULL },
		{ "1 < 1.5 && 2u > 1 && -1 < 0u && 1.5 <= 2u && 3 >= 3.0", T, NULL },
		{ "9223372036854775807 < 9223372036854775808.0", F, NULL },
		{ "'a' < 'b' && 'ab' > 'a' && false < true", T, NULL },
		{ "2 in [1, 2, 3] && 1 in [1.0] && !('1' in [1])", T, NULL },
		{ "7 / 2 == 3 && -7 / 2 == -3 && -7 % 2 == -1 && 7u % 2u == 1u", T, NULL },
		{ "1.0 / 0.0 > 1e308 && 0.5 * 4.0 == 2.0", T, NULL },
		{ "9223372036854775807 + 1 > 0", E, "integer overflow" },
		{ "-9223372036854775808 - 1 < 0", E, "integer overflow" },
		{ "-9223372036854775808 / -1 < 0", E, "integer overflow" },
		{ "-9223372036854775808 % -1 == 0", E, "integer overflow" },
		{ "-(-9223372036854775808) > 0", E, "integer overflow" },
		{ "4611686018427387904 * 2 > 0", E, "integer overflow" },
		{ "1 / 0 == 0", E, "division by zero" },
		{ "1 % 0 == 0", E, "modulus by zero" },
		{ "1u / 0u == 0u", E, "division by zero" },
		{ "18446744073709551615u + 1u > 0u", E, "unsigned integer overflow" },
		{ "1u - 2u > 0u", E, "unsigned integer overflow" },
		{ "1 + 1.0 == 2.0", E, "no such overload: int + double" },
		{ "1.5 % 1.0 == 0.5", E, "no such overload" },
		{ "-1u == 1u", E, "no such overload" },
		{ "1 < 'a'", E, "no such overload" },
		{ "[1] < [2]", E, "no such overload" },
		{ "!1", E, "no such overload" },
		{ "1 ? true : false", E, "no such overload" },
		{ "1 in 'abc'", E, "no such overload" },
		{ "[1, 2, 3][1] == 2 && [1, 2][1u] == 2 && [1, 2][1.0] == 2", T, NULL },
		{ "[1, 2][1.5] == 2", E, "unsupported index type" },
		{ "[1, 2][-1] == 2", E, "out of range" },
		{ "1 == 1 ? 'a' == 'a' : false", T, NULL },
		{ "double('nan') < 1.0", U, "cannot evaluate like the scheduler" },
		{ "double('nan') == double('nan')", F, NULL },
	};

	(void)state;
	run(cases, N_ELEM(cases));
}

static void strings_and_conversions(void **state)
{
	static const struct eval_case cases[] = {
		{ "'hello'.contains('ell') && !'hello'.contains('x') && 'hello'.contains('')", T,
		  NULL },
		{ "'hello'.startsWith('he') && 'hello'.endsWith('llo') && !'lo'.endsWith('hello')",
		  T, NULL },
		{ "size('héllo') == 5 && 'héllo'.size() == 5 && size([1, 2]) == 2", T, NULL },
		{ "size(device.attributes['x.io'].raw) == 3", T, NULL },
		{ "'ABC'.lowerAscii() == 'abc' && 'ÀB'.lowerAscii() == 'Àb' && 'a1'.upperAscii() "
		  "== 'A1'",
		  T, NULL },
		{ "'a' + 'b' == 'ab' && [1] + [2] == [1, 2]", T, NULL },
		{ "r'\\d' == '\\\\d' && '''a'b''' == \"a'b\" && \"\\u00e9\" == 'é'", T, NULL },
		{ "'\\x41' == 'A' && '\\101' == 'A' && '\\U0001F600'.size() == 1", T, NULL },
		{ "int('12') == 12 && int('-9223372036854775808') < 0 && int('+3') == 3", T, NULL },
		{ "int(1.9) == 1 && int(-1.9) == -1 && int(3u) == 3", T, NULL },
		{ "int('1.5') == 1", E, "string is not an int" },
		{ "int(' 1') == 1", E, "string is not an int" },
		{ "int(9.3e18) > 0", E, "integer overflow" },
		{ "int(18446744073709551615u) > 0", E, "integer overflow" },
		{ "uint(1) == 1u && uint('18446744073709551615') == 18446744073709551615u", T,
		  NULL },
		{ "uint(-1) == 1u", E, "unsigned integer overflow" },
		{ "uint('-1') == 1u", E, "string is not a uint" },
		{ "double('1.5') == 1.5 && double('-2e3') == -2000.0 && double(1) == 1.0", T,
		  NULL },
		{ "double('inf') > 1e308 && double('-Infinity') < -1e308", T, NULL },
		{ "double('1e400') > 0.0", E, "out of range" },
		{ "double('abc') > 0.0", E, "string is not a double" },
		{ "double('0x1p4') > 0.0", U, "cannot evaluate like the scheduler" },
		{ "string(1.5) == '1.5' && string(100000.0) == '100000' && string(1000000.0) == "
		  "'1e+06'",
		  T, NULL },
		{ "string(1e21) == '1e+21' && string(0.0001) == '0.0001' && string(0.00001) == "
		  "'1e-05'",
		  T, NULL },
		{ "string(-0.0) == '-0' && string(0.1) == '0.1' && string(1.0/3.0) == "
		  "'0.3333333333333333'",
		  T, NULL },
		{ "string(-12) == '-12' && string(7u) == '7' && string(true) == 'true'", T, NULL },
		{ "string(null) == ''", E, "no such overload" },
		{ "dyn(1) == 1 && dyn('a') == 'a'", T, NULL },
		{ "'a'.contains(1)", E, "no such overload: contains(string, int)" },
		{ "size(1) == 1", E, "no such overload: size(int)" },
	};

	(void)state;
	run(cases, N_ELEM(cases));
}

static void quantity_library(void **state)
{
	static const struct eval_case cases[] = {
		{ "quantity('1Gi').compareTo(quantity('1073741824')) == 0", T, NULL },
		{ "quantity('200M').compareTo(quantity('0.2G')) == 0", T, NULL },
		{ "quantity('50M').compareTo(quantity('50Mi')) == -1", T, NULL },
		{ "quantity('50Mi').compareTo(quantity('50M')) == 1", T, NULL },
		{ "quantity('150Mi').isGreaterThan(quantity('100Mi'))", T, NULL },
		{ "quantity('50Mi').isGreaterThan(quantity('100Mi'))", F, NULL },
		{ "quantity('50M').isLessThan(quantity('100M'))", T, NULL },
		{ "quantity('1Mi') == quantity('1024Ki') && quantity('1') != quantity('1001m')", T,
		  NULL },
		{ "quantity('1e1000').isGreaterThan(quantity('999e997'))", T, NULL },
		{ "quantity('-1e1000').isLessThan(quantity('1e-1000'))", T, NULL },
		{ "quantity('50k').add(quantity('20k')) == quantity('70k')", T, NULL },
		{ "quantity('50k').add(20) == quantity('50020')", T, NULL },
		{ "quantity('50k').sub(quantity('20k')) == quantity('30k')", T, NULL },
		{ "quantity('50k').sub(20000) == quantity('30k')", T, NULL },
		{ "quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')", T,
		  NULL },
		{ "quantity('1Ki').add(quantity('1')) == quantity('1025')", T, NULL },
		{ "quantity('1e900').add(quantity('1')) == quantity('1')", U,
		  "cannot evaluate like the scheduler" },
		{ "quantity('50000000G').isInteger() && quantity('50k').asInteger() == 50000", T,
		  NULL },
		{ "quantity('1.5k').asInteger() == 1500 && "
		  "quantity('922337203685477580').isInteger()",
		  T, NULL },
		/* apimachinery's representation decides, not the value alone. */
		{ "quantity('1').isInteger() && !quantity('1000m').isInteger() && "
		  "!quantity('1.0').isInteger()",
		  T, NULL },
		{ "quantity('1Ti').isInteger() && !quantity('1Ei').isInteger()", T, NULL },
		{ "quantity('9223372036854775807').isInteger()", F, NULL },
		{ "quantity('1500m').add(quantity('500m')).isInteger()", F, NULL },
		{ "quantity('0').add(quantity('1k')).isInteger()", T, NULL },
		{ "quantity('1k').add(quantity('1500m')).isInteger()", F, NULL },
		{ "quantity('1.5').asInteger() == 1", E, "cannot convert value to integer" },
		/* Values kept as decimals: rounded up to a nano; binary ones capped. */
		{ "quantity('1e-12') == quantity('1n') && quantity('-1e-12') == quantity('-1n')", T,
		  NULL },
		{ "quantity('0.0000000001') == quantity('1n')", T, NULL },
		{ "quantity('16Ei') == quantity('9223372036854775807')", T, NULL },
		{ "quantity('20000000000000000000') == quantity('2e19')", T, NULL },
		{ "quantity('1.5Ki').asApproximateFloat() == 1536.0 && "
		  "quantity('1500m').asApproximateFloat() == 1.5",
		  T, NULL },
		{ "quantity('-1.5').sign() == -1 && sign(quantity('0')) == 0 && "
		  "quantity('2').sign() == 1",
		  T, NULL },
		{ "isQuantity('1.3G') && isQuantity('1.3Gi') && isQuantity('10000k')", T, NULL },
		{ "isQuantity('1,3G') || isQuantity('200K') || isQuantity('Three') || "
		  "isQuantity('')",
		  F, NULL },
		{ "isQuantity('1e1001') && isQuantity('99999999999999999999999')", T, NULL },
		{ "quantity('200K') == quantity('200k')", E,
		  "quantities must match the regular expression" },
		{ "quantity('1e1001') == quantity('1e1001')", U,
		  "cannot evaluate like the scheduler" },
		{ "quantity('1') == 1", E, "no such overload: kubernetes.Quantity == int" },
		{ "1 == quantity('1')", F, NULL },
		{ "quantity('1') < quantity('2')", E, "no such overload" },
		{ "quantity('1').isLessThan(1)", E, "no such overload" },
		{ "quantity(1) == quantity('1')", E, "no such overload: quantity(int)" },
		/* Capacities: stored canonical by the API server. */
		{ "device.capacity['x.io'].memory.asInteger() == 42949672960", T, NULL },
		{ "device.capacity['x.io'].memory.isInteger() && "
		  "device.capacity['x.io'].tebi.isInteger()",
		  T, NULL },
		{ "device.capacity['x.io'].fraction.isInteger()", F, NULL },
		{ "device.capacity['x.io'].fraction.asApproximateFloat() == 1.5", T, NULL },
		{ "device.capacity['x.io'].pebi.isInteger() || "
		  "device.capacity['x.io'].pebiAsTebi.isInteger()",
		  F, NULL },
		{ "device.capacity['x.io'].digits19.isInteger()", F, NULL },
		{ "device.capacity['x.io'].digits18.isInteger() && "
		  "device.capacity['x.io'].zero.isInteger()",
		  T, NULL },
		{ "device.capacity['x.io'].memory.add(device.capacity['x.io'].fraction)"
		  ".compareTo(quantity('42949672961.5')) == 0",
		  T, NULL },
	};

	(void)state;
	run(cases, N_ELEM(cases));
}

static void semver_library(void **state)
{
	static const struct eval_case cases[] = {
		{ "semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && "
		  "semver('1.2.3').patch() == 3",
		  T, NULL },
		{ "semver('1.2.3').compareTo(semver('1.2.3')) == 0 && "
		  "semver('1.2.3').compareTo(semver('2.0.0')) == -1 && "
		  "semver('1.2.3').compareTo(semver('0.1.2')) == 1",
		  T, NULL },
		{ "semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1')) && "
		  "semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-alpha.beta')) && "
		  "semver('1.0.0-alpha.beta').isLessThan(semver('1.0.0-beta')) && "
		  "semver('1.0.0-beta').isLessThan(semver('1.0.0-beta.2')) && "
		  "semver('1.0.0-beta.2').isLessThan(semver('1.0.0-beta.11')) && "
		  "semver('1.0.0-beta.11').isLessThan(semver('1.0.0-rc.1')) && "
		  "semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))",
		  T, NULL },
		{ "semver('10.0.0').isGreaterThan(semver('9.99.99'))", T, NULL },
		{ "semver('1.0.0+build.1') == semver('1.0.0') && semver('1.0.0') != "
		  "semver('1.0.1')",
		  T, NULL },
		{ "semver('v1.0.0', true).major() == 1 && semver('1.0', true) == semver('1.0.0') "
		  "&& "
		  "semver('01.01.01', true) == semver('1.1.1') && semver('2', true) == "
		  "semver('2.0.0')",
		  T, NULL },
		{ "isSemver('1.0.0') && isSemver('1.0.0-0.3.7') && isSemver('1.0.0-x-y-z.--') && "
		  "isSemver('1.0.0-rc.1+build.1') && isSemver('v1.0', true)",
		  T, NULL },
		{ "isSemver('hello') || isSemver('v1.0') || isSemver('01.0.0') || "
		  "isSemver('1.0.0-01') || isSemver('1.0.0-') || isSemver('1.0.0+') || "
		  "isSemver('1.2.3.4') || isSemver('1.0-rc', true) || isSemver('') || "
		  "isSemver('1.0.0-a..b') || isSemver('99999999999999999999.0.0')",
		  F, NULL },
		{ "semver('x') == semver('x')", E, "semver: no Major.Minor.Patch elements found" },
		{ "semver('1.0.0') == '1.0.0'", E, "no such overload" },
		{ "semver('1.0.0').isLessThan(quantity('1'))", E, "no such overload" },
		{ "semver('1.0.0', 1) == semver('1.0.0')", E, "no such overload" },
		{ "semver('1.0.0').major() == semver('1.0.0', false).major()", T, NULL },
	};

	(void)state;
	run(cases, N_ELEM(cases));
}

static void matches_supported_patterns(void **state)
{
	static const struct {
		const char *pattern, *text;
		bool want;
	} cases[] = {
		{ "^.*a100.*$", "nvidia a100-sxm4", true },
		{ "[^a]?sym", "asymetric", true },
		{ "^gpu-[0-9]+$", "gpu-12", true },
		{ "^gpu-[0-9]+$", "gpu-", false },
		{ "\\d+", "abc123", true },
		{ "\\d", "abc", false },
		{ "^\\w+$", "a_b9", true },
		{ "^\\w+$", "a-b", false },
		{ "\\s", "a b", true },
		{ "\\s", "ab", false },
		{ "^\\D+$", "abc", true },
		{ "^[\\d\\s]+$", "1 2", true },
		{ "a.c", "a\nc", false },
		{ "a.c", "abc", true },
		{ "^(?:ab)+$", "abab", true },
		{ "^(?P<x>a|b)c$", "bc", true },
		{ "^(?<x>a|b)c$", "ac", true },
		{ "^a{2,3}$", "aaa", true },
		{ "^a{2,3}$", "aaaa", false },
		{ "^a{2,}$", "aaaaa", true },
		{ "x*?y", "xxy", true },
		{ "^x+?$", "xx", true },
		{ "[[:digit:]]+", "7", true },
		{ "[a\\-z]", "-", true },
		{ "[a\\-z]", "b", false },
		{ "[]a]", "]", true },
		{ "\\.", "a.b", true },
		{ "\\.", "ab", false },
		{ "\\x41\\x{42}", "AB", true },
		{ "a{", "a{", true },
		{ "a{,2}", "a{,2}", true },
		{ "a|", "zzz", true },
		{ "", "", true },
		{ "\\Aab\\z", "ab", true },
		{ "\\Aab\\z", "abc", false },
		{ "\\^", "^", true },
		{ "[\\^]", "a^", true },
		{ "[-^]", "-", true },
		{ "[^[:alpha:]]", "1", true },
		{ "[^[:alpha:]]", "a", false },
		{ "\\t", "a\tb", true },
		{ "[}{]", "}", true },
		{ "\\]", "]", true },
		{ "()", "x", true },
	};

	(void)state;
	for (size_t i = 0; i < N_ELEM(cases); i++) {
		struct cel_regex *re = NULL;
		char why[200];
		enum cel_regex_status st = cel_regex_compile(
			cases[i].pattern, strlen(cases[i].pattern), &re, why, sizeof why);

		if (st != CEL_REGEX_OK)
			fail_msg("%s: not translated: %s", cases[i].pattern, why);
		if (cel_regex_match(re, cases[i].text, strlen(cases[i].text)) != cases[i].want)
			fail_msg("%s (as %s) on \"%s\": want %d", cases[i].pattern,
				 cel_regex_posix(re), cases[i].text, cases[i].want);
		cel_regex_free(re);
	}
}

static void matches_translations(void **state)
{
	static const struct {
		const char *pattern, *posix;
	} cases[] = {
		{ "a.b", "a[^\n]b" },
		{ "\\d\\w", "[0-9][0-9A-Z_a-z]" },
		{ "[]a-c^-]", "[]a-c^-]" },
		{ "[\\^]", "\\^" },
		{ "[-^]", "[-^]" },
		{ "(?:a|b)*?", "(a|b)*" },
		{ "x{2,5}?", "x{2,5}" },
		{ "\\{\\}\\]", "\\{[}][]]" },
		{ "\\Aa\\z", "^a$" },
	};

	(void)state;
	for (size_t i = 0; i < N_ELEM(cases); i++) {
		struct cel_regex *re = NULL;
		char why[200];

		assert_int_equal(cel_regex_compile(cases[i].pattern, strlen(cases[i].pattern), &re,
						   why, sizeof why),
				 CEL_REGEX_OK);
		assert_string_equal(cel_regex_posix(re), cases[i].posix);
		cel_regex_free(re);
	}
}

/* The RE2 features a POSIX ERE cannot say are refused, each by name (see
 * dra/cel_regex.h); what RE2 itself rejects is invalid. */
static void matches_refused_patterns(void **state)
{
	static const struct {
		const char *pattern;
		enum cel_regex_status st;
		const char *why;
	} cases[] = {
		{ "\\bgpu\\b", CEL_REGEX_UNSUPPORTED, "word boundaries" },
		{ "\\Bx", CEL_REGEX_UNSUPPORTED, "word boundaries" },
		{ "(?i)gpu", CEL_REGEX_UNSUPPORTED, "flags" },
		{ "(?s:.)", CEL_REGEX_UNSUPPORTED, "flags" },
		{ "(?m)^a$", CEL_REGEX_UNSUPPORTED, "flags" },
		{ "\\pL", CEL_REGEX_UNSUPPORTED, "Unicode classes" },
		{ "\\p{Greek}", CEL_REGEX_UNSUPPORTED, "Unicode classes" },
		{ "\\Qa.b\\E", CEL_REGEX_UNSUPPORTED, "\\Q" },
		{ "\\12", CEL_REGEX_UNSUPPORTED, "octal" },
		{ "[[:^alpha:]]", CEL_REGEX_UNSUPPORTED, "negated POSIX classes" },
		{ "é", CEL_REGEX_UNSUPPORTED, "non-ASCII" },
		{ "\\x{e9}", CEL_REGEX_UNSUPPORTED, "non-ASCII" },
		{ "a\\x00", CEL_REGEX_UNSUPPORTED, "NUL" },
		{ "^*", CEL_REGEX_UNSUPPORTED, "repetition of an anchor" },
		{ "a{1000}a{1000}a{1000}a{1000}a{1000}a{1000}a{1000}a{1000}a{1000}a{1000}"
		  "a{1000}a{1000}a{1000}a{1000}a{1000}a{1000}a{1000}a{1000}a{1000}a{1000}a{1000}",
		  CEL_REGEX_UNSUPPORTED, "expands beyond 20000" },
		{ "(?=x)", CEL_REGEX_INVALID, "lookaround" },
		{ "(?<!x)y", CEL_REGEX_INVALID, "lookaround" },
		{ "(?P=n)", CEL_REGEX_INVALID, "invalid or unsupported Perl syntax" },
		{ "a(", CEL_REGEX_INVALID, "missing closing )" },
		{ "a)", CEL_REGEX_INVALID, "unexpected )" },
		{ "[a", CEL_REGEX_INVALID, "missing closing ]" },
		{ "*a", CEL_REGEX_INVALID, "missing argument" },
		{ "{2}", CEL_REGEX_INVALID, "missing argument" },
		{ "a**", CEL_REGEX_INVALID, "nested repetition" },
		{ "a{2}{3}", CEL_REGEX_INVALID, "nested repetition" },
		{ "a{1001}", CEL_REGEX_INVALID, "invalid repeat count" },
		{ "a{3,2}", CEL_REGEX_INVALID, "invalid repeat count" },
		{ "(a{100}){20}", CEL_REGEX_INVALID, "invalid repeat count" },
		{ "[z-a]", CEL_REGEX_INVALID, "invalid character class range" },
		{ "[a-\\d]", CEL_REGEX_INVALID, "invalid character class range" },
		{ "[[:nope:]]", CEL_REGEX_INVALID, "invalid character class range" },
		{ "\\c", CEL_REGEX_INVALID, "invalid escape" },
		{ "\\x{110000}", CEL_REGEX_INVALID, "invalid escape" },
		{ "a\\", CEL_REGEX_INVALID, "trailing backslash" },
	};

	(void)state;
	for (size_t i = 0; i < N_ELEM(cases); i++) {
		struct cel_regex *re = NULL;
		char why[200] = "";
		enum cel_regex_status st = cel_regex_compile(
			cases[i].pattern, strlen(cases[i].pattern), &re, why, sizeof why);

		cel_regex_free(re);
		if (st != cases[i].st || strstr(why, cases[i].why) == NULL)
			fail_msg("%.60s: status %d (%s), want %d with %s", cases[i].pattern, st,
				 why, cases[i].st, cases[i].why);
	}
	/* A NUL inside a pattern never reaches the C library. */
	{
		struct cel_regex *re = NULL;
		char why[200] = "";

		assert_int_equal(cel_regex_compile("a\0b", 3, &re, why, sizeof why),
				 CEL_REGEX_UNSUPPORTED);
		assert_null(re);
	}
}

static void matches_in_expressions(void **state)
{
	static const struct eval_case cases[] = {
		{ "device.attributes['x.io'].product.matches('A1[0-9]{2}$')", T, NULL },
		{ "matches('gpu-1', '^gpu')", T, NULL },
		/* A pattern built at run time is translated at run time. */
		{ "'abc'.matches('^' + 'a')", T, NULL },
		{ "'abc'.matches('\\\\b' + 'a')", U, "cannot evaluate like the scheduler" },
		{ "'a'.matches('(' + 'a')", E, "invalid regular expression: missing closing )" },
		/* RE2 counts characters where POSIX counts bytes: a pattern that
		 * could match a non-ASCII character cannot decide such a text. */
		{ "'é'.matches('^.$')", U, "cannot evaluate like the scheduler" },
		{ "'é'.matches('^[^a]+$')", U, "cannot evaluate like the scheduler" },
		{ "'aé'.matches('^a')", T, NULL },
		{ "'é'.matches('^a')", F, NULL },
		{ "'a\\x00b'.matches('b')", U, "cannot evaluate like the scheduler" },
		/* ...but || and && still absorb it where the other side decides. */
		{ "true || 'é'.matches('^.$')", T, NULL },
		{ "'é'.matches('^.$') && false", F, NULL },
		{ "1.matches('a')", E, "no such overload: matches(int, string)" },
	};

	(void)state;
	run(cases, N_ELEM(cases));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers_follow_cel_typing),
		cmocka_unit_test(strings_and_conversions),
		cmocka_unit_test(quantity_library),
		cmocka_unit_test(semver_library),
		cmocka_unit_test(matches_supported_patterns),
		cmocka_unit_test(matches_translations),
		cmocka_unit_test(matches_refused_patterns),
		cmocka_unit_test(matches_in_expressions),
	};

	return cmocka_run_group_tests_name("dra_cel_lib", tests, build_device, free_device);
}
