#include "io/AssimpWrite.h"

#include "core/Error.h"
#include "io/FileUtil.h"

#include <assimp/DefaultIOSystem.h>
#include <assimp/Exporter.hpp>
#include <assimp/IOStream.hpp>
#include <assimp/IOSystem.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <deque>

namespace sinew {

namespace {

// A file the exporter writes, kept in memory until it is closed.
class MemoryFile : public Assimp::IOStream {
 public:
  explicit MemoryFile(std::string* bytes) : bytes_(bytes) {}
  size_t Read(void*, size_t, size_t) override { return 0; }
  size_t Write(const void* data, size_t size, size_t count) override {
    const size_t n = size * count;
    if (n == 0) return count;
    if (pos_ + n > bytes_->size()) bytes_->resize(pos_ + n);
    std::memcpy(bytes_->data() + pos_, data, n);
    pos_ += n;
    return count;
  }
  aiReturn Seek(size_t offset, aiOrigin origin) override {
    // Past the end is allowed, as in a file: a later write fills the gap with zeros.
    const size_t base = origin == aiOrigin_SET ? 0 : origin == aiOrigin_CUR ? pos_ : bytes_->size();
    pos_ = base + offset;
    return aiReturn_SUCCESS;
  }
  size_t Tell() const override { return pos_; }
  size_t FileSize() const override { return bytes_->size(); }
  void Flush() override {}

 private:
  std::string* bytes_;
  size_t pos_ = 0;
};

// Files opened for writing go to memory (by name, in the order opened);
// reading goes to the disk as usual.
class MemoryWriter : public Assimp::DefaultIOSystem {
 public:
  explicit MemoryWriter(std::deque<std::pair<std::string, std::string>>* files) : files_(files) {}
  bool Exists(const char* file) const override {
    for (const auto& f : *files_)
      if (f.first == file) return true;
    return Assimp::DefaultIOSystem::Exists(file);
  }
  Assimp::IOStream* Open(const char* file, const char* mode) override {
    if (!std::strchr(mode, 'w') && !std::strchr(mode, 'a')) return Assimp::DefaultIOSystem::Open(file, mode);
    for (auto& f : *files_)
      if (f.first == file) {
        f.second.clear();
        return new MemoryFile(&f.second);
      }
    files_->emplace_back(file, std::string());
    return new MemoryFile(&files_->back().second);
  }
  void Close(Assimp::IOStream* stream) override { delete stream; }

 private:
  std::deque<std::pair<std::string, std::string>>* files_;  // a deque: MemoryFile's pointers stay valid as files are added
};

}  // namespace

void exportSceneChecked(const aiScene& scene, const std::string& formatId, const std::string& path) {
  std::deque<std::pair<std::string, std::string>> files;
  {
    Assimp::Exporter ex;
    ex.SetIOHandler(new MemoryWriter(&files));  // the exporter owns it
    if (ex.Export(&scene, formatId, path) != AI_SUCCESS)
      throw InputError(path, std::string("export failed: ") + ex.GetErrorString());
  }
  if (files.empty()) throw InputError(path, "export produced no file");
  for (const auto& [name, bytes] : files) writeFileAtomic(name, bytes);
}

}  // namespace sinew
