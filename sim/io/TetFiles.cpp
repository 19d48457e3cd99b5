#include "io/TetFiles.h"

#include "core/Error.h"
#include "core/Text.h"
#include "io/FileUtil.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>

namespace sinew {

namespace {

void appendNumber(std::string& out, double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest exact round trip
  out.append(buf, r.ptr);
}

void appendInt(std::string& out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return r;
}

// Whitespace-separated tokens with line numbers; '#' comments to the end of the line.
class Tokens {
 public:
  Tokens(const std::string& text, const std::string& file) : s_(text), file_(file) {}
  bool atEnd() {
    skip();
    return pos_ >= s_.size();
  }
  int line() const { return line_; }
  std::string_view next(const char* expecting) {
    skip();
    if (pos_ >= s_.size()) fail(std::string("unexpected end of file, expected ") + expecting);
    const size_t b = pos_;
    while (pos_ < s_.size() && !space(s_[pos_]) && s_[pos_] != '#') ++pos_;
    return std::string_view(s_).substr(b, pos_ - b);
  }
  double real(const char* what) {
    const std::string_view t = next(what);
    double v = 0;
    const char* b = t.data();
    const char* e = b + t.size();
    if (b != e && *b == '+') ++b;
    const auto r = std::from_chars(b, e, v);
    if (r.ec != std::errc() || r.ptr != e || !std::isfinite(v)) bad(what, t);
    return v;
  }
  int64_t integer(const char* what) {
    const std::string_view t = next(what);
    int64_t v = 0;
    const char* b = t.data();
    const char* e = b + t.size();
    if (b != e && *b == '+') ++b;
    const auto r = std::from_chars(b, e, v);
    if (r.ec != std::errc() || r.ptr != e) bad(what, t);
    return v;
  }
  // A count of entries of at least `bytesEach` characters: no larger than the rest of the text allows.
  size_t count(const char* what, size_t bytesEach) {
    const int64_t n = integer(what);
    if (n < 0) fail(std::string(what) + " is negative");
    if (size_t(n) > (s_.size() - pos_) / bytesEach + 1)
      fail(std::string(what) + " " + std::to_string(n) + " is more than the file holds");
    return size_t(n);
  }
  [[noreturn]] void fail(const std::string& msg) const {
    throw InputError(file_, "line " + std::to_string(line_) + ": " + msg);
  }

