// A small line-plot writer for the figure tests: series of (x, y) points drawn
// as an SVG with axes, ticks and a legend, so the curves the tests check can be
// looked at in docs/ (scripts/figures.sh writes them there).
#pragma once

#include "TestPaths.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace sinew::test {

struct PlotSeries {
  std::string name;
  std::vector<double> x, y;
  std::string color = "#1f77b4";
  bool dashed = false;
};

struct Plot {
  std::string title, xLabel, yLabel;
  std::vector<PlotSeries> series;
  // Horizontal reference lines (e.g. a target value): (y, label).
  std::vector<std::pair<double, std::string>> hLines;
  bool yFromZero = false;
};

// Where figures go: $SINEW_FIGURES_DIR when set (scripts/figures.sh points it
// at docs/images), else the build tree.
inline std::string figurePath(const std::string& file) {
  const char* dir = std::getenv("SINEW_FIGURES_DIR");
  return std::string(dir && *dir ? dir : SINEW_BINARY_DIR) + "/" + file;
}

namespace detail {
inline double niceStep(double range, int targetTicks) {
  const double raw = range / std::max(1, targetTicks);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw) return m * mag;
  return 10 * mag;
}
inline std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", std::abs(v) < 1e-12 ? 0.0 : v);
  return buf;
}
inline std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}
}  // namespace detail

// Writes the plot; returns false when the file cannot be written.
inline bool writePlotSvg(const Plot& plot, const std::string& path) {
  const double W = 720, H = 420, left = 80, right = 20, top = 40, bottom = 60;
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const PlotSeries& s : plot.series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      x0 = std::min(x0, s.x[i]);
      x1 = std::max(x1, s.x[i]);
      y0 = std::min(y0, s.y[i]);
      y1 = std::max(y1, s.y[i]);
    }
  for (const auto& [y, label] : plot.hLines) {
    y0 = std::min(y0, y);
    y1 = std::max(y1, y);
  }
  if (!(x1 >= x0) || !(y1 >= y0)) return false;
  if (plot.yFromZero) y0 = std::min(y0, 0.0);
  if (x1 - x0 < 1e-300) x1 = x0 + 1;
  if (y1 - y0 < 1e-12 * std::max(1.0, std::abs(y1))) {
    y0 -= 0.5 * std::max(1e-12, std::abs(y0));
    y1 += 0.5 * std::max(1e-12, std::abs(y1));
  }
  const double xs = detail::niceStep(x1 - x0, 8), ys = detail::niceStep(y1 - y0, 6);
  x0 = std::floor(x0 / xs + 1e-9) * xs;
  x1 = std::ceil(x1 / xs - 1e-9) * xs;
  y0 = std::floor(y0 / ys + 1e-9) * ys;
  y1 = std::ceil(y1 / ys - 1e-9) * ys;
  const double pw = W - left - right, ph = H - top - bottom;
  auto px = [&](double x) { return left + (x - x0) / (x1 - x0) * pw; };
  auto py = [&](double y) { return top + (1 - (y - y0) / (y1 - y0)) * ph; };

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<text x=\"" << W / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" << detail::escape(plot.title)
      << "</text>\n";
  for (double x = x0; x <= x1 + 1e-9 * xs; x += xs) {
    svg << "<line x1=\"" << px(x) << "\" y1=\"" << top << "\" x2=\"" << px(x) << "\" y2=\"" << top + ph
        << "\" stroke=\"#e5e5e5\"/>\n<text x=\"" << px(x) << "\" y=\"" << top + ph + 16
        << "\" text-anchor=\"middle\">" << detail::fmt(x) << "</text>\n";
  }
  for (double y = y0; y <= y1 + 1e-9 * ys; y += ys) {
    svg << "<line x1=\"" << left << "\" y1=\"" << py(y) << "\" x2=\"" << left + pw << "\" y2=\"" << py(y)
        << "\" stroke=\"#e5e5e5\"/>\n<text x=\"" << left - 6 << "\" y=\"" << py(y) + 4
        << "\" text-anchor=\"end\">" << detail::fmt(y) << "</text>\n";
  }
  svg << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\"" << ph
      << "\" fill=\"none\" stroke=\"black\"/>\n";
  svg << "<text x=\"" << left + pw / 2 << "\" y=\"" << H - 14 << "\" text-anchor=\"middle\">"
      << detail::escape(plot.xLabel) << "</text>\n";
  svg << "<text transform=\"translate(18," << top + ph / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
      << detail::escape(plot.yLabel) << "</text>\n";
  for (const auto& [y, label] : plot.hLines) {
    svg << "<line x1=\"" << left << "\" y1=\"" << py(y) << "\" x2=\"" << left + pw << "\" y2=\"" << py(y)
        << "\" stroke=\"#888\" stroke-dasharray=\"2,3\"/>\n<text x=\"" << left + pw - 4 << "\" y=\"" << py(y) - 4
        << "\" text-anchor=\"end\" fill=\"#555\">" << detail::escape(label) << "</text>\n";
  }
  double legendY = top + 16;
  for (const PlotSeries& s : plot.series) {
    svg << "<polyline fill=\"none\" stroke=\"" << s.color << "\" stroke-width=\"1.8\""
        << (s.dashed ? " stroke-dasharray=\"6,4\"" : "") << " points=\"";
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) svg << px(s.x[i]) << "," << py(s.y[i]) << " ";
    svg << "\"/>\n";
    svg << "<line x1=\"" << left + 12 << "\" y1=\"" << legendY << "\" x2=\"" << left + 40 << "\" y2=\"" << legendY
        << "\" stroke=\"" << s.color << "\" stroke-width=\"2\"" << (s.dashed ? " stroke-dasharray=\"6,4\"" : "")
        << "/>\n<text x=\"" << left + 46 << "\" y=\"" << legendY + 4 << "\">" << detail::escape(s.name) << "</text>\n";
    legendY += 18;
  }
  svg << "</svg>\n";
  std::ofstream out(path);
  out << svg.str();
  return static_cast<bool>(out);
}

}  // namespace sinew::test
