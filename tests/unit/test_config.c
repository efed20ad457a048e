/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for the configuration loader (extender/config.c): defaults, every key
 * read back, config/example.yaml, the exact text of each error, and that a
 * failed load leaves the caller's config alone. Fixtures are under
 * tests/data/config/; run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extender/config.h"

#define DATA "tests/data/config/"
#define EXAMPLE "config/example.yaml"
#define ONE_MIB ((size_t)1 << 20)

static enum err load(const char *text, struct config *c, struct errmsg *msg)
{
	return config_load_buffer(text, strlen(text), "extender.yaml", c, msg);
}

/* Loads text that must be valid over the defaults. */
static void load_ok(const char *text, struct config *c)
{
	struct errmsg msg = { { 0 } };
	enum err rc;

	config_init(c);
	rc = load(text, c, &msg);
	if (rc != ERR_OK)
		fail_msg("unexpected error %s: %s", err_name(rc), msg.text);
}

static void assert_defaults(const struct config *c)
{
	assert_string_equal(c->listen, "127.0.0.1:8888");
	assert_null(c->metrics_listen);
	assert_string_equal(c->url_prefix, "");
	assert_null(c->tls_cert_file);
	assert_null(c->tls_key_file);
	assert_null(c->tls_client_ca_file);
	assert_null(c->tls_client_names);
	assert_int_equal(c->ntls_client_names, 0);
	assert_int_equal(c->inventory_source, CONFIG_SOURCE_FILES);
	assert_string_equal(c->inventory_dir, "config/examples");
	assert_int_equal(c->inventory_poll_ms, 500);
	assert_null(c->kubeconfig);
	assert_int_equal(c->stale_after_ms, 300000);
	assert_int_equal(c->on_stale, CONFIG_STALE_FAIL_CLOSED);
	assert_int_equal(c->missing_inventory, CONFIG_MISSING_ALLOW);
	assert_int_equal(c->scoring.strategy, SCORE_LEAST_ALLOCATED);
	assert_null(c->scoring.weights);
	assert_int_equal(c->scoring.nweights, 0);
	assert_int_equal(c->max_body_bytes, 8 * 1024 * 1024);
	assert_int_equal(c->max_connections, 256);
	assert_int_equal(c->idle_timeout_ms, 120000);
	assert_int_equal(c->threads, 2);
	assert_int_equal(c->log_level, LOG_LEVEL_INFO);
	assert_true(c->ledger_enabled);
	assert_int_equal(c->ledger_mode, LEDGER_PREDICTED);
	assert_int_equal(c->ledger_assume_ttl_ms, 30000);
	assert_int_equal(c->ledger_max_assume_age_ms, 600000);
	assert_false(c->bind_enabled);
	assert_false(c->dra_enabled);
	assert_null(c->dra_dir);
	assert_int_equal(c->dra_alignment, CONFIG_DRA_PREFER);
	assert_int_equal(c->dra_unknown_numa, CONFIG_DRA_UNKNOWN_ALLOW);
	assert_int_equal(c->dra_allocator_order, CONFIG_DRA_SORTED);
}

/* Writes len bytes to a new temporary file; the caller unlinks path. */
static void write_temp(char path[static 32], const char *data, size_t len)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/test-config-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* ---- Defaults ---------------------------------------------------------- */

static void config_init_sets_documented_defaults(void **state)
{
	struct config c;

	(void)state;
	memset(&c, 0xa5, sizeof c);
	config_init(&c);
	assert_defaults(&c);
	config_cleanup(&c);
}

static void config_empty_inputs_give_defaults(void **state)
{
	static const char *const texts[] = {
		"", "# only a comment\n", "\n\n   \n", "---\n", "---\n...\n", "~\n",
		"null", "{}", "--- {}\n",
	};
	struct errmsg msg = { { 0 } };
	struct config c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		load_ok(texts[i], &c);
		assert_defaults(&c);
		config_cleanup(&c);
	}
	/* A NULL buffer of length 0 is an empty file too. */
	config_init(&c);
	assert_int_equal(config_load_buffer(NULL, 0, "x", &c, &msg), ERR_OK);
	assert_defaults(&c);
	config_cleanup(&c);
}

static void config_empty_files_give_defaults(void **state)
{
	static const char *const files[] = { DATA "empty.yaml", DATA "comments-only.yaml" };
	struct errmsg msg = { { 0 } };
	struct config c;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		config_init(&c);
		c.threads = 33; /* proves the load replaced c */
		assert_int_equal(config_load_file(files[i], &c, &msg), ERR_OK);
		assert_defaults(&c);
		config_cleanup(&c);
	}
}

static void config_cleanup_frees_and_zeroes(void **state)
{
	static const struct config zero;
	struct config c;

	(void)state;
	load_ok("tls: {certFile: a, keyFile: b, clientCAFile: c, clientNames: [x, y]}\n"
		"scoring: {resources: [{name: cpu, weight: 2}]}\n"
		"metricsListen: \"h:1\"\ninventory: {source: kubernetes, kubeconfig: k}\n",
		&c);
	assert_int_equal(c.ntls_client_names, 2);
	config_cleanup(&c);
	assert_memory_equal(&c, &zero, sizeof c);
	/* A second cleanup of the zeroed struct is harmless. */
	config_cleanup(&c);
	config_cleanup(NULL);
}

/* ---- Every key --------------------------------------------------------- */

static void assert_full(const struct config *c)
{
	assert_string_equal(c->listen, "[::1]:9443");
	assert_string_equal(c->metrics_listen, "0.0.0.0:9090");
	assert_string_equal(c->url_prefix, "/numa/v1");
	assert_string_equal(c->tls_cert_file, "/etc/numa-extender/tls/tls.crt");
	assert_string_equal(c->tls_key_file, "/etc/numa-extender/tls/tls.key");
	assert_string_equal(c->tls_client_ca_file, "/etc/numa-extender/tls/client-ca.crt");
	assert_int_equal(c->ntls_client_names, 2);
	assert_string_equal(c->tls_client_names[0], "kube-scheduler");
	assert_string_equal(c->tls_client_names[1], "system:kube-scheduler");
	assert_int_equal(c->inventory_source, CONFIG_SOURCE_KUBERNETES);
	assert_string_equal(c->inventory_dir, "/var/lib/nrt");
	assert_int_equal(c->inventory_poll_ms, 2000);
	assert_string_equal(c->kubeconfig, "/etc/numa-extender/kubeconfig");
	assert_int_equal(c->stale_after_ms, 600000);
	assert_int_equal(c->on_stale, CONFIG_STALE_FAIL_OPEN);
	assert_int_equal(c->missing_inventory, CONFIG_MISSING_DENY);
	assert_int_equal(c->scoring.strategy, SCORE_LEAST_NUMA_NODES);
	assert_int_equal(c->scoring.nweights, 3);
	assert_string_equal(c->scoring.weights[0].name, "cpu");
	assert_int_equal(c->scoring.weights[0].weight, 3);
	assert_string_equal(c->scoring.weights[1].name, "memory");
	assert_int_equal(c->scoring.weights[1].weight, 0);
	assert_string_equal(c->scoring.weights[2].name, "example.com/gpu");
	assert_int_equal(c->scoring.weights[2].weight, 100);
	assert_int_equal(c->max_body_bytes, 16 * 1024 * 1024);
	assert_int_equal(c->max_connections, 1000);
	assert_int_equal(c->idle_timeout_ms, 300000);
	assert_int_equal(c->threads, 8);
	assert_int_equal(c->log_level, LOG_LEVEL_DEBUG);
}

