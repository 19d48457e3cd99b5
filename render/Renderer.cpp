#include "Renderer.h"

#include <algorithm>
#include <cmath>

namespace sinew::render {

const char* displayModeName(DisplayMode m) {
  switch (m) {
    case DisplayMode::Shaded: return "Shaded";
    case DisplayMode::Wireframe: return "Wireframe";
    case DisplayMode::XRay: return "X-ray";
  }
  return "?";
}

namespace {

// "Over" blending of colours that leaves the framebuffer's alpha at the 1 of
// the clear: the host composes the viewport's image as premultiplied alpha,
// and colours above a blended alpha there come out as garbage (cyan, green
// and black speckles where x-ray skins or selection wires were drawn).
void blendOver() { glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE); }

}  // namespace

struct Renderer::GpuMesh {
  GLuint vao = 0, vbo = 0, ibo = 0, highlightIbo = 0;
  GLsizei indexCount = 0, highlightCount = 0;
  GLuint colorVbo = 0;
  uint64_t revision = ~uint64_t(0);
  uint64_t colorRevision = ~uint64_t(0);
  bool hasColors = false;
  size_t highlightHash = 0;
  bool usedThisFrame = false;
  ~GpuMesh() {
    if (vao) glDeleteVertexArrays(1, &vao);
    GLuint b[4] = {vbo, ibo, highlightIbo, colorVbo};
    glDeleteBuffers(4, b);
  }
};

Renderer::Renderer() = default;
Renderer::~Renderer() = default;  // release() must have run with the context current

bool Renderer::initialize(std::string* error) {
  if (initialized_) return true;
  if (!meshProgram_.build("mesh.vert", "mesh.frag", error)) return false;
  if (!lineProgram_.build("line.vert", "line.frag", error)) return false;
  glGenVertexArrays(1, &streamVao_);
  glGenBuffers(1, &streamVbo_);
  glBindVertexArray(streamVao_);
  glBindBuffer(GL_ARRAY_BUFFER, streamVbo_);
  glEnableVertexAttribArray(0);
  glEnableVertexAttribArray(1);
  glBindVertexArray(0);
  initialized_ = true;
  return true;
}

void Renderer::release() {
  if (!initialized_) return;
  meshes_.clear();
  meshProgram_.destroy();
  lineProgram_.destroy();
  glDeleteVertexArrays(1, &streamVao_);
  glDeleteBuffers(1, &streamVbo_);
  streamVao_ = streamVbo_ = 0;
  initialized_ = false;
}

std::string Renderer::glVersion() const {
  const auto* v = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  const auto* r = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  return std::string(v ? v : "?") + ", " + (r ? r : "?");
}

