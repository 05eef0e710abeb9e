/*
 * bench_mpt.c - medians of the MPT module's real work: the single-worker
 * Winograd layer against direct convolution, the intra-tile x data-parallel
 * step on 1 and 4 OS threads, and the timing model over whole networks.
 * Reports medians of 7 runs; asserts nothing.
 */
#include "arch/mpt/mpt_exec.h"
#include "arch/mpt/mpt_model.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>

#define RUNS 7

typedef struct {
    mpt_wshape s;
    mpt_transform tf;
    float *x, *W, *dz, *y, *dx, *dW;
    double *xd, *wd, *yd;
    size_t nx, ny, nW, nw;
} layer;

static int layer_make(layer *l, int m, int batch, int ch, int size)
{
    dnp_error err = {0};
    if (mpt_transform_make(m, 3, &l->tf, &err) != DNP_OK)
        return 0;
    l->s = (mpt_wshape){batch, ch, ch, size, size, 1, 1, &l->tf, &l->tf};
    mpt_wgeom g;
    mpt_wgeom_get(&l->s, &g);
    l->nx = l->ny = (size_t)batch * ch * size * size;
    l->nW = (size_t)g.elems * ch * ch;
    l->nw = (size_t)ch * ch * 9;
    l->x = dnp_malloc(sizeof *l->x * l->nx);
    l->dz = dnp_malloc(sizeof *l->dz * l->ny);
    l->y = dnp_malloc(sizeof *l->y * l->ny);
    l->dx = dnp_malloc(sizeof *l->dx * l->nx);
    l->W = dnp_malloc(sizeof *l->W * l->nW);
    l->dW = dnp_malloc(sizeof *l->dW * l->nW);
    l->xd = dnp_malloc(sizeof *l->xd * l->nx);
    l->wd = dnp_malloc(sizeof *l->wd * l->nw);
    l->yd = dnp_malloc(sizeof *l->yd * l->ny);
    if (!l->x || !l->dz || !l->y || !l->dx || !l->W || !l->dW || !l->xd || !l->wd || !l->yd)
        return 0;
    unsigned long long r = 1;
    for (size_t k = 0; k < l->nx; k++) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        l->x[k] = (float)((double)(r >> 11) * 0x1p-53);
        l->dz[k] = l->x[k] - 0.5f;
        l->xd[k] = l->x[k];
    }
    for (size_t k = 0; k < l->nW; k++)
        l->W[k] = (float)((k * 2654435761u) % 1000) * 1e-3f - 0.5f;
    for (size_t k = 0; k < l->nw; k++)
        l->wd[k] = (double)((k * 40503u) % 1000) * 1e-3 - 0.5;
    return 1;
}

static void layer_free(layer *l)
{
    dnp_free(l->x), dnp_free(l->dz), dnp_free(l->y), dnp_free(l->dx), dnp_free(l->W), dnp_free(l->dW);
    dnp_free(l->xd), dnp_free(l->wd), dnp_free(l->yd);
}

int main(void)
{
    layer l;
    double t[RUNS];
    dnp_error err = {0};
    if (!layer_make(&l, 2, 8, 64, 16)) {
        fprintf(stderr, "bench_mpt: setup failed\n");
        return 1;
    }
    printf("layer 64 -> 64 channels, 16x16, batch 8, F(2x2,3x3)\n");
    for (int k = 0; k < RUNS; k++) {
        double s = bench_now_s();
        mpt_wino_fprop(&l.s, l.x, l.W, l.y, &err);
        mpt_wino_bprop(&l.s, l.dz, l.W, l.dx, &err);
        mpt_wino_wgrad(&l.s, l.x, l.dz, l.dW, &err);
        t[k] = bench_now_s() - s;
    }
    printf("  winograd fprop+bprop+wgrad, one worker:   %8.2f ms\n", 1e3 * bench_median(t, RUNS));
    mpt_dshape ds = mpt_dshape_of(&l.s);
    for (int k = 0; k < RUNS; k++) {
        double s = bench_now_s();
        mpt_direct_fprop(&ds, l.xd, l.wd, l.yd);
        t[k] = bench_now_s() - s;
    }
    printf("  direct fprop in double (the reference):   %8.2f ms\n", 1e3 * bench_median(t, RUNS));
    static const int grids[][3] = {{4, 2, 1}, {4, 2, 4}, {16, 2, 1}, {16, 2, 4}};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        mpt_exec_opts o = mpt_exec_default(grids[g][0], grids[g][1]);
        o.threads = grids[g][2];
        o.predict = o.zero_skip = 1;
        for (int k = 0; k < RUNS; k++) {
            double s = bench_now_s();
            mpt_exec_step(&l.s, l.x, l.W, l.dz, &o, l.y, l.dx, l.dW, NULL, &err);
            t[k] = bench_now_s() - s;
        }
        printf("  MPT step %2dx%d, prediction, %d thread%s:  %8.2f ms\n", grids[g][0],
               grids[g][1], grids[g][2], grids[g][2] > 1 ? "s" : " ", 1e3 * bench_median(t, RUNS));
    }
    layer_free(&l);
    mpt_sys sys;
    if (mpt_sys_paper(&sys, &err) != DNP_OK) {
        printf("bench_mpt: %s\n", err.msg);
        return 1;
    }
    sys.hw = mpt_hw_paper(1);
    mpt_wholenet wn;
    for (int k = 0; k < RUNS; k++) {
        double s = bench_now_s();
        mpt_wholenet_run(&sys, &wn, &err);
        t[k] = bench_now_s() - s;
    }
    printf("timing model, Fig. 17 (3 networks x 7 evaluations): %.2f ms\n", 1e3 * bench_median(t, RUNS));
    return 0;
}
