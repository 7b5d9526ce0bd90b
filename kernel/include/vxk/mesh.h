// vxk/mesh.h: an indexed mesh of triangles or quads, the exchange type between the mesher, the
// kD tree, OBJ files and peer engines.
#ifndef VXK_MESH_H
#define VXK_MESH_H

#include <vxk/base.h>

#ifdef __cplusplus
extern "C" {
#endif

// corners = 3 (triangles) or 4 (quads, vertices in order around the quad, planar).
// indices holds corners * primitive_count entries; materials holds primitive_count entries
// (may be NULL). Owned by whoever filled it; vxk_mesh_free releases what vxk allocated.
typedef struct vxk_mesh {
    vxk_vec3* vertices;
    uint32_t vertex_count;
    uint32_t* indices;
    uint8_t* materials;
    uint32_t primitive_count;
    uint32_t corners;
} vxk_mesh;

// Releases a mesh whose arrays vxk allocated (OBJ import, mesher output) and zeroes it.
void vxk_mesh_free(vxk_mesh* mesh);

#ifdef __cplusplus
}
#endif
#endif
