// tilekit/tilekit.hpp — the host API: devices, buffers, events and the operations.
// Kernels of your own include tilekit/kernel.hpp instead (see README, "Writing a kernel").
#pragma once

#include "tilekit/buffer.hpp"
#include "tilekit/device.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel_info.hpp"
// the op families
#include "tilekit/aos.hpp"
#include "tilekit/elementwise.hpp"
#include "tilekit/experiments.hpp"
#include "tilekit/matmul.hpp"
#include "tilekit/stencil.hpp"
#include "tilekit/transpose.hpp"
#include "tilekit/version.hpp"
