/* SPDX-License-Identifier: Apache-2.0 */
/* extender/ uses the abort-on-OOM allocators of topology/alloc.c: one
 * implementation for both layers. */
#ifndef EXTENDER_XALLOC_H
#define EXTENDER_XALLOC_H

#include "topology/alloc.h"

#endif