Renderer::GpuMesh& Renderer::upload(const MeshItem& item) {
  auto& slot = meshes_[item.key];
  if (!slot) slot = std::make_unique<GpuMesh>();
  GpuMesh& g = *slot;
  g.usedThisFrame = true;
  if (g.revision != item.revision) {
    // One vertex per triangle corner: smooth (area-weighted) normals, except
    // across creases sharper than ~50 degrees, where the face normal is used
    // (rounded bodies stay smooth, boxes keep their edges).
    const TriMesh& m = *item.mesh;
    const std::vector<Vec3> smooth = vertexNormals(m);
    constexpr double kCreaseCos = 0.64;
    std::vector<float> interleaved(18 * m.triangleCount());
    for (size_t t = 0; t < m.triangleCount(); ++t) {
      const Vec3 fn = triangleNormal(m, t);
      for (int c = 0; c < 3; ++c) {
        const int32_t v = m.triangles[t][c];
        const Vec3 n = smooth[v].dot(fn) >= kCreaseCos ? smooth[v] : fn;
        float* out = &interleaved[18 * t + 6 * c];
        for (int k = 0; k < 3; ++k) {
          out[k] = float(m.positions[v][k]);
          out[3 + k] = float(n[k]);
        }
      }
    }
    std::vector<uint32_t> corners(3 * m.triangleCount());
    for (size_t i = 0; i < corners.size(); ++i) corners[i] = uint32_t(i);
    if (!g.vao) {
      glGenVertexArrays(1, &g.vao);
      glGenBuffers(1, &g.vbo);
      glGenBuffers(1, &g.ibo);
      glGenBuffers(1, &g.highlightIbo);
      glGenBuffers(1, &g.colorVbo);
    }
    glBindVertexArray(g.vao);
    glBindBuffer(GL_ARRAY_BUFFER, g.vbo);
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(interleaved.size() * sizeof(float)), interleaved.data(), GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), nullptr);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), reinterpret_cast<void*>(3 * sizeof(float)));
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g.ibo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(corners.size() * sizeof(uint32_t)), corners.data(),
                 GL_STATIC_DRAW);
    glBindVertexArray(0);
    g.indexCount = GLsizei(3 * m.triangles.size());
    g.revision = item.revision;
    g.highlightHash = ~size_t(0);
    g.colorRevision = ~uint64_t(0);
    ++stats_.meshUploads;
  }
  // Per-vertex colours, expanded to the triangle corners like the positions.
  const bool wantColors = item.vertexColors && item.vertexColors->size() == item.mesh->vertexCount();
  if (wantColors && g.colorRevision != item.colorRevision) {
    const TriMesh& m = *item.mesh;
    std::vector<float> colors(9 * m.triangleCount());
    for (size_t t = 0; t < m.triangleCount(); ++t)
      for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 3; ++k) colors[9 * t + 3 * c + k] = (*item.vertexColors)[size_t(m.triangles[t][c])][k];
    glBindVertexArray(g.vao);
    glBindBuffer(GL_ARRAY_BUFFER, g.colorVbo);
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(colors.size() * sizeof(float)), colors.data(), GL_DYNAMIC_DRAW);
    glVertexAttribPointer(2, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), nullptr);
    glBindVertexArray(0);
    g.colorRevision = item.colorRevision;
  }
  if (wantColors != g.hasColors) {
    glBindVertexArray(g.vao);
    if (wantColors) glEnableVertexAttribArray(2);
    else glDisableVertexAttribArray(2);
    glBindVertexArray(0);
    g.hasColors = wantColors;
  }
  // Highlighted faces get their own index buffer (re-filled when the set changes).
  size_t h = item.highlightFaces.size();
  for (int32_t f : item.highlightFaces) h = h * 1000003u ^ size_t(f);
  if (h != g.highlightHash) {
    std::vector<int32_t> idx;
    idx.reserve(3 * item.highlightFaces.size());
    for (int32_t f : item.highlightFaces)
      if (f >= 0 && size_t(f) < item.mesh->triangles.size())
        for (int32_t c = 0; c < 3; ++c) idx.push_back(3 * f + c);  // corners of face f
    glBindVertexArray(g.vao);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g.highlightIbo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(idx.size() * sizeof(int32_t)), idx.data(), GL_DYNAMIC_DRAW);
    glBindVertexArray(0);
    g.highlightCount = GLsizei(idx.size());
    g.highlightHash = h;
  }
  return g;
}

void Renderer::drawLines(const std::vector<Vec3f>& v, const std::vector<Vec3f>& c, GLenum mode, float alpha) {
  if (v.empty()) return;
  std::vector<float> data(6 * v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const Vec3f& col = i < c.size() ? c[i] : Vec3f(1, 1, 1);
    for (int k = 0; k < 3; ++k) {
      data[6 * i + k] = v[i][k];
      data[6 * i + 3 + k] = col[k];
    }
  }
  glBindVertexArray(streamVao_);
  glBindBuffer(GL_ARRAY_BUFFER, streamVbo_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(data.size() * sizeof(float)), data.data(), GL_STREAM_DRAW);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), nullptr);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), reinterpret_cast<void*>(3 * sizeof(float)));
  lineProgram_.set("uAlpha", alpha);
  glDrawArrays(mode, 0, GLsizei(v.size()));
  glBindVertexArray(0);
}

void Renderer::drawGrid(const FrameScene& scene, const Eigen::Matrix4f& viewProj) {
  std::vector<Vec3f> v, c;
  const int n = scene.gridCells;
  const float cell = float(scene.gridCell), half = n * cell;
  for (int i = -n; i <= n; ++i) {
    const float x = i * cell;
    const bool major = i % 4 == 0;
    const Vec3f col = major ? Vec3f(0.42f, 0.43f, 0.46f) : Vec3f(0.33f, 0.34f, 0.36f);
    // Axis lines in the axis colours: x red, z blue.
    v.push_back({x, 0, -half});
    v.push_back({x, 0, half});
    const Vec3f zc = i == 0 ? Vec3f(0.25f, 0.45f, 0.85f) : col;
    c.push_back(zc);
    c.push_back(zc);
    v.push_back({-half, 0, x});
    v.push_back({half, 0, x});
    const Vec3f xc = i == 0 ? Vec3f(0.85f, 0.3f, 0.3f) : col;
    c.push_back(xc);
    c.push_back(xc);
  }
  lineProgram_.use();
  lineProgram_.set("uViewProjection", viewProj);
  lineProgram_.set("uRoundPoints", 0);
  drawLines(v, c, GL_LINES, 1.0f);
}