static void config_full_file_round_trips(void **state)
{
	struct errmsg msg = { { 0 } };
	struct config c;
	enum err rc;

	(void)state;
	config_init(&c);
	rc = config_load_file(DATA "full.yaml", &c, &msg);
	if (rc != ERR_OK)
		fail_msg("%s", msg.text);
	assert_full(&c);
	config_cleanup(&c);
}

/* The same values in flow style and with every scalar quoted that may be. */
static void config_flow_style_round_trips(void **state)
{
	struct config c;

	(void)state;
	load_ok("{listen: '[::1]:9443', \"metricsListen\": \"0.0.0.0:9090\",\n"
		" urlPrefix: \"/numa/v1\",\n"
		" tls: {certFile: \"/etc/numa-extender/tls/tls.crt\",\n"
		"       keyFile: '/etc/numa-extender/tls/tls.key',\n"
		"       clientCAFile: /etc/numa-extender/tls/client-ca.crt,\n"
		"       clientNames: ['kube-scheduler', \"system:kube-scheduler\"]},\n"
		" inventory: {source: \"kubernetes\", dir: /var/lib/nrt, pollInterval: \"2s\",\n"
		"   kubeconfig: /etc/numa-extender/kubeconfig, staleAfter: '10m',\n"
		"   onStale: 'failOpen'},\n"
		" missingInventory: \"deny\",\n"
		" scoring: {strategy: \"LeastNUMANodes\", resources: [\n"
		"   {name: \"cpu\", weight: 3}, {weight: 0, name: memory},\n"
		"   {name: 'example.com/gpu', weight: 100}]},\n"
		" limits: {maxBodyBytes: \"16Mi\", maxConnections: 1000, idleTimeout: 5m},\n"
		" threads: 8, log: {level: \"debug\"}}\n",
		&c);
	assert_full(&c);
	config_cleanup(&c);
}

static void config_every_enum_value_round_trips(void **state)
{
	static const struct {
		const char *text;
		size_t field;    /* offsetof into struct config */
		int value;
	} cases[] = {
		{ "inventory: {source: files}", offsetof(struct config, inventory_source), CONFIG_SOURCE_FILES },
		{ "inventory: {source: kubernetes}", offsetof(struct config, inventory_source), CONFIG_SOURCE_KUBERNETES },
		{ "inventory: {onStale: failClosed}", offsetof(struct config, on_stale), CONFIG_STALE_FAIL_CLOSED },
		{ "inventory: {onStale: failOpen}", offsetof(struct config, on_stale), CONFIG_STALE_FAIL_OPEN },
		{ "missingInventory: allow", offsetof(struct config, missing_inventory), CONFIG_MISSING_ALLOW },
		{ "missingInventory: deny", offsetof(struct config, missing_inventory), CONFIG_MISSING_DENY },
		{ "scoring: {strategy: LeastAllocated}", offsetof(struct config, scoring.strategy), SCORE_LEAST_ALLOCATED },
		{ "scoring: {strategy: MostAllocated}", offsetof(struct config, scoring.strategy), SCORE_MOST_ALLOCATED },
		{ "scoring: {strategy: BalancedAllocation}", offsetof(struct config, scoring.strategy), SCORE_BALANCED_ALLOCATION },
		{ "scoring: {strategy: LeastNUMANodes}", offsetof(struct config, scoring.strategy), SCORE_LEAST_NUMA_NODES },
		{ "log: {level: error}", offsetof(struct config, log_level), LOG_LEVEL_ERROR },
		{ "log: {level: warn}", offsetof(struct config, log_level), LOG_LEVEL_WARN },
		{ "log: {level: info}", offsetof(struct config, log_level), LOG_LEVEL_INFO },
		{ "log: {level: debug}", offsetof(struct config, log_level), LOG_LEVEL_DEBUG },
	};
	struct config c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int got;

		load_ok(cases[i].text, &c);
		/* Every enum in struct config has int's representation. */
		memcpy(&got, (const char *)&c + cases[i].field, sizeof got);
		if (got != cases[i].value)
			fail_msg("%s: got %d, want %d", cases[i].text, got, cases[i].value);
		config_cleanup(&c);
	}
}

static void config_numbers_at_their_bounds(void **state)
{
	static const struct {
		const char *text;
		size_t field;
		int64_t value;
	} cases[] = {
		{ "threads: 1", offsetof(struct config, threads), 1 },
		{ "threads: 64", offsetof(struct config, threads), 64 },
		{ "limits: {maxConnections: 1}", offsetof(struct config, max_connections), 1 },
		{ "limits: {maxConnections: 100000}", offsetof(struct config, max_connections), 100000 },
		{ "limits: {maxBodyBytes: 1Ki}", offsetof(struct config, max_body_bytes), 1024 },
		{ "limits: {maxBodyBytes: 1024}", offsetof(struct config, max_body_bytes), 1024 },
		{ "limits: {maxBodyBytes: 1Gi}", offsetof(struct config, max_body_bytes), 1073741824 },
		{ "limits: {maxBodyBytes: 2k}", offsetof(struct config, max_body_bytes), 2000 },
		{ "limits: {maxBodyBytes: 1.5Mi}", offsetof(struct config, max_body_bytes), 1572864 },
		{ "limits: {idleTimeout: 90001ms}", offsetof(struct config, idle_timeout_ms), 90001 },
		{ "limits: {idleTimeout: 91s}", offsetof(struct config, idle_timeout_ms), 91000 },
		{ "limits: {idleTimeout: 1h}", offsetof(struct config, idle_timeout_ms), 3600000 },
		{ "inventory: {pollInterval: 50ms}", offsetof(struct config, inventory_poll_ms), 50 },
		{ "inventory: {pollInterval: 60m}", offsetof(struct config, inventory_poll_ms), 3600000 },
		{ "inventory: {pollInterval: 007s}", offsetof(struct config, inventory_poll_ms), 7000 },
		{ "inventory: {staleAfter: 1s}", offsetof(struct config, stale_after_ms), 1000 },
		{ "inventory: {staleAfter: 24h}", offsetof(struct config, stale_after_ms), 86400000 },
		{ "inventory: {staleAfter: 1440m}", offsetof(struct config, stale_after_ms), 86400000 },
	};
	struct config c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t got;

		load_ok(cases[i].text, &c);
		memcpy(&got, (const char *)&c + cases[i].field, sizeof got);
		if (got != cases[i].value)
			fail_msg("%s: got %lld, want %lld", cases[i].text, (long long)got,
				 (long long)cases[i].value);
		config_cleanup(&c);
	}
}

static void config_null_value_keeps_default(void **state)
{
	struct config c;

	(void)state;
	load_ok("listen:\nmetricsListen: ~\nurlPrefix: null\ntls:\n"
		"inventory:\n  source: Null\n  dir:\n  pollInterval: NULL\n"
		"scoring: {strategy: ~, resources: ~}\nlimits: {}\nthreads:\nlog: {level: }\n",
		&c);
	assert_defaults(&c);
	config_cleanup(&c);
}

