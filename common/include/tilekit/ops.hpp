// tilekit/ops.hpp — kept for code written against tilekit 0.1: the elementwise ops are in tilekit/elementwise.hpp.
#pragma once

#include "tilekit/elementwise.hpp"
