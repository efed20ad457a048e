/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for pod_decode_buffer: any bytes, JSON or YAML, must give
 * a pod or an error message, never a crash, leak or hang. */
#include <stddef.h>
#include <stdint.h>

#include "extender/codec/pod_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct errmsg msg = { { 0 } };
	struct pod_spec pod;

	if (pod_decode_buffer((const char *)data, size, "fuzz", &pod, &msg) !=
	    ERR_OK && msg.text[0] == '\0')
		__builtin_trap(); /* every error must say something */
	pod_spec_cleanup(&pod);
	return 0;
}
