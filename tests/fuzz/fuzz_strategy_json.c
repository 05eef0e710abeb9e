/* fuzz_strategy_json.c - fuzz target: the strategy reader
 * (dnp_strategy_read_buffer), then the strategy evaluated for LeNet on 4
 * v100s (the cluster the seeds were planned for), as `dnnpar simulate`
 * does (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dnp_strategy *s = NULL;
    dnp_error err = {0};
    if (dnp_strategy_read_buffer((const char *)data, size, "fuzz.json", &s, &err) != DNP_OK) {
        if (err.status == DNP_OK || err.msg[0] == '\0')
            fuzz_fail("a strategy was refused without a message", NULL);
        return 0;
    }
    (void)dnp_strategy_model(s);
    (void)dnp_strategy_cluster(s);
    (void)dnp_strategy_option(s, "precision");
    dnp_graph *g = NULL;
    if (dnp_zoo_build("lenet", &g, &err) != DNP_OK)
        fuzz_fail("the zoo model lenet does not build", err.msg);
    dnp_cluster c;
    fuzz_small_cluster(&c);
    dnp_plan_options opt = {0};
    opt.scheme = DNP_SCHEME_ACCPAR;
    opt.batch = dnp_strategy_batch(s) > 0 ? dnp_strategy_batch(s) : 8;
    opt.keep_over_memory = 1;
    dnp_plan *p = NULL;
    dnp_error err2 = {0};
    if (dnp_graph_check_batch(g, opt.batch, &err2) == DNP_OK &&
        dnp_plan_run_strategy(g, &c, &opt, s, &p, &err2) == DNP_OK) {
        dnp_plan_summary sum;
        dnp_plan_get_summary(p, &sum);
        if (!(sum.step_time_s >= 0.0))
            fuzz_fail("a strategy's plan has a negative or NaN step time", NULL);
        dnp_plan_free(p);
    } else if (err2.status == DNP_ERR_INTERNAL) {
        fuzz_fail("evaluating a strategy hit an internal error", err2.msg);
    }
    dnp_graph_free(g);
    dnp_strategy_free(s);
    return 0;
}
