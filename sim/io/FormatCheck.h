// Cheap structural checks run before a file reaches Assimp: they catch files
// whose declared sizes cannot fit in the file (which would make a loader try
// to allocate hundreds of gigabytes, or loop for a very long time) and
// malformed statements that loaders silently drop.
#pragma once

#include "core/Error.h"

#include <string>

namespace sinew {

// Throws InputError(path, ...) on a problem that makes the file unusable;
// appends warnings to `out` for recoverable ones. `data` is the whole file.
void precheckMeshFile(const std::string& path, const std::string& data, Diagnostics& out);

}  // namespace sinew
