/* test_cluster.c - device presets, cluster spec parsing and formatting. */
#include "test.h"

#include "dnnpar.h"

#include <stdlib.h>
#include <unistd.h>

/* 1 if two doubles have the same bits. */
static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* 1 if two device types are identical in every field. */
static int type_equal(const dnp_device_type *x, const dnp_device_type *y)
{
    return strcmp(x->name, y->name) == 0 && strcmp(x->dtype, y->dtype) == 0 &&
           x->bytes_per_elem == y->bytes_per_elem && same_bits(x->peak_flops, y->peak_flops) &&
           same_bits(x->mem_bytes, y->mem_bytes) && same_bits(x->mem_bw_bps, y->mem_bw_bps) &&
           same_bits(x->net_bw_bps, y->net_bw_bps) &&
           same_bits(x->peak_fp32_flops, y->peak_fp32_flops) &&
           same_bits(x->peak_tf32_flops, y->peak_tf32_flops) &&
           same_bits(x->peak_fp16_flops, y->peak_fp16_flops) &&
           same_bits(x->peak_bf16_flops, y->peak_bf16_flops) &&
           same_bits(x->compute_eff, y->compute_eff) && same_bits(x->mem_eff, y->mem_eff) &&
           same_bits(x->kernel_overhead_s, y->kernel_overhead_s) &&
           strcmp(x->node, y->node) == 0 && x->devices_per_node == y->devices_per_node &&
           x->intra_topo == y->intra_topo && same_bits(x->intra_bw_bps, y->intra_bw_bps) &&
           same_bits(x->intra_lat_s, y->intra_lat_s) &&
           same_bits(x->inter_bw_bps, y->inter_bw_bps) && same_bits(x->inter_lat_s, y->inter_lat_s) &&
           same_bits(x->speed_cv, y->speed_cv) && x->sm_count == y->sm_count &&
           same_bits(x->l2_bw_bps, y->l2_bw_bps) && same_bits(x->host_kernel_s, y->host_kernel_s);
}

/* 1 if two clusters are identical: same types (every field) in the same
 * order with the same counts. */
static int cluster_equal(const dnp_cluster *a, const dnp_cluster *b)
{
    if (a->n_types != b->n_types)
        return 0;
    for (int i = 0; i < a->n_types; i++)
        if (a->counts[i] != b->counts[i] || !type_equal(&a->types[i], &b->types[i]))
            return 0;
    return 1;
}

/* Parse `spec` (must succeed), format it, parse the text again and check
 * the two clusters are identical; the formatted text goes to out[n]. */
static void check_round_trip(const char *spec, dnp_cluster *c, char *out, size_t n)
{
    dnp_error err = {0};
    dnp_status st = dnp_cluster_parse(spec, c, &err);
    if (st != DNP_OK) {
        printf("  spec '%s': %s\n", spec, err.msg);
        CHECK_EQ_INT(st, DNP_OK);
        out[0] = '\0';
        return;
    }
    dnp_cluster_format(c, out, n);
    dnp_cluster back;
    dnp_error err2 = {0};
    st = dnp_cluster_parse(out, &back, &err2);
    if (st != DNP_OK)
        printf("  formatted '%s': %s\n", out, err2.msg);
    CHECK_EQ_INT(st, DNP_OK);
    if (st == DNP_OK && !cluster_equal(c, &back)) {
        printf("  round trip of '%s' via '%s' changed the cluster\n", spec, out);
        CHECK(0);
    }
}

static const dnp_device_type *preset_named(const char *name)
{
    for (int i = 0; i < dnp_device_preset_count(); i++)
        if (strcmp(dnp_device_preset_at(i)->name, name) == 0)
            return dnp_device_preset_at(i);
    return NULL;
}

static void check_device(const dnp_device_type *d, const char *name, double flops, double mem,
                         double membw, double net, int bpe, const char *dtype)
{
    CHECK(d != NULL);
    if (d == NULL)
        return;
    CHECK_STR(d->name, name);
    CHECK(d->peak_flops == flops);
    CHECK(d->mem_bytes == mem);
    CHECK(d->mem_bw_bps == membw);
    CHECK(d->net_bw_bps == net);
    CHECK_EQ_INT(d->bytes_per_elem, bpe);
    CHECK_STR(d->dtype, dtype);
}

/* Per-precision peaks (fp32, tf32, fp16, bf16) and the bare link tier. */
static void check_peaks(const dnp_device_type *d, double fp32, double tf32, double fp16,
                        double bf16, double lat_s)
{
    CHECK(d != NULL);
    if (d == NULL)
        return;
    CHECK(d->peak_fp32_flops == fp32);
    CHECK(d->peak_tf32_flops == tf32);
    CHECK(d->peak_fp16_flops == fp16);
    CHECK(d->peak_bf16_flops == bf16);
    /* Presets leave the efficiencies to the device model. */
    CHECK(d->compute_eff == 0 && d->mem_eff == 0 && d->kernel_overhead_s == 0);
    /* Bare device: one per node, inter tier at the network bandwidth (per
     * direction: half a GPU's NVLink total, docs/cluster.md). */
    CHECK_STR(d->node, "");
    CHECK_EQ_INT(d->devices_per_node, 1);
    CHECK_EQ_INT(d->intra_topo, DNP_TOPO_NONE);
    CHECK(d->intra_bw_bps == 0 && d->intra_lat_s == 0);
    /* NVLink / Infinity Fabric totals (>= 300 GB/s) are halved; PCIe x16 and
     * the TPU network figures are already per direction. */
    int nvlink = d->net_bw_bps >= 300e9;
    CHECK(d->inter_bw_bps == (nvlink ? d->net_bw_bps / 2 : d->net_bw_bps));
    CHECK_NEAR(d->inter_lat_s, lat_s, 1e-15, 0);
}

/* The kernel model's figures: SMs / CUs and L2 bandwidth (presets leave
 * the host time to the model). */
static void check_kernel(const dnp_device_type *d, int sms, double l2_bps)
{
    CHECK(d != NULL);
    if (d == NULL)
        return;
    CHECK_EQ_INT(d->sm_count, sms);
    CHECK(d->l2_bw_bps == l2_bps);
    CHECK(d->host_kernel_s == 0);
}

