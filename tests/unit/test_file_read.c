/* SPDX-License-Identifier: Apache-2.0 */
/* extender/file_read.c on real files: only regular files are read, a FIFO
 * or a device is refused without blocking (an alarm ends the binary if an
 * open ever waits), a whole file and a line are held to their ceilings
 * exactly, and lines come back whole across the reader's buffer refills. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extender/file_read.h"
#include "tests/support/scratch_dir.h"

static char dir[] = "/tmp/numa-file-read-XXXXXX";

static int setup(void **state)
{
	(void)state;
	/* The deadline: an open or read that blocks kills the binary, which
	 * run-tests.sh counts as a failure. */
	alarm(60);
	return scratch_dir_make(dir);
}

static int teardown(void **state)
{
	(void)state;
	return scratch_dir_remove(dir);
}

static const char *path_of(const char *name)
{
	static char path[256];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return path;
}

static const char *write_file(const char *name, const char *text, size_t len)
{
	const char *path = path_of(name);
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void expect_read_error(const char *path, enum err want, const char *text)
{
	static char dummy[1];
	struct errmsg msg = { { 0 } };
	struct file_lines *fl = (struct file_lines *)(void *)dummy;
	char *buf = dummy;
	size_t len = 7;
	int fd = 99;

	assert_int_equal(file_read_all(path, 0, &buf, &len, &msg), want);
	assert_string_equal(msg.text, text);
	assert_null(buf);
	assert_int_equal(len, 0);
	memset(&msg, 0, sizeof msg);
	assert_int_equal(file_open_input(path, &fd, &msg), want);
	assert_string_equal(msg.text, text);
	assert_int_equal(fd, -1);
	memset(&msg, 0, sizeof msg);
	assert_int_equal(file_lines_open(path, 100, &fl, &msg), want);
	assert_string_equal(msg.text, text);
	assert_null(fl);
}

static void file_read_refuses_what_is_not_a_regular_file(void **state)
{
	char want[400], link[256];

	(void)state;
	snprintf(want, sizeof want, "%s: not a regular file (a FIFO)", path_of("fifo"));
	assert_int_equal(mkfifo(path_of("fifo"), 0600), 0);
	expect_read_error(path_of("fifo"), ERR_IO, want);
	/* Through a symlink, the type of what the descriptor reaches counts. */
	snprintf(link, sizeof link, "%s", path_of("to-fifo"));
	assert_int_equal(symlink("fifo", link), 0);
	snprintf(want, sizeof want, "%s: not a regular file (a FIFO)", link);
	expect_read_error(link, ERR_IO, want);
	expect_read_error("/dev/zero", ERR_IO, "/dev/zero: not a regular file (a character device)");
	snprintf(want, sizeof want, "%s: is a directory", dir);
	expect_read_error(dir, ERR_IO, want);
	snprintf(want, sizeof want, "%s: cannot open: No such file or directory", path_of("nope"));
	expect_read_error(path_of("nope"), ERR_IO, want);
}

static void file_read_all_holds_the_ceiling_exactly(void **state)
{
	struct errmsg msg = { { 0 } };
	const char *path = write_file("ten", "0123456789", 10);
	char *buf = NULL, want[300];
	size_t len = 0;
	int fd = -1;

	(void)state;
	assert_int_equal(file_read_all(path, 10, &buf, &len, &msg), ERR_OK);
	assert_int_equal(len, 10);
	assert_string_equal(buf, "0123456789");
	free(buf);
	assert_int_equal(file_read_all(path, 9, &buf, &len, &msg), ERR_TOO_LARGE);
	snprintf(want, sizeof want, "%s: larger than 9 bytes", path);
	assert_string_equal(msg.text, want);
	assert_null(buf);
	/* The descriptor reads blocking, as any other. */
	assert_int_equal(file_open_input(path, &fd, &msg), ERR_OK);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, want, 4), 4);
	assert_memory_equal(want, "0123", 4);
	close(fd);
}

/* All the lines of path, each followed by "|", or the error's text. */
static void all_lines(const char *path, size_t max_line, char *out, size_t size)
{
	struct errmsg msg = { { 0 } };
	struct file_lines *fl = NULL;
	size_t used = 0, len, lineno, expect = 1;
	enum err rc;
	char *line;

	assert_int_equal(file_lines_open(path, max_line, &fl, &msg), ERR_OK);
	out[0] = '\0';
	while ((rc = file_lines_next(fl, &line, &len, &lineno, &msg)) == ERR_OK && line) {
		assert_int_equal(lineno, expect++);
		assert_int_equal(line[len], '\0');
		assert_true(used + len + 2 <= size);
		memcpy(out + used, line, len);
		used += len;
		out[used++] = '|';
		out[used] = '\0';
	}
	if (rc != ERR_OK)
		snprintf(out + used, size - used, "%s", msg.text);
	file_lines_close(fl);
}

