/* alloc.c - the one allocator hook (dnnpar.h, "Memory").
 *
 * The default hook is the C library's malloc/realloc/free.  jansson and
 * protobuf-c are pointed at the same hook: jansson through its global
 * json_set_alloc_funcs (set again on every dnp_set_allocator), protobuf-c
 * through the ProtobufCAllocator dnp_protobuf_allocator() returns. */
#include "core/alloc.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void *std_alloc(void *ctx, size_t n)
{
    (void)ctx;
    return malloc(n);
}

static void *std_resize(void *ctx, void *p, size_t n)
{
    (void)ctx;
    return realloc(p, n);
}

static void std_release(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

/* Allocation calls that returned NULL, ever (SQLite's sticky
 * out-of-memory flag, as a count): lets a caller tell a failed allocation
 * inside a library that does not report one (jansson) from bad input. */
static _Atomic unsigned long failures;

unsigned long dnp_alloc_failures(void)
{
    return failures;
}

static const dnp_allocator std_hook = {std_alloc, std_resize, std_release, NULL};
static dnp_allocator hook = {std_alloc, std_resize, std_release, NULL};

static void *json_alloc_thunk(size_t n) { return dnp_malloc(n); }
static void json_free_thunk(void *p) { dnp_free(p); }

void dnp_set_allocator(const dnp_allocator *a)
{
    hook = a != NULL ? *a : std_hook;
    json_set_alloc_funcs(json_alloc_thunk, json_free_thunk);
}

void *dnp_malloc(size_t size_bytes)
{
    void *p = hook.alloc(hook.ctx, size_bytes ? size_bytes : 1);
    if (p == NULL)
        failures++;
    return p;
}

void *dnp_calloc(size_t count, size_t size_bytes)
{
    size_t total;
    if (__builtin_mul_overflow(count, size_bytes, &total)) {
        failures++;
        return NULL;
    }
    void *p = dnp_malloc(total);
    if (p != NULL)
        memset(p, 0, total);
    return p;
}

void *dnp_realloc(void *ptr, size_t size_bytes)
{
    if (ptr == NULL)
        return dnp_malloc(size_bytes);
    void *p = hook.resize(hook.ctx, ptr, size_bytes ? size_bytes : 1);
    if (p == NULL)
        failures++;
    return p;
}

void *dnp_realloc_array(void *ptr, size_t count, size_t size_bytes)
{
    size_t total;
    if (__builtin_mul_overflow(count, size_bytes, &total))
        return NULL;
    return dnp_realloc(ptr, total);
}

void dnp_free(void *ptr)
{
    if (ptr != NULL)
        hook.release(hook.ctx, ptr);
}

char *dnp_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = dnp_malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

static void *pb_alloc(void *ctx, size_t n)
{
    (void)ctx;
    return dnp_malloc(n);
}

static void pb_free(void *ctx, void *p)
{
    (void)ctx;
    dnp_free(p);
}

static ProtobufCAllocator pb_hook = {pb_alloc, pb_free, NULL};

ProtobufCAllocator *dnp_protobuf_allocator(void)
{
    return &pb_hook;
}
