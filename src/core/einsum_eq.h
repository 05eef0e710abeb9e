/* einsum_eq.h - the equation of a two-operand contraction, "A,B->O"
 * (numpy.einsum's notation, one letter per axis), split into its three
 * operands.  Shared by the core IR's einsum op (src/model/graph_named.c)
 * and PaSE's einsum vertex (src/model/iter_nests.c). */
#ifndef DNNPAR_EINSUM_EQ_H
#define DNNPAR_EINSUM_EQ_H

#include <stddef.h>

/* Split `eq` = "A,B->O" into NUL-terminated a, b, o (each of capacity
 * max_letters + 1).  Each operand has 1 to max_letters letters, each
 * letter at most once in its operand; letters are a-z, and also A-Z when
 * upper_ok.  Returns 0, or -1 for a malformed equation (a, b, o then
 * unspecified).  O(len^2) in the operands' lengths; no allocation. */
int einsum_eq_split(const char *eq, size_t max_letters, int upper_ok, char *a, char *b, char *o);

#endif
