// core.h: kernel-internal helpers: allocation through the hook, asserts, small utilities.
#ifndef VXK_CORE_H
#define VXK_CORE_H

#include <vxk/base.h>

#include <string.h>

int vxk_assert_failed(const char* condition, const char* file, int line);

#if !defined(NDEBUG) || defined(VXK_ENABLE_ASSERT)
#define VXK_ASSERT(c) \
    ((c) ? (void)0 : (vxk_assert_failed(#c, __FILE__, __LINE__) ? __builtin_trap() : (void)0))
#else
#define VXK_ASSERT(c) ((void)0)
#endif

// Heavy consistency checks, compiled in only with -DVXK_VALIDATE.
#ifdef VXK_VALIDATE
#define VXK_VALIDATE_ONLY(x) x
#else
#define VXK_VALIDATE_ONLY(x)
#endif

// Allocation through the user hook; 16-byte aligned (64 with vxk_alloc_aligned64). Sizes are
// passed back to vxk_free so the counter stays exact.
void* vxk_alloc(size_t size);
void* vxk_calloc(size_t size);
void* vxk_realloc(void* pointer, size_t old_size, size_t new_size);
void vxk_free(void* pointer, size_t size);
void* vxk_alloc_aligned64(size_t size);
void vxk_free_aligned64(void* pointer, size_t size);
// Grows an array counted in items of `item` bytes to hold at least `need` (doubling, at least 16;
// the contents kept, whole items allocated and freed so the counter stays exact). False, nothing
// changed, when out of memory or past 2^31 items.
bool vxk_grow_items(void** array, uint32_t* capacity, uint64_t need, size_t item);
// vxk_grow_items, and the items past the old capacity zeroed (for arrays whose unused items must
// read as empty).
bool vxk_grow_items_zeroed(void** array, uint32_t* capacity, uint64_t need, size_t item);

// Stable LSD radix sort of n records of `words` (1 or 2) uint64 by bytes, skipping byte positions
// that are the same in every record. The order is by word 0, then (2 words) by word 1; the low 32
// bits of the last word are a payload that rides along (equal keys keep their input order).
// scratch holds n records. Cost O(n) per differing key byte (at most 4 or 12 passes).
void vxk_radix_sort_records(uint64_t* records, uint64_t* scratch, uint32_t n, uint32_t words);

// For helpers made of prefetches alone. GCC's interprocedural analysis counts a prefetch as free
// of side effects, takes such a helper for a const function and deletes its calls before it
// would inline them (GCC 12 emitted none of them); forcing the inline keeps the prefetches.
#define VXK_PREFETCH_INLINE static inline __attribute__((always_inline))

// Requests the first min(bytes, cap) bytes from p into the caches: every 64-byte line they touch
// (a span starting mid-line reaches into one line more than bytes / 64).
VXK_PREFETCH_INLINE void vxk_prefetch_span(const void* p, size_t bytes, size_t cap)
{
    bytes = bytes < cap ? bytes : cap;
    uintptr_t line = (uintptr_t)p & ~(uintptr_t)63, end = (uintptr_t)p + bytes;
    for (; line < end; line += 64)
        __builtin_prefetch((const char*)line);
}

#define VXK_MIN(a, b) ((a) < (b) ? (a) : (b))
#define VXK_MAX(a, b) ((a) > (b) ? (a) : (b))

static inline bool vxk_is_finite(float f)
{
    return f - f == 0.0f;
}

static inline bool vxk_vec3_is_finite(vxk_vec3 v)
{
    return vxk_is_finite(v.x) && vxk_is_finite(v.y) && vxk_is_finite(v.z);
}

// Floor division and modulo for int32 (chunk coordinate from voxel coordinate).
static inline int32_t vxk_floor_div8(int32_t v)
{
    return v >> 3; // arithmetic shift: floor for negatives
}
static inline int32_t vxk_mod8(int32_t v)
{
    return v & 7;
}

// SplitMix64: the seeded PRNG used everywhere (tests, generators).
static inline uint64_t vxk_splitmix64(uint64_t* state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// 64-bit FNV-1a, the digest behind vxk_*_hash functions.
static inline uint64_t vxk_hash_bytes(uint64_t hash, const void* data, size_t size)
{
    const uint8_t* p = (const uint8_t*)data;
    for (size_t i = 0; i < size; ++i)
        hash = (hash ^ p[i]) * 0x100000001B3ull;
    return hash;
}
// The number of nonzero bytes of voxels[0 .. n) (solid voxels: material 0 is air).
static inline uint64_t vxk_count_solid(const uint8_t* voxels, size_t n)
{
    uint64_t count = 0;
    for (size_t i = 0; i < n; ++i)
        count += voxels[i] != 0;
    return count;
}

#define VXK_HASH_SEED 0xCBF29CE484222325ull

#endif
