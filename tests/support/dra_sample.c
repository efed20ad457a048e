/* SPDX-License-Identifier: Apache-2.0 */
#include "tests/support/dra_sample.h"

#include <stdlib.h>
#include <string.h>

#include "extender/codec/dra_decode.h"

#define SLICE(node)                                                                             \
	"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":"   \
	"\"" node "-gpu\"},\"spec\":{\"driver\":\"gpu.example.com\",\"nodeName\":\"" node "\","        \
	"\"pool\":{\"name\":\"" node "\",\"generation\":1,\"resourceSliceCount\":1},\"devices\":["      \
	"{\"name\":\"gpu-0\",\"attributes\":{\"model\":{\"string\":\"a\"},"                            \
	"\"resource.kubernetes.io/numaNode\":{\"int\":0}}},"                                            \
	"{\"name\":\"gpu-1\",\"attributes\":{\"model\":{\"string\":\"a\"},"                            \
	"\"resource.kubernetes.io/numaNode\":{\"int\":1}}}]}},"

static const char sample[] =
	"{\"kind\":\"List\",\"items\":[" SLICE("w1") SLICE("w2") SLICE("w3") SLICE("w4")
	"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":"
	"\"gpu\"},\"spec\":{\"selectors\":[{\"cel\":{\"expression\":"
	"\"device.driver == 'gpu.example.com' && device.attributes['gpu.example.com'].model == 'a'\"}}]}},"
	"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":"
	"\"gpu\",\"namespace\":\"default\"},\"spec\":{\"devices\":{\"requests\":[{\"name\":\"g\","
	"\"exactly\":{\"deviceClassName\":\"gpu\"}}]}}},"
	"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":"
	"\"held\",\"namespace\":\"default\"},\"spec\":{\"devices\":{\"requests\":[{\"name\":\"g\","
	"\"exactly\":{\"deviceClassName\":\"gpu\"}}]}},\"status\":{\"allocation\":{\"devices\":"
	"{\"results\":[{\"request\":\"g\",\"driver\":\"gpu.example.com\",\"pool\":\"w1\","
	"\"device\":\"gpu-0\"}]}}}},"
	"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaimTemplate\",\"metadata\":"
	"{\"name\":\"one-gpu\",\"namespace\":\"default\"},\"spec\":{\"spec\":{\"devices\":"
	"{\"requests\":[{\"name\":\"g\",\"exactly\":{\"deviceClassName\":\"gpu\"}}]}}}}]}";

struct dra_store *dra_sample_store(void)
{
	struct dra_store *s = dra_store_new();
	struct dra_batch *b = dra_batch_new();
	struct dra_objects o;
	struct errmsg msg;

	memset(&o, 0, sizeof o);
	if (dra_objects_decode(sample, sizeof sample - 1, "dra_sample", &o, &msg) != ERR_OK || o.nbad)
		abort();
	dra_batch_put_objects(b, &o, "1", "dra_sample");
	dra_objects_cleanup(&o);
	dra_store_publish(s, b);
	dra_store_set_ready(s, true);
	return s;
}
