/* fmt.c - number formatting shared by the text reports (dnnpar.h, "Text
 * formatting"). */
#include "dnnpar/core.h"

#include <string.h>

/* SI prefixes (BIPM, The International System of Units, 9th ed., Table 7):
 * powers of 1000; 999.5 is where "%.3g" would round up to 1000. */
void dnp_fmt_si(double x, char *buf, size_t n)
{
    static const char *const prefix[] = {" ", " k", " M", " G", " T", " P", " E"};
    int k = 0;
    while (x >= 999.5 && k < 6) {
        x /= 1000.0;
        k++;
    }
    snprintf(buf, n, "%.3g%s", x, prefix[k]);
}

void dnp_fmt_time(double time_s, char *buf, size_t n)
{
    /* a million seconds and more (a device of 1e-300 TFLOP/s) in
     * scientific notation: "%.3f" would overflow a short buffer and lose
     * the unit */
    if (time_s >= 1e6)
        snprintf(buf, n, "%.4g s", time_s);
    else if (time_s >= 1.0)
        snprintf(buf, n, "%.3f s", time_s);
    else if (time_s >= 1e-3)
        snprintf(buf, n, "%.3f ms", time_s * 1e3);
    else
        snprintf(buf, n, "%.3f us", time_s * 1e6);
}

const char *dnp_time_unit(double max_s, double *per_s)
{
    if (max_s >= 1.0) {
        *per_s = 1.0;
        return "s";
    }
    if (max_s >= 1e-3) {
        *per_s = 1e3;
        return "ms";
    }
    *per_s = 1e6;
    return "us";
}

/* Columns a string takes: its bytes less UTF-8 continuation bytes. */
static int text_cols(const char *s, size_t n)
{
    int c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xc0) != 0x80;
    return c;
}

void dnp_fmt_wrap(FILE *f, int col, int max_cols, const char *cont, const char *text)
{
    int cont_cols = text_cols(cont, strlen(cont));
    int at_start = 1; /* nothing of the text on this line yet */
    const char *p = text;
    while (*p != '\0') {
        size_t blanks = strspn(p, " ");
        const char *w = p + blanks;
        if (*w == '\0')
            break;
        if (*w == '\n') { /* a line break of the text's own starts over */
            fputc('\n', f);
            col = 0;
            at_start = 1;
            p = w + 1;
            continue;
        }
        size_t wlen = strcspn(w, " \n");
        int need = text_cols(w, wlen) + (int)blanks; /* blanks kept as written */
        if (!at_start && col + need > max_cols) {
            fprintf(f, "\n%s", cont);
            col = cont_cols;
            need = text_cols(w, wlen);
            blanks = 0;
        }
        fprintf(f, "%*s%.*s", (int)blanks, "", (int)wlen, w);
        col += need;
        at_start = 0;
        p = w + wlen;
    }
    fputc('\n', f);
}
