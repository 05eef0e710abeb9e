/* error.c - the error record every fallible call fills. */
#include "dnnpar/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void dnp_error_set(dnp_error *err, dnp_status st, const char *fmt, ...)
{
    if (err == NULL || err->status != DNP_OK)
        return; /* keep the first, most specific error */
    err->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
}

void dnp_error_clear(dnp_error *err)
{
    if (err == NULL)
        return;
    err->status = DNP_OK;
    err->msg[0] = '\0';
}
