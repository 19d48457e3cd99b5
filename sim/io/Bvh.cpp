#include "io/Bvh.h"

#include "core/Error.h"
#include "core/Text.h"
#include "io/FileUtil.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

namespace sinew {

namespace {

// Hostile-input limits: far beyond any real skeleton.
constexpr size_t kMaxJoints = 10000;
constexpr int kMaxDepth = 256;

class Tokenizer {
 public:
  Tokenizer(const std::string& text, const std::string& file) : s_(text), file_(file) {}

  bool atEnd() {
    skipSpace();
    return pos_ >= s_.size();
  }
  int line() const { return line_; }
  std::string_view next(const char* expecting) {
    skipSpace();
    if (pos_ >= s_.size()) fail(std::string("unexpected end of file, expected ") + expecting);
    const size_t b = pos_;
    while (pos_ < s_.size() && !isSpace(s_[pos_])) ++pos_;
    return std::string_view(s_).substr(b, pos_ - b);
  }
  void expect(std::string_view word) {
    const std::string_view t = next(std::string(word).c_str());
    if (t != word) fail("expected '" + std::string(word) + "', found '" + std::string(t.substr(0, 40)) + "'");
  }
  double number(const char* what) {
    const std::string_view t = next(what);
    return toNumber(t, what);
  }
  double toNumber(std::string_view t, const char* what) {
    double v = 0;
    const char* b = t.data();
    const char* e = t.data() + t.size();
    if (b != e && *b == '+') ++b;
    const auto r = std::from_chars(b, e, v);
    if (r.ec != std::errc() || r.ptr != e || !std::isfinite(v))
      fail(std::string("expected ") + what + ", found '" + std::string(t.substr(0, 40)) + "'");
    return v;
  }
  // Rest of the current line, trimmed (for joint names with spaces and "Frame Time:").
  std::string restOfLine() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
    const size_t b = pos_;
    while (pos_ < s_.size() && s_[pos_] != '\n' && s_[pos_] != '\r') ++pos_;
    std::string r = s_.substr(b, pos_ - b);
    while (!r.empty() && (r.back() == ' ' || r.back() == '\t')) r.pop_back();
    return r;
  }
  [[noreturn]] void fail(const std::string& msg) const {
    throw InputError(file_, "line " + std::to_string(line_) + ": " + msg);
  }
  // Reads up to `limit` numbers into out; returns how many.
  size_t numbers(std::vector<double>& out, size_t limit) {
    size_t n = 0;
    while (n < limit && !atEnd()) out[n++] = toNumber(next("a channel value"), "a channel value");
    return n;
  }

