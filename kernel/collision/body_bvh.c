// body_bvh.c: a BVH over object boxes for body pair finding. Follows Jesper Enschede's game BVH
// (32-byte nodes, one aligned pool of 2N nodes, left child doubling as first object in leaves),
// built with binned SAH (Wald, "On fast construction of SAH-based BVHs", 2007) or the article's
// longest-axis midpoint split, refitted bottom-up and rebuilt when its SAH cost has grown.
//
// Layout: the root is node 0, node 1 stays empty, and every split takes the next two nodes, so
// siblings always share one 64-byte line and children sit after their parent (refit runs the
// pool backwards). Leaves hold at most LEAF_MAX objects. The build is single-threaded.
//
// The pair tracker at the end is incremental in the manner of Bullet's btDbvtBroadphase and Box2D's
// dynamic tree (fat boxes, re-inserted only when the box leaves them, a persistent pair list), but
// outputs the exact overlapping pairs every frame, sorted.
#include "body_bvh.h"

#include "core.h"

#include <float.h>
#include <stdlib.h>

#define BIN_COUNT 12
#define LEAF_MAX 4
#define PAIRS_GRAIN 64
#define LOCAL_STACK 64

static bool box_overlaps(const vxk_aabb* a, const vxk_aabb* b)
{
    return a->min.x <= b->max.x && b->min.x <= a->max.x && a->min.y <= b->max.y &&
           b->min.y <= a->max.y && a->min.z <= b->max.z && b->min.z <= a->max.z;
}

static vxk_aabb box_union(vxk_aabb a, vxk_aabb b)
{
    return (vxk_aabb){
        {VXK_MIN(a.min.x, b.min.x), VXK_MIN(a.min.y, b.min.y), VXK_MIN(a.min.z, b.min.z)},
        {VXK_MAX(a.max.x, b.max.x), VXK_MAX(a.max.y, b.max.y), VXK_MAX(a.max.z, b.max.z)}};
}

// In double: float extents of huge boxes overflow, their products even more so.
static double box_area(const vxk_aabb* b)
{
    double dx = (double)b->max.x - b->min.x, dy = (double)b->max.y - b->min.y,
           dz = (double)b->max.z - b->min.z;
    return 2.0 * (dx * dy + dy * dz + dz * dx);
}

static vxk_status check_box(const vxk_aabb* b)
{
    if (!vxk_vec3_is_finite(b->min) || !vxk_vec3_is_finite(b->max))
        return VXK_ERR_NOT_FINITE;
    if (b->min.x > b->max.x || b->min.y > b->max.y || b->min.z > b->max.z)
        return VXK_ERR_INVALID_ARGUMENT;
    return VXK_OK;
}

static vxk_status check_boxes(const vxk_aabb* boxes, uint32_t count)
{
    vxk_status worst = VXK_OK;
    for (uint32_t i = 0; i < count; ++i) {
        vxk_status st = check_box(&boxes[i]);
        if (st == VXK_ERR_NOT_FINITE)
            return st;
        if (st != VXK_OK)
            worst = st;
    }
    return worst;
}

vxk_aabb vxk_bvh_swept_box(vxk_aabb box, vxk_vec3 velocity, float dt, float margin)
{
    vxk_vec3 d = {velocity.x * dt, velocity.y * dt, velocity.z * dt};
    vxk_aabb moved = {{box.min.x + d.x, box.min.y + d.y, box.min.z + d.z},
                      {box.max.x + d.x, box.max.y + d.y, box.max.z + d.z}};
    vxk_aabb swept = box_union(box, moved);
    swept.min = (vxk_vec3){swept.min.x - margin, swept.min.y - margin, swept.min.z - margin};
    swept.max = (vxk_vec3){swept.max.x + margin, swept.max.y + margin, swept.max.z + margin};
    return swept;
}

// ---- build -------------------------------------------------------------------------------------

typedef struct build_ctx {
    vxk_bvh_node* nodes;
    uint32_t* ids;
    const vxk_aabb* boxes;
    const vxk_vec3* centroids; // by id; halves summed, so huge boxes cannot overflow
    vxk_bvh_build_kind kind;
} build_ctx;

static float axis_of(vxk_vec3 v, int axis)
{
    return axis == 0 ? v.x : axis == 1 ? v.y : v.z;
}

static void range_bounds(const build_ctx* b, uint32_t first, uint32_t count, vxk_aabb* bounds,
                         vxk_aabb* centroid_bounds)
{
    vxk_aabb box = b->boxes[b->ids[first]];
    vxk_vec3 c = b->centroids[b->ids[first]];
    vxk_aabb cb = {c, c};
    for (uint32_t k = first + 1; k < first + count; ++k) {
        box = box_union(box, b->boxes[b->ids[k]]);
        c = b->centroids[b->ids[k]];
        cb = box_union(cb, (vxk_aabb){c, c});
    }
    *bounds = box;
    *centroid_bounds = cb;
}

static int bin_of(float c, double lo, double scale)
{
    int bin = (int)(((double)c - lo) * scale);
    return bin < 0 ? 0 : bin >= BIN_COUNT ? BIN_COUNT - 1 : bin;
}

// Partitions ids[first .. first + count) into those left of the split and the rest; returns the
// left count. side: 0 = midpoint (c < split), 1 = bins (bin < plane).
static uint32_t partition(build_ctx* b, uint32_t first, uint32_t count, int axis, int by_bins,
                          double lo, double scale, int plane, double split)
{
    uint32_t i = first, j = first + count;
    while (i < j) {
        float c = axis_of(b->centroids[b->ids[i]], axis);
        bool left = by_bins ? bin_of(c, lo, scale) < plane : (double)c < split;
        if (left) {
            ++i;
        } else {
            uint32_t t = b->ids[i];
            b->ids[i] = b->ids[--j];
            b->ids[j] = t;
        }
    }
    return i - first;
}

