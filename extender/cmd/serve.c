/* SPDX-License-Identifier: Apache-2.0 */
/* The serve command. Signals are blocked before any thread starts and taken
 * synchronously with sigwait in the main thread, so no handler runs in a
 * request thread. */
#include "extender/cmd/serve.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extender/cmd/usage.h"
#include "extender/config.h"
#include "extender/file_read.h"
#include "extender/http/handlers.h"
#include "extender/log.h"
#include "extender/metrics.h"
#include "extender/net_addr.h"
#include "extender/http/server.h"
#include "extender/decide/settings.h"
#include "extender/inventory/dra_store.h"
#include "extender/inventory/source_dra.h"
#include "extender/inventory/source_files.h"
#include "extender/inventory/source_kube.h"
#include "extender/inventory/source_pods.h"
#include "extender/kube/binder.h"
#include "extender/inventory/ledger.h"
#include "extender/inventory/store.h"
#include "base/xalloc.h"

#define DRAIN_DEADLINE_MS 10000
#define WHO "numa-extender serve"

static const char usage_text[] =
	"usage: numa-extender serve [--config FILE] [--listen HOST:PORT] [--nrt-dir DIR | --kubeconfig FILE]\n"
	"Runs the scheduler extender: <urlPrefix>/filter, /prioritize, /preempt and, with\n"
	"bind.enabled, /bind; /healthz, /readyz, /metrics and, with the ledger, /ledger.\n"
	"  --config FILE          YAML configuration (see config/example.yaml); defaults without it\n"
	"  --listen HOST:PORT     overrides `listen`\n"
	"  --nrt-dir DIR          serve the NRT files in DIR (inventory.source: files, inventory.dir: DIR)\n"
	"  --kubeconfig FILE      NRTs from the Kubernetes API (inventory.source: kubernetes, inventory.kubeconfig: FILE)\n"
	"  -h, --help             this help\n"
	"The rules between keys (bind needs mTLS or loopback listeners, ...) hold for the\n"
	"file with the flags applied.\n"
	"Signals: SIGHUP reloads scoring, missingInventory and log level; SIGTERM/SIGINT drain and exit.\n"
	"Exit 0 after SIGTERM/SIGINT, 1 when a listener cannot start, 2 when the command line,\n"
	"the configuration or a source it names is unusable.\n";

struct flags {
	const char *config;
	const char *listen;
	const char *nrt_dir;
	const char *kubeconfig;
};

static int parse_flags(int argc, char **argv, struct flags *f)
{
	int a;

	memset(f, 0, sizeof *f);
	for (a = 0; a < argc; a++) {
		const char **dst = NULL;

		if (strcmp(argv[a], "--config") == 0)
			dst = &f->config;
		else if (strcmp(argv[a], "--listen") == 0)
			dst = &f->listen;
		else if (strcmp(argv[a], "--nrt-dir") == 0)
			dst = &f->nrt_dir;
		else if (strcmp(argv[a], "--kubeconfig") == 0)
			dst = &f->kubeconfig;
		else if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0)
			return usage_help(usage_text);
		else
			return usage_error(WHO, usage_text, "unknown argument \"%s\"", argv[a]);
		if (a + 1 >= argc)
			return usage_error(WHO, usage_text, "%s needs a value", argv[a]);
		*dst = argv[++a];
	}
	if (f->nrt_dir && f->kubeconfig)
		return usage_error(WHO, usage_text, "--nrt-dir and --kubeconfig are two inventory sources; give one");
	return -1;
}

/* The file's settings, with the command-line overrides applied again, then
 * the rules between keys checked on the result: a flag must not get around
 * a rule the file alone would break (e.g. --listen 0.0.0.0:8888 with an
 * unauthenticated bind). */
static int load(const struct flags *f, struct config *cfg, struct errmsg *msg)
{
	config_init(cfg);
	if (f->config && config_load_file(f->config, cfg, msg) != ERR_OK)
		return -1;
	if (f->listen) {
		char *host = NULL;
		int port;

		if (net_split_hostport(f->listen, &host, &port, msg) != ERR_OK) {
			errmsg_prefix(msg, "--listen: ");
			return -1;
		}
		free(host);
		free(cfg->listen);
		cfg->listen = xstrdup(f->listen);
	}
	if (f->nrt_dir) {
		cfg->inventory_source = CONFIG_SOURCE_FILES;
		free(cfg->inventory_dir);
		cfg->inventory_dir = xstrdup(f->nrt_dir);
		/* The whole inventory section is overridden. */
		free(cfg->kubeconfig);
		cfg->kubeconfig = NULL;
	}
	if (f->kubeconfig) {
		int fd;

		/* Checked on every SIGHUP too: never blocks (a FIFO is refused). */
		if (file_open_input(f->kubeconfig, &fd, msg) != ERR_OK) {
			errmsg_prefix(msg, "--kubeconfig: ");
			return -1;
		}
		close(fd);
		cfg->inventory_source = CONFIG_SOURCE_KUBERNETES;
		free(cfg->kubeconfig);
		cfg->kubeconfig = xstrdup(f->kubeconfig);
	}
	if (config_check(cfg, msg) != ERR_OK) {
		if (f->listen || f->nrt_dir || f->kubeconfig)
			errmsg_prefix(msg, "with the command-line flags%s%s%s: ",
				      f->listen ? " --listen" : "", f->nrt_dir ? " --nrt-dir" : "",
				      f->kubeconfig ? " --kubeconfig" : "");
		return -1;
	}
	return 0;
}

