/* fuzz_accpar_text.c - fuzz target: the AccPar layer text format
 * (dnp_load_accpar_text_buffer), then totals and a small plan
 * (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    if (dnp_load_accpar_text_buffer((const char *)data, size, "fuzz.txt", &g, &err) != DNP_OK) {
        if (err.status == DNP_OK || err.msg[0] == '\0')
            fuzz_fail("an AccPar text file was refused without a message", NULL);
        return 0;
    }
    fuzz_use_graph(g, NULL);
    dnp_graph_free(g);
    return 0;
}
