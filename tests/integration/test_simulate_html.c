/* SPDX-License-Identifier: Apache-2.0 */
/* `simulate --html`: the page of an A/B run on config/examples (with Node
 * objects and running pods) names no URL and no script, escapes names from
 * the input, holds the views it promises, and renders in headless Chromium
 * (Debian's chromium, which scripts/install-deps.sh installs for this test)
 * into a screenshot that is a real picture: the size asked for, many
 * colours, much of it not background. Without a chromium that runs, the
 * rendering test is skipped, saying why. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "tests/support/http_client.h"
#include "tests/support/spawn.h"

#define SHOT_W 1200
#define SHOT_H 1600

static char dir[] = "/tmp/numa-simhtml-XXXXXX";
static char page[256];

/* ---- a small PNG reader: 8-bit RGB or RGBA, not interlaced ---- */

struct png_image {
	uint32_t width, height;
	unsigned char *rgba; /* width * height * 4 */
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undoes the row filters of raw (height rows of 1 + stride bytes) in place. */
static bool unfilter(unsigned char *raw, uint32_t height, size_t stride, size_t bpp)
{
	unsigned char *prev = NULL;
	uint32_t y;
	size_t x;

	for (y = 0; y < height; y++) {
		unsigned char *row = raw + (size_t)y * (stride + 1), f = row[0], *cur = row + 1;

		for (x = 0; x < stride; x++) {
			int a = x >= bpp ? cur[x - bpp] : 0, b = prev ? prev[x] : 0;
			int c = prev && x >= bpp ? prev[x - bpp] : 0;

			switch (f) {
			case 0: break;
			case 1: cur[x] = (unsigned char)(cur[x] + a); break;
			case 2: cur[x] = (unsigned char)(cur[x] + b); break;
			case 3: cur[x] = (unsigned char)(cur[x] + (a + b) / 2); break;
			case 4: cur[x] = (unsigned char)(cur[x] + paeth(a, b, c)); break;
			default: return false;
			}
		}
		prev = cur;
	}
	return true;
}

/* Reads path into img; fails the test, naming what is wrong, otherwise. */
static void png_read(const char *path, struct png_image *img)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	unsigned char *file, *idat = NULL, *raw;
	size_t idat_len = 0, pos = 8, bpp = 0, stride, x, y;
	uLongf raw_len;
	struct stat st;
	FILE *f;