static void config_url_prefix_lone_slash_means_empty(void **state)
{
	struct config c;

	(void)state;
	load_ok("urlPrefix: /", &c);
	assert_string_equal(c.url_prefix, "");
	config_cleanup(&c);
	load_ok("urlPrefix: /a/b-c_d.e~f", &c);
	assert_string_equal(c.url_prefix, "/a/b-c_d.e~f");
	config_cleanup(&c);
}

static void config_tls_server_only_and_empty_client_names(void **state)
{
	struct config c;

	(void)state;
	load_ok("tls:\n  certFile: c.pem\n  keyFile: k.pem\n", &c);
	assert_string_equal(c.tls_cert_file, "c.pem");
	assert_string_equal(c.tls_key_file, "k.pem");
	assert_null(c.tls_client_ca_file);
	config_cleanup(&c);
	/* An empty list restricts nothing, so it needs no CA. */
	load_ok("tls: {clientNames: []}", &c);
	assert_int_equal(c.ntls_client_names, 0);
	config_cleanup(&c);
}

static void config_listen_port_zero_and_same_address_twice(void **state)
{
	struct config c;

	(void)state;
	/* Port 0 twice means two free ports: no clash. */
	load_ok("listen: 127.0.0.1:0\nmetricsListen: 127.0.0.1:0\n", &c);
	assert_string_equal(c.listen, "127.0.0.1:0");
	assert_string_equal(c.metrics_listen, "127.0.0.1:0");
	config_cleanup(&c);
}

/* ---- config/example.yaml ----------------------------------------------- */

/* The example shows the defaults except for its scoring.resources, which
 * only illustrate the form with the weight unlisted resources get anyway. */
static void config_example_file_loads(void **state)
{
	struct errmsg msg = { { 0 } };
	struct config c;
	enum err rc;

	(void)state;
	config_init(&c);
	rc = config_load_file(EXAMPLE, &c, &msg);
	if (rc != ERR_OK)
		fail_msg("%s", msg.text);
	assert_int_equal(c.scoring.nweights, 2);
	assert_string_equal(c.scoring.weights[0].name, "cpu");
	assert_int_equal(c.scoring.weights[0].weight, 1);
	assert_string_equal(c.scoring.weights[1].name, "memory");
	assert_int_equal(c.scoring.weights[1].weight, 1);
	score_config_cleanup(&c.scoring);
	assert_defaults(&c);
	config_cleanup(&c);
}

