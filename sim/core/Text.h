// Small text utilities for names that come from files.
#pragma once

#include <string>

namespace sinew {

// Returns `s` with every invalid UTF-8 sequence replaced by U+FFFD and
// control characters by spaces: names read from damaged or foreign files
// must still be printable and storable as JSON.
std::string sanitizeName(const std::string& s);

// The deepest nesting a JSON document Sinew reads may have (projects nest
// about 6 levels): deeper input is refused before any parser recurses on it.
inline constexpr int kMaxJsonDepth = 64;

// Throws InputError(context, ...) naming the byte where `text`'s arrays and
// objects nest deeper than `maxDepth` (brackets inside strings ignored).
void checkJsonNesting(const std::string& text, const std::string& context, int maxDepth = kMaxJsonDepth);

}  // namespace sinew
