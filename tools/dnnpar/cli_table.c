/* cli_table.c - text tables whose columns are sized to their content. */
#include "cli.h"

#include <string.h>

struct cli_table {
    int n_cols, n_rows, cap_rows;
    int indent;        /* blanks before every row */
    const char *align; /* per column 'l' or 'r' */
    char **cells;      /* n_rows x n_cols, row 0 the header; owned */
};

cli_table *cli_table_new(int n_cols, const char *align, const char *const *header)
{
    cli_table *t = dnp_calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->n_cols = n_cols;
    t->align = align;
    if (cli_table_add(t, header) != 0) {
        cli_table_free(t);
        return NULL;
    }
    return t;
}

void cli_table_set_indent(cli_table *t, int indent)
{
    if (t != NULL)
        t->indent = indent > 0 ? indent : 0;
}

int cli_table_add(cli_table *t, const char *const *cells)
{
    if (t == NULL)
        return -1;
    if (t->n_rows == t->cap_rows) {
        int cap = t->cap_rows ? 2 * t->cap_rows : 16;
        char **c = dnp_realloc_array(t->cells, (size_t)cap * (size_t)t->n_cols, sizeof *c);
        if (c == NULL)
            return -1;
        t->cells = c;
        t->cap_rows = cap;
    }
    char **row = t->cells + (size_t)t->n_rows * (size_t)t->n_cols;
    for (int k = 0; k < t->n_cols; k++) {
        row[k] = dnp_strdup(cells[k] ? cells[k] : "");
        if (row[k] == NULL) {
            while (k-- > 0)
                dnp_free(row[k]);
            return -1;
        }
    }
    t->n_rows++;
    return 0;
}

/* Cell text cut in the middle to `width` characters with '~' when longer. */
static void put_cell(FILE *f, const char *s, int width, char align, int last)
{
    int len = (int)strlen(s);
    if (len > width && width >= 3) {
        int head = (width - 1) / 2, tail = width - 1 - head;
        fprintf(f, "%.*s~%s", head, s, s + len - tail);
        return;
    }
    if (align == 'r')
        fprintf(f, "%*s", width, s);
    else if (last)
        fputs(s, f); /* no trailing blanks */
    else
        fprintf(f, "%-*s", width, s);
}

int cli_table_print(const cli_table *t, FILE *f, int max_width, int shrink_col)
{
    if (t == NULL || t->n_cols < 1)
        return 0;
    int width[64] = {0}, total = 0;
    int n_cols = t->n_cols < 64 ? t->n_cols : 64;
    for (int r = 0; r < t->n_rows; r++)
        for (int k = 0; k < n_cols; k++) {
            int len = (int)strlen(t->cells[(size_t)r * (size_t)t->n_cols + (size_t)k]);
            if (len > width[k])
                width[k] = len;
        }
    /* Two blanks between columns; one if that makes the table fit or
     * leaves more room for the shrinking column. */
    int sep = 2;
    max_width -= t->indent;
    for (int k = 0; k < n_cols; k++)
        total += width[k] + (k > 0 ? sep : 0);
    if (total > max_width) {
        total -= n_cols - 1;
        sep = 1;
    }
    int cut = 0;
    if (total > max_width && shrink_col >= 0 && shrink_col < n_cols) {
        int w = width[shrink_col] - (total - max_width);
        int header_len = (int)strlen(t->cells[shrink_col]);
        if (w < header_len)
            w = header_len;
        if (w < 8)
            w = 8;
        cut = w < width[shrink_col];
        width[shrink_col] = w;
    }
    for (int r = 0; r < t->n_rows; r++) {
        char **row = t->cells + (size_t)r * (size_t)t->n_cols;
        int last = n_cols - 1; /* trailing empty cells print nothing, not blanks */
        while (last > 0 && row[last][0] == '\0')
            last--;
        fprintf(f, "%*s", t->indent, "");
        for (int k = 0; k <= last; k++) {
            if (k > 0)
                fprintf(f, "%*s", sep, "");
            put_cell(f, row[k], width[k], t->align[k] == 'r' ? 'r' : 'l', k == last);
        }
        fputc('\n', f);
    }
    return cut;
}

void cli_table_free(cli_table *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < (size_t)t->n_rows * (size_t)t->n_cols; i++)
        dnp_free(t->cells[i]);
    dnp_free(t->cells);
    dnp_free(t);
}
