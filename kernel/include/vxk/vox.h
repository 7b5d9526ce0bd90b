// vxk/vox.h: MagicaVoxel .vox import: models, the scene graph (nTRN/nGRP/nSHP) with its
// translations and rotations, one flattened grid for the whole scene, and loading into terrain.
//
// Axes. MagicaVoxel is z-up, vxk is y-up. Every vox coordinate (x, y, z) maps to the vxk
// coordinate (x, z, y): vox z becomes vxk y (up) and vox y becomes vxk z. This swap mirrors
// handedness; it keeps every voxel's position readable in both programs without a sign flip.
//
// Colours. An XYZI voxel stores a colour index c in 1..255 whose colour is entry c-1 of the RGBA
// chunk (the file's off-by-one). vxk stores the palette shifted, so that palette[c] is the colour
// of colour index c and palette[0] is unused. Files without an RGBA chunk use MagicaVoxel's
// default palette. A voxel with colour index 0 is empty and skipped.
//
// Placement. Each model rotates about the centre of its box and that centre goes to the
// translation: model voxel v (vox axes) lands at t + floor(R * (2v + 1 - size) / 2), per
// component, where R (a signed permutation) and t accumulate down the scene graph from the root
// nTRN (node 0): world = R_parent * (R_child * p + t_child) + t_parent. Only frame 0 of each
// nTRN is used. Unrotated, this is v - floor(size / 2) + t: the centre voxel floor(size / 2)
// sits at the translation. Rotated models with an even size keep the same box (a rotation by
// 180 degrees maps [-4, 3] onto [-4, 3], not [-3, 4]); the sample scene of opengametools, a
// grid of 8^3 models at multiples of 8 with rotations, has no overlapping voxel under this
// rule and 440 under R * (v - floor(size / 2)) + t.
// Instances are listed in depth-first pre-order with children in file order; where instances
// overlap in the flattened grid the later one wins. Files without a scene graph place model i
// with its min corner at x = sum of the widths (size x) of models 0..i-1, y = z = 0, so the
// models stand side by side without overlapping.
//
// Errors. Malformed, truncated or hostile input gives a status and never reads out of bounds:
//   VXK_ERR_TRUNCATED     a size or count asks for more bytes than remain in the file or chunk
//   VXK_ERR_MALFORMED     bad magic, a first chunk other than MAIN, negative chunk sizes or counts,
//                         SIZE without XYZI (or XYZI without SIZE), a file with no model,
//                         duplicate node ids, a missing node or model reference, a cycle in the
//                         scene graph, a root that is not an nTRN, unparsable _t or _r values
//   VXK_ERR_OUT_OF_RANGE  a model size <= 0 or > 256 on an axis, an XYZI voxel outside its model
//                         (rejected, not skipped), translations beyond +-2^24, a flattened scene
//                         beyond max_scene_extent per axis, byte budgets, instance/node limits
//   VXK_ERR_UNSUPPORTED   chunk nesting or scene graph depth beyond the fixed limits (16 / 64)
// On any error nothing is leaked and the output is zeroed.
#ifndef VXK_VOX_H
#define VXK_VOX_H

#include <vxk/base.h>
#include <vxk/voxel_grid.h>
#include <vxk/world.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VXK_VOX_MAX_MODEL_SIZE 256 // per axis, as MagicaVoxel
#define VXK_VOX_MAX_CHUNK_DEPTH 16 // nesting of chunks inside MAIN
#define VXK_VOX_MAX_GRAPH_DEPTH 64 // nodes on one root-to-leaf path of the scene graph
#define VXK_VOX_MAX_TRANSLATION (1 << 24)

typedef struct vxk_vox_options {
    uint32_t cookie; // set by vxk_default_vox_options
    // Material table used for the default colour mapping by vxk_vox_load_grids (NULL = the
    // default table). vxk_vox_load_into_world uses the world's table instead.
    const vxk_material_table* materials;
    // When use_palette_to_material is true, colour index c (1..255) becomes material
    // palette_to_material[c]; entry 0 is ignored; a 0 entry drops that colour's voxels; nonzero
    // entries must be defined in the material table. When false, each colour maps to the
    // defined solid material whose color is nearest in RGB (squared distance, ties by lowest id).
    bool use_palette_to_material;
    uint8_t palette_to_material[256];
    int32_t max_scene_extent; // flattened scene size limit per axis (default 2048)
    uint64_t max_bytes;       // budget for model grids, and separately for the flattened grid
                              // and for the voxel writes it needs (default 256 MiB each)
    uint32_t max_instances;   // shape instances after expanding the graph (default 65536)
    uint32_t max_models;      // SIZE/XYZI pairs (default 65536)
    uint32_t max_nodes;       // scene graph node chunks, and node visits (default 1 << 20)
    uint64_t max_file_bytes;  // file variants: larger files are refused (default 1 GiB)
} vxk_vox_options;

