/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for dra/cel (device selectors): the selectors real drivers
 * ship (NVIDIA, Intel GPU/QAT/Gaudi, dra-example-driver, dra-driver-cpu)
 * on devices that match and devices that do not; Kubernetes' rules for a
 * missing domain (an empty map) and a missing key (an error); && and ||
 * absorbing the errors the other side decides; what is refused as
 * unsupported or invalid, and where; the limits on size, depth and work.
 * Functions and operators are test_dra_cel_lib.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "dra/cel.h"
#include "tests/support/cel_device.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

#define EXPECT(expr, dev, want, err)                                                     \
	do {                                                                             \
		const char *m_ = cel_dev_mismatch((expr), &(dev)->d, (dev)->driver, (want), \
						  (err));                                \
		if (m_)                                                                  \
			fail_msg("%s", m_);                                              \
	} while (0)

#define EXPECT_COMPILE(expr, want, part)                                \
	do {                                                            \
		const char *m_ = cel_compile_mismatch((expr), (want), (part)); \
		if (m_)                                                 \
			fail_msg("%s", m_);                             \
	} while (0)

struct dev {
	struct dra_device d;
	const char *driver;
};

/* The devices of the drivers whose selectors are tested, as their
 * ResourceSlices publish them (unqualified names are in the driver's
 * domain). */
enum {
	NV_A100, NV_H100, NV_A100_ODD, NV_MIG_5GB, NV_MIG_12GB, NV_VFIO, CD_CHANNEL0, CD_CHANNEL1,
	INTEL_ARC, INTEL_VFIO, INTEL_XE, QAT_SYM, QAT_DC, DRANET, GAUDI3, GAUDI2, EX_GPU, EX_SMALL,
	EX_HUGE, CPU_P0, CPU_E1, N_DEVS,
};

static struct dev devs[N_DEVS];

static struct dev *nv_gpu(int which, const char *name, const char *product, int64_t index)
{
	struct dev *g = &devs[which];

	cel_dev_init(&g->d, name);
	g->driver = "gpu.nvidia.com";
	cel_dev_string(&g->d, "gpu.nvidia.com", "type", "gpu");
	cel_dev_string(&g->d, "gpu.nvidia.com", "productName", product);
	cel_dev_int(&g->d, "gpu.nvidia.com", "index", index);
	cel_dev_version(&g->d, "gpu.nvidia.com", "driverVersion", "580.65.6");
	cel_dev_string(&g->d, "resource.kubernetes.io", "pcieRoot", "pci0000:00");
	cel_dev_capacity(&g->d, "gpu.nvidia.com", "multiprocessors", "98");
	cel_dev_capacity(&g->d, "gpu.nvidia.com", "memory", "40Gi");
	return g;
}

static struct dev *nv_mig(int which, const char *name, const char *profile, const char *sms)
{
	struct dev *g = &devs[which];

	cel_dev_init(&g->d, name);
	g->driver = "gpu.nvidia.com";
	cel_dev_string(&g->d, "gpu.nvidia.com", "type", "mig");
	cel_dev_string(&g->d, "gpu.nvidia.com", "profile", profile);
	cel_dev_string(&g->d, "gpu.nvidia.com", "productName", "NVIDIA A100-SXM4-40GB");
	cel_dev_int(&g->d, "gpu.nvidia.com", "parentIndex", 0);
	cel_dev_capacity(&g->d, "gpu.nvidia.com", "multiprocessors", sms);
	return g;
}

static struct dev *simple(int which, const char *name, const char *driver)
{
	cel_dev_init(&devs[which].d, name);
	devs[which].driver = driver;
	return &devs[which];
}

static void intel_gpu(int which, const char *name, const char *drv, const char *family,
		      bool sriov, const char *memory)
{
	struct dev *g = simple(which, name, "gpu.intel.com");

	cel_dev_string(&g->d, "gpu.intel.com", "driver", drv);
	cel_dev_string(&g->d, "gpu.intel.com", "family", family);
	cel_dev_bool(&g->d, "gpu.intel.com", "sriov", sriov);
	cel_dev_capacity(&g->d, "gpu.intel.com", "memory", memory);
}

