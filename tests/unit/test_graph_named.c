/* test_graph_named.c - ops on named axes (src/model/graph_named.c): sizes
 * and costs by hand count, the conversion to PaSE's graph on small
 * hand-worked graphs, the prototype's RNNLM and Transformer as zoo models,
 * JSON round trips, builder and loader errors, and the refusal of the
 * layer-wise planner. */
#include "model/graph_named.h"
#include "core/einsum_eq.h"
#include "search/pase/pase.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* einsum 'ble,ef->blf' with l 4, e 3, f 5 at batch 2: 4*5*3 = 60 MACs per
 * sample, a 3x5 weight; M = 120 products: forward 2M - A(out) = 240 - 40,
 * input error 2M - A(in) = 240 - 24, weight gradient 2M - A(W) = 240 - 15. */
TEST(named_einsum_cost_by_hand)
{
    dnp_graph *g = dnp_graph_new("t");
    static const int64_t le[2] = {4, 3}, f[1] = {5};
    int x = graph_named_input(g, "x", "ble", le);
    int y = graph_named_einsum(g, "ff", "ble,ef->blf", x, -1, "f", f);
    CHECK(y == 1);
    const dnp_op *op = dnp_graph_op(g, y);
    CHECK_STR(op->axes, "blf");
    CHECK_STR(op->loops, "blfe");
    CHECK_EQ_INT(dnp_op_out_view(op).c, 5);
    CHECK_EQ_INT(dnp_op_out_view(op).h, 4);
    dnp_op_cost c;
    dnp_op_cost_get(g, y, 2, &c);
    CHECK_EQ_INT(c.macs_per_sample, 60);
    CHECK_EQ_INT(c.params, 15);
    CHECK_NEAR(c.fwd_flop, 200.0, 0, 0);
    CHECK_NEAR(c.bwd_flop, 216.0, 0, 0);
    CHECK_NEAR(c.grad_flop, 225.0, 0, 0);
    /* two activations: 'blf,bmf->blm' (m = l = 4): 4*4*5 = 80 MACs */
    int z = graph_named_einsum(g, "mm", "blf,bmf->blm", y, y, NULL, NULL);
    CHECK(z == 2);
    dnp_op_cost_get(g, z, 1, &c);
    CHECK_EQ_INT(c.macs_per_sample, 80);
    CHECK_EQ_INT(c.params, 0);
    /* M = 80: forward 160 - 16; input errors 4M - (20 + 20) */
    CHECK_NEAR(c.fwd_flop, 144.0, 0, 0);
    CHECK_NEAR(c.bwd_flop, 280.0, 0, 0);
    CHECK(dnp_graph_error(g)[0] == '\0');
    dnp_graph_free(g);
}

/* 2 layers of 2 units over (b, 3, 2): per layer 4 gates x 2 units x (2 + 2)
 * inputs = 32 weights; 64 in all, 64 x 3 positions = 192 MACs per sample,
 * 96 parameters with b_ih and b_hh (8 per layer and unit). */
TEST(named_lstm_cost_by_hand)
{
    dnp_graph *g = dnp_graph_new("t");
    static const int64_t sd[2] = {3, 2};
    int x = graph_named_input(g, "x", "bsd", sd);
    int y = graph_named_lstm(g, "lstm", x, 2, 2);
    CHECK(y == 1);
    dnp_op_cost c;
    dnp_op_cost_get(g, y, 1, &c);
    CHECK_EQ_INT(c.macs_per_sample, 192);
    CHECK_EQ_INT(c.weight_elems, 64);
    CHECK_EQ_INT(c.params, 96);
    /* 2M + cells (2 x 4u + 9u): cells = 3 positions x 2 layers = 6, u = 2 */
    CHECK_NEAR(c.fwd_flop, 384.0 + 6.0 * 34.0, 0, 0);
    dnp_graph_free(g);
}