static void config_example_mentions_every_key(void **state)
{
	static const char *const keys[] = {
		"listen:", "metricsListen:", "urlPrefix:", "tls:", "certFile:",
		"keyFile:", "clientCAFile:", "clientNames:", "inventory:", "source:",
		"dir:", "pollInterval:", "kubeconfig:", "staleAfter:", "onStale:",
		"missingInventory:", "scoring:", "strategy:", "resources:", "name:",
		"weight:", "limits:", "maxBodyBytes:", "maxConnections:",
		"idleTimeout:", "threads:", "log:", "level:", "ledger:", "enabled:",
		"mode:", "assumeTTL:", "maxAssumeAge:", "bind:", "dra:", "alignment:",
		"unknownNUMA:", "allocatorOrder:",
	};
	char *text;
	FILE *f;
	long n;
	size_t i;

	(void)state;
	f = fopen(EXAMPLE, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	text = malloc((size_t)n + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = '\0';
	fclose(f);
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (strstr(text, keys[i]) == NULL)
			fail_msg("%s does not document %s", EXAMPLE, keys[i]);
	}
	/* Each key's comment gives its default. */
	assert_true(strstr(text, "Default: \"127.0.0.1:8888\"") != NULL);
	assert_true(strstr(text, "Default: 120s") != NULL);
	free(text);
}

/* ---- Errors, exact text ------------------------------------------------ */

struct bad {
	const char *text;
	enum err rc;
	const char *msg;
};

/* A config with a value in every field, to see that failures leave it be. */
static const char before_text[] =
	"listen: 10.0.0.1:1\nmetricsListen: 10.0.0.1:2\nurlPrefix: /p\n"
	"tls: {certFile: c, keyFile: k, clientCAFile: ca, clientNames: [n]}\n"
	"inventory: {source: kubernetes, kubeconfig: kc, dir: d}\n"
	"scoring: {strategy: MostAllocated, resources: [{name: r, weight: 7}]}\n"
	"threads: 3\n";

/* Each bad text must fail with exactly rc and msg, and leave a loaded
 * config byte for byte as it was. */
static void expect_errors(const struct bad *cases, size_t n)
{
	struct config c, snapshot;
	size_t i;

	load_ok(before_text, &c);
	memcpy(&snapshot, &c, sizeof c);
	for (i = 0; i < n; i++) {
		struct errmsg msg = { { 0 } };
		enum err rc = load(cases[i].text, &c, &msg);

		if (rc != cases[i].rc || strcmp(msg.text, cases[i].msg) != 0)
			fail_msg("case %zu: got %s \"%s\"\n  want %s \"%s\"", i, err_name(rc),
				 msg.text, err_name(cases[i].rc), cases[i].msg);
		assert_memory_equal(&c, &snapshot, sizeof c);
	}
	assert_string_equal(c.listen, "10.0.0.1:1");
	assert_string_equal(c.tls_client_names[0], "n");
	assert_string_equal(c.scoring.weights[0].name, "r");
	assert_int_equal(c.threads, 3);
	config_cleanup(&c);
}

static void config_reports_the_documented_errors(void **state)
{
	static const struct bad cases[] = {
		{ "# 1\n# 2\n# 3\n# 4\n# 5\n# 6\n# 7\n# 8\n# 9\n# 10\n"
		  "  log: {level: info}\n  threds: 2\n",
		  ERR_INVALID, "extender.yaml:12:3: unknown key \"threds\"" },
		{ "# 1\n# 2\n# 3\nthreads:  two\n",
		  ERR_INVALID, "extender.yaml:4:11: threads: expected an integer, got \"two\"" },
		{ "# 1\n# 2\n# 3\nthreads:  0\n",
		  ERR_RANGE, "extender.yaml:4:11: threads: 0 is out of range (1..64)" },
		{ "listen: \"127.0.0.1:1\"\nlisten: \"127.0.0.1:2\"\n",
		  ERR_PARSE, "extender.yaml:2:1: duplicate key \"listen\"" },
		{ "# 1\n# 2\nthreads: 2\n# 4\nlog: {level: info}\ninventory:\n    source: etcd\n",
		  ERR_INVALID,
		  "extender.yaml:7:13: inventory.source: expected one of files, kubernetes, got \"etcd\"" },
		{ "# 1\n# 2\n# 3\n# 4\n# 5\n# 6\n# 7\nlimits:\n  idleTimeout: 90s\n",
		  ERR_RANGE,
		  "extender.yaml:9:16: limits.idleTimeout: must be more than 90s "
		  "(kube-scheduler closes idle connections at 90s)" },
		{ "scoring:\n  resources:\n        cpu\n",
		  ERR_INVALID,
		  "extender.yaml:3:9: scoring.resources: expected a sequence, got a scalar" },
		{ "listen: \"127.0.0.1:8888\"\nthreads: 2\nlog:\n  level: info\n- debug\n",
		  ERR_PARSE,
		  "extender.yaml:5:1: did not find expected key "
		  "(while parsing a block mapping at line 1, column 1)" },
		{ "listen: &l \"127.0.0.1:1\"\n",
		  ERR_PARSE, "extender.yaml:1:9: anchors and aliases are not allowed" },
		{ "listen: x:1\nmetricsListen: *l\n",
		  ERR_PARSE, "extender.yaml:2:16: anchors and aliases are not allowed" },
		{ "# 1\n# 2\n# 3\n# 4\n# 5\n# 6\n# 7\n# 8\n# 9\n# 10\n# 11\n# 12\n"
		  "tls:\n  clientCAFile: /etc/ca.crt\n",
		  ERR_INVALID, "extender.yaml:14:3: tls: clientCAFile needs certFile and keyFile" },
		{ "listen: localhost\n",
		  ERR_INVALID, "extender.yaml:1:9: listen: \"localhost\": expected HOST:PORT" },
		{ "threads: [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]\n",
		  ERR_PARSE, "extender.yaml:1:25: nested too deep" },
	};

	(void)state;
	expect_errors(cases, sizeof cases / sizeof cases[0]);
}

static void config_reports_type_errors(void **state)
{
	static const struct bad cases[] = {
		{ "- listen\n", ERR_INVALID,
		  "extender.yaml:1:1: expected a mapping at the top level, got a sequence" },
		{ "just text\n", ERR_INVALID,
		  "extender.yaml:1:1: expected a mapping at the top level, got a scalar" },
		{ "threads: \"12\"\n", ERR_INVALID,
		  "extender.yaml:1:10: threads: expected an integer, got the string \"12\"" },
		{ "threads: 012\n", ERR_INVALID,
		  "extender.yaml:1:10: threads: expected an integer, got \"012\"" },
		{ "threads: 2.0\n", ERR_INVALID,
		  "extender.yaml:1:10: threads: expected an integer, got \"2.0\"" },
		{ "threads: 0x10\n", ERR_INVALID,
		  "extender.yaml:1:10: threads: expected an integer, got \"0x10\"" },
		{ "threads: [1]\n", ERR_INVALID,
		  "extender.yaml:1:10: threads: expected an integer, got a sequence" },
		{ "listen: {host: a}\n", ERR_INVALID,
		  "extender.yaml:1:9: listen: expected a string, got a mapping" },
		{ "tls: on\n", ERR_INVALID,
		  "extender.yaml:1:6: tls: expected a mapping, got a scalar" },
		{ "tls: {clientNames: kube-scheduler}\n", ERR_INVALID,
		  "extender.yaml:1:20: tls.clientNames: expected a sequence, got a scalar" },
		{ "tls: {clientNames: [a, \"\"]}\n", ERR_INVALID,
		  "extender.yaml:1:24: tls.clientNames[1]: must not be empty" },
		{ "tls: {clientNames: [a, ~]}\n", ERR_INVALID,
		  "extender.yaml:1:24: tls.clientNames[1]: expected a string, got null" },
		{ "tls: {clientNames: [[a]]}\n", ERR_INVALID,
		  "extender.yaml:1:21: tls.clientNames[0]: expected a string, got a sequence" },
		{ "log:\n  level: loud\n", ERR_INVALID,
		  "extender.yaml:2:10: log.level: expected one of error, warn, info, debug, got \"loud\"" },
		{ "log:\n  level: [info]\n", ERR_INVALID,
		  "extender.yaml:2:10: log.level: expected one of error, warn, info, debug, got a sequence" },
		{ "missingInventory: Deny\n", ERR_INVALID,
		  "extender.yaml:1:19: missingInventory: expected one of allow, deny, got \"Deny\"" },
		{ "inventory: {onStale: open}\n", ERR_INVALID,
		  "extender.yaml:1:22: inventory.onStale: expected one of failClosed, failOpen, got \"open\"" },
		{ "scoring:\n  strategy: leastAllocated\n", ERR_INVALID,
		  "extender.yaml:2:13: scoring.strategy: expected one of LeastAllocated, "
		  "MostAllocated, BalancedAllocation, LeastNUMANodes, got \"leastAllocated\"" },
		{ "scoring: {strategy: \"LeastAllocated\\0x\"}\n", ERR_INVALID,
		  "extender.yaml:1:21: scoring.strategy: expected one of LeastAllocated, "
		  "MostAllocated, BalancedAllocation, LeastNUMANodes, got \"LeastAllocated\\x00x\"" },
		{ "scoring:\n  resources:\n  - cpu\n", ERR_INVALID,
		  "extender.yaml:3:5: scoring.resources[0]: expected a mapping with name and weight, got a scalar" },
		{ "scoring:\n  resources:\n  - {name: cpu}\n", ERR_INVALID,
		  "extender.yaml:3:5: scoring.resources[0]: missing key \"weight\"" },
		{ "scoring:\n  resources:\n  - {name: cpu, weight: 1}\n  - weight: 1\n", ERR_INVALID,
		  "extender.yaml:4:5: scoring.resources[1]: missing key \"name\"" },
		{ "scoring:\n  resources:\n  - {name: cpu, weight: 1}\n  - {name: cpu, weight: 2}\n",
		  ERR_INVALID,
		  "extender.yaml:4:12: scoring.resources[1].name: \"cpu\" is listed twice (also resources[0])" },
		{ "scoring:\n  resources:\n  - {name: \"\", weight: 1}\n", ERR_INVALID,
		  "extender.yaml:3:12: scoring.resources[0].name: must not be empty" },
		{ "scoring:\n  resources:\n  - {name: cpu, weight: one}\n", ERR_INVALID,
		  "extender.yaml:3:25: scoring.resources[0].weight: expected an integer, got \"one\"" },
		{ "scoring:\n  resources:\n  - {name: cpu, wieght: 1}\n", ERR_INVALID,
		  "extender.yaml:3:17: scoring.resources[0]: unknown key \"wieght\"" },
		{ "inventory: {dir: \"\"}\n", ERR_INVALID,
		  "extender.yaml:1:18: inventory.dir: must not be empty" },
		{ "listen: \"a\\0:1\"\n", ERR_INVALID,
		  "extender.yaml:1:9: listen: must not contain a NUL byte" },
	};

	(void)state;
	expect_errors(cases, sizeof cases / sizeof cases[0]);
}

static void config_reports_value_errors(void **state)
{
	static const struct bad cases[] = {
		{ "threads: 65\n", ERR_RANGE,
		  "extender.yaml:1:10: threads: 65 is out of range (1..64)" },
		{ "threads: -1\n", ERR_RANGE,
		  "extender.yaml:1:10: threads: -1 is out of range (1..64)" },
		{ "threads: 99999999999999999999\n", ERR_RANGE,
		  "extender.yaml:1:10: threads: 99999999999999999999 is out of range (1..64)" },
		{ "threads: 1234567890123456789012345678901234567890\n", ERR_RANGE,
		  "extender.yaml:1:10: threads: 123456789012345678901234567890123456... is out of range (1..64)" },
		{ "limits: {maxConnections: 0}\n", ERR_RANGE,
		  "extender.yaml:1:26: limits.maxConnections: 0 is out of range (1..100000)" },
		{ "scoring: {resources: [{name: cpu, weight: 101}]}\n", ERR_RANGE,
		  "extender.yaml:1:43: scoring.resources[0].weight: 101 is out of range (0..100)" },
		{ "inventory:\n  pollInterval: 500\n", ERR_INVALID,
		  "extender.yaml:2:17: inventory.pollInterval: a duration needs a unit (ms, s, m, h), got \"500\"" },
		{ "inventory:\n  pollInterval: 1.5s\n", ERR_INVALID,
		  "extender.yaml:2:17: inventory.pollInterval: expected a duration such as "
		  "500ms, 30s, 5m or 1h, got \"1.5s\"" },
		{ "inventory:\n  pollInterval: 1h30m\n", ERR_INVALID,
		  "extender.yaml:2:17: inventory.pollInterval: expected a duration such as "
		  "500ms, 30s, 5m or 1h, got \"1h30m\"" },
		{ "inventory:\n  pollInterval: 5 s\n", ERR_INVALID,
		  "extender.yaml:2:17: inventory.pollInterval: expected a duration such as "
		  "500ms, 30s, 5m or 1h, got \"5 s\"" },
		{ "inventory:\n  pollInterval: 49ms\n", ERR_RANGE,
		  "extender.yaml:2:17: inventory.pollInterval: 49ms is out of range (50ms..1h)" },
		{ "inventory:\n  pollInterval: 61m\n", ERR_RANGE,
		  "extender.yaml:2:17: inventory.pollInterval: 61m is out of range (50ms..1h)" },
		{ "inventory:\n  staleAfter: -5s\n", ERR_RANGE,
		  "extender.yaml:2:15: inventory.staleAfter: -5s is out of range (1s..24h)" },
		{ "inventory:\n  staleAfter: 99999999999999999h\n", ERR_RANGE,
		  "extender.yaml:2:15: inventory.staleAfter: 99999999999999999h is out of range (1s..24h)" },
		{ "limits: {idleTimeout: 90000ms}\n", ERR_RANGE,
		  "extender.yaml:1:23: limits.idleTimeout: must be more than 90s "
		  "(kube-scheduler closes idle connections at 90s)" },
		{ "limits: {idleTimeout: 61m}\n", ERR_RANGE,
		  "extender.yaml:1:23: limits.idleTimeout: 61m is out of range (more than 90s, up to 1h)" },
		{ "limits:\n  maxBodyBytes: 1023\n", ERR_RANGE,
		  "extender.yaml:2:17: limits.maxBodyBytes: 1023 is out of range (1Ki..1Gi)" },
		{ "limits:\n  maxBodyBytes: 1Ti\n", ERR_RANGE,
		  "extender.yaml:2:17: limits.maxBodyBytes: 1Ti is out of range (1Ki..1Gi)" },
		{ "limits:\n  maxBodyBytes: 1000E\n", ERR_RANGE,
		  "extender.yaml:2:17: limits.maxBodyBytes: 1000E is out of range (1Ki..1Gi)" },
		{ "limits:\n  maxBodyBytes: 1e2000\n", ERR_RANGE,
		  "extender.yaml:2:17: limits.maxBodyBytes: 1e2000 is out of range (1Ki..1Gi)" },
		{ "limits:\n  maxBodyBytes: -1Ki\n", ERR_RANGE,
		  "extender.yaml:2:17: limits.maxBodyBytes: -1Ki is out of range (1Ki..1Gi)" },
		{ "limits:\n  maxBodyBytes: 1500m\n", ERR_INVALID,
		  "extender.yaml:2:17: limits.maxBodyBytes: \"1500m\" is not a whole number of bytes" },
		{ "limits:\n  maxBodyBytes: 8MB\n", ERR_INVALID,
		  "extender.yaml:2:17: limits.maxBodyBytes: \"8MB\": not a quantity" },
		{ "urlPrefix: v1\n", ERR_INVALID,
		  "extender.yaml:1:12: urlPrefix: \"v1\": must start with \"/\"" },
		{ "urlPrefix: /v1/\n", ERR_INVALID,
		  "extender.yaml:1:12: urlPrefix: \"/v1/\": must not end with \"/\"" },
		{ "urlPrefix: \"/a b\"\n", ERR_INVALID,
		  "extender.yaml:1:12: urlPrefix: \"/a b\": must not contain spaces, control characters, \"?\" or \"#\"" },
		{ "urlPrefix: /a?b\n", ERR_INVALID,
		  "extender.yaml:1:12: urlPrefix: \"/a?b\": must not contain spaces, control characters, \"?\" or \"#\"" },
		{ "urlPrefix: \"/a#b\"\n", ERR_INVALID,
		  "extender.yaml:1:12: urlPrefix: \"/a#b\": must not contain spaces, control characters, \"?\" or \"#\"" },
		{ "metricsListen: \"::1:9090\"\n", ERR_INVALID,
		  "extender.yaml:1:16: metricsListen: \"::1:9090\": an IPv6 address needs brackets ([V6]:PORT)" },
		{ "listen: \"127.0.0.1:65536\"\n", ERR_INVALID,
		  "extender.yaml:1:9: listen: \"127.0.0.1:65536\": the port is out of range (0..65535)" },
		{ "listen: \"\"\n", ERR_INVALID,
		  "extender.yaml:1:9: listen: \"\": expected HOST:PORT" },
	};

	(void)state;
	expect_errors(cases, sizeof cases / sizeof cases[0]);
}

static void config_reports_cross_field_errors(void **state)
{
	static const struct bad cases[] = {
		{ "tls:\n  certFile: c.pem\n", ERR_INVALID,
		  "extender.yaml:2:3: tls: certFile needs keyFile" },
		{ "tls:\n  keyFile: k.pem\n", ERR_INVALID,
		  "extender.yaml:2:3: tls: keyFile needs certFile" },
		{ "tls:\n  certFile: c\n  keyFile: k\n  clientNames: [kube-scheduler]\n", ERR_INVALID,
		  "extender.yaml:4:3: tls: clientNames needs clientCAFile" },
		{ "inventory:\n  dir: /nrt\n  kubeconfig: /kc\n", ERR_INVALID,
		  "extender.yaml:3:3: inventory: kubeconfig needs source: kubernetes" },
		{ "listen: 0.0.0.0:8888\nmetricsListen: 0.0.0.0:8888\n", ERR_INVALID,
		  "extender.yaml:2:1: metricsListen: is the same address as listen" },
		{ "bind:\n  enabled: true\n", ERR_INVALID,
		  "extender.yaml:2:3: bind: enabled needs inventory.source: kubernetes (bind talks to the API server)" },
		{ "listen: 0.0.0.0:8888\ninventory: {source: kubernetes}\nbind:\n  enabled: true\n", ERR_INVALID,
		  "extender.yaml:4:3: bind: enabled needs mTLS (tls.clientCAFile) or listeners on loopback only; "
		  "anyone who can reach an unauthenticated /bind can place pods" },
		{ "metricsListen: \"[::]:9090\"\ninventory: {source: kubernetes}\nbind: {enabled: true}\n", ERR_INVALID,
		  "extender.yaml:3:8: bind: enabled needs mTLS (tls.clientCAFile) or listeners on loopback only; "
		  "anyone who can reach an unauthenticated /bind can place pods" },
		{ "ledger: {mode: optimistic}\n", ERR_INVALID,
		  "extender.yaml:1:16: ledger.mode: expected one of predicted, pessimistic, got \"optimistic\"" },
	};

	(void)state;
	expect_errors(cases, sizeof cases / sizeof cases[0]);
}

/* The DRA keys: every value, inventory.dra.dir with source files, and the
 * rules between them and the inventory source. */
static void config_dra_keys(void **state)
{
	static const struct bad cases[] = {
		{ "inventory:\n  source: kubernetes\n  dra: {dir: /dra}\n", ERR_INVALID,
		  "extender.yaml:3:9: inventory: dra.dir needs source: files (with kubernetes the DRA "
		  "objects come from the API)" },
		{ "inventory:\n  dra:\n    dir: /dra\n", ERR_INVALID,
		  "extender.yaml:3:5: inventory: dra.dir needs dra.enabled: true" },
		{ "dra:\n  enabled: true\n", ERR_INVALID,
		  "extender.yaml:2:3: dra: enabled with inventory.source: files needs inventory.dra.dir" },
		{ "dra: {alignment: strict}\n", ERR_INVALID,
		  "extender.yaml:1:18: dra.alignment: expected one of require, prefer, off, got \"strict\"" },
		{ "dra: {unknownNUMA: ignore}\n", ERR_INVALID,
		  "extender.yaml:1:20: dra.unknownNUMA: expected one of allow, deny, got \"ignore\"" },
		{ "dra: {allocatorOrder: random}\n", ERR_INVALID,
		  "extender.yaml:1:23: dra.allocatorOrder: expected one of sorted, unsorted, got \"random\"" },
		{ "dra: {enabled: yes}\n", ERR_INVALID,
		  "extender.yaml:1:16: dra.enabled: expected one of false, true, got \"yes\"" },
		{ "inventory: {dra: {dir: \"\"}}\n", ERR_INVALID,
		  "extender.yaml:1:24: inventory.dra.dir: must not be empty" },
		{ "inventory: {dra: {path: /x}}\n", ERR_INVALID,
		  "extender.yaml:1:19: inventory.dra: unknown key \"path\"" },
		{ "dra: {enabled: true, numa: deny}\n", ERR_INVALID,
		  "extender.yaml:1:22: dra: unknown key \"numa\"" },
	};
	struct config c;

	(void)state;
	load_ok("inventory: {dra: {dir: /etc/dra}}\n"
		"dra: {enabled: true, alignment: require, unknownNUMA: deny, allocatorOrder: unsorted}\n",
		&c);
	assert_true(c.dra_enabled);
	assert_string_equal(c.dra_dir, "/etc/dra");
	assert_int_equal(c.dra_alignment, CONFIG_DRA_REQUIRE);
	assert_int_equal(c.dra_unknown_numa, CONFIG_DRA_UNKNOWN_DENY);
	assert_int_equal(c.dra_allocator_order, CONFIG_DRA_UNSORTED);
	config_cleanup(&c);
	/* From the API: no directory. */
	load_ok("inventory: {source: kubernetes}\ndra: {enabled: true, alignment: 'off'}\n", &c);
	assert_true(c.dra_enabled);
	assert_null(c.dra_dir);
	assert_int_equal(c.dra_alignment, CONFIG_DRA_OFF);
	config_cleanup(&c);
	load_ok("dra: {alignment: prefer, unknownNUMA: allow, allocatorOrder: sorted}\n", &c);
	assert_false(c.dra_enabled);
	assert_int_equal(c.dra_alignment, CONFIG_DRA_PREFER);
	config_cleanup(&c);
	expect_errors(cases, sizeof cases / sizeof cases[0]);
	/* The rules hold for a configuration changed after loading too. */
	config_init(&c);
	c.dra_enabled = true;
	{
		struct errmsg msg = { { 0 } };

		assert_int_equal(config_check(&c, &msg), ERR_INVALID);
		assert_string_equal(msg.text, "dra: enabled with inventory.source: files needs inventory.dra.dir");
	}
	config_cleanup(&c);
}

/* bind on loopback listeners, or behind mTLS, and the ledger's keys. */
static void config_bind_and_ledger(void **state)
{
	struct config c;

	(void)state;
	load_ok("inventory: {source: kubernetes}\nbind: {enabled: true}\n", &c);
	assert_true(c.bind_enabled);
	config_cleanup(&c);
	load_ok("listen: \"[::1]:8888\"\nmetricsListen: localhost:9090\ninventory: {source: kubernetes}\n"
		"bind: {enabled: true}\n", &c);
	assert_true(c.bind_enabled);
	config_cleanup(&c);
	load_ok("listen: 0.0.0.0:8443\ntls: {certFile: c, keyFile: k, clientCAFile: ca}\n"
		"inventory: {source: kubernetes}\nbind: {enabled: true}\n", &c);
	assert_true(c.bind_enabled);
	config_cleanup(&c);
	load_ok("ledger: {enabled: false, mode: pessimistic, assumeTTL: 45s, maxAssumeAge: 2m}\n", &c);
	assert_false(c.ledger_enabled);
	assert_int_equal(c.ledger_mode, LEDGER_PESSIMISTIC);
	assert_int_equal(c.ledger_assume_ttl_ms, 45000);
	assert_int_equal(c.ledger_max_assume_age_ms, 120000);
	config_cleanup(&c);
}

static void config_reports_yaml_errors(void **state)
{
	static const struct bad cases[] = {
		{ "listen: \"127.0.0.1:1\"\nlisten: \"127.0.0.1:1\"\n", ERR_PARSE,
		  "extender.yaml:2:1: duplicate key \"listen\"" },
		{ "limits:\n  maxConnections: 1\n  maxConnections: 1\n", ERR_PARSE,
		  "extender.yaml:3:3: limits: duplicate key \"maxConnections\"" },
		{ "log: {level: info}\nlog: {level: info}\n", ERR_PARSE,
		  "extender.yaml:2:1: duplicate key \"log\"" },
		/* A repeated key is a fault of the YAML, found before the schema
		 * is read: even of a key the schema does not know. */
		{ "threds: 1\nthreds: 2\n", ERR_PARSE,
		  "extender.yaml:2:1: duplicate key \"threds\"" },
		{ "threads: x\nscoring: {resources: [{name: a, weight: 1, name: b}]}\n", ERR_PARSE,
		  "extender.yaml:2:44: scoring.resources[0]: duplicate key \"name\"" },
		{ "threads: 2\n---\nthreads: 3\n", ERR_PARSE,
		  "extender.yaml:2:1: only one YAML document is allowed" },
		{ "threads: 2\n---\n", ERR_PARSE,
		  "extender.yaml:2:1: only one YAML document is allowed" },
		{ "threads: !!int 2\n", ERR_PARSE,
		  "extender.yaml:1:10: tags are not allowed" },
		{ "tls: &t {certFile: a, keyFile: b}\n", ERR_PARSE,
		  "extender.yaml:1:6: anchors and aliases are not allowed" },
		{ "? [a, b]\n: 1\n", ERR_PARSE,
		  "extender.yaml:1:3: a mapping key must be a scalar, got a sequence" },
		{ "log:\n  level: [info,\nthreads: 2\n", ERR_PARSE,
		  "extender.yaml:4:1: did not find expected ',' or ']' "
		  "(while parsing a flow sequence at line 2, column 10)" },
		{ "listen: \"127.0.0.1:1\n", ERR_PARSE,
		  "extender.yaml:2:1: found unexpected end of stream "
		  "(while scanning a quoted scalar at line 1, column 9)" },
		{ "a: 1\n b: 2\n", ERR_PARSE,
		  "extender.yaml:2:3: mapping values are not allowed in this context" },
		{ "threads: 2\nlog: \xff\n", ERR_PARSE,
		  "extender.yaml:2:6: invalid leading UTF-8 octet (#FF at byte 16)" },
		{ "threads: 2\x01\n", ERR_PARSE,
		  "extender.yaml:1:11: control characters are not allowed (#1 at byte 10)" },
	};

	(void)state;
	expect_errors(cases, sizeof cases / sizeof cases[0]);
}

/* Sixteen nested collections are fine (the schema then refuses them), the
 * seventeenth is not, whatever the style. */
static void config_nesting_limit_is_16(void **state)
{
	static const struct bad cases[] = {
		{ "threads: [[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]\n", ERR_INVALID,
		  "extender.yaml:1:10: threads: expected an integer, got a sequence" },
		{ "threads: [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]\n", ERR_PARSE,
		  "extender.yaml:1:25: nested too deep" },
		{ "a:\n b:\n  c:\n   d:\n    e:\n     f:\n      g:\n       h:\n        i:\n"
		  "         j:\n          k:\n           l:\n            m:\n             n:\n"
		  "              o:\n               p:\n                q: 1\n",
		  ERR_PARSE, "extender.yaml:17:17: nested too deep" },
	};

	(void)state;
	expect_errors(cases, sizeof cases / sizeof cases[0]);
}

/* A deep flow nest near the size cap costs little and fails cleanly. */
static void config_hostile_nesting_fails_fast(void **state)
{
	size_t n = ONE_MIB / 2 - 8, i;
	char *text = malloc(2 * n + 16);
	struct errmsg msg = { { 0 } };
	struct config c;

	(void)state;
	assert_non_null(text);
	memcpy(text, "a: ", 3);
	for (i = 0; i < n; i++) {
		text[3 + i] = '[';
		text[3 + n + i] = ']';
	}
	config_init(&c);
	assert_int_equal(config_load_buffer(text, 3 + 2 * n, "deep", &c, &msg), ERR_PARSE);
	assert_string_equal(msg.text, "deep:1:19: nested too deep");
	assert_defaults(&c);
	config_cleanup(&c);
	free(text);
}

static void config_lists_hold_at_most_256(void **state)
{
	size_t cap = 300 * 32 + 256, n, i;
	char *text = malloc(cap);
	struct errmsg msg = { { 0 } };
	struct config c;

	(void)state;
	assert_non_null(text);
	for (n = 256; n <= 257; n++) {
		size_t used = (size_t)snprintf(text, cap, "tls:\n  certFile: c\n  keyFile: k\n"
					       "  clientCAFile: ca\n  clientNames:\n");
		for (i = 0; i < n; i++)
			used += (size_t)snprintf(text + used, cap - used, "  - n%zu\n", i);
		config_init(&c);
		if (n == 256) {
			assert_int_equal(config_load_buffer(text, used, "x", &c, &msg), ERR_OK);
			assert_int_equal(c.ntls_client_names, 256);
			assert_string_equal(c.tls_client_names[255], "n255");
		} else {
			assert_int_equal(config_load_buffer(text, used, "x", &c, &msg), ERR_TOO_LARGE);
			assert_string_equal(msg.text, "x:262:5: tls.clientNames: more than 256 entries");
		}
		config_cleanup(&c);
	}
	for (n = 256; n <= 257; n++) {
		size_t used = (size_t)snprintf(text, cap, "scoring:\n  resources:\n");

		for (i = 0; i < n; i++)
			used += (size_t)snprintf(text + used, cap - used,
						 "  - {name: r%zu, weight: 1}\n", i);
		config_init(&c);
		if (n == 256) {
			assert_int_equal(config_load_buffer(text, used, "x", &c, &msg), ERR_OK);
			assert_int_equal(c.scoring.nweights, 256);
		} else {
			assert_int_equal(config_load_buffer(text, used, "x", &c, &msg), ERR_TOO_LARGE);
			assert_string_equal(msg.text, "x:259:5: scoring.resources: more than 256 entries");
		}
		config_cleanup(&c);
	}
	free(text);
}

static void config_input_capped_at_1mib(void **state)
{
	char *text = malloc(ONE_MIB + 1);
	char path[32];
	struct errmsg msg = { { 0 } };
	struct config c;

	(void)state;
	assert_non_null(text);
	/* Exactly 1 MiB of comment lines loads; one byte more does not. */
	memset(text, ' ', ONE_MIB + 1);
	text[0] = '#';
	text[ONE_MIB - 1] = '\n';
	config_init(&c);
	assert_int_equal(config_load_buffer(text, ONE_MIB, "big", &c, &msg), ERR_OK);
	assert_int_equal(config_load_buffer(text, ONE_MIB + 1, "big", &c, &msg), ERR_TOO_LARGE);
	assert_string_equal(msg.text, "big: larger than 1048576 bytes");

	write_temp(path, text, ONE_MIB);
	assert_int_equal(config_load_file(path, &c, &msg), ERR_OK);
	unlink(path);
	write_temp(path, text, ONE_MIB + 1);
	assert_int_equal(config_load_file(path, &c, &msg), ERR_TOO_LARGE);
	{
		char want[128];

		snprintf(want, sizeof want, "%s: larger than 1048576 bytes", path);
		assert_string_equal(msg.text, want);
	}
	unlink(path);
	assert_defaults(&c);
	config_cleanup(&c);
	free(text);
}

/* ---- Files ------------------------------------------------------------- */

static void config_file_errors_name_the_file(void **state)
{
	static const struct {
		const char *path;
		enum err rc;
		const char *msg;
	} cases[] = {
		{ DATA "tls-ca-only.yaml", ERR_INVALID,
		  DATA "tls-ca-only.yaml:14:3: tls: clientCAFile needs certFile and keyFile" },
		{ DATA "syntax-error.yaml", ERR_PARSE,
		  DATA "syntax-error.yaml:5:1: did not find expected key "
		  "(while parsing a block mapping at line 1, column 1)" },
		{ DATA "unknown-key.yaml", ERR_INVALID,
		  DATA "unknown-key.yaml:4:3: limits: unknown key \"maxConection\"" },
		{ DATA "no-such-file.yaml", ERR_IO,
		  DATA "no-such-file.yaml: cannot open: No such file or directory" },
		{ DATA, ERR_IO, DATA ": is a directory" },
	};
	struct config c, snapshot;
	size_t i;

	(void)state;
	load_ok(before_text, &c);
	memcpy(&snapshot, &c, sizeof c);
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct errmsg msg = { { 0 } };

		assert_int_equal(config_load_file(cases[i].path, &c, &msg), cases[i].rc);
		assert_string_equal(msg.text, cases[i].msg);
		assert_memory_equal(&c, &snapshot, sizeof c);
	}
	config_cleanup(&c);
}

