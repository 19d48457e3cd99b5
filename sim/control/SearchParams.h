// The controller search's tunables, declared once as the solvers' are
// (solver/Solvers.h): name, unit, default (read from SamconOptions and
// OptimizeSpec), range, count or not, help. `sinew-cli optimize` registers
// its flags from this table and the Control dock its editors; checking a
// value happens in checkSearchParams and nowhere else.
#pragma once

#include "control/Optimize.h"
#include "solver/Solvers.h"

#include <string>
#include <vector>

namespace sinew::control {

const std::vector<ParamSpec>& searchParams();

// A spec's value of a parameter of the table, and setting it (unchecked).
double searchParam(const OptimizeSpec& spec, const std::string& name);
void setSearchParam(OptimizeSpec& spec, const std::string& name, double value);

// Every parameter of the table in `spec` checked (NaN, range, whole counts);
// throws InputError("--NAME", ...).
void checkSearchParams(const OptimizeSpec& spec);

}  // namespace sinew::control
