/* fuzz_cluster_json.c - fuzz target: the dnnpar cluster JSON reader
 * (dnp_cluster_read_json_buffer), its JSON and spec round trips, and a
 * small plan of LeNet on the cluster (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dnp_cluster c;
    dnp_error err = {0};
    if (dnp_cluster_read_json_buffer((const char *)data, size, "fuzz.json", &c, &err) != DNP_OK) {
        if (err.status == DNP_OK || err.msg[0] == '\0')
            fuzz_fail("a cluster JSON was refused without a message", NULL);
        return 0;
    }
    /* Writing then reading gives an identical cluster (dnnpar.h). */
    char *text = dnp_cluster_to_json(&c);
    if (text == NULL)
        fuzz_fail("dnp_cluster_to_json returned NULL", NULL);
    dnp_cluster d;
    dnp_error err2 = {0};
    if (dnp_cluster_read_json_buffer(text, strlen(text), "fuzz.json", &d, &err2) != DNP_OK)
        fuzz_fail("a loaded cluster's JSON does not read back", err2.msg);
    char *again = dnp_cluster_to_json(&d);
    if (again == NULL || strcmp(text, again) != 0)
        fuzz_fail("a loaded cluster's JSON does not round-trip byte-identically", text);
    dnp_free(again);
    dnp_free(text);
    dnp_graph *g = NULL;
    if (dnp_zoo_build("lenet", &g, &err2) != DNP_OK)
        fuzz_fail("the zoo model lenet does not build", err2.msg);
    fuzz_use_graph(g, &c);
    dnp_graph_free(g);
    return 0;
}