// Returns the left count of the split of a node, or 0 to keep it a leaf.
static uint32_t split_node(build_ctx* b, const vxk_bvh_node* node, const vxk_aabb* cb)
{
    uint32_t first = node->left_first, count = node->count;
    if (count <= 1)
        return 0;
    double ext[3] = {(double)cb->max.x - cb->min.x, (double)cb->max.y - cb->min.y,
                     (double)cb->max.z - cb->min.z};
    double lo[3] = {cb->min.x, cb->min.y, cb->min.z};
    if (ext[0] == 0.0 && ext[1] == 0.0 && ext[2] == 0.0)
        return count <= LEAF_MAX ? 0 : count / 2; // identical centroids: any cut is as good

    if (b->kind == VXK_BVH_BUILD_MIDPOINT) {
        if (count <= LEAF_MAX)
            return 0;
        int axis = ext[1] > ext[0] ? 1 : 0;
        axis = ext[2] > ext[axis] ? 2 : axis;
        uint32_t left =
            partition(b, first, count, axis, 0, 0.0, 0.0, 0, lo[axis] + ext[axis] * 0.5);
        return left == 0 || left == count ? count / 2 : left;
    }

    double best_cost = 0.0;
    int best_axis = -1, best_plane = 0;
    for (int axis = 0; axis < 3; ++axis) {
        if (ext[axis] == 0.0)
            continue;
        double scale = BIN_COUNT / ext[axis];
        uint32_t bin_count[BIN_COUNT] = {0};
        vxk_aabb bin_box[BIN_COUNT];
        for (uint32_t k = first; k < first + count; ++k) {
            uint32_t id = b->ids[k];
            int bin = bin_of(axis_of(b->centroids[id], axis), lo[axis], scale);
            bin_box[bin] = bin_count[bin] ? box_union(bin_box[bin], b->boxes[id]) : b->boxes[id];
            ++bin_count[bin];
        }
        double left_cost[BIN_COUNT];
        uint32_t n = 0;
        vxk_aabb acc = {{0, 0, 0}, {0, 0, 0}};
        for (int i = 0; i < BIN_COUNT - 1; ++i) {
            if (bin_count[i])
                acc = n ? box_union(acc, bin_box[i]) : bin_box[i];
            n += bin_count[i];
            left_cost[i] = n ? box_area(&acc) * n : -1.0; // planes after bin i
        }
        n = 0;
        for (int i = BIN_COUNT - 1; i > 0; --i) {
            if (bin_count[i])
                acc = n ? box_union(acc, bin_box[i]) : bin_box[i];
            n += bin_count[i];
            if (n == 0 || n == count || left_cost[i - 1] < 0.0)
                continue;
            double cost = left_cost[i - 1] + box_area(&acc) * n;
            if (best_axis < 0 || cost < best_cost ||
                (cost == best_cost &&
                 (axis < best_axis || (axis == best_axis && i < best_plane)))) {
                best_cost = cost;
                best_axis = axis;
                best_plane = i;
            }
        }
    }
    if (best_axis < 0)
        return count <= LEAF_MAX ? 0 : count / 2;
    // Leaf cost count * area against traversal area + children; only small nodes may stay leaves.
    double area = box_area(&node->box);
    if (count <= LEAF_MAX && best_cost >= area * (count - 1.0))
        return 0;
    uint32_t left = partition(b, first, count, best_axis, 1, lo[best_axis],
                              BIN_COUNT / ext[best_axis], best_plane, 0.0);
    return left == 0 || left == count ? count / 2 : left;
}

static void free_storage(vxk_bvh_node* nodes, uint32_t* ids, vxk_aabb* boxes, uint32_t capacity)
{
    vxk_free_aligned64(nodes, (size_t)capacity * 2 * sizeof(vxk_bvh_node));
    vxk_free(ids, (size_t)capacity * sizeof(uint32_t));
    vxk_free(boxes, (size_t)capacity * sizeof(vxk_aabb));
}

vxk_status vxk_bvh_build(vxk_bvh* bvh, const vxk_aabb* boxes, uint32_t count,
                         vxk_bvh_build_kind kind)
{
    if (!bvh || (!boxes && count > 0) || (unsigned)kind >= VXK_BVH_BUILD_KIND_COUNT ||
        count > (1u << 30))
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_status st = check_boxes(boxes, count);
    if (st != VXK_OK)
        return st;
    if (count == 0) {
        bvh->object_count = 0;
        bvh->node_count = 0;
        bvh->depth = 0;
        bvh->kind = kind;
        bvh->build_cost = 0.0;
        return VXK_OK;
    }

    // Scratch: centroids by id, then the work stack of (node, depth).
    // Kept in the tree for the next build, so that a steady run stops allocating.
    size_t scratch_size = (size_t)count * (sizeof(vxk_vec3) + 2 * sizeof(uint32_t));
    if (bvh->scratch_bytes < scratch_size) {
        uint8_t* grown = (uint8_t*)vxk_alloc(scratch_size);
        if (!grown)
            return VXK_ERR_OUT_OF_MEMORY;
        vxk_free(bvh->scratch, bvh->scratch_bytes);
        bvh->scratch = grown;
        bvh->scratch_bytes = scratch_size;
    }
    uint8_t* scratch = (uint8_t*)bvh->scratch;
    vxk_bvh_node* nodes = bvh->nodes;
    uint32_t* ids = bvh->object_ids;
    vxk_aabb* box_copy = bvh->boxes;
    bool fresh = bvh->capacity < count;
    if (fresh) {
        nodes = (vxk_bvh_node*)vxk_alloc_aligned64((size_t)count * 2 * sizeof(vxk_bvh_node));
        ids = (uint32_t*)vxk_alloc((size_t)count * sizeof(uint32_t));
        box_copy = (vxk_aabb*)vxk_alloc((size_t)count * sizeof(vxk_aabb));
        if (!nodes || !ids || !box_copy) {
            // Partly allocated: free each piece by its own size.
            vxk_free_aligned64(nodes, (size_t)count * 2 * sizeof(vxk_bvh_node));
            vxk_free(ids, (size_t)count * sizeof(uint32_t));
            vxk_free(box_copy, (size_t)count * sizeof(vxk_aabb));
            return VXK_ERR_OUT_OF_MEMORY;
        }
        free_storage(bvh->nodes, bvh->object_ids, bvh->boxes, bvh->capacity);
        bvh->nodes = nodes;
        bvh->object_ids = ids;
        bvh->boxes = box_copy;
        bvh->capacity = count;
    }

    vxk_vec3* centroids = (vxk_vec3*)scratch;
    uint32_t* stack = (uint32_t*)(scratch + (size_t)count * sizeof(vxk_vec3));
    memcpy(box_copy, boxes, (size_t)count * sizeof(vxk_aabb));
    for (uint32_t i = 0; i < count; ++i) {
        const vxk_aabb* bx = &boxes[i];
        centroids[i] =
            (vxk_vec3){0.5f * bx->min.x + 0.5f * bx->max.x, 0.5f * bx->min.y + 0.5f * bx->max.y,
                       0.5f * bx->min.z + 0.5f * bx->max.z};
        ids[i] = i;
    }

    build_ctx b = {nodes, ids, box_copy, centroids, kind};
    vxk_aabb cb;
    nodes[0].left_first = 0;
    nodes[0].count = count;
    range_bounds(&b, 0, count, &nodes[0].box, &cb);
    memset(&nodes[1], 0, sizeof(nodes[1]));
    uint32_t node_count = 2, depth = 0, top = 0;
    stack[top++] = 0;
    stack[top++] = 0;
    while (top) {
        uint32_t node_depth = stack[--top], index = stack[--top];
        vxk_bvh_node* node = &nodes[index];
        depth = VXK_MAX(depth, node_depth);
        if (index != 0)
            range_bounds(&b, node->left_first, node->count, &node->box, &cb);
        uint32_t left = split_node(&b, node, &cb);
        if (left == 0)
            continue;
        uint32_t child = node_count;
        node_count += 2;
        VXK_ASSERT(node_count <= 2 * count);
        nodes[child] = (vxk_bvh_node){node->box, node->left_first, left};
        nodes[child + 1] = (vxk_bvh_node){node->box, node->left_first + left, node->count - left};
        node->left_first = child;
        node->count = 0;
        // Right below left, so the left subtree is built (and numbered) first. At most one
        // pending node per object, two words each.
        stack[top++] = child + 1;
        stack[top++] = node_depth + 1;
        stack[top++] = child;
        stack[top++] = node_depth + 1;
        VXK_ASSERT(top <= 2 * count);
    }

    bvh->object_count = count;
    bvh->node_count = node_count;
    bvh->depth = depth;
    bvh->kind = kind;
    bvh->build_cost = vxk_bvh_cost(bvh);
    return VXK_OK;
}