 private:
  [[noreturn]] void bad(const char* what, std::string_view t) const {
    fail(std::string("expected ") + what + ", found '" + sanitizeName(std::string(t.substr(0, 40))) + "'");
  }
  static bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
  void skip() {
    while (pos_ < s_.size()) {
      if (s_[pos_] == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else if (space(s_[pos_])) {
        if (s_[pos_] == '\n') ++line_;
        ++pos_;
      } else {
        break;
      }
    }
  }
  const std::string& s_;
  const std::string& file_;
  size_t pos_ = 0;
  int line_ = 1;
};

// Sections read and ignored: name and numbers per entry.
int ignoredSectionWidth(const std::string& keyword) {
  static const std::pair<const char*, int> sections[] = {
      {"edges", 3},   {"corners", 1},  {"requiredvertices", 1}, {"ridges", 1},           {"quadrilaterals", 5},
      {"hexahedra", 9}, {"normals", 3}, {"normalatvertices", 2}, {"tangents", 3},        {"tangentatedges", 3},
      {"requirededges", 1}, {"requiredtriangles", 1}};
  for (const auto& [name, width] : sections)
    if (keyword == name) return width;
  return 0;
}

}  // namespace

std::string formatMedit(const TetMesh& mesh, const std::vector<Tri>& triangles) {
  std::string out;
  out.reserve(mesh.nodeCount() * 64 + mesh.tetCount() * 40 + triangles.size() * 32 + 128);
  out += "MeshVersionFormatted 2\nDimension 3\n";
  out += "Vertices\n";
  appendInt(out, int64_t(mesh.nodeCount()));
  out += '\n';
  for (const Vec3& p : mesh.nodes) {
    for (int c = 0; c < 3; ++c) {
      appendNumber(out, p[c]);
      out += ' ';
    }
    out += "0\n";
  }
  if (!triangles.empty()) {
    out += "Triangles\n";
    appendInt(out, int64_t(triangles.size()));
    out += '\n';
    for (const Tri& t : triangles) {
      for (int c = 0; c < 3; ++c) {
        appendInt(out, int64_t(t[c]) + 1);
        out += ' ';
      }
      out += "0\n";
    }
  }
  out += "Tetrahedra\n";
  appendInt(out, int64_t(mesh.tetCount()));
  out += '\n';
  for (size_t t = 0; t < mesh.tetCount(); ++t) {
    for (int c = 0; c < 4; ++c) {
      appendInt(out, int64_t(mesh.tets[t][c]) + 1);
      out += ' ';
    }
    appendInt(out, mesh.region.empty() ? 0 : int64_t(mesh.region[t]) + 1);
    out += '\n';
  }
  out += "End\n";
  return out;
}

TetMeshFile parseMedit(const std::string& text, const std::string& fileName) {
  if (text.empty()) throw InputError(fileName, "file is empty");
  Tokens in(text, fileName);
  TetMeshFile f;
  bool haveVertices = false, haveTets = false;
  {
    const std::string k = lower(in.next("MeshVersionFormatted"));
    if (k != "meshversionformatted") in.fail("not a Medit mesh (expected 'MeshVersionFormatted', found '" +
                                             sanitizeName(k.substr(0, 40)) + "')");
    const int64_t version = in.integer("a format version");
    if (version < 1 || version > 4) in.fail("unsupported format version " + std::to_string(version));
  }
  std::vector<int64_t> tetRefs;
  while (!in.atEnd()) {
    const std::string k = lower(in.next("a keyword"));
    if (k == "end") break;
    if (k == "dimension") {
      if (in.integer("the dimension") != 3) in.fail("only 3D meshes are supported");
    } else if (k == "vertices") {
      const size_t n = in.count("the vertex count", 8);
      f.mesh.nodes.resize(n);
      for (size_t v = 0; v < n; ++v) {
        for (int c = 0; c < 3; ++c) f.mesh.nodes[v][c] = in.real("a coordinate");
        in.integer("a vertex reference");
      }
      haveVertices = true;
    } else if (k == "triangles" || k == "tetrahedra") {
      const bool tets = k == "tetrahedra";
      const int corners = tets ? 4 : 3;
      const size_t n = in.count(tets ? "the tetrahedron count" : "the triangle count", size_t(2 * corners + 2));
      if (!haveVertices) in.fail(std::string(tets ? "Tetrahedra" : "Triangles") + " before Vertices");
      for (size_t e = 0; e < n; ++e) {
        int32_t idx[4] = {0, 0, 0, 0};
        for (int c = 0; c < corners; ++c) {
          const int64_t i = in.integer("a vertex index");
          if (i < 1 || size_t(i) > f.mesh.nodeCount())
            in.fail("vertex index " + std::to_string(i) + " out of range 1.." + std::to_string(f.mesh.nodeCount()));
          idx[c] = int32_t(i - 1);
        }
        const int64_t ref = in.integer("a reference number");
        if (tets) {
          if (ref < 0 || ref > int64_t(std::numeric_limits<int32_t>::max()))
            in.fail("region reference " + std::to_string(ref) + " is negative or too large");
          Tet t{idx[0], idx[1], idx[2], idx[3]};
          if (t[0] == t[1] || t[0] == t[2] || t[0] == t[3] || t[1] == t[2] || t[1] == t[3] || t[2] == t[3])
            in.fail("tetrahedron " + std::to_string(e + 1) + " repeats a vertex");
          f.mesh.tets.push_back(t);
          tetRefs.push_back(ref);
          const size_t id = f.mesh.tets.size() - 1;
          const double vol = tetVolume(f.mesh, id);
          if (vol == 0) in.fail("tetrahedron " + std::to_string(e + 1) + " is flat (zero volume)");
          if (vol < 0) std::swap(f.mesh.tets[id][0], f.mesh.tets[id][1]);
        } else {
          f.triangles.push_back({idx[0], idx[1], idx[2]});
          f.triangleRefs.push_back(int32_t(std::clamp<int64_t>(ref, std::numeric_limits<int32_t>::min(),
                                                                std::numeric_limits<int32_t>::max())));
        }
      }
      haveTets = haveTets || tets;
    } else if (const int width = ignoredSectionWidth(k)) {
      const size_t n = in.count("the entry count", size_t(2 * width));
      for (size_t e = 0; e < n * size_t(width); ++e) in.real("a number");
    } else {
      in.fail("unsupported section '" + sanitizeName(k.substr(0, 40)) + "'");
    }
  }
  if (!haveTets) throw InputError(fileName, "no Tetrahedra section");
  const bool anyBone = std::any_of(tetRefs.begin(), tetRefs.end(), [](int64_t r) { return r != 0; });
  if (anyBone) {
    f.mesh.region.resize(tetRefs.size());
    for (size_t t = 0; t < tetRefs.size(); ++t) f.mesh.region[t] = int32_t(tetRefs[t] - 1);
  }
  return f;
}

void writeMedit(const std::string& path, const TetMesh& mesh, const std::vector<Tri>& triangles) {
  writeFileAtomic(path, formatMedit(mesh, triangles));
}

TetMeshFile readMedit(const std::string& path) { return parseMedit(readFileChecked(path), path); }

std::string formatJointFile(const JointFile& j) {
  std::string out = "# Sinew joint file: bones (region references of the .mesh) and the joints between them\n";
  out += "SinewJoints 1\nBones ";
  appendInt(out, int64_t(j.bones.size()));
  out += '\n';
  for (size_t b = 0; b < j.bones.size(); ++b) {
    appendInt(out, int64_t(b) + 1);
    out += ' ';
    out += j.bones[b];
    out += '\n';
  }
  out += "Joints ";
  appendInt(out, int64_t(j.joints.size()));
  out += '\n';
  for (const RegionJoint& r : j.joints) {
    appendInt(out, int64_t(r.parentBone) + 1);
    out += ' ';
    appendInt(out, int64_t(r.childBone) + 1);
    for (int c = 0; c < 3; ++c) {
      out += ' ';
      appendNumber(out, r.position[c]);
    }
    out += ' ';
    out += r.name;
    out += '\n';
  }
  out += "End\n";
  return out;
}

namespace {

// Line-based reader for .joint files: fields, then the rest of the line as a name.
class Lines {
 public:
  Lines(const std::string& text, const std::string& file) : s_(text), file_(file) {}
  // Next line that is not blank or a comment, trimmed; false at the end.
  bool next() {
    while (pos_ < s_.size()) {
      const size_t e = std::min(s_.find('\n', pos_), s_.size());
      std::string l = s_.substr(pos_, e - pos_);
      pos_ = e + 1;
      ++line_;
      while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t')) l.pop_back();
      size_t b = 0;
      while (b < l.size() && (l[b] == ' ' || l[b] == '\t')) ++b;
      l = l.substr(b);
      if (l.empty() || l[0] == '#') continue;
      cur_ = l;
      at_ = 0;
      return true;
    }
    return false;
  }
  void need(const char* what) {
    if (!next()) throw InputError(file_, "line " + std::to_string(line_) + ": unexpected end of file, expected " + what);
  }
  std::string word(const char* what) {
    while (at_ < cur_.size() && (cur_[at_] == ' ' || cur_[at_] == '\t')) ++at_;
    const size_t b = at_;
    while (at_ < cur_.size() && cur_[at_] != ' ' && cur_[at_] != '\t') ++at_;
    if (b == at_) fail(std::string("expected ") + what);
    return cur_.substr(b, at_ - b);
  }
  int64_t integer(const char* what) {
    const std::string t = word(what);
    int64_t v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size()) bad(what, t);
    return v;
  }
  double real(const char* what) {
    const std::string t = word(what);
    double v = 0;
    const char* b = t.data();
    if (!t.empty() && *b == '+') ++b;
    const auto r = std::from_chars(b, t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size() || !std::isfinite(v)) bad(what, t);
    return v;
  }
  std::string rest(const char* what) {
    while (at_ < cur_.size() && (cur_[at_] == ' ' || cur_[at_] == '\t')) ++at_;
    if (at_ >= cur_.size()) fail(std::string("expected ") + what);
    std::string r = cur_.substr(at_);
    at_ = cur_.size();
    return sanitizeName(r);
  }
  void done() {
    while (at_ < cur_.size() && (cur_[at_] == ' ' || cur_[at_] == '\t')) ++at_;
    if (at_ < cur_.size()) fail("unexpected '" + sanitizeName(cur_.substr(at_, 40)) + "'");
  }
  size_t remainingBytes() const { return pos_ < s_.size() ? s_.size() - pos_ : 0; }
  [[noreturn]] void fail(const std::string& msg) const {
    throw InputError(file_, "line " + std::to_string(line_) + ": " + msg);
  }

