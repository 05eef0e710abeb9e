/* test_onnx_fuse.c - the ONNX importer's fusion of decomposed layer norms,
 * GELUs and bias adds (src/model/onnx_fuse.c, docs/onnx.md "Fusion"), on
 * small models written here as protobuf (no onnx Python module needed)
 * and on data/onnx/bert_encoder4.onnx. */
#include "onnx.pb-c.h"
#include "test.h"

#include "dnnpar.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- */
/* A tiny model writer: one line per element,                        */
/*   input NAME D0 D1 ...        a float data input                  */
/*   init NAME D0 ...            a float initializer (shape only)    */
/*   const NAME VALUE            a Constant node, a float scalar     */
/*   OP IN... -> OUT [axes=A]    a node (axes: one int, as an attr)  */
/* ---------------------------------------------------------------- */

#define MB_MAX 40

typedef struct {
    char pool[4096];
    size_t used;
    Onnx__ModelProto m;
    Onnx__GraphProto gp;
    Onnx__NodeProto node[MB_MAX];
    Onnx__NodeProto *nodes[MB_MAX];
    char *node_in[MB_MAX][3], *node_out[MB_MAX][1];
    Onnx__AttributeProto attr[MB_MAX];
    Onnx__AttributeProto *attrs[MB_MAX][1];
    int64_t axes[MB_MAX];
    Onnx__TensorProto tensor[MB_MAX]; /* constants' values and initializers */
    Onnx__TensorProto *inits[MB_MAX];
    int64_t tdims[MB_MAX][4];
    float fval[MB_MAX];
    Onnx__ValueInfoProto in;
    Onnx__ValueInfoProto *ins[1];
    Onnx__TypeProto tp;
    Onnx__TypeProto__Tensor tt;
    Onnx__TensorShapeProto shape;
    Onnx__TensorShapeProto__Dimension d[4];
    Onnx__TensorShapeProto__Dimension *dp[4];
    int n_nodes, n_inits, n_tensors;
} mbuild;

static char *mb_str(mbuild *b, const char *s, size_t n)
{
    char *p = b->pool + b->used;
    memcpy(p, s, n);
    p[n] = '\0';
    b->used += n + 1;
    return p;
}

/* Split line into at most 12 tokens (copied into the pool). */
static int mb_tokens(mbuild *b, const char *line, char **tok)
{
    int n = 0;
    while (*line && n < 12) {
        while (*line == ' ')
            line++;
        size_t k = strcspn(line, " ");
        if (k == 0)
            break;
        tok[n++] = mb_str(b, line, k);
        line += k;
    }
    return n;
}

static Onnx__TensorProto *mb_tensor(mbuild *b, const char *name, int n_dims, char **dims)
{
    int k = b->n_tensors++;
    Onnx__TensorProto *t = &b->tensor[k];
    onnx__tensor_proto__init(t);
    t->name = (char *)name;
    t->has_data_type = 1;
    t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    for (int i = 0; i < n_dims; i++)
        b->tdims[k][i] = atoll(dims[i]);
    t->n_dims = (size_t)n_dims;
    t->dims = b->tdims[k];
    return t;
}

/* Pack the model of `spec` (lines separated by '\n') into a new buffer
 * (dnp_free). */
