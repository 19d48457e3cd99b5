// Small text utilities for names that come from files.
#pragma once

#include <string>

namespace sinew {

// Returns `s` with every invalid UTF-8 sequence replaced by U+FFFD and
// control characters by spaces: names read from damaged or foreign files
// must still be printable and storable as JSON.
std::string sanitizeName(const std::string& s);

}  // namespace sinew
