/*
 * test_arch_api.c - the public SynergyFlow and MPT APIs (dnnpar.h,
 * "SynergyFlow accelerator" and "MPT"), used as the CLI uses them: only
 * dnnpar.h.  Figures: the paper's worked example (SynergyFlow section
 * 4.2.3: AlexNet splits (54, 10)), Sec. III-C traffic of MPT worked by
 * hand, and the reports byte for byte against the golden CLI outputs
 * (tests/golden/), which the internal tests' figures produce.
 */
#include "test.h"

#include "dnnpar.h"

#include <stdlib.h>
#include <string.h>

/* The whole of a golden output file (dnp_free), or NULL. */
static char *read_golden(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "tests/golden/%s.out", name);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *s = dnp_malloc(cap);
    size_t n;
    while (s != NULL && (n = fread(s + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            char *t = dnp_realloc(s, cap * 2);
            if (t == NULL) {
                dnp_free(s);
                s = NULL;
                break;
            }
            s = t;
            cap *= 2;
        }
    }
    fclose(f);
    if (s != NULL)
        s[len] = '\0';
    return s;
}

/* Section 4.2.3's worked example and Table 6: AlexNet (R_ctf 5.68, K 5)
 * gets (N_c, N_f) = (54, 10) on the P395-AB; Fig. 9's design space puts
 * the best split next to it; the text is `dnnpar synergy ... --dse`'s. */
TEST(synergy_api_alexnet_split_and_dse)
{
    dnp_synergy_options o;
    dnp_synergy_options_default(&o);
    CHECK_EQ_INT(o.platform.cores, 64);
    CHECK_EQ_INT(o.platform.tn, 4);
    CHECK_NEAR(o.platform.bw_bps, 34.2 * DNP_SYNERGY_GIB_BYTES, 1e-15, 0);
    o.workload = "alexnet-2012:100";
    o.dse = 1;
    dnp_error err = {0};
    dnp_synergy_run *r = NULL;
    CHECK_EQ_INT(dnp_synergy_analyse(&o, &r, &err), DNP_OK);
    if (r == NULL)
        return;
    dnp_synergy_summary s;
    dnp_synergy_get_summary(r, &s);
    CHECK_EQ_INT(s.nc, 54);
    CHECK_EQ_INT(s.nf, 10);
    CHECK_NEAR(s.r_ctf, 5.68, 0.01, 0);
    CHECK_EQ_INT(s.k, 5);
    CHECK_EQ_INT(s.s, 1);
    CHECK_NEAR(s.conv_ops / s.fc_ops, s.r_ctf, 1e-12, 0); /* Eq. 10 */
    CHECK(s.dse_best_nc + s.dse_best_nf <= 64);
    CHECK_NEAR(s.dse_best_gops, 189.10, 0, 0.005);       /* golden synergy_dse_alexnet */
    CHECK_EQ_INT(s.n_sims, 0);
    char *text = NULL, *want = read_golden("synergy_dse_alexnet");
    CHECK_EQ_INT(dnp_synergy_text(r, &text, &err), DNP_OK);
    CHECK(want != NULL && text != NULL && strcmp(text, want) == 0);
    dnp_free(text);
    dnp_free(want);
    dnp_synergy_sim sim;
    CHECK_EQ_INT(dnp_synergy_sim_at(r, 0, &sim, &err), DNP_ERR_INPUT);
    dnp_synergy_run_free(r);
}

/* A simulation through the API: DBN-M (FC only, R_ctf 0) gets the whole
 * F-Engine (0, 11) and two instances take 200.723 us at 33.12 GOPS, the
 * figures `dnnpar synergy dbn-m:2 --simulate` prints (golden
 * synergy_trace); GOPS is ops / time / 1e9. */
