/* SPDX-License-Identifier: Apache-2.0 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "tests/support/tree_files.h"

#include <ftw.h>
#include <stdlib.h>
#include <string.h>

/* nftw's callback has no argument of its own: the walk in progress. */
static struct tree_files *walking;
static const char *walking_suffix;

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t n = strlen(path), k = strlen(walking_suffix);

	(void)st;
	(void)ftw;
	if (type != FTW_F || n < k || strcmp(path + n - k, walking_suffix) != 0)
		return 0;
	if (walking->n == TREE_FILES_MAX)
		return 1;
	tree_files_add_one(walking, path);
	return 0;
}

bool tree_files_add(struct tree_files *t, const char *root, const char *suffix)
{
	walking = t;
	walking_suffix = suffix;
	return nftw(root, collect, 16, FTW_PHYS) == 0;
}

void tree_files_add_one(struct tree_files *t, const char *path)
{
	char *copy;

	if (t->n == TREE_FILES_MAX || (copy = strdup(path)) == NULL)
		abort();
	t->path[t->n++] = copy;
}

void tree_files_free(struct tree_files *t)
{
	while (t->n > 0)
		free(t->path[--t->n]);
}
