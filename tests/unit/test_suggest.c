/* test_suggest.c - edit distance and nearest-name suggestions. */
#include "dnnpar.h"
#include "test.h"

#include <stddef.h>
#include <string.h>

TEST(edit_distance_hand_worked)
{
    CHECK_EQ_INT(dnp_edit_distance("", ""), 0);
    CHECK_EQ_INT(dnp_edit_distance("abc", ""), 3);
    CHECK_EQ_INT(dnp_edit_distance("kitten", "sitting"), 3); /* k->s, e->i, +g */
    CHECK_EQ_INT(dnp_edit_distance("resnt50", "resnet50"), 1);
    CHECK_EQ_INT(dnp_edit_distance("plna", "plan"), 1);       /* one transposition */
    CHECK_EQ_INT(dnp_edit_distance("ca", "abc"), 3);          /* OSA, not full Damerau (2) */
    CHECK_EQ_INT(dnp_edit_distance("A100", "a100"), 0);       /* case-insensitive */
    CHECK_EQ_INT(dnp_edit_distance(NULL, "x"), -1);
    char long_word[80];
    memset(long_word, 'x', sizeof long_word - 1);
    long_word[sizeof long_word - 1] = '\0';
    CHECK_EQ_INT(dnp_edit_distance(long_word, "x"), -1);
}

/* Every pair of strings over {a, b} up to length 3 against a plain
 * recursive definition of the same distance. */
static int osa_ref(const char *a, size_t na, const char *b, size_t nb)
{
    if (na == 0)
        return (int)nb;
    if (nb == 0)
        return (int)na;
    int best = osa_ref(a, na - 1, b, nb - 1) + (a[na - 1] != b[nb - 1]);
    int d = osa_ref(a, na - 1, b, nb) + 1;
    if (d < best)
        best = d;
    d = osa_ref(a, na, b, nb - 1) + 1;
    if (d < best)
        best = d;
    if (na > 1 && nb > 1 && a[na - 1] == b[nb - 2] && a[na - 2] == b[nb - 1]) {
        d = osa_ref(a, na - 2, b, nb - 2) + 1;
        if (d < best)
            best = d;
    }
    return best;
}

TEST(edit_distance_exhaustive_small)
{
    char words[15][4];
    int n = 0;
    for (int len = 0; len <= 3; len++)
        for (int bits = 0; bits < (1 << len); bits++) {
            for (int k = 0; k < len; k++)
                words[n][k] = (bits >> k) & 1 ? 'b' : 'a';
            words[n][len] = '\0';
            n++;
        }
    CHECK_EQ_INT(n, 15);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            CHECK_EQ_INT(dnp_edit_distance(words[i], words[j]),
                         osa_ref(words[i], strlen(words[i]), words[j], strlen(words[j])));
}

TEST(suggest_nearest_or_none)
{
    static const char *const models[] = {"lenet", "alexnet", "vgg19", "resnet18", "resnet50"};
    CHECK_STR(dnp_suggest("resnt50", models, 5), "resnet50");
    CHECK_STR(dnp_suggest("ALEXNT", models, 5), "alexnet");
    CHECK(dnp_suggest("bert", models, 5) == NULL);     /* 4 letters: at most 2 edits */
    CHECK(dnp_suggest("x", models, 5) == NULL);        /* never every candidate */
    /* Ties go to the earlier candidate: resnet58 is 1 from both. */
    CHECK_STR(dnp_suggest("resnet58", models, 5), "resnet18");
    static const char *const devices[] = {"tpu-v2", "tpu-v3", "a100", NULL, "h100"};
    CHECK_STR(dnp_suggest("a10", devices, 5), "a100");
    CHECK_STR(dnp_suggest("tpuv3", devices, 5), "tpu-v3");
    CHECK(dnp_suggest(NULL, devices, 5) == NULL);
    CHECK(dnp_suggest("a10", NULL, 0) == NULL);
}
