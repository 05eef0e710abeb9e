/* test_fmt.c - the shared text formatting (dnnpar.h, "Text formatting"):
 * dnp_fmt_wrap, which the CLI's notes, PaSE's report and the preset
 * sources all use, and dnp_time_unit. */
#include "test.h"

#include "dnnpar.h"

#include <stdio.h>

/* What dnp_fmt_wrap writes, read back from a temporary file. */
static void wrap_to(char *out, size_t n, int col, int max_cols, const char *cont,
                    const char *text)
{
    out[0] = '\0';
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f == NULL)
        return;
    dnp_fmt_wrap(f, col, max_cols, cont, text);
    rewind(f);
    size_t got = fread(out, 1, n - 1, f);
    out[got] = '\0';
    fclose(f);
}

/* Hand-worked: at 10 columns "aaa bbb ccc" breaks after "aaa bbb" (7
 * columns; "aaa bbb ccc" would be 11); the continuation starts with the
 * prefix, whose 2 columns count; a word longer than a line is not cut;
 * blanks inside a line are kept as written and dropped at a break; a text
 * '\n' restarts at column 0; `col` counts what the line already holds; a
 * UTF-8 character takes one column. */
TEST(fmt_wrap_hand_worked)
{
    char out[256];
    wrap_to(out, sizeof out, 0, 10, "> ", "aaa bbb ccc");
    CHECK_STR(out, "aaa bbb\n> ccc\n");
    wrap_to(out, sizeof out, 0, 10, "> ", "aaa bbb cccccc dd");
    CHECK_STR(out, "aaa bbb\n> cccccc\n> dd\n");
    wrap_to(out, sizeof out, 0, 10, "", "abcdefghijklmno x");
    CHECK_STR(out, "abcdefghijklmno\nx\n");
    wrap_to(out, sizeof out, 0, 10, "", "a  b   c");
    CHECK_STR(out, "a  b   c\n");
    wrap_to(out, sizeof out, 0, 10, "  ", "aaaa bbbb  cccc");
    CHECK_STR(out, "aaaa bbbb\n  cccc\n");
    wrap_to(out, sizeof out, 0, 10, "  ", "aa\nbbbbbb cccc");
    CHECK_STR(out, "aa\nbbbbbb\n  cccc\n");
    wrap_to(out, sizeof out, 6, 10, "", "abc de");
    CHECK_STR(out, "abc\nde\n");
    /* "\xc3\xa9" is one column: "\xc3\xa9\xc3\xa9\xc3\xa9 abcdef" is 10 columns */
    wrap_to(out, sizeof out, 0, 10, "", "\xc3\xa9\xc3\xa9\xc3\xa9 abcdef");
    CHECK_STR(out, "\xc3\xa9\xc3\xa9\xc3\xa9 abcdef\n");
    wrap_to(out, sizeof out, 0, 10, "", "");
    CHECK_STR(out, "\n");
}

TEST(fmt_time_unit)
{
    double f = 0.0;
    CHECK_STR(dnp_time_unit(2.5, &f), "s");
    CHECK_NEAR(f, 1.0, 0, 0);
    CHECK_STR(dnp_time_unit(1e-3, &f), "ms");
    CHECK_NEAR(f, 1e3, 0, 0);
    CHECK_STR(dnp_time_unit(9.99e-4, &f), "us");
    CHECK_NEAR(f, 1e6, 0, 0);
    CHECK_STR(dnp_time_unit(0.0, &f), "us");
}
