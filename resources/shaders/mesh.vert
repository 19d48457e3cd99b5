#version 330 core
// Surface meshes: positions and normals in world space, lit in view space.
layout(location = 0) in vec3 aPosition;
layout(location = 1) in vec3 aNormal;
uniform mat4 uView;
uniform mat4 uProjection;
out vec3 vNormalView;
out vec3 vPositionView;
void main() {
  vec4 p = uView * vec4(aPosition, 1.0);
  vPositionView = p.xyz;
  vNormalView = mat3(uView) * aNormal;
  gl_Position = uProjection * p;
}
