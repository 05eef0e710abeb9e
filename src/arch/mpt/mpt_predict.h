/*
 * mpt_predict.h - activation prediction from quantized Winograd-domain
 * tiles (the paper's Sec. V, Figs. 10-12) and its measurement on the data
 * we can make.  Internal to src/arch/mpt (the CLI uses
 * dnnpar.h, "MPT") and its tests.
 */
#ifndef DNNPAR_MPT_PREDICT_H
#define DNNPAR_MPT_PREDICT_H

#include "arch/mpt/mpt_model.h"
#include "arch/mpt/wino.h"

typedef struct {
    int bits;            /* code width including the sign bit: 6 for 2D, 5 for 1D predict */
    int regions;         /* regions of the range; the step doubles from one to the next */
    double range_sigmas; /* the range reaches at least this many standard deviations */
} mpt_quant_params;

/* The paper's settings (Sec. V-B): 4 regions; 6 bits for 2D, 5 for 1D
 * predict.  The range (3 sigma) is ours: the paper does not give it. */
mpt_quant_params mpt_quant_default(int one_d);

/*
 * Non-uniform quantizer of Fig. 10a.  Magnitudes use 2^(bits-1) codes in
 * `regions` regions of K = 2^(bits-1) / regions codes each; region k starts
 * at delta K (2^k - 1) and has step delta 2^k; the last code of the last
 * region marks overflow (|v| >= top).  delta is a power of two (Fig. 10b
 * shifts by log2(1/delta)), the smallest whose range reaches
 * range_sigmas * sigma.
 */
typedef struct {
    int bits, regions, steps; /* steps = K codes per region */
    int delta_log2;           /* delta = 2^delta_log2 */
    double top;               /* magnitudes from here on are overflow */
} mpt_quantizer;

/* Build a quantizer for values of standard deviation `sigma` (>= 0; 0 or
 * non-finite gives the finest step).  DNP_ERR_INPUT unless 2 <= bits <= 16,
 * regions >= 1, regions divides 2^(bits-1) with at least 2 codes per region,
 * and range_sigmas > 0.  O(1). */
dnp_status mpt_quantizer_make(const mpt_quant_params *p, double sigma, mpt_quantizer *q,
                              dnp_error *err);
/* Code of v: the sign in bit bits-1, the magnitude index below.  NaN codes
 * as positive overflow.  O(regions). */
unsigned mpt_quantize(const mpt_quantizer *q, float v);
/* The closed interval [lo, hi] every value with `code` lies in (infinite
 * on the open side of an overflow).  O(1). */
void mpt_code_interval(const mpt_quantizer *q, unsigned code, double *lo, double *hi);

/*
 * 2D predict (Sec. V-A): from the codes of a t_h x t_w output tile Y
 * (row-major), bound every output A_h^T Y A_w above by interval arithmetic
 * (positive coefficients take the upper end, negative ones the lower: the
 * paper's "positive and negative maximum possible errors"), add the float
 * rounding of the layer's own inverse transform and of this computation,
 * and return 1 only if every output in the first rows_valid x cols_valid
 * (the part inside the feature map) is then below zero.  `bias` is the
 * output channel's bias, known at the destination and added in float after
 * the inverse transform (0 for none).  A 1 therefore implies ReLU gives 0
 * for all of them: no false negatives.  O(t^3).
 */
int mpt_predict_tile(const mpt_wshape *s, const mpt_quantizer *q, const unsigned *codes,
                     int rows_valid, int cols_valid, float bias);
/*
 * 1D predict: codes of one column k of the first inverse pass
 * tmp = Y A_w (t_h values, computed on the source worker with real values);
 * returns 1 only if the first rows_valid outputs A_h^T tmp are surely below
 * zero.  O(t m).
 */
int mpt_predict_line(const mpt_wshape *s, const mpt_quantizer *q, const unsigned *codes,
                     int rows_valid, float bias);

/* ---- measurement -------------------------------------------------------- */

typedef struct {
    int regions;                 /* quantizer regions used */
    double tile_actual;          /* share of 2D units (tiles) whose neurons are all <= 0 */
    double tile_predicted;       /* share predicted inactive (6-bit codes) */
    double line_actual;          /* the same for 1D units (lines) */
    double line_predicted;       /* (5-bit codes) */
    double zero_values_2d;       /* share of input-tile values that are exactly 0 */
    double zero_lines_1d;        /* share of input-tile lines (t_w values) all 0 */
    double zero_tiles_2d;        /* share of input tiles (t_h x t_w values) all 0 */
    long long false_negatives;   /* predicted inactive yet a neuron > 0: must be 0 */
} mpt_predict_measure;

typedef struct {
    int batch, in_c, out_c, size;  /* the layer measured (square feature maps) */
    int first_c;                   /* channels of the synthetic image */
    double bias_sigmas;            /* output bias, in pre-activation standard deviations */
    unsigned long long seed;
} mpt_measure_setup;

/* The setup `dnnpar reproduce mpt` uses (docs/mpt.md, "Activation
 * prediction"): batch 4, 3 -> 32 -> 32 channels, 16x16 maps. */
mpt_measure_setup mpt_measure_default(void);

/*
 * Measure activation prediction on synthetic data: smooth random images
 * (sums of random low-frequency cosines), a first 3x3 convolution with
 * He-normal weights and ReLU making the input x, and the measured 3x3
 * layer (He-normal weights, output bias -bias_sigmas times the
 * pre-activation standard deviation) in F(2x2,3x3).  Fills out[k] for
 * 2^k regions, k = 0, 1, 2 (1, 2 and 4 regions; the region count must
 * divide the codes).  We have no ImageNet, CIFAR or trained
 * weights; see docs/mpt.md.  O(B I J H W).
 */
dnp_status mpt_predict_measure_run(const mpt_measure_setup *m, mpt_predict_measure out[3],
                                   dnp_error *err);

/* A trained network's first two 3x3 convolutions (pad 1) and input images:
 * the measured layer is the second; its input x = ReLU(conv1(img x
 * pixel_scale) + b1).  Weights OIHW. */
typedef struct {
    int batch, size, first_c, in_c, out_c; /* images, square map side, channels */
    double pixel_scale;                    /* network input = pixel x pixel_scale */
    int epochs;                            /* training epochs (for the reports) */
    double test_accuracy;                  /* on the held-out images */
    const unsigned char *img;              /* batch x first_c x size x size */
    const float *w1, *b1, *w2, *b2;
} mpt_trained_layer;

/* The CNN trained on the UCI handwritten digits that Debian's
 * python3-sklearn ships (act_digits.c, generated by
 * scripts/mpt-digits-train.py): 64 held-out 8x8 images, 1 -> 32 -> 32
 * channels. */
const mpt_trained_layer *mpt_digits_layer(void);

/* The measurement of mpt_predict_measure_run on a trained layer t: its own
 * weights and per-channel bias, inputs through its own first layer.
 * O(B I J H W). */
dnp_status mpt_predict_measure_trained(const mpt_trained_layer *t, mpt_predict_measure out[3],
                                       dnp_error *err);

/* The timing model's shares from a measurement: predicted-inactive units
 * net of their codes (6 of 32 bits per value in 2D, 5 in 1D), zero values
 * net of the one-bit map (for both modes; our run skips per value), and
 * for the backward gather the all-zero input tiles (2D) and lines (1D):
 * their inputs were inactive, so their input gradients are masked; the
 * activity is known from the forward scatter's zero map, so no code is
 * sent.  Negative nets become 0; from_paper = 0.  O(1). */
mpt_cuts mpt_cuts_measured(const mpt_predict_measure *m);

#endif