// ---- refit, cost, update -----------------------------------------------------------------------

vxk_status vxk_bvh_refit(vxk_bvh* bvh, const vxk_aabb* boxes)
{
    if (!bvh || (!boxes && bvh->object_count > 0))
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_status st = check_boxes(boxes, bvh->object_count);
    if (st != VXK_OK)
        return st;
    if (bvh->object_count == 0)
        return VXK_OK;
    memcpy(bvh->boxes, boxes, (size_t)bvh->object_count * sizeof(vxk_aabb));
    vxk_bvh_node* nodes = bvh->nodes;
    for (uint32_t i = bvh->node_count; i-- > 0;) {
        if (i == 1)
            continue;
        vxk_bvh_node* node = &nodes[i];
        if (node->count) {
            vxk_aabb box = boxes[bvh->object_ids[node->left_first]];
            for (uint32_t k = 1; k < node->count; ++k)
                box = box_union(box, boxes[bvh->object_ids[node->left_first + k]]);
            node->box = box;
        } else {
            node->box = box_union(nodes[node->left_first].box, nodes[node->left_first + 1].box);
        }
    }
    return VXK_OK;
}

double vxk_bvh_cost(const vxk_bvh* bvh)
{
    if (!bvh || bvh->object_count == 0)
        return 0.0;
    double sum = 0.0;
    for (uint32_t i = 0; i < bvh->node_count; ++i) {
        if (i == 1)
            continue;
        const vxk_bvh_node* node = &bvh->nodes[i];
        sum += box_area(&node->box) * (node->count ? node->count : 1);
    }
    double root = box_area(&bvh->nodes[0].box);
    return root > 0.0 ? sum / root : sum;
}

vxk_status vxk_bvh_update(vxk_bvh* bvh, const vxk_aabb* boxes, uint32_t count,
                          double max_cost_ratio, bool* rebuilt)
{
    if (rebuilt)
        *rebuilt = false;
    if (!bvh || !(max_cost_ratio >= 1.0) || max_cost_ratio - max_cost_ratio != 0.0)
        return VXK_ERR_INVALID_ARGUMENT;
    if (count != bvh->object_count) {
        vxk_status st = vxk_bvh_build(bvh, boxes, count, bvh->kind);
        if (st == VXK_OK && rebuilt)
            *rebuilt = true;
        return st;
    }
    vxk_status st = vxk_bvh_refit(bvh, boxes);
    if (st != VXK_OK)
        return st;
    if (vxk_bvh_cost(bvh) <= max_cost_ratio * bvh->build_cost)
        return VXK_OK;
    st = vxk_bvh_build(bvh, boxes, count, bvh->kind);
    if (st == VXK_OK && rebuilt)
        *rebuilt = true;
    return st;
}

// ---- queries -----------------------------------------------------------------------------------

// A traversal stack for the tree: local when the tree is shallow, else through the hook.
typedef struct trav_stack {
    uint32_t local[LOCAL_STACK];
    uint32_t* items;
    size_t bytes;
} trav_stack;

static bool stack_init(trav_stack* s, const vxk_bvh* bvh)
{
    s->items = s->local;
    s->bytes = 0;
    if (bvh->depth + 1 <= LOCAL_STACK)
        return true;
    s->bytes = (size_t)(bvh->depth + 1) * sizeof(uint32_t);
    s->items = (uint32_t*)vxk_alloc(s->bytes);
    return s->items != NULL;
}

static void stack_free(trav_stack* s)
{
    if (s->bytes)
        vxk_free(s->items, s->bytes);
}

static int compare_u32(const void* a, const void* b)
{
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return (x > y) - (x < y);
}

vxk_status vxk_bvh_query(const vxk_bvh* bvh, uint32_t* ids, uint32_t capacity, uint32_t* count,
                         vxk_aabb box)
{
    if (count)
        *count = 0;
    if (!bvh || !count || (!ids && capacity > 0))
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_status st = check_box(&box);
    if (st != VXK_OK)
        return st;
    if (bvh->object_count == 0)
        return VXK_OK;
    trav_stack stack;
    if (!stack_init(&stack, bvh))
        return VXK_ERR_OUT_OF_MEMORY;
    uint32_t found = 0;
#define QUERY_EMIT(id)         \
    do {                       \
        if (found < capacity)  \
            ids[found] = (id); \
        ++found;               \
    } while (0)
    uint32_t* items = stack.items;
    {
        uint32_t top = 0;
        items[top++] = 0;
        while (top) {
            const vxk_bvh_node* node = &bvh->nodes[items[--top]];
            if (!box_overlaps(&node->box, &box))
                continue;
            if (node->count == 0) {
                items[top++] = node->left_first + 1;
                items[top++] = node->left_first;
                continue;
            }
            for (uint32_t k = node->left_first; k < node->left_first + node->count; ++k) {
                uint32_t id = bvh->object_ids[k];
                if (box_overlaps(&bvh->boxes[id], &box))
                    QUERY_EMIT(id);
            }
        }
    }
#undef QUERY_EMIT
    stack_free(&stack);
    *count = found;
    if (found > capacity)
        return VXK_ERR_CAPACITY;
    qsort(ids, found, sizeof(uint32_t), compare_u32);
    return VXK_OK;
}

