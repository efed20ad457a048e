/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON of the assumed-pod ledger, as /ledger returns it: one node's pods
 * with their state, placement and what they take, or a summary of every
 * node. The ledger fills a plain view (no ledger types here); this is the
 * only place that spells these keys. The text is json-c's plain
 * serialisation, which /ledger has always returned ("/" written "\/"). */
#ifndef EXTENDER_LEDGER_JSON_H
#define EXTENDER_LEDGER_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An amount of a resource on one NUMA zone. */
struct ledger_json_amount {
	const char *resource;
	int numa_id;                  /* in takes: -1 for every zone listing it */
	int64_t amount;
};

struct ledger_json_pod {
	const char *namespace_, *name, *uid;
	const char *state;            /* reflected, assumed, departed, awaitingInventory */
	int64_t priority;
	const char *decided;          /* unknown, pass, reject */
	const char *decided_version;  /* NULL: none */
	bool known;                   /* the placement: numa_ids and holds */
	uint64_t numa_ids;
	const struct ledger_json_amount *holds;
	size_t nholds;
	bool taken;                   /* assumed or departed: assumed_ms_ago */
	int64_t assumed_ms_ago;
	const struct ledger_json_amount *takes; /* what it takes off the node */
	size_t ntakes;
};

struct ledger_json_node {
	const char *node;
	bool inventory;               /* the node has an NRT */
	const char *mode;             /* the ledger's mode name */
	const char *nrt_fingerprint, *nrt_method, *ledger_fingerprint;
	const struct ledger_json_pod *pods;
	size_t npods;
};

/* A node with live pods or assumptions, for the summary. */
struct ledger_json_row {
	const char *node;
	size_t pods, assumed;
};

/* New strings (compact JSON, no trailing newline). */
char *ledger_json_node(const struct ledger_json_node *n);
char *ledger_json_summary(const char *mode, const struct ledger_json_row *rows, size_t n);

#endif
