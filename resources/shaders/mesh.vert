#version 330 core
// Surface meshes: positions and normals in world space, lit in view space.
layout(location = 0) in vec3 aPosition;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec3 aColor;   // optional per-vertex colour (uVertexColors)
uniform mat4 uView;
uniform mat4 uProjection;
out vec3 vNormalView;
out vec3 vPositionView;
out vec3 vColor;
void main() {
  vColor = aColor;
  vec4 p = uView * vec4(aPosition, 1.0);
  vPositionView = p.xyz;
  vNormalView = mat3(uView) * aNormal;
  gl_Position = uProjection * p;
}
