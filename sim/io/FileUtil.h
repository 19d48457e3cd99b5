// Reading and atomically writing whole files, with errors that name the file.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

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
// removing the temporary file.
void writeFileAtomic(const std::string& path, std::string_view data, const WriteHook& hook = {});

// Removes temporary files that writeFileAtomic left in `dir` when its process
// was killed mid-write: names ".<file>.tmp-<pid>-<n>" starting with `prefix`
// whose process is gone. Returns how many were removed.
size_t removeStaleTemporaries(const std::string& dir, const std::string& prefix = ".");

// Lower-case extension without the dot ("obj" for "a/B.OBJ").
std::string lowerExtension(const std::string& path);

}  // namespace sinew