static int build_devices(void **state)
{
	struct dev *d;

	(void)state;
	nv_gpu(NV_A100, "gpu-2", "NVIDIA A100-SXM4-40GB", 2);
	nv_gpu(NV_H100, "gpu-0", "NVIDIA H100 80GB HBM3", 0);
	nv_gpu(NV_A100_ODD, "gpu-1", "NVIDIA A100-SXM4-40GB", 1);
	nv_mig(NV_MIG_5GB, "gpu-0-mig-1g5gb-0", "1g.5gb", "14");
	nv_mig(NV_MIG_12GB, "gpu-0-mig-1g12gb-0", "1g.12gb", "14");
	d = simple(NV_VFIO, "gpu-vfio-3", "gpu.nvidia.com");
	cel_dev_string(&d->d, "gpu.nvidia.com", "type", "vfio");
	cel_dev_int(&d->d, "gpu.nvidia.com", "numa", 1);
	d = simple(CD_CHANNEL0, "channel-0", "compute-domain.nvidia.com");
	cel_dev_string(&d->d, "compute-domain.nvidia.com", "type", "channel");
	cel_dev_int(&d->d, "compute-domain.nvidia.com", "id", 0);
	d = simple(CD_CHANNEL1, "channel-1", "compute-domain.nvidia.com");
	cel_dev_string(&d->d, "compute-domain.nvidia.com", "type", "channel");
	cel_dev_int(&d->d, "compute-domain.nvidia.com", "id", 1);
	intel_gpu(INTEL_ARC, "card0", "i915", "Arc", false, "16Gi");
	intel_gpu(INTEL_VFIO, "card1", "vfio-pci", "Flex", true, "512Mi");
	intel_gpu(INTEL_XE, "card2", "xe-vfio-pci", "Max", true, "64Gi");
	d = simple(QAT_SYM, "qatvf-0000-6b-00-1", "qat.intel.com");
	cel_dev_string(&d->d, "qat.intel.com", "services", "sym;asym");
	d = simple(QAT_DC, "qatvf-0000-6b-00-2", "qat.intel.com");
	cel_dev_string(&d->d, "qat.intel.com", "services", "dc");
	d = simple(DRANET, "eth1", "dra.net");
	cel_dev_bool(&d->d, "dra.net", "rdma", true);
	cel_dev_string(&d->d, "dra.net", "ifName", "eth1");
	d = simple(GAUDI3, "accel0", "gaudi.intel.com");
	cel_dev_string(&d->d, "gaudi.intel.com", "model", "Gaudi3");
	d = simple(GAUDI2, "accel1", "gaudi.intel.com");
	cel_dev_string(&d->d, "gaudi.intel.com", "model", "Gaudi2");
	d = simple(EX_GPU, "gpu-0", "gpu.example.com");
	cel_dev_string(&d->d, "gpu.example.com", "model", "LATEST-GPU-MODEL");
	cel_dev_capacity(&d->d, "gpu.example.com", "memory", "80Gi");
	d = simple(EX_SMALL, "gpu-1", "gpu.example.com");
	cel_dev_string(&d->d, "gpu.example.com", "model", "OLD-GPU-MODEL");
	cel_dev_capacity(&d->d, "gpu.example.com", "memory", "1Gi");
	d = simple(EX_HUGE, "gpu-2", "gpu.example.com");
	cel_dev_string(&d->d, "gpu.example.com", "model", "LATEST-GPU-MODEL");
	cel_dev_capacity(&d->d, "gpu.example.com", "memory", "2Ti");
	d = simple(CPU_P0, "cpudevnuma000", "dra.cpu");
	cel_dev_int(&d->d, "resource.kubernetes.io", "numaNode", 0);
	cel_dev_string(&d->d, "dra.cpu", "coreType", "p-core");
	d = simple(CPU_E1, "cpudevnuma001", "dra.cpu");
	cel_dev_int(&d->d, "resource.kubernetes.io", "numaNode", 1);
	cel_dev_string(&d->d, "dra.cpu", "coreType", "e-core");
	return 0;
}

static int free_devices(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_DEVS; i++)
		dra_device_cleanup(&devs[i].d);
	return 0;
}

struct selector_case {
	const char *expr;
	int dev;
	enum dra_cel_value want;
	const char *err;
};

static void run_cases(const struct selector_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		EXPECT(cases[i].expr, &devs[cases[i].dev], cases[i].want, cases[i].err);
}

/* The twenty selectors of the drivers' own DeviceClasses, examples and
 * docs, verbatim. */
#define NV_GPU "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == "
#define NV_A100_EVEN                                                                    \
	"device.attributes['gpu.nvidia.com'].productName.lowerAscii().matches('^.*a100.*$') " \
	"&& (device.attributes['gpu.nvidia.com'].index == 0 || "                           \
	"device.attributes['gpu.nvidia.com'].index == 2 || "                               \
	"device.attributes['gpu.nvidia.com'].index == 4 || "                               \
	"device.attributes['gpu.nvidia.com'].index == 6)"
#define CD_CHANNEL                                                                          \
	"device.driver == 'compute-domain.nvidia.com' && "                                  \
	"device.attributes['compute-domain.nvidia.com'].type == 'channel' && "              \
	"device.attributes['compute-domain.nvidia.com'].id == 0"
#define NV_MIG_12                                                                           \
	"device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig' " \
	"&& device.attributes['gpu.nvidia.com'].profile == '1g.12gb'"
#define INTEL_VFIO_SEL                                                  \
	"device.attributes[\"gpu.intel.com\"].driver == 'vfio-pci' || " \
	"device.attributes[\"gpu.intel.com\"].driver == 'xe-vfio-pci'"
#define QAT_SERVICES                                                      \
	"device.attributes[\"qat.intel.com\"].services == \"sym\" || "    \
	"device.attributes[\"qat.intel.com\"].services == \"sym;asym\" || " \
	"device.attributes[\"qat.intel.com\"].services == \"sym;dc\" || " \
	"device.attributes[\"qat.intel.com\"].services == \"asym;sym\" || " \
	"device.attributes[\"qat.intel.com\"].services == \"dc;sym\""

