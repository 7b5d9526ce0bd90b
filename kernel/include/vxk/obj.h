// vxk/obj.h: Wavefront OBJ import and export of vxk_mesh (positions and faces only), used to
// exchange chunk meshes with other tools and peers.
#ifndef VXK_OBJ_H
#define VXK_OBJ_H

#include <vxk/base.h>
#include <vxk/mesh.h>

#ifdef __cplusplus
extern "C" {
#endif

// Longest face (corners) and most vertices or faces a file may hold; past them it is malformed.
#define VXK_OBJ_MAX_FACE_CORNERS 1024u
#define VXK_OBJ_MAX_ELEMENTS (1u << 26)

// Parses OBJ text (size bytes, need not be NUL-terminated) into *out. Reads `v x y z [w ...]` and
// `f` statements whose corners are `v`, `v/vt`, `v//vn` or `v/vt/vn` with 1-based or negative
// (relative to the vertices read so far) indices; every other statement (vt, vn, comments, g, o,
// s, usemtl, mtllib, ...) is ignored. A face may only reference vertices defined before it.
// corners = 3: polygons are fan-triangulated (c0, ci, ci+1). corners = 4: the mesh is made of quads
// when every face has exactly 4 corners, otherwise it is triangulated as with 3 (check
// out->corners). Malformed input (a bad or non-finite number, index 0 or out of range, a face with
// < 3 or > VXK_OBJ_MAX_FACE_CORNERS corners, more than VXK_OBJ_MAX_ELEMENTS vertices or faces)
// returns VXK_ERR_MALFORMED with the 1-based line in *error_line (may be NULL; 0 when there is no
// error or no line to name). A NULL out, NULL text with size > 0 or corners other than 3 and 4 ->
// VXK_ERR_INVALID_ARGUMENT; VXK_ERR_OUT_OF_MEMORY. *out is written only on success (free with
// vxk_mesh_free); materials are NULL. Memory-safe on any input. Cost O(size); thread-safe.
vxk_status vxk_obj_read(vxk_mesh* out, const char* text, size_t size, uint32_t corners,
                        uint32_t* error_line);

// Reads a file with vxk_obj_read, with the errors of vxk_obj_read, plus VXK_ERR_INVALID_ARGUMENT
// for a NULL path and VXK_ERR_IO when the file cannot be opened or read (a directory included).
vxk_status vxk_obj_load(vxk_mesh* out, const char* path, uint32_t corners, uint32_t* error_line);

// Writes the mesh as OBJ text (`v` with 9 significant digits, so floats re-read exactly, then one
// `f` per primitive) into a buffer allocated through the vxk allocator: *text (NUL-terminated),
// *size its length without the NUL. Release with vxk_obj_free_text(*text, *size). Re-reading the
// text with the mesh's corners gives the same mesh. Errors (nothing allocated): NULL text, size or
// mesh, corners other than 3 and 4, NULL arrays with nonzero counts -> VXK_ERR_INVALID_ARGUMENT;
// an index >= vertex_count -> VXK_ERR_OUT_OF_RANGE; a NaN or infinite vertex ->
// VXK_ERR_NOT_FINITE; VXK_ERR_OUT_OF_MEMORY. Thread-safe.
vxk_status vxk_obj_write(char** text, size_t* size, const vxk_mesh* mesh);
void vxk_obj_free_text(char* text, size_t size);

// Writes the mesh to a file, with the errors of vxk_obj_write, plus VXK_ERR_INVALID_ARGUMENT for a
// NULL path and VXK_ERR_IO when the file cannot be written.
vxk_status vxk_obj_save(const char* path, const vxk_mesh* mesh);

#ifdef __cplusplus
}
#endif
#endif
