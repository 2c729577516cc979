// Compiles: the vocabulary that jit/ may include (the control of
// ctest's layering_is_enforced).
#include "kernel_key.h"
#include "variant.h"
