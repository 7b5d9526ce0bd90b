// A geometry file that calls up the wings (through the public world API): the
// layout_calls_detects_bad test expects tests/layout_calls.cmake to fail on it.
#include <vxk/world.h>

uint8_t layout_fixture_voxel(const vxk_world* world)
{
    return vxk_world_get_voxel(world, (vxk_int3){0, 0, 0});
}
