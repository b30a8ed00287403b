// kernels/matmul/policy/hip.hpp — the HIP GEMM policy: warp_tiled's configurations for 64-lane wavefronts
// (CDNA; not measured on AMD hardware: chosen to compile without spills, tools/amdgpu-resources), one per
// precision, and the generic machine model of the wave plan. To add a configuration: an entry below, its name
// in the list, a rule in pick, and its row in the pick test (tests/test_gpu_shapes.cpp); the rule is described
// in docs/design.md#what-best-runs.
#pragma once

#include "gpu.hpp"

namespace tk::kernels::matmul_configs {

using namespace tk::kernels::matmul_config;

// float: rolled, strips of 8 (with 16 the compiler hoists a whole strip's shared loads and spills).
struct hip_f32 {
  static constexpr const char* name = "hip_f32";
  static constexpr GemmConfig config =
      matmul_config::config(Block{128, 128, 8}, Warp{64, 64, 2}, Thread{8, 4}, Lanes{64}, rolled);
};
// double: 16 outputs per lane (with 32, gfx1030 spilled 68-106 VGPRs: the compiler hoists a strip's fragments,
// 8 k x 12 doubles).
struct hip_f64 {
  static constexpr const char* name = "hip_f64";
  static constexpr GemmConfig config =
      matmul_config::config(Block{64, 64, 8}, Warp{32, 32, 2}, Thread{4, 2}, Lanes{64}, rolled);
};

}  // namespace tk::kernels::matmul_configs

namespace tk::kernels::matmul_policy {

struct Hip : Gpu<Hip> {
  template <class T>
  using configs = std::conditional_t<sizeof(T) == 4, matmul_config::List<matmul_configs::hip_f32>,
                                     matmul_config::List<matmul_configs::hip_f64>>;

  template <class T>
  static const char* pick(const Device&, const GemmArgs<T>&) {
    if constexpr (sizeof(T) == 4) return matmul_configs::hip_f32::name;
    else return matmul_configs::hip_f64::name;
  }

  // DGEMM's `best` on the portable matrix-unit kernel (mma_tiled.hpp, MFMA f64 16x16x4 on a wave64): on the CPU
  // executor only (this copy's tests, every product with K > 0). An AMD GPU keeps hip_f64 until the kernel has run
  // on one: its CDNA FP64 fragment table has not (the emulation uses the same table, so it cannot prove it).
  static bool f64_on_units(const Device& dev, const tk::detail::GemmArgs<double>& a) {
    return a.K > 0 && dev.backend() == Backend::cpu;
  }

  // Unmeasured on AMD: 128 FMA lanes per CU for float and 2 for double, the model of a GPU without a
  // measured one (CDNA's FP64 rate is higher: a model for it waits for a measurement).
  static matmul_waves::Machine machine(const Device& dev, int bytes, int per_sm, bool) {
    return machine_of(dev, per_sm, bytes == 8 ? 2 : 128);
  }
};

}  // namespace tk::kernels::matmul_policy
