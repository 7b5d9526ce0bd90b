// vxk/raycast.h: ray queries against the voxel terrain (seed 000, Roblox terrain physics): a 3D
// DDA (Amanatides & Woo 1987) over the 8^3-voxel chunk grid skips chunks whose bit broadphase
// mask has no bit near the ray, then the chunk's loose kD tree (built lazily through the
// narrowphase cache) is queried front to back, stopping at the first chunk with a hit.
//
// Geometry: the terrain surface is the mesher's greedy quads (faces between a solid voxel and a
// non-solid one, vxk/mesher.h); water and air are not hit. Hits are two-sided.
//
// Coordinates: voxel coordinates are the int32 range on every axis, for rays as for terrain
// (vxk/world.h): an origin whose voxel coordinate (origin / voxel_size) lies outside
// [-2^31, 2^31) on an axis is refused (VXK_ERR_OUT_OF_RANGE), a ray is followed to its
// max_distance or to the edge of that range, and terrain anywhere in it can be hit.
//
// Distances: a ray is origin + s * normalize(direction); distance and max_distance are in world
// units along the normalized direction. The ray in voxel units: origin_voxel = origin *
// (1 / voxel_size), dir_voxel = direction * (1 / |direction|) * (1 / voxel_size), t in world
// units (all float, -ffp-contract=off). Each chunk's tree is traversed in the chunk's frame
// (origin_voxel - 8 * chunk), and its quads are tested in the ray's frame: the origin relative to
// chunk c_ref = trunc(origin_voxel / 8) (exact), every chunk's corners shifted by
// 8 * (chunk - c_ref) and rounded once (vxk_kdtree_frame), with tmax = max_distance. Watertight:
// the quad test (vxk/kdtree.h's rectangle test) decides on the crossings of the axis planes of its
// coordinates, and a plane has one coordinate in that frame whichever chunk's quad it bounds, so
// a ray that enters the solid through an edge or corner shared by quads (material seams, chunk
// borders, quads not merged for any reason) hits one of them; it never passes between them.
// Precision: positions along the ray carry the float error of voxel units (a few ulps of their
// distance from the origin's chunk), so a distance is good to 1e-5 relative except for grazing
// hits, where that error divided by the cosine of the incidence angle dominates, and a ray
// starting within that error of a face may start on either side of it. A ray that passes within
// that error of an edge may report either face there (or, at a convex edge, pass by), both true
// to the solid; a ray that touches an edge exactly may report a face it meets from behind.
//
// Rays that start inside solid: when the voxel containing the origin (floor of origin_voxel) is
// solid, the result is a hit at distance 0 at the origin, with normal -normalize(direction), the
// voxel's material and chunk. (A physics user asking "what is in front of me" from inside terrain
// is told: terrain, here.) An origin exactly on a face of a solid voxel with air below it counts as
// outside when floor() places it in the air voxel and hits that face at distance 0.
//
// Precondition: the bit broadphase is current (vxk_broadphase_build once, then
// vxk_world_step after terrain writes): chunks without a broadphase entry, or whose
// dilated mask has no bit near the ray, are skipped, and the inside-solid test above, where the
// origin's mask bit is set, reads the exact solid bits kept with the chunk's cached kD tree (which
// the ray's first chunk visit uses anyway), and the voxel itself only when that bit is set too.
//
// Cost: a ray's steps grow with the chunks it passes near, not with its length: empty space is
// crossed in coarse steps (the mechanisms, and the numbers they are tuned with, are described in
// collision/raycast.c and docs/architecture.md). A chunk's quads and quantized kD tree are built
// on its first query and cached under the world's budget; an entry confirmed current at the
// terrain's write epoch is reused without revalidation until the next terrain write.
//
// Thread-safety: all functions may run concurrently with each other and with other world reads;
// not with terrain writes or broadphase builds/updates. They fill the world's narrowphase cache
// (internally synchronized; batch pieces share no written state but their output slots).
#ifndef VXK_RAYCAST_H
#define VXK_RAYCAST_H

