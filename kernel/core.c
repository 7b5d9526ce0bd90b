// core.c: status strings, the allocator hook with its byte counter, the assert handler.
#include "core.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char* vxk_version_string(void)
{
    return "0.1.0";
}

const char* vxk_status_string(vxk_status status)
{
    switch (status) {
    case VXK_OK: return "ok";
    case VXK_ERR_INVALID_ARGUMENT: return "invalid argument";
    case VXK_ERR_BAD_DEF: return "def not made by its vxk_default_*_def function";
    case VXK_ERR_NOT_FINITE: return "NaN or infinite value";
    case VXK_ERR_OUT_OF_RANGE: return "coordinate or size out of range";
    case VXK_ERR_BAD_MATERIAL: return "material id not defined";
    case VXK_ERR_STALE_ID: return "stale or invalid id";
    case VXK_ERR_OUT_OF_MEMORY: return "out of memory";
    case VXK_ERR_IO: return "file could not be opened, read or written";
    case VXK_ERR_MALFORMED: return "malformed data";
    case VXK_ERR_TRUNCATED: return "data ends early (truncated)";
    case VXK_ERR_UNSUPPORTED: return "unsupported";
    case VXK_ERR_CAPACITY: return "output buffer too small";
    case VXK_ERR_NESTING: return "job nesting cap reached and no thread to continue on";
    case VXK_STATUS_COUNT: break;
    }
    return "unknown status";
}

static void* default_alloc(size_t size, void* user)
{
    (void)user;
    return malloc(size);
}

static void default_free(void* pointer, size_t size, void* user)
{
    (void)size;
    (void)user;
    free(pointer);
}

static vxk_allocator g_allocator = {default_alloc, default_free, NULL};
static atomic_size_t g_allocated;

void vxk_set_allocator(const vxk_allocator* allocator)
{
    if (allocator && allocator->alloc && allocator->free)
        g_allocator = *allocator;
    else
        g_allocator = (vxk_allocator){default_alloc, default_free, NULL};
}

size_t vxk_allocated_bytes(void)
{
    return atomic_load_explicit(&g_allocated, memory_order_relaxed);
}

void* vxk_alloc(size_t size)
{
    if (size == 0)
        size = 1;
    void* p = g_allocator.alloc(size, g_allocator.user);
    if (p)
        atomic_fetch_add_explicit(&g_allocated, size, memory_order_relaxed);
    return p;
}

void* vxk_calloc(size_t size)
{
    void* p = vxk_alloc(size);
    if (p)
        memset(p, 0, size);
    return p;
}

void* vxk_realloc(void* pointer, size_t old_size, size_t new_size)
{
    void* p = vxk_alloc(new_size);
    if (!p)
        return NULL;
    if (pointer) {
        memcpy(p, pointer, VXK_MIN(old_size, new_size));
        vxk_free(pointer, old_size);
    }
    return p;
}

bool vxk_grow_items(void** array, uint32_t* capacity, uint64_t need, size_t item)
{
    if (need <= *capacity)
        return true;
    if (need > UINT32_MAX / 2)
        return false;
    uint64_t cap = VXK_MAX(need, (uint64_t)*capacity * 2);
    cap = VXK_MAX(cap, 16);
    void* grown = vxk_realloc(*array, (size_t)*capacity * item, (size_t)cap * item);
    if (!grown)
        return false;
    *array = grown;
    *capacity = (uint32_t)cap;
    return true;
}

bool vxk_grow_items_zeroed(void** array, uint32_t* capacity, uint64_t need, size_t item)
{
    uint32_t old = *capacity;
    if (!vxk_grow_items(array, capacity, need, item))
        return false;
    if (*capacity > old)
        memset((char*)*array + (size_t)old * item, 0, (size_t)(*capacity - old) * item);
    return true;
}

void vxk_free(void* pointer, size_t size)
{
    if (!pointer)
        return;
    if (size == 0)
        size = 1;
    atomic_fetch_sub_explicit(&g_allocated, size, memory_order_relaxed);
    g_allocator.free(pointer, size, g_allocator.user);
}

// 64-byte alignment on top of the hook: over-allocate and keep the offset just before the block.
void* vxk_alloc_aligned64(size_t size)
{
    uint8_t* raw = (uint8_t*)vxk_alloc(size + 64);
    if (!raw)
        return NULL;
    size_t offset = 64 - ((uintptr_t)raw & 63);
    uint8_t* p = raw + offset;
    p[-1] = (uint8_t)offset;
    return p;
}

void vxk_free_aligned64(void* pointer, size_t size)
{
    if (!pointer)
        return;
    uint8_t* p = (uint8_t*)pointer;
    vxk_free(p - p[-1], size + 64);
}

static int default_assert(const char* condition, const char* file, int line)
{
    fprintf(stderr, "vxk assert failed: %s (%s:%d)\n", condition, file, line);
    abort();
}

static vxk_assert_fn* g_assert = default_assert;

void vxk_set_assert_handler(vxk_assert_fn* handler)
{
    g_assert = handler ? handler : default_assert;
}

int vxk_assert_failed(const char* condition, const char* file, int line)
{
    return g_assert(condition, file, line);
}

void vxk_radix_sort_records(uint64_t* records, uint64_t* scratch, uint32_t n, uint32_t words)
{
    VXK_ASSERT(words == 1 || words == 2);
    uint32_t counts[256];
    uint64_t* src = records;
    uint64_t* dst = scratch;
    // Least significant key byte first: bytes 4-7 of the last word (0-3 are the payload), then
    // every byte of word 0 when there are two words.
    for (uint32_t d = 0; d < 4 + 8 * (words - 1); ++d) {
        uint32_t w = d < 4 ? words - 1 : 0;
        uint32_t shift = d < 4 ? 32 + 8 * d : 8 * (d - 4);
        uint32_t first = (uint32_t)(src[w] >> shift) & 0xFF;
        bool all_same = true;
        for (uint32_t i = 1; i < n && all_same; ++i)
            all_same = ((uint32_t)(src[(size_t)words * i + w] >> shift) & 0xFF) == first;
        if (all_same)
            continue;
        memset(counts, 0, sizeof(counts));
        for (uint32_t i = 0; i < n; ++i)
            counts[(src[(size_t)words * i + w] >> shift) & 0xFF]++;
        uint32_t sum = 0;
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t c = counts[i];
            counts[i] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; ++i) {
            size_t pos = counts[(src[(size_t)words * i + w] >> shift) & 0xFF]++;
            for (uint32_t k = 0; k < words; ++k)
                dst[(size_t)words * pos + k] = src[(size_t)words * i + k];
        }
        uint64_t* tmp = src;
        src = dst;
        dst = tmp;
    }
    if (src != records)
        memcpy(records, src, (size_t)n * words * sizeof(uint64_t));
}
