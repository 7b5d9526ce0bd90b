// memory.h: the scheduler's allocations, all through the def's allocator hook (malloc/free when
// its functions are NULL). Frees pass the size the allocation was made with.
#ifndef VXK_JOBS_MEMORY_H
#define VXK_JOBS_MEMORY_H

#include <vxk/jobs.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

// zero: the block comes back cleared (with no hook through calloc, whose fresh pages cost
// nothing until touched).
static inline void* vxk_jobs_mem_alloc(const vxk_jobs_allocator* a, size_t size, bool zero)
{
    if (!a->alloc)
        return zero ? calloc(1, size) : malloc(size);
    void* p = a->alloc(size, a->user);
    if (p && zero)
        memset(p, 0, size);
    return p;
}

static inline void vxk_jobs_mem_free(const vxk_jobs_allocator* a, void* p, size_t size)
{
    if (!p)
        return;
    if (a->alloc)
        a->free(p, size, a->user);
    else
        free(p);
}

#endif
