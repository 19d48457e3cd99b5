#include "io/FileUtil.h"

#include "core/Error.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <csignal>
#include <cstdlib>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sinew {

namespace fs = std::filesystem;

uint64_t checkReadableFile(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError(path, "no such file");
  if (fs::is_directory(st)) throw InputError(path, "is a directory, not a file");
  if (!fs::is_regular_file(st)) throw InputError(path, "is not a regular file");
  const uint64_t size = fs::file_size(path, ec);
  if (ec) throw InputError(path, "cannot determine file size: " + ec.message());
  if (size == 0) throw InputError(path, "file is empty");
  if (size > kMaxReadBytes) throw InputError(path, "file is too large (" + std::to_string(size) + " bytes)");
  if (::access(path.c_str(), R_OK) != 0) throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
  return size;
}

std::string readFileChecked(const std::string& path) {
  const uint64_t size = checkReadableFile(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  std::string data(size, '\0');
  in.read(data.data(), static_cast<std::streamsize>(size));
  if (static_cast<uint64_t>(in.gcount()) != size) throw InputError(path, "read error (file changed while reading?)");
  return data;
}

namespace {
std::string errnoText() { return std::strerror(errno); }
}  // namespace

void writeFileAtomic(const std::string& path, std::string_view data, const WriteHook& hook) {
  static std::atomic<uint64_t> counter{0};
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string tmp = (dir / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                                  std::to_string(counter++)))
                              .string();
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(path, "cannot create temporary file for saving: " + errnoText());
  auto failWith = [&](const std::string& msg) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw InputError(path, msg);
  };
  try {
    constexpr size_t kChunk = size_t(1) << 20;
    size_t done = 0;
    while (done < data.size()) {
      const size_t n = std::min(kChunk, data.size() - done);
      const ssize_t w = ::write(fd, data.data() + done, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        failWith("write failed: " + errnoText());
      }
      done += static_cast<size_t>(w);
      if (hook) hook(done);
    }
    if (::fsync(fd) != 0) failWith("fsync failed: " + errnoText());
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    failWith(std::string("write failed: ") + e.what());
  }
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    throw InputError(path, "close failed: " + errnoText());
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string msg = errnoText();
    ::unlink(tmp.c_str());
    throw InputError(path, "cannot replace file: " + msg);
  }
  // Make the rename itself durable.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

size_t removeStaleTemporaries(const std::string& dir, const std::string& prefix) {
  size_t removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const size_t tag = name.rfind(".tmp-");
    if (name.rfind(prefix, 0) != 0 || name.empty() || name[0] != '.' || tag == std::string::npos) continue;
    const std::string rest = name.substr(tag + 5);  // "<pid>-<n>"
    const size_t dash = rest.find('-');
    if (dash == std::string::npos || dash == 0) continue;
    char* end = nullptr;
    const long pid = std::strtol(rest.c_str(), &end, 10);
    if (end != rest.c_str() + dash || pid <= 0) continue;
    const bool alive = ::kill(pid_t(pid), 0) == 0 || errno == EPERM;
    if (!alive && fs::remove(entry.path(), ec)) ++removed;
  }
  return removed;
}

std::string lowerExtension(const std::string& path) {
  std::string e = fs::path(path).extension().string();
  if (!e.empty() && e[0] == '.') e.erase(0, 1);
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

}  // namespace sinew