#include <vxk/base.h>
#include <vxk/id.h>
#include <vxk/world.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vxk_ray {
    vxk_vec3 origin;    // world units, finite
    vxk_vec3 direction; // finite, not zero; need not be unit length
    float max_distance; // >= 0 along the normalized direction; +infinity allowed (no limit)
} vxk_ray;

typedef struct vxk_ray_hit {
    vxk_vec3 point;   // origin + distance * normalize(direction)
    vxk_vec3 normal;  // unit outward normal of the face hit (axis-aligned), or -dir inside
    float distance;   // world units along the normalized direction
    uint8_t hit;      // 1 on a hit, 0 on a miss (then the other fields are zero)
    uint8_t material; // material id of the solid voxel whose face was hit
    uint8_t pad[2];
    vxk_int3 chunk; // chunk coordinate owning the face (the solid voxel's chunk)
} vxk_ray_hit;      // 44 bytes

// Closest hit along the ray within max_distance. On VXK_OK *hit is filled (hit->hit says
// whether anything was hit). Errors, with *hit untouched: NULL pointers ->
// VXK_ERR_INVALID_ARGUMENT; NaN/Inf in origin or direction, or a NaN max_distance ->
// VXK_ERR_NOT_FINITE; a zero direction (or one whose length underflows), a negative
// max_distance or an origin outside the int32 voxel range [-2^31, 2^31) on an axis ->
// VXK_ERR_OUT_OF_RANGE; VXK_ERR_OUT_OF_MEMORY when the world's ray cache or a chunk's data cannot
// be built.
// Cost: the chunks crossed (one grid read and a bit test each; in a sparse world the chunks near
// the ray, empty space in coarse steps), plus one kD query per chunk with bits near the ray (one
// cache lookup: a slot read and a pin); the first query of a chunk builds its mesh and tree
// (cached; chunks of the outermost layer of the range, whose mesher box leaves int32, are built
// by the ray for the call).
vxk_status vxk_raycast(const vxk_world* world, vxk_ray_hit* hit, const vxk_ray* ray);

// Whether the ray hits anything within max_distance (shadow/occlusion query; stops at the first
// hit found, in any order inside a chunk). Same errors as vxk_raycast; *hit_any untouched on error.
vxk_status vxk_raycast_any(const vxk_world* world, bool* hit_any, const vxk_ray* ray);

// Closest hits of count rays: hits[i] = the vxk_raycast result of rays[i]. Runs over the world's
// jobs in fixed pieces of rays; the results do not depend on the worker count (each ray's result
// is computed independently and written to its own slot). Every ray is validated first: on an
// error nothing is written. Errors: the errors of vxk_raycast for the first bad ray; NULL
// arrays with count > 0 -> VXK_ERR_INVALID_ARGUMENT. count 0 is VXK_OK. Callable from inside a
// job. Pieces are about 1/32 of the batch (64 to 4096 rays), cut by count alone; a batch of at
// most 64 rays is one piece, run on the calling thread.
// Order: the rays are traced in the order of a key (the Morton code of the origin's chunk, low 9
// bits per axis, then the direction octant, then the index), so that rays starting in the same
// chunks and heading the same way run together; the pieces cut that order (a key buffer of
// 16 bytes per ray is allocated for the call; without it the input order is used).
// Packets: a piece takes its rays in groups of 8 from its start; a group is coherent when all 8
// directions have the same sign bit per axis (one octant), their normalized components differ
// from the first lane's by at most 1/8, and all 8 origins lie in one chunk (floor(origin_voxel /
// 8) equal). A coherent group is traced lane by lane with shared chunk
// lookups: the first lane to need a chunk's data fetches it and slab-tests all 8 rays at once
// (vxk_ray8_aabb) against the box of the chunk's solid voxels, thickened by 1e-4 * (16 + the
// largest |local origin|_1) voxels; lanes that miss skip that chunk's kD query (it cannot hit).
// Each lane then queries the chunk's tree itself, testing a leaf's quads 8 at a time
// (vxk_ray_qquad8). Other groups and a piece's last rays take the single-ray path. Results equal
// vxk_raycast byte for byte either way (each lane's hit is the single ray's). Camera tiles: store
// 8x8 pixel tiles with rows of 8 consecutive rays.
vxk_status vxk_raycast_batch(const vxk_world* world, vxk_ray_hit* hits, const vxk_ray* rays,
                             uint32_t count);