 private:
  [[noreturn]] void bad(const char* what, const std::string& t) const {
    fail(std::string("expected ") + what + ", found '" + sanitizeName(t.substr(0, 40)) + "'");
  }
  const std::string& s_;
  const std::string& file_;
  size_t pos_ = 0;
  int line_ = 0;
  std::string cur_;
  size_t at_ = 0;
};

}  // namespace

JointFile parseJointFile(const std::string& text, const std::string& fileName) {
  if (text.empty()) throw InputError(fileName, "file is empty");
  Lines in(text, fileName);
  JointFile j;
  in.need("'SinewJoints 1'");
  if (in.word("'SinewJoints'") != "SinewJoints") in.fail("not a Sinew joint file (expected 'SinewJoints 1')");
  if (in.integer("a format version") != 1) in.fail("unsupported format version");
  in.done();
  auto header = [&](const char* keyword) {
    in.need(keyword);
    if (in.word(keyword) != keyword) in.fail(std::string("expected '") + keyword + "'");
    const int64_t n = in.integer("a count");
    if (n < 0 || size_t(n) > in.remainingBytes() / 2 + 1) in.fail(std::string("invalid ") + keyword + " count");
    in.done();
    return size_t(n);
  };
  const size_t nBones = header("Bones");
  for (size_t b = 0; b < nBones; ++b) {
    in.need("a bone");
    const int64_t ref = in.integer("a bone reference");
    if (ref != int64_t(b) + 1) in.fail("bone reference " + std::to_string(ref) + " out of order (expected " +
                                       std::to_string(b + 1) + ")");
    j.bones.push_back(in.rest("a bone name"));
  }
  const size_t nJoints = header("Joints");
  for (size_t k = 0; k < nJoints; ++k) {
    in.need("a joint");
    RegionJoint r;
    for (int32_t* bone : {&r.parentBone, &r.childBone}) {
      const int64_t ref = in.integer("a bone reference");
      if (ref < 1 || ref > int64_t(nBones))
        in.fail("bone reference " + std::to_string(ref) + " out of range 1.." + std::to_string(nBones));
      *bone = int32_t(ref - 1);
    }
    for (int c = 0; c < 3; ++c) r.position[c] = in.real("a coordinate");
    r.name = in.rest("a joint name");
    j.joints.push_back(std::move(r));
  }
  in.need("'End'");
  if (in.word("'End'") != "End") in.fail("expected 'End'");
  in.done();
  if (in.next()) in.fail("unexpected text after 'End'");
  return j;
}

void writeJointFile(const std::string& path, const JointFile& joints) {
  for (const std::string& n : joints.bones)
    if (n.empty() || n.find_first_of("\r\n") != std::string::npos)
      throw InputError(path, "bone name '" + sanitizeName(n) + "' cannot be written (empty or with a line break)");
  for (const RegionJoint& r : joints.joints)
    if (r.name.empty() || r.name.find_first_of("\r\n") != std::string::npos)
      throw InputError(path, "joint name '" + sanitizeName(r.name) + "' cannot be written (empty or with a line break)");
  writeFileAtomic(path, formatJointFile(joints));
}

JointFile readJointFile(const std::string& path) { return parseJointFile(readFileChecked(path), path); }

Skeleton skeletonFromJoints(const JointFile& joints, const TetMesh& mesh) {
  const size_t n = joints.bones.size();
  std::vector<int32_t> parent(n, -1);
  std::vector<Vec3> at(n, Vec3::Zero());
  std::vector<Aabb> box(n);
  for (size_t t = 0; t < mesh.region.size() && t < mesh.tets.size(); ++t)
    if (mesh.region[t] >= 0 && size_t(mesh.region[t]) < n)
      for (int32_t v : mesh.tets[t]) box[size_t(mesh.region[t])].add(mesh.nodes[size_t(v)]);
  for (size_t k = 0; k < n; ++k) at[k] = box[k].empty() ? Vec3::Zero() : box[k].center();
  for (const RegionJoint& j : joints.joints) {
    if (j.childBone < 0 || size_t(j.childBone) >= n || j.parentBone < 0 || size_t(j.parentBone) >= n)
      throw InputError("joints", "joint '" + j.name + "' names a bone that does not exist");
    if (parent[size_t(j.childBone)] >= 0)
      throw InputError("joints", "bone '" + joints.bones[size_t(j.childBone)] + "' is the child of two joints");
    parent[size_t(j.childBone)] = j.parentBone;
    at[size_t(j.childBone)] = j.position;
  }
  // Parents first (a skeleton's order), refusing cycles.
  std::vector<int32_t> order, index(n, -1);
  std::vector<uint8_t> visiting(n, 0);
  std::function<void(size_t)> visit = [&](size_t k) {
    if (index[k] >= 0) return;
    if (visiting[k]) throw InputError("joints", "the joints between the bones form a cycle at '" + joints.bones[k] + "'");
    visiting[k] = 1;
    if (parent[k] >= 0) visit(size_t(parent[k]));
    index[k] = int32_t(order.size());
    order.push_back(int32_t(k));
  };
  for (size_t k = 0; k < n; ++k) visit(k);
  Skeleton skel;
  for (int32_t k : order) {
    Joint j;
    j.name = joints.bones[size_t(k)];
    const int32_t p = parent[size_t(k)];
    j.parent = p < 0 ? -1 : index[size_t(p)];
    j.restLocal.translation = p < 0 ? at[size_t(k)] : Vec3(at[size_t(k)] - at[size_t(p)]);
    skel.joints.push_back(j);
  }
  return skel;
}

}  // namespace sinew
