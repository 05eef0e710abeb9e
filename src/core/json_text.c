/* json_text.c - the library's reports as JSON text. */
#include "core/json_text.h"

dnp_status dnp_json_report_text(json_t *root, char **out, dnp_error *err)
{
    char *text =
        root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))
             : NULL;
    json_decref(root);
    if (text == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory writing JSON");
        return DNP_ERR_NOMEM;
    }
    *out = text;
    return DNP_OK;
}
