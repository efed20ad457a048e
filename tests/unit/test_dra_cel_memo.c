/* SPDX-License-Identifier: Apache-2.0 */
/* The selector memo: which programs read a fixed list of a device's
 * entries (dra_cel_device_key), that devices agreeing on those entries
 * share a key and devices that differ in one do not, and that answers
 * through the memo (dra_selectors_eval) are the evaluator's on every
 * device, first time and again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dra/alloc_selectors.h"
#include "dra/cel.h"
#include "tests/support/cel_device.h"

#define GPU "gpu.example.com"

static struct dra_cel_program *compiled(const char *expr)
{
	struct dra_cel_program *p = NULL;
	struct errmsg msg;

	assert_int_equal(dra_cel_compile(expr, strlen(expr), &p, &msg), DRA_CEL_COMPILED);
	return p;
}

/* A GPU of model, memory and NUMA node, with its own UUID. */
static void gpu(struct dra_device *d, const char *name, const char *model, const char *memory,
	       int64_t numa)
{
	char uuid[64];

	cel_dev_init(d, name);
	snprintf(uuid, sizeof uuid, "GPU-%s-%s", name, model);
	cel_dev_string(d, GPU, "model", model);
	cel_dev_string(d, GPU, "uuid", uuid);
	cel_dev_version(d, GPU, "driverVersion", "570.124.6");
	cel_dev_int(d, "resource.kubernetes.io", "numaNode", numa);
	cel_dev_capacity(d, GPU, "memory", memory);
}

static bool key_of(const struct dra_cel_program *p, const struct dra_device *d, uint64_t *k)
{
	return dra_cel_device_key(p, d, GPU, k);
}

static void fixed_reads_give_keys(void **state)
{
	static const char *const fixed[] = {
		"device.driver == 'gpu.example.com'",
		"device.attributes['gpu.example.com'].model == 'H100'",
		"device.attributes['gpu.example.com']['model'] == 'H100' && device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0",
		"has(device.attributes['gpu.example.com'].model)",
		"device.attributes['resource.kubernetes.io'].numaNode in [0, 1]",
		"!device.allowMultipleAllocations",
	};
	static const char *const whole[] = {
		"size(device.attributes['gpu.example.com']) > 2",
		"'model' in device.attributes['gpu.example.com']",
		"device.attributes['gpu.example.com'].exists(k, k == 'model')",
		"cel.bind(a, device.attributes['gpu.example.com'], a.model == 'H100')",
		"device.attributes['gpu' + '.example.com'].model == 'H100'",
	};
	struct dra_device d;
	uint64_t k;
	size_t i;

	(void)state;
	gpu(&d, "gpu-0", "H100", "80Gi", 0);
	for (i = 0; i < sizeof fixed / sizeof *fixed; i++) {
		struct dra_cel_program *p = compiled(fixed[i]);

		if (!key_of(p, &d, &k))
			fail_msg("no key for %s", fixed[i]);
		dra_cel_free(p);
	}
	for (i = 0; i < sizeof whole / sizeof *whole; i++) {
		struct dra_cel_program *p = compiled(whole[i]);

		if (key_of(p, &d, &k))
			fail_msg("a key for %s, which reads more than fixed entries", whole[i]);
		dra_cel_free(p);
	}
	dra_device_cleanup(&d);
}

static void keys_follow_what_is_read(void **state)
{
	struct dra_cel_program *p = compiled(
		"device.attributes['gpu.example.com'].model == 'H100' && "
		"device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0");
	struct dra_cel_program *q = compiled("device.attributes['gpu.example.com'].model == 'H100'");
	struct dra_device a, b, c, e, f;
	uint64_t ka, kb, kc, ke, kf, kq;

	(void)state;
	gpu(&a, "gpu-0", "H100", "80Gi", 0);
	gpu(&b, "gpu-1", "H100", "80Gi", 1);  /* other name, UUID, NUMA node: not read */
	gpu(&c, "gpu-2", "A100", "80Gi", 0);  /* another model */
	gpu(&e, "gpu-3", "H100", "40Gi", 0);  /* another memory */
	cel_dev_init(&f, "gpu-4");            /* no model at all */
	cel_dev_capacity(&f, GPU, "memory", "80Gi");
	assert_true(key_of(p, &a, &ka) && key_of(p, &b, &kb) && key_of(p, &c, &kc) &&
		    key_of(p, &e, &ke) && key_of(p, &f, &kf));
	assert_true(ka == kb);
	assert_true(ka != kc);
	assert_true(ka != ke);
	assert_true(ka != kf);
	/* Another program, another key for the same device. */
	assert_true(key_of(q, &a, &kq));
	assert_true(kq != ka);
	/* The driver is part of the key. */
	assert_true(dra_cel_device_key(p, &a, "other.example.com", &kb));
	assert_true(kb != ka);
	dra_cel_free(p);
	dra_cel_free(q);
	dra_device_cleanup(&a);
	dra_device_cleanup(&b);
	dra_device_cleanup(&c);
	dra_device_cleanup(&e);
	dra_device_cleanup(&f);
}