/* A successful load replaces the previous config whole: nothing of it
 * survives (valgrind/ASan show its memory is released). */
static void config_success_replaces_previous_config(void **state)
{
	struct errmsg msg = { { 0 } };
	struct config c;

	(void)state;
	load_ok(before_text, &c);
	assert_int_equal(load("threads: 5\n", &c, &msg), ERR_OK);
	assert_int_equal(c.threads, 5);
	assert_string_equal(c.listen, "127.0.0.1:8888");
	assert_null(c.tls_cert_file);
	assert_int_equal(c.scoring.nweights, 0);
	assert_int_equal(c.scoring.strategy, SCORE_LEAST_ALLOCATED);
	config_cleanup(&c);
}

static void config_message_and_output_are_optional(void **state)
{
	struct errmsg msg = { { 0 } };
	struct config c;

	(void)state;
	config_init(&c);
	assert_int_equal(config_load_buffer("threads: 0", 10, "x", &c, NULL), ERR_RANGE);
	assert_int_equal(c.threads, 2);
	/* No output: validation only. */
	assert_int_equal(config_load_buffer("threads: 3", 10, "x", NULL, &msg), ERR_OK);
	assert_int_equal(config_load_buffer("threads: 0", 10, NULL, NULL, &msg), ERR_RANGE);
	assert_string_equal(msg.text, "config:1:10: threads: 0 is out of range (1..64)");
	config_cleanup(&c);
}

