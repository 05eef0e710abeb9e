/*
 * iter_build.h - how the rules (iter_rules.c) append a core op's loop
 * nests to its iteration space: the container's append calls
 * (iter_space.c) and one nest builder per cost form (iter_nests.c).
 * Private to src/model: nothing else makes nests.
 */
#ifndef DNNPAR_ITER_BUILD_H
#define DNNPAR_ITER_BUILD_H

#include "model/iter_space.h"

/* An empty space (no core graph yet).  NULL on allocation failure.  O(1). */
iter_space *iter_space_new(void);
/* Append a nest (copied); returns its id or -1 (error recorded).
 * O(1) amortised. */
int iter_add_nest(iter_space *sp, const iter_nest *v);
/* Append the read of tensor t (skipped if t is a graph input) by input
 * `dst_port` of nest dst, which reads t's dimensions as the domain
 * dimensions in dst_map.  Returns 0 or -1 (error recorded).  O(rank). */
int iter_add_read(iter_space *sp, const iter_tensor *t, int dst, int dst_port,
                  const unsigned *dst_map);
/* Record a rule error (first one wins); returns -1.  O(1). */
int iter_fail(iter_space *sp, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A graph input of the given shape; dims is one letter per dimension
 * (e.g. "bchw").  O(rank). */
iter_tensor iter_input(int rank, const int64_t *shape, const char *dims);

/* ---- builders (iter_nests.c) -----------------------------------------
 * Each appends one nest whose inputs already exist, adds its in-edges,
 * writes its output tensor(s) and returns the nest id, or -1 with the
 * reason in sp->err (nothing is appended after the first error).  O(rank *
 * inputs).  Iteration spaces are those of the prototype (README "Layer
 * costs" names each domain). */

/* Conv on img (b, c, h, w): domain (b, c, h_out, w_out, r, s, n); h_out and
 * w_out never split (no halo exchange). */
int nest_conv_sized(iter_space *sp, const char *name, const iter_tensor *img, int64_t n_out,
                    int r, int s, int64_t h_out, int64_t w_out, int pw, iter_tensor *out);
/* Grouped convolution (ours; depthwise when groups = channels = n_out) on
 * img (b, C, h, w) with `groups` groups of C / groups input and
 * n_out / groups output channels, output size given: domain (b, g, c, h,
 * w, r, s, n) = (batch, groups, input channels per group, h_out, w_out,
 * kernel, output channels per group), h and w never split.  Each group is
 * the dense conv's GEMM (M = b h w, N = n, K = c r s) and g is a batch
 * dimension of that GEMM: splitting it divides input channels, output
 * channels and weights alike with no all-reduce.  The image's channels
 * read (g, c), the output's are (g, n), group-major.  Fails (sp->err) unless
 * groups divides C and n_out.  O(1). */
int nest_group_conv_sized(iter_space *sp, const char *name, const iter_tensor *img,
                          int64_t groups, int64_t n_out, int r, int s, int64_t h_out,
                          int64_t w_out, int pw, iter_tensor *out);
/* Max or average pooling on img (b, c, h, w), window r x s: domain
 * (b, c, h_out, w_out). */
int nest_pool_sized(iter_space *sp, const char *name, const iter_tensor *img, int r, int s,
                    int64_t h_out, int64_t w_out, iter_tensor *out);
/* Fully connected on in (b..., k): domain (b..., n, k). */
int nest_fc(iter_space *sp, const char *name, const iter_tensor *in, int64_t n_units, int pw,
            iter_tensor *out);
/* Element-wise op on 1 or 2 tensors of one shape (residual add, positional
 * encoding, unary point-wise): domain = the shape. */
int nest_elementwise(iter_space *sp, const char *name, int n_in, const iter_tensor *const *in,
                     int pw, iter_tensor *out);
/* Normalisation over `axis` (batch norm: 0; layer norm: the last). */
int nest_norm(iter_space *sp, const char *name, const iter_tensor *in, int axis,
              iter_tensor *out);
/* Mean over the axes in mask `axes`; keepdims keeps them as size 1. */
int nest_reduce_mean(iter_space *sp, const char *name, const iter_tensor *in, unsigned axes,
                     int keepdims, iter_tensor *out);
/* Softmax over `axis`. */
int nest_softmax(iter_space *sp, const char *name, const iter_tensor *in, int axis,
                 iter_tensor *out);
/* Softmax cross-entropy, classes on the last axis. */
int nest_sce(iter_space *sp, const char *name, const iter_tensor *in, iter_tensor *out);
/* Two-input contraction "in1,in2->out" (one letter per dimension; the
 * letters become the dimension names): domain = output dims, then the
 * reduction dims in order of appearance. */
int nest_einsum(iter_space *sp, const char *name, const char *eq, const iter_tensor *a,
                const iter_tensor *b, int pw, iter_tensor *out);
/* Embedding of ids (graph input, e.g. "bs") into `width` features: the
 * einsum "<ids>v,ve-><ids>e" of a one-hot (ids..., vocab) with the table
 * (vocab, width), v and e being vocab_dim and width_dim. */
int nest_embedding(iter_space *sp, const char *name, const iter_tensor *ids, int64_t vocab,
                   int64_t width, char vocab_dim, char width_dim, iter_tensor *out);
/* LSTM over in (b, s, e) with `layers` layers of `units` (= e) units, one
 * nest: domain (l, s, b, d, e) = (layers, sequence, batch, units out,
 * units in), the sequence never split. */
int nest_lstm(iter_space *sp, const char *name, const iter_tensor *in, int64_t units,
              int layers, iter_tensor *out);
/* Concatenation of n tensors along axis (never split). */
int nest_concat(iter_space *sp, const char *name, int n, const iter_tensor *const *in, int axis,
                iter_tensor *out);
/* Stack n tensors of one shape along a new axis (never split). */
int nest_stack(iter_space *sp, const char *name, int n, const iter_tensor *const *in, int axis,
               iter_tensor *out);
/* Unstack along axis (never split) into in->shape[axis] tensors out[]. */
int nest_unstack(iter_space *sp, const char *name, const iter_tensor *in, int axis,
                 iter_tensor *out);
/* Flatten to one dimension (the first half of a reshape). */
int nest_ravel(iter_space *sp, const char *name, const iter_tensor *in, iter_tensor *out);
/* A flat tensor to `shape` (the second half of a reshape). */
int nest_unravel(iter_space *sp, const char *name, const iter_tensor *in, int rank,
                 const int64_t *shape, const char *dims, iter_tensor *out);

#endif
