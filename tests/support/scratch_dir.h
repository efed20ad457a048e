/* SPDX-License-Identifier: Apache-2.0 */
/* A scratch directory of a test's own under /tmp, made fresh and removed
 * with everything in it: the setup and teardown most file tests share. */
#ifndef TESTS_SCRATCH_DIR_H
#define TESTS_SCRATCH_DIR_H

/* Makes a new directory from tmpl ("/tmp/numa-NAME-XXXXXX"; the X's are
 * rewritten in place, as mkdtemp does). 0, or -1 as a cmocka setup fails. */
int scratch_dir_make(char *tmpl);

/* Removes dir and everything below it, never following a symbolic link
 * out of it. 0, or -1 when something is left (said on stderr); a dir that
 * does not exist is nothing to remove. */
int scratch_dir_remove(const char *dir);

#endif