// ---- queries that hit bodies ----------------------------------------------------------------
//
// vxk_raycast_query and vxk_raycast_query_batch trace a ray against the terrain and the bodies
// (vxk/body.h) that its filter lets through, and report the closest hit with what was hit: a
// terrain voxel or a body.
//
// Terrain: exactly vxk_raycast's result (same distance, point and normal bits), with the solid
// voxel whose face was hit (for a ray starting inside solid, the voxel of the origin).
// Bodies, in the body's frame (its pose taken exactly, arithmetic in double):
//   sphere   the analytic intersection; normal (point - centre) / radius;
//   box      the slab test of the oriented box; normal the face's outward normal;
//   voxels   a 3D DDA (Amanatides & Woo) over the body's grid, voxel by voxel from where the ray
//            enters the grid's box: the first solid voxel (material id not 0) entered is hit, on
//            its exact face; the normal is that face's outward normal. The box compound (the
//            collision shape) is not used: its boxes cover exactly the solid voxels anyway.
// A ray whose origin lies inside a body's shape (a closed sphere or box; a solid voxel, floor of
// the grid coordinate) hits it at distance 0 with normal -normalize(direction), as inside solid
// terrain. Hits are the entering faces of a shape: a ray leaving a shape it started outside of
// does not hit it a second time.
// Closest: the nearest hit within max_distance wins; on equal distances terrain wins over bodies,
// and between bodies the lower id index wins, so the result never depends on any order of work.
// The terrain part is traced first (over the whole max_distance); bodies then need to be strictly
// nearer than its hit.
//
// Culling: a single query tests every live body's world box (the box of its shape at its pose)
// with a slab test before the exact test: O(bodies) per ray. A batch builds, once per call, a
// bounding volume hierarchy (midpoint splits) over the world boxes of the live bodies
// (O(n log n), about 100 bytes per body, freed at the end of the call) and walks it per ray
// front to back, skipping nodes beyond the best hit so far: O(log n + bodies near the ray) per
// ray. (The step's pair tracker is not used: it holds boxes padded for the next step's motion,
// not the bodies' boxes at their current poses, and no query may change it.)
//
// Thread-safety: as vxk_raycast, and not concurrently with calls that change bodies or with
// vxk_world_step (body reads are not synchronized).

// What a query may hit: bits of vxk_ray_filter.hit.
#define VXK_RAY_HIT_TERRAIN 1u   // terrain voxels
#define VXK_RAY_HIT_STATIC 2u    // static bodies
#define VXK_RAY_HIT_KINEMATIC 4u // kinematic bodies
#define VXK_RAY_HIT_DYNAMIC 8u   // dynamic bodies
#define VXK_RAY_HIT_BODIES (VXK_RAY_HIT_STATIC | VXK_RAY_HIT_KINEMATIC | VXK_RAY_HIT_DYNAMIC)
#define VXK_RAY_HIT_ALL (VXK_RAY_HIT_TERRAIN | VXK_RAY_HIT_BODIES)

typedef struct vxk_ray_filter {
    uint32_t hit;        // VXK_RAY_HIT_* bits, at least one; a zero filter is refused
    uint32_t pad;        // 0
    vxk_body_id exclude; // a body never hit (the caster's own, say); null: none. A stale or
                         // unknown id excludes nothing.
} vxk_ray_filter;        // 16 bytes

// Hits everything, excludes nothing.
vxk_ray_filter vxk_default_ray_filter(void);