/* The DRA inventory, when dra.enabled: from the API server with the
 * kubernetes source, else from inventory.dra.dir. filter and prioritize
 * judge pods with claims on it (dra.alignment); /metrics shows its counts.
 * /readyz does not wait for it: until its lists are in, a pod's claims are
 * not known and its nodes are unpredictable, which never rejects a node
 * (and a cluster without resource.k8s.io/v1 never lists them). */
static int start_dra(const struct config *cfg, struct dra_store **store, struct source_dra **api,
		     struct source_dra_files **files)
{
	struct errmsg msg;

	*store = dra_store_new();
	metrics_set_dra_store(*store);
	if (cfg->inventory_source == CONFIG_SOURCE_KUBERNETES) {
		if (source_dra_start(*store, cfg, api, &msg) != ERR_OK) {
			fprintf(stderr, "numa-extender serve: DRA watch: %s\n", msg.text);
			return -1;
		}
		return 0;
	}
	*files = source_dra_files_new(*store, cfg->dra_dir);
	source_dra_files_set_max_file_bytes(*files, (size_t)cfg->inventory_max_file_bytes);
	dir_watch_scan(source_dra_files_watcher(*files));
	dir_watch_start(source_dra_files_watcher(*files), cfg->inventory_poll_ms);
	log_info("DRA inventory from files", "dir=%s", log_q(cfg->dra_dir));
	return 0;
}

static void reload(const struct flags *f, const struct config *running,
		   struct settings_holder *holder)
{
	struct config cfg;
	struct errmsg msg;

	if (f->config == NULL) {
		log_info("SIGHUP: no configuration file to reload", NULL);
		return;
	}
	if (load(f, &cfg, &msg) != 0) {
		log_error("SIGHUP: invalid configuration, keeping the previous one", "error=%s",
			  log_q(msg.text));
		metrics_config_reload(0);
		config_cleanup(&cfg);
		return;
	}
	settings_replace(holder, settings_new(&cfg));
	log_set_level(cfg.log_level);
	if (strcmp(cfg.listen, running->listen) != 0 ||
	    (cfg.inventory_dir && running->inventory_dir &&
	     strcmp(cfg.inventory_dir, running->inventory_dir) != 0) ||
	    cfg.inventory_source != running->inventory_source || cfg.dra_enabled != running->dra_enabled)
		log_warn("SIGHUP: listeners and inventory source change only on restart", NULL);
	log_info("configuration reloaded", "file=%s strategy=%s weights=%zu missingInventory=%s",
		 log_q(f->config), score_strategy_name(cfg.scoring.strategy), cfg.scoring.nweights,
		 cfg.missing_inventory == CONFIG_MISSING_ALLOW ? "allow" : "deny");
	metrics_config_reload(1);
	config_cleanup(&cfg);
}