TEST(named_builder_errors)
{
    dnp_graph *g = dnp_graph_new("t");
    static const int64_t le[2] = {4, 3};
    int x = graph_named_input(g, "x", "ble", le);
    CHECK(graph_named_einsum(g, "bad", "ble,ef->blf", x, -1, NULL, NULL) < 0);
    CHECK(strstr(dnp_graph_error(g), "letter 'f' has no extent") != NULL);
    dnp_graph *h = dnp_graph_new("t");
    x = graph_named_input(h, "x", "ble", le);
    CHECK(graph_named_select(h, "s", x, 0, 0) < 0); /* the batch */
    CHECK(strstr(dnp_graph_error(h), "select 's'") != NULL);
    dnp_graph *k = dnp_graph_new("t");
    CHECK(graph_named_input(k, "x", "le", le) < 0);
    CHECK(strstr(dnp_graph_error(k), "no batch axis 'b'") != NULL);
    dnp_graph_free(g);
    dnp_graph_free(h);
    dnp_graph_free(k);
}

/* stack(x, x) along a new axis 's', then both slices: one Stack vertex and
 * one Unstack vertex with two outputs; the einsum reads slice 1. */
TEST(named_convert_stack_select)
{
    dnp_graph *g = dnp_graph_new("t");
    static const int64_t le[2] = {4, 6}, f[1] = {8};
    int x = graph_named_input(g, "x", "ble", le);
    const int two[2] = {x, x};
    int s = graph_named_stack(g, "st", 2, two, 0, 's');
    int a = graph_named_select(g, "un.0", s, 0, 0);
    int b = graph_named_select(g, "un.1", s, 0, 1);
    graph_named_annotate(g, a, NULL, 'e'); /* the select that makes the vertex */
    int y = graph_named_einsum(g, "proj", "ble,ef->blf", b, -1, "f", f);
    int z = graph_named_like(g, "out", DNP_OP_SOFTMAX, 1, &y, 0);
    CHECK(a >= 0 && z >= 0);
    iter_space *pg = NULL;
    dnp_error err = {0};
    CHECK(iter_space_build(g, 16, &pg, &err) == DNP_OK);
    if (pg != NULL) {
        CHECK_EQ_INT(pg->n_nest, 4); /* stack, unstack, einsum, loss */
        CHECK_EQ_INT(pg->nest[0].kind, ITER_STACK);
        CHECK_EQ_INT(pg->nest[1].kind, ITER_UNSTACK);
        CHECK_STR(pg->nest[1].name, "un");
        CHECK_EQ_INT(pg->nest[1].model_dim, 3); /* dims s b l e: 'e' */
        CHECK_EQ_INT(pg->nest[2].kind, ITER_EINSUM);
        CHECK_EQ_INT(pg->nest[2].dom[0], 16);
        CHECK_EQ_INT(pg->nest[2].dom[3], 6);
        CHECK_EQ_INT(pg->nest[3].kind, ITER_SCE); /* nothing reads it: the loss */
        /* stack <- x twice (graph input: no edge); unstack <- stack;
         * einsum <- unstack port 1; loss <- einsum */
        CHECK_EQ_INT(pg->n_read, 3);
        CHECK_EQ_INT(pg->read[1].src, 1);
        CHECK_EQ_INT(pg->read[1].src_port, 1);
    }
    iter_space_free(pg);
    dnp_graph_free(g);
}

/* The prototype's sequence models as zoo models: sizes, Table II's names,
 * the expert's model dims. */
