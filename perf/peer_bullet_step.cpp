// peer_bullet_step.cpp: Bullet's discrete dynamics world behind a C interface (see
// peer_bullet_step.h), the peer of vxk_world_step: btDbvtBroadphase, btCollisionDispatcher with
// the default collision configuration, btSequentialImpulseConstraintSolver at its default 10
// iterations, static terrain as one btBvhTriangleMeshShape per chunk.
#include "peer_bullet_step.h"

#include <btBulletDynamicsCommon.h>

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
    if (!world || (shape != VXK_BULLET_STEP_SPHERE && shape != VXK_BULLET_STEP_BOX) ||
        !(mass > 0.0f))
        return -1;
    btCollisionShape* s = shared_shape(world, shape, size);
    btVector3 inertia(0, 0, 0);
    s->calculateLocalInertia(mass, inertia);
    btTransform t(btQuaternion(pose.q.x, pose.q.y, pose.q.z, pose.q.w),
                  btVector3(pose.p.x, pose.p.y, pose.p.z));
    world->motion_states.emplace_back(new btDefaultMotionState(t));
    btRigidBody::btRigidBodyConstructionInfo info(mass, world->motion_states.back().get(), s,
                                                  inertia);
    info.m_friction = friction;
    info.m_restitution = restitution;
    world->bodies.emplace_back(new btRigidBody(info));
    btRigidBody* body = world->bodies.back().get();
    if (!world->sleeping)
        body->setActivationState(DISABLE_DEACTIVATION);
    world->world.addRigidBody(body);
    return 0;
}

extern "C" void vxk_bullet_step_step(vxk_bullet_step_world* world, float dt)
{
    world->world.stepSimulation(dt, 0);
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
