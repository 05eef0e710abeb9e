/* prog.c - a program built against an installed dnnpar (tests/install/run.sh):
 * only <dnnpar.h>, compiled and linked with `pkg-config dnnpar`. */
#include <dnnpar.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_plan *p = NULL;
    dnp_error err = {0};
    if (dnp_model_load("resnet18", &g, &err) != DNP_OK ||
        dnp_cluster_parse("8xa100", &cl, &err) != DNP_OK) {
        fprintf(stderr, "prog: %s\n", err.msg);
        return 1;
    }
    dnp_plan_options opt;
    memset(&opt, 0, sizeof opt);
    opt.scheme = DNP_SCHEME_DP;
    opt.batch = 256;
    if (dnp_plan_run(g, &cl, &opt, &p, &err) != DNP_OK) {
        fprintf(stderr, "prog: %s\n", err.msg);
        dnp_graph_free(g);
        return 1;
    }
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    static const char *const names[] = {"resnet18", "resnet50"};
    printf("version %s, ops %d, step %s, suggest %s\n", DNP_VERSION, dnp_graph_n_ops(g),
           s.step_time_s > 0 ? "positive" : "not positive", dnp_suggest("resnt18", names, 2));
    dnp_plan_free(p);
    dnp_graph_free(g);
    return 0;
}