TEST(cluster_presets)
{
    CHECK_EQ_INT(dnp_device_preset_count(), 18);
    dnp_device_type a100;
    dnp_error e0 = {0};
    CHECK(dnp_device_preset("a100", &a100, &e0) == DNP_OK);
    CHECK(a100.inter_bw_bps == 300e9); /* NVLink 600 GB/s total = 300 per direction */
    /* AccPar Table 7 / section 6.1: unchanged legacy figures. */
    check_device(preset_named("tpu-v2"), "tpu-v2", 180e12, 64e9, 2400e9, 1e9, 2, "bfloat16");
    check_device(preset_named("tpu-v3"), "tpu-v3", 420e12, 128e9, 4800e9, 2e9, 2, "bfloat16");
    check_peaks(preset_named("tpu-v2"), 0, 0, 0, 180e12, 14e-6);
    check_peaks(preset_named("tpu-v3"), 0, 0, 0, 420e12, 14e-6);
    /* Google Cloud TPU v3: 123 TFLOP/s bf16, 32 GiB, 900 GBps; DCN 2.5e10 B/s per 4-chip host. */
    check_device(preset_named("tpu-v3-chip"), "tpu-v3-chip", 123e12, 34359738368.0, 900e9,
                 6.25e9, 2, "bfloat16");
    check_peaks(preset_named("tpu-v3-chip"), 0, 0, 0, 123e12, 14e-6);
    /* V100 SXM2 16 GB datasheet: 15.7 fp32, 125 tensor, 900 GB/s; NVLink 300 GB/s total. */
    check_device(preset_named("v100"), "v100", 125e12, 16e9, 900e9, 300e9, 2, "fp16");
    check_peaks(preset_named("v100"), 15.7e12, 0, 125e12, 0, 3.4e-6);
    /* DGX-2H: 2.1 PFLOP/s / 16 GPUs. */
    check_device(preset_named("v100-sxm3-32g"), "v100-sxm3-32g", 131.25e12, 32e9, 900e9, 300e9,
                 2, "fp16");
    check_peaks(preset_named("v100-sxm3-32g"), 15.7e12, 0, 131.25e12, 0, 3.4e-6);
    /* A100 datasheet: 19.5 / 156 / 312 / 312; 40 GB 1555 GB/s, 80 GB 2039 GB/s. */
    check_device(preset_named("a100"), "a100", 312e12, 40e9, 1555e9, 600e9, 2, "bfloat16");
    check_peaks(preset_named("a100"), 19.5e12, 156e12, 312e12, 312e12, 3.4e-6);
    check_device(preset_named("a100-80g"), "a100-80g", 312e12, 80e9, 2039e9, 600e9, 2,
                 "bfloat16");
    check_peaks(preset_named("a100-80g"), 19.5e12, 156e12, 312e12, 312e12, 3.4e-6);
    /* H100 SXM5 dense (whitepaper), 80 GB HBM3 3.35 TB/s, NVLink 900 GB/s. */
    check_device(preset_named("h100"), "h100", 989.4e12, 80e9, 3350e9, 900e9, 2, "bfloat16");
    check_peaks(preset_named("h100"), 66.9e12, 494.7e12, 989.4e12, 989.4e12, 3.4e-6);
    check_device(preset_named("1080ti"), "1080ti", 11.34e12, 11e9, 484e9, 15.75e9, 4, "fp32");
    check_peaks(preset_named("1080ti"), 11.34e12, 0, 0, 0, 5.7e-6);
    /* SMs: V100 / A100 / H100 whitepapers 80 / 108 / 132; GTX 1080 Ti 3584 cores / 128.
     * L2: A100 whitepaper 2048 B/clk x 1530 MHz (V100), 5120 B/clk x 1410 MHz (A100);
     * Hopper and TPUs: unpublished. */
    check_kernel(preset_named("tpu-v2"), 0, 0);
    check_kernel(preset_named("tpu-v3"), 0, 0);
    check_kernel(preset_named("tpu-v3-chip"), 0, 0);
    check_kernel(preset_named("v100"), 80, 3133.44e9);
    check_kernel(preset_named("v100-sxm3-32g"), 80, 3133.44e9);
    check_kernel(preset_named("a100"), 108, 7219.2e9);
    check_kernel(preset_named("a100-80g"), 108, 7219.2e9);
    check_kernel(preset_named("h100"), 132, 0);
    check_kernel(preset_named("1080ti"), 28, 0);
    /* T4 datasheet: 8.1 fp32, 65 fp16 tensor, 16 GB, 320 GB/s, PCIe 3.0 x16; 40 SMs. */
    check_device(preset_named("t4"), "t4", 65e12, 16e9, 320e9, 15.75e9, 2, "fp16");
    check_peaks(preset_named("t4"), 8.1e12, 0, 65e12, 0, 5.7e-6);
    check_kernel(preset_named("t4"), 40, 0);
    /* Turing whitepaper, RTX 2080 Ti reference: 13.4 fp32, 53.8 fp16 (fp32 acc.), 11 GB, 616. */
    check_device(preset_named("rtx2080ti"), "rtx2080ti", 53.8e12, 11e9, 616e9, 15.75e9, 2, "fp16");
    check_peaks(preset_named("rtx2080ti"), 13.4e12, 0, 53.8e12, 0, 5.7e-6);
    check_kernel(preset_named("rtx2080ti"), 68, 0);
    /* TITAN RTX: 130 tensor, 16.3 fp32, 24 GB, 672 GB/s, 72 SMs. */
    check_device(preset_named("titan-rtx"), "titan-rtx", 130e12, 24e9, 672e9, 15.75e9, 2, "fp16");
    check_peaks(preset_named("titan-rtx"), 16.3e12, 0, 130e12, 0, 5.7e-6);
    check_kernel(preset_named("titan-rtx"), 72, 0);
    /* GA102 whitepaper, RTX 3090: 35.6 fp32 / tf32, 71 fp16 / bf16, 24 GB, 936 GB/s, PCIe 4.0. */
    check_device(preset_named("rtx3090"), "rtx3090", 71e12, 24e9, 936e9, 31.5e9, 2, "bfloat16");
    check_peaks(preset_named("rtx3090"), 35.6e12, 35.6e12, 71e12, 71e12, 5.7e-6);
    check_kernel(preset_named("rtx3090"), 82, 0);
    /* L4 datasheet: 30.3 fp32, 120 / 242 sparse -> 60 / 121 dense, 24 GB, 300 GB/s. */
    check_device(preset_named("l4"), "l4", 121e12, 24e9, 300e9, 31.5e9, 2, "bfloat16");
    check_peaks(preset_named("l4"), 30.3e12, 60e12, 121e12, 121e12, 5.7e-6);
    check_kernel(preset_named("l4"), 58, 0);
    /* L40S datasheet: 91.6 fp32, 183 tf32, 362.05 fp16 / bf16 dense, 48 GB, 864 GB/s. */
    check_device(preset_named("l40s"), "l40s", 362.05e12, 48e9, 864e9, 31.5e9, 2, "bfloat16");
    check_peaks(preset_named("l40s"), 91.6e12, 183e12, 362.05e12, 362.05e12, 5.7e-6);
    check_kernel(preset_named("l40s"), 142, 0);
    /* H200 SXM 141 GB: 67 fp32, 989 / 1979 sparse -> 494.5 / 989.5, 4.8 TB/s, NVLink 900. */
    check_device(preset_named("h200"), "h200", 989.5e12, 141e9, 4800e9, 900e9, 2, "bfloat16");
    check_peaks(preset_named("h200"), 67e12, 494.5e12, 989.5e12, 989.5e12, 3.4e-6);
    check_kernel(preset_named("h200"), 132, 0);
    /* GH200 96 GB: 67 fp32, 494 tf32, 990 fp16 / bf16, 4 TB/s, NVLink 900. */
    check_device(preset_named("gh200"), "gh200", 990e12, 96e9, 4000e9, 900e9, 2, "bfloat16");
    check_peaks(preset_named("gh200"), 67e12, 494e12, 990e12, 990e12, 3.4e-6);
    check_kernel(preset_named("gh200"), 132, 0);
    /* MI250X: 220 CUs, 95.7 fp32 matrix, 383 fp16 / bf16, 128 GB, 3.2 TB/s, IF 800 GB/s. */
    check_device(preset_named("mi250x"), "mi250x", 383e12, 128e9, 3200e9, 800e9, 2, "bfloat16");
    check_peaks(preset_named("mi250x"), 95.7e12, 0, 383e12, 383e12, 3.4e-6);
    check_kernel(preset_named("mi250x"), 220, 0);
    for (int i = 0; i < dnp_device_preset_count(); i++) {
        const dnp_device_type *d = dnp_device_preset_at(i);
        /* every GPU preset carries the measured spread; TPUs none */
        CHECK(d->speed_cv == (strncmp(d->name, "tpu", 3) == 0 ? 0 : 0.08 / (2.0 * 2.698)));
    }
    for (int i = 0; i < dnp_device_preset_count(); i++) {
        const char *src = dnp_device_preset_source(i);
        CHECK(src != NULL && strlen(src) > 10 && strchr(src, '\n') == NULL);
    }
    CHECK(strstr(dnp_device_preset_source(0), "Table 7") != NULL);
    CHECK(strstr(dnp_device_preset_source(0), "6.1") != NULL);
    CHECK(strstr(dnp_device_preset_source(1), "Table 7") != NULL);
    CHECK(dnp_device_preset_at(-1) == NULL);
    CHECK(dnp_device_preset_at(dnp_device_preset_count()) == NULL);
    CHECK(dnp_device_preset_source(99) == NULL);
}

static const dnp_device_type *node_named(const char *name)
{
    for (int i = 0; i < dnp_node_preset_count(); i++)
        if (strcmp(dnp_node_preset_at(i)->node, name) == 0)
            return dnp_node_preset_at(i);
    return NULL;
}

static void check_node(const char *node, const char *device, int per_node, dnp_link_topo topo,
                       double intra_bps, double intra_lat_s, double inter_bps, double inter_lat_s)
{
    const dnp_device_type *n = node_named(node);
    CHECK(n != NULL);
    if (n == NULL)
        return;
    CHECK_STR(n->name, device);
    CHECK_EQ_INT(n->devices_per_node, per_node);
    CHECK_EQ_INT(n->intra_topo, topo);
    CHECK(n->intra_bw_bps == intra_bps);
    CHECK_NEAR(n->intra_lat_s, intra_lat_s, 1e-15, 0);
    CHECK(n->inter_bw_bps == inter_bps);
    CHECK_NEAR(n->inter_lat_s, inter_lat_s, 1e-15, 0);
    /* The device figures are the device preset's. */
    const dnp_device_type *d = preset_named(device);
    CHECK(d != NULL);
    if (d != NULL) {
        CHECK(n->peak_flops == d->peak_flops && n->mem_bytes == d->mem_bytes);
        CHECK(n->mem_bw_bps == d->mem_bw_bps && n->net_bw_bps == d->net_bw_bps);
        CHECK(n->peak_fp32_flops == d->peak_fp32_flops);
        CHECK(n->peak_bf16_flops == d->peak_bf16_flops);
        CHECK_STR(n->dtype, d->dtype);
    }
}

