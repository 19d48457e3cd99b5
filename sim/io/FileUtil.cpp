#include "io/FileUtil.h"

#include "core/Error.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <csignal>
#include <cstdlib>

#include <fcntl.h>
#include <sys/file.h>
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


namespace {

// "-" and /dev/stdout: the bytes go to standard output (a pipe, a terminal), every error reported.
void writeStdout(const std::string& path, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t w = ::write(STDOUT_FILENO, data.data() + done, data.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw InputError(path, "write failed: " + errnoText());
    }
    done += size_t(w);
  }
}

}  // namespace

std::string writableTarget(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return path;  // a new file
  std::string target = path;
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    target = fs::weakly_canonical(fs::path(path), ec).string();
    if (ec) throw InputError(path, "cannot follow the symbolic link: " + ec.message());
    if (::stat(target.c_str(), &st) != 0) return target;  // a link to a file not yet there
  }
  if (S_ISDIR(st.st_mode)) throw InputError(path, "is a directory, not a file");
  if (!S_ISREG(st.st_mode))
    throw InputError(path, "is not a regular file (a device, pipe or socket): Sinew writes regular files only"
                           " (give - to write to standard output)");
  return target;
}

std::string hiddenName(const std::string& path, std::string_view suffix) {
  std::string name = ".";  // appended in steps: GCC 12 warns falsely (-Wrestrict) about "." + string
  name += fs::path(path).filename().string();
  name += suffix;
  return name;
}

void writeFileAtomic(const std::string& requested, std::string_view data, const WriteHook& hook) {
  if (requested == "-" || requested == "/dev/stdout") return writeStdout(requested, data);
  const std::string path = writableTarget(requested);
  static std::atomic<uint64_t> counter{0};
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string tmp =
      (dir / (hiddenName(path, ".tmp-") + std::to_string(::getpid()) + "-" + std::to_string(counter++))).string();
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

namespace {

fs::path resolved(const std::string& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(fs::path(p), ec), ec);
  return ec ? fs::absolute(fs::path(p)).lexically_normal() : r;
}

bool within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin(), o = outer.begin();
  for (; o != outer.end(); ++o, ++i)
    if (i == inner.end() || *i != *o) return false;
  return true;
}

}  // namespace

void checkOutputPath(const std::string& output, const std::vector<std::string>& inputs, const std::string& mayReplace) {
  if (output.empty() || output == "-" || output == "/dev/stdout") return;
  const fs::path out = resolved(output);
  std::error_code ec;
  for (const std::string& input : inputs) {
    if (input.empty()) continue;
    const fs::path in = resolved(input);
    const bool same = out == in || (fs::exists(out, ec) && fs::exists(in, ec) && fs::equivalent(out, in, ec));
    if (same && (mayReplace.empty() || resolved(mayReplace) != in))
      throw InputError(output, "is the input " + input + ": writing it would destroy the input (choose another path)");
    if (within(out, resolved(input + ".data")))
      throw InputError(output, "lies in the data folder of the project " + input +
                                   " (its meshes and volumes): choose a path outside " + input + ".data");
  }
}

FileLock::FileLock(const std::string& file, bool exclusive, double waitSeconds) {
  fd_ = ::open(file.c_str(), exclusive ? (O_RDWR | O_CREAT | O_CLOEXEC) : (O_RDONLY | O_CLOEXEC), 0644);
  if (fd_ < 0) {
    if (!exclusive) return;  // nothing has ever been saved there: nothing to wait for
    throw InputError(file, "cannot create the lock file: " + errnoText());
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(waitSeconds);
  while (::flock(fd_, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const std::string msg = errnoText();
      ::close(fd_);
      throw InputError(file, "cannot lock: " + msg);
    }
    if (std::chrono::steady_clock::now() >= until) {
      char pid[32] = {};
      const ssize_t n = ::pread(fd_, pid, sizeof(pid) - 1, 0);
      ::close(fd_);
      fd_ = -1;
      throw InputError(file, "the project is being saved by process " + std::string(n > 0 ? pid : "?") + " (waited " +
                                 std::to_string(int(waitSeconds)) + " s); try again when it has finished");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (exclusive) {
    const std::string pid = std::to_string(::getpid());
    if (::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
      // the pid is only for the message of a process that waits: not an error
    }
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
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