/* Every answer through the memo, twice, is the evaluator's. */
static void memo_answers_as_the_evaluator(void **state)
{
	static const char *const exprs[] = {
		"device.attributes['gpu.example.com'].model == 'H100'",
		"device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) > 0",
		"device.attributes['gpu.example.com'].model.startsWith('A')",
		"device.attributes['resource.kubernetes.io'].numaNode == 1",
		"device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('500.0.0'))",
		"size(device.attributes['gpu.example.com']) == 4",
	};
	static const char *const models[] = { "H100", "A100", "L4" };
	static const char *const memories[] = { "80Gi", "40Gi", "24Gi" };
	struct dra_device devs[20];
	struct dra_selectors set;
	size_t i, e, round, n = 0;

	(void)state;
	for (i = 0; i < 18; i++) {
		char name[16];

		snprintf(name, sizeof name, "gpu-%zu", i);
		gpu(&devs[n++], name, models[i % 3], memories[(i / 3) % 3], (int64_t)(i % 2));
	}
	/* One without the model: the first expression errs on it. */
	cel_dev_init(&devs[n], "bare");
	cel_dev_capacity(&devs[n++], GPU, "memory", "8Gi");
	/* Half of them as the store keeps them. */
	for (i = 0; i < n; i += 2)
		dra_cel_device_prepare(&devs[i], GPU);
	dra_selectors_init(&set, &dra_cel_ops);
	assert_non_null(set.memo);
	for (round = 0; round < 2; round++)
		for (e = 0; e < sizeof exprs / sizeof *exprs; e++) {
			const struct dra_selector *s = dra_selectors_get(&set, exprs[e]);

			assert_int_equal(s->status, DRA_CEL_COMPILED);
			for (i = 0; i < n; i++) {
				char err1[256] = "", err2[256] = "";
				enum dra_cel_value want = dra_cel_eval(s->prog, &devs[i], GPU, err1, sizeof err1);
				enum dra_cel_value got =
					dra_selectors_eval(&set, s, &devs[i], GPU, err2, sizeof err2);

				if (want != got)
					fail_msg("%s on %s, round %zu: %d through the memo, %d evaluated", exprs[e],
						 devs[i].name, round, (int)got, (int)want);
				if (want == DRA_CEL_ERROR)
					assert_string_equal(err1, err2);
			}
		}
	dra_selectors_free(&set);
	for (i = 0; i < n; i++)
		dra_device_cleanup(&devs[i]);
}

/* A device prepared as the DRA store keeps it gets the very key it gets
 * from its strings, for every program; and another driver string than
 * the one prepared is still read. */
static void prepared_devices_keep_the_same_keys(void **state)
{
	static const char *const exprs[] = {
		"device.driver == 'gpu.example.com'",
		"device.attributes['gpu.example.com'].model == 'H100'",
		"device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) > 0",
		"has(device.attributes['gpu.example.com'].nope) || device.attributes['resource.kubernetes.io'].numaNode == 1",
		"device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('500.0.0'))",
	};
	struct dra_device d, bad;
	size_t e;

	(void)state;
	gpu(&d, "gpu-0", "H100", "80Gi", 1);
	gpu(&bad, "gpu-1", "H100", "80Gi", 1);
	cel_dev_version(&bad, GPU, "broken", "not-a-version");
	for (e = 0; e < sizeof exprs / sizeof *exprs; e++) {
		struct dra_cel_program *p = compiled(exprs[e]);
		uint64_t before, after, other_before, other_after, bad_before, bad_after;

		assert_true(dra_cel_device_key(p, &d, GPU, &before));
		assert_true(dra_cel_device_key(p, &d, "other.example.com", &other_before));
		assert_true(dra_cel_device_key(p, &bad, GPU, &bad_before));
		dra_cel_device_prepare(&d, GPU);
		dra_cel_device_prepare(&bad, GPU);
		assert_true(d.entries_hashed && !bad.versions_ok);
		assert_true(dra_cel_device_key(p, &d, GPU, &after));
		assert_true(dra_cel_device_key(p, &d, "other.example.com", &other_after));
		assert_true(dra_cel_device_key(p, &bad, GPU, &bad_after));
		if (before != after || other_before != other_after || bad_before != bad_after)
			fail_msg("%s: a prepared device keys differently", exprs[e]);
		assert_true(before != other_before);
		assert_true(before != bad_before);
		dra_cel_free(p);
		/* Unprepared again for the next program. */
		free(d.entry_hashes);
		d.entry_hashes = NULL;
		d.entries_hashed = false;
		free(bad.entry_hashes);
		bad.entry_hashes = NULL;
		bad.entries_hashed = false;
	}
	dra_device_cleanup(&d);
	dra_device_cleanup(&bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fixed_reads_give_keys),
		cmocka_unit_test(keys_follow_what_is_read),
		cmocka_unit_test(memo_answers_as_the_evaluator),
		cmocka_unit_test(prepared_devices_keep_the_same_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
