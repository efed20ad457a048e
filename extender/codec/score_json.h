/* SPDX-License-Identifier: Apache-2.0 */
/* A score's parts as the decision log records them:
 * [{"resource":R,"weight":W,"score100":S},...]. The only place that spells
 * these keys. */
#ifndef EXTENDER_SCORE_JSON_H
#define EXTENDER_SCORE_JSON_H

#include "topology/score.h"

/* A new string (compact JSON); "[]" for none. */
char *score_parts_json(const struct score_breakdown *b);

#endif