typedef struct pair_piece {
    vxk_bvh_pair* pairs;
    uint32_t count, capacity;
    vxk_status status;
} pair_piece;

typedef struct pairs_ctx {
    const vxk_bvh* bvh;
    pair_piece* pieces;
    uint32_t max_pairs;
} pairs_ctx;

static void sort_partners(vxk_bvh_pair* pairs, uint32_t n)
{
    for (uint32_t i = 1; i < n; ++i) { // short lists: insertion sort on b
        vxk_bvh_pair p = pairs[i];
        uint32_t j = i;
        for (; j > 0 && pairs[j - 1].b > p.b; --j)
            pairs[j] = pairs[j - 1];
        pairs[j] = p;
    }
}

static int compare_pair_b(const void* a, const void* b)
{
    uint32_t x = ((const vxk_bvh_pair*)a)->b, y = ((const vxk_bvh_pair*)b)->b;
    return (x > y) - (x < y);
}

static void pairs_piece(void* user, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    pairs_ctx* ctx = (pairs_ctx*)user;
    const vxk_bvh* bvh = ctx->bvh;
    pair_piece* piece = &ctx->pieces[begin / PAIRS_GRAIN];
    trav_stack stack;
    if (!stack_init(&stack, bvh)) {
        piece->status = VXK_ERR_OUT_OF_MEMORY;
        return;
    }
    // A piece stops at max_pairs pairs (more cannot succeed), whatever its list's capacity.
#define PAIRS_EMIT(id)                                                                           \
    do {                                                                                         \
        if (piece->count >= ctx->max_pairs) {                                                    \
            piece->status = VXK_ERR_CAPACITY;                                                    \
            goto done;                                                                           \
        }                                                                                        \
        if (piece->count == piece->capacity &&                                                   \
            !vxk_grow_items((void**)&piece->pairs, &piece->capacity, (uint64_t)piece->count + 1, \
                            sizeof(vxk_bvh_pair))) {                                             \
            piece->status = VXK_ERR_OUT_OF_MEMORY;                                               \
            goto done;                                                                           \
        }                                                                                        \
        piece->pairs[piece->count++] = (vxk_bvh_pair){a, (id)};                                  \
    } while (0)
    for (uint32_t a = begin; a < end; ++a) {
        uint32_t first = piece->count;
        const vxk_aabb* box = &bvh->boxes[a];
        uint32_t top = 0;
        stack.items[top++] = 0;
        while (top) {
            const vxk_bvh_node* node = &bvh->nodes[stack.items[--top]];
            if (!box_overlaps(&node->box, box))
                continue;
            if (node->count == 0) {
                stack.items[top++] = node->left_first + 1;
                stack.items[top++] = node->left_first;
                continue;
            }
            for (uint32_t k = node->left_first; k < node->left_first + node->count; ++k) {
                uint32_t id = bvh->object_ids[k];
                if (id > a && box_overlaps(&bvh->boxes[id], box))
                    PAIRS_EMIT(id);
            }
        }
        uint32_t n = piece->count - first;
        if (n <= 32)
            sort_partners(piece->pairs + first, n);
        else
            qsort(piece->pairs + first, n, sizeof(vxk_bvh_pair), compare_pair_b);
    }
#undef PAIRS_EMIT
done:
    stack_free(&stack);
}

void vxk_bvh_pairs_free(vxk_bvh_pair* pairs, uint32_t count)
{
    vxk_free(pairs, (size_t)count * sizeof(vxk_bvh_pair));
}

vxk_status vxk_bvh_pairs_pooled(const vxk_bvh* bvh, vxk_jobs* jobs, vxk_bvh_pair_pool* pool,
                                const vxk_bvh_pair** out, uint32_t* count, uint32_t max_pairs)
{
    if (out)
        *out = NULL;
    if (count)
        *count = 0;
    if (!bvh || !pool || !out || !count)
        return VXK_ERR_INVALID_ARGUMENT;
    uint32_t n = bvh->object_count;
    if (n < 2)
        return VXK_OK;
    uint32_t piece_count = vxk_parallel_for_pieces(n, PAIRS_GRAIN);
    // Pieces past the old capacity start as empty lists (zeroed).
    if (!vxk_grow_items_zeroed(&pool->pieces, &pool->piece_capacity, piece_count,
                               sizeof(pair_piece)))
        return VXK_ERR_OUT_OF_MEMORY;
    pair_piece* pieces = (pair_piece*)pool->pieces;
    for (uint32_t i = 0; i < piece_count; ++i) {
        pieces[i].count = 0;
        pieces[i].status = VXK_OK;
    }
    pairs_ctx ctx = {bvh, pieces, max_pairs};
    if (jobs) {
        vxk_parallel_for(jobs, "bvh_pairs", n, PAIRS_GRAIN, pairs_piece, &ctx);
    } else {
        for (uint32_t begin = 0; begin < n; begin += PAIRS_GRAIN)
            pairs_piece(&ctx, begin, VXK_MIN(n, begin + PAIRS_GRAIN), 0);
    }

    // Merged in piece order: each piece covers a run of ids and is sorted, so the whole is.
    vxk_status st = VXK_OK;
    uint64_t total = 0;
    for (uint32_t i = 0; i < piece_count; ++i) {
        if (pieces[i].status == VXK_ERR_OUT_OF_MEMORY)
            st = VXK_ERR_OUT_OF_MEMORY;
        else if (pieces[i].status != VXK_OK && st == VXK_OK)
            st = pieces[i].status;
        total += pieces[i].count;
    }
    if (st == VXK_OK && total > max_pairs)
        st = VXK_ERR_CAPACITY;
    if (st == VXK_OK &&
        !vxk_grow_items((void**)&pool->merged, &pool->merged_capacity, total, sizeof(vxk_bvh_pair)))
        st = VXK_ERR_OUT_OF_MEMORY;
    if (st != VXK_OK)
        return st;
    uint64_t at = 0;
    for (uint32_t i = 0; i < piece_count; ++i) {
        if (pieces[i].count)
            memcpy(pool->merged + at, pieces[i].pairs,
                   (size_t)pieces[i].count * sizeof(vxk_bvh_pair));
        at += pieces[i].count;
    }
    *out = pool->merged;
    *count = (uint32_t)total;
    return VXK_OK;
}

