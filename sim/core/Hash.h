// 64-bit FNV-1a hash, used to name and verify binary blobs in project files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace sinew {

inline uint64_t fnv1a64(const void* data, size_t size, uint64_t h = 0xcbf29ce484222325ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

inline std::string toHex64(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[i] = digits[v & 0xf];
  return s;
}

}  // namespace sinew