static void drivers_selectors_match_their_devices(void **state)
{
	static const struct selector_case cases[] = {
		/* 1, 2: NVIDIA's classes gpu, mig, vfio. */
		{ NV_GPU "'gpu'", NV_A100, DRA_CEL_TRUE, NULL },
		{ NV_GPU "'gpu'", NV_MIG_5GB, DRA_CEL_FALSE, NULL },
		{ NV_GPU "'gpu'", INTEL_ARC, DRA_CEL_FALSE, NULL },
		{ NV_GPU "'mig'", NV_MIG_5GB, DRA_CEL_TRUE, NULL },
		{ NV_GPU "'mig'", NV_A100, DRA_CEL_FALSE, NULL },
		{ NV_GPU "'vfio'", NV_VFIO, DRA_CEL_TRUE, NULL },
		{ NV_GPU "'vfio'", NV_H100, DRA_CEL_FALSE, NULL },
		/* 3: the compute domain's default channel. */
		{ CD_CHANNEL, CD_CHANNEL0, DRA_CEL_TRUE, NULL },
		{ CD_CHANNEL, CD_CHANNEL1, DRA_CEL_FALSE, NULL },
		{ CD_CHANNEL, NV_A100, DRA_CEL_FALSE, NULL },
		/* 4: an A100 with an even index. */
		{ NV_A100_EVEN, NV_A100, DRA_CEL_TRUE, NULL },
		{ NV_A100_EVEN, NV_A100_ODD, DRA_CEL_FALSE, NULL },
		{ NV_A100_EVEN, NV_H100, DRA_CEL_FALSE, NULL },
		/* 5: MIG devices by streaming multiprocessors. */
		{ "device.capacity['gpu.nvidia.com'].multiprocessors.isLessThan(quantity(\"30\"))",
		  NV_MIG_5GB, DRA_CEL_TRUE, NULL },
		{ "device.capacity['gpu.nvidia.com'].multiprocessors.isLessThan(quantity(\"30\"))",
		  NV_A100, DRA_CEL_FALSE, NULL },
		{ "device.capacity['gpu.nvidia.com'].multiprocessors.isGreaterThan(quantity(\"50\"))",
		  NV_A100, DRA_CEL_TRUE, NULL },
		{ "device.capacity['gpu.nvidia.com'].multiprocessors.isGreaterThan(quantity(\"50\"))",
		  NV_MIG_12GB, DRA_CEL_FALSE, NULL },
		/* 6, 7: MIG profiles. */
		{ "device.attributes['gpu.nvidia.com'].profile == '1g.5gb'", NV_MIG_5GB,
		  DRA_CEL_TRUE, NULL },
		{ "device.attributes['gpu.nvidia.com'].profile == '1g.5gb'", NV_MIG_12GB,
		  DRA_CEL_FALSE, NULL },
		{ NV_MIG_12, NV_MIG_12GB, DRA_CEL_TRUE, NULL },
		{ NV_MIG_12, NV_MIG_5GB, DRA_CEL_FALSE, NULL },
		{ NV_MIG_12, NV_A100, DRA_CEL_FALSE, NULL },
		/* 8 to 12: Intel GPUs. */
		{ "device.driver == \"gpu.intel.com\"", INTEL_ARC, DRA_CEL_TRUE, NULL },
		{ "device.driver == \"gpu.intel.com\"", NV_A100, DRA_CEL_FALSE, NULL },
		{ INTEL_VFIO_SEL, INTEL_VFIO, DRA_CEL_TRUE, NULL },
		{ INTEL_VFIO_SEL, INTEL_XE, DRA_CEL_TRUE, NULL },
		{ INTEL_VFIO_SEL, INTEL_ARC, DRA_CEL_FALSE, NULL },
		{ "device.capacity[\"gpu.intel.com\"].memory.compareTo(quantity(\"1Gi\")) >= 0",
		  INTEL_ARC, DRA_CEL_TRUE, NULL },
		{ "device.capacity[\"gpu.intel.com\"].memory.compareTo(quantity(\"1Gi\")) >= 0",
		  INTEL_VFIO, DRA_CEL_FALSE, NULL },
		{ "device.attributes[\"gpu.intel.com\"].family.startsWith(\"Arc\")", INTEL_ARC,
		  DRA_CEL_TRUE, NULL },
		{ "device.attributes[\"gpu.intel.com\"].family.startsWith(\"Arc\")", INTEL_VFIO,
		  DRA_CEL_FALSE, NULL },
		{ "device.attributes[\"gpu.intel.com\"].sriov == true", INTEL_VFIO, DRA_CEL_TRUE,
		  NULL },
		{ "device.attributes[\"gpu.intel.com\"].sriov == true", INTEL_ARC, DRA_CEL_FALSE,
		  NULL },
		/* 13: QAT services. */
		{ QAT_SERVICES, QAT_SYM, DRA_CEL_TRUE, NULL },
		{ QAT_SERVICES, QAT_DC, DRA_CEL_FALSE, NULL },
		/* 14: the domain is "dra.net/rdma", which no device has: an
		 * empty map, so ".bool" is a missing key, an error on every
		 * device, the dra.net one included. */
		{ "device.attributes[\"dra.net/rdma\"].bool == true", DRANET, DRA_CEL_ERROR,
		  "no such key: bool" },
		{ "device.attributes[\"dra.net/rdma\"].bool == true", INTEL_ARC, DRA_CEL_ERROR,
		  "no such key: bool" },
		/* 15: Gaudi. */
		{ "device.attributes[\"gaudi.intel.com\"].model == 'Gaudi3'", GAUDI3, DRA_CEL_TRUE,
		  NULL },
		{ "device.attributes[\"gaudi.intel.com\"].model == 'Gaudi3'", GAUDI2, DRA_CEL_FALSE,
		  NULL },
		/* 16 to 18: dra-example-driver. */
		{ "device.driver == 'gpu.example.com'", EX_GPU, DRA_CEL_TRUE, NULL },
		{ "device.driver == 'gpu.example.com'", CPU_P0, DRA_CEL_FALSE, NULL },
		{ "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'", EX_GPU,
		  DRA_CEL_TRUE, NULL },
		{ "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'", EX_SMALL,
		  DRA_CEL_FALSE, NULL },
		{ "device.capacity['gpu.example.com'].memory.compareTo(quantity('4Gi')) >= 0",
		  EX_GPU, DRA_CEL_TRUE, NULL },
		{ "device.capacity['gpu.example.com'].memory.compareTo(quantity('4Gi')) >= 0",
		  EX_SMALL, DRA_CEL_FALSE, NULL },
		{ "device.capacity['gpu.example.com'].memory.compareTo(quantity('1Ti')) >= 0",
		  EX_HUGE, DRA_CEL_TRUE, NULL },
		{ "device.capacity['gpu.example.com'].memory.compareTo(quantity('1Ti')) >= 0",
		  EX_GPU, DRA_CEL_FALSE, NULL },
		/* 19, 20: dra-driver-cpu. */
		{ "device.driver == \"dra.cpu\"", CPU_P0, DRA_CEL_TRUE, NULL },
		{ "device.driver == \"dra.cpu\"", DRANET, DRA_CEL_FALSE, NULL },
		{ "device.attributes[\"resource.kubernetes.io\"].numaNode == 0", CPU_P0,
		  DRA_CEL_TRUE, NULL },
		{ "device.attributes[\"resource.kubernetes.io\"].numaNode == 0", CPU_E1,
		  DRA_CEL_FALSE, NULL },
		{ "device.attributes[\"dra.cpu\"].coreType == \"p-core\"", CPU_P0, DRA_CEL_TRUE,
		  NULL },
		{ "device.attributes[\"dra.cpu\"].coreType == \"p-core\"", CPU_E1, DRA_CEL_FALSE,
		  NULL },
	};

	(void)state;
	run_cases(cases, N_ELEM(cases));
}

