/* fuzz_model_json.c - fuzz target: the dnnpar model JSON reader
 * (dnp_model_read_json_buffer), its writer's round trip, totals and a
 * small plan (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    if (dnp_model_read_json_buffer((const char *)data, size, "fuzz.json", &g, &err) != DNP_OK) {
        if (err.status == DNP_OK || err.msg[0] == '\0')
            fuzz_fail("a model JSON was refused without a message", NULL);
        return 0;
    }
    /* Round trip (docs/formats.md): what loads writes back to text that
     * reads back and writes the same text again. */
    char *text = dnp_model_to_json(g);
    if (text == NULL)
        fuzz_fail("dnp_model_to_json returned NULL", NULL);
    dnp_graph *h = NULL;
    dnp_error err2 = {0};
    if (dnp_model_read_json_buffer(text, strlen(text), "fuzz.json", &h, &err2) != DNP_OK)
        fuzz_fail("a loaded model's JSON does not read back", err2.msg);
    char *again = dnp_model_to_json(h);
    if (again == NULL || strcmp(text, again) != 0)
        fuzz_fail("a loaded model's JSON does not round-trip byte-identically", NULL);
    dnp_free(again);
    dnp_free(text);
    dnp_graph_free(h);
    fuzz_use_graph(g, NULL);
    dnp_graph_free(g);
    return 0;
}
