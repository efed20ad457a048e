/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: an arbitrary NRT document and an arbitrary pod, both from
 * the input (split at the first NUL byte: NRT text, then pod text), through
 * decode, the judge, the score and explain's JSON report. The report must be
 * valid JSON with one entry per decoded object whenever explain succeeds. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/cmd/explain.h"
#include "extender/codec/nrt_decode.h"
#include "extender/codec/pod_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *nul = memchr(text, '\0', size);
	struct nrt_object *objs = NULL;
	struct pod_spec pod;
	struct errmsg msg;
	size_t n = 0, len = 0;
	char *out = NULL;
	enum err rc;
	FILE *f;

	if (nul == NULL)
		return 0;
	memset(&pod, 0, sizeof pod);
	if (nrt_decode_buffer(text, (size_t)(nul - text), "nrt", &objs, &n, &msg) != ERR_OK)
		return 0;
	if (pod_decode_buffer(nul + 1, size - (size_t)(nul - text) - 1, "pod", &pod, &msg) != ERR_OK)
		goto out;
	f = open_memstream(&out, &len);
	if (f == NULL)
		abort();
	rc = explain_write_scored(&pod, objs, n, EXPLAIN_JSON, NULL, f, &msg);
	fclose(f);
	if ((rc == ERR_OK || rc == ERR_INVALID) && len > 0) {
		struct json_object *o = json_tokener_parse(out);

		/* explain wrote a report: it is JSON, one entry per object. */
		if (o == NULL)
			abort();
		if (json_object_is_type(o, json_type_array) && json_object_array_length(o) != n)
			abort();
		json_object_put(o);
	}
	free(out);
	out = NULL;
	/* The text report walks the same verdicts through other formatting. */
	f = open_memstream(&out, &len);
	if (f == NULL)
		abort();
	explain_write(&pod, objs, n, EXPLAIN_TEXT, f, &msg);
	fclose(f);
	free(out);
out:
	pod_spec_cleanup(&pod);
	nrt_objects_free(objs, n);
	return 0;
}