typedef struct vxk_ray_query {
    vxk_ray ray;
    vxk_ray_filter filter;
} vxk_ray_query; // 44 bytes

typedef enum vxk_ray_target {
    VXK_RAY_TARGET_NONE = 0,    // a miss
    VXK_RAY_TARGET_TERRAIN = 1, // a terrain voxel
    VXK_RAY_TARGET_BODY = 2,    // a body
} vxk_ray_target;

typedef struct vxk_ray_result {
    vxk_vec3 point;   // origin + distance * normalize(direction)
    vxk_vec3 normal;  // unit outward normal of the surface hit; -normalize(direction) inside
    float distance;   // world units along the normalized direction
    uint8_t target;   // vxk_ray_target; on a miss every field is zero
    uint8_t material; // the material id of the voxel hit (terrain, voxel bodies), or the
                      // material of a sphere or box body
    uint8_t pad[2];
    vxk_int3 voxel;   // terrain: the solid voxel (world voxel coordinates); voxel bodies: the
                      // grid coordinate of the voxel hit; zero for spheres and boxes
    vxk_body_id body; // the body hit; null for terrain
} vxk_ray_result;     // 52 bytes

// The closest hit of query->ray among what query->filter lets through. On VXK_OK *result is
// filled (result->target says what was hit, VXK_RAY_TARGET_NONE for a miss). Errors, with
// *result untouched: NULL world, result or query, a filter hitting nothing, unknown bits in it or
// a nonzero pad -> VXK_ERR_INVALID_ARGUMENT; then the ray's errors as vxk_raycast reports them
// (VXK_ERR_NOT_FINITE, VXK_ERR_OUT_OF_RANGE; whether or not the filter hits terrain);
// VXK_ERR_OUT_OF_MEMORY when the terrain part cannot build its cache data.
// Cost: vxk_raycast's when the terrain is hit, plus a box test per live body and the exact test of
// each body whose box the ray meets (a voxel body: the voxels its DDA crosses).
vxk_status vxk_raycast_query(const vxk_world* world, vxk_ray_result* result,
                             const vxk_ray_query* query);

// results[i] = the vxk_raycast_query result of queries[i]. Every query is validated first, and
// results are written only when the whole batch succeeded: on an error nothing is written.
// The terrain part runs as vxk_raycast_batch over the queries that hit terrain, the body part as
// vxk_parallel_for pieces over the world's jobs; each result is computed on its own, so results
// do not depend on the worker count. Errors: NULL world, or NULL arrays with count > 0 ->
// VXK_ERR_INVALID_ARGUMENT; then the errors of vxk_raycast_query for the first bad query;
// VXK_ERR_OUT_OF_MEMORY (the batch's buffers, the body hierarchy, the terrain part). count 0 is
// VXK_OK. Callable from inside a job.
vxk_status vxk_raycast_query_batch(const vxk_world* world, vxk_ray_result* results,
                                   const vxk_ray_query* queries, uint32_t count);

// Statistics of the world's ray/narrowphase cache: resident chunks, bytes, hits and misses since
// the world was created, the coherent groups of 8 that batches traced as packets, and the DDA
// steps of rays in sparse worlds (no dense ray grid: cells visited plus empty cells left in one
// step; rays in dense worlds are not counted, to spare them a shared write).
typedef struct vxk_raycast_cache_stats {
    uint64_t hits, misses, builds, evictions, entries, bytes, budget;
    uint64_t packets;
    uint64_t steps; // DDA steps of rays in sparse worlds
} vxk_raycast_cache_stats;
// Fills *out (zeros for a NULL world; nothing for a NULL out). Thread-safe. Cost O(1).
void vxk_raycast_get_cache_stats(const vxk_world* world, vxk_raycast_cache_stats* out);

// Drops every cached chunk mesh/tree not in use (benchmarks measure cold rays with it).
void vxk_raycast_cache_clear(const vxk_world* world);

#ifdef __cplusplus
}
#endif
#endif
