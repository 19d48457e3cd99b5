// Tet meshes as Medit `.mesh` files (what TetGen reads and writes) and the
// bones and joints of a conforming mesh as a `.joint` file: together the
// model files of Li, Liu and Kavan 2019, Section 4 ("By combining the .joint
// and .mesh file, we have a complete model of the soft articulated
// character"). See docs/FORMATS.md.
//
// .mesh (ASCII Medit, as written here; keywords are read case-insensitively,
// '#' starts a comment, line breaks are free):
//
//   MeshVersionFormatted 2          2: double precision
//   Dimension 3
//   Vertices
//   <nNodes>
//   <x> <y> <z> <ref>               metres; ref 0
//   Triangles                       optional, e.g. the boundary surface
//   <nTriangles>
//   <i> <j> <k> <ref>               1-based node indices
//   Tetrahedra
//   <nTets>
//   <i> <j> <k> <l> <ref>           1-based, positively oriented; ref = region + 1:
//                                   0 flesh, k + 1 bone k (TetGen's region attribute)
//   End
//
// Edges, Corners, RequiredVertices, Ridges, Quadrilaterals, Hexahedra,
// Normals, NormalAtVertices, Tangents and TangentAtEdges sections are read
// and ignored. Negatively oriented tets are reoriented on reading; a mesh
// whose tets are all flesh reads back with an empty region list.
//
// .joint (ASCII, line-based; '#' starts a comment line):
//
//   SinewJoints 1
//   Bones <nBones>
//   <ref> <name>                    ref as in the .mesh (k + 1 for bone k), in
//                                   order 1..nBones; name: the rest of the line
//   Joints <nJoints>
//   <parentRef> <childRef> <x> <y> <z> <name>
//                                   the two bones the joint connects (the
//                                   child's bone starts there), its rest
//                                   position in metres, its name
//   End
//
// Numbers are written in the shortest form that reads back exactly. Reading
// errors are InputError("<file>", "line <n>: <problem>").
#pragma once

#include "volume/RegionMesh.h"
#include "model/Skeleton.h"
#include "volume/TetMesh.h"

#include <string>
#include <vector>

namespace sinew {

struct TetMeshFile {
  TetMesh mesh;                       // region empty when every tet is flesh
  std::vector<Tri> triangles;         // the Triangles section (0-based), if any
  std::vector<int32_t> triangleRefs;  // (nTriangles)
};

std::string formatMedit(const TetMesh& mesh, const std::vector<Tri>& triangles = {});
TetMeshFile parseMedit(const std::string& text, const std::string& fileName);
void writeMedit(const std::string& path, const TetMesh& mesh, const std::vector<Tri>& triangles = {});
TetMeshFile readMedit(const std::string& path);

struct JointFile {
  std::vector<std::string> bones;     // (nBones) bone k has region id k (ref k + 1 in the files)
  std::vector<RegionJoint> joints;    // bone indices are 0-based region ids
  bool operator==(const JointFile&) const = default;
};

std::string formatJointFile(const JointFile& joints);
JointFile parseJointFile(const std::string& text, const std::string& fileName);
void writeJointFile(const std::string& path, const JointFile& joints);
JointFile readJointFile(const std::string& path);

// A skeleton that gives these joints back through regionJoints(): a joint per
// bone, named after it, parented as the joints say (a bone no joint names as
// a child is a root, placed at the centre of its nodes' bounding box), each
// child placed at its joint. Throws InputError for a bone with two parents or
// a cycle.
Skeleton skeletonFromJoints(const JointFile& joints, const TetMesh& mesh);

}  // namespace sinew
