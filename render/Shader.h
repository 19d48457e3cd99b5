// A linked GLSL program built from embedded sources (resources/shaders).
#pragma once

#include "Gl.h"

#include <Eigen/Core>

#include <string>

namespace sinew::render {

// Source of an embedded shader file, e.g. "mesh.vert" (throws if unknown).
const std::string& shaderSource(const std::string& name);

class ShaderProgram {
 public:
  ShaderProgram() = default;
  ShaderProgram(const ShaderProgram&) = delete;
  ShaderProgram& operator=(const ShaderProgram&) = delete;
  ~ShaderProgram();

  // Compiles and links; on failure returns false and sets *error to the GL log.
  bool build(const std::string& vertexName, const std::string& fragmentName, std::string* error);
  void destroy();
  void use() const { glUseProgram(program_); }
  GLint uniform(const char* name) const { return glGetUniformLocation(program_, name); }
  void set(const char* name, const Eigen::Matrix4f& m) const;
  void set(const char* name, const Eigen::Vector3f& v) const;
  void set(const char* name, const Eigen::Vector4f& v) const;
  void set(const char* name, float v) const;
  void set(const char* name, int v) const;

 private:
  GLuint program_ = 0;
};

}  // namespace sinew::render
