/* suggest.c - nearest-name suggestions for error messages ("did you mean"). */
#include "dnnpar/core.h"

#include <ctype.h>
#include <string.h>

#define SUGGEST_MAX_LEN 64

/* Optimal string alignment distance (Damerau 1964; Levenshtein 1966 with
 * adjacent transpositions): d[i][j] = min(d[i-1][j] + 1, d[i][j-1] + 1,
 * d[i-1][j-1] + [a_i != b_j], d[i-2][j-2] + 1 if a_i a_{i-1} = b_{j-1} b_j).
 * Three rows of the table are kept. */
int dnp_edit_distance(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return -1;
    size_t na = strlen(a), nb = strlen(b);
    if (na >= SUGGEST_MAX_LEN || nb >= SUGGEST_MAX_LEN)
        return -1;
    int rows[3][SUGGEST_MAX_LEN + 1];
    int *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= nb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        cur[0] = (int)i;
        int ai = tolower((unsigned char)a[i - 1]);
        for (size_t j = 1; j <= nb; j++) {
            int bj = tolower((unsigned char)b[j - 1]);
            int best = prev[j - 1] + (ai != bj);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == bj && prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1;
            cur[j] = best;
        }
        int *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[nb];
}

const char *dnp_suggest(const char *word, const char *const *candidates, size_t n)
{
    if (word == NULL || candidates == NULL)
        return NULL;
    size_t len = strlen(word);
    int limit = len <= 3 ? 1 : (len <= 6 ? 2 : 3);
    if ((size_t)limit >= len)
        limit = (int)len - 1;
    const char *best = NULL;
    int best_d = limit + 1;
    for (size_t i = 0; i < n; i++) {
        int d = dnp_edit_distance(word, candidates[i]);
        if (d >= 0 && d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    return best;
}
