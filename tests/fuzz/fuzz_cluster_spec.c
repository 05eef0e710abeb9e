/* fuzz_cluster_spec.c - fuzz target: the cluster spec parser
 * (dnp_cluster_parse), the canonical form's round trip, and a small plan
 * of LeNet on the cluster (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0; /* specs are command-line arguments */
    char *spec = fuzz_cstr(data, size);
    if (spec == NULL)
        return 0;
    dnp_cluster c;
    dnp_error err = {0};
    if (dnp_cluster_parse(spec, &c, &err) != DNP_OK) {
        if (err.status == DNP_OK || err.msg[0] == '\0')
            fuzz_fail("a cluster spec was refused without a message", NULL);
        dnp_free(spec);
        return 0;
    }
    /* The canonical form parses back to the same cluster, every field
     * (dnnpar.h, dnp_cluster_format). */
    char canon[4096], again[4096];
    dnp_cluster_format(&c, canon, sizeof canon);
    dnp_cluster d;
    dnp_error err2 = {0};
    if (dnp_cluster_parse(canon, &d, &err2) != DNP_OK)
        fuzz_fail("a cluster's canonical spec does not parse", canon);
    dnp_cluster_format(&d, again, sizeof again);
    if (strcmp(canon, again) != 0 || dnp_cluster_devices(&c) != dnp_cluster_devices(&d))
        fuzz_fail("a cluster's canonical spec does not round-trip", canon);
    dnp_graph *g = NULL;
    if (dnp_zoo_build("lenet", &g, &err2) != DNP_OK)
        fuzz_fail("the zoo model lenet does not build", err2.msg);
    fuzz_use_graph(g, &c);
    dnp_graph_free(g);
    dnp_free(spec);
    return 0;
}
