// The element kernels' lane helpers (core/Lanes.h), compiled as the kernels
// are: for each instruction set (target_clones) without floating-point
// contraction. Their results must not depend on the machine: the shipped
// controllers replay bit for bit only if every step does.
#include "core/Lanes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace sinew::lanes {
namespace {

// Quotients from divide() that differ from the division's, among `n`
// pairs drawn by `draw`.
template <class Draw>
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
long mismatches(long n, Draw draw) {
  long bad = 0;
  for (long i = 0; i < n; i += kLanes) {
    V a, b;
    for (int l = 0; l < kLanes; ++l) draw(a[l], b[l]);
    const V q = divide(a, b, 1.0 / b), exact = a / b;
    for (int l = 0; l < kLanes; ++l) bad += q[l] != exact[l] ? 1 : 0;
  }
  return bad;
}

TEST(Lanes, DivideByAReciprocalRoundsExactlyAsTheDivision) {
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-60, 60);
  auto wide = [&](double& a, double& b) {
    a = std::ldexp(mantissa(g), exponent(g)) * (g() & 1 ? -1 : 1);
    b = std::ldexp(mantissa(g), exponent(g)) * (g() & 1 ? -1 : 1);
  };
  EXPECT_EQ(mismatches(1 << 20, wide), 0);
  // The hard cases of a reciprocal: divisors just below a power of two
  // (1/b rounds furthest from exact), small integers, numerators with long
  // runs of ones in the mantissa.
  auto hard = [&](double& a, double& b) {
    const uint64_t bits = (g() >> 12) | (g() & 1 ? 0xFFFFFull : 0);
    a = g() % 3 == 0 ? double(g() % 1000 + 1) : 1.0 + double(bits) * 0x1p-52;
    b = g() % 3 == 0 ? double(g() % 1000 + 1) : std::nextafter(2.0, 0.0) - double(g() % 4096) * 0x1p-52;
  };
  EXPECT_EQ(mismatches(1 << 20, hard), 0);
  // The cofactors and determinants the polar iteration divides: near a rotation.
  std::normal_distribution<double> small(0.0, 0.05);
  auto polar = [&](double& a, double& b) {
    a = small(g) + (g() % 3 == 0 ? 1.0 : 0.0);
    b = 1.0 + small(g);
  };
  EXPECT_EQ(mismatches(1 << 20, polar), 0);
}

}  // namespace
}  // namespace sinew::lanes
