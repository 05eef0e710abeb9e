/* alloc.h - library-internal side of the allocator hook (dnnpar.h, "Memory"). */
#ifndef DNP_CORE_ALLOC_H
#define DNP_CORE_ALLOC_H

#include "dnnpar/core.h"

#include <protobuf-c/protobuf-c.h>

/* The ProtobufCAllocator that routes protobuf-c's allocations through the
 * hook; pass it to every __unpack and __free_unpacked.  Static storage. */
ProtobufCAllocator *dnp_protobuf_allocator(void);

/* How many allocation calls have failed since the program started.  Take
 * it before a call into a library that may hide a failed allocation
 * (jansson reports some as syntax errors) and compare after.  O(1). */
unsigned long dnp_alloc_failures(void);

#endif
