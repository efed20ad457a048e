/* SPDX-License-Identifier: Apache-2.0 */
/* UTF-8 (utf8.h). */
#include "base/utf8.h"

size_t utf8_put(char *out, unsigned long cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

size_t utf8_seq_len(const unsigned char *p, size_t avail)
{
	unsigned char lo = 0x80, hi = 0xBF;
	size_t n, k;

	if (p[0] >= 0xC2 && p[0] <= 0xDF) {
		n = 2;
	} else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
		n = 3;
		if (p[0] == 0xE0)
			lo = 0xA0; /* overlong below U+0800 */
		else if (p[0] == 0xED)
			hi = 0x9F; /* surrogates */
	} else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
		n = 4;
		if (p[0] == 0xF0)
			lo = 0x90; /* overlong below U+10000 */
		else if (p[0] == 0xF4)
			hi = 0x8F; /* above U+10FFFF */
	} else {
		return 0;
	}
	if (avail < n || p[1] < lo || p[1] > hi)
		return 0;
	for (k = 2; k < n; k++) {
		if ((p[k] & 0xC0) != 0x80)
			return 0;
	}
	return n;
}
