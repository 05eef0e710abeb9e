/* fuzz_onnx.c - fuzz target: the ONNX importer (dnp_load_onnx_buffer) on
 * protobuf bytes, with and without skip_unknown, then totals and a small
 * plan (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int skip = 0; skip < 2; skip++) {
        dnp_load_options opt = {skip};
        dnp_graph *g = NULL;
        dnp_error err = {0};
        if (dnp_load_onnx_buffer(data, size, "fuzz.onnx", &opt, &g, &err) != DNP_OK) {
            if (err.status == DNP_OK || err.msg[0] == '\0')
                fuzz_fail("an ONNX model was refused without a message", NULL);
            continue;
        }
        fuzz_use_graph(g, NULL);
        dnp_graph_free(g);
    }
    return 0;
}
