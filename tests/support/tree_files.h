/* SPDX-License-Identifier: Apache-2.0 */
/* The files of a folder tree whose names end in a suffix ("docs", ".md"),
 * for the tests that read every doc or manifest. Links are not followed. */
#ifndef TESTS_TREE_FILES_H
#define TESTS_TREE_FILES_H

#include <stdbool.h>
#include <stddef.h>

#define TREE_FILES_MAX 1024

struct tree_files {
	char *path[TREE_FILES_MAX]; /* malloc'd, "docs/serve.md" */
	size_t n;
};

/* Appends the regular files under root ending in suffix; false when root
 * cannot be walked or there are more than TREE_FILES_MAX in all. */
bool tree_files_add(struct tree_files *t, const char *root, const char *suffix);
/* Appends one path as it is. */
void tree_files_add_one(struct tree_files *t, const char *path);
void tree_files_free(struct tree_files *t);

#endif