TEST(cluster_node_presets)
{
    CHECK_EQ_INT(dnp_node_preset_count(), 22);
    /* DGX-1: NVLink 2 6 x 25 GB/s per direction, 4 x 100 Gb/s EDR over 8 GPUs. */
    check_node("dgx1", "v100", 8, DNP_TOPO_RING, 150e9, 3.4e-6, 4 * 12.5e9 / 8, 14e-6);
    /* DGX-2H: NVSwitch, 8 x 100 Gb/s over 16 GPUs. */
    check_node("dgx2h", "v100-sxm3-32g", 16, DNP_TOPO_SWITCH, 150e9, 3.4e-6, 8 * 12.5e9 / 16,
               14e-6);
    /* DGX A100: 300 GB/s per direction, 8 x 200 Gb/s HDR. */
    check_node("dgx-a100", "a100", 8, DNP_TOPO_SWITCH, 300e9, 3.4e-6, 25e9, 14e-6);
    check_node("dgx-a100-80g", "a100-80g", 8, DNP_TOPO_SWITCH, 300e9, 3.4e-6, 25e9, 14e-6);
    /* DGX H100: 450 GB/s per direction, 8 x 400 Gb/s NDR. */
    check_node("dgx-h100", "h100", 8, DNP_TOPO_SWITCH, 450e9, 3.4e-6, 50e9, 14e-6);
    /* DGX H200: as DGX H100 with H200 141 GB. */
    check_node("dgx-h200", "h200", 8, DNP_TOPO_SWITCH, 450e9, 3.4e-6, 50e9, 14e-6);
    /* AWS p3.8xlarge: 4 V100, one DGX-1 quad (4 NVLinks x 25 GB/s), 10 Gb/s / 4 GPUs. */
    check_node("p3.8xlarge", "v100", 4, DNP_TOPO_RING, 100e9, 3.4e-6, 10 * 1.25e8 / 4, 14e-6);
    /* AWS g4dn.12xlarge: 4 T4 on PCIe 3.0 x16, 50 Gb/s / 4 GPUs, PCI latency. */
    check_node("g4dn.12xlarge", "t4", 4, DNP_TOPO_SWITCH, 15.75e9, 5.7e-6, 50 * 1.25e8 / 4,
               14e-6);
    /* CSCS Alps GH200 node: 4 GH200, NVLink 450 GB/s per direction, 200 Gb/s per GPU. */
    check_node("alps-gh200", "gh200", 4, DNP_TOPO_SWITCH, 450e9, 3.4e-6, 25e9, 14e-6);
    /* Cloud instances: the instance's network over its 8 GPUs. AWS p4d / p4de: 400 Gb/s EFA
     * = 50 Gb/s per GPU; p5 / p5e: 3200 Gb/s = 400 Gb/s per GPU; GCP a2-highgpu-8g: 100 Gb/s
     * = 12.5 Gb/s per GPU (docs/cluster.md, "Node presets"). */
    check_node("p4d.24xlarge", "a100", 8, DNP_TOPO_SWITCH, 300e9, 3.4e-6, 400 * 1.25e8 / 8, 14e-6);
    check_node("p4de.24xlarge", "a100-80g", 8, DNP_TOPO_SWITCH, 300e9, 3.4e-6, 400 * 1.25e8 / 8,
               14e-6);
    check_node("p5.48xlarge", "h100", 8, DNP_TOPO_SWITCH, 450e9, 3.4e-6, 3200 * 1.25e8 / 8, 14e-6);
    check_node("p5e.48xlarge", "h200", 8, DNP_TOPO_SWITCH, 450e9, 3.4e-6, 3200 * 1.25e8 / 8,
               14e-6);
    check_node("a2-highgpu-8g", "a100", 8, DNP_TOPO_SWITCH, 300e9, 3.4e-6, 100 * 1.25e8 / 8, 14e-6);
    check_kernel(node_named("alps-gh200"), 132, 0);
    check_kernel(node_named("g4dn.12xlarge"), 40, 0);
    /* TPU v3 slices named by TensorCores: chips = cores / 2, ICI 4 x 1e11 B/s. */
    static const int cores[] = {8, 32, 64, 128, 256, 512, 1024, 2048};
    for (size_t i = 0; i < sizeof cores / sizeof cores[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "tpu-v3-%d", cores[i]);
        check_node(name, "tpu-v3-chip", cores[i] / 2, DNP_TOPO_TORUS2D, 4e11, 3.4e-6, 6.25e9,
                   14e-6);
    }
    for (int i = 0; i < dnp_node_preset_count(); i++) {
        const char *src = dnp_node_preset_source(i);
        CHECK(src != NULL && strlen(src) > 10 && strchr(src, '\n') == NULL);
    }
    CHECK(dnp_node_preset_at(-1) == NULL);
    CHECK(dnp_node_preset_at(dnp_node_preset_count()) == NULL);
    CHECK(dnp_node_preset_source(-1) == NULL);

    dnp_device_type d;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_node_preset("DGX-A100", &d, &err), DNP_OK);
    CHECK_STR(d.node, "dgx-a100");
    CHECK_STR(d.name, "a100");
    memset(&d, 0x5a, sizeof d);
    dnp_device_type before = d;
    CHECK_EQ_INT(dnp_node_preset("dgx-9", &d, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "unknown node preset 'dgx-9' (known: dgx1, dgx2h, dgx-a100") != NULL);
    CHECK(memcmp(&d, &before, sizeof d) == 0);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_node_preset(NULL, &d, &err), DNP_ERR_INPUT);
    /* A node name is not a device preset and vice versa. */
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_device_preset("dgx1", &d, &err), DNP_ERR_INPUT);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_node_preset("v100", &d, &err), DNP_ERR_INPUT);
    CHECK_STR(dnp_link_topo_name(DNP_TOPO_TORUS2D), "torus2d");
    CHECK_EQ_INT(dnp_link_topo_from_name("Switch"), DNP_TOPO_SWITCH);
    CHECK_EQ_INT(dnp_link_topo_from_name("mesh"), -1);
}

TEST(cluster_parse_nodes)
{
    dnp_cluster c;
    char buf[1024];
    check_round_trip("2xdgx-a100+2xdgx1", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 2);
    CHECK_EQ_INT(c.counts[0], 16); /* counts are devices */
    CHECK_EQ_INT(c.counts[1], 16);
    CHECK_STR(c.types[0].name, "a100");
    CHECK_STR(c.types[0].node, "dgx-a100");
    CHECK_EQ_INT(c.types[0].devices_per_node, 8);
    CHECK_STR(c.types[1].name, "v100");
    CHECK_EQ_INT(c.types[1].intra_topo, DNP_TOPO_RING);
    CHECK(c.types[1].inter_bw_bps == 6.25e9);
    CHECK_EQ_INT(dnp_cluster_devices(&c), 32);
    CHECK_STR(buf, "2xdgx-a100+2xdgx1");

    /* Same device, different node fields: two types, told apart by node. */
    check_round_trip("1xdgx1+2xv100+DGX1", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 2);
    CHECK_EQ_INT(c.counts[0], 16);
    CHECK_EQ_INT(c.counts[1], 2);
    CHECK_STR(c.types[1].node, "");
    CHECK_STR(buf, "2xdgx1+2xv100");

    check_round_trip("tpu-v3-2048 + 2 x tpu-v3-8", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 2);
    CHECK_EQ_INT(c.counts[0], 1024);
    CHECK_EQ_INT(c.counts[1], 8);
    CHECK_EQ_INT(c.types[0].intra_topo, DNP_TOPO_TORUS2D);
    CHECK_STR(buf, "1xtpu-v3-2048+2xtpu-v3-8");

    check_round_trip("2xdgx2h+1xdgx-h100+3xdgx-a100-80g", &c, buf, sizeof buf);
    CHECK_EQ_INT(dnp_cluster_devices(&c), 32 + 8 + 24);
    CHECK_STR(buf, "2xdgx2h+1xdgx-h100+3xdgx-a100-80g");

    /* Old specs keep their old figures. */
    check_round_trip("128xtpu-v2+128xtpu-v3", &c, buf, sizeof buf);
    CHECK(c.types[0].peak_flops == 180e12 && c.types[1].net_bw_bps == 2e9);
    CHECK(c.types[0].inter_bw_bps == 1e9);

    /* A custom node of preset devices; a custom naming a node preset with its
     * figures is that node preset (counted in devices). */
    check_round_trip("16xcustom(name=a100,tflops=312,net_gbps=4800,node=mine,per_node=8,"
                     "topo=switch,intra_gbps=300)",
                     &c, buf, sizeof buf);
    CHECK_STR(c.types[0].node, "mine");
    CHECK(c.types[0].peak_fp32_flops == 19.5e12); /* from the preset */
    CHECK(c.types[0].inter_bw_bps == 600e9);      /* = net_gbps */
    CHECK(c.types[0].intra_lat_s == 0 && c.types[0].inter_lat_s == 0);
    check_round_trip("8xcustom(name=a100,tflops=312,net_gbps=4800,per_node=8,node=dgx-a100,"
                     "topo=switch,intra_gbps=300,intra_lat_us=3.4,inter_gbps=200,"
                     "inter_lat_us=14)+dgx-a100",
                     &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 1);
    CHECK_EQ_INT(c.counts[0], 16);
    CHECK_STR(buf, "2xdgx-a100");
}

TEST(cluster_parse_custom_node_keys)
{
    dnp_cluster c;
    char buf[1024];
    check_round_trip("4xcustom(name=g,tflops=100,fp32_tflops=20,tf32_tflops=80,fp16_tflops=100,"
                     "bf16_tflops=100,net_gbps=100,dtype=bf16,compute_eff=0.7,mem_eff=0.8,"
                     "kernel_us=5,node=box,per_node=2,topo=torus2d,intra_gbps=50,"
                     "intra_lat_us=1.5,inter_gbps=25,inter_lat_us=10)",
                     &c, buf, sizeof buf);
    const dnp_device_type *d = &c.types[0];
    CHECK(d->peak_fp32_flops == 20e12 && d->peak_tf32_flops == 80e12);
    CHECK(d->peak_fp16_flops == 100e12 && d->peak_bf16_flops == 100e12);
    CHECK(d->compute_eff == 0.7 && d->mem_eff == 0.8);
    CHECK(d->kernel_overhead_s == 5 * 1e-6);
    CHECK_STR(d->node, "box");
    CHECK_EQ_INT(d->devices_per_node, 2);
    CHECK_EQ_INT(d->intra_topo, DNP_TOPO_TORUS2D);
    CHECK(d->intra_bw_bps == 50e9);          /* GB/s */
    CHECK(d->intra_lat_s == 1.5 * 1e-6);
    CHECK(d->inter_bw_bps == 25 * 1.25e8);    /* Gb/s */
    CHECK(d->inter_lat_s == 10 * 1e-6);
    CHECK_EQ_INT(c.counts[0], 4);
    CHECK_STR(buf, "4xcustom(name=g,tflops=100,fp32_tflops=20,tf32_tflops=80,fp16_tflops=100,"
                   "bf16_tflops=100,net_gbps=100,dtype=bfloat16,compute_eff=0.7,mem_eff=0.8,"
                   "kernel_us=5,node=box,per_node=2,topo=torus2d,intra_gbps=50,intra_lat_us=1.5,"
                   "inter_gbps=25,inter_lat_us=10)");

    /* A bare custom device: inter tier = its network, no latency. */
    check_round_trip("custom(name=e,tflops=1,net_gbps=8)", &c, buf, sizeof buf);
    CHECK(c.types[0].inter_bw_bps == 1e9);
    CHECK_EQ_INT(c.types[0].devices_per_node, 1);
    CHECK_STR(buf, "1xcustom(name=e,tflops=1,net_gbps=8,dtype=fp32)");
    check_round_trip("custom(name=e,tflops=1,net_gbps=8,inter_gbps=16,inter_lat_us=2)", &c, buf,
                     sizeof buf);
    CHECK(c.types[0].inter_bw_bps == 2e9);
    CHECK_STR(buf, "1xcustom(name=e,tflops=1,net_gbps=8,dtype=fp32,inter_gbps=16,"
                   "inter_lat_us=2)");
}

