// A geometry file that breaks the layout rule (through a public header): the layout_detects_bad
// test expects tests/layout.cmake to fail on it.
#include <vxk/mesher.h>
#include <vxk/chunk_geometry.h>