TEST(named_pase_reference_models)
{
    iter_space *g = NULL;
    dnp_error err = {0};
    CHECK(pase_model_build("pase-rnnlm", 64, &g, &err) == DNP_OK);
    if (g != NULL) {
        CHECK_EQ_INT(g->n_nest, 4);
        CHECK_EQ_INT(g->n_read, 3);
        CHECK_EQ_INT(pase_model_cutoff(pase_model_find(dnp_graph_name(g->core))), 1);
        CHECK_EQ_INT(g->nest[1].kind, ITER_LSTM);
        CHECK_STR(g->nest[2].dim[2], "v"); /* fc: b s v d */
        CHECK_STR(g->nest[2].dim[3], "d");
        CHECK_EQ_INT(g->nest[2].dom[2], 100000);
        CHECK_STR(g->nest[3].dim[2], "v");
    }
    iter_space_free(g);
    g = NULL;
    CHECK(pase_model_build("pase-transformer", 64, &g, &err) == DNP_OK);
    if (g != NULL) {
        CHECK_EQ_INT(g->n_nest, 204);
        CHECK_EQ_INT(pase_model_cutoff(pase_model_find(dnp_graph_name(g->core))), 1);
        CHECK_STR(g->nest[2].name, "enc0.qkv");
        CHECK_STR(g->nest[3].name, "enc0.unstack");
        CHECK_EQ_INT(g->nest[3].model_dim, 2); /* s b h l k */
        CHECK_EQ_INT(g->nest[5].kind, ITER_SOFTMAX);
        CHECK_EQ_INT(g->nest[5].model_dim, 1); /* b h l m */
        int ff1 = -1;
        for (int v = 0; v < g->n_nest && ff1 < 0; v++)
            if (strcmp(g->nest[v].name, "enc0.ff1") == 0)
                ff1 = v;
        CHECK(ff1 >= 0 && g->nest[ff1].pw == 2); /* bias and ReLU fused */
        CHECK_EQ_INT(g->nest[g->n_nest - 1].kind, ITER_SCE);
    }
    iter_space_free(g);
}

/* Write the Transformer as JSON, read it back: the same text and the same
 * iteration space. */
TEST(named_json_round_trip)
{
    dnp_graph *g = NULL, *h = NULL;
    dnp_error err = {0};
    CHECK(dnp_zoo_build("pase-transformer", &g, &err) == DNP_OK);
    char *a = dnp_model_to_json(g);
    CHECK(a != NULL && strstr(a, "\"equation\": \"ble,shek->sbhlk\"") != NULL);
    CHECK(dnp_model_read_json_buffer(a, strlen(a), "t.json", &h, &err) == DNP_OK);
    if (h != NULL) {
        char *b = dnp_model_to_json(h);
        CHECK(b != NULL && strcmp(a, b) == 0);
        dnp_free(b);
        iter_space *x = NULL, *y = NULL;
        CHECK(iter_space_build(g, 8, &x, &err) == DNP_OK);
        CHECK(iter_space_build(h, 8, &y, &err) == DNP_OK);
        if (x && y) {
            CHECK(x->n_nest == y->n_nest && x->n_read == y->n_read);
            int same = 1;
            for (int v = 0; same && v < x->n_nest; v++)
                same = memcmp(&x->nest[v], &y->nest[v], sizeof x->nest[v]) == 0;
            for (int e = 0; same && e < x->n_read; e++)
                same = memcmp(&x->read[e], &y->read[e], sizeof x->read[e]) == 0;
            CHECK(same);
        }
        iter_space_free(x);
        iter_space_free(y);
    }
    dnp_free(a);
    dnp_graph_free(g);
    dnp_graph_free(h);
    /* a select whose axes do not fit its input */
    static const char bad[] =
        "{\"format\": \"dnnpar-model\", \"version\": 1, \"name\": \"m\", \"ops\": ["
        "{\"name\": \"x\", \"kind\": \"input\", \"inputs\": [], \"out\": [6, 4, 1],"
        " \"dims\": [4, 6], \"axes\": \"ble\"},"
        "{\"name\": \"s\", \"kind\": \"select\", \"inputs\": [\"x\"], \"out\": [6, 1, 1],"
        " \"dims\": [6], \"axes\": \"be\", \"axis\": 0}]}";
    h = NULL;
    dnp_error e2 = {0};
    CHECK(dnp_model_read_json_buffer(bad, strlen(bad), "bad.json", &h, &e2) == DNP_ERR_INPUT);
    CHECK(strstr(e2.msg, "'s'") != NULL && strstr(e2.msg, "axes 'be'") != NULL);
    dnp_graph_free(h);
}

/* The layer-wise planner plans the named-axes kinds (docs/model.md "Named
 * axes"): a weighted einsum and an LSTM are layers, an einsum of two
 * activations and a stack joins, a select folded; the LSTM takes Type-I at
 * every level under every scheme. */