/* The whole of a small file, NUL-terminated (tests only). */
static char *read_whole(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	text = malloc((size_t)n + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = '\0';
	fclose(f);
	return text;
}

/* limits.requestTimeout, maxConnectionsPerClient and maxBufferedBytes: their
 * defaults, their bounds, the rule that the shared buffer holds the largest
 * body, and config/example.yaml documenting them. */
static void config_network_limits(void **state)
{
	static const struct bad cases[] = {
		{ "limits: {requestTimeout: 500ms}\n", ERR_RANGE,
		  "extender.yaml:1:26: limits.requestTimeout: 500ms is out of range (1s..10m)" },
		{ "limits: {requestTimeout: 11m}\n", ERR_RANGE,
		  "extender.yaml:1:26: limits.requestTimeout: 11m is out of range (1s..10m)" },
		{ "limits: {requestTimeout: 10}\n", ERR_INVALID,
		  "extender.yaml:1:26: limits.requestTimeout: a duration needs a unit (ms, s, m, h), got \"10\"" },
		{ "limits: {maxConnectionsPerClient: -1}\n", ERR_RANGE,
		  "extender.yaml:1:35: limits.maxConnectionsPerClient: -1 is out of range (0..100000)" },
		{ "limits: {maxConnectionsPerClient: 100001}\n", ERR_RANGE,
		  "extender.yaml:1:35: limits.maxConnectionsPerClient: 100001 is out of range (0..100000)" },
		{ "limits: {maxBufferedBytes: 1000}\n", ERR_RANGE,
		  "extender.yaml:1:28: limits.maxBufferedBytes: 1000 is out of range (1Ki..1Ti)" },
		{ "limits: {maxBufferedBytes: 4Mi}\n", ERR_INVALID,
		  "extender.yaml:1:28: limits.maxBufferedBytes: 4194304 is less than "
		  "limits.maxBodyBytes (8388608): the largest body allowed could never be taken" },
		{ "limits:\n  maxBufferedBytes: 16Mi\n  maxBodyBytes: 32Mi\n", ERR_INVALID,
		  "extender.yaml:2:21: limits.maxBufferedBytes: 16777216 is less than "
		  "limits.maxBodyBytes (33554432): the largest body allowed could never be taken" },
	};
	static const char *const keys[] = {
		"requestTimeout:", "maxConnectionsPerClient:", "maxBufferedBytes:",
	};
	struct config c;
	char *text;
	size_t i;

	(void)state;
	config_init(&c);
	assert_int_equal(c.http_request_timeout_ms, 10000);
	assert_int_equal(c.max_connections_per_client, 64);
	assert_int_equal(c.max_buffered_bytes, 0); /* 64 MiB, or maxBodyBytes when larger */
	config_cleanup(&c);
	/* Unset, it follows a larger body cap instead of refusing it. */
	load_ok("limits: {maxBodyBytes: 1Gi}\n", &c);
	assert_int_equal(c.max_buffered_bytes, 0);
	config_cleanup(&c);

	load_ok("limits: {requestTimeout: 1s, maxConnectionsPerClient: 0, maxBufferedBytes: 1Ti,"
		" maxBodyBytes: 1Gi}\n", &c);
	assert_int_equal(c.http_request_timeout_ms, 1000);
	assert_int_equal(c.max_connections_per_client, 0);
	assert_int_equal(c.max_buffered_bytes, (int64_t)1 << 40);
	config_cleanup(&c);
	load_ok("limits:\n  requestTimeout: 10m\n  maxConnectionsPerClient: 100000\n"
		"  maxBodyBytes: 1Ki\n  maxBufferedBytes: 1Ki\n", &c);
	assert_int_equal(c.http_request_timeout_ms, 600000);
	assert_int_equal(c.max_connections_per_client, 100000);
	assert_int_equal(c.max_buffered_bytes, 1024);
	config_cleanup(&c);
	/* A null value keeps the default. */
	load_ok("limits: {requestTimeout: ~, maxConnectionsPerClient: , maxBufferedBytes: null}\n", &c);
	assert_int_equal(c.http_request_timeout_ms, 10000);
	assert_int_equal(c.max_connections_per_client, 64);
	assert_int_equal(c.max_buffered_bytes, 0);
	config_cleanup(&c);

	expect_errors(cases, sizeof cases / sizeof cases[0]);

	text = read_whole(EXAMPLE);
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strstr(text, keys[i]) == NULL)
			fail_msg("%s does not document limits.%s", EXAMPLE, keys[i]);
	free(text);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(config_init_sets_documented_defaults),
		cmocka_unit_test(config_empty_inputs_give_defaults),
		cmocka_unit_test(config_empty_files_give_defaults),
		cmocka_unit_test(config_cleanup_frees_and_zeroes),
		cmocka_unit_test(config_full_file_round_trips),
		cmocka_unit_test(config_flow_style_round_trips),
		cmocka_unit_test(config_every_enum_value_round_trips),
		cmocka_unit_test(config_numbers_at_their_bounds),
		cmocka_unit_test(config_null_value_keeps_default),
		cmocka_unit_test(config_url_prefix_lone_slash_means_empty),
		cmocka_unit_test(config_tls_server_only_and_empty_client_names),
		cmocka_unit_test(config_listen_port_zero_and_same_address_twice),
		cmocka_unit_test(config_example_file_loads),
		cmocka_unit_test(config_example_mentions_every_key),
		cmocka_unit_test(config_reports_the_documented_errors),
		cmocka_unit_test(config_reports_type_errors),
		cmocka_unit_test(config_reports_value_errors),
		cmocka_unit_test(config_reports_cross_field_errors),
		cmocka_unit_test(config_bind_and_ledger),
		cmocka_unit_test(config_dra_keys),
		cmocka_unit_test(config_reports_yaml_errors),
		cmocka_unit_test(config_nesting_limit_is_16),
		cmocka_unit_test(config_hostile_nesting_fails_fast),
		cmocka_unit_test(config_lists_hold_at_most_256),
		cmocka_unit_test(config_input_capped_at_1mib),
		cmocka_unit_test(config_file_errors_name_the_file),
		cmocka_unit_test(config_success_replaces_previous_config),
		cmocka_unit_test(config_message_and_output_are_optional),
		cmocka_unit_test(config_network_limits),
	};

	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