/* Write text to a fresh temporary file; its path goes to path[64]. */
static int write_tmp(char *path, const char *text)
{
    snprintf(path, 64, "/tmp/dnnpar-cluster-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    size_t n = strlen(text);
    int ok = write(fd, text, n) == (ssize_t)n;
    close(fd);
    return ok ? 0 : -1;
}

TEST(cluster_json_round_trip_nodes)
{
    static const char *specs[] = {
        "2xdgx-a100+2xdgx1+3xv100",
        "1xtpu-v3-2048+4xtpu-v3-chip+128xtpu-v2",
        "4xcustom(name=g,tflops=100,fp32_tflops=20,net_gbps=100,dtype=fp16,compute_eff=0.5,"
        "node=box,per_node=2,topo=ring,intra_gbps=50,intra_lat_us=1.5,inter_lat_us=10)",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        dnp_cluster c, d;
        dnp_error err = {0};
        CHECK_EQ_INT(dnp_cluster_parse(specs[i], &c, &err), DNP_OK);
        char *text = dnp_cluster_to_json(&c), path[64];
        CHECK(text != NULL && write_tmp(path, text) == 0);
        memset(&d, 0, sizeof d);
        CHECK_EQ_INT(dnp_cluster_read_json(path, &d, &err), DNP_OK);
        unlink(path);
        CHECK(cluster_equal(&c, &d));
        CHECK(strstr(text, "\"devices_per_node\"") != NULL);
        dnp_free(text);
    }
}

TEST(cluster_json_old_and_bad)
{
    /* A file written before node presets: the bare tpu-v2 preset, and a
     * custom device with the bare defaults. */
    static const char old[] =
        "{\"format\": \"dnnpar-cluster\", \"version\": 1, \"devices\": ["
        "{\"name\": \"tpu-v2\", \"count\": 4, \"peak_flops\": 180e12, \"mem_bytes\": 64e9,"
        " \"mem_bw_bps\": 2400e9, \"net_bw_bps\": 1e9, \"dtype\": \"bfloat16\"},"
        "{\"name\": \"g\", \"count\": 2, \"peak_flops\": 1e12, \"mem_bytes\": 0,"
        " \"mem_bw_bps\": 0, \"net_bw_bps\": 5e9, \"dtype\": \"fp32\"}]}";
    char path[64];
    dnp_cluster c, want;
    dnp_error err = {0};
    CHECK(write_tmp(path, old) == 0);
    CHECK_EQ_INT(dnp_cluster_read_json(path, &c, &err), DNP_OK);
    unlink(path);
    CHECK_EQ_INT(dnp_cluster_parse("4xtpu-v2+2xcustom(name=g,tflops=1,net_gbps=40)", &want, &err),
                 DNP_OK);
    CHECK(cluster_equal(&c, &want));
    CHECK(c.types[1].inter_bw_bps == 5e9);
    CHECK_EQ_INT(c.types[1].devices_per_node, 1);

    static const struct {
        const char *extra;
        const char *needle;
    } bad[] = {
        {"\"devices_per_node\": 0", "\"devices_per_node\" must be an integer"},
        {"\"devices_per_node\": 2", "needs \"node\""},
        {"\"devices_per_node\": 3, \"node\": \"n\", \"intra_topo\": \"ring\", \"intra_bw_bps\": 1",
         "multiple of \"devices_per_node\""},
        {"\"intra_topo\": \"mesh\"", "\"intra_topo\" must be"},
        {"\"node\": \"n\"", "a bare device"},
        {"\"compute_eff\": 1.5", "\"compute_eff\""},
        {"\"inter_bw_bps\": 0", "\"inter_bw_bps\" must be a positive number"},
        {"\"intra_lat_s\": -1", "must be numbers >= 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"format\": \"dnnpar-cluster\", \"version\": 1, \"devices\": ["
                 "{\"name\": \"g\", \"count\": 4, \"peak_flops\": 1e12, \"net_bw_bps\": 1e9,"
                 " \"mem_bytes\": 0, \"mem_bw_bps\": 0, \"dtype\": \"fp32\", %s}]}",
                 bad[i].extra);
        CHECK(write_tmp(path, text) == 0);
        dnp_error_clear(&err);
        CHECK_EQ_INT(dnp_cluster_read_json(path, &c, &err), DNP_ERR_INPUT);
        unlink(path);
        if (strstr(err.msg, bad[i].needle) == NULL || strstr(err.msg, "devices[0] ('g')") == NULL) {
            printf("  json extra %s: message \"%s\" lacks \"%s\"\n", bad[i].extra, err.msg,
                   bad[i].needle);
            CHECK(0);
        }
    }
}

TEST(cluster_preset_lookup)
{
    dnp_device_type d;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_device_preset("TPU-V3", &d, &err), DNP_OK);
    CHECK_STR(d.name, "tpu-v3");
    CHECK(d.peak_flops == 420e12);
    CHECK_EQ_INT(dnp_device_preset("1080Ti", &d, &err), DNP_OK);
    CHECK_STR(d.name, "1080ti");

    memset(&d, 0x5a, sizeof d);
    dnp_device_type before = d;
    CHECK_EQ_INT(dnp_device_preset("tpu-v9", &d, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "tpu-v9") != NULL);
    CHECK(memcmp(&d, &before, sizeof d) == 0); /* untouched on failure */
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_device_preset(NULL, &d, &err), DNP_ERR_INPUT);
}

TEST(cluster_parse_heterogeneous)
{
    dnp_cluster c;
    char buf[256];
    check_round_trip("128xtpu-v2+128xtpu-v3", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 2);
    CHECK_STR(c.types[0].name, "tpu-v2");
    CHECK_STR(c.types[1].name, "tpu-v3");
    CHECK_EQ_INT(c.counts[0], 128);
    CHECK_EQ_INT(c.counts[1], 128);
    CHECK_EQ_INT(dnp_cluster_devices(&c), 256);
    CHECK(c.types[0].peak_flops == 180e12);
    CHECK(c.types[1].net_bw_bps == 2e9);
    CHECK_STR(buf, "128xtpu-v2+128xtpu-v3");
}

TEST(cluster_parse_simple)
{
    dnp_cluster c;
    char buf[256];
    check_round_trip("8xtpu-v3", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 1);
    CHECK_EQ_INT(c.counts[0], 8);
    CHECK_STR(c.types[0].name, "tpu-v3");
    CHECK_EQ_INT(dnp_cluster_devices(&c), 8);
    CHECK_STR(buf, "8xtpu-v3");

    check_round_trip("tpu-v3", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 1);
    CHECK_EQ_INT(c.counts[0], 1);
    CHECK_EQ_INT(dnp_cluster_devices(&c), 1);
    CHECK_STR(buf, "1xtpu-v3");

    /* A preset whose name starts with digits, with and without a count. */
    check_round_trip("1080ti", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.counts[0], 1);
    CHECK_STR(c.types[0].name, "1080ti");
    check_round_trip(" 4 X 1080TI + 2*v100+a100 ", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 3);
    CHECK_STR(buf, "4x1080ti+2xv100+1xa100");
    check_round_trip("1000000xtpu-v2", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.counts[0], 1000000);
    check_round_trip("007xtpu-v2", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.counts[0], 7);
}

TEST(cluster_parse_merge)
{
    dnp_cluster c;
    char buf[256];
    check_round_trip("2*TPU-V2 + 2 x tpu-v2", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 1);
    CHECK_EQ_INT(c.counts[0], 4);
    CHECK_STR(c.types[0].name, "tpu-v2");
    CHECK_STR(buf, "4xtpu-v2");

    /* Order of first appearance is kept. */
    check_round_trip("tpu-v3+2xtpu-v2+3xtpu-v3", &c, buf, sizeof buf);
    CHECK_STR(buf, "4xtpu-v3+2xtpu-v2");

    /* A custom device with a preset's name and identical figures is that preset. */
    check_round_trip("custom(name=TPU-v2,tflops=180,mem_gb=64,membw_gbps=2400,net_gbps=8,"
                     "dtype=bf16)+tpu-v2",
                     &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 1);
    CHECK_EQ_INT(c.counts[0], 2);
    CHECK_STR(buf, "2xtpu-v2");

    /* Identical customs merge. */
    check_round_trip("custom(name=g,tflops=1,net_gbps=1)+3xcustom(net_gbps=1,tflops=1,name=g)",
                     &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 1);
    CHECK_EQ_INT(c.counts[0], 4);
}

TEST(cluster_parse_custom)
{
    dnp_cluster c;
    char buf[512];
    check_round_trip("4xcustom(name=g,tflops=100,mem_gb=32,membw_gbps=900,net_gbps=100,dtype=fp16)",
                     &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 1);
    CHECK_EQ_INT(c.counts[0], 4);
    check_device(&c.types[0], "g", 100e12, 32e9, 900e9, 12.5e9, 2, "fp16");
    CHECK_STR(buf, "4xcustom(name=g,tflops=100,mem_gb=32,membw_gbps=900,net_gbps=100,dtype=fp16)");

    /* Defaults: memory unknown (0), fp32; whitespace inside; case of keys. */
    check_round_trip("custom( name = My.dev-1 , TFLOPS = 2.5e1 , net_gbps = 0.8 )", &c, buf,
                     sizeof buf);
    check_device(&c.types[0], "My.dev-1", 25e12, 0, 0, 0.8 * 1.25e8, 4, "fp32");
    CHECK_STR(buf, "1xcustom(name=My.dev-1,tflops=25,net_gbps=0.8,dtype=fp32)");

    check_round_trip("2xcustom(name=b,tflops=1,net_gbps=1,dtype=bfloat16)+tpu-v3", &c, buf,
                     sizeof buf);
    CHECK_EQ_INT(c.n_types, 2);
    CHECK_EQ_INT(c.types[0].bytes_per_elem, 2);
    CHECK_STR(c.types[0].dtype, "bfloat16");
    CHECK_EQ_INT(dnp_cluster_devices(&c), 3);

    /* Awkward numbers still round-trip exactly. */
    check_round_trip("custom(name=w,tflops=0.1,mem_gb=1e-300,membw_gbps=3.3333333333333335,"
                     "net_gbps=1e299)",
                     &c, buf, sizeof buf);
    check_round_trip("custom(name=x,tflops=123456.789,net_gbps=4.9e-300)", &c, buf, sizeof buf);
}