static void file_lines_splits_and_bounds_lines(void **state)
{
	char out[512], want[512];
	const char *path;

	(void)state;
	path = write_file("lines", "a\n\nbc\r\nlast", 11);
	all_lines(path, 100, out, sizeof out);
	assert_string_equal(out, "a||bc\r|last|");
	path = write_file("empty", "", 0);
	all_lines(path, 100, out, sizeof out);
	assert_string_equal(out, "");
	/* A line of exactly max_line bytes passes, with or without its "\n";
	 * one byte more is refused, by number. */
	path = write_file("edge", "1234\n12345\n", 11);
	all_lines(path, 5, out, sizeof out);
	assert_string_equal(out, "1234|12345|");
	path = write_file("edge-last", "12345", 5);
	all_lines(path, 5, out, sizeof out);
	assert_string_equal(out, "12345|");
	path = write_file("over", "1234\n123456\n1\n", 14);
	all_lines(path, 5, out, sizeof out);
	snprintf(want, sizeof want, "1234|%s: line 2 longer than 5 bytes", path);
	assert_string_equal(out, want);
	path = write_file("over-last", "1\n123456", 8);
	all_lines(path, 5, out, sizeof out);
	snprintf(want, sizeof want, "1|%s: line 2 longer than 5 bytes", path);
	assert_string_equal(out, want);
	/* A NUL is a byte of its line like any other. */
	path = write_file("nul", "a\0b\nc\n", 6);
	all_lines(path, 5, out, sizeof out);
	assert_memory_equal(out, "a\0b|c|", 6);
}

/* Lines longer than the reader's first buffer (64 KiB), and many short ones
 * around them, come back whole and in order. */
static void file_lines_across_refills(void **state)
{
	const size_t big = (size_t)300 << 10;
	struct errmsg msg = { { 0 } };
	struct file_lines *fl = NULL;
	char *text = malloc(big * 2 + 200000), *line;
	size_t n = 0, len, lineno, i, k;
	const char *path;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < 20000; i++)
		n += (size_t)sprintf(text + n, "%zu\n", i);
	memset(text + n, 'x', big);
	n += big;
	text[n++] = '\n';
	for (i = 0; i < 3; i++)
		n += (size_t)sprintf(text + n, "%zu\n", i);
	memset(text + n, 'y', big);
	n += big;
	path = write_file("refills", text, n);
	assert_int_equal(file_lines_open(path, big, &fl, &msg), ERR_OK);
	for (k = 0; k < 20000 + 1 + 3 + 1; k++) {
		assert_int_equal(file_lines_next(fl, &line, &len, &lineno, &msg), ERR_OK);
		assert_non_null(line);
		assert_int_equal(lineno, k + 1);
		if (k == 20000 || k == 20004) {
			assert_int_equal(len, big);
			assert_int_equal(line[0], k == 20000 ? 'x' : 'y');
			assert_int_equal(line[big - 1], k == 20000 ? 'x' : 'y');
		} else {
			char want[32];

			snprintf(want, sizeof want, "%zu", k < 20000 ? k : k - 20001);
			assert_string_equal(line, want);
		}
	}
	assert_int_equal(file_lines_next(fl, &line, &len, &lineno, &msg), ERR_OK);
	assert_null(line);
	file_lines_close(fl);
	/* One byte less of ceiling: the first long line is refused. */
	assert_int_equal(file_lines_open(path, big - 1, &fl, &msg), ERR_OK);
	for (k = 0; k < 20000; k++)
		assert_int_equal(file_lines_next(fl, &line, &len, &lineno, &msg), ERR_OK);
	assert_int_equal(file_lines_next(fl, &line, &len, &lineno, &msg), ERR_TOO_LARGE);
	assert_non_null(strstr(msg.text, ": line 20001 longer than 307199 bytes"));
	file_lines_close(fl);
	file_lines_close(NULL);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(file_read_refuses_what_is_not_a_regular_file),
		cmocka_unit_test(file_read_all_holds_the_ceiling_exactly),
		cmocka_unit_test(file_lines_splits_and_bounds_lines),
		cmocka_unit_test(file_lines_across_refills),
	};

	return cmocka_run_group_tests_name("file_read", tests, setup, teardown);
}
