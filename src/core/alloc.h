/* alloc.h - library-internal side of the allocator hook (dnnpar.h, "Memory"). */
#ifndef DNP_CORE_ALLOC_H
#define DNP_CORE_ALLOC_H

#include "dnnpar.h"

#include <protobuf-c/protobuf-c.h>

/* The ProtobufCAllocator that routes protobuf-c's allocations through the
 * hook; pass it to every __unpack and __free_unpacked.  Static storage. */
ProtobufCAllocator *dnp_protobuf_allocator(void);

#endif
