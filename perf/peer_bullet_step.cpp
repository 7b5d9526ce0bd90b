// peer_bullet_step.cpp: Bullet's discrete dynamics world behind a C interface (see
// peer_bullet_step.h), the peer of vxk_world_step: btDbvtBroadphase, btCollisionDispatcher with
// the default collision configuration, btSequentialImpulseConstraintSolver at its default 10
// iterations, static terrain as one btBvhTriangleMeshShape per chunk.
#include "peer_bullet_step.h"

#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <new>
#include <vector>

namespace
{

struct static_mesh {
    std::vector<float> vertices;
    std::vector<uint32_t> indices;
    std::unique_ptr<btTriangleIndexVertexArray> arrays;
    std::unique_ptr<btBvhTriangleMeshShape> shape;
};

struct shape_key {
    int type;
    float x, y, z;
};

} // namespace

struct vxk_bullet_step_world {
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher{&configuration};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &configuration};
    bool sleeping = true;
    std::vector<std::unique_ptr<static_mesh>> meshes;
    std::vector<std::unique_ptr<btCollisionShape>> shapes;
    std::vector<shape_key> shape_keys; // parallel to shapes (dynamic shapes only)
    // Compounds and their child boxes, never shared (kept apart from the shared shapes' search).
    std::vector<std::unique_ptr<btCollisionShape>> compound_parts;
    std::vector<std::unique_ptr<btDefaultMotionState>> motion_states;
    std::vector<std::unique_ptr<btRigidBody>> statics;
    std::vector<std::unique_ptr<btRigidBody>> bodies;

    ~vxk_bullet_step_world()
    {
        for (auto& body : bodies)
            world.removeRigidBody(body.get());
        for (auto& body : statics)
            world.removeRigidBody(body.get());
    }
};

static void add_static(vxk_bullet_step_world* w, btCollisionShape* shape, const btTransform& pose,
                       float friction, float restitution)
{
    btRigidBody::btRigidBodyConstructionInfo info(0.0f, nullptr, shape, btVector3(0, 0, 0));
    info.m_startWorldTransform = pose;
    info.m_friction = friction;
    info.m_restitution = restitution;
    w->statics.emplace_back(new btRigidBody(info));
    w->world.addRigidBody(w->statics.back().get());
}

extern "C" vxk_bullet_step_world* vxk_bullet_step_create(vxk_vec3 gravity, int sleeping)
{
    vxk_bullet_step_world* w = new (std::nothrow) vxk_bullet_step_world();
    if (!w)
        return nullptr;
    w->world.setGravity(btVector3(gravity.x, gravity.y, gravity.z));
    w->sleeping = sleeping != 0;
    return w;
}

extern "C" void vxk_bullet_step_destroy(vxk_bullet_step_world* world)
{
    delete world;
}

extern "C" int vxk_bullet_step_add_mesh(vxk_bullet_step_world* world, const float* vertices,
                                        uint32_t vertex_count, const uint32_t* indices,
                                        uint32_t triangle_count, float friction, float restitution)
{
    if (!world || !vertices || !indices || triangle_count == 0)
        return -1;
    std::unique_ptr<static_mesh> m(new static_mesh());
    m->vertices.assign(vertices, vertices + 3 * (size_t)vertex_count);
    m->indices.assign(indices, indices + 3 * (size_t)triangle_count);
    btIndexedMesh part;
    part.m_numTriangles = (int)triangle_count;
    part.m_triangleIndexBase = reinterpret_cast<const unsigned char*>(m->indices.data());
    part.m_triangleIndexStride = 3 * sizeof(uint32_t);
    part.m_numVertices = (int)vertex_count;
    part.m_vertexBase = reinterpret_cast<const unsigned char*>(m->vertices.data());
    part.m_vertexStride = 3 * sizeof(float);
    part.m_indexType = PHY_INTEGER;
    part.m_vertexType = PHY_FLOAT;
    m->arrays.reset(new btTriangleIndexVertexArray());
    m->arrays->addIndexedMesh(part, PHY_INTEGER);
    m->shape.reset(new btBvhTriangleMeshShape(m->arrays.get(), true, true));
    btTransform pose;
    pose.setIdentity();
    add_static(world, m->shape.get(), pose, friction, restitution);
    world->meshes.push_back(std::move(m));
    return 0;
}

extern "C" int vxk_bullet_step_add_ground_box(vxk_bullet_step_world* world, vxk_vec3 centre,
                                              vxk_vec3 half_extents, float friction,
                                              float restitution)
{
    if (!world)
        return -1;
    world->shapes.emplace_back(
        new btBoxShape(btVector3(half_extents.x, half_extents.y, half_extents.z)));
    world->shape_keys.push_back(shape_key{-1, 0, 0, 0}); // never shared
    btTransform pose;
    pose.setIdentity();
    pose.setOrigin(btVector3(centre.x, centre.y, centre.z));
    add_static(world, world->shapes.back().get(), pose, friction, restitution);
    return 0;
}

