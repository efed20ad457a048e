/* SPDX-License-Identifier: Apache-2.0 */
/* The NUMA node of a DRA device (dra/numa.h): the standard
 * resource.kubernetes.io/numaNode (an int, or a list whose first element
 * is the device's own node), a driver's own attribute (NVIDIA's `numa`),
 * the PCIe root placed by the node's other devices, else unknown; and the
 * NUMA sets the allocator's prediction reports with its devices. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "dra/numa.h"
#include "tests/support/dra_fixture.h"

/* The NUMA set and source of the first device of a one-slice cluster;
 * the answer kept by dra_numa_cache (as the DRA store keeps it) must be
 * the same. */
static const char *numa_of(const char *driver, const char *attrs)
{
	static char out[256];
	char text[512], ids[128];
	struct dra_fixture f;
	struct dra_numa n, kept;
	enum dra_numa_source src;

	snprintf(text, sizeof text, "slice s driver=%s pool=p\n dev d0 %s\n", driver, attrs);
	df_load(&f, text);
	src = dra_device_numa(&f.slices[0].devices[0], NULL, &n);
	dra_numa_cache(&f.slices[0].devices[0]);
	assert_true(f.slices[0].devices[0].numa_cached);
	assert_int_equal(dra_device_numa(&f.slices[0].devices[0], NULL, &kept), src);
	assert_int_equal(kept.known, n.known);
	assert_true(kept.nodes == n.nodes);
	snprintf(out, sizeof out, "%s %s", dra_numa_source_name(src), dra_numa_text(&n, ids, sizeof ids));
	assert_true(n.known == (src != DRA_NUMA_UNKNOWN));
	df_free(&f);
	return out;
}

static void the_device_says_its_node(void **state)
{
	(void)state;
	assert_string_equal(numa_of("dra.cpu", "resource.kubernetes.io/numaNode=i:1"), "numaNode 1");
	/* The list form: its first element is the device's own node. */
	assert_string_equal(numa_of("dra.cpu", "resource.kubernetes.io/numaNode=is:1,0"),
			    "numaNode 1");
	/* NVIDIA's VFIO devices: an unqualified int `numa`. */
	assert_string_equal(numa_of("gpu.nvidia.com", "numa=i:1"), "driver 1");
	assert_string_equal(numa_of("gpu.x", "gpu.nvidia.com/numa=i:0"), "driver 0");
	/* The standard attribute comes first. */
	assert_string_equal(numa_of("gpu.nvidia.com", "numa=i:1 resource.kubernetes.io/numaNode=i:0"),
			    "numaNode 0");
	/* Another driver's `numa` is not a NUMA node; nor a string numaNode,
	 * a negative one (sysfs' -1) or one past 63. */
	assert_string_equal(numa_of("gpu.x", "numa=i:1"), "unknown unknown");
	assert_string_equal(numa_of("gpu.nvidia.com", "numa=s:1"), "unknown unknown");
	assert_string_equal(numa_of("d.io", "resource.kubernetes.io/numaNode=s:1"), "unknown unknown");
	assert_string_equal(numa_of("d.io", "resource.kubernetes.io/numaNode=i:-1"), "unknown unknown");
	assert_string_equal(numa_of("d.io", "resource.kubernetes.io/numaNode=i:64"), "unknown unknown");
	assert_string_equal(numa_of("d.io", "resource.kubernetes.io/numaNode=i:63"), "numaNode 63");
	/* A broken numaNode falls through to the driver's attribute. */
	assert_string_equal(numa_of("gpu.nvidia.com", "resource.kubernetes.io/numaNode=i:-1 numa=i:1"),
			    "driver 1");
	assert_string_equal(numa_of("d.io", "model=s:a"), "unknown unknown");
}

/* The allocator's devices with their NUMA sets, for one cluster. */
static const char *picks(const char *text)
{
	return df_run(text, true);
}

#define GPUS "class gpu\nsel device.driver == 'gpu.x'\nclaim c\nreq r class=gpu all\n"
#define ROOT "resource.kubernetes.io/pcieRoot="
#define NODE "resource.kubernetes.io/numaNode="

