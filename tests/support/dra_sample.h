/* SPDX-License-Identifier: Apache-2.0 */
/* A small DRA inventory for the fuzz targets that judge pods with claims:
 * nodes w1..w4 with two GPUs each (gpu-0 on NUMA 0, gpu-1 on NUMA 1;
 * w1's gpu-0 allocated to claim default/held), the class gpu (a CEL
 * selector on the driver and a string attribute), the claim default/gpu
 * and the template default/one-gpu. */
#ifndef TESTS_DRA_SAMPLE_H
#define TESTS_DRA_SAMPLE_H

#include "extender/inventory/dra_store.h"

/* A new store holding it, ready; aborts if it does not decode. */
struct dra_store *dra_sample_store(void);

#endif
