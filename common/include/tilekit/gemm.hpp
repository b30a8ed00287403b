// tilekit/gemm.hpp — kept for code written against tilekit 0.1: tk::gemm is declared in tilekit/matmul.hpp.
#pragma once

#include "tilekit/matmul.hpp"