/* The kernel model's keys: sms (integer), l2_gbps (GB/s), host_us (us), in
 * custom(...) and preset overrides; format and JSON round-trip them. */
TEST(cluster_kernel_keys)
{
    dnp_cluster c;
    char buf[1024];
    check_round_trip("2xcustom(name=g,tflops=100,net_gbps=100,sms=80,l2_gbps=3133.44,host_us=12.5)",
                     &c, buf, sizeof buf);
    CHECK_EQ_INT(c.types[0].sm_count, 80);
    CHECK(c.types[0].l2_bw_bps == 3133.44 * 1e9);
    CHECK(c.types[0].host_kernel_s == 12.5 * 1e-6);
    CHECK_STR(buf, "2xcustom(name=g,tflops=100,net_gbps=100,dtype=fp32,sms=80,l2_gbps=3133.44,"
                   "host_us=12.5)");
    /* 0 = unknown / model default: allowed, and not written for a custom of no preset. */
    check_round_trip("custom(name=g,tflops=1,net_gbps=1,sms=0,l2_gbps=0,host_us=0,mem_gb=0)", &c,
                     buf, sizeof buf);
    CHECK_STR(buf, "1xcustom(name=g,tflops=1,net_gbps=1,dtype=fp32)");
    /* On a preset: the override form; 0 takes the preset's figure away. */
    check_round_trip("a100(host_us=4)", &c, buf, sizeof buf);
    CHECK_STR(buf, "1xa100(host_us=4)");
    CHECK(c.types[0].host_kernel_s == 4e-6 && c.types[0].sm_count == 108);
    check_round_trip("3xv100(sms=0,l2_gbps=0)", &c, buf, sizeof buf);
    CHECK_STR(buf, "3xv100(sms=0,l2_gbps=0)"); /* 0 takes the preset's 80 SMs away */
    CHECK(c.types[0].sm_count == 0 && c.types[0].l2_bw_bps == 0);
    CHECK(c.types[0].peak_flops == 125e12);
    /* A figure different from the preset's is a different type (not merged). */
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("v100+v100(sms=81)", &c, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "device 'v100' is defined twice with different figures") != NULL);
    /* JSON: written, read back exactly, range-checked. */
    CHECK_EQ_INT(dnp_cluster_parse("2xcustom(name=g,tflops=1,net_gbps=1,sms=7,l2_gbps=0.1,"
                                   "host_us=3)+dgx1(host_us=9)",
                                   &c, &err),
                 DNP_OK);
    char *text = dnp_cluster_to_json(&c);
    CHECK(text != NULL);
    CHECK(text != NULL && strstr(text, "\"sm_count\": 7") != NULL);
    CHECK(text != NULL && strstr(text, "\"host_kernel_s\": 9") != NULL);
    dnp_cluster back;
    CHECK_EQ_INT(dnp_cluster_read_json_buffer(text, text ? strlen(text) : 0, "t.json", &back,
                                              &err),
                 DNP_OK);
    CHECK(cluster_equal(&c, &back));
    dnp_free(text);
    static const struct {
        const char *field, *needle;
    } bad[] = {
        {"\"sm_count\": -1", "\"sm_count\" must be an integer in 0 .. 1000000"},
        {"\"sm_count\": 1.5", "\"sm_count\" must be an integer"},
        {"\"sm_count\": 1000001", "\"sm_count\" must be an integer"},
        {"\"l2_bw_bps\": -1", "\"l2_bw_bps\" and \"host_kernel_s\" must be numbers >= 0"},
        {"\"host_kernel_s\": \"x\"", "\"l2_bw_bps\" and \"host_kernel_s\" must be numbers >= 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{\"format\": \"dnnpar-cluster\", \"version\": 1, \"devices\": [{\"name\": \"g\", "
                 "\"count\": 1, \"dtype\": \"fp32\", \"mem_bytes\": 0, \"mem_bw_bps\": 0, "
                 "\"peak_flops\": 1, \"net_bw_bps\": 1, %s}]}",
                 bad[i].field);
        dnp_error_clear(&err);
        CHECK_EQ_INT(dnp_cluster_read_json_buffer(json, strlen(json), "b.json", &back, &err),
                     DNP_ERR_INPUT);
        if (strstr(err.msg, bad[i].needle) == NULL) {
            printf("  %s: %s\n", bad[i].field, err.msg);
            CHECK(0);
        }
    }
    /* A file from before the fields: a device named like a preset has the preset's. */
    const char *old = "{\"format\": \"dnnpar-cluster\", \"version\": 1, \"devices\": [{\"name\": "
                      "\"a100\", \"count\": 1, \"dtype\": \"bfloat16\", \"mem_bytes\": 40e9, "
                      "\"mem_bw_bps\": 1555e9, \"peak_flops\": 312e12, \"net_bw_bps\": 600e9}]}";
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_cluster_read_json_buffer(old, strlen(old), "o.json", &back, &err), DNP_OK);
    CHECK_EQ_INT(back.types[0].sm_count, 108);
    CHECK(back.types[0].l2_bw_bps == 7219.2e9);
}

/* custom(name=PRESET, ...) takes the preset's figures for every key it
 * does not give (docs/cluster.md, "Inheritance"); it prints as an override
 * of the preset when its figures differ, as the preset when they do not. */
TEST(cluster_custom_inherits_preset)
{
    dnp_cluster c;
    char buf[1024];
    check_round_trip("custom(name=a100-80g,tflops=250)", &c, buf, sizeof buf);
    const dnp_device_type *d = &c.types[0];
    CHECK_STR(d->name, "a100-80g");
    CHECK(d->peak_flops == 250e12);
    CHECK(d->mem_bytes == 80e9 && d->mem_bw_bps == 2039e9); /* A100 80GB datasheet */
    CHECK_EQ_INT(d->sm_count, 108);
    CHECK(d->l2_bw_bps == 7219.2e9);
    CHECK(d->peak_fp32_flops == 19.5e12 && d->peak_tf32_flops == 156e12);
    CHECK(d->peak_fp16_flops == 312e12 && d->peak_bf16_flops == 312e12);
    CHECK_STR(d->dtype, "bfloat16");
    CHECK(d->net_bw_bps == 600e9 && d->inter_bw_bps == 300e9);
    CHECK_NEAR(d->inter_lat_s, 3.4e-6, 1e-15, 0);  /* NCCL NVLINK latency kept */
    CHECK(d->speed_cv == 0.08 / (2.0 * 2.698));    /* the GPU spread kept */
    CHECK_STR(buf, "1xa100-80g(tflops=250)");
    /* Identical figures: the preset itself (any letter case of the name). */
    check_round_trip("custom(name=A100-80G,dtype=bf16)", &c, buf, sizeof buf);
    CHECK_STR(buf, "1xa100-80g");
    CHECK_STR(c.types[0].name, "a100-80g");
    /* Everything given equal to the preset but one figure. */
    check_round_trip("custom(name=v100,tflops=125,net_gbps=2400,dtype=fp16,mem_gb=32)", &c, buf,
                     sizeof buf);
    CHECK_STR(buf, "1xv100(mem_gb=32)");
    /* A custom node of a preset device: device figures inherited, link keys as given. */
    check_round_trip("12xcustom(name=v100,tflops=125,net_gbps=2400,node=p3-8xlarge,per_node=4,"
                     "topo=switch,intra_gbps=21.25,inter_gbps=2.5)",
                     &c, buf, sizeof buf);
    CHECK_EQ_INT(c.types[0].sm_count, 80);
    CHECK(c.types[0].mem_bytes == 16e9 && c.types[0].peak_fp32_flops == 15.7e12);
    CHECK(c.types[0].intra_lat_s == 0 && c.types[0].inter_lat_s == 0);
    CHECK_STR(buf, "12xcustom(name=v100,tflops=125,net_gbps=2400,dtype=fp16,node=p3-8xlarge,"
                   "per_node=4,topo=switch,intra_gbps=21.25,inter_gbps=2.5)");
    /* A custom node named like a node preset takes the node preset's figures too. */
    check_round_trip("8xcustom(name=gh200,node=alps-gh200,inter_gbps=100)", &c, buf, sizeof buf);
    CHECK_STR(buf, "2xalps-gh200(inter_gbps=100)");
    CHECK(c.types[0].intra_bw_bps == 450e9 && c.types[0].inter_bw_bps == 12.5e9);
    CHECK_NEAR(c.types[0].intra_lat_s, 3.4e-6, 1e-15, 0);
    CHECK_NEAR(c.types[0].inter_lat_s, 14e-6, 1e-15, 0);
    CHECK_EQ_INT(c.counts[0], 8);
    check_round_trip("8xcustom(name=gh200,node=alps-gh200,per_node=8,dtype=fp32)", &c, buf,
                     sizeof buf);
    CHECK_STR(buf, "8xcustom(name=gh200,tflops=990,net_gbps=7200,dtype=fp32,node=alps-gh200,"
                   "per_node=8,topo=switch,intra_gbps=450)");
    /* The sailor.csv GH200 spec now inherits the gh200 preset's SMs. */
    check_round_trip("4xcustom(name=gh200,tflops=67,fp32_tflops=67,tf32_tflops=494,"
                     "fp16_tflops=989,bf16_tflops=989,mem_gb=96,membw_gbps=4000,net_gbps=200,"
                     "dtype=fp32,node=clariden,per_node=4,topo=switch,intra_gbps=450,"
                     "inter_gbps=200)",
                     &c, buf, sizeof buf);
    CHECK_EQ_INT(c.types[0].sm_count, 132);
    CHECK(c.types[0].peak_fp16_flops == 989e12 && c.types[0].bytes_per_elem == 4);
    /* A name of no preset still needs tflops and net_gbps. */
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("custom(name=x100,tflops=1)", &c, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "missing required key 'net_gbps' (needed unless the name is a "
                          "preset's)") != NULL);
}

