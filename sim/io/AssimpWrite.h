// Writing an aiScene with Assimp's exporters so that every file reaches the
// disk whole or not at all: the exporter writes into memory, and each file it
// produced (the main one and side files such as .mtl or .bin) is then saved
// with writeFileAtomic, whose errors (a full disk, a special file, no
// permission) are reported. Assimp's own file writer ignores them.
#pragma once

#include <string>

struct aiScene;

namespace sinew {

// Throws InputError(path, ...) when the exporter fails or a file cannot be written.
void exportSceneChecked(const aiScene& scene, const std::string& formatId, const std::string& path);

}  // namespace sinew