 private:
  static bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
  void skipSpace() {
    while (pos_ < s_.size() && isSpace(s_[pos_])) {
      if (s_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }
  const std::string& s_;
  const std::string& file_;
  size_t pos_ = 0;
  int line_ = 1;
};

void parseJoint(Tokenizer& tok, MotionClip& clip, int32_t parent, int depth, int32_t& column) {
  if (depth > kMaxDepth) tok.fail("hierarchy nested deeper than " + std::to_string(kMaxDepth) + " levels");
  if (clip.joints.size() >= kMaxJoints) tok.fail("more than " + std::to_string(kMaxJoints) + " joints");
  ClipJoint j;
  j.name = sanitizeName(tok.restOfLine());
  if (j.name.empty()) tok.fail("joint without a name");
  j.parent = parent;
  tok.expect("{");
  tok.expect("OFFSET");
  for (int k = 0; k < 3; ++k) j.offset[k] = tok.number("an OFFSET coordinate");
  {
    const std::string_view kw = tok.next("CHANNELS");
    if (kw != "CHANNELS") tok.fail("expected 'CHANNELS' after OFFSET of joint '" + j.name + "'");
    const double n = tok.number("a channel count");
    if (n < 0 || n > 6 || n != std::floor(n)) tok.fail("channel count must be 0..6");
    for (int c = 0; c < static_cast<int>(n); ++c) {
      const std::string_view name = tok.next("a channel name");
      const auto ch = channelFromName(name);
      if (!ch) tok.fail("unknown channel '" + std::string(name.substr(0, 40)) + "'");
      j.channels.push_back(*ch);
    }
  }
  j.firstChannel = column;
  column += static_cast<int32_t>(j.channels.size());
  const auto self = static_cast<int32_t>(clip.joints.size());
  clip.joints.push_back(j);
  for (;;) {
    const std::string_view kw = tok.next("JOINT, End Site or '}'");
    if (kw == "}") return;
    if (kw == "JOINT") {
      parseJoint(tok, clip, self, depth + 1, column);
    } else if (kw == "End") {
      tok.expect("Site");
      tok.expect("{");
      tok.expect("OFFSET");
      Vec3 e;
      for (int k = 0; k < 3; ++k) e[k] = tok.number("an End Site OFFSET coordinate");
      tok.expect("}");
      clip.joints[self].endSite = e;
    } else {
      tok.fail("expected JOINT, End Site or '}', found '" + std::string(kw.substr(0, 40)) + "'");
    }
  }
}

// A (possibly huge) count for a message.
std::string countText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

void appendNumber(std::string& out, double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

}  // namespace

MotionClip parseBvh(const std::string& text, const std::string& fileName, double unitScale) {
  if (text.empty()) throw InputError(fileName, "file is empty");
  Tokenizer tok(text, fileName);
  MotionClip clip;
  clip.name = sanitizeName(std::filesystem::path(fileName).stem().string());
  tok.expect("HIERARCHY");
  int32_t column = 0;
  const std::string_view root = tok.next("ROOT");
  if (root != "ROOT") tok.fail("expected 'ROOT', found '" + std::string(root.substr(0, 40)) + "'");
  parseJoint(tok, clip, -1, 0, column);
  // Some files hold several roots; accept them all.
  for (;;) {
    const std::string_view kw = tok.next("MOTION");
    if (kw == "MOTION") break;
    if (kw != "ROOT") tok.fail("expected 'MOTION', found '" + std::string(kw.substr(0, 40)) + "'");
    parseJoint(tok, clip, -1, 0, column);
  }
  tok.expect("Frames:");
  const double frames = tok.number("the frame count");
  if (frames < 0 || frames != std::floor(frames)) tok.fail("frame count must be a non-negative integer");
  // Each value takes at least two bytes ("0 "): a declared count larger than
  // the file could hold is rejected before allocating.
  const double needed = frames * column;
  if (needed > static_cast<double>(text.size()) / 2 + 1)
    tok.fail("declares " + countText(frames) + " frames of " + std::to_string(column) +
             " channels, more than the file can contain");
  if (frames > std::numeric_limits<int32_t>::max()) tok.fail("frame count " + countText(frames) + " is too large");
  tok.expect("Frame");
  tok.expect("Time:");
  clip.frameTime = tok.number("the frame time");
  // 100 kHz to one frame a minute: anything else is a damaged file (1e-320 or 1e308 s made inf Hz and inf s clips).
  if (!(clip.frameTime >= 1e-5 && clip.frameTime <= 60))
    tok.fail("frame time must lie between 1e-05 and 60 s (it is " + countText(clip.frameTime) + ")");

  clip.frameCount = static_cast<int32_t>(frames);
  const size_t expected = static_cast<size_t>(needed);
  clip.values.assign(expected, 0.0);
  const size_t got = tok.numbers(clip.values, expected);
  if (got < expected)
    throw InputError(fileName, "truncated motion data: " + std::to_string(got) + " of " + std::to_string(expected) +
                                   " channel values (" + std::to_string(clip.frameCount) + " frames x " +
                                   std::to_string(column) + " channels)");
  // Values after the declared frames: whole frames are ignored (files in the
  // wild, such as Assimp's Boxing_Toes.bvh, hold one frame more than they
  // declare; Assimp and Blender read the declared count), anything else is an error.
  if (!tok.atEnd()) {
    const int line = tok.line();  // of the first surplus value
    size_t extra = 0;
    for (; !tok.atEnd(); ++extra) tok.toNumber(tok.next("a channel value"), "a channel value");
    if (column == 0 || extra % static_cast<size_t>(column) != 0)
      throw InputError(fileName, "more motion data than the " + std::to_string(clip.frameCount) +
                                     " frames declared (line " + std::to_string(line) + ")");
  }

  if (unitScale > 0) {
    clip.unitScale = unitScale;
    clip.units = "custom";
  } else {
    const auto [units, scale] = detectHumanUnits(restHeight(clip));
    clip.units = units;
    clip.unitScale = scale;
  }
  clip.validate(fileName);
  return clip;
}

MotionClip readBvh(const std::string& path, double unitScale) {
  return parseBvh(readFileChecked(path), path, unitScale);
}

std::string formatBvh(const MotionClip& clip) {
  std::string out = "HIERARCHY\n";
  // Joints are stored depth-first (parents first, subtrees contiguous): keep a
  // stack of open blocks and close them until the parent is on top.
  std::vector<int32_t> open;
  auto closeBlock = [&] {
    out += std::string(open.size() - 1, '\t') + "}\n";
    open.pop_back();
  };
  for (size_t i = 0; i < clip.joints.size(); ++i) {
    const ClipJoint& j = clip.joints[i];
    while (!open.empty() && open.back() != j.parent) closeBlock();
    if (j.parent >= 0 && open.empty())
      throw std::logic_error("formatBvh: joints of clip '" + clip.name + "' are not in depth-first order");
    const std::string ind(open.size(), '\t');
    out += ind + (j.parent < 0 ? "ROOT " : "JOINT ") + j.name + "\n" + ind + "{\n" + ind + "\tOFFSET";
    for (int k = 0; k < 3; ++k) {
      out += ' ';
      appendNumber(out, j.offset[k]);
    }
    out += "\n" + ind + "\tCHANNELS " + std::to_string(j.channels.size());
    for (Channel c : j.channels) out += std::string(" ") + channelName(c);
    out += "\n";
    if (j.endSite) {
      out += ind + "\tEnd Site\n" + ind + "\t{\n" + ind + "\t\tOFFSET";
      for (int k = 0; k < 3; ++k) {
        out += ' ';
        appendNumber(out, (*j.endSite)[k]);
      }
      out += "\n" + ind + "\t}\n";
    }
    open.push_back(static_cast<int32_t>(i));
  }
  while (!open.empty()) closeBlock();
  out += "MOTION\nFrames: " + std::to_string(clip.frameCount) + "\nFrame Time: ";
  appendNumber(out, clip.frameTime);
  out += "\n";
  const int32_t nc = clip.channelCount();
  for (int32_t f = 0; f < clip.frameCount; ++f) {
    const double* v = clip.frame(f);
    for (int32_t c = 0; c < nc; ++c) {
      if (c) out += ' ';
      appendNumber(out, v[c]);
    }
    out += "\n";
  }
  return out;
}

void writeBvh(const MotionClip& clip, const std::string& path) { writeFileAtomic(path, formatBvh(clip)); }

}  // namespace sinew
