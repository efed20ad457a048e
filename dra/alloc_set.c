/* SPDX-License-Identifier: Apache-2.0 */
#include "dra/alloc_set.h"

#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"
#include "base/xalloc.h"

static void add_len(struct textbuf *b, const char *s)
{
	char digits[24];
	size_t n = strlen(s), i = sizeof digits;

	digits[--i] = ':';
	do {
		digits[--i] = (char)('0' + n % 10);
		n /= 10;
	} while (n > 0);
	textbuf_add(b, digits + i, sizeof digits - i);
}

/* Pool names may hold '/', and nothing stops a file from putting any byte
 * in a name: each part is length-prefixed so no two ids share a key. (No
 * printf: this runs for each device a search looks at, on every node.) */
static bool key_build(struct textbuf *b, const char *driver, const char *pool, const char *device)
{
	add_len(b, driver);
	textbuf_adds(b, driver);
	add_len(b, pool);
	textbuf_adds(b, pool);
	textbuf_adds(b, device);
	return !textbuf_failed(b);
}

/* A heap builder that the key always fits in (two lengths of at most 20
 * digits and their colons on top of the names). */
static void key_init(struct textbuf *b, const char *driver, const char *pool, const char *device)
{
	textbuf_init(b, strlen(driver) + strlen(pool) + strlen(device) + 64);
}

void dra_device_set_init(struct dra_device_set *s)
{
	memset(s, 0, sizeof *s);
}

void dra_device_set_free(struct dra_device_set *s)
{
	size_t i;

	strmap_clear(&s->map);
	for (i = 0; i < s->n; i++)
		free(s->keys[i]);
	free(s->keys);
	memset(s, 0, sizeof *s);
}

void dra_device_set_add(struct dra_device_set *s, const char *driver, const char *pool,
			const char *device)
{
	struct textbuf b;
	char *key;

	key_init(&b, driver, pool, device);
	key_build(&b, driver, pool, device);
	key = textbuf_take(&b, NULL);
	if (strmap_get(&s->map, key) != NULL) {
		free(key);
		return;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->keys = xreallocarray(s->keys, s->cap, sizeof *s->keys);
	}
	s->keys[s->n++] = key;
	strmap_put(&s->map, key, key);
}

bool dra_device_set_has(const struct dra_device_set *s, const char *driver, const char *pool,
			const char *device)
{
	char mem[512];
	struct textbuf b;
	bool has;

	if (s->n == 0)
		return false;
	textbuf_init_fixed(&b, mem, sizeof mem);
	if (key_build(&b, driver, pool, device))
		return strmap_get(&s->map, mem) != NULL;
	key_init(&b, driver, pool, device);
	key_build(&b, driver, pool, device);
	has = strmap_get(&s->map, textbuf_str(&b)) != NULL;
	textbuf_free(&b);
	return has;
}

void dra_device_set_add_claim(struct dra_device_set *s, const struct dra_claim *c)
{
	size_t i;

	if (!c->allocated)
		return;
	for (i = 0; i < c->nresults; i++) {
		const struct dra_result *r = &c->results[i];

		if (r->admin_access || r->share_id != NULL || r->driver == NULL || r->pool == NULL ||
		    r->device == NULL)
			continue;
		dra_device_set_add(s, r->driver, r->pool, r->device);
	}
}
