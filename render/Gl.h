// OpenGL 3.3 core entry points. Mesa's libGL exports every core function, so
// no loader is needed; the context is created by the host (Qt or EGL).
#pragma once

#ifndef GL_GLEXT_PROTOTYPES
#define GL_GLEXT_PROTOTYPES 1
#endif
#include <GL/gl.h>
#include <GL/glext.h>
