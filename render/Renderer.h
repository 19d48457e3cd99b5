// The viewport renderer: OpenGL 3.3 core, no window-system code. The host
// (Qt's QOpenGLWidget, or an EGL context in tests and benchmarks) makes a
// context current and calls initialize() once, render() per frame, and
// release() before the context goes away.
//
// sim/ describes what to draw as a FrameScene of plain items; the renderer
// decides how (and caches GPU buffers per mesh key and revision).
#pragma once

#include "Camera.h"
#include "Gl.h"
#include "Shader.h"
#include "geometry/MeshValidation.h"

#include <Eigen/Core>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace sinew::render {

using Vec3f = Eigen::Vector3f;

enum class DisplayMode { Shaded, Wireframe, XRay };
const char* displayModeName(DisplayMode m);

struct ViewSettings {
  DisplayMode mode = DisplayMode::Shaded;
  bool grid = true;
  bool axes = true;       // axis gizmo in the corner
  bool skeleton = true;   // joints and bones
  bool problems = true;   // highlight validation findings
  bool pills = true;      // VIPER rods as pills (rod bodies' skins then drawn translucent)
  bool follow = true;     // the camera follows a simulated character across the ground
};

struct MeshItem {
  uint64_t key = 0;        // stable identity (the object id)
  uint64_t revision = 0;   // changes whenever the geometry changes
  const TriMesh* mesh = nullptr;
  Vec3f color{0.8f, 0.8f, 0.8f};
  bool selected = false;
  std::vector<int32_t> highlightFaces;  // drawn in red (problem faces)
  std::vector<Edge> highlightEdges;     // drawn as orange lines (open / non-manifold edges)
  // Optional per-vertex colours (nVertices; heat maps, regions) replacing
  // `color`; re-uploaded when colorRevision changes.
  const std::vector<Vec3f>* vertexColors = nullptr;
  uint64_t colorRevision = 0;
  bool doubleSided = true;  // back faces drawn darker (false: culled)
  // Blended like the x-ray mode even when shaded: a skin over what lies
  // inside it (rods in a muscle) that must stay visible through it.
  bool translucent = false;
};

// Line segments (vertex pairs) with per-vertex colours.
struct LineItem {
  std::vector<Vec3f> vertices;
  std::vector<Vec3f> colors;
  bool onTop = false;  // drawn without depth test
  void add(const Vec3f& a, const Vec3f& b, const Vec3f& color) {
    vertices.push_back(a);
    vertices.push_back(b);
    colors.push_back(color);
    colors.push_back(color);
  }
};

// Round points of one size.
struct PointItem {
  std::vector<Vec3f> positions;
  std::vector<Vec3f> colors;
  float size = 8.0f;  // pixels
  bool onTop = false;
};

struct FrameScene {
  std::vector<MeshItem> meshes;
  std::vector<LineItem> lines;
  std::vector<PointItem> points;
  double gridCell = 0.25;  // metres
  int gridCells = 20;      // per side
};

struct RenderStats {
  size_t trianglesDrawn = 0;
  size_t meshUploads = 0;   // mesh buffers (re)uploaded this frame
};

// Pixel positions (origin top-left) of the axis gizmo's centre and of the
// tips of its X, Y and Z axes, for labels.
struct AxisGizmo {
  Eigen::Vector2f centre;
  Eigen::Vector2f tips[3];
  float depth[3];  // view-space z of each tip (for drawing order)
};
AxisGizmo axisGizmo(const Camera& camera, int width, int height);

class Renderer {
 public:
  Renderer();
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  bool initialize(std::string* error);
  void release();
  bool initialized() const { return initialized_; }
  std::string glVersion() const;  // "4.5 (Core Profile) Mesa ..., llvmpipe"

  void render(const FrameScene& scene, const Camera& camera, const ViewSettings& settings, int width, int height,
              GLuint framebuffer);
  const RenderStats& stats() const { return stats_; }

 private:
  struct GpuMesh;
  GpuMesh& upload(const MeshItem& item);
  void drawLines(const std::vector<Vec3f>& v, const std::vector<Vec3f>& c, GLenum mode, float alpha);
  void drawGrid(const FrameScene& scene, const Eigen::Matrix4f& viewProj);
  void drawAxisGizmo(const Camera& camera, int width, int height);

  bool initialized_ = false;
  ShaderProgram meshProgram_, lineProgram_;
  GLuint streamVao_ = 0, streamVbo_ = 0;  // lines and points, refilled per draw
  std::unordered_map<uint64_t, std::unique_ptr<GpuMesh>> meshes_;
  RenderStats stats_;
};

}  // namespace sinew::render
