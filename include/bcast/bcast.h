// The whole public API of bcast.
#pragma once

#include "bcast/broadcast.h"
#include "bcast/config.h"
#include "bcast/dtype.h"
#include "bcast/errors.h"
#include "bcast/expr.h"
#include "bcast/layout.h"
#include "bcast/logging.h"
#include "bcast/npy.h"
#include "bcast/ops.h"
#include "bcast/prepared.h"
#include "bcast/reduce.h"
#include "bcast/runtime.h"
#include "bcast/tensor.h"
#include "bcast/views.h"