TEST(synergy_api_simulation)
{
    dnp_synergy_options o;
    dnp_synergy_options_default(&o);
    o.workload = "dbn-m:2";
    o.simulate = 1;
    dnp_error err = {0};
    dnp_synergy_run *r = NULL;
    CHECK_EQ_INT(dnp_synergy_analyse(&o, &r, &err), DNP_OK);
    if (r == NULL)
        return;
    dnp_synergy_summary s;
    dnp_synergy_get_summary(r, &s);
    CHECK_NEAR(s.r_ctf, 0, 0, 0);
    CHECK_EQ_INT(s.nc, 0);
    CHECK_EQ_INT(s.nf, 11);
    CHECK_EQ_INT(s.n_sims, 1);
    dnp_synergy_sim sim;
    CHECK_EQ_INT(dnp_synergy_sim_at(r, 0, &sim, &err), DNP_OK);
    CHECK_EQ_INT(sim.arch, DNP_SYNERGY_SF);
    CHECK_STR(dnp_synergy_arch_name(sim.arch), "sf");
    CHECK_EQ_INT(sim.nc, 0);
    CHECK_EQ_INT(sim.nf, 11);
    CHECK_NEAR(sim.time_s, 200.723e-6, 0, 0.0005e-6);
    CHECK_NEAR(sim.gops, 33.12, 0, 0.005);
    CHECK_NEAR(sim.gops, sim.ops / sim.time_s / 1e9, 1e-12, 0);
    CHECK_EQ_INT(sim.instances, 2);
    CHECK_EQ_INT(sim.events, 546);
    char *json = NULL;
    CHECK_EQ_INT(dnp_synergy_json(r, &json, &err), DNP_OK);
    CHECK(json != NULL && strstr(json, "\"canonical\": \"dbn-m:2\"") != NULL);
    dnp_free(json);
    dnp_synergy_run_free(r);
}

/* The Table 6 mix batch1's report equals `dnnpar synergy batch1`'s. */
TEST(synergy_api_text_equals_cli)
{
    dnp_synergy_options o;
    dnp_synergy_options_default(&o);
    o.workload = "batch1";
    dnp_error err = {0};
    dnp_synergy_run *r = NULL;
    CHECK_EQ_INT(dnp_synergy_analyse(&o, &r, &err), DNP_OK);
    if (r == NULL)
        return;
    dnp_synergy_summary s;
    dnp_synergy_get_summary(r, &s);
    CHECK_EQ_INT(s.nc, 58);
    CHECK_EQ_INT(s.nf, 6);
    char *text = NULL, *want = read_golden("synergy_batch1");
    CHECK_EQ_INT(dnp_synergy_text(r, &text, &err), DNP_OK);
    CHECK(want != NULL && text != NULL && strcmp(text, want) == 0);
    dnp_free(text);
    dnp_free(want);
    dnp_synergy_run_free(r);
}

/* Bad input: a named error, nothing returned. */
TEST(synergy_api_errors)
{
    dnp_synergy_options o;
    dnp_synergy_options_default(&o);
    dnp_error err = {0};
    dnp_synergy_run *r = NULL;
    CHECK_EQ_INT(dnp_synergy_analyse(&o, &r, &err), DNP_ERR_INPUT); /* no workload */
    CHECK(r == NULL);
    o.workload = "resnet1000:4";
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_synergy_analyse(&o, &r, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "unknown model 'resnet1000'") != NULL);
    o.workload = "vgg11";
    o.platform.tnn = 130;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_synergy_platform_check(&o.platform, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, "tile Tnn (130) must be a multiple of Tn (4)");
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_synergy_analyse(&o, &r, &err), DNP_ERR_INPUT);
    o.platform.tnn = 128;
    o.have_split = 1;
    o.nc = 60;
    o.nf = 10;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_synergy_analyse(&o, &r, &err), DNP_ERR_INPUT);
    o.nc = 0; /* VGG11 has CONV layers: the simulation refuses N_c = 0 */
    o.simulate = 1;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_synergy_analyse(&o, &r, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, "simulating split: the workload has CONV layers but N_c = 0");
    CHECK(r == NULL);
    CHECK_EQ_INT(dnp_synergy_arch_from_name("ATA2"), DNP_SYNERGY_ATA2);
    CHECK_EQ_INT(dnp_synergy_arch_from_name("split"), -1);
}

