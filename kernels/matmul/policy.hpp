// kernels/matmul/policy.hpp — the GEMM policy of the target being compiled: its configurations, its pick, its
// machine model and its tile-choice text (policy/<target>.hpp). launch.cpp is target-neutral and asks it.
#pragma once

#include <type_traits>

#include "policy/cpu.hpp"
#include "policy/cuda.hpp"
#include "policy/hip.hpp"
#include "tilekit/kernel.hpp"

namespace tk::kernels::matmul_policy {

using ThisTarget = std::conditional_t<tk::this_target == tk::Target::cpu, Cpu,
                                      std::conditional_t<tk::this_target == tk::Target::hip, Hip, Cuda>>;

}  // namespace tk::kernels::matmul_policy