size_t vxk_bvh_pair_pool_bytes(const vxk_bvh_pair_pool* pool)
{
    size_t bytes = (size_t)pool->piece_capacity * sizeof(pair_piece) +
                   (size_t)pool->merged_capacity * sizeof(vxk_bvh_pair);
    const pair_piece* pieces = (const pair_piece*)pool->pieces;
    for (uint32_t i = 0; i < pool->piece_capacity; ++i)
        bytes += (size_t)pieces[i].capacity * sizeof(vxk_bvh_pair);
    return bytes;
}

void vxk_bvh_pair_pool_free(vxk_bvh_pair_pool* pool)
{
    if (!pool)
        return;
    pair_piece* pieces = (pair_piece*)pool->pieces;
    for (uint32_t i = 0; i < pool->piece_capacity; ++i)
        vxk_free(pieces[i].pairs, (size_t)pieces[i].capacity * sizeof(vxk_bvh_pair));
    vxk_free(pool->pieces, (size_t)pool->piece_capacity * sizeof(pair_piece));
    vxk_free(pool->merged, (size_t)pool->merged_capacity * sizeof(vxk_bvh_pair));
    memset(pool, 0, sizeof(*pool));
}

vxk_status vxk_bvh_pairs(const vxk_bvh* bvh, vxk_jobs* jobs, vxk_bvh_pair** out, uint32_t* count,
                         uint32_t max_pairs)
{
    if (out)
        *out = NULL;
    if (count)
        *count = 0;
    if (!out || !count)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_bvh_pair_pool pool = {0};
    const vxk_bvh_pair* pairs = NULL;
    vxk_status st = vxk_bvh_pairs_pooled(bvh, jobs, &pool, &pairs, count, max_pairs);
    if (st == VXK_OK && *count) {
        // A copy of exactly *count pairs, so that vxk_bvh_pairs_free's size is exact.
        vxk_bvh_pair* copy = (vxk_bvh_pair*)vxk_alloc((size_t)*count * sizeof(vxk_bvh_pair));
        if (!copy) {
            st = VXK_ERR_OUT_OF_MEMORY;
            *count = 0;
        } else {
            memcpy(copy, pairs, (size_t)*count * sizeof(vxk_bvh_pair));
            *out = copy;
        }
    }
    vxk_bvh_pair_pool_free(&pool);
    return st;
}

size_t vxk_bvh_bytes(const vxk_bvh* bvh)
{
    return (size_t)bvh->capacity *
               (2 * sizeof(vxk_bvh_node) + sizeof(uint32_t) + sizeof(vxk_aabb)) +
           bvh->scratch_bytes;
}

void vxk_bvh_free(vxk_bvh* bvh)
{
    if (!bvh)
        return;
    free_storage(bvh->nodes, bvh->object_ids, bvh->boxes, bvh->capacity);
    vxk_free(bvh->scratch, bvh->scratch_bytes);
    memset(bvh, 0, sizeof(*bvh));
}

// ---- incremental pair tracking -----------------------------------------------------------------
//
// The tracker's tree holds padded boxes: an object's box grown by pad on every side and stretched
// by its predicted motion over PREDICT_FRAMES frames (the displacement of its centre since it was
// last padded, per frame, capped at PREDICT_CAP_PADS * pad per axis) on the side it moves to. A
// frame tests every box against its padded box (one pass, which also catches NaN and min > max);
// only the objects that escaped get new padded boxes, refit their paths to the root (or the whole
// tree when many escaped) and search the tree for their partners. Candidate pairs (padded boxes
// overlap) between two objects that did not escape cannot have changed, so the new candidate list
// is the old one without the escaped objects' pairs, merged with theirs (radix-sorted); the output
// is the candidates whose exact boxes overlap. Padded boxes contain the boxes, so no overlapping
// pair is missed. The tree is rebuilt (binned SAH) when its SAH cost, kept up to date along the
// refitted paths, passes TRACKER_REBUILD_RATIO times the build's.

#define PREDICT_FRAMES 8.0f
#define PREDICT_CAP_PADS 4.0f
#define TRACKER_REBUILD_RATIO 1.5
#define TRACKER_FULL_REFIT_SHARE 8 // refit the whole tree when more than count / 8 escaped
#define NO_PARENT UINT32_MAX

static float clamp_finite(float v)
{
    return v < -FLT_MAX ? -FLT_MAX : v > FLT_MAX ? FLT_MAX : v;
}

static vxk_vec3 box_centre(const vxk_aabb* b)
{
    return (vxk_vec3){b->min.x * 0.5f + b->max.x * 0.5f, b->min.y * 0.5f + b->max.y * 0.5f,
                      b->min.z * 0.5f + b->max.z * 0.5f};
}

static float predicted_axis(float now, float then, float scale, float cap)
{
    float d = (now - then) * scale; // finite inputs: at worst infinite, which the cap catches
    return d < -cap ? -cap : d > cap ? cap : d;
}

// Rounding is monotonic and pad, the stretches' signs and the clamp keep every bound on its side
// of the box's, so the padded box contains the box.
static void pad_axis(float lo, float hi, float pad, float motion, float* out_lo, float* out_hi)
{
    *out_lo = clamp_finite(lo - pad + VXK_MIN(motion, 0.0f));
    *out_hi = clamp_finite(hi + pad + VXK_MAX(motion, 0.0f));
}

static vxk_aabb padded_box(const vxk_aabb* b, vxk_vec3 motion, float pad)
{
    vxk_aabb p;
    pad_axis(b->min.x, b->max.x, pad, motion.x, &p.min.x, &p.max.x);
    pad_axis(b->min.y, b->max.y, pad, motion.y, &p.min.y, &p.max.y);
    pad_axis(b->min.z, b->max.z, pad, motion.z, &p.min.z, &p.max.z);
    return p;
}

static bool contained(const vxk_aabb* outer, const vxk_aabb* b)
{
    // Non-short-circuit: one branch per object; false for NaN and for min > max as well.
    return (outer->min.x <= b->min.x) & (outer->min.y <= b->min.y) & (outer->min.z <= b->min.z) &
           (b->max.x <= outer->max.x) & (b->max.y <= outer->max.y) & (b->max.z <= outer->max.z) &
           (b->min.x <= b->max.x) & (b->min.y <= b->max.y) & (b->min.z <= b->max.z);
}

