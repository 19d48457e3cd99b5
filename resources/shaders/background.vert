#version 330 core
// Full-screen triangle for the background gradient.
out float vHeight;
void main() {
  vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2) * 2.0 - 1.0;
  vHeight = p.y * 0.5 + 0.5;
  gl_Position = vec4(p, 0.999, 1.0);
}
