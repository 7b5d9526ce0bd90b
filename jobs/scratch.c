// scratch.c: the per-thread scratch arena, a stack with mark/release (the arena allocator of
// Box2D's arena_allocator.c, one per thread). Memory is allocated on first use by its owner.
#include "jobs_internal.h"

#include <stdlib.h>

static vxk_jobs_thread* arena_owner(vxk_jobs* jobs, uint32_t thread)
{
    return jobs && thread < jobs->thread_count ? &jobs->threads[thread] : NULL;
}

size_t vxk_jobs_scratch_mark(vxk_jobs* jobs, uint32_t thread)
{
    vxk_jobs_thread* t = arena_owner(jobs, thread);
    return t ? t->scratch_top : 0;
}

void* vxk_jobs_scratch_alloc(vxk_jobs* jobs, uint32_t thread, size_t size, size_t align)
{
    vxk_jobs_thread* t = arena_owner(jobs, thread);
    align = align ? align : 1;
    if (!t || (align & (align - 1)) || size > jobs->scratch_bytes)
        return NULL;
    if (!t->scratch) {
        t->scratch = vxk_jobs_mem_alloc(&jobs->allocator,
                                        jobs->scratch_bytes ? jobs->scratch_bytes : 1, false);
        if (!t->scratch)
            return NULL;
    }
    uintptr_t base = (uintptr_t)t->scratch;
    uintptr_t p = (base + t->scratch_top + (align - 1)) & ~(uintptr_t)(align - 1);
    if (p < base || p - base > jobs->scratch_bytes || size > jobs->scratch_bytes - (p - base))
        return NULL;
    t->scratch_top = (size_t)(p - base) + size;
    return (void*)p;
}

void vxk_jobs_scratch_release(vxk_jobs* jobs, uint32_t thread, size_t mark)
{
    vxk_jobs_thread* t = arena_owner(jobs, thread);
    if (t && mark <= t->scratch_top)
        t->scratch_top = mark;
}
