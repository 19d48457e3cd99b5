#version 330 core
in vec3 vColor;
uniform float uAlpha;
uniform int uRoundPoints;
out vec4 fragColor;
void main() {
  if (uRoundPoints != 0) {
    vec2 d = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(d, d);
    if (r2 > 1.0) discard;
    // A little shading makes the dots read as spheres.
    fragColor = vec4(vColor * (1.0 - 0.35 * r2), uAlpha);
    return;
  }
  fragColor = vec4(vColor, uAlpha);
}
