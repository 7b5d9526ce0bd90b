// material.c: the 256-entry material table (kind, density, friction, restitution, colour, name)
// with its defaults and validation. Id 0 is air (seed 000: terrain materials as one byte).
#include <vxk/world.h>

#include <stdio.h>

#include "core.h"

static void set_material(vxk_material_table* table, int id, const char* name, uint8_t kind,
                         float density, float friction, float restitution, uint8_t r, uint8_t g,
                         uint8_t b)
{
    vxk_material* m = &table->materials[id];
    m->kind = kind;
    m->defined = 1;
    m->color[0] = r;
    m->color[1] = g;
    m->color[2] = b;
    m->density = density;
    m->friction = friction;
    m->restitution = restitution;
    m->anchored = id == VXK_MAT_BEDROCK;
    snprintf(m->name, sizeof(m->name), "%s", name);
}

void vxk_default_material_table(vxk_material_table* table)
{
    if (!table)
        return;
    memset(table, 0, sizeof(*table));
    // Densities in kg/m^3 and Coulomb friction coefficients close to the real materials.
    set_material(table, VXK_MAT_AIR, "air", VXK_MATERIAL_AIR, 1.2f, 0.0f, 0.0f, 0, 0, 0);
    set_material(table, VXK_MAT_BEDROCK, "bedrock", VXK_MATERIAL_SOLID, 3000.0f, 0.8f, 0.1f, 48, 48,
                 52);
    set_material(table, VXK_MAT_STONE, "stone", VXK_MATERIAL_SOLID, 2600.0f, 0.7f, 0.2f, 128, 128,
                 128);
    set_material(table, VXK_MAT_DIRT, "dirt", VXK_MATERIAL_SOLID, 1500.0f, 0.6f, 0.1f, 120, 85, 55);
    set_material(table, VXK_MAT_GRASS, "grass", VXK_MATERIAL_SOLID, 1300.0f, 0.55f, 0.1f, 80, 150,
                 60);
    set_material(table, VXK_MAT_SAND, "sand", VXK_MATERIAL_SOLID, 1600.0f, 0.5f, 0.05f, 220, 200,
                 140);
    set_material(table, VXK_MAT_GRAVEL, "gravel", VXK_MATERIAL_SOLID, 1800.0f, 0.65f, 0.15f, 150,
                 140, 130);
    set_material(table, VXK_MAT_CLAY, "clay", VXK_MATERIAL_SOLID, 1750.0f, 0.45f, 0.05f, 165, 110,
                 90);
    set_material(table, VXK_MAT_ICE, "ice", VXK_MATERIAL_SOLID, 917.0f, 0.05f, 0.1f, 180, 220, 240);
    set_material(table, VXK_MAT_WOOD, "wood", VXK_MATERIAL_SOLID, 600.0f, 0.5f, 0.3f, 150, 110, 60);
    set_material(table, VXK_MAT_METAL, "metal", VXK_MATERIAL_SOLID, 7850.0f, 0.4f, 0.3f, 170, 175,
                 185);
    set_material(table, VXK_MAT_WATER, "water", VXK_MATERIAL_WATER, 1000.0f, 0.0f, 0.0f, 40, 90,
                 200);
}

vxk_status vxk_material_table_validate(const vxk_material_table* table)
{
    if (!table)
        return VXK_ERR_INVALID_ARGUMENT;
    const vxk_material* air = &table->materials[0];
    if (!air->defined || air->kind != VXK_MATERIAL_AIR)
        return VXK_ERR_BAD_MATERIAL;
    for (int id = 0; id < VXK_MATERIAL_COUNT; ++id) {
        const vxk_material* m = &table->materials[id];
        if (!m->defined)
            continue;
        if (m->defined != 1 || m->kind > VXK_MATERIAL_WATER || m->anchored > 1)
            return VXK_ERR_BAD_MATERIAL;
        // Only id 0 is air: an all-air chunk has no entry, so no other id may mean "empty".
        if (id != 0 && m->kind == VXK_MATERIAL_AIR)
            return VXK_ERR_BAD_MATERIAL;
        if (!vxk_is_finite(m->density) || !vxk_is_finite(m->friction) ||
            !vxk_is_finite(m->restitution))
            return VXK_ERR_NOT_FINITE;
        bool density_ok =
            m->density == 0.0f || (m->density >= VXK_MIN_DENSITY && m->density <= VXK_MAX_DENSITY);
        if (!density_ok || m->friction < 0.0f || m->friction > VXK_MAX_FRICTION ||
            m->restitution < 0.0f || m->restitution > 1.0f)
            return VXK_ERR_OUT_OF_RANGE;
        if (memchr(m->name, 0, sizeof(m->name)) == NULL)
            return VXK_ERR_MALFORMED;
    }
    return VXK_OK;
}
