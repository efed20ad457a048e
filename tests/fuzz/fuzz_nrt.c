/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for nrt_decode_buffer: any bytes, JSON or YAML, must give
 * objects or an error message, never a crash, leak or hang. */
#include <stddef.h>
#include <stdint.h>

#include "extender/codec/nrt_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct errmsg msg = { { 0 } };
	struct nrt_object *objs = NULL;
	size_t nobjs = 0;

	if (nrt_decode_buffer((const char *)data, size, "fuzz", &objs, &nobjs,
			      &msg) != ERR_OK && msg.text[0] == '\0')
		__builtin_trap(); /* every error must say something */
	nrt_objects_free(objs, nobjs);
	return 0;
}
