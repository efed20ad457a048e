/* SPDX-License-Identifier: Apache-2.0 */
/* The way the scheduler-model decoders read a text of Kubernetes objects —
 * one object, a list (kind <Kind>List or kubectl's kind List, the objects in
 * "items") or a YAML stream of either, as `kubectl get nodes -o yaml` and
 * `kubectl get pods -A -o yaml` print them — into one array.
 *
 * In a text of several objects (more than one document, or any list) each
 * object stands or falls alone: one that does not decode becomes a
 * placeholder holding its message (the element's `invalid`), which names
 * the document or items[i] and the object ("f.yaml (document 2, node w2):
 * status.allocatable.cpu: ..."). A text of one object fails as a whole, as
 * does one that does not parse. Empty documents are skipped. */
#ifndef EXTENDER_SCHED_OBJECTS_H
#define EXTENDER_SCHED_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>

#include "extender/codec/decode_walk.h"

struct sched_objects_spec {
	const char *kind;      /* "Node" */
	const char *list_kind; /* "NodeList" */
	const char *noun;      /* "node", in item origins */
	bool namespaced;       /* name items "namespace/name" */
	size_t size;           /* bytes per element */
	/* Decodes d into elem (zeroed); in_list: an item of a list, whose kind
	 * may be left out. On error it leaves elem for cleanup. */
	enum err (*decode)(struct decode_ctx *c, const struct doc *d, bool in_list,
			   void *elem);
	void (*cleanup)(void *elem);
	/* Turns a cleaned, zeroed elem into a placeholder: the item's name
	 * (may be NULL) and its message (both copied). */
	void (*placeholder)(void *elem, const char *name, const char *ns,
			    const char *message);
};

/* Decodes buf[0..len) into *items (an array of *n elements; NULL when 0).
 * On error *items is NULL and *n 0. */
enum err sched_objects_decode(const char *buf, size_t len, const char *origin,
			      const struct sched_objects_spec *spec, void **items,
			      size_t *n, struct errmsg *msg);

/* The same for a regular file (up to FILE_READ_DOC_MAX_BYTES), the path as
 * origin; adds ERR_IO and ERR_TOO_LARGE. */
enum err sched_objects_load(const char *path, const struct sched_objects_spec *spec,
			    void **items, size_t *n, struct errmsg *msg);

#endif
