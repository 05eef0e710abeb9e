/*
 * mpt_msg.c - message buffers between simulated workers: values, the
 * zero-skip bitmap or activity map (one bit per entry, Sec. V-B: "shared
 * ... through activation map"), and quantized codes, with their size on the
 * wire.
 */
#include "arch/mpt/mpt_exec_int.h"

#include <stdlib.h>
#include <string.h>

int mpt_msg_init(mpt_msg *m, size_t cap)
{
    memset(m, 0, sizeof *m);
    size_t n = cap ? cap : 1;
    m->vals = dnp_malloc(sizeof *m->vals * n);
    m->flags = dnp_malloc(n);
    m->codes = dnp_malloc(n);
    m->cap = n;
    if (m->vals == NULL || m->flags == NULL || m->codes == NULL) {
        mpt_msg_free(m);
        return 0;
    }
    return 1;
}

void mpt_msg_free(mpt_msg *m)
{
    if (m == NULL)
        return;
    dnp_free(m->vals);
    dnp_free(m->flags);
    dnp_free(m->codes);
    memset(m, 0, sizeof *m);
}

void mpt_msg_reset(mpt_msg *m)
{
    m->n_vals = m->n_flags = m->n_codes = 0;
    m->r_vals = m->r_flags = m->r_codes = 0;
}

double mpt_msg_bytes(const mpt_msg *m)
{
    return 4.0 * (double)m->n_vals + (double)m->n_flags / 8.0 +
           (double)m->n_codes * (double)m->code_bits / 8.0;
}

int mpt_msg_put(mpt_msg *m, float v, int skip_zero)
{
    if (skip_zero) {
        int zero = v == 0.0f;
        m->flags[m->n_flags++] = (unsigned char)!zero;
        if (zero)
            return 1;
    }
    m->vals[m->n_vals++] = v;
    return 0;
}

float mpt_msg_get(mpt_msg *m, int skip_zero)
{
    if (skip_zero && !m->flags[m->r_flags++])
        return 0.0f;
    return m->vals[m->r_vals++];
}

void mpt_msg_put_flag(mpt_msg *m, int flag) { m->flags[m->n_flags++] = (unsigned char)(flag != 0); }
int mpt_msg_get_flag(mpt_msg *m) { return m->flags[m->r_flags++]; }
void mpt_msg_put_code(mpt_msg *m, unsigned code) { m->codes[m->n_codes++] = (unsigned char)code; }
unsigned mpt_msg_get_code(mpt_msg *m) { return m->codes[m->r_codes++]; }