/* A selector without a driver check errs on another driver's devices: the
 * scheduler then aborts the pod's attempt (DeviceClasses check the driver
 * first for that reason). */
static void selectors_without_driver_check_err_elsewhere(void **state)
{
	static const struct selector_case cases[] = {
		{ "device.attributes['gpu.nvidia.com'].profile == '1g.5gb'", INTEL_ARC,
		  DRA_CEL_ERROR, "no such key: profile" },
		{ "device.attributes['gpu.nvidia.com'].profile == '1g.5gb'", NV_A100, DRA_CEL_ERROR,
		  "no such key: profile" },
		{ "device.capacity[\"gpu.intel.com\"].memory.compareTo(quantity(\"1Gi\")) >= 0",
		  NV_A100, DRA_CEL_ERROR, "no such key: memory" },
		{ NV_A100_EVEN, CPU_P0, DRA_CEL_ERROR, "no such key: productName" },
	};

	(void)state;
	run_cases(cases, N_ELEM(cases));
}

static void missing_domain_is_an_empty_map(void **state)
{
	static const struct selector_case cases[] = {
		{ "\"x.io\" in device.attributes", NV_A100, DRA_CEL_FALSE, NULL },
		{ "\"gpu.nvidia.com\" in device.attributes", NV_A100, DRA_CEL_TRUE, NULL },
		{ "\"resource.kubernetes.io\" in device.attributes", NV_A100, DRA_CEL_TRUE, NULL },
		{ "\"gpu.nvidia.com\" in device.capacity", NV_A100, DRA_CEL_TRUE, NULL },
		{ "\"x.io\" in device.capacity", NV_A100, DRA_CEL_FALSE, NULL },
		/* has() on the outer map asks the mapper, which finds everything. */
		{ "has(device.attributes.foo)", NV_A100, DRA_CEL_TRUE, NULL },
		{ "has(device.capacity.foo)", NV_A100, DRA_CEL_TRUE, NULL },
		{ "size(device.attributes[\"x.io\"]) == 0", NV_A100, DRA_CEL_TRUE, NULL },
		{ "device.attributes[\"x.io\"] == device.capacity[\"y.io\"]", NV_A100, DRA_CEL_TRUE,
		  NULL },
		{ "\"model\" in device.attributes[\"x.io\"]", NV_A100, DRA_CEL_FALSE, NULL },
		{ "has(device.attributes[\"x.io\"].model)", NV_A100, DRA_CEL_FALSE, NULL },
		{ "device.attributes[\"x.io\"].all(k, false)", NV_A100, DRA_CEL_TRUE, NULL },
		/* A key that is not even a string finds the empty map too. */
		{ "size(device.attributes[1]) == 0", NV_A100, DRA_CEL_TRUE, NULL },
		/* The robust idioms. */
		{ "\"x.io\" in device.attributes && device.attributes[\"x.io\"].model == 'a'",
		  NV_A100, DRA_CEL_FALSE, NULL },
		{ "has(device.attributes[\"x.io\"].model) && device.attributes[\"x.io\"].model == "
		  "'a'",
		  NV_A100, DRA_CEL_FALSE, NULL },
		/* size() and iteration see the domains there are. */
		{ "size(device.attributes) == 2", NV_A100, DRA_CEL_TRUE, NULL },
		{ "device.attributes.exists_one(d, d == 'gpu.nvidia.com')", NV_A100, DRA_CEL_TRUE,
		  NULL },
		{ "device.capacity.all(d, d == 'gpu.nvidia.com')", NV_A100, DRA_CEL_TRUE, NULL },
		{ "device.attributes['gpu.nvidia.com'].exists(k, k == 'driverVersion')", NV_A100,
		  DRA_CEL_TRUE, NULL },
	};

	(void)state;
	run_cases(cases, N_ELEM(cases));
}

static void missing_key_is_an_error(void **state)
{
	static const struct selector_case cases[] = {
		{ "device.attributes[\"x.io\"].model == \"a\"", NV_A100, DRA_CEL_ERROR,
		  "no such key: model" },
		{ "device.attributes[\"x.io\"][\"model\"] == \"a\"", NV_A100, DRA_CEL_ERROR,
		  "no such key: model" },
		{ "device.attributes[\"gpu.nvidia.com\"].nope == 1", NV_A100, DRA_CEL_ERROR,
		  "no such key: nope" },
		{ "device.capacity[\"gpu.nvidia.com\"].nope.isGreaterThan(quantity(\"0\"))",
		  NV_A100, DRA_CEL_ERROR, "no such key: nope" },
		/* The key is quoted when it is not plain text. */
		{ "device.attributes[\"gpu.nvidia.com\"][\"a b\\n\"] == 1", NV_A100, DRA_CEL_ERROR,
		  "no such key: \"a b\\x0a\"" },
		{ "has(device.attributes[\"gpu.nvidia.com\"].nope)", NV_A100, DRA_CEL_FALSE, NULL },
		{ "has(device.attributes[\"gpu.nvidia.com\"].type)", NV_A100, DRA_CEL_TRUE, NULL },
		{ "\"type\" in device.attributes[\"gpu.nvidia.com\"]", NV_A100, DRA_CEL_TRUE,
		  NULL },
	};

	(void)state;
	run_cases(cases, N_ELEM(cases));
}

