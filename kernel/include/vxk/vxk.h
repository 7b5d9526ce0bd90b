// vxk/vxk.h: the whole public API of vxk in one include.
#ifndef VXK_VXK_H
#define VXK_VXK_H

#include <vxk/base.h>
#include <vxk/id.h>
#include <vxk/jobs.h>
#include <vxk/world.h>
#include <vxk/body.h>
#include <vxk/worldgen.h>
#include <vxk/voxel_grid.h>
#include <vxk/vox.h>
#include <vxk/broadphase.h>
#include <vxk/mesh.h>
#include <vxk/mesher.h>
#include <vxk/boxes.h>
#include <vxk/voxel_types.h>
#include <vxk/mass.h>
#include <vxk/chunk_geometry.h>
#include <vxk/kdtree.h>
#include <vxk/kdtree16.h>
#include <vxk/obj.h>
#include <vxk/raycast.h>
#include <vxk/edit.h>

#endif
