// Must not compile: jit/ sees only the vocabulary (core, plan, kernel), and
// the executor is above it (ctest's layering_is_enforced).
#include "kernel_key.h"
#include "executor.h"