static void field_and_index_access_are_the_same(void **state)
{
	static const struct selector_case cases[] = {
		{ "device.attributes['gpu.nvidia.com'].index == "
		  "device.attributes['gpu.nvidia.com']['index']",
		  NV_A100, DRA_CEL_TRUE, NULL },
		{ "device.attributes['gpu.nvidia.com'].type == 'gpu' && "
		  "device.attributes['gpu.nvidia.com']['type'] == 'gpu'",
		  NV_A100, DRA_CEL_TRUE, NULL },
		{ "device.capacity['gpu.nvidia.com'].memory == "
		  "device.capacity['gpu.nvidia.com']['memory']",
		  NV_A100, DRA_CEL_TRUE, NULL },
		{ "device.attributes.dra == device.attributes['dra']", NV_A100, DRA_CEL_TRUE,
		  NULL },
		{ "cel.bind(dra, device.attributes['gpu.nvidia.com'], dra.type == 'gpu' && "
		  "dra.index == 2)",
		  NV_A100, DRA_CEL_TRUE, NULL },
		{ "device.allowMultipleAllocations == false", NV_A100, DRA_CEL_TRUE, NULL },
		{ ".device.driver == 'gpu.nvidia.com'", NV_A100, DRA_CEL_TRUE, NULL },
		/* A macro's variable shadows device; `.device` is the root. */
		{ "[1].exists(device, device == 1)", NV_A100, DRA_CEL_TRUE, NULL },
		{ "[1].exists(device, .device.driver == 'gpu.nvidia.com')", NV_A100, DRA_CEL_TRUE,
		  NULL },
	};

	(void)state;
	run_cases(cases, N_ELEM(cases));
}

static void list_and_version_attributes(void **state)
{
	static const int64_t numa[] = { 1, 0 };
	static const char *const vers[] = { "1.2.3", "2.0.0-rc.1" };
	static const char *const bad[] = { "1.2" };
	struct dev d = { .driver = "dra.cpu" }, broken = { .driver = "dra.cpu" };

	(void)state;
	cel_dev_init(&d.d, "cpus");
	cel_dev_ints(&d.d, "resource.kubernetes.io", "numaNode", numa, 2);
	cel_dev_versions(&d.d, "dra.cpu", "firmware", vers, 2);
	cel_dev_int(&d.d, "dra.cpu", "cores", 8);
	EXPECT("device.attributes['resource.kubernetes.io'].numaNode.includes(0)", &d,
	       DRA_CEL_TRUE, NULL);
	EXPECT("device.attributes['resource.kubernetes.io'].numaNode.includes(2)", &d,
	       DRA_CEL_FALSE, NULL);
	EXPECT("0 in device.attributes['resource.kubernetes.io'].numaNode", &d, DRA_CEL_TRUE, NULL);
	EXPECT("device.attributes['resource.kubernetes.io'].numaNode[0] == 1", &d, DRA_CEL_TRUE,
	       NULL);
	EXPECT("device.attributes['resource.kubernetes.io'].numaNode[2] == 1", &d, DRA_CEL_ERROR,
	       "out of range");
	EXPECT("size(device.attributes['resource.kubernetes.io'].numaNode) == 2", &d, DRA_CEL_TRUE,
	       NULL);
	EXPECT("device.attributes['resource.kubernetes.io'].numaNode.all(n, n < 2)", &d,
	       DRA_CEL_TRUE, NULL);
	EXPECT("device.attributes['dra.cpu'].cores.includes(8)", &d, DRA_CEL_TRUE, NULL);
	EXPECT("device.attributes['dra.cpu'].cores.exists(x, x > 0)", &d, DRA_CEL_ERROR,
	       "expected iterable type");
	EXPECT("device.attributes['dra.cpu'].firmware.exists(v, v.isLessThan(semver('2.0.0')))", &d,
	       DRA_CEL_TRUE, NULL);
	EXPECT("device.attributes['dra.cpu'].firmware.includes(semver('2.0.0-rc.1'))", &d,
	       DRA_CEL_TRUE, NULL);
	/* An attribute that is not semver fails every selector on the device,
	 * as the scheduler converts all attributes before evaluating. */
	cel_dev_init(&broken.d, "broken");
	cel_dev_versions(&broken.d, "dra.cpu", "firmware", bad, 1);
	EXPECT("true", &broken, DRA_CEL_ERROR, "parse semantic version");
	dra_device_cleanup(&broken.d);
	dra_device_cleanup(&d.d);
}

/* The API server allows 32 attributes and capacities per device; far more
 * cannot come from it and is not evaluated (their maps' work grows with
 * the square of the count). */
static void oversized_devices_are_not_evaluated(void **state)
{
	struct dev d = { .driver = "x.io" };
	char name[16];

	(void)state;
	cel_dev_init(&d.d, "many");
	for (int i = 0; i < 128; i++) {
		snprintf(name, sizeof name, "a%d", i);
		cel_dev_int(&d.d, i % 2 ? "x.io" : "y.io", name, i);
	}
	EXPECT("size(device.attributes) == 2 && size(device.attributes['x.io']) == 64", &d,
	       DRA_CEL_TRUE, NULL);
	EXPECT("device.attributes.all(k, device.attributes[k].all(a, a.startsWith('a')))", &d,
	       DRA_CEL_TRUE, NULL);
	cel_dev_int(&d.d, "x.io", "one-too-many", 0);
	EXPECT("true", &d, DRA_CEL_UNKNOWN, "a device with more than 128 attributes");
	dra_device_cleanup(&d.d);
}

