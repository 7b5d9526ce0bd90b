// vxk/base.h: status codes, small math types, the allocator hook and asserts shared by the
// whole kernel.
#ifndef VXK_BASE_H
#define VXK_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VXK_VERSION_MAJOR 0
#define VXK_VERSION_MINOR 1
#define VXK_VERSION_PATCH 0
const char* vxk_version_string(void);

// Every public function that takes untrusted input returns a status and changes nothing when it
// is not VXK_OK.
typedef enum vxk_status {
    VXK_OK = 0,
    VXK_ERR_INVALID_ARGUMENT, // a null pointer, a zero count where one is needed, a bad enum
    VXK_ERR_BAD_DEF,          // a def not made by its vxk_default_*_def function
    VXK_ERR_NOT_FINITE,       // NaN or infinity in a float input
    VXK_ERR_OUT_OF_RANGE,     // a coordinate, size or value outside its documented range
    VXK_ERR_BAD_MATERIAL,     // a material id that is not defined in the world's table
    VXK_ERR_STALE_ID,         // an id whose generation no longer matches
    VXK_ERR_OUT_OF_MEMORY,
    VXK_ERR_IO,          // a file could not be opened, read or written
    VXK_ERR_MALFORMED,   // a file, buffer or string is not in the expected format
    VXK_ERR_TRUNCATED,   // a file or buffer ends before its structure does
    VXK_ERR_UNSUPPORTED, // valid input that this version does not handle
    VXK_ERR_CAPACITY,    // a caller-provided output buffer is too small
    VXK_ERR_NESTING,     // a wait at the scheduler's nesting cap could not continue elsewhere
    VXK_STATUS_COUNT
} vxk_status;

// A static, human-readable description of a status.
const char* vxk_status_string(vxk_status status);

typedef struct vxk_vec3 {
    float x, y, z;
} vxk_vec3;

// A rotation: a unit quaternion, w the scalar part. Identity = {0, 0, 0, 1}.
typedef struct vxk_quat {
    float x, y, z, w;
} vxk_quat;

// A pose: position and rotation.
typedef struct vxk_transform {
    vxk_vec3 p;
    vxk_quat q;
} vxk_transform;

typedef struct vxk_int3 {
    int32_t x, y, z;
} vxk_int3;

typedef struct vxk_aabb {
    vxk_vec3 min, max;
} vxk_aabb;

// A box of voxels (or chunks): every v with min <= v <= max on each axis, bounds inclusive.
typedef struct vxk_int_box {
    vxk_int3 min, max;
} vxk_int_box;

// Memory: one allocator hook for everything vxk allocates, and a byte counter. Set it before
// creating any vxk object. NULL restores malloc/free. Not thread-safe against live allocations.
typedef struct vxk_allocator {
    void* (*alloc)(size_t size, void* user); // 16-byte aligned or better
    void (*free)(void* pointer, size_t size, void* user);
    void* user;
} vxk_allocator;
void vxk_set_allocator(const vxk_allocator* allocator);
// Bytes vxk holds right now through the hook (all objects together). Thread-safe.
size_t vxk_allocated_bytes(void);

// Assert handler for programming errors inside the kernel (never for bad user input).
// Return nonzero to break into the debugger; the default prints and aborts.
typedef int vxk_assert_fn(const char* condition, const char* file, int line);
void vxk_set_assert_handler(vxk_assert_fn* handler);

#ifdef __cplusplus
}
#endif
#endif
