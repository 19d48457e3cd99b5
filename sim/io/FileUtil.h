// Reading and atomically writing whole files, with errors that name the file.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace sinew {

// Largest file Sinew reads into memory in one piece (hostile-input guard).
constexpr uint64_t kMaxReadBytes = uint64_t(4) << 30;

// Throws InputError(path, ...) unless `path` names a readable, non-empty
// regular file no larger than kMaxReadBytes; returns its size.
uint64_t checkReadableFile(const std::string& path);

// Reads a whole file (checked as above).
std::string readFileChecked(const std::string& path);

// Test hook for atomic writes: called after each chunk with the bytes written
// so far; throwing from it simulates an I/O failure mid-write.
using WriteHook = std::function<void(uint64_t bytesWritten)>;

// Writes `data` to `path` atomically: a temporary file in the same directory
// is written, flushed and fsync'ed, then renamed over `path` (and the
// directory fsync'ed). A crash or failure at any point leaves either the old
// or the new content, never a mix. Throws InputError on failure, after
// removing the temporary file. A symbolic link is written through (the file
// it names is replaced, the link kept); "-" and /dev/stdout write to
// standard output; a directory, device, pipe or socket is refused.
void writeFileAtomic(const std::string& path, std::string_view data, const WriteHook& hook = {});

// Throws InputError(output, ...) when writing `output` (a file or a folder
// to write into) would destroy an input: it is one of `inputs` (also through
// a symbolic or hard link), or it is or lies in an input project's data
// folder ("<project>.data"). `mayReplace`
// is the one input `output` may be (a project saved over itself). Empty
// names in `inputs` are skipped.
void checkOutputPath(const std::string& output, const std::vector<std::string>& inputs, const std::string& mayReplace = {});

// The regular file that writing `path` replaces: `path`, or the file a
// symbolic link names. Throws InputError for a directory, device, pipe or socket.
std::string writableTarget(const std::string& path);

// An advisory lock (flock) on `file`, held while the object lives: exclusive
// for a writer, shared for readers. A writer waits up to `waitSeconds` for
// others to finish, then throws InputError naming the process holding it
// (its pid is written into the lock file). A reader of a file that does not
// exist locks nothing.
class FileLock {
 public:
  FileLock(const std::string& file, bool exclusive, double waitSeconds = 30);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

// Removes temporary files that writeFileAtomic left in `dir` when its process
// was killed mid-write: names ".<file>.tmp-<pid>-<n>" starting with `prefix`
// whose process is gone. Returns how many were removed.
size_t removeStaleTemporaries(const std::string& dir, const std::string& prefix = ".");

// The hidden name beside a file that its temporaries and locks take:
// ".<file name><suffix>" (".walk.sinew.lock" for "a/walk.sinew" and ".lock").
std::string hiddenName(const std::string& path, std::string_view suffix);

// Lower-case extension without the dot ("obj" for "a/B.OBJ").
std::string lowerExtension(const std::string& path);

}  // namespace sinew
