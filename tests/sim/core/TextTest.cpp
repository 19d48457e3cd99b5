// Names from files are made valid UTF-8 without control characters.
#include "core/Text.h"

#include <gtest/gtest.h>

namespace sinew {

TEST(SanitizeName, KeepsValidUtf8) {
  EXPECT_EQ(sanitizeName("LeftForeArm"), "LeftForeArm");
  EXPECT_EQ(sanitizeName("Épaule gauche \xe2\x9c\x93"), "Épaule gauche \xe2\x9c\x93");
  EXPECT_EQ(sanitizeName("\xf0\x9f\xa6\xb4"), "\xf0\x9f\xa6\xb4");  // 4-byte sequence
}

TEST(SanitizeName, ReplacesInvalidSequencesAndControls) {
  const std::string fffd = "\xef\xbf\xbd";
  EXPECT_EQ(sanitizeName("a\xff" "b"), "a" + fffd + "b");
  EXPECT_EQ(sanitizeName("\xc3"), fffd);                       // truncated sequence
  EXPECT_EQ(sanitizeName("\xc0\xaf"), fffd + fffd);            // overlong encoding
  EXPECT_EQ(sanitizeName("\xed\xa0\x80"), fffd + fffd + fffd);  // UTF-16 surrogate
  EXPECT_EQ(sanitizeName("line\nbreak\ttab\x7f"), "line break tab ");
  EXPECT_EQ(sanitizeName(""), "");
}

}  // namespace sinew
