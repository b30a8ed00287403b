// tilekit/memory_ops.hpp — kept for code written against tilekit 0.1's grouping: the memory-bound op
// families, each now in its own header.
#pragma once

#include "tilekit/aos.hpp"
#include "tilekit/experiments.hpp"
#include "tilekit/stencil.hpp"
#include "tilekit/transpose.hpp"
