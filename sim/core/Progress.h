// Progress reporting and cancellation for long operations.
//
// sim/ code calls progress.update(fraction, stage) at checkpoints; the caller
// (GUI worker thread, CLI) decides how to show it. When the user has asked to
// cancel, update() throws Cancelled, which unwinds the operation without
// touching the caller's data (operations build results in locals).
#pragma once

#include "core/Error.h"

#include <atomic>
#include <functional>
#include <string_view>

namespace sinew {

class Progress {
 public:
  // Callback receives overall fraction in [0,1] and a short stage name.
  using Callback = std::function<void(double fraction, std::string_view stage)>;

  Progress() = default;
  explicit Progress(Callback cb, const std::atomic<bool>* cancelFlag = nullptr)
      : callback_(std::move(cb)), cancel_(cancelFlag) {}

  // Reports `fraction` of this (sub)range; throws Cancelled if cancel was requested.
  void update(double fraction, std::string_view stage = {}) const {
    if (cancel_ && cancel_->load(std::memory_order_relaxed)) throw Cancelled();
    if (callback_) callback_(begin_ + (end_ - begin_) * clamp01(fraction), stage);
  }
  // Like update() but never throws: returns false if cancel was requested.
  // For callbacks from third-party code that must not be unwound by exceptions.
  bool tryUpdate(double fraction, std::string_view stage = {}) const noexcept {
    if (cancelled()) return false;
    try {
      if (callback_) callback_(begin_ + (end_ - begin_) * clamp01(fraction), stage);
    } catch (...) {
      return false;
    }
    return true;
  }
  bool cancelled() const { return cancel_ && cancel_->load(std::memory_order_relaxed); }

  // A view of this progress that maps [0,1] onto [a,b] of the current range.
  Progress sub(double a, double b) const {
    Progress p = *this;
    p.begin_ = begin_ + (end_ - begin_) * a;
    p.end_ = begin_ + (end_ - begin_) * b;
    return p;
  }

  // A Progress that reports nothing and is never cancelled.
  static const Progress& none() {
    static const Progress p;
    return p;
  }

 private:
  static double clamp01(double x) { return x < 0 ? 0 : (x > 1 ? 1 : x); }
  Callback callback_;
  const std::atomic<bool>* cancel_ = nullptr;
  double begin_ = 0.0, end_ = 1.0;
};

}  // namespace sinew