static btTransform transform_of(vxk_transform pose);
static void add_dynamic(vxk_bullet_step_world* world, btCollisionShape* shape, float mass,
                        const btVector3& inertia, const btTransform& t, float friction,
                        float restitution);

static btCollisionShape* shared_shape(vxk_bullet_step_world* w, int type, vxk_vec3 size)
{
    for (size_t i = 0; i < w->shape_keys.size(); ++i) {
        const shape_key& k = w->shape_keys[i];
        if (k.type == type && k.x == size.x && k.y == size.y && k.z == size.z)
            return w->shapes[i].get();
    }
    btCollisionShape* shape = nullptr;
    if (type == VXK_BULLET_STEP_SPHERE)
        shape = new btSphereShape(size.x);
    else if (type == VXK_BULLET_STEP_CAPSULE)
        shape = new btCapsuleShape(size.x, 2.0f * size.y);
    else
        shape = new btBoxShape(btVector3(size.x, size.y, size.z));
    w->shapes.emplace_back(shape);
    w->shape_keys.push_back(shape_key{type, size.x, size.y, size.z});
    return shape;
}

extern "C" int vxk_bullet_step_add_body(vxk_bullet_step_world* world, int shape, vxk_vec3 size,
                                        float mass, vxk_transform pose, float friction,
                                        float restitution)
{
    if (!world ||
        (shape != VXK_BULLET_STEP_SPHERE && shape != VXK_BULLET_STEP_BOX &&
         shape != VXK_BULLET_STEP_CAPSULE) ||
        !(mass > 0.0f))
        return -1;
    btCollisionShape* s = shared_shape(world, shape, size);
    btVector3 inertia(0, 0, 0);
    s->calculateLocalInertia(mass, inertia);
    add_dynamic(world, s, mass, inertia, transform_of(pose), friction, restitution);
    return 0;
}

static btTransform transform_of(vxk_transform pose)
{
    return btTransform(btQuaternion(pose.q.x, pose.q.y, pose.q.z, pose.q.w),
                       btVector3(pose.p.x, pose.p.y, pose.p.z));
}

static void add_dynamic(vxk_bullet_step_world* world, btCollisionShape* shape, float mass,
                        const btVector3& inertia, const btTransform& t, float friction,
                        float restitution)
{
    world->motion_states.emplace_back(new btDefaultMotionState(t));
    btRigidBody::btRigidBodyConstructionInfo info(mass, world->motion_states.back().get(), shape,
                                                  inertia);
    info.m_friction = friction;
    info.m_restitution = restitution;
    world->bodies.emplace_back(new btRigidBody(info));
    btRigidBody* body = world->bodies.back().get();
    if (!world->sleeping)
        body->setActivationState(DISABLE_DEACTIVATION);
    world->world.addRigidBody(body);
}

extern "C" int vxk_bullet_step_add_compound(vxk_bullet_step_world* world, const vxk_vec3* centres,
                                            const vxk_vec3* halves, const float* masses,
                                            uint32_t count, vxk_transform pose, float friction,
                                            float restitution)
{
    if (!world || !centres || !halves || !masses || count == 0)
        return -1;
    std::vector<btScalar> child_masses(count);
    float mass = 0.0f;
    btCompoundShape* compound = new btCompoundShape(true, (int)count);
    world->compound_parts.emplace_back(compound);
    for (uint32_t i = 0; i < count; ++i) {
        if (!(masses[i] > 0.0f))
            return -1;
        btBoxShape* box = new btBoxShape(btVector3(halves[i].x, halves[i].y, halves[i].z));
        world->compound_parts.emplace_back(box);
        float smallest = std::min(halves[i].x, std::min(halves[i].y, halves[i].z));
        box->setMargin(std::min(0.04f, 0.2f * smallest));
        btTransform local;
        local.setIdentity();
        local.setOrigin(btVector3(centres[i].x, centres[i].y, centres[i].z));
        compound->addChildShape(local, box);
        child_masses[i] = masses[i];
        mass += masses[i];
    }
    btTransform principal;
    btVector3 inertia;
    compound->calculatePrincipalAxisTransform(child_masses.data(), principal, inertia);
    btTransform to_principal = principal.inverse();
    for (uint32_t i = 0; i < count; ++i)
        compound->updateChildTransform((int)i, to_principal * compound->getChildTransform((int)i),
                                       false);
    compound->recalculateLocalAabb();
    add_dynamic(world, compound, mass, inertia, transform_of(pose) * principal, friction,
                restitution);
    return 0;
}

