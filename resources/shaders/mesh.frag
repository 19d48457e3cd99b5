#version 330 core
// Headlight Blinn-Phong with a sky/ground hemisphere ambient. In x-ray mode
// the alpha grows towards silhouettes so the outline stays readable.
in vec3 vNormalView;
in vec3 vPositionView;
in vec3 vColor;
uniform vec4 uColor;
uniform int uVertexColors;  // 1: per-vertex colours instead of uColor.rgb
uniform vec3 uUpView;     // world +y in view space
uniform int uLit;         // 0: flat colour (highlights)
uniform int uXray;
uniform float uXrayBase;  // alpha facing the eye (a translucent skin is a little more opaque than x-ray mode)
out vec4 fragColor;
void main() {
  if (uLit == 0) { fragColor = uColor; return; }
  vec3 n = normalize(vNormalView);
  vec3 v = normalize(-vPositionView);
  if (!gl_FrontFacing) n = -n;
  float diffuse = max(dot(n, v), 0.0);
  vec3 h = normalize(v + vec3(0.3, 0.6, 0.0));
  float specular = pow(max(dot(n, h), 0.0), 48.0) * 0.25;
  float hemi = 0.5 + 0.5 * dot(n, uUpView);
  vec3 ambient = mix(vec3(0.20, 0.18, 0.17), vec3(0.42, 0.45, 0.52), hemi);
  vec3 base = uVertexColors != 0 ? vColor : uColor.rgb;
  vec3 c = base * (ambient + 0.70 * diffuse) + vec3(specular);
  if (!gl_FrontFacing) c *= 0.55;
  float alpha = uColor.a;
  // edge * edge, not pow(): pow of a rounding-negative base is undefined (NaN
  // alpha, garbage colours where a surface faces the eye).
  float edge = 1.0 - min(abs(dot(n, v)), 1.0);
  if (uXray != 0) alpha = clamp(uXrayBase + 0.8 * edge * edge, 0.0, 1.0);
  fragColor = vec4(c, alpha);
}
