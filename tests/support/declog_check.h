/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a decision log as replay must be able to: every line one whole
 * JSON object, every decision after the config and inventory records it
 * refers to, and the "lost" markers summed. For the tests that make the
 * log's writes fail. */
#ifndef TESTS_SUPPORT_DECLOG_CHECK_H
#define TESTS_SUPPORT_DECLOG_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;

/* Every line of the file, each a JSON object (a new array); NULL with the
 * reason in why when the file cannot be read, ends in a cut line, or has a
 * line that is not one whole JSON object. */
struct json_object *declog_read(const char *path, char *why, size_t size);

struct declog_tally {
	size_t decisions, markers;
	uint64_t lost;           /* the markers' records, summed */
	uint64_t missing;        /* seqs absent from 1..the last one */
	size_t first_marker;     /* line index, or SIZE_MAX */
	size_t inventories;      /* inventory records of the node named to declog_tally */
	size_t first_inventory;  /* line index of the first of them, or SIZE_MAX */
};

/* Tallies lines (declog_read's). False, with the line named in why, when a
 * decision comes before its config or an inventory version it decided
 * with, when seqs do not grow, or when a marker lacks records, since or
 * error. node: the node whose inventory records are counted. */
bool declog_tally(struct json_object *lines, const char *node, struct declog_tally *t, char *why,
		  size_t size);

/* Whole decision lines in the file now: a partial line at its end (one the
 * writer is about to cut off) is not one. 0 when there is no file. */
size_t declog_decisions_now(const char *path);

/* Runs `<bin> replay <args>` (stderr with stdout into *out, which the
 * caller frees) and returns its exit status. */
int declog_replay(const char *bin, const char *args, char **out);

#endif
