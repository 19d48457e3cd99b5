// Biovision Hierarchy (.bvh) motion clips: reader and writer.
//
// Reads the HIERARCHY (ROOT/JOINT/End Site, OFFSET, CHANNELS) and MOTION
// (Frames, Frame Time, values) sections as written by the CMU conversions and
// by common tools. Errors name the file and line.
#pragma once

#include "model/MotionClip.h"

#include <string>

namespace sinew {

// Parses BVH text; `fileName` is used in error messages only. Units are
// detected from the rest pose height (see detectHumanUnits) unless
// `unitScale` > 0 is given (metres per file unit).
MotionClip parseBvh(const std::string& text, const std::string& fileName, double unitScale = 0.0);
MotionClip readBvh(const std::string& path, double unitScale = 0.0);

// Writes the clip in BVH with values printed exactly (shortest round-trip).
std::string formatBvh(const MotionClip& clip);
void writeBvh(const MotionClip& clip, const std::string& path);

}  // namespace sinew