// The pairs the near callback below collided in the last dispatch.
static uint32_t g_collided_pairs;

// Collides a pair only when its shapes' world boxes overlap (no threshold, no margin added).
static void near_boxes_overlap(btBroadphasePair& pair, btCollisionDispatcher& dispatcher,
                               const btDispatcherInfo& info)
{
    const btCollisionObject* a = static_cast<btCollisionObject*>(pair.m_pProxy0->m_clientObject);
    const btCollisionObject* b = static_cast<btCollisionObject*>(pair.m_pProxy1->m_clientObject);
    btVector3 a_min, a_max, b_min, b_max;
    a->getCollisionShape()->getAabb(a->getWorldTransform(), a_min, a_max);
    b->getCollisionShape()->getAabb(b->getWorldTransform(), b_min, b_max);
    if (!TestAabbAgainstAabb2(a_min, a_max, b_min, b_max))
        return;
    ++g_collided_pairs;
    btCollisionDispatcher::defaultNearCallback(pair, dispatcher, info);
}

extern "C" int vxk_bullet_step_time_narrowphase(vxk_bullet_step_world* world, uint32_t repeats,
                                                vxk_bullet_narrowphase* out)
{
    if (!world || !out || repeats == 0)
        return -1;
    world->world.updateAabbs();
    world->world.computeOverlappingPairs();
    btOverlappingPairCache* cache = world->broadphase.getOverlappingPairCache();
    btDispatcherInfo& info = world->world.getDispatchInfo();
    world->dispatcher.setNearCallback(near_boxes_overlap);
    world->dispatcher.dispatchAllCollisionPairs(cache, info, &world->dispatcher);
    std::vector<double> seconds(repeats);
    for (uint32_t r = 0; r < repeats; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        world->dispatcher.dispatchAllCollisionPairs(cache, info, &world->dispatcher);
        auto t1 = std::chrono::steady_clock::now();
        seconds[r] = std::chrono::duration<double>(t1 - t0).count();
    }
    std::sort(seconds.begin(), seconds.end());
    out->median_s = repeats % 2 ? seconds[repeats / 2]
                                : 0.5 * (seconds[repeats / 2 - 1] + seconds[repeats / 2]);
    out->cached_pairs = (uint32_t)cache->getNumOverlappingPairs();
    g_collided_pairs = 0;
    world->dispatcher.dispatchAllCollisionPairs(cache, info, &world->dispatcher);
    out->pairs = g_collided_pairs;
    world->dispatcher.setNearCallback(btCollisionDispatcher::defaultNearCallback);
    vxk_bullet_step_contacts(world, &out->manifolds, &out->points);
    return 0;
}

extern "C" void vxk_bullet_step_step(vxk_bullet_step_world* world, float dt)
{
    world->world.stepSimulation(dt, 0);
}

extern "C" void vxk_bullet_step_update_active_boxes_only(vxk_bullet_step_world* world)
{
    world->world.setForceUpdateAllAabbs(false);
}

extern "C" uint32_t vxk_bullet_step_body_count(const vxk_bullet_step_world* world)
{
    return (uint32_t)world->bodies.size();
}

extern "C" void vxk_bullet_step_set_velocity(vxk_bullet_step_world* world, uint32_t i,
                                             vxk_vec3 linear, vxk_vec3 angular)
{
    btRigidBody* body = world->bodies[i].get();
    body->setLinearVelocity(btVector3(linear.x, linear.y, linear.z));
    body->setAngularVelocity(btVector3(angular.x, angular.y, angular.z));
}

extern "C" void vxk_bullet_step_get_pose(const vxk_bullet_step_world* world, uint32_t i,
                                         vxk_transform* out)
{
    const btTransform& t = world->bodies[i]->getCenterOfMassTransform();
    btQuaternion q = t.getRotation();
    out->p = vxk_vec3{(float)t.getOrigin().x(), (float)t.getOrigin().y(), (float)t.getOrigin().z()};
    out->q = vxk_quat{(float)q.x(), (float)q.y(), (float)q.z(), (float)q.w()};
}

extern "C" int vxk_bullet_step_is_awake(const vxk_bullet_step_world* world, uint32_t i)
{
    return world->bodies[i]->isActive() ? 1 : 0;
}

extern "C" void vxk_bullet_step_contacts(const vxk_bullet_step_world* world, uint32_t* manifolds,
                                         uint32_t* points)
{
    const btCollisionDispatcher& d = world->dispatcher;
    int n = d.getNumManifolds();
    uint32_t p = 0;
    for (int i = 0; i < n; ++i)
        p += (uint32_t)d.getManifoldByIndexInternal(i)->getNumContacts();
    *manifolds = (uint32_t)n;
    *points = p;
}
