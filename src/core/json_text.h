/* json_text.h - the library's reports as JSON text (internal). */
#ifndef DNP_CORE_JSON_TEXT_H
#define DNP_CORE_JSON_TEXT_H

#include "dnnpar/core.h"

#include <jansson.h>

/* Dump `root` (stolen; NULL stands for a failed build) as the reports'
 * JSON text: 2-space indent, members in insertion order, reals with 10
 * significant digits.  On success *out owns the text (dnp_free).  Errors:
 * DNP_ERR_NOMEM "out of memory writing JSON".  O(size). */
dnp_status dnp_json_report_text(json_t *root, char **out, dnp_error *err);

#endif
