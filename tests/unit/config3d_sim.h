/* config3d_sim.h - the unit tests' one way to simulate a Megatron-LM
 * configuration from text (test_config3d.c, test_config3d_overlap.c). */
#ifndef DNNPAR_TEST_CONFIG3D_SIM_H
#define DNNPAR_TEST_CONFIG3D_SIM_H

#include "dnnpar.h"

/* Simulate configuration cfg_text of model on cluster at batch with the
 * options opt (fp16 unless opt sets a precision; Adam, Megatron-LM's, in
 * place of the zero value momentum; its batch is batch);
 * the error into *e when e is not NULL.  Returns the status. */
static inline int c3_sim(const char *model, const char *cluster, int64_t batch,
                         const char *cfg_text, dnp_plan_options opt, dnp_config3d_result *res,
                         dnp_error *e)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_config3d cfg;
    dnp_error err = {0};
    int st = dnp_model_load(model, &g, &err);
    if (st == DNP_OK)
        st = dnp_cluster_parse(cluster, &cl, &err);
    if (st == DNP_OK)
        st = dnp_config3d_parse(cfg_text, &cfg, &err);
    if (st == DNP_OK) {
        opt.batch = batch;
        if (opt.precision == DNP_PREC_DEFAULT)
            opt.precision = DNP_PREC_FP16;
        if (opt.optimizer == DNP_OPTIM_MOMENTUM)
            opt.optimizer = DNP_OPTIM_ADAM;
        st = dnp_config3d_simulate(g, &cl, batch, &opt, &cfg, res, &err);
    }
    if (e != NULL)
        *e = err;
    dnp_graph_free(g);
    return st;
}

#endif