int serve_main(int argc, char **argv)
{
	struct source_files *files = NULL;
	struct source_kube *kube = NULL;
	struct source_pods *pods = NULL;
	struct dra_store *dra = NULL;
	struct dra_veto *veto = NULL;
	struct dra_assume *dra_assumed = NULL;
	struct source_dra *dra_api = NULL;
	struct source_dra_files *dra_files = NULL;
	struct ledger *ledger = NULL;
	struct kube_binder *binder = NULL;
	struct decision_log *decisions = NULL;
	struct settings_holder holder;
	struct server *server = NULL;
	struct store *store = NULL;
	struct handler_ctx ctx;
	struct config cfg;
	struct errmsg msg;
	struct flags f;
	sigset_t sigs;
	int status, sig;

	status = parse_flags(argc, argv, &f);
	if (status >= 0)
		return status;
	if (load(&f, &cfg, &msg) != 0) {
		fprintf(stderr, "numa-extender serve: %s\n", msg.text);
		config_cleanup(&cfg);
		return 2;
	}
	log_set_level(cfg.log_level);
	signal(SIGPIPE, SIG_IGN);
	/* A file-size limit (ulimit -f) must not kill the server: the decision
	 * log's write then fails with EFBIG, counted and logged like ENOSPC. */
	signal(SIGXFSZ, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	store = store_new();
	metrics_set_store(store);
	settings_holder_init(&holder, settings_new(&cfg));
	memset(&ctx, 0, sizeof ctx);
	ctx.store = store;
	ctx.settings = &holder;
	if (cfg.decision_log_path) {
		if (decision_log_open(cfg.decision_log_path, cfg.decision_log_max_bytes,
				      cfg.decision_log_max_files, cfg.decision_log_queue, &decisions,
				      &msg) != ERR_OK) {
			fprintf(stderr, "numa-extender serve: %s\n", msg.text);
			status = 2;
			goto out;
		}
		ctx.decisions = decisions;
	}
	if (cfg.inventory_source == CONFIG_SOURCE_KUBERNETES && cfg.ledger_enabled) {
		struct ledger_options lo = {
			cfg.ledger_mode,
			cfg.ledger_assume_ttl_ms, cfg.ledger_max_assume_age_ms,
			cfg.decision_log_path != NULL,
		};

		/* The overlay must be in place before the first NRT arrives. */
		ledger = ledger_new(store, &lo);
		metrics_set_ledger(ledger);
		ctx.ledger = ledger;
	} else if (cfg.inventory_source == CONFIG_SOURCE_KUBERNETES) {
		ctx.ledger_off = "the assumed-pod ledger is off: ledger.enabled is false in the configuration";
	} else {
		ctx.ledger_off = "the assumed-pod ledger is off: the inventory comes from files "
				 "(inventory.source: files); the ledger watches pods and runs only with "
				 "inventory.source: kubernetes";
	}
	if (cfg.bind_enabled) {
		if (kube_binder_new(&cfg, &binder, &msg) != ERR_OK) {
			fprintf(stderr, "numa-extender serve: bind: %s\n", msg.text);
			status = 2;
			goto out;
		}
		ctx.binder = binder;
	}
	if (cfg.inventory_source == CONFIG_SOURCE_KUBERNETES) {
		if (ledger && source_pods_start(ledger, &cfg, &pods, &msg) != ERR_OK) {
			fprintf(stderr, "numa-extender serve: pod watch: %s\n", msg.text);
			status = 2;
			goto out;
		}
		/* The kubelet's rejections go to the decision log too (a
		 * list never holds one: Failed pods are not selected). */
		source_pods_set_decision_log(pods, decisions);
		if (ledger)
			log_info("assumed-pod ledger on", "mode=%s assumeTTL_ms=%lld maxAssumeAge_ms=%lld bind=%s",
				 ledger_mode_name(cfg.ledger_mode),
				 (long long)cfg.ledger_assume_ttl_ms, (long long)cfg.ledger_max_assume_age_ms,
				 binder ? "on" : "off");
		if (source_kube_start(store, &cfg, &kube, &msg) != ERR_OK) {
			log_error("cannot use the Kubernetes API", "error=%s", log_q(msg.text));
			fprintf(stderr, "numa-extender serve: %s\n", msg.text);
			status = 2;
			goto out;
		}
		ctx.stale_after_ms = cfg.stale_after_ms;
		ctx.fail_open = cfg.on_stale == CONFIG_STALE_FAIL_OPEN;
	} else {
		files = source_files_new(store, cfg.inventory_dir);
		source_files_set_max_file_bytes(files, (size_t)cfg.inventory_max_file_bytes);
		source_files_scan(files);
		source_files_start(files, cfg.inventory_poll_ms);
	}
	if (cfg.dra_enabled && start_dra(&cfg, &dra, &dra_api, &dra_files) != 0) {
		status = 2;
		goto out;
	}
	ctx.dra = dra;
	if (dra != NULL && binder != NULL) {
		veto = dra_veto_new();
		ctx.veto = veto;
	}
	/* Pods the watch sees bound before their claims' allocation arrives
	 * keep their devices taken for assumeTTL (needs the pod watch). */
	if (dra != NULL && pods != NULL) {
		dra_assumed = dra_assume_new(cfg.ledger_assume_ttl_ms, 0);
		ctx.dra_assumed = dra_assumed;
		metrics_set_dra_assume(dra_assumed);
		source_pods_set_dra(pods, dra_assumed, dra, &holder);
	}
	if (server_start(&cfg, &ctx, &server, &msg) != ERR_OK) {
		log_error("cannot start the server", "error=%s", log_q(msg.text));
		status = 1;
		goto out;
	}
	for (;;) {
		if (sigwait(&sigs, &sig) != 0)
			continue;
		if (sig == SIGHUP) {
			reload(&f, &cfg, &holder);
			continue;
		}
		log_info("shutting down: draining requests in flight", "signal=%s",
			 sig == SIGTERM ? "SIGTERM" : "SIGINT");
		break;
	}
	server_drain_and_stop(server, DRAIN_DEADLINE_MS);
	server = NULL;
	status = 0;
out:
	server_drain_and_stop(server, 0);
	source_kube_stop(kube);
	source_pods_stop(pods);
	metrics_set_dra_assume(NULL);
	dra_assume_free(dra_assumed);
	metrics_set_ledger(NULL);
	ledger_free(ledger);
	kube_binder_free(binder);
	decision_log_close(decisions);
	source_files_free(files);
	source_dra_stop(dra_api);
	source_dra_files_free(dra_files);
	metrics_set_dra_store(NULL);
	dra_store_free(dra);
	dra_veto_free(veto);
	settings_holder_cleanup(&holder);
	metrics_set_store(NULL);
	store_free(store);
	config_cleanup(&cfg);
	/* Last, after the sources' threads have said all they had to. */
	if (status == 0)
		log_info("stopped", NULL);
	return status;
}