static void errors_are_absorbed_where_the_other_side_decides(void **state)
{
	static const struct selector_case cases[] = {
		{ "false && device.attributes['x.io'].y", NV_A100, DRA_CEL_FALSE, NULL },
		{ "device.attributes['x.io'].y && false", NV_A100, DRA_CEL_FALSE, NULL },
		{ "true || device.attributes['x.io'].y", NV_A100, DRA_CEL_TRUE, NULL },
		{ "device.attributes['x.io'].y || true", NV_A100, DRA_CEL_TRUE, NULL },
		{ "device.attributes['x.io'].y && true", NV_A100, DRA_CEL_ERROR, "no such key: y" },
		{ "true && device.attributes['x.io'].y", NV_A100, DRA_CEL_ERROR, "no such key: y" },
		{ "device.attributes['x.io'].y || false", NV_A100, DRA_CEL_ERROR,
		  "no such key: y" },
		{ "false || device.attributes['x.io'].y", NV_A100, DRA_CEL_ERROR,
		  "no such key: y" },
		/* The first error is the one reported. */
		{ "1 / 0 == 1 || device.attributes['x.io'].y", NV_A100, DRA_CEL_ERROR,
		  "division by zero" },
		{ "1 / 0 == 1 || true", NV_A100, DRA_CEL_TRUE, NULL },
		/* A non-bool operand is absorbed the same way. */
		{ "'a' || true", NV_A100, DRA_CEL_TRUE, NULL },
		{ "dyn(1) && false", NV_A100, DRA_CEL_FALSE, NULL },
		{ "dyn(1) && true", NV_A100, DRA_CEL_ERROR, "no such overload" },
		/* The macros fold with && (all) and || (exists). */
		{ "[0, 1].exists(x, 1 / x == 1)", NV_A100, DRA_CEL_TRUE, NULL },
		{ "[1, 0].exists(x, 1 / x == 1)", NV_A100, DRA_CEL_TRUE, NULL },
		{ "[0, 2].exists(x, 1 / x == 1)", NV_A100, DRA_CEL_ERROR, "division by zero" },
		{ "[0, 1].all(x, 1 / x == 1)", NV_A100, DRA_CEL_ERROR, "division by zero" },
		{ "[0, 2].all(x, 1 / x == 1)", NV_A100, DRA_CEL_FALSE, NULL },
		{ "[0, 1].exists_one(x, 1 / x == 1)", NV_A100, DRA_CEL_ERROR, "division by zero" },
		{ "[1, 2].exists_one(x, x == 1)", NV_A100, DRA_CEL_TRUE, NULL },
		{ "[1, 1].exists_one(x, x == 1)", NV_A100, DRA_CEL_FALSE, NULL },
		/* Nothing else absorbs. */
		{ "!(1 / 0 == 1)", NV_A100, DRA_CEL_ERROR, "division by zero" },
		{ "1 / 0 == 1 ? true : false", NV_A100, DRA_CEL_ERROR, "division by zero" },
		{ "[1 / 0].size() == 1", NV_A100, DRA_CEL_ERROR, "division by zero" },
		{ "(1 / 0 == 1) == false", NV_A100, DRA_CEL_ERROR, "division by zero" },
	};

	(void)state;
	run_cases(cases, N_ELEM(cases));
}

static void result_must_be_a_bool(void **state)
{
	(void)state;
	/* Statically known: refused like the API server does. */
	EXPECT_COMPILE("1", DRA_CEL_INVALID, "must evaluate to bool or the unknown type, not int");
	EXPECT_COMPILE("device.driver", DRA_CEL_INVALID, "not string");
	EXPECT_COMPILE("device.capacity['a'].b", DRA_CEL_INVALID, "not kubernetes.Quantity");
	EXPECT_COMPILE("device.attributes['a'].b", DRA_CEL_COMPILED, NULL);
	/* An attribute is of the unknown type: known only at run time. */
	EXPECT("device.attributes['gpu.nvidia.com'].index", &devs[NV_A100], DRA_CEL_ERROR,
	       "CEL result of type int could not be converted to bool");
	EXPECT("device.attributes['gpu.nvidia.com'].sriov", &devs[NV_A100], DRA_CEL_ERROR,
	       "no such key: sriov");
	EXPECT("device.attributes['gpu.intel.com'].sriov", &devs[INTEL_VFIO], DRA_CEL_TRUE, NULL);
}

static void unsupported_constructs_are_named(void **state)
{
	static const struct {
		const char *expr, *part;
	} cases[] = {
		{ "device.attributes['a'].?b.orValue(1) == 1", "optional field selection" },
		{ "device.attributes[?'a'] == 1", "optional index" },
		{ "[?device.driver].size() == 1", "optional list elements" },
		{ "{'a': 1}['a'] == 1", "map literals" },
		{ "[1, 2].map(x, x * 2).size() == 2", "the map() macro" },
		{ "[1, 2].filter(x, x > 1).size() == 1", "the filter() macro" },
		{ "[1, 2].all(i, v, v > 0)", "two-variable comprehensions" },
		{ "device.driver.split('.').size() == 2", "function split()" },
		{ "device.driver.indexOf('.') == 3", "function indexOf()" },
		{ "device.driver.find('[a-z]+') == 'gpu'", "function find()" },
		{ "device.driver.replace('a', 'b') == 'b'", "function replace()" },
		{ "isIP('10.0.0.1')", "function isIP()" },
		{ "ip('10.0.0.1').family() == 4", "function ip()" },
		{ "url('https://x.io').getHost() == 'x.io'", "function url()" },
		{ "optional.of(1).hasValue()", "function optional.of()" },
		{ "strings.quote('a') == 'a'", "function strings.quote()" },
		{ "b'abc' == b'abc'", "bytes literals" },
		{ "type(1) == int", "function type()" },
		{ "dyn(1) == int", "type values (int)" },
		{ "quantity('1').mul(2) == quantity('2')", "function mul()" },
		{ "device.driver.contains('a', 'b')", "contains() as a method with 2 arguments" },
		{ "device.attributes['x'].`a-b` == 1", "escaped field names" },
		{ "google.protobuf.Int64Value{value: 1} == 1", "message construction" },
		/* RE2 that POSIX cannot say (test_dra_cel_lib has the list). */
		{ "device.driver.matches('\\\\bgpu')", "word boundaries" },
		{ "device.driver.matches('(?i)GPU')", "flags" },
	};

	(void)state;
	for (size_t i = 0; i < N_ELEM(cases); i++)
		EXPECT_COMPILE(cases[i].expr, DRA_CEL_UNSUPPORTED, cases[i].part);
}

