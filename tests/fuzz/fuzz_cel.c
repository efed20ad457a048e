/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for dra/cel, the device selectors: the input is one
 * expression, as a DeviceClass or a ResourceClaim would carry it. It is
 * compiled; a program is evaluated on a few fixed devices (a GPU with
 * scalar attributes and capacities, a device with list and version
 * attributes and non-ASCII text, a device with nothing). Beyond "no crash,
 * no leak, no hang" (the cost limit bounds the work, the depth limit the
 * recursion), it checks:
 *  - compiling is a function of the text: twice the same answer;
 *  - a refusal says what and, past the length check, where ("line:col: ");
 *  - an evaluation is one of the three answers, repeatable, and an error
 *    comes with a one-line message. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dra/cel.h"
#include "tests/support/cel_device.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "fuzz_cel: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                      \
		}                                                                     \
	} while (0)

static struct dra_device devices[3];
static const char *const drivers[3] = { "gpu.nvidia.com", "dra.cpu", "" };

static void build_devices(void)
{
	static const int64_t numa[] = { 1, 0 };
	static const char *const firmware[] = { "1.2.3", "2.0.0-rc.1+b" };

	cel_dev_init(&devices[0], "gpu-0");
	cel_dev_string(&devices[0], "gpu.nvidia.com", "type", "gpu");
	cel_dev_string(&devices[0], "gpu.nvidia.com", "productName", "NVIDIA A100-SXM4-40GB");
	cel_dev_int(&devices[0], "gpu.nvidia.com", "index", 2);
	cel_dev_bool(&devices[0], "gpu.nvidia.com", "sriov", true);
	cel_dev_version(&devices[0], "gpu.nvidia.com", "driverVersion", "580.65.6");
	cel_dev_capacity(&devices[0], "gpu.nvidia.com", "memory", "40Gi");
	cel_dev_capacity(&devices[0], "gpu.nvidia.com", "multiprocessors", "98");
	cel_dev_capacity(&devices[0], "gpu.nvidia.com", "share", "1500m");
	cel_dev_init(&devices[1], "cpus-0");
	cel_dev_ints(&devices[1], "resource.kubernetes.io", "numaNode", numa, 2);
	cel_dev_versions(&devices[1], "dra.cpu", "firmware", firmware, 2);
	cel_dev_string(&devices[1], "dra.cpu", "name", "c\xc3\xb4re \xff");
	cel_dev_int(&devices[1], "dra.cpu", "cores", INT64_MIN);
	cel_dev_init(&devices[2], "empty");
}

static void check_message(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	CHECK(n > 0 && n < cap);
	CHECK(strchr(s, '\n') == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int built;
	struct dra_cel_program *p = NULL, *again = NULL;
	struct errmsg msg = { "" }, msg2 = { "" };
	enum dra_cel_compiled st;

	if (!built) {
		build_devices();
		built = 1;
	}
	st = dra_cel_compile((const char *)data, size, &p, &msg);
	CHECK(st == DRA_CEL_COMPILED || st == DRA_CEL_UNSUPPORTED || st == DRA_CEL_INVALID);
	CHECK(dra_cel_compile((const char *)data, size, &again, &msg2) == st);
	dra_cel_free(again);
	if (st != DRA_CEL_COMPILED) {
		CHECK(p == NULL);
		check_message(msg.text, sizeof msg.text);
		CHECK(strcmp(msg.text, msg2.text) == 0);
		if (size <= DRA_CEL_MAX_LENGTH)
			CHECK(msg.text[0] >= '1' && msg.text[0] <= '9' && strstr(msg.text, ": "));
		return 0;
	}
	CHECK(p != NULL && size <= DRA_CEL_MAX_LENGTH);
	for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
		char err[256], err2[256];
		enum dra_cel_value v = dra_cel_eval(p, &devices[i], drivers[i], err, sizeof err);

		CHECK(v == DRA_CEL_FALSE || v == DRA_CEL_TRUE || v == DRA_CEL_ERROR ||
		      v == DRA_CEL_UNKNOWN);
		CHECK(dra_cel_eval(p, &devices[i], drivers[i], err2, sizeof err2) == v);
		if (v == DRA_CEL_ERROR || v == DRA_CEL_UNKNOWN) {
			check_message(err, sizeof err);
			CHECK(strcmp(err, err2) == 0);
		} else {
			CHECK(err[0] == '\0');
		}
	}
	dra_cel_free(p);
	return 0;
}