TEST(named_layerwise_plans)
{
    dnp_graph *g = NULL, *t = NULL;
    dnp_error err = {0};
    CHECK(dnp_zoo_build("pase-rnnlm", &g, &err) == DNP_OK);
    CHECK(dnp_zoo_build("pase-transformer", &t, &err) == DNP_OK);
    if (g == NULL || t == NULL) {
        dnp_graph_free(g);
        dnp_graph_free(t);
        return;
    }
    const dnp_op *qkv = dnp_graph_op(t, dnp_graph_find(t, "enc0.qkv"));
    const dnp_op *logits = dnp_graph_op(t, dnp_graph_find(t, "enc0.logits"));
    const dnp_op *sel = dnp_graph_op(t, dnp_graph_find(t, "enc0.unstack.0"));
    const dnp_op *lstm = dnp_graph_op(g, dnp_graph_find(g, "lstm"));
    CHECK(dnp_op_is_weighted(qkv) && !dnp_op_is_join(qkv));
    CHECK(!dnp_op_is_weighted(logits) && dnp_op_is_join(logits));
    CHECK(!dnp_op_is_weighted(sel) && !dnp_op_is_join(sel));
    CHECK(dnp_op_is_weighted(lstm));
    dnp_cluster cl;
    CHECK(dnp_cluster_parse("2xa100+2xv100", &cl, &err) == DNP_OK);
    for (int s = 0; s < DNP_SCHEME_COUNT; s++) {
        dnp_plan_options opt = {.scheme = (dnp_scheme)s, .batch = 8};
        dnp_plan *p = NULL;
        CHECK(dnp_plan_run(g, &cl, &opt, &p, &err) == DNP_OK);
        if (p == NULL)
            continue;
        CHECK_EQ_INT(dnp_plan_n_nodes(p), 3); /* embedding, lstm, fc (the loss folded) */
        for (int v = 0; v < dnp_plan_n_nodes(p); v++)
            if (strcmp(dnp_plan_node_name(p, v), "lstm") == 0)
                for (int k = 0; k < 2; k++)
                    for (unsigned b = 0; b < 2; b++)
                        CHECK_EQ_INT(dnp_plan_type(p, k, b, v), DNP_TYPE_I);
        dnp_plan_free(p);
        p = NULL;
        CHECK(dnp_plan_run(t, &cl, &opt, &p, &err) == DNP_OK);
        dnp_plan_free(p);
    }
    dnp_graph_free(g);
    dnp_graph_free(t);
}

/* The einsum equation splitter both einsums share (core/einsum_eq.h). */
TEST(einsum_eq_split_cases)
{
    char a[9], b[9], o[9];
    CHECK_EQ_INT(einsum_eq_split("bik,kj->bij", 8, 0, a, b, o), 0);
    CHECK(strcmp(a, "bik") == 0 && strcmp(b, "kj") == 0 && strcmp(o, "bij") == 0);
    CHECK_EQ_INT(einsum_eq_split("bN,Nd->bd", 8, 0, a, b, o), -1); /* upper case: PaSE only */
    CHECK_EQ_INT(einsum_eq_split("bN,Nd->bd", 8, 1, a, b, o), 0);
    CHECK(strcmp(b, "Nd") == 0);
    CHECK_EQ_INT(einsum_eq_split("aa,b->a", 8, 0, a, b, o), -1);    /* a letter twice */
    CHECK_EQ_INT(einsum_eq_split("ab,bc", 8, 0, a, b, o), -1);      /* no arrow */
    CHECK_EQ_INT(einsum_eq_split("ab->c,d", 8, 0, a, b, o), -1);    /* comma after arrow */
    CHECK_EQ_INT(einsum_eq_split(",b->b", 8, 0, a, b, o), -1);      /* empty operand */
    CHECK_EQ_INT(einsum_eq_split("abc,c->ab", 2, 0, a, b, o), -1);  /* too many letters */
    CHECK_EQ_INT(einsum_eq_split("a1,1->a", 8, 0, a, b, o), -1);    /* not a letter */
}