static void invalid_syntax_says_where(void **state)
{
	static const struct {
		const char *expr, *part;
	} cases[] = {
		{ "device.driver ==", "1:17: syntax error: unexpected end of input" },
		{ "device.driver = 'a'", "1:15: unexpected character" },
		{ "(device.driver == 'a'", "1:22: syntax error: expected ')'" },
		{ "device.driver == 'a' 'b'", "1:22: syntax error: unexpected string" },
		{ "true &&\n  )", "2:3: syntax error: unexpected ')'" },
		{ "device.driver == 'a", "1:18: unterminated string literal" },
		{ "device.driver == '\\q'", "1:19: invalid escape sequence" },
		{ "device.name == 'x'", "1:8: undefined field 'name'" },
		{ "has(device.name)", "undefined field 'name'" },
		{ "devices.driver == 'x'", "1:1: undeclared reference to 'devices'" },
		{ "if == 1", "1:1: reserved identifier: if" },
		{ "9223372036854775808 > 0", "1:1: invalid int literal" },
		{ "18446744073709551616u > 0u", "invalid uint literal" },
		{ "1e400 > 0.0", "invalid double literal" },
		{ "has(device)", "invalid argument to has() macro" },
		{ "[1].all(1, true)", "the variable must be a simple name" },
		{ "device.driver.matches('a(b')", "missing closing )" },
		{ "device.driver.matches('(?=a)')", "lookaround is not RE2 syntax" },
		{ "", "1:1: syntax error: unexpected end of input" },
		{ "1 == 1 in in", "unexpected 'in'" },
		{ "'a'.size() == 1 ? true", "expected ':'" },
		{ "x\x01", "1:2: unexpected character" },
	};

	(void)state;
	for (size_t i = 0; i < N_ELEM(cases); i++)
		EXPECT_COMPILE(cases[i].expr, DRA_CEL_INVALID, cases[i].part);
	/* The smallest int is a literal of its own. */
	EXPECT("-9223372036854775808 < 0", &devs[NV_A100], DRA_CEL_TRUE, NULL);
}

/* text repeated n times, then tail; freed by the caller. */
static char *repeat(const char *head, size_t n, const char *middle, const char *tail, size_t m)
{
	size_t len = strlen(head) * n + strlen(middle) + strlen(tail) * m + 1;
	char *s = xmalloc(len), *p = s;

	for (size_t i = 0; i < n; i++, p += strlen(head))
		memcpy(p, head, strlen(head));
	strcpy(p, middle);
	p += strlen(middle);
	for (size_t i = 0; i < m; i++, p += strlen(tail))
		memcpy(p, tail, strlen(tail));
	*p = '\0';
	return s;
}

static void deep_and_huge_expressions_are_refused(void **state)
{
	static const struct {
		const char *head, *middle, *tail;
		size_t n;
		enum dra_cel_compiled want;
		const char *part;
	} cases[] = {
		{ "(", "true", ")", 5000, DRA_CEL_UNSUPPORTED, "nests deeper than 250" },
		{ "!", "true", "", 5000, DRA_CEL_UNSUPPORTED, "nests deeper than 250" },
		{ "-", "1 < 0", "", 300, DRA_CEL_UNSUPPORTED, "nests deeper than 250" },
		{ "[", "true", "][0]", 2000, DRA_CEL_UNSUPPORTED, "nests deeper than 250" },
		{ "1 + ", "1 > 0", "", 2000, DRA_CEL_UNSUPPORTED, "nests deeper than 250" },
		{ "device.attributes.", "x", "", 260, DRA_CEL_UNSUPPORTED, "nests deeper" },
		{ "[1].all(x, ", "true", ")", 300, DRA_CEL_UNSUPPORTED, "nests deeper" },
		/* Chains of one logical operator are one node: no depth. */
		{ "true && ", "true", "", 1000, DRA_CEL_COMPILED, NULL },
		{ "false || ", "true", "", 1000, DRA_CEL_COMPILED, NULL },
		{ "(", "true", ")", 200, DRA_CEL_COMPILED, NULL },
	};
	char *big;

	(void)state;
	for (size_t i = 0; i < N_ELEM(cases); i++) {
		char *s = repeat(cases[i].head, cases[i].n, cases[i].middle, cases[i].tail,
				 strcmp(cases[i].tail, "") ? cases[i].n : 0);

		if (strlen(s) <= DRA_CEL_MAX_LENGTH)
			EXPECT_COMPILE(s, cases[i].want, cases[i].part);
		else
			EXPECT_COMPILE(s, DRA_CEL_INVALID, "longer than the 10240");
		if (cases[i].want == DRA_CEL_COMPILED && strlen(s) <= DRA_CEL_MAX_LENGTH)
			EXPECT(s, &devs[NV_A100], DRA_CEL_TRUE, NULL);
		free(s);
	}
	/* Exactly the API server's limit is accepted; one byte more is not. */
	big = repeat(" ", DRA_CEL_MAX_LENGTH - 4, "true", "", 0);
	EXPECT_COMPILE(big, DRA_CEL_COMPILED, NULL);
	free(big);
	big = repeat(" ", DRA_CEL_MAX_LENGTH - 3, "true", "", 0);
	EXPECT_COMPILE(big, DRA_CEL_INVALID, "10241 bytes is longer than the 10240");
	free(big);
}

