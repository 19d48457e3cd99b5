// Sinew project files (format described in docs/FORMATS.md).
//
//   NAME.sinew        the main document: versioned, human-readable JSON
//   NAME.sinew.data/  bulk arrays as little-endian binary blobs, each named
//                     by the 64-bit FNV-1a hash of its bytes
//
// Saving is atomic: blobs are content-addressed (an existing blob is never
// rewritten with different bytes), the JSON is written to a temporary file,
// fsync'ed and renamed over the old one, and only then are blobs that nothing
// references removed. A crash or kill at any moment leaves the previous
// project loadable. Older format versions load through migrate(); a newer
// version is refused and never overwritten.
#pragma once

#include "core/Error.h"
#include "io/FileUtil.h"
#include "model/Project.h"

#include <string>

namespace sinew {

constexpr int kProjectFormatVersion = 3;
constexpr const char* kProjectFormatName = "sinew-project";
constexpr const char* kProjectExtension = ".sinew";

struct SaveOptions {
  WriteHook hook;  // test hook: called during every file write (see writeFileAtomic)
  // How long to wait for another process that holds the project's lock
  // (FileLock) before giving up with a message naming it; the GUI waits
  // briefly so that its window never freezes.
  double lockWaitSeconds = 30;
};

// Directory holding the blobs of the project at `path`.
std::string projectDataDir(const std::string& path);
// The lock file beside the project (".<name>.lock"): held by a save
// (exclusive) or a load (shared); see FileLock.
std::string projectLockFile(const std::string& path);

void saveProject(const Project& project, const std::string& path, const SaveOptions& options = {});

// Loads a project; throws InputError naming the file (or blob) and the problem.
// `outNotes` (optional) receives a line per migration step applied.
Project loadProject(const std::string& path, Diagnostics* outNotes = nullptr);

// Reads only the format version of a project file (throws InputError if it is not one).
int projectFileVersion(const std::string& path);

}  // namespace sinew
