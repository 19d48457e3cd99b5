// libFuzzer's entry point for one target, chosen at build time
// (SINEW_FUZZ_TARGET = its index in kTargets). Built by scripts/fuzz.sh only.
#include "FuzzTargets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)sinew::fuzz::kTargets[SINEW_FUZZ_TARGET].run(data, size);
  return 0;
}
