/*
 * zoo_transformer.h - GPT, BERT and LLaMA models for the zoo
 * (zoo_transformer.c, docs/zoo.md "Transformers").
 */
#ifndef DNNPAR_ZOO_TRANSFORMER_H
#define DNNPAR_ZOO_TRANSFORMER_H

#include "dnnpar/model.h"

typedef enum { TF_GPT = 0, TF_BERT = 1, TF_LLAMA = 2 } tf_family;

/* A transformer's shape.  GPT: pre-norm layers, learned positions, GELU
 * MLP, output tied to the token embedding.  BERT: post-norm layers,
 * learned positions and token types, pooler.  LLaMA: pre-RMSNorm layers,
 * rotary positions (no parameters), SwiGLU MLP, grouped-query attention
 * (kv_heads < heads), untied output. */
typedef struct {
    tf_family family;
    int64_t hidden, heads, kv_heads;
    int layers;
    int64_t seq;           /* tokens per sample the model is built for */
    int64_t ffn;           /* feed-forward width */
    int64_t vocab;
    int64_t max_positions; /* rows of the learned position table (GPT, BERT) */
    double dropout;        /* hidden dropout probability (embedding output, after the attention
                            * projection and after the MLP); 0: none */
    double attn_dropout;   /* attention dropout probability (on the softmax output); 0: none */
    int flash;             /* 1: attention runs as one fused kernel (FlashAttention, Dao et
                            * al. 2022): the score ops are marked ZOO_FLASH_ATTENTION */
    int head;              /* the output layer: TF_HEAD_DEFAULT (the family's: GPT tied to
                            * the token embedding, LLaMA its own weights), TF_HEAD_TIED or
                            * TF_HEAD_UNTIED (Megatron-LM's
                            * --untie-embeddings-and-output-weights); BERT has none */
} tf_config;

enum { TF_HEAD_DEFAULT = 0, TF_HEAD_TIED = 1, TF_HEAD_UNTIED = 2 };

/* 1 if c's output layer is tied to the token embedding.  O(1). */
int zoo_transformer_tied(const tf_config *c);

/* src_type of the ops of a fused (flash) attention: scores, softmax,
 * dropout and context; the device model costs them as one kernel that
 * never writes the seq x seq scores (docs/device-model.md). */
#define ZOO_FLASH_ATTENTION "FlashAttention"

/* Append the model's ops to the empty graph g; returns the last op or -1
 * (the graph's error says why).  O(layers). */
int zoo_transformer_build(dnp_graph *g, const tf_config *c);
/* 1 if name is "gpt(", "bert(" or "llama(" followed by anything.  O(1). */
int zoo_transformer_is_spec(const char *name);
/* Parse "gpt(hidden=H,heads=A,layers=L,seq=S[,ffn=F][,vocab=V][,kv_heads=K]
 * [,dropout=P][,attn_dropout=P][,attention=flash|unfused][,head=tied|untied])"
 * (likewise bert without head=, llama; keys in any order, each once; head
 * defaults to the family's; ffn defaults to 4H, vocab to the
 * family's published one, kv_heads to heads, dropout to the family's (GPT and
 * BERT 0.1, LLaMA 0), attn_dropout to dropout; P a decimal in [0, 1);
 * attention to the family's: unfused for GPT and BERT, flash for LLaMA).  DNP_ERR_INPUT
 * naming the column on bad input.  O(length). */
dnp_status zoo_transformer_parse(const char *spec, tf_config *out, dnp_error *err);
/* Parse and build; *out owns the graph (named spec).  O(layers). */
dnp_status zoo_transformer_build_spec(const char *spec, dnp_graph **out, dnp_error *err);

#endif