vxk_vox_options vxk_default_vox_options(void);

// One placed model, in vxk axes: grid voxel g of models[model] (size s) lands at
// translation + floor(rotation * (2g + 1 - s) / 2), rotation row-major with entries -1, 0, 1.
typedef struct vxk_vox_instance {
    uint32_t model;
    int8_t rotation[9];
    vxk_int3 translation;
} vxk_vox_instance;

typedef struct vxk_vox_scene {
    int32_t version; // the file's version field (150, 200, ...)
    uint32_t model_count;
    vxk_voxel_grid* models; // material ids, vxk axes (size.y = vox size z)
    uint32_t instance_count;
    vxk_vox_instance* instances;
    bool has_scene_graph;             // false: side-by-side placement (see top of file)
    uint8_t palette[256][4];          // RGBA of colour index c at palette[c]; palette[0] zero
    uint8_t palette_to_material[256]; // the mapping that was applied
    void* internal;                   // voxel lists and limits used by vxk_vox_scene_flatten
} vxk_vox_scene;

// Parses a .vox buffer into models and instances. data may be NULL only when size is 0.
// Errors: those at the top of this file; VXK_ERR_INVALID_ARGUMENT (null pointers, or opts with a
// max_scene_extent <= 0 or a zero max_bytes, max_instances, max_models or max_nodes),
// VXK_ERR_BAD_DEF (opts not from vxk_default_vox_options), VXK_ERR_BAD_MATERIAL (a mapped id not
// defined, or no defined solid material for the default mapping), VXK_ERR_OUT_OF_MEMORY. On error
// *out is zeroed. Cost: O(size + model voxels); allocates the models and a copy of the voxel lists.
// Thread-safe for distinct outputs. opts may be NULL (defaults).
vxk_status vxk_vox_load_grids(const void* data, size_t size, const vxk_vox_options* opts,
                              vxk_vox_scene* out);
// Same for a file, with the errors of vxk_vox_load_grids, plus VXK_ERR_IO when the file cannot be
// opened or read (a directory included) and VXK_ERR_OUT_OF_RANGE when it holds more than
// opts->max_file_bytes.
vxk_status vxk_vox_load_grids_file(const char* path, const vxk_vox_options* opts,
                                   vxk_vox_scene* out);

// Releases what a loader allocated and zeroes the scene. Accepts a zeroed scene.
void vxk_vox_scene_free(vxk_vox_scene* scene);

// Places every instance into ONE standalone grid just large enough for the instances' model
// boxes. origin receives the vxk scene coordinate of grid voxel (0,0,0) (may be NULL).
// Errors: VXK_ERR_INVALID_ARGUMENT, VXK_ERR_OUT_OF_RANGE (no instance, a box beyond
// max_scene_extent per axis, or beyond the byte budgets), VXK_ERR_OUT_OF_MEMORY; *out zeroed on
// error. Cost: O(grid bytes + sum over instances of model voxel count). Thread-safe for
// distinct outputs (the scene is only read).
vxk_status vxk_vox_scene_flatten(const vxk_vox_scene* scene, vxk_voxel_grid* out, vxk_int3* origin);

// Load and flatten in one call (the grid a voxel body is made from), with the errors of
// vxk_vox_load_grids and vxk_vox_scene_flatten.
vxk_status vxk_vox_load_flat(const void* data, size_t size, const vxk_vox_options* opts,
                             vxk_voxel_grid* out, vxk_int3* origin);

// Loads, flattens and writes the scene into the terrain with vxk_world_write_box so that grid
// voxel (0,0,0) lands at voxel `offset`; air voxels of the grid write air. The default colour
// mapping uses the world's material table (opts->materials is ignored). Errors: those of
// vxk_vox_load_grids and vxk_vox_scene_flatten; VXK_ERR_INVALID_ARGUMENT for a NULL world;
// VXK_ERR_OUT_OF_RANGE when the box leaves int32; the world is unchanged on any error. Not
// thread-safe against other calls on the same world.
vxk_status vxk_vox_load_into_world(vxk_world* world, const void* data, size_t size, vxk_int3 offset,
                                   const vxk_vox_options* opts);
// Same for a file: the errors of vxk_vox_load_into_world and of vxk_vox_load_grids_file.
vxk_status vxk_vox_load_into_world_file(vxk_world* world, const char* path, vxk_int3 offset,
                                        const vxk_vox_options* opts);

// MagicaVoxel's default palette in the vxk convention (entry c = colour index c, RGBA).
void vxk_vox_default_palette(uint8_t palette[256][4]);

#ifdef __cplusplus
}
#endif
#endif