/* PRESET(key=value, ...) and NODE(key=value, ...): what-ifs (issue 32). */
TEST(cluster_preset_overrides)
{
    dnp_cluster c;
    char buf[1024];
    check_round_trip("2xdgx-a100-80g(inter_gbps=400)", &c, buf, sizeof buf);
    CHECK_STR(buf, "2xdgx-a100-80g(inter_gbps=400)");
    CHECK_EQ_INT(c.counts[0], 16);
    CHECK(c.types[0].inter_bw_bps == 50e9);
    CHECK(c.types[0].intra_bw_bps == 300e9 && c.types[0].mem_bytes == 80e9);
    check_round_trip(" 2 x DGX-A100-80G ( inter_gbps = 400 , intra_lat_us=1 ) + dgx1", &c, buf,
                     sizeof buf);
    CHECK_STR(buf, "2xdgx-a100-80g(intra_lat_us=1,inter_gbps=400)+1xdgx1");
    check_round_trip("4xh100(membw_gbps=4000,dtype=fp16)", &c, buf, sizeof buf);
    CHECK_STR(buf, "4xh100(membw_gbps=4000,dtype=fp16)");
    CHECK(c.types[0].mem_bw_bps == 4000e9 && c.types[0].peak_flops == 989.4e12);
    check_round_trip("a100()", &c, buf, sizeof buf);
    CHECK_STR(buf, "1xa100");
    check_round_trip("tpu-v3-8(inter_gbps=100)+1080ti(fp16_tflops=0.17)", &c, buf, sizeof buf);
    CHECK_STR(buf, "1xtpu-v3-8(inter_gbps=100)+1x1080ti(fp16_tflops=0.17)");
    /* The same override twice merges; an override and the preset do not. */
    check_round_trip("dgx1(inter_gbps=100)+2xdgx1(inter_gbps=100)", &c, buf, sizeof buf);
    CHECK_STR(buf, "3xdgx1(inter_gbps=100)");
}

TEST(cluster_format_round_trip_random)
{
    unsigned long long st = 0x1234abcdULL;
    for (int iter = 0; iter < 2000; iter++) {
        char spec[512], buf[512];
        /* Random doubles over many magnitudes, written with 17 digits. */
        double v[4];
        for (int k = 0; k < 4; k++)
            v[k] = test_uniform(&st, 1, 10) * pow(10, (double)(test_rand(&st) % 40) - 20);
        snprintf(spec, sizeof spec,
                 "%dxcustom(name=r%d,tflops=%.17g,mem_gb=%.17g,membw_gbps=%.17g,net_gbps=%.17g)"
                 "+%dxtpu-v2",
                 1 + (int)(test_rand(&st) % 1000), iter, v[0], v[1], v[2], v[3],
                 1 + (int)(test_rand(&st) % 1000));
        dnp_cluster c;
        check_round_trip(spec, &c, buf, sizeof buf);
    }
}

TEST(cluster_format_truncates)
{
    dnp_cluster c;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("128xtpu-v2+128xtpu-v3", &c, &err), DNP_OK);
    char buf[8];
    memset(buf, 'z', sizeof buf);
    dnp_cluster_format(&c, buf, sizeof buf);
    CHECK_STR(buf, "128xtpu");
    char one[1] = {'z'};
    dnp_cluster_format(&c, one, 1);
    CHECK_EQ_INT(one[0], '\0');
    dnp_cluster_format(&c, NULL, 0); /* no-op */
    char big[64];
    dnp_cluster_format(NULL, big, sizeof big);
    CHECK_STR(big, "");
    CHECK_EQ_INT(dnp_cluster_devices(NULL), 0);
}

typedef struct {
    const char *spec;
    const char *needle; /* must appear in the message after the echoed spec */
} bad_case;

static void check_bad(const char *spec, const char *needle)
{
    dnp_cluster c;
    memset(&c, 0x5a, sizeof c);
    dnp_cluster before = c;
    dnp_error err = {0};
    dnp_status st = dnp_cluster_parse(spec, &c, &err);
    if (st != DNP_ERR_INPUT)
        printf("  spec '%s' gave status %d\n", spec, (int)st);
    CHECK_EQ_INT(st, DNP_ERR_INPUT);
    CHECK_EQ_INT(err.status, DNP_ERR_INPUT);
    CHECK(memcmp(&c, &before, sizeof c) == 0);
    CHECK(strchr(err.msg, '\n') == NULL);
    CHECK(strstr(err.msg, "column ") != NULL);
    /* The problem text follows the echoed spec: look after it. */
    const char *problem = strstr(err.msg, "': ");
    size_t speclen = strlen(spec);
    if (speclen <= 60 && strstr(spec, "': ") == NULL)
        problem = err.msg + strlen("cluster spec '") + speclen;
    if (problem == NULL || strstr(problem, needle) == NULL) {
        printf("  spec '%s': message \"%s\" lacks \"%s\"\n", spec, err.msg, needle);
        CHECK(0);
    }
}

