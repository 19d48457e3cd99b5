#include "io/FormatCheck.h"

#include "io/FileUtil.h"

#include <cstdlib>
#include <set>
#include <sstream>

namespace sinew {

namespace {

// Next whitespace-separated token, skipping '#' comments (OFF).
std::string nextOffToken(std::istringstream& in) {
  std::string tok;
  while (in >> tok) {
    if (tok[0] == '#') {
      std::string rest;
      std::getline(in, rest);
      continue;
    }
    return tok;
  }
  return {};
}

long double parseCount(const std::string& path, const std::string& tok, const char* what) {
  char* end = nullptr;
  const long double v = std::strtold(tok.c_str(), &end);
  if (tok.empty() || end != tok.c_str() + tok.size() || v < 0)
    throw InputError(path, std::string("invalid ") + what + " '" + tok.substr(0, 40) + "' in header");
  return v;
}

// OFF: "OFF" then "nVertices nFaces nEdges". Each vertex needs at least
// three numbers ("0 0 0\n": 6 bytes), each face at least "3 0 0 0\n" (8 bytes).
void checkOff(const std::string& path, const std::string& data) {
  std::istringstream in(data.substr(0, 4096));
  std::string magic = nextOffToken(in);
  if (magic.empty() || magic.find("OFF") == std::string::npos)
    throw InputError(path, "not an OFF file (missing 'OFF' header)");
  const long double nv = parseCount(path, nextOffToken(in), "vertex count");
  const long double nf = parseCount(path, nextOffToken(in), "face count");
  const long double needed = nv * 6 + nf * 8;
  if (needed > static_cast<long double>(data.size()))
    throw InputError(path, "header declares " + std::to_string(static_cast<unsigned long long>(nv)) + " vertices and " +
                               std::to_string(static_cast<unsigned long long>(nf)) +
                               " faces, more than the file's " + std::to_string(data.size()) + " bytes can hold");
}

// PLY: element counts times the smallest encoding of their properties.
void checkPly(const std::string& path, const std::string& data) {
  const size_t headerEnd = data.find("end_header");
  if (data.compare(0, 3, "ply") != 0 || headerEnd == std::string::npos)
    throw InputError(path, "not a PLY file (missing 'ply' magic or 'end_header')");
  std::istringstream in(data.substr(0, headerEnd));
  std::string line;
  bool binary = false;
  long double needed = 0, count = 0;
  long double perElement = 0;
  auto flush = [&] { needed += count * perElement; };
  auto sizeOf = [](const std::string& t) -> int {
    if (t == "char" || t == "uchar" || t == "int8" || t == "uint8") return 1;
    if (t == "short" || t == "ushort" || t == "int16" || t == "uint16") return 2;
    if (t == "int" || t == "uint" || t == "float" || t == "int32" || t == "uint32" || t == "float32") return 4;
    if (t == "double" || t == "float64") return 8;
    return 0;
  };
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string kw;
    ls >> kw;
    if (kw == "format") {
      std::string f;
      ls >> f;
      binary = f.rfind("binary", 0) == 0;
    } else if (kw == "element") {
      flush();
      std::string name, n;
      ls >> name >> n;
      count = parseCount(path, n, ("element '" + name + "' count").c_str());
      perElement = 0;
    } else if (kw == "property") {
      std::string type;
      ls >> type;
      if (type == "list") {
        std::string countType;
        ls >> countType;
        perElement += binary ? std::max(sizeOf(countType), 1) : 2;  // at least the count itself
      } else {
        perElement += binary ? std::max(sizeOf(type), 1) : 2;
      }
    }
  }
  flush();
  if (needed > static_cast<long double>(data.size() - headerEnd))
    throw InputError(path, "header declares more elements than the file's " + std::to_string(data.size()) +
                               " bytes can hold (truncated or corrupted)");
}

// Binary STL: 80-byte header, uint32 triangle count, 50 bytes per triangle.
void checkStl(const std::string& path, const std::string& data) {
  const bool ascii = data.compare(0, 5, "solid") == 0 && data.find("facet", 5) != std::string::npos;
  if (ascii) return;
  if (data.size() < 84) throw InputError(path, "truncated binary STL (shorter than its 84-byte header)");
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= uint32_t(static_cast<unsigned char>(data[80 + i])) << (8 * i);
  if (84 + uint64_t(n) * 50 > data.size())
    throw InputError(path, "truncated binary STL: header declares " + std::to_string(n) + " triangles, file holds " +
                               std::to_string((data.size() - 84) / 50));
}

// OBJ: face statements need three or more vertex references; Assimp drops
// shorter ones silently, losing geometry without a word.
void checkObj(const std::string& path, const std::string& data, Diagnostics& out) {
  std::istringstream in(data);
  std::string line;
  size_t lineNo = 0;
  std::set<std::string> materials;
  bool hasMtllib = false;
  while (std::getline(in, line)) {
    ++lineNo;
    std::istringstream ls(line);
    std::string kw;
    if (!(ls >> kw)) continue;
    if (kw == "f") {
      int refs = 0;
      std::string r;
      while (ls >> r) {
        if (r[0] == '#') break;
        ++refs;
      }
      if (refs < 3)
        throw InputError(path, "line " + std::to_string(lineNo) + ": face with " + std::to_string(refs) +
                                   " vertex reference(s); a face needs at least 3");
    } else if (kw == "mtllib") {
      hasMtllib = true;
    } else if (kw == "usemtl") {
      std::string m;
      ls >> m;
      materials.insert(m);
    }
  }
  if (!hasMtllib && !materials.empty())
    out.push_back({Severity::Warning, path + ": uses material(s) but names no material library (mtllib)"});
}

}  // namespace

void precheckMeshFile(const std::string& path, const std::string& data, Diagnostics& out) {
  const std::string ext = lowerExtension(path);
  if (ext == "off") checkOff(path, data);
  else if (ext == "ply") checkPly(path, data);
  else if (ext == "stl") checkStl(path, data);
  else if (ext == "obj") checkObj(path, data, out);
}

}  // namespace sinew
