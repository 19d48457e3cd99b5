#include "Shader.h"

#include <map>
#include <stdexcept>

namespace sinew::render {

// Generated at build time from resources/shaders/* (see render/CMakeLists.txt).
const std::map<std::string, std::string>& embeddedShaders();

const std::string& shaderSource(const std::string& name) {
  const auto& all = embeddedShaders();
  const auto it = all.find(name);
  if (it == all.end()) throw std::runtime_error("unknown shader '" + name + "'");
  return it->second;
}

namespace {
GLuint compile(GLenum type, const std::string& name, std::string* error) {
  const std::string& src = shaderSource(name);
  const GLuint s = glCreateShader(type);
  const char* p = src.c_str();
  glShaderSource(s, 1, &p, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[4096];
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    if (error) *error = name + ": " + log;
    glDeleteShader(s);
    return 0;
  }
  return s;
}
}  // namespace

ShaderProgram::~ShaderProgram() { destroy(); }

void ShaderProgram::destroy() {
  if (program_) glDeleteProgram(program_);
  program_ = 0;
}

bool ShaderProgram::build(const std::string& vertexName, const std::string& fragmentName, std::string* error) {
  destroy();
  const GLuint vs = compile(GL_VERTEX_SHADER, vertexName, error);
  if (!vs) return false;
  const GLuint fs = compile(GL_FRAGMENT_SHADER, fragmentName, error);
  if (!fs) {
    glDeleteShader(vs);
    return false;
  }
  program_ = glCreateProgram();
  glAttachShader(program_, vs);
  glAttachShader(program_, fs);
  glLinkProgram(program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[4096];
    glGetProgramInfoLog(program_, sizeof log, nullptr, log);
    if (error) *error = vertexName + "+" + fragmentName + ": " + log;
    destroy();
    return false;
  }
  return true;
}

void ShaderProgram::set(const char* name, const Eigen::Matrix4f& m) const {
  glUniformMatrix4fv(uniform(name), 1, GL_FALSE, m.data());
}
void ShaderProgram::set(const char* name, const Eigen::Vector3f& v) const { glUniform3fv(uniform(name), 1, v.data()); }
void ShaderProgram::set(const char* name, const Eigen::Vector4f& v) const { glUniform4fv(uniform(name), 1, v.data()); }
void ShaderProgram::set(const char* name, float v) const { glUniform1f(uniform(name), v); }
void ShaderProgram::set(const char* name, int v) const { glUniform1i(uniform(name), v); }

}  // namespace sinew::render