TEST(cluster_parse_errors)
{
    static const bad_case cases[] = {
        {"", "empty spec"},
        {"   ", "empty spec"},
        {"+", "before '+'"},
        {"tpu-v2+", "trailing '+'"},
        {"tpu-v2 + ", "trailing '+'"},
        {"tpu-v2++tpu-v3", "before '+'"},
        {"0xtpu-v3", "count must be a positive integer"},
        {"0xtpu-v3", "'0'"},
        {"-4xtpu-v3", "'-4'"},
        {"1.5xtpu-v3", "'1.5'"},
        {"99999999999999999999xtpu-v2", "'99999999999999999999'"},
        {"1000001xtpu-v2", "'1000001'"},
        {"1000000xtpu-v2+tpu-v3", "total device count"},
        {"4xtpu-v9", "unknown device or node 'tpu-v9'"},
        {"128xtpu-v9", "unknown device or node 'tpu-v9' at column 5; did you mean 'tpu-v2'? "
                       "(devices: tpu-v2, tpu-v3, tpu-v3-chip, v100, v100-sxm3-32g, a100, a100-80g, "
                       "h100, 1080ti, t4, rtx2080ti, titan-rtx, rtx3090, l4, l40s, h200, gh200, "
                       "mi250x; nodes: dgx1, dgx2h, dgx-a100"},
        {"2xdgx-b200", "unknown device or node 'dgx-b200' at column 3"},
        {"0xdgx1", "count must be a positive integer"},
        {"1000000xdgx1", "total device count exceeds 1000000"},
        {"3xcustom(name=g,tflops=1,net_gbps=1,node=n,per_node=2,topo=ring,intra_gbps=5)",
         "3 devices of"},
        {"custom(name=g,tflops=1,net_gbps=1,topo=ring)", "key 'topo' needs per_node > 1"},
        {"custom(name=g,tflops=1,net_gbps=1,node=n)", "key 'node' needs per_node > 1"},
        {"custom(name=g,tflops=1,net_gbps=1,intra_gbps=3)", "key 'intra_gbps' needs per_node > 1"},
        {"2xcustom(name=g,tflops=1,net_gbps=1,per_node=2,topo=ring,intra_gbps=5)",
         "per_node > 1 needs key 'node'"},
        {"2xcustom(name=g,tflops=1,net_gbps=1,per_node=2,node=n,intra_gbps=5)",
         "per_node > 1 needs key 'topo'"},
        {"2xcustom(name=g,tflops=1,net_gbps=1,per_node=2,node=n,topo=ring)",
         "per_node > 1 needs key 'intra_gbps'"},
        {"custom(name=g,tflops=1,net_gbps=1,per_node=0)", "invalid per_node '0'"},
        {"custom(name=g,tflops=1,net_gbps=1,per_node=1.5)", "invalid per_node '1.5'"},
        {"custom(name=g,tflops=1,net_gbps=1,per_node=99999999999)", "invalid per_node"},
        {"2xcustom(name=g,tflops=1,net_gbps=1,per_node=2,node=n,topo=mesh,intra_gbps=5)",
         "unknown topo 'mesh' at column 60 (known: switch, ring, torus2d)"},
        {"2xcustom(name=g,tflops=1,net_gbps=1,per_node=2,node=n,topo=none,intra_gbps=5)",
         "unknown topo 'none'"},
        {"custom(name=g,tflops=1,net_gbps=1,compute_eff=1.5)",
         "'1.5' for key 'compute_eff' must be at most 1"},
        {"custom(name=g,tflops=1,net_gbps=1,mem_eff=-0)", "invalid number '-0' for key 'mem_eff' "
                                                          "(must be a finite number >= 0)"},
        {"custom(name=g,tflops=1,net_gbps=0)", "invalid number '0' for key 'net_gbps' "
                                               "(must be a finite number > 0)"},
        {"custom(name=g,tflops=1,net_gbps=1,sms=-1)", "invalid sms '-1' (an integer from 0 to "
                                                      "1000000) at column 39"},
        {"custom(name=g,tflops=1,net_gbps=1,sms=1000001)", "invalid sms '1000001'"},
        {"custom(name=g,tflops=1,net_gbps=1,sms=80.5)", "invalid sms '80.5'"},
        {"custom(name=g,tflops=1,net_gbps=1,l2_gbps=x)", "invalid number 'x' for key 'l2_gbps'"},
        {"custom(name=g,tflops=1,net_gbps=1,l2_gbps=1e400)", "'1e400' for key 'l2_gbps' is out"},
        {"custom(name=g,tflops=1,net_gbps=1,host_us=-3)", "invalid number '-3' for key 'host_us'"},
        {"custom(name=g,tflops=1,net_gbps=1,host_us=nan)", "invalid number 'nan' for key 'host_us'"},
        {"custom(name=g,tflops=1,net_gbps=1,sms=1,sms=2)", "duplicate key 'sms'"},
        {"a100(name=b)", "key 'name' cannot change in an override of preset 'a100' (use "
                         "custom(...)) at column 6"},
        {"dgx1(per_node=4)", "key 'per_node' cannot change in an override of preset 'dgx1'"},
        {"dgx1(topo=switch)", "key 'topo' cannot change"},
        {"dgx1(node=x)", "key 'node' cannot change"},
        {"a100(intra_gbps=5)", "key 'intra_gbps' needs per_node > 1"},
        {"a100(tflops=0)", "invalid number '0' for key 'tflops'"},
        {"a100(bogus=1)", "unknown override key 'bogus' at column 6"},
        {"a100(tflops=1", "unterminated 'a100(' (missing ')') at column 1"},
        {"2xdgx1(inter_gbps=)", "missing value for key 'inter_gbps'"},
        {"a100(tflops=250)+a100", "device 'a100' is defined twice with different figures"},
        {"8xcustom(name=v100,node=alps-gh200)", "node preset 'alps-gh200' holds 'gh200' devices, "
                                                "not 'v100'"},
        {"3xcustom(name=gh200,node=alps-gh200)", "3 devices of"},
        {"custom(name=g,tflops=1,net_gbps=1,inter_lat_us=-2)", "invalid number '-2'"},
        {"custom(name=g,tflops=1,net_gbps=1,fp16_tflops=x)", "invalid number 'x' for key 'fp16_tflops'"},
        {"2xcustom(name=g,tflops=1,net_gbps=1,per_node=2,node=a b,topo=ring,intra_gbps=5)",
         "invalid node name 'a b'"},
        {"8xcustom(name=g,tflops=1,net_gbps=1,per_node=8,node=dgx1,topo=ring,intra_gbps=150)",
         "node preset 'dgx1' holds 'v100' devices, not 'g' (name the custom node otherwise) at "
         "column 15"},
        {"custom(name=g,tflops=1,net_gbps=1)+2xcustom(name=g,tflops=1,net_gbps=1,per_node=2,"
         "node=n,topo=ring,intra_gbps=5)+2xcustom(name=g,tflops=2,net_gbps=1,per_node=2,node=n,"
         "topo=ring,intra_gbps=5)",
         "device 'g' of node n is defined twice with different figures"},
        {"4x", "missing device after '4x'"},
        {"4x+tpu-v2", "missing device after '4x'"},
        {"4 tpu-v2", "expected 'x' or '*' after count '4'"},
        {"4x(", "expected a device name, got '('"},
        {"tpu-v2 tpu-v3", "unexpected 'tpu-v3'"},
        {"tpu-v2,tpu-v3", "unexpected ','"},
        {"4xcustom", "expected '(' after 'custom'"},
        {"4xcustom(", "unterminated 'custom('"},
        {"4xcustom(name=a", "unterminated 'custom('"},
        {"4xcustom()", "missing required key 'name'"},
        {"4xcustom(name=a)", "missing required key 'tflops'"},
        {"4xcustom(name=a,tflops=1)", "missing required key 'net_gbps'"},
        {"4xcustom(tflops=1,net_gbps=1)", "missing required key 'name'"},
        {"4xcustom(name=a,tflops=-1,net_gbps=1)", "invalid number '-1' for key 'tflops'"},
        {"4xcustom(name=a,tflops=0,net_gbps=1)", "invalid number '0' for key 'tflops'"},
        {"4xcustom(name=a,tflops=nan,net_gbps=1)", "invalid number 'nan' for key 'tflops'"},
        {"4xcustom(name=a,tflops=inf,net_gbps=1)", "invalid number 'inf'"},
        {"4xcustom(name=a,tflops=0x10,net_gbps=1)", "invalid number '0x10'"},
        {"4xcustom(name=a,tflops=1e,net_gbps=1)", "invalid number '1e'"},
        {"4xcustom(name=a,tflops=1 2,net_gbps=1)", "invalid number '1 2'"},
        {"4xcustom(name=a,tflops=1e400,net_gbps=1)", "'1e400' for key 'tflops' is out of range"},
        {"4xcustom(name=a,tflops=1e300,net_gbps=1)", "'1e300' for key 'tflops' is out of range"},
        {"4xcustom(name=a,tflops=1e-400,net_gbps=1)", "'1e-400' for key 'tflops' is out of range"},
        {"4xcustom(name=a,tflops=1,net_gbps=4.9e-320)",
         "'4.9e-320' for key 'net_gbps' is out of range"},
        {"4xcustom(name=a,tflops=1,net_gbps=1.7976931348623157e300)", "is out of range"},
        {"4xcustom(name=a,tflops=1,net_gbps=1,bogus=2)", "unknown custom key 'bogus'"},
        {"4xcustom(name=a,tflops=1,net_gbps=1,name=b)", "duplicate key 'name'"},
        {"4xcustom(name=a,tflops=1,net_gbps=1,)", "expected a key in 'custom(...)', got ')'"},
        {"4xcustom(name=a,tflops=1,net_gbps=)", "missing value for key 'net_gbps'"},
        {"4xcustom(name=a,tflops=1,net_gbps 1)", "expected '=' after key 'net_gbps'"},
        {"4xcustom(name=a,tflops=1,net_gbps=1,dtype=int8)", "unknown dtype 'int8'"},
        {"4xcustom(name=a b,tflops=1,net_gbps=1)", "invalid device name 'a b'"},
        {"4xcustom(name=abcdefghijklmnopqrstuvwxyz0123456,tflops=1,net_gbps=1)",
         "invalid device name 'abcdefghijklmnopqrstuvwxyz0123456'"},
        {"custom(name=a,tflops=1,net_gbps=1)+custom(name=A,tflops=2,net_gbps=1)",
         "device 'A' is defined twice with different figures"},
        {"custom(name=a,tflops=1,net_gbps=1)+custom(name=b,tflops=1,net_gbps=1)+"
         "custom(name=c,tflops=1,net_gbps=1)+custom(name=d,tflops=1,net_gbps=1)+"
         "custom(name=e,tflops=1,net_gbps=1)+custom(name=f,tflops=1,net_gbps=1)+"
         "custom(name=g,tflops=1,net_gbps=1)+custom(name=h,tflops=1,net_gbps=1)+"
         "custom(name=i,tflops=1,net_gbps=1)",
         "more than 8 distinct device types ('custom(name=i,tflops=1,net_gbps=1)'"},
        {"tpu-v2\n+\x01", "'\\x01'"},
        {"tpu-v2(", "unterminated 'tpu-v2(' (missing ')')"},
        {"tpu-v2 (", "unterminated 'tpu-v2('"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_bad(cases[i].spec, cases[i].needle);

    /* Exact wording of the documented examples. */
    dnp_cluster c;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("128xtpu-v9", &c, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, "cluster spec '128xtpu-v9': unknown device or node 'tpu-v9' at column 5; "
                       "did you mean 'tpu-v2'? (devices: tpu-v2, tpu-v3, tpu-v3-chip, v100, "
                       "v100-sxm3-32g, a100, a100-80g, h100, 1080ti, t4, rtx2080ti, titan-rtx, "
                       "rtx3090, l4, l40s, h200, gh200, mi250x; nodes: dgx1, dgx2h, dgx-a100, "
                       "dgx-a100-80g, dgx-h100, dgx-h200, p3.8xlarge, g4dn.12xlarge, alps-gh200, "
                       "p4d.24xlarge, p4de.24xlarge, p5.48xlarge, and 10 more (dnnpar devices "
                       "lists them); or custom(...))");
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_cluster_parse("0xtpu-v3", &c, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg,
              "cluster spec '0xtpu-v3': count must be a positive integer (got '0') at column 1");
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_cluster_parse(NULL, &c, &err), DNP_ERR_INPUT);
}

/* Long inputs: linear time, bounded messages, no overflow. */
TEST(cluster_parse_long_inputs)
{
    size_t n = 1u << 20;
    char *s = dnp_malloc(n + 64);
    CHECK(s != NULL);
    if (s == NULL)
        return;
    dnp_cluster c;
    dnp_error err = {0};

    memset(s, 'a', n);
    s[n] = '\0';
    CHECK_EQ_INT(dnp_cluster_parse(s, &c, &err), DNP_ERR_INPUT);
    CHECK(strlen(err.msg) < sizeof err.msg);
    CHECK(strstr(err.msg, "unknown device or node 'aaaa") != NULL);

    dnp_error_clear(&err);
    memset(s, '9', n);
    memcpy(s + n, "xtpu-v2", 8);
    CHECK_EQ_INT(dnp_cluster_parse(s, &c, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "count must be at most") != NULL);

    dnp_error_clear(&err);
    memset(s, '1', n);
    const char *prefix = "custom(name=a,net_gbps=1,tflops=";
    memcpy(s, prefix, strlen(prefix));
    memcpy(s + n, ")", 2);
    CHECK_EQ_INT(dnp_cluster_parse(s, &c, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "out of range") != NULL);

    /* 140000 terms of one type merge to one type. */
    size_t pos = 0;
    for (int i = 0; i < 140000; i++) {
        memcpy(s + pos, "tpu-v2+", 7);
        pos += 7;
    }
    memcpy(s + pos, "2xtpu-v3", 9);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_cluster_parse(s, &c, &err), DNP_OK);
    CHECK_EQ_INT(c.n_types, 2);
    CHECK_EQ_INT(c.counts[0], 140000);
    CHECK_EQ_INT(dnp_cluster_devices(&c), 140002);

    /* Total just above the limit. */
    snprintf(s, n, "999999xtpu-v2+1xtpu-v3+1xtpu-v2");
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_cluster_parse(s, &c, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "total device count exceeds 1000000") != NULL);
    dnp_free(s);
}

