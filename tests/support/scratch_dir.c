/* SPDX-License-Identifier: Apache-2.0 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "tests/support/scratch_dir.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int scratch_dir_make(char *tmpl)
{
	return mkdtemp(tmpl) != NULL ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	if (remove(path) != 0 && errno != ENOENT) {
		fprintf(stderr, "cannot remove %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int scratch_dir_remove(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st) != 0 && errno == ENOENT)
		return 0;
	/* Depth first, so each directory is empty when its turn comes. */
	return nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}