static double tree_cost_sum(const vxk_bvh* bvh)
{
    double sum = 0.0;
    for (uint32_t i = 0; i < bvh->node_count; ++i)
        if (i != 1)
            sum += box_area(&bvh->nodes[i].box) * (bvh->nodes[i].count ? bvh->nodes[i].count : 1);
    return sum;
}

#define TRACKER_OBJECT_ARRAYS(X) \
    X(padded, vxk_aabb)          \
    X(anchor, vxk_vec3)          \
    X(anchor_frame, uint32_t)    \
    X(leaf_of, uint32_t)         \
    X(escaped_flag, uint8_t)     \
    X(escaped, uint32_t)

static size_t tracker_object_bytes(uint32_t capacity)
{
    size_t bytes = 0;
#define X(field, type) bytes += (size_t)capacity * sizeof(type);
    TRACKER_OBJECT_ARRAYS(X)
#undef X
    return bytes;
}

static void tracker_free_objects(vxk_bvh_tracker* t)
{
#define X(field, type) vxk_free(t->field, (size_t)t->object_capacity * sizeof(type));
    TRACKER_OBJECT_ARRAYS(X)
#undef X
    t->object_capacity = 0;
}

// Per-object arrays for count objects; their contents are not kept.
static bool tracker_reserve_objects(vxk_bvh_tracker* t, uint32_t count)
{
    if (count <= t->object_capacity)
        return true;
    uint32_t capacity = VXK_MAX(count, 16);
    bool ok = true;
#define X(field, type) type* field = (type*)vxk_calloc((size_t)capacity * sizeof(type));
    TRACKER_OBJECT_ARRAYS(X)
#undef X
#define X(field, type) ok = ok && field;
    TRACKER_OBJECT_ARRAYS(X)
#undef X
    if (!ok) {
#define X(field, type) vxk_free(field, field ? (size_t)capacity * sizeof(type) : 0);
        TRACKER_OBJECT_ARRAYS(X)
#undef X
        return false;
    }
    tracker_free_objects(t);
#define X(field, type) t->field = field;
    TRACKER_OBJECT_ARRAYS(X)
#undef X
    t->object_capacity = capacity;
    return true;
}

// Parents, leaves of objects and the stack for the tree just built.
static bool tracker_link(vxk_bvh_tracker* t)
{
    const vxk_bvh* bvh = &t->tree;
    uint32_t nodes = 2 * bvh->capacity;
    if (nodes > t->node_capacity) {
        uint32_t* parent = (uint32_t*)vxk_alloc((size_t)nodes * sizeof(uint32_t));
        if (!parent)
            return false;
        vxk_free(t->parent, (size_t)t->node_capacity * sizeof(uint32_t));
        t->parent = parent;
        t->node_capacity = nodes;
    }
    if (bvh->depth + 1 > t->stack_capacity) {
        uint32_t capacity = VXK_MAX(bvh->depth + 1, LOCAL_STACK);
        uint32_t* stack = (uint32_t*)vxk_alloc((size_t)capacity * sizeof(uint32_t));
        if (!stack)
            return false;
        vxk_free(t->stack, (size_t)t->stack_capacity * sizeof(uint32_t));
        t->stack = stack;
        t->stack_capacity = capacity;
    }
    if (bvh->object_count == 0)
        return true;
    t->parent[0] = NO_PARENT;
    for (uint32_t i = 0; i < bvh->node_count; ++i) {
        const vxk_bvh_node* node = &bvh->nodes[i];
        if (i == 1)
            continue;
        if (node->count == 0) {
            t->parent[node->left_first] = i;
            t->parent[node->left_first + 1] = i;
        } else {
            for (uint32_t k = node->left_first; k < node->left_first + node->count; ++k)
                t->leaf_of[bvh->object_ids[k]] = i;
        }
    }
    return true;
}

// Builds the tree over the padded boxes, then links it.
static vxk_status tracker_build_tree(vxk_bvh_tracker* t)
{
    vxk_status st = vxk_bvh_build(&t->tree, t->padded, t->count, VXK_BVH_BUILD_SAH);
    if (st != VXK_OK)
        return st;
    if (!tracker_link(t))
        return VXK_ERR_OUT_OF_MEMORY;
    t->cost_sum = tree_cost_sum(&t->tree);
    return VXK_OK;
}

static vxk_status tracker_start(vxk_bvh_tracker* t, vxk_jobs* jobs, const vxk_aabb* boxes,
                                uint32_t count, float pad)
{
    if (!tracker_reserve_objects(t, count))
        return VXK_ERR_OUT_OF_MEMORY;
    t->count = count;
    t->pad = pad;
    for (uint32_t i = 0; i < count; ++i) {
        t->padded[i] = padded_box(&boxes[i], (vxk_vec3){0, 0, 0}, pad);
        t->anchor[i] = box_centre(&boxes[i]);
        t->anchor_frame[i] = t->frame;
    }
    vxk_status st = tracker_build_tree(t);
    if (st != VXK_OK)
        return st;
    const vxk_bvh_pair* pairs = NULL;
    uint32_t pair_count = 0;
    st = vxk_bvh_pairs_pooled(&t->tree, jobs, &t->pool, &pairs, &pair_count, UINT32_MAX);
    if (st != VXK_OK)
        return st;
    if (pair_count) {
        // The pool's merged list becomes the candidate list; the old candidate buffer goes to
        // the pool for the next start.
        VXK_ASSERT(pairs == t->pool.merged);
        vxk_bvh_pair* swap = t->candidates;
        uint32_t swap_capacity = t->candidate_capacity;
        t->candidates = t->pool.merged;
        t->candidate_capacity = t->pool.merged_capacity;
        t->pool.merged = swap;
        t->pool.merged_capacity = swap_capacity;
    }
    t->candidate_count = pair_count;
    ++t->stats.restarts;
    return VXK_OK;
}

