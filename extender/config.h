/* SPDX-License-Identifier: Apache-2.0 */
/* The service configuration: a YAML file, read through the document layer
 * (extender/codec/doc.h), decoded into a struct with defaults, validated
 * field by field. Unknown keys, duplicate keys, wrong types and
 * out-of-range values are errors that name file:line:column. The only place
 * that knows the configuration's keys; config/example.yaml documents every
 * key. */
#ifndef EXTENDER_CONFIG_H
#define EXTENDER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "extender/inventory/ledger.h"
#include "extender/log.h"
#include "topology/score.h"

enum config_source {
	CONFIG_SOURCE_FILES,       /* a directory of NRT files */
	CONFIG_SOURCE_KUBERNETES,  /* list+watch NodeResourceTopology objects */
};

enum config_missing {
	CONFIG_MISSING_ALLOW,      /* nodes without an inventory pass, score 0 */
	CONFIG_MISSING_DENY,       /* ... are rejected (FailedNodes) */
};

/* dra.alignment: what a misaligned DRA device does to a node. */
enum config_dra_alignment {
	CONFIG_DRA_REQUIRE,        /* misaligned nodes are rejected */
	CONFIG_DRA_PREFER,         /* misaligned nodes score 0 for the DRA part, never rejected */
	CONFIG_DRA_OFF,            /* no DRA verdict */
};

/* dra.unknownNUMA: a device whose NUMA node is unknown. */
enum config_dra_unknown_numa {
	CONFIG_DRA_UNKNOWN_ALLOW,  /* has nothing to align with */
	CONFIG_DRA_UNKNOWN_DENY,   /* counts as misaligned */
};

/* dra.allocatorOrder: the scheduler's allocator walks pools and slices in
 * sorted order (Kubernetes 1.36 on) or in an order we cannot know. */
enum config_dra_order {
	CONFIG_DRA_SORTED,
	CONFIG_DRA_UNSORTED,
};

enum config_on_stale {
	CONFIG_STALE_FAIL_CLOSED,  /* filter answers Error: the scheduler retries */
	CONFIG_STALE_FAIL_OPEN,    /* judge on the last known data, say so */
};

struct config {
	/* Where the extender listens ("HOST:PORT"; IPv6 as "[::1]:8888"). */
	char *listen;                  /* default "127.0.0.1:8888" */
	/* A second listener for /metrics, /healthz, /readyz; NULL: main one. */
	char *metrics_listen;
	/* Routes are <urlPrefix>/filter and <urlPrefix>/prioritize. */
	char *url_prefix;              /* default "" (so "/filter"); no trailing slash */

	/* TLS on the main listener: both files or neither. With client_ca_file,
	 * clients must present a certificate signed by it (mTLS), optionally
	 * with a CN or DNS SAN in client_names. */
	char *tls_cert_file;
	char *tls_key_file;
	char *tls_client_ca_file;
	char **tls_client_names;
	size_t ntls_client_names;

	enum config_source inventory_source;   /* default files */
	char *inventory_dir;                   /* files: default "config/examples" */
	int64_t inventory_poll_ms;             /* files: rescan period, default 500 */
	int64_t inventory_max_file_bytes;      /* files: larger files are refused, default 16 MiB */
	char *kubeconfig;                      /* kubernetes: NULL = in-cluster */
	int64_t stale_after_ms;                /* kubernetes: default 300000 */
	int64_t watch_idle_timeout_ms;         /* kubernetes: silent watch is reconnected, default 90 s */
	int64_t request_timeout_ms;            /* kubernetes: one list page, default 30 s */
	int64_t max_event_bytes;               /* kubernetes: one watch event, default 16 MiB */
	enum config_on_stale on_stale;         /* kubernetes: default fail closed */

	enum config_missing missing_inventory; /* default allow */
	struct score_config scoring;           /* default LeastAllocated, no weights */

	int64_t max_body_bytes;        /* default 8 MiB; 1 KiB .. 1 GiB */
	int64_t max_connections;       /* default 256 */
	int64_t idle_timeout_ms;       /* keep-alive idle; default 120 s; must be > 90 s */
	int64_t http_request_timeout_ms;   /* a request must be received within this of
					    * its connection's accept or its request line;
					    * default 10 s */
	int64_t max_connections_per_client; /* per client address; default 64; 0: no cap */
	int64_t max_buffered_bytes;    /* request bodies held at once; 0 (default):
					* 64 MiB, or max_body_bytes when larger */
	int64_t threads;               /* request threads, default 2; 1 .. 64 */

	/* Decision log (JSON Lines); NULL path: off. */
	char *decision_log_path;
	int64_t decision_log_max_bytes;  /* rotate past this size, default 64 MiB */
	int64_t decision_log_max_files;  /* rotated files kept, default 3 */
	int64_t decision_log_queue;      /* records waiting to be written, default 4096 */
	enum log_level log_level;        /* default info */

	/* The assumed-pod ledger (kubernetes source only). */
	bool ledger_enabled;                   /* default true */
	enum ledger_mode ledger_mode;          /* default predicted */
	int64_t ledger_assume_ttl_ms;          /* default 30 s */
	int64_t ledger_max_assume_age_ms;      /* default 10 min */
	/* The bind verb: <urlPrefix>/bind creates Bindings itself. */
	bool bind_enabled;                     /* default false */

	/* Dynamic Resource Allocation (resource.k8s.io/v1): ResourceSlices,
	 * DeviceClasses, ResourceClaims and their templates, from the API
	 * (source kubernetes) or from inventory.dra.dir (source files). */
	bool dra_enabled;                      /* default false */
	char *dra_dir;                         /* files: inventory.dra.dir, NULL: none */
	enum config_dra_alignment dra_alignment;      /* default prefer */
	enum config_dra_unknown_numa dra_unknown_numa; /* default allow */
	enum config_dra_order dra_allocator_order;     /* default sorted */
};

/* Fills every field with its default. */
void config_init(struct config *c);
/* Frees what c owns and zeroes it. */
void config_cleanup(struct config *c);

/* Loads path over the defaults. On error *out is left untouched and msg reads
 * "path:LINE:COL: problem" (e.g. `extender.yaml:12:3: unknown key "threds"`). */
enum err config_load_file(const char *path, struct config *out, struct errmsg *msg);
/* The same from memory; origin names the source in messages. */
enum err config_load_buffer(const char *buf, size_t len, const char *origin,
			    struct config *out, struct errmsg *msg);

/* The rules between keys (TLS pairs, what kubeconfig and bind need, who may
 * reach an unauthenticated /bind, listener clash) on a finished
 * configuration: the file with any command-line overrides applied. The
 * loaders apply the same rules with file positions; callers that change a
 * loaded config must call this again. ERR_INVALID with the rule in msg. */
enum err config_check(const struct config *c, struct errmsg *msg);

/* Calls fn with every key of the configuration file as its dotted path, in
 * the schema's order: "listen", "inventory.pollInterval", and for the items
 * of a list "scoring.resources[].weight". Sections are not keys of their
 * own. The docs' key table is checked against this list. */
void config_each_key(void (*fn)(const char *path, void *arg), void *arg);

#endif
