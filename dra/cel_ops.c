/* SPDX-License-Identifier: Apache-2.0 */
/* The allocator's selectors evaluated by the CEL subset: what serve,
 * explain, simulate and replay pass to dra_alloc_predict (tests may pass an
 * evaluator of their own). */
#include "dra/alloc_selectors.h"
#include "dra/cel.h"

const struct dra_selector_ops dra_cel_ops = { dra_cel_compile, dra_cel_eval, dra_cel_free,
					      dra_cel_device_key };