static void tracker_refit_path(vxk_bvh_tracker* t, uint32_t index)
{
    vxk_bvh_node* nodes = t->tree.nodes;
    const vxk_aabb* boxes = t->tree.boxes;
    const uint32_t* ids = t->tree.object_ids;
    while (index != NO_PARENT) {
        vxk_bvh_node* node = &nodes[index];
        vxk_aabb box;
        if (node->count) {
            box = boxes[ids[node->left_first]];
            for (uint32_t k = 1; k < node->count; ++k)
                box = box_union(box, boxes[ids[node->left_first + k]]);
        } else {
            box = box_union(nodes[node->left_first].box, nodes[node->left_first + 1].box);
        }
        if (memcmp(&box, &node->box, sizeof(box)) == 0)
            return; // the ancestors depend on this box only
        t->cost_sum += (box_area(&box) - box_area(&node->box)) * (node->count ? node->count : 1);
        node->box = box;
        index = t->parent[index];
    }
}

// Stable LSD radix sort of pairs by (a, b), 8-bit digits, skipping digits all pairs share.
static void sort_pairs(vxk_bvh_pair** pairs, vxk_bvh_pair** tmp, uint32_t n)
{
    uint32_t hist[8][256];
    memset(hist, 0, sizeof(hist));
    const vxk_bvh_pair* p = *pairs;
    for (uint32_t i = 0; i < n; ++i)
        for (int d = 0; d < 4; ++d) {
            ++hist[d][(p[i].b >> (8 * d)) & 255];
            ++hist[4 + d][(p[i].a >> (8 * d)) & 255];
        }
    for (int d = 0; d < 8; ++d) {
        uint32_t shift = 8 * (d & 3);
        bool on_a = d >= 4;
        const vxk_bvh_pair* src = *pairs;
        uint32_t first = ((on_a ? src[0].a : src[0].b) >> shift) & 255;
        if (hist[d][first] == n)
            continue;
        uint32_t offset[256], sum = 0;
        for (int k = 0; k < 256; ++k) {
            offset[k] = sum;
            sum += hist[d][k];
        }
        vxk_bvh_pair* dst = *tmp;
        for (uint32_t i = 0; i < n; ++i)
            dst[offset[((on_a ? src[i].a : src[i].b) >> shift) & 255]++] = src[i];
        *tmp = *pairs;
        *pairs = dst;
    }
}

// The escaped objects' candidate pairs, each once, in t->fresh (unsorted).
static vxk_status tracker_find_fresh(vxk_bvh_tracker* t, uint32_t escaped_count)
{
    const vxk_bvh* bvh = &t->tree;
    const vxk_bvh_node* nodes = bvh->nodes;
    const uint32_t* ids = bvh->object_ids;
    const vxk_aabb* boxes = bvh->boxes;
    const uint8_t* flag = t->escaped_flag;
    uint32_t* stack = t->stack;
    uint32_t fresh = 0;
    for (uint32_t q = 0; q < escaped_count; ++q) {
        uint32_t e = t->escaped[q];
        const vxk_aabb box = boxes[e];
        uint32_t top = 0;
        stack[top++] = 0;
        while (top) {
            const vxk_bvh_node* node = &nodes[stack[--top]];
            if (!box_overlaps(&node->box, &box))
                continue;
            if (node->count == 0) {
                stack[top++] = node->left_first + 1;
                stack[top++] = node->left_first;
                continue;
            }
            for (uint32_t k = node->left_first; k < node->left_first + node->count; ++k) {
                uint32_t h = ids[k];
                // Two escaped objects: the pair comes from the smaller one's search.
                if (h == e || (flag[h] && h < e) || !box_overlaps(&boxes[h], &box))
                    continue;
                if (fresh == t->fresh_capacity) {
                    t->fresh_count = fresh;
                    if (!vxk_grow_items((void**)&t->fresh, &t->fresh_capacity, (uint64_t)fresh + 1,
                                        sizeof(vxk_bvh_pair)))
                        return VXK_ERR_OUT_OF_MEMORY;
                }
                t->fresh[fresh++] = e < h ? (vxk_bvh_pair){e, h} : (vxk_bvh_pair){h, e};
            }
        }
    }
    t->fresh_count = fresh;
    return VXK_OK;
}

static bool pair_less(vxk_bvh_pair p, vxk_bvh_pair q)
{
    return p.a < q.a || (p.a == q.a && p.b < q.b);
}

static vxk_status tracker_step(vxk_bvh_tracker* t, const vxk_aabb* boxes, uint32_t escaped_count)
{
    uint32_t count = t->count;
    float cap = PREDICT_CAP_PADS * t->pad;
    for (uint32_t q = 0; q < escaped_count; ++q) {
        uint32_t e = t->escaped[q];
        vxk_vec3 now = box_centre(&boxes[e]), then = t->anchor[e];
        float scale = PREDICT_FRAMES / (float)(t->frame - t->anchor_frame[e]);
        vxk_vec3 motion = {predicted_axis(now.x, then.x, scale, cap),
                           predicted_axis(now.y, then.y, scale, cap),
                           predicted_axis(now.z, then.z, scale, cap)};
        t->padded[e] = padded_box(&boxes[e], motion, t->pad);
        t->tree.boxes[e] = t->padded[e];
        t->anchor[e] = now;
        t->anchor_frame[e] = t->frame;
        t->escaped_flag[e] = 1;
    }
    if ((uint64_t)escaped_count * TRACKER_FULL_REFIT_SHARE > count) {
        vxk_status st = vxk_bvh_refit(&t->tree, t->padded);
        VXK_ASSERT(st == VXK_OK); // padded boxes are finite and ordered
        (void)st;
        t->cost_sum = tree_cost_sum(&t->tree);
    } else {
        for (uint32_t q = 0; q < escaped_count; ++q)
            tracker_refit_path(t, t->leaf_of[t->escaped[q]]);
    }
    double root = box_area(&t->tree.nodes[0].box);
    double cost = root > 0.0 ? t->cost_sum / root : t->cost_sum;
    if (cost > TRACKER_REBUILD_RATIO * t->tree.build_cost) {
        vxk_status st = tracker_build_tree(t);
        if (st != VXK_OK)
            return st;
        ++t->stats.tree_rebuilds;
    }

    vxk_status st = tracker_find_fresh(t, escaped_count);
    if (st != VXK_OK)
        return st;
    uint32_t fresh_count = t->fresh_count;
    if (fresh_count > 1) {
        if (!vxk_grow_items((void**)&t->sort_tmp, &t->sort_capacity, fresh_count,
                            sizeof(vxk_bvh_pair)))
            return VXK_ERR_OUT_OF_MEMORY;
        vxk_bvh_pair* fresh = t->fresh;
        vxk_bvh_pair* tmp = t->sort_tmp;
        sort_pairs(&fresh, &tmp, fresh_count);
        if (fresh != t->fresh) { // the sorted pairs ended in the scratch buffer: swap the two
            uint32_t capacity = t->fresh_capacity;
            t->fresh_capacity = t->sort_capacity;
            t->sort_capacity = capacity;
            t->sort_tmp = t->fresh;
            t->fresh = fresh;
        }
    }

    uint64_t need = (uint64_t)t->candidate_count + fresh_count;
    if (need > UINT32_MAX)
        return VXK_ERR_CAPACITY;
    if (!vxk_grow_items((void**)&t->next, &t->next_capacity, need, sizeof(vxk_bvh_pair)))
        return VXK_ERR_OUT_OF_MEMORY;
    const vxk_bvh_pair* old = t->candidates;
    const vxk_bvh_pair* fresh = t->fresh;
    const uint8_t* flag = t->escaped_flag;
    vxk_bvh_pair* next = t->next;
    uint32_t i = 0, j = 0, k = 0, old_count = t->candidate_count;
    while (i < old_count) {
        vxk_bvh_pair p = old[i++];
        if (flag[p.a] | flag[p.b])
            continue;
        while (j < fresh_count && pair_less(fresh[j], p))
            next[k++] = fresh[j++];
        next[k++] = p;
    }
    while (j < fresh_count)
        next[k++] = fresh[j++];
    vxk_bvh_pair* swap = t->candidates;
    uint32_t swap_capacity = t->candidate_capacity;
    t->candidates = t->next;
    t->candidate_capacity = t->next_capacity;
    t->next = swap;
    t->next_capacity = swap_capacity;
    t->candidate_count = k;
    for (uint32_t q = 0; q < escaped_count; ++q)
        t->escaped_flag[t->escaped[q]] = 0;
    return VXK_OK;
}