/* Sec. III-C by hand for Table II's Late-2 (640 -> 640 channels, 3x3,
 * FP32) on 256 workers: data parallelism all-reduces |w| = 640 x 640 x 9
 * x 4 B, each worker sending 2 |w| (p - 1) / p; MPT on 16 x 16 with 4 x 4
 * tiles all-reduces |W| / Ng of |W| = 640 x 640 x 16 x 4 B over Nc:
 * 2 |W| / Ng (Nc - 1) / Nc.  The text equals `dnnpar mpt late-2`'s. */
TEST(mpt_api_late2)
{
    dnp_mpt_options o;
    dnp_mpt_options_default(&o);
    CHECK_EQ_INT(o.workers, 256);
    CHECK_EQ_INT(o.batch, 256);
    o.target = "late-2";
    dnp_error err = {0};
    dnp_mpt_run *r = NULL;
    CHECK_EQ_INT(dnp_mpt_evaluate(&o, &r, &err), DNP_OK);
    if (r == NULL)
        return;
    dnp_mpt_config_result d, w, m;
    CHECK_EQ_INT(dnp_mpt_config_at(r, 1, &w, &err), DNP_OK);
    CHECK_EQ_INT(dnp_mpt_config_at(r, 2, &m, &err), DNP_OK);
    CHECK_STR(w.config, "w_dp");
    CHECK_STR(m.config, "w_mp");
    double w_bytes = 640.0 * 640 * 9 * 4, W_bytes = 640.0 * 640 * 16 * 4;
    CHECK_NEAR(w.weight_bytes, 2 * w_bytes * 255 / 256, 1e-12, 0);
    CHECK_NEAR(m.weight_bytes, 2 * W_bytes / 16 * 15 / 16, 1e-12, 0);
    CHECK_NEAR(w.tile_bytes, 0, 0, 0);
    CHECK_NEAR(w.speedup_over_w_dp, 1.0, 1e-15, 0);
    CHECK_NEAR(m.speedup_over_w_dp, w.total_s / m.total_s, 1e-12, 0);
    CHECK_NEAR(m.total_s, m.forward_s + m.backward_s, 1e-12, 0);
    CHECK_NEAR(m.speedup_over_w_dp, 3.13, 0, 0.005); /* golden mpt_late2 */
    CHECK_EQ_INT(dnp_mpt_config_at(r, DNP_MPT_CONFIG_COUNT, &d, &err), DNP_ERR_INPUT);
    char *text = NULL, *want = read_golden("mpt_late2");
    CHECK_EQ_INT(dnp_mpt_text(r, &text, &err), DNP_OK);
    CHECK(want != NULL && text != NULL && strcmp(text, want) == 0);
    dnp_free(text);
    dnp_free(want);
    char *json = NULL;
    CHECK_EQ_INT(dnp_mpt_json(r, &json, &err), DNP_OK);
    CHECK(json != NULL && strstr(json, "\"kind\": \"layer\"") != NULL);
    dnp_free(json);
    dnp_mpt_run_free(r);
}

/* Bad input names the option or the layer, as the CLI prints it. */
TEST(mpt_api_errors)
{
    dnp_mpt_options o;
    dnp_mpt_options_default(&o);
    o.target = "mid-1";
    o.configs[o.n_configs++] = "3x5";
    dnp_error err = {0};
    dnp_mpt_run *r = NULL;
    CHECK_EQ_INT(dnp_mpt_evaluate(&o, &r, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, "--config '3x5': 3 x 5 = 15 workers, but there are 256 (--workers)");
    CHECK(r == NULL);
    o.n_configs = 0;
    o.target = "late-3";
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_mpt_evaluate(&o, &r, &err), DNP_ERR_INPUT);
    CHECK(strncmp(err.msg, "unknown layer or model 'late-3'", 31) == 0);
    o.target = "late-2";
    o.hw_name[0] = "array";
    o.hw_value[0] = "128x64";
    o.n_hw = 1;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_mpt_evaluate(&o, &r, &err), DNP_ERR_INPUT);
    CHECK(strncmp(err.msg, "--array '128x64'", 16) == 0);
    o.n_hw = 0;
    o.prediction_shares = "measured";
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_mpt_evaluate(&o, &r, &err), DNP_ERR_INPUT);
    CHECK(r == NULL);
}