static void pcie_roots_place_devices(void **state)
{
	(void)state;
	/* dra-driver-cpu with --expose-pcie-roots: each NUMA node's CPUs list
	 * the roots there; a GPU behind one of them sits on that node. */
	assert_string_equal(picks(GPUS "slice cpu driver=dra.cpu pool=n1\n"
				  " dev cpus0 " NODE "i:0 " ROOT "ss:pci0000:00,pci0000:20\n"
				  " dev cpus1 " NODE "i:1 " ROOT "ss:pci0000:40\n"
				  "slice g driver=gpu.x pool=p\n"
				  " dev g0 " ROOT "s:pci0000:20\n dev g1 " ROOT "s:pci0000:40\n"
				  " dev g2 " ROOT "s:pci0000:80\n dev g3\n"),
			  "c: r=g0@0 r=g1@1 r=g2@? r=g3@?");
	/* A root listed on two nodes places its devices on both. */
	assert_string_equal(picks(GPUS "slice cpu driver=dra.cpu pool=n1\n"
				  " dev cpus0 " NODE "i:0 " ROOT "s:pci0000:00\n"
				  " dev cpus1 " NODE "i:1 " ROOT "s:pci0000:00\n"
				  "slice g driver=gpu.x pool=p\n dev g0 " ROOT "s:pci0000:00\n"),
			  "c: r=g0@0,1");
	/* A device's own NUMA node is not overridden by its root. */
	assert_string_equal(picks(GPUS "slice cpu driver=dra.cpu pool=n1\n"
				  " dev cpus0 " NODE "i:0 " ROOT "s:pci0000:00\n"
				  "slice g driver=gpu.x pool=p\n dev g0 " NODE "i:1 " ROOT "s:pci0000:00\n"),
			  "c: r=g0@1");
	/* Only this node's devices place roots: not another node's, nor a
	 * device published for all nodes, nor one without a NUMA node. */
	assert_string_equal(picks(GPUS "slice cpu2 driver=dra.cpu pool=n2 node=n2\n"
				  " dev cpus0 " NODE "i:0 " ROOT "s:pci0000:00\n"
				  "slice net driver=net.io pool=shared all\n"
				  " dev nic " NODE "i:1 " ROOT "s:pci0000:00\n"
				  "slice other driver=dra.cpu pool=n1\n dev cpus " ROOT "s:pci0000:00\n"
				  "slice g driver=gpu.x pool=p\n dev g0 " ROOT "s:pci0000:00\n"),
			  "c: r=g0@?");
	/* Per-device node selection: a device for this node by name counts. */
	assert_string_equal(picks(GPUS "slice cpu driver=dra.cpu pool=n1 perdevice\n"
				  " dev cpus0 node=n1 " NODE "i:1 " ROOT "s:pci0000:00\n"
				  "slice g driver=gpu.x pool=p\n dev g0 " ROOT "s:pci0000:00\n"),
			  "c: r=g0@1");
	/* The roots of an incomplete pool still tell where they sit. */
	assert_string_equal(picks("class gpu\nsel device.driver == 'gpu.x'\nclaim c\nreq r class=gpu\n"
				  "slice cpu driver=dra.cpu pool=n1 count=2\n"
				  " dev cpus0 " NODE "i:1 " ROOT "s:pci0000:00\n"
				  "slice g driver=gpu.x pool=p\n dev g0 " ROOT "s:pci0000:00\n"),
			  "c: r=g0@1");
}

static void numa_text(void **state)
{
	struct dra_numa n = { true, 0x5 };
	char buf[64];

	(void)state;
	assert_string_equal(dra_numa_text(&n, buf, sizeof buf), "0,2");
	n.nodes = (uint64_t)1 << 63;
	assert_string_equal(dra_numa_text(&n, buf, sizeof buf), "63");
	n.known = false;
	assert_string_equal(dra_numa_text(&n, buf, sizeof buf), "unknown");
	assert_string_equal(dra_numa_source_name(DRA_NUMA_PCIE_ROOT), "pcieRoot");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_device_says_its_node),
		cmocka_unit_test(pcie_roots_place_devices),
		cmocka_unit_test(numa_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