AxisGizmo axisGizmo(const Camera& camera, int width, int height) {
  AxisGizmo g;
  const float size = 36.0f, margin = 52.0f;
  g.centre = Eigen::Vector2f(margin, float(height) - margin);
  const Eigen::Matrix3f r = camera.view().topLeftCorner<3, 3>();
  for (int a = 0; a < 3; ++a) {
    const Eigen::Vector3f d = r.col(a);  // world axis a in view space
    g.tips[a] = g.centre + size * Eigen::Vector2f(d.x(), -d.y());
    g.depth[a] = d.z();
  }
  (void)width;
  return g;
}

void Renderer::drawAxisGizmo(const Camera& camera, int width, int height) {
  // Drawn in pixel space with an orthographic projection.
  const AxisGizmo g = axisGizmo(camera, width, height);
  Eigen::Matrix4f ortho = Eigen::Matrix4f::Identity();
  ortho(0, 0) = 2.0f / width;
  ortho(1, 1) = -2.0f / height;
  ortho(0, 3) = -1.0f;
  ortho(1, 3) = 1.0f;
  static const Vec3f colors[3] = {{0.9f, 0.3f, 0.3f}, {0.4f, 0.8f, 0.35f}, {0.35f, 0.55f, 0.95f}};
  std::vector<Vec3f> v, c;
  for (int a = 0; a < 3; ++a) {
    v.push_back({g.centre.x(), g.centre.y(), 0});
    v.push_back({g.tips[a].x(), g.tips[a].y(), 0});
    c.push_back(colors[a]);
    c.push_back(colors[a]);
  }
  glDisable(GL_DEPTH_TEST);
  lineProgram_.use();
  lineProgram_.set("uViewProjection", ortho);
  lineProgram_.set("uRoundPoints", 0);
  glLineWidth(2.0f);
  drawLines(v, c, GL_LINES, 1.0f);
  glLineWidth(1.0f);
  std::vector<Vec3f> tips(v.begin() + 1, v.end()), tipColors;
  tips.clear();
  for (int a = 0; a < 3; ++a) {
    tips.push_back({g.tips[a].x(), g.tips[a].y(), 0});
    tipColors.push_back(colors[a]);
  }
  lineProgram_.set("uRoundPoints", 1);
  lineProgram_.set("uPointSize", 7.0f);
  drawLines(tips, tipColors, GL_POINTS, 1.0f);
  glEnable(GL_DEPTH_TEST);
}