	memset(img, 0, sizeof *img);
	assert_int_equal(stat(path, &st), 0);
	/* A screenshot of this page is tens of kilobytes at least; a blank
	 * one of this size compresses to a few. */
	if (st.st_size < 20000 || st.st_size > (64 << 20))
		fail_msg("%s: %lld bytes, not a plausible screenshot", path, (long long)st.st_size);
	file = malloc((size_t)st.st_size);
	assert_non_null(file);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(file, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	assert_memory_equal(file, sig, 8);
	while (pos + 12 <= (size_t)st.st_size) {
		uint32_t len = be32(file + pos);
		const unsigned char *type = file + pos + 4, *data = file + pos + 8;

		assert_true(len <= (size_t)st.st_size - pos - 12);
		if (memcmp(type, "IHDR", 4) == 0) {
			img->width = be32(data);
			img->height = be32(data + 4);
			if (data[8] != 8 || (data[9] != 2 && data[9] != 6) || data[12] != 0)
				fail_msg("%s: not 8-bit RGB(A) without interlace", path);
			bpp = data[9] == 6 ? 4 : 3;
		} else if (memcmp(type, "IDAT", 4) == 0) {
			idat = realloc(idat, idat_len + len + 1);
			assert_non_null(idat);
			memcpy(idat + idat_len, data, len);
			idat_len += len;
		} else if (memcmp(type, "IEND", 4) == 0) {
			break;
		}
		pos += 12 + (size_t)len;
	}
	assert_true(bpp != 0 && idat != NULL);
	assert_true(img->width > 0 && img->width <= 16384 && img->height > 0 && img->height <= 16384);
	stride = (size_t)img->width * bpp;
	raw_len = (uLongf)((stride + 1) * img->height);
	raw = malloc(raw_len);
	assert_non_null(raw);
	assert_int_equal(uncompress(raw, &raw_len, idat, (uLong)idat_len), Z_OK);
	assert_int_equal(raw_len, (uLongf)((stride + 1) * img->height));
	assert_true(unfilter(raw, img->height, stride, bpp));
	img->rgba = malloc((size_t)img->width * img->height * 4);
	assert_non_null(img->rgba);
	for (y = 0; y < img->height; y++)
		for (x = 0; x < img->width; x++) {
			const unsigned char *s = raw + y * (stride + 1) + 1 + x * bpp;
			unsigned char *d = img->rgba + (y * img->width + x) * 4;

			memcpy(d, s, 3);
			d[3] = bpp == 4 ? s[3] : 255;
		}
	free(raw);
	free(idat);
	free(file);
}

/* ---- the page ---- */

static int setup(void **state)
{
	char cmd[2048], a[256], b[256];
	FILE *f;

	(void)state;
	if (mkdtemp(dir) == NULL)
		return -1;
	/* Two numa-extender configurations, one with HTML's special
	 * characters in its file name (the page shows it). */
	snprintf(a, sizeof a, "%s/spread<&>.yaml", dir);
	snprintf(b, sizeof b, "%s/pack.yaml", dir);
	f = fopen(a, "w");
	if (f == NULL)
		return -1;
	fputs("scoring: {strategy: LeastAllocated}\n", f);
	fclose(f);
	f = fopen(b, "w");
	if (f == NULL)
		return -1;
	fputs("scoring: {strategy: MostAllocated}\n", f);
	fclose(f);
	snprintf(page, sizeof page, "%s/page.html", dir);
	snprintf(cmd, sizeof cmd,
		 "%s simulate --nrt config/examples --nodes config/simulate/nodes.yaml --running "
		 "config/simulate/running.yaml --pods config/simulate/pods.yaml --config '%s' --config '%s' "
		 "--html %s >%s/stdout 2>%s/stderr",
		 spawn_serve_bin(), a, b, page, dir, dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	spawn_cleanup(0, dir, NULL, NULL);
	return 0;
}

static void page_names_no_url_and_escapes(void **state)
{
	static const char *const banned[] = {
		"http://", "https://", "src=", "href=", "<script", "url(", "@import", "<link",
		"<iframe", "<object", "<embed", "xlink:", NULL,
	};
	static const char *const promised[] = {
		"<!DOCTYPE html>", "Cluster: free capacity and fragmentation", "Placements, in order",
		"tied: ", "Nodes: each NUMA zone, allocatable against used", "<h4>worker-fat16",
		"nvidia.com/gpu", "Pods placed differently", "Pods placed alike whose scores changed",
		"</body></html>", NULL,
	};
	char *html = read_file_or_die(page, NULL);
	size_t i;

	(void)state;
	for (i = 0; banned[i] != NULL; i++)
		if (strstr(html, banned[i]) != NULL)
			fail_msg("the page holds \"%s\"", banned[i]);
	/* No "//" anywhere a browser would follow it: the page has no
	 * attribute that takes a URL at all (checked above); nor a
	 * protocol-relative one in text. */
	assert_null(strstr(html, "=\"//"));
	assert_null(strstr(html, "='//"));
	/* The configuration's file name, escaped. */
	assert_non_null(strstr(html, "spread&lt;&amp;&gt;.yaml"));
	assert_null(strstr(html, "spread<&>.yaml"));
	/* What it promises: the cluster view, the placements with the tied
	 * set, each node's zones, and the A/B comparison. */
	for (i = 0; promised[i] != NULL; i++)
		if (strstr(html, promised[i]) == NULL)
			fail_msg("the page lacks \"%s\"", promised[i]);
	free(html);
}

/* The chromium binary: $CHROMIUM, else chromium on the PATH; NULL when
 * there is none. */
static const char *chromium(void)
{
	static char found[512];
	const char *env = getenv("CHROMIUM"), *path = getenv("PATH");

	if (env != NULL && env[0] != '\0')
		return access(env, X_OK) == 0 ? env : NULL;
	while (path != NULL && *path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);

		snprintf(found, sizeof found, "%.*s/chromium", (int)len, path);
		if (len > 0 && access(found, X_OK) == 0)
			return found;
		path = colon ? colon + 1 : NULL;
	}
	return NULL;
}

static void page_renders_in_chromium(void **state)
{
	const char *bin = chromium();
	char profile[300], shot[300], size[64], shot_arg[320], profile_arg[320], url[300], log[300];
	struct png_image img;
	size_t i, n, differ = 0, colours = 0;
	static unsigned char seen[1 << 15];
	pid_t pid;
	int rc;

	(void)state;
	if (bin == NULL) {
		print_message("chromium not found (scripts/install-deps.sh installs Debian's chromium): "
			      "rendering skipped\n");
		skip();
	}
	snprintf(profile, sizeof profile, "%s/chromium-profile", dir);
	assert_int_equal(mkdir(profile, 0700), 0);
	snprintf(shot, sizeof shot, "%s/page.png", dir);
	snprintf(log, sizeof log, "%s/chromium.log", dir);
	snprintf(size, sizeof size, "--window-size=%d,%d", SHOT_W, SHOT_H);
	snprintf(shot_arg, sizeof shot_arg, "--screenshot=%s", shot);
	snprintf(profile_arg, sizeof profile_arg, "--user-data-dir=%s", profile);
	snprintf(url, sizeof url, "file://%s", page);
	{
		const char *const argv[] = {
			bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
			"--no-first-run", "--disable-background-networking", "--disable-component-update",
			"--disable-sync", "--hide-scrollbars", profile_arg, shot_arg, size, url, NULL,
		};

		pid = spawn_process(argv, log);
	}
	/* A deadline for a hung browser, not a measure: it takes seconds. */
	rc = spawn_wait_exit(pid, 180);
	if (rc != 0 || access(shot, F_OK) != 0) {
		print_message("chromium (%s) did not render (exit %d; its output in %s): rendering "
			      "skipped\n", bin, rc, log);
		skip();
	}
	png_read(shot, &img);
	assert_int_equal(img.width, SHOT_W);
	assert_int_equal(img.height, SHOT_H);
	n = (size_t)img.width * img.height;
	memset(seen, 0, sizeof seen);
	for (i = 0; i < n; i++) {
		const unsigned char *p = img.rgba + i * 4;
		/* 15-bit colour: enough to tell the page's colours apart. */
		unsigned key = (unsigned)(p[0] >> 3) << 10 | (unsigned)(p[1] >> 3) << 5 | (unsigned)(p[2] >> 3);

		if (!seen[key]) {
			seen[key] = 1;
			colours++;
		}
		differ += memcmp(p, img.rgba, 3) != 0;
	}
	/* Text, bars in four colours, tables: far from one colour. */
	if (colours < 16)
		fail_msg("the screenshot has %zu colours", colours);
	if (differ * 100 < n * 3)
		fail_msg("only %zu of %zu pixels differ from the background", differ, n);
	free(img.rgba);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(page_names_no_url_and_escapes),
		cmocka_unit_test(page_renders_in_chromium),
	};

	return cmocka_run_group_tests_name("simulate_html", tests, setup, teardown);
}
