// Liu2013State as bytes and back: for sending kept states between MPI ranks.
#include "liu2013/Liu2013.h"

#include "core/Error.h"

#include <cstring>

namespace sinew::liu2013 {

namespace {

struct Writer {
  std::vector<uint8_t>& out;
  void raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
  template <class T>
  void value(const T& v) { raw(&v, sizeof v); }
  template <class T>
  void array(const std::vector<T>& v) {
    value(uint64_t(v.size()));
    if (!v.empty()) raw(v.data(), v.size() * sizeof(T));
  }
};

struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  void raw(void* dst, size_t n) {
    if (size_t(end - p) < n) throw InputError("state bytes", "truncated");
    std::memcpy(dst, p, n);
    p += n;
  }
  template <class T>
  void value(T& v) { raw(&v, sizeof v); }
  template <class T>
  void array(std::vector<T>& v) {
    uint64_t n = 0;
    value(n);
    if (n > uint64_t(end - p) / sizeof(T)) throw InputError("state bytes", "an array is longer than the data");
    v.resize(size_t(n));
    if (n) raw(v.data(), size_t(n) * sizeof(T));
  }
};

constexpr uint32_t kMagic = 0x5332544cu;  // "LT2S"

}  // namespace

std::vector<uint8_t> stateToBytes(const Liu2013State& s) {
  static_assert(sizeof(Vec3) == 3 * sizeof(double) && sizeof(Mat3) == 9 * sizeof(double) && sizeof(Quat) == 4 * sizeof(double));
  std::vector<uint8_t> out;
  Writer w{out};
  w.value(kMagic);
  w.value(s.time);
  w.value(s.steps);
  w.value(s.skeleton.rootPosition);
  w.array(s.skeleton.rotation);
  w.array(std::vector<double>(s.skeleton.velocity.data(), s.skeleton.velocity.data() + s.skeleton.velocity.size()));
  w.array(s.x);
  w.array(s.v);
  w.array(s.rotation);
  w.array(s.plasticRotation);
  w.array(s.invertedRun);
  w.value(s.invertedSteps);
  w.value(s.longestInvertedRun);
  w.value(s.policyWindow);
  w.array(s.policyTargets);
  w.array(s.contactSource);
  w.array(s.contactAnchor);
  return out;
}

Liu2013State stateFromBytes(const uint8_t* data, size_t size) {
  Liu2013State s;
  Reader r{data, data + size};
  uint32_t magic = 0;
  r.value(magic);
  if (magic != kMagic) throw InputError("state bytes", "not a Liu 2013 state");
  r.value(s.time);
  r.value(s.steps);
  r.value(s.skeleton.rootPosition);
  r.array(s.skeleton.rotation);
  std::vector<double> velocity;
  r.array(velocity);
  s.skeleton.velocity = Eigen::Map<const Eigen::VectorXd>(velocity.data(), Eigen::Index(velocity.size()));
  r.array(s.x);
  r.array(s.v);
  r.array(s.rotation);
  r.array(s.plasticRotation);
  r.array(s.invertedRun);
  r.value(s.invertedSteps);
  r.value(s.longestInvertedRun);
  r.value(s.policyWindow);
  r.array(s.policyTargets);
  r.array(s.contactSource);
  r.array(s.contactAnchor);
  if (r.p != r.end) throw InputError("state bytes", "trailing data");
  return s;
}

}  // namespace sinew::liu2013