vxk_status vxk_bvh_tracker_update(vxk_bvh_tracker* t, vxk_jobs* jobs, const vxk_bvh_pair** out,
                                  uint32_t* out_count, const vxk_aabb* boxes, uint32_t count,
                                  float pad)
{
    if (out)
        *out = NULL;
    if (out_count)
        *out_count = 0;
    if (!t || !out || !out_count || (!boxes && count > 0) || count > (1u << 30) || !(pad >= 0.0f) ||
        !vxk_is_finite(pad))
        return VXK_ERR_INVALID_ARGUMENT;

    bool start = !t->valid || count != t->count || pad != t->pad;
    uint32_t escaped_count = 0;
    if (start) {
        vxk_status st = check_boxes(boxes, count);
        if (st != VXK_OK)
            return st;
    } else {
        uint32_t* escaped = t->escaped;
        const vxk_aabb* padded = t->padded;
        for (uint32_t i = 0; i < count; ++i) {
            escaped[escaped_count] = i;
            escaped_count += !contained(&padded[i], &boxes[i]);
        }
        vxk_status worst = VXK_OK;
        for (uint32_t q = 0; q < escaped_count; ++q) {
            vxk_status st = check_box(&boxes[escaped[q]]);
            if (st == VXK_ERR_NOT_FINITE)
                return st;
            if (st != VXK_OK)
                worst = st;
        }
        if (worst != VXK_OK)
            return worst;
    }

    ++t->frame;
    t->valid = false; // until this update succeeds
    vxk_status st = VXK_OK;
    if (start)
        st = tracker_start(t, jobs, boxes, count, pad);
    else if (escaped_count)
        st = tracker_step(t, boxes, escaped_count);
    if (st == VXK_OK && !vxk_grow_items((void**)&t->out, &t->out_capacity, t->candidate_count,
                                        sizeof(vxk_bvh_pair)))
        st = VXK_ERR_OUT_OF_MEMORY;
    if (st != VXK_OK) {
        if (t->escaped_flag) // a failed step may leave flags set
            memset(t->escaped_flag, 0, t->object_capacity);
        t->candidate_count = 0;
        return st;
    }

    const vxk_bvh_pair* candidates = t->candidates;
    vxk_bvh_pair* pairs = t->out;
    uint32_t found = 0;
    for (uint32_t i = 0; i < t->candidate_count; ++i) {
        vxk_bvh_pair p = candidates[i];
        pairs[found] = p;
        found += box_overlaps(&boxes[p.a], &boxes[p.b]);
    }
    t->valid = true;
    t->stats.escaped = start ? count : escaped_count;
    t->stats.candidates = t->candidate_count;
    t->stats.pairs = found;
    ++t->stats.frames;
    *out = found ? pairs : NULL;
    *out_count = found;
    return VXK_OK;
}

void vxk_bvh_tracker_reset(vxk_bvh_tracker* t)
{
    if (t)
        t->valid = false;
}

void vxk_bvh_tracker_get_stats(const vxk_bvh_tracker* t, vxk_bvh_tracker_stats* stats)
{
    if (!stats)
        return;
    if (!t) {
        memset(stats, 0, sizeof(*stats));
        return;
    }
    *stats = t->stats;
}

size_t vxk_bvh_tracker_bytes(const vxk_bvh_tracker* t)
{
    if (!t)
        return 0;
    return vxk_bvh_bytes(&t->tree) + tracker_object_bytes(t->object_capacity) +
           (size_t)(t->node_capacity + t->stack_capacity) * sizeof(uint32_t) +
           ((size_t)t->candidate_capacity + t->next_capacity + t->fresh_capacity +
            t->sort_capacity + t->out_capacity) *
               sizeof(vxk_bvh_pair) +
           vxk_bvh_pair_pool_bytes(&t->pool);
}

void vxk_bvh_tracker_free(vxk_bvh_tracker* t)
{
    if (!t)
        return;
    vxk_bvh_free(&t->tree);
    tracker_free_objects(t);
    vxk_free(t->parent, (size_t)t->node_capacity * sizeof(uint32_t));
    vxk_free(t->stack, (size_t)t->stack_capacity * sizeof(uint32_t));
    vxk_free(t->candidates, (size_t)t->candidate_capacity * sizeof(vxk_bvh_pair));
    vxk_free(t->next, (size_t)t->next_capacity * sizeof(vxk_bvh_pair));
    vxk_free(t->fresh, (size_t)t->fresh_capacity * sizeof(vxk_bvh_pair));
    vxk_free(t->sort_tmp, (size_t)t->sort_capacity * sizeof(vxk_bvh_pair));
    vxk_free(t->out, (size_t)t->out_capacity * sizeof(vxk_bvh_pair));
    vxk_bvh_pair_pool_free(&t->pool);
    memset(t, 0, sizeof(*t));
}