static void work_is_bounded_by_the_cost_limit(void **state)
{
	static const char nested[] =
		"[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, "
		"[1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, "
		"[1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, "
		"[1,2,3,4,5,6,7,8,9,10].all(g, a + b + c + d + e + f + g < 100)))))))";
	char *doubling, *inner;

	(void)state;
	EXPECT(nested, &devs[NV_A100], DRA_CEL_ERROR, "actual cost limit exceeded");
	/* The limit stops the whole evaluation: || does not absorb it. */
	inner = repeat("", 0, nested, "", 0);
	doubling = xmalloc(strlen(inner) + 16);
	sprintf(doubling, "%s || true", inner);
	EXPECT(doubling, &devs[NV_A100], DRA_CEL_ERROR, "actual cost limit exceeded");
	free(doubling);
	free(inner);
	/* A string doubled 64 times would be 2^64 bytes: the cost of the
	 * concatenations stops it long before memory does. */
	doubling = repeat("cel.bind(s, s + s, ", 64, "size(s) > 0", ")", 64);
	inner = xmalloc(strlen(doubling) + 64);
	sprintf(inner, "cel.bind(s, 'abcdefgh', %s)", doubling);
	EXPECT(inner, &devs[NV_A100], DRA_CEL_ERROR, "actual cost limit exceeded");
	free(inner);
	free(doubling);
	/* Searching a long text pays for every position it compares at:
	 * 512 KiB of 'a' searched for itself plus one byte, or with a pattern
	 * of 1,001 states, stops at once instead of running for minutes. */
	doubling = repeat("cel.bind(s, s + s, ", 16, "s.contains(s + 'b') || s.matches('a{1000}b')",
			  ")", 16);
	inner = xmalloc(strlen(doubling) + 64);
	sprintf(inner, "cel.bind(s, 'aaaaaaaa', %s)", doubling);
	EXPECT(inner, &devs[NV_A100], DRA_CEL_ERROR, "actual cost limit exceeded");
	free(inner);
	free(doubling);
	/* Lists the same way. */
	doubling = repeat("cel.bind(l, l + l, ", 64, "size(l) > 0", ")", 64);
	inner = xmalloc(strlen(doubling) + 64);
	sprintf(inner, "cel.bind(l, [1, 2, 3, 4], %s)", doubling);
	EXPECT(inner, &devs[NV_A100], DRA_CEL_ERROR, "actual cost limit exceeded");
	free(inner);
	free(doubling);
	/* Three levels of ten are far from the limit. */
	EXPECT("[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, "
	       "[1,2,3,4,5,6,7,8,9,10].all(c, a + b + c < 100)))",
	       &devs[NV_A100], DRA_CEL_TRUE, NULL);
}

static void a_program_is_reusable_across_devices(void **state)
{
	struct dra_cel_program *p = NULL;
	struct errmsg msg = { "" };
	const char *expr = NV_A100_EVEN;
	char err[128];

	(void)state;
	assert_int_equal(dra_cel_compile(expr, strlen(expr), &p, &msg), DRA_CEL_COMPILED);
	for (int round = 0; round < 3; round++) {
		assert_int_equal(
			dra_cel_eval(p, &devs[NV_A100].d, "gpu.nvidia.com", err, sizeof err),
			DRA_CEL_TRUE);
		assert_int_equal(dra_cel_eval(p, &devs[NV_H100].d, "gpu.nvidia.com", NULL, 0),
				 DRA_CEL_FALSE);
		assert_int_equal(dra_cel_eval(p, &devs[CPU_P0].d, "dra.cpu", err, sizeof err),
				 DRA_CEL_ERROR);
		assert_non_null(strstr(err, "no such key: productName"));
	}
	/* A small err buffer holds what fits, NUL-terminated. */
	assert_int_equal(dra_cel_eval(p, &devs[CPU_P0].d, "dra.cpu", err, 8), DRA_CEL_ERROR);
	assert_string_equal(err, "no such");
	dra_cel_free(p);
	dra_cel_free(NULL);
	assert_int_equal(dra_cel_compile(NULL, 0, &p, &msg), DRA_CEL_INVALID);
	assert_null(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(drivers_selectors_match_their_devices),
		cmocka_unit_test(selectors_without_driver_check_err_elsewhere),
		cmocka_unit_test(missing_domain_is_an_empty_map),
		cmocka_unit_test(missing_key_is_an_error),
		cmocka_unit_test(field_and_index_access_are_the_same),
		cmocka_unit_test(list_and_version_attributes),
		cmocka_unit_test(oversized_devices_are_not_evaluated),
		cmocka_unit_test(errors_are_absorbed_where_the_other_side_decides),
		cmocka_unit_test(result_must_be_a_bool),
		cmocka_unit_test(unsupported_constructs_are_named),
		cmocka_unit_test(invalid_syntax_says_where),
		cmocka_unit_test(deep_and_huge_expressions_are_refused),
		cmocka_unit_test(work_is_bounded_by_the_cost_limit),
		cmocka_unit_test(a_program_is_reusable_across_devices),
	};

	return cmocka_run_group_tests_name("dra_cel", tests, build_devices, free_devices);
}