void Renderer::render(const FrameScene& scene, const Camera& camera, const ViewSettings& settings, int width,
                      int height, GLuint framebuffer) {
  stats_ = {};
  if (!initialized_ || width <= 0 || height <= 0) return;
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  glViewport(0, 0, width, height);
  // A flat background: on a software rasteriser a full-screen gradient pass
  // costs about a sixth of the frame (docs/PERFORMANCE.md).
  glClearColor(0.22f, 0.23f, 0.25f, 1.0f);
  glClearDepth(1.0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_PROGRAM_POINT_SIZE);

  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);

  const Eigen::Matrix4f view = camera.view();
  const Eigen::Matrix4f proj = camera.projection(double(width) / height);
  const Eigen::Matrix4f viewProj = proj * view;

  if (settings.grid) drawGrid(scene, viewProj);

  for (auto& [key, g] : meshes_) g->usedThisFrame = false;

  // Meshes: opaque passes first, then x-ray (blended, no depth writes).
  meshProgram_.use();
  meshProgram_.set("uView", view);
  meshProgram_.set("uProjection", proj);
  meshProgram_.set("uUpView", Vec3f(view.topLeftCorner<3, 3>() * Vec3f::UnitY()));
  const bool xray = settings.mode == DisplayMode::XRay;
  bool anyTranslucent = false;
  for (const MeshItem& item : scene.meshes) {
    if (!item.mesh || item.mesh->triangles.empty()) continue;
    GpuMesh& g = upload(item);
    if (item.translucent && settings.mode == DisplayMode::Shaded) {
      anyTranslucent = true;  // drawn in the blended pass below, after everything opaque
      continue;
    }
    meshProgram_.use();
    glBindVertexArray(g.vao);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g.ibo);
    stats_.trianglesDrawn += size_t(g.indexCount / 3);
    if (settings.mode == DisplayMode::Shaded) {
      meshProgram_.set("uLit", 1);
      meshProgram_.set("uXray", 0);
      meshProgram_.set("uVertexColors", g.hasColors ? 1 : 0);
      if (!item.doubleSided) glEnable(GL_CULL_FACE);
      meshProgram_.set("uColor", Eigen::Vector4f(item.color.x(), item.color.y(), item.color.z(), 1.0f));
      glEnable(GL_POLYGON_OFFSET_FILL);
      glPolygonOffset(1.0f, 1.0f);
      glDrawElements(GL_TRIANGLES, g.indexCount, GL_UNSIGNED_INT, nullptr);
      glDisable(GL_POLYGON_OFFSET_FILL);
      glDisable(GL_CULL_FACE);
      meshProgram_.set("uVertexColors", 0);
    }
    if (settings.mode == DisplayMode::Wireframe || item.selected) {
      // Wire over the surface (shaded, selected) or alone (wireframe mode).
      meshProgram_.set("uLit", 0);
      const Eigen::Vector4f wire = item.selected ? Eigen::Vector4f(1.0f, 0.62f, 0.2f, 1.0f)
                                                 : Eigen::Vector4f(item.color.x(), item.color.y(), item.color.z(), 1.0f);
      meshProgram_.set("uColor", settings.mode == DisplayMode::Shaded
                                     ? Eigen::Vector4f(wire.x(), wire.y(), wire.z(), 0.35f)
                                     : wire);
      if (settings.mode == DisplayMode::Shaded) {
        glEnable(GL_BLEND);
        blendOver();
      }
      glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
      glDrawElements(GL_TRIANGLES, g.indexCount, GL_UNSIGNED_INT, nullptr);
      glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
      glDisable(GL_BLEND);
    }
    if (settings.problems && g.highlightCount > 0) {
      meshProgram_.set("uLit", 0);
      meshProgram_.set("uColor", Eigen::Vector4f(0.95f, 0.15f, 0.15f, 1.0f));
      glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g.highlightIbo);
      glEnable(GL_POLYGON_OFFSET_FILL);
      glPolygonOffset(-1.0f, -1.0f);
      glDrawElements(GL_TRIANGLES, g.highlightCount, GL_UNSIGNED_INT, nullptr);
      glDisable(GL_POLYGON_OFFSET_FILL);
      glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g.ibo);
    }
    glBindVertexArray(0);
  }
  if (xray || anyTranslucent) {
    glEnable(GL_BLEND);
    blendOver();
    glDepthMask(GL_FALSE);
    meshProgram_.use();
    meshProgram_.set("uLit", 1);
    meshProgram_.set("uXray", 1);
    for (const MeshItem& item : scene.meshes) {
      if (!item.mesh || item.mesh->triangles.empty() || !(xray || item.translucent)) continue;
      GpuMesh& g = upload(item);
      // A translucent skin keeps its vertex colours (muscle paint); the x-ray mode shows plain shapes.
      meshProgram_.set("uVertexColors", !xray && g.hasColors ? 1 : 0);
      meshProgram_.set("uXrayBase", xray ? 0.12f : 0.22f);
      meshProgram_.set("uColor", Eigen::Vector4f(item.color.x(), item.color.y(), item.color.z(), 1.0f));
      glBindVertexArray(g.vao);
      glDrawElements(GL_TRIANGLES, g.indexCount, GL_UNSIGNED_INT, nullptr);
      glBindVertexArray(0);
    }
    meshProgram_.set("uVertexColors", 0);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
  }

  // Problem edges, then caller-supplied lines and points.
  lineProgram_.use();
  lineProgram_.set("uViewProjection", viewProj);
  lineProgram_.set("uRoundPoints", 0);
  if (settings.problems) {
    std::vector<Vec3f> v, c;
    for (const MeshItem& item : scene.meshes) {
      if (!item.mesh) continue;
      for (const Edge& e : item.highlightEdges) {
        if (e[0] < 0 || e[1] < 0 || size_t(std::max(e[0], e[1])) >= item.mesh->vertexCount()) continue;
        v.push_back(item.mesh->positions[e[0]].cast<float>());
        v.push_back(item.mesh->positions[e[1]].cast<float>());
        c.push_back({1.0f, 0.55f, 0.1f});
        c.push_back({1.0f, 0.55f, 0.1f});
      }
    }
    glLineWidth(2.0f);
    drawLines(v, c, GL_LINES, 1.0f);
    glLineWidth(1.0f);
  }
  for (const LineItem& l : scene.lines) {
    if (l.onTop) glDisable(GL_DEPTH_TEST);
    glLineWidth(2.0f);
    drawLines(l.vertices, l.colors, GL_LINES, 1.0f);
    glLineWidth(1.0f);
    glEnable(GL_DEPTH_TEST);
  }
  lineProgram_.set("uRoundPoints", 1);
  for (const PointItem& p : scene.points) {
    if (p.onTop) glDisable(GL_DEPTH_TEST);
    lineProgram_.set("uPointSize", p.size);
    drawLines(p.positions, p.colors, GL_POINTS, 1.0f);
    glEnable(GL_DEPTH_TEST);
  }

  if (settings.axes) drawAxisGizmo(camera, width, height);

  // Free buffers of meshes that are gone.
  for (auto it = meshes_.begin(); it != meshes_.end();)
    it = it->second->usedThisFrame ? std::next(it) : meshes_.erase(it);
  glUseProgram(0);
}

}  // namespace sinew::render