/* Random bytes and mutations of valid specs: never crash; every success
 * round-trips, every failure is DNP_ERR_INPUT with a one-line message. */
TEST(cluster_parse_garbage)
{
    static const char *seeds[] = {
        "128xtpu-v2+128xtpu-v3",
        "4xcustom(name=g,tflops=100,mem_gb=32,membw_gbps=900,net_gbps=100,dtype=fp16)",
        "2*TPU-V2 + 2 x tpu-v2",
        "3x1080ti+v100",
        "2xdgx-a100+custom(name=g,tflops=1,net_gbps=1,per_node=2,node=n,topo=ring,intra_gbps=5)",
    };
    static const char alphabet[] = "0123456789x*+-()=,. eEtpuvcsomnaf_\t\x01\xff";
    unsigned long long st = 42;
    for (int iter = 0; iter < 20000; iter++) {
        char s[200];
        size_t len;
        if (iter % 2 == 0) {
            len = (size_t)(test_rand(&st) % 40);
            for (size_t i = 0; i < len; i++) {
                char ch = (char)(test_rand(&st) % 255 + 1);
                if (test_rand(&st) % 2)
                    ch = alphabet[test_rand(&st) % (sizeof alphabet - 1)];
                s[i] = ch;
            }
        } else {
            const char *seed = seeds[test_rand(&st) % 5];
            len = strlen(seed);
            memcpy(s, seed, len);
            int edits = 1 + (int)(test_rand(&st) % 3);
            for (int e = 0; e < edits && len > 0; e++) {
                size_t at = (size_t)(test_rand(&st) % len);
                char ch = alphabet[test_rand(&st) % (sizeof alphabet - 1)];
                switch (test_rand(&st) % 3) {
                case 0: s[at] = ch; break;
                case 1: memmove(s + at, s + at + 1, len - at - 1); len--; break;
                default:
                    if (len + 1 < sizeof s) {
                        memmove(s + at + 1, s + at, len - at);
                        s[at] = ch;
                        len++;
                    }
                }
            }
        }
        s[len] = '\0';
        dnp_cluster c;
        dnp_error err = {0};
        dnp_status rc = dnp_cluster_parse(s, &c, &err);
        if (rc == DNP_OK) {
            char buf[512];
            dnp_cluster back;
            dnp_cluster_format(&c, buf, sizeof buf);
            dnp_error err2 = {0};
            CHECK_EQ_INT(dnp_cluster_parse(buf, &back, &err2), DNP_OK);
            CHECK(cluster_equal(&c, &back));
            CHECK(c.n_types >= 1 && c.n_types <= DNP_MAX_DEVICE_TYPES);
        } else {
            CHECK_EQ_INT(rc, DNP_ERR_INPUT);
            CHECK(strchr(err.msg, '\n') == NULL);
            CHECK(strncmp(err.msg, "cluster spec '", 14) == 0);
        }
    }
}

/* price= (per device-hour, docs/cluster.md): on a preset as an override and
 * on a custom device, printed back, and through cluster JSON as
 * price_per_hour; a negative or non-numeric price is refused. */
TEST(cluster_price_round_trips)
{
    dnp_cluster c, back;
    char buf[512];
    check_round_trip("8xa100(price=1.5)+2xg4dn.12xlarge(price=0.4)", &c, buf, sizeof buf);
    CHECK_STR(buf, "8xa100(price=1.5)+2xg4dn.12xlarge(price=0.4)");
    CHECK(c.types[0].price_per_hour == 1.5 && c.types[1].price_per_hour == 0.4);
    char *json = dnp_cluster_to_json(&c);
    CHECK(json != NULL && strstr(json, "\"price_per_hour\": 1.5") != NULL);
    dnp_error err = {0};
    if (json != NULL) {
        CHECK_EQ_INT(dnp_cluster_read_json_buffer(json, strlen(json), "p.json", &back, &err),
                     DNP_OK);
        CHECK(back.types[0].price_per_hour == 1.5 && back.types[1].price_per_hour == 0.4);
    }
    dnp_free(json);
    check_round_trip("2xcustom(name=g,tflops=10,net_gbps=10,price=3)", &c, buf, sizeof buf);
    CHECK_STR(buf, "2xcustom(name=g,tflops=10,net_gbps=10,dtype=fp32,price=3)");
    CHECK_EQ_INT(dnp_cluster_parse("a100(price=-1)", &c, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "price") != NULL);
    /* presets carry none */
    CHECK_EQ_INT(dnp_cluster_parse("a100", &c, &err), DNP_OK);
    CHECK(c.types[0].price_per_hour == 0.0);
}

/* A bandwidth's unit said in its value overrides the key's (docs/cluster.md
 * "Units"): 50 GB/s = 400 Gb/s = 5e10 bytes/s; a lone unit or junk before
 * it is still an invalid number. */
TEST(cluster_bandwidth_units)
{
    static const char *const same[] = {"2xdgx-a100(inter_gbps=50GBps)",
                                       "2xdgx-a100(inter_gbps=400Gbps)",
                                       "2xdgx-a100(inter_gbps=400Gb/s)",
                                       "2xdgx-a100(inter_gbps=0.4Tbps)",
                                       "2xdgx-a100(inter_gbps=400000Mbps)",
                                       "2xdgx-a100(inter_gbps=400)"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        dnp_cluster c;
        dnp_error err = {0};
        CHECK_EQ_INT(dnp_cluster_parse(same[i], &c, &err), DNP_OK);
        CHECK_NEAR(c.types[0].inter_bw_bps, 5e10, 1e-12, 0);
    }
    dnp_cluster c;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("2xcustom(name=x,tflops=10,net_gbps=100,membw_gbps=2TB/s,node=n,per_node=2,topo=switch,"
                                   "intra_gbps=2400Gbps)",
                                   &c, &err),
                 DNP_OK);
    CHECK_NEAR(c.types[0].mem_bw_bps, 2e12, 1e-12, 0);
    CHECK_NEAR(c.types[0].intra_bw_bps, 3e11, 1e-12, 0);
    static const char *const bad[] = {"2xdgx-a100(inter_gbps=GBps)",
                                      "2xdgx-a100(inter_gbps=4x00Gbps)",
                                      "2xdgx-a100(inter_gbps=400gbps)",
                                      "2xdgx-a100(tflops=100GBps)",
                                      "2xdgx-a100(inter_gbps=-400Gbps)"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dnp_error e = {0};
        CHECK_EQ_INT(dnp_cluster_parse(bad[i], &c, &e), DNP_ERR_INPUT);
        CHECK(e.msg[0] != '\0');
    }
}

/* dnp_cluster_override changes the figures a preset override in a spec
 * would, on every type or on the types named, and leaves the cluster
 * untouched when it refuses. */
TEST(cluster_override)
{
    dnp_cluster c, spec, before;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("2xdgx-a100+2xdgx1", &c, &err), DNP_OK);
    before = c;
    /* every type: 400 Gb/s is 50e9 bytes/s per device, as "dgx-a100(inter_gbps=400)" */
    CHECK_EQ_INT(dnp_cluster_override(&c, NULL, "inter_gbps=400Gbps", &err), DNP_OK);
    CHECK_NEAR(c.types[0].inter_bw_bps, 50e9, 1e-15, 0.0);
    CHECK_NEAR(c.types[1].inter_bw_bps, 50e9, 1e-15, 0.0);
    CHECK_EQ_INT(dnp_cluster_parse("2xdgx-a100(inter_gbps=400)+2xdgx1(inter_gbps=400)", &spec,
                                   &err),
                 DNP_OK);
    CHECK(memcmp(&c, &spec, sizeof c) == 0);
    /* by node name (dgx1) or device name (v100), case-insensitive; two keys */
    c = before;
    CHECK_EQ_INT(dnp_cluster_override(&c, "DGX1", "intra_gbps=50,mem_gb=32", &err), DNP_OK);
    CHECK_NEAR(c.types[1].intra_bw_bps, 50e9, 1e-15, 0.0);
    CHECK_NEAR(c.types[1].mem_bytes, 32e9, 1e-15, 0.0);
    CHECK(memcmp(&c.types[0], &before.types[0], sizeof c.types[0]) == 0);
    c = before;
    CHECK_EQ_INT(dnp_cluster_override(&c, "v100", "tflops=100", &err), DNP_OK);
    CHECK_NEAR(c.types[1].peak_flops, 100e12, 1e-15, 0.0);
    /* refusals leave *c as it was */
    c = before;
    static const char *const bad[][2] = {{NULL, "name=x"},     {NULL, "per_node=2"},
                                         {NULL, "foo=1"},      {NULL, "tflops=-1"},
                                         {"h100", "tflops=1"}, {NULL, "tflops=1)"},
                                         {NULL, ""}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dnp_error e = {0};
        CHECK_EQ_INT(dnp_cluster_override(&c, bad[i][0], bad[i][1], &e), DNP_ERR_INPUT);
        CHECK(e.msg[0] != '\0');
        CHECK(memcmp(&c, &before, sizeof c) == 0);
    }
    /* node keys need a node */
    dnp_cluster bare;
    CHECK_EQ_INT(dnp_cluster_parse("8xa100", &bare, &err), DNP_OK);
    dnp_error e = {0};
    CHECK_EQ_INT(dnp_cluster_override(&bare, NULL, "intra_gbps=100", &e), DNP_ERR_INPUT);
    CHECK(strstr(e.msg, "per_node") != NULL);
}