static uint8_t *mb_pack(const char *spec, size_t *len)
{
    mbuild *b = dnp_calloc(1, sizeof *b);
    onnx__model_proto__init(&b->m);
    onnx__graph_proto__init(&b->gp);
    for (const char *line = spec; *line;) {
        size_t k = strcspn(line, "\n");
        char buf[256], *tok[12];
        snprintf(buf, sizeof buf, "%.*s", (int)k, line);
        line += k + (line[k] == '\n');
        int n = mb_tokens(b, buf, tok);
        if (n == 0)
            continue;
        if (strcmp(tok[0], "input") == 0) {
            onnx__value_info_proto__init(&b->in);
            onnx__type_proto__init(&b->tp);
            onnx__type_proto__tensor__init(&b->tt);
            onnx__tensor_shape_proto__init(&b->shape);
            for (int i = 0; i < n - 2; i++) {
                onnx__tensor_shape_proto__dimension__init(&b->d[i]);
                b->d[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
                b->d[i].dim_value = atoll(tok[i + 2]);
                b->dp[i] = &b->d[i];
            }
            b->shape.n_dim = (size_t)(n - 2);
            b->shape.dim = b->dp;
            b->tt.has_elem_type = 1;
            b->tt.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
            b->tt.shape = &b->shape;
            b->tp.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
            b->tp.tensor_type = &b->tt;
            b->in.name = tok[1];
            b->in.type = &b->tp;
            b->ins[0] = &b->in;
            b->gp.n_input = 1;
            b->gp.input = b->ins;
            continue;
        }
        if (strcmp(tok[0], "init") == 0) {
            b->inits[b->n_inits++] = mb_tensor(b, tok[1], n - 2, tok + 2);
            continue;
        }
        int j = b->n_nodes++;
        Onnx__NodeProto *nd = &b->node[j];
        onnx__node_proto__init(nd);
        b->nodes[j] = nd;
        nd->name = mb_str(b, "", 0);
        if (strcmp(tok[0], "const") == 0) {
            Onnx__TensorProto *t = mb_tensor(b, "", 0, NULL);
            b->fval[j] = (float)atof(tok[2]);
            t->n_float_data = 1;
            t->float_data = &b->fval[j];
            onnx__attribute_proto__init(&b->attr[j]);
            b->attr[j].name = (char *)"value";
            b->attr[j].has_type = 1;
            b->attr[j].type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
            b->attr[j].t = t;
            b->attrs[j][0] = &b->attr[j];
            nd->op_type = (char *)"Constant";
            nd->n_attribute = 1;
            nd->attribute = b->attrs[j];
            b->node_out[j][0] = tok[1];
            nd->n_output = 1;
            nd->output = b->node_out[j];
            continue;
        }
        nd->op_type = tok[0];
        int i = 1;
        for (; i < n && strcmp(tok[i], "->") != 0; i++)
            b->node_in[j][nd->n_input++] = tok[i];
        nd->input = b->node_in[j];
        b->node_out[j][0] = tok[i + 1];
        nd->n_output = 1;
        nd->output = b->node_out[j];
        if (i + 2 < n && strncmp(tok[i + 2], "axes=", 5) == 0) {
            b->axes[j] = atoll(tok[i + 2] + 5);
            onnx__attribute_proto__init(&b->attr[j]);
            b->attr[j].name = (char *)"axes";
            b->attr[j].has_type = 1;
            b->attr[j].type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
            b->attr[j].n_ints = 1;
            b->attr[j].ints = &b->axes[j];
            b->attrs[j][0] = &b->attr[j];
            nd->n_attribute = 1;
            nd->attribute = b->attrs[j];
        }
    }
    b->gp.n_node = (size_t)b->n_nodes;
    b->gp.node = b->nodes;
    b->gp.n_initializer = (size_t)b->n_inits;
    b->gp.initializer = b->inits;
    b->m.graph = &b->gp;
    *len = onnx__model_proto__get_packed_size(&b->m);
    uint8_t *buf = dnp_malloc(*len);
    onnx__model_proto__pack(&b->m, buf);
    dnp_free(b);
    return buf;
}

/* Load spec; NULL (and a failed check) if it does not load. */
static dnp_graph *mb_load(const char *spec)
{
    size_t len = 0;
    uint8_t *buf = mb_pack(spec, &len);
    dnp_graph *g = NULL;
    dnp_error err = {0};
    dnp_status st = dnp_load_onnx_buffer(buf, len, "t.onnx", NULL, &g, &err);
    dnp_free(buf);
    CHECK(st == DNP_OK);
    if (st != DNP_OK)
        printf("  load: %s\n", err.msg);
    return st == DNP_OK ? g : NULL;
}

static int64_t params_of(const dnp_graph *g)
{
    dnp_graph_totals t;
    dnp_graph_totals_get(g, 1, &t);
    return t.params;
}

/* A Linear 8 -> 8 on a 1 x 4 x 8 input (MatMul, then the bias Add): the
 * tensor h is its output. */
#define LINEAR                                                                               \
    "input x 1 4 8\ninit W 8 8\ninit bias 8\ninit gamma 8\ninit beta 8\n"                     \
    "MatMul x W -> mm\nAdd mm bias -> h\n"

/* PyTorch 1.13's layer norm at opset 13 (symbolic_opset9.native_layer_norm). */
#define LAYER_NORM(axes, eps_sqrt)                                                           \
    "ReduceMean h -> mean axes=" axes "\nSub h mean -> d\nconst two 2.0\nPow d two -> p\n"    \
    "ReduceMean p -> var axes=" axes "\nconst eps 1e-5\n" eps_sqrt                           \
    "Div d s -> n\nMul n gamma -> m\nAdd m beta -> y\n"
/* sqrt(var + eps), as the formula; sqrt(var) + eps is another function */
#define EPS_THEN_SQRT "Add var eps -> ve\nSqrt ve -> s\n"
#define SQRT_THEN_EPS "Sqrt var -> sv\nAdd sv eps -> s\n"

TEST(onnx_fuse_layer_norm)
{
    dnp_graph *g = mb_load(LINEAR LAYER_NORM("-1", EPS_THEN_SQRT));
    if (g == NULL)
        return;
    /* input, FC with its bias, layer norm: 13 imported ops became 3 */
    CHECK_EQ_INT(dnp_graph_n_ops(g), 3);
    CHECK(strstr(dnp_graph_note(g), "3 ops; fused 1 decomposed layer norm, 1 bias add") != NULL);
    const dnp_op *fc = dnp_graph_op(g, 1), *ln = dnp_graph_op(g, 2);
    CHECK_EQ_INT(fc->kind, DNP_OP_FC);
    CHECK_EQ_INT(fc->bias, 1);
    CHECK_EQ_INT(ln->kind, DNP_OP_LAYERNORM);
    CHECK_STR(ln->src_type, "LayerNormalization");
    CHECK_EQ_INT(ln->inputs[0], 1);
    CHECK_EQ_INT(ln->param_elems, 16); /* gamma 8 + beta 8 */
    /* W 64 + bias 8 + gamma 8 + beta 8, as the unfused import counted them */
    CHECK_EQ_INT(params_of(g), 88);
    dnp_op_cost c;
    dnp_op_cost_get(g, 2, 1, &c);
    CHECK_NEAR(c.fwd_flop, 4.0 * 32, 0, 0); /* graph.c: 4 per element, 4 x 8 elements */
    CHECK_EQ_INT(c.params, 16);
    dnp_graph_free(g);
}

/* Near misses stay as imported: a mean over another axis, eps added after
 * the square root, a piece read by a second op. */
TEST(onnx_fuse_layer_norm_near_misses)
{
    dnp_graph *g = mb_load(LINEAR LAYER_NORM("1", EPS_THEN_SQRT));
    if (g != NULL) {
        /* input, FC (bias fused) and the 9 pieces */
        CHECK_EQ_INT(dnp_graph_n_ops(g), 11);
        CHECK(strstr(dnp_graph_note(g), "11 ops; fused 1 bias add") != NULL);
        CHECK(strstr(dnp_graph_note(g), "layer norm") == NULL);
        CHECK_EQ_INT(params_of(g), 88);
        dnp_graph_free(g);
    }
    g = mb_load(LINEAR LAYER_NORM("-1", SQRT_THEN_EPS));
    if (g != NULL) {
        CHECK_EQ_INT(dnp_graph_n_ops(g), 11);
        CHECK(strstr(dnp_graph_note(g), "layer norm") == NULL);
        for (int i = 0; i < dnp_graph_n_ops(g); i++)
            CHECK(dnp_graph_op(g, i)->kind != DNP_OP_LAYERNORM);
        dnp_graph_free(g);
    }
    /* x - mean also feeds the output: the pieces must stay */
    g = mb_load(LINEAR LAYER_NORM("-1", EPS_THEN_SQRT) "Add y d -> out\n");
    if (g != NULL) {
        CHECK_EQ_INT(dnp_graph_n_ops(g), 12);
        CHECK(strstr(dnp_graph_note(g), "layer norm") == NULL);
        dnp_graph_free(g);
    }
    /* positive axis 2 of the 3-D tensor is the last axis: fused */
    g = mb_load(LINEAR LAYER_NORM("2", EPS_THEN_SQRT));
    if (g != NULL) {
        CHECK_EQ_INT(dnp_graph_n_ops(g), 3);
        dnp_graph_free(g);
    }
}

/* GELU, erf form, as PyTorch 1.13 exports nn.GELU (x * 0.5 * (1 + erf(x /
 * sqrt 2))), and the other associations of its products. */
TEST(onnx_fuse_gelu)
{
    static const char *const tails[] = {
        "Mul h t -> xt\nMul xt half -> y\n",      /* (x t) 0.5: PyTorch */
        "Mul half t -> ht\nMul h ht -> y\n",      /* x (0.5 t) */
        "Mul h half -> xh\nMul t xh -> y\n",      /* (0.5 x) t */
    };
    for (int k = 0; k < 3; k++) {
        char spec[1024];
        snprintf(spec, sizeof spec,
                 LINEAR "const r2 1.4142135381698608\nDiv h r2 -> u\nErf u -> e\n"
                        "const one 1.0\nAdd e one -> t\nconst half 0.5\n%s",
                 tails[k]);
        dnp_graph *g = mb_load(spec);
        if (g == NULL)
            continue;
        CHECK_EQ_INT(dnp_graph_n_ops(g), 3);
        CHECK(strstr(dnp_graph_note(g), "3 ops; fused 1 GELU, 1 bias add") != NULL);
        const dnp_op *act = dnp_graph_op(g, 2);
        CHECK_EQ_INT(act->kind, DNP_OP_ELTWISE);
        CHECK_STR(act->src_type, "Gelu");
        CHECK_EQ_INT(act->inputs[0], 1);
        CHECK_EQ_INT(act->param_elems, 0);
        CHECK_EQ_INT(params_of(g), 72); /* W 64 + bias 8 */
        dnp_graph_free(g);
    }
    /* x * (1/sqrt 2) in place of x / sqrt 2 */
    dnp_graph *g = mb_load(LINEAR "const r 0.70710678\nMul h r -> u\nErf u -> e\n"
                                  "const one 1.0\nAdd e one -> t\nconst half 0.5\n"
                                  "Mul h t -> xt\nMul xt half -> y\n");
    if (g != NULL) {
        CHECK_EQ_INT(dnp_graph_n_ops(g), 3);
        dnp_graph_free(g);
    }
    /* the tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
    g = mb_load(LINEAR "const three 3.0\nPow h three -> c\nconst k 0.044715\nMul c k -> kc\n"
                       "Add h kc -> v\nconst s 0.7978845608\nMul v s -> w\nTanh w -> th\n"
                       "const one 1.0\nAdd th one -> t\nconst half 0.5\n"
                       "Mul h t -> xt\nMul xt half -> y\n");
    if (g != NULL) {
        CHECK_EQ_INT(dnp_graph_n_ops(g), 3);
        CHECK(strstr(dnp_graph_note(g), "1 GELU") != NULL);
        CHECK_STR(dnp_graph_op(g, 2)->src_type, "Gelu");
        dnp_graph_free(g);
    }
}

/* Near misses: x / 2 (not sqrt 2), 0.4 in place of 0.5, a sigmoid. */
TEST(onnx_fuse_gelu_near_misses)
{
    static const char *const specs[] = {
        LINEAR "const r2 2.0\nDiv h r2 -> u\nErf u -> e\nconst one 1.0\nAdd e one -> t\n"
               "const half 0.5\nMul h t -> xt\nMul xt half -> y\n",
        LINEAR "const r2 1.4142135\nDiv h r2 -> u\nErf u -> e\nconst one 1.0\nAdd e one -> t\n"
               "const half 0.4\nMul h t -> xt\nMul xt half -> y\n",
        LINEAR "const r2 1.4142135\nDiv h r2 -> u\nSigmoid u -> e\nconst one 1.0\n"
               "Add e one -> t\nconst half 0.5\nMul h t -> xt\nMul xt half -> y\n",
    };
    for (int k = 0; k < 3; k++) {
        dnp_graph *g = mb_load(specs[k]);
        if (g == NULL)
            continue;
        CHECK_EQ_INT(dnp_graph_n_ops(g), 7); /* input, FC, 5 element-wise ops */
        CHECK(strstr(dnp_graph_note(g), "7 ops; fused 1 bias add") != NULL);
        CHECK(strstr(dnp_graph_note(g), "GELU") == NULL);
        dnp_graph_free(g);
    }
}

/* A bias is a parameter vector of the MatMul's output features; other
 * Adds after a MatMul stay. */
TEST(onnx_fuse_bias_add)
{
    dnp_graph *g = mb_load(LINEAR);
    if (g != NULL) {
        CHECK_EQ_INT(dnp_graph_n_ops(g), 2);
        CHECK_EQ_INT(dnp_graph_op(g, 1)->bias, 1);
        dnp_op_cost c;
        dnp_op_cost_get(g, 1, 1, &c);
        CHECK_EQ_INT(c.params, 72);
        /* 2 x 4 x 8 x 8 - 32 products and sums, + 32 bias adds */
        CHECK_NEAR(c.fwd_flop, 2.0 * 256 - 32 + 32, 0, 0);
        dnp_graph_free(g);
    }
    /* a 4 x 1 tensor (per position, not per feature): not a bias */
    g = mb_load("input x 1 4 8\ninit W 8 8\ninit pos 4 1\nMatMul x W -> mm\nAdd mm pos -> h\n");
    if (g != NULL) {
        CHECK_EQ_INT(dnp_graph_n_ops(g), 3);
        CHECK_EQ_INT(dnp_graph_op(g, 1)->bias, 0);
        CHECK(strstr(dnp_graph_note(g), "fused") == NULL);
        CHECK_EQ_INT(params_of(g), 68);
        dnp_graph_free(g);
    }
    /* the MatMul's output read twice (the Add and a Relu): not fused */
    g = mb_load("input x 1 4 8\ninit W 8 8\ninit bias 8\nMatMul x W -> mm\nAdd mm bias -> h\n"
                "Relu mm -> r\nAdd h r -> y\n");
    if (g != NULL) {
        CHECK_EQ_INT(dnp_graph_n_ops(g), 5);
        CHECK_EQ_INT(dnp_graph_op(g, 1)->bias, 0);
        dnp_graph_free(g);
    }
}

/* data/onnx/bert_encoder4.onnx (opset 13: 4 post-norm encoder layers, ReLU):
 * 188 imported ops, 111 after fusing its 8 layer norms (9 ops each) and
 * 13 bias Adds (QKV, linear1, linear2 per layer, the head); the attention
 * output projection is a Gemm with its bias already.  Parameters are
 * data/onnx/README.md's 75,263,802 either way. */
TEST(onnx_fuse_bert_encoder4)
{
    char path[512];
    snprintf(path, sizeof path, "%s/onnx/bert_encoder4.onnx", test_data_dir());
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK(dnp_load_onnx(path, NULL, &g, &err) == DNP_OK);
    if (g == NULL)
        return;
    CHECK_EQ_INT(dnp_graph_n_ops(g), 188 - 8 * 8 - 13);
    CHECK(strstr(dnp_graph_note(g), "111 ops; fused 8 decomposed layer norms, 13 bias adds") !=
          NULL);
    CHECK_EQ_INT(params_of(g), 75263802);
    int ln = 0, fc_bias = 0, reduce = 0;
    for (int i = 0; i < dnp_graph_n_ops(g); i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        ln += op->kind == DNP_OP_LAYERNORM && op->param_elems == 2 * 768;
        fc_bias += op->kind == DNP_OP_FC && op->bias;
        reduce += op->kind == DNP_OP_REDUCE;
    }
    CHECK_EQ_INT(ln, 8);
    CHECK_EQ_INT(fc_bias, 4 * 4 + 1);
    CHECK_EQ_INT(reduce, 0);
    dnp_graph_free(g);
}
