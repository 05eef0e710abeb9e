/* einsum_eq.c - splitting "A,B->O" (einsum_eq.h). */
#include "core/einsum_eq.h"

#include <string.h>

static int letter_ok(char c, int upper_ok)
{
    return (c >= 'a' && c <= 'z') || (upper_ok && c >= 'A' && c <= 'Z');
}

int einsum_eq_split(const char *eq, size_t max_letters, int upper_ok, char *a, char *b, char *o)
{
    const char *comma = strchr(eq, ','), *arrow = strstr(eq, "->");
    if (comma == NULL || arrow == NULL || comma > arrow)
        return -1;
    size_t na = (size_t)(comma - eq), nb = (size_t)(arrow - comma - 1), no = strlen(arrow + 2);
    if (na < 1 || nb < 1 || no < 1 || na > max_letters || nb > max_letters || no > max_letters)
        return -1;
    memcpy(a, eq, na);
    a[na] = '\0';
    memcpy(b, comma + 1, nb);
    b[nb] = '\0';
    memcpy(o, arrow + 2, no);
    o[no] = '\0';
    const char *parts[3] = {a, b, o};
    for (int p = 0; p < 3; p++)
        for (const char *c = parts[p]; *c; c++)
            if (!letter_ok(*c, upper_ok) || strchr(c + 1, *c) != NULL)
                return -1; /* letters only, each once per operand */
    return 0;
}
