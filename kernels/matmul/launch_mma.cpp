// kernels/matmul/launch_mma.cpp — the launchers of the matrix units' GEMM (mma_tiled.hpp), compiled once per
// target: TF32 float GEMM and the 16-bit inputs' GEMM (tilekit/matmul.hpp states what each call runs).
//
// Where it runs: `best` on an NVIDIA sm_90 GPU, for TF32, BF16 and FP16, is the warpgroup kernel
// (warpgroup_tiled.hpp: wgmma, when the build has sm_90a code: cmake/TkKernelSources.cmake); otherwise
// `best` and `warp_tiled` on a device with matrix units (NVIDIA sm_80 and later, AMD
// gfx90a/gfx94x); `warp_tiled` on a CPU as well, in the executor's exact emulation of the GPU's fragments
// (tilekit/mma.hpp), and any variant when there is nothing to multiply (K == 0: C = beta * C). A CPU's BF16
// `register_tiled`, and its `best` where the CPU's BF16 peak is above its FP32 peak, run the pair-dot kernel
// (pair_dot.hpp: AVX512_BF16); a CPU's BF16 `smem_dynamic`, and its `best` where the CPU has AMX-BF16 that the
// process may use, run the tile kernel (tile_dot.hpp), which takes precedence. Otherwise a
// 16-bit GEMM converts its operands to float in a workspace, one matrix at a time, and runs this target's
// float launcher; a TF32 one is computed exactly by the float launcher. The kernels on the matrix units are
// launched in launch_mma_units.cpp.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "convert.hpp"
#include "launch_mma.hpp"
#include "pair_dot.hpp"
#include "policy/cuda.hpp"
#include "tile_dot.hpp"
#include "tilekit/detail/launchers_matmul.hpp"
#include "tilekit/detail/memory.hpp"
#include "tilekit/kernel.hpp"
#include "tilekit/mma.hpp"

namespace tk::launchers::TK_TARGET_ID {
namespace {

using std::int64_t;
using tk::detail::GemmArgs;

// The device runs the MMA kernel for `best`: its matrix units, or on a CPU the emulation when this is a GPU
// target's copy for the CPU executor (the tests of the GPU shapes); never the CPU's own `best`.
bool native(const Device& dev) {
  if (dev.backend() == Backend::cpu) return tk::this_target != tk::Target::cpu;
  const std::string& arch = dev.props().arch;
  if (dev.backend() == Backend::cuda) return arch.rfind("sm_", 0) == 0 && std::atoi(arch.c_str() + 3) >= 80;
  if (dev.backend() == Backend::hip) return arch.rfind("gfx90a", 0) == 0 || arch.rfind("gfx94", 0) == 0;
  return false;
}

bool on_matrix_units(const Device& dev, MatmulVariant v) {
  const bool mma_variant = v == MatmulVariant::best || v == MatmulVariant::warp_tiled;
  return (mma_variant && native(dev)) || (dev.backend() == Backend::cpu && v == MatmulVariant::warp_tiled);
}

// This copy holds the warpgroup kernel where the layer says the build has it (tk::mma::warpgroup_in_build).
constexpr bool warpgroup_built = tk::mma::warpgroup_in_build;

// `best` runs the warpgroup kernel (TF32, BF16, FP16) where it is built and the device runs it: an sm_90 GPU, or the
// CPU executor for the CUDA shapes' copy; but not a batch of small matrices (policy/cuda.hpp, warpgroup_batch).
// `warp_tiled` runs the warp-level kernel.
template <class S, class In, class Out>
bool warpgroup(const Device& dev, MatmulVariant v, const GemmArgs<S, In, Out>& a) {
  if (!warpgroup_built || v != MatmulVariant::best) return false;
  if (!tk::kernels::matmul_policy::Cuda::warpgroup_batch(a.M, a.N, a.batch)) return false;
  if (dev.backend() == Backend::cpu) return true;
  return dev.backend() == Backend::cuda && dev.props().arch == "sm_90";
}

// The 16-bit GEMM through this target's float launcher: A and B (and a 16-bit C that is read) converted to
// float in a workspace, one matrix of the batch at a time, the float variant run, a 16-bit C converted back.
template <class In, class Out>
void run_converted(const Device& dev, MatmulVariant variant, const GemmArgs<float, In, Out>& a) {
  constexpr bool c16 = !std::is_same_v<Out, float>;
  const int64_t ar = a.ta ? a.K : a.M, ac = a.ta ? a.M : a.K, br = a.tb ? a.N : a.K, bc = a.tb ? a.K : a.N;
  const tk::detail::Workspace scratch(
      dev, sizeof(float) * static_cast<std::size_t>(ar * ac + br * bc + (c16 ? a.M * a.N : 0)));
  float* const fa = static_cast<float*>(scratch.get());
  float* const fb = fa + ar * ac;
  float* const fc = fb + br * bc;
  for (int64_t z = 0; z < a.batch; ++z) {
    convert(dev, ar, ac, a.A + z * a.sa, a.lda, fa, ac);
    convert(dev, br, bc, a.B + z * a.sb, a.ldb, fb, bc);
    Out* const cz = a.C + z * a.sc;
    GemmArgs<float> f;
    f.M = a.M;
    f.N = a.N;
    f.K = a.K;
    f.alpha = a.alpha;
    f.A = fa;
    f.lda = ac;
    f.ta = a.ta;
    f.B = fb;
    f.ldb = bc;
    f.tb = a.tb;
    f.beta = a.beta;
    if constexpr (c16) {
      if (a.beta != 0.f) convert(dev, a.M, a.N, cz, a.ldc, fc, a.N);
      f.C = fc;
      f.ldc = a.N;
    } else {
      f.C = cz;
      f.ldc = a.ldc;
    }
    gemm(dev, variant, f, nullptr);
    if constexpr (c16) convert(dev, a.M, a.N, static_cast<const float*>(fc), a.N, cz, a.ldc);
  }
}

// The CPU's BF16 kernel on its pair dot product (pair_dot.hpp): 192 x 256 blocks of 4 x 32 threads, each 6 x 64 of C in
// 24 vectors, strips of 128 pairs (256 values of k): 424 KiB of strips (B's lines padded) and C tile, in a core's L2
// (1 MiB on Zen 4, 2 MiB on Intel's server cores). On host C (Zen 4, 2048^3, 2 threads) 192 rows measured 1-6% above 96
// (whose strip of B is interleaved for half as many rows) and 7% above 288; 512 columns or 64-pair strips within 3%
// (docs/results/zen4-2026-11-29-bf16-pair-dot.txt).
using PairTiling = tk::kernels::PairDotTiling<192, 256, 128, 6, 4>;

// Where the CPU's BF16 GEMM runs the pair-dot kernel: `register_tiled` where this copy and the CPU have the
// instruction, and in checked mode (its lane-by-lane form, on any CPU: the kernel's strips and phases checked);
// `best` where the instruction pays (tk::mma::pair_dot_pays) and C has more than `pair_dot_min_columns` columns.
// Elsewhere, and on a GPU (its tensor cores), the converted path.
// pair_dot_min_columns: C of 8 or fewer columns converts and runs the float GEMM's matrix-vector kernel, which
// reads A once, where the pair kernel copies a strip of A for each 192 rows and multiplies 64 columns per thread.
// Measured on host C (Zen 4, 2 threads, 2048-4096 the long sides), as times tilekit's SGEMM: 1 and 4 columns,
// the pair kernel 0.39-0.61, converted 0.53-0.73; 8 columns the pair kernel 1.0; 12 and 16 columns 1.9. Few rows
// are the pair kernel's (B's strips copied once a block column): 1 and 8 rows 0.78-1.0 against converted 0.36-0.65
// (docs/results/zen4-2026-11-29-bf16-pair-dot.txt).
constexpr int64_t pair_dot_min_columns = 8;
template <class Out>
bool pair_dot_kernel(const Device& dev, MatmulVariant v, const GemmArgs<float, bf16, Out>& a) {
  if (tk::this_target != tk::Target::cpu || dev.backend() != Backend::cpu) return false;
  const DeviceProps& p = dev.props();
  const bool instruction = tk::mma::pair_dot_native && p.peak_bf16_gflops > 0;
  if (v == MatmulVariant::register_tiled) return instruction || tk::mma::pair_dot_checked;
  return v == MatmulVariant::best && instruction && tk::mma::pair_dot_pays(p.peak_bf16_gflops, p.peak_fp32_gflops) &&
         a.N > pair_dot_min_columns;
}

template <class Out>
void run_pair_dot(const Device& dev, const GemmArgs<float, bf16, Out>& a) {
  if constexpr (tk::this_target == tk::Target::cpu) {
    using Tl = PairTiling;
    const int64_t tiles = ((a.M + Tl::bm - 1) / Tl::bm) * ((a.N + Tl::bn - 1) / Tl::bn);
    if (tiles > 0x7fffffff) tk::detail::fail("tk::gemm: ", a.M, " x ", a.N, " needs more than 2^31 - 1 tiles");
    const auto go = [&](auto kernel) {
      for (int64_t first = 0; first < a.batch; first += 65535) {
        const int gy = static_cast<int>(std::min<int64_t>(65535, a.batch - first));
        tk::launch(dev, {"matmul_pair_dot", {static_cast<int>(tiles), gy, 1}, {Tl::tx, Tl::ty, 1}, 0}, kernel, a.M, a.N,
                   a.K, a.alpha, a.A + first * a.sa, a.lda, a.sa, a.B + first * a.sb, a.ldb, a.sb, a.beta,
                   a.C + first * a.sc, a.ldc, a.sc);
      }
    };
    using tk::kernels::matmul_pair_dot;
    if (a.ta) {
      if (a.tb) return go(&matmul_pair_dot<Tl, true, true, Out>);
      return go(&matmul_pair_dot<Tl, true, false, Out>);
    }
    if (a.tb) return go(&matmul_pair_dot<Tl, false, true, Out>);
    go(&matmul_pair_dot<Tl, false, false, Out>);
  } else {
    (void)dev, (void)a;
  }
}

// The CPU's BF16 kernel on its tile matrix unit (tile_dot.hpp: AMX-BF16): 256 x 256 blocks of 8 x 8 threads, each 32 x
// 32 of C, strips of 128 pairs (256 values of k): 128 KiB of A's strip, 136 of B's and 272 of C, in a core's L2 (2 MiB
// on the Intel server cores that have AMX).
using TileDotTiling = tk::kernels::TileDotTiling<256, 256, 128>;

// Where the CPU's BF16 GEMM runs the tile kernel: `smem_dynamic` where this copy has the instruction and the process
// may use it (DeviceProps::peak_amx_bf16_gflops), and in checked mode (its element-by-element form, on any CPU:
// the kernel's strips and phases checked); `best` where the instruction is usable and C has more than
// `tile_dot_min_columns` columns (fewer: the float GEMM's matrix-vector kernel on converted copies, as for the pair
// kernel). Elsewhere the other paths.
constexpr int64_t tile_dot_min_columns = 8;
template <class Out>
bool tile_dot_kernel(const Device& dev, MatmulVariant v, const GemmArgs<float, bf16, Out>& a) {
  if (tk::this_target != tk::Target::cpu || dev.backend() != Backend::cpu) return false;
  const bool instruction = tk::mma::tile_dot_native && dev.props().peak_amx_bf16_gflops > 0;
  if (v == MatmulVariant::smem_dynamic) return instruction || tk::mma::tile_dot_checked;
  return v == MatmulVariant::best && instruction && a.N > tile_dot_min_columns;
}

template <class Out>
void run_tile_dot(const Device& dev, const GemmArgs<float, bf16, Out>& a) {
  if constexpr (tk::this_target == tk::Target::cpu) {
    using Tl = TileDotTiling;
    // TT runs as C^T = B A (B's rows along k: a row copy; A's rows along m: a two-row interleave; no 16 x 16
    // gathers), the block's C tile stored transposed
    const bool swap = a.ta && a.tb;
    const int64_t M = swap ? a.N : a.M, N = swap ? a.M : a.N;
    const int64_t tiles = ((M + Tl::bm - 1) / Tl::bm) * ((N + Tl::bn - 1) / Tl::bn);
    if (tiles > 0x7fffffff) tk::detail::fail("tk::gemm: ", a.M, " x ", a.N, " needs more than 2^31 - 1 tiles");
    const auto go = [&](auto kernel) {
      for (int64_t first = 0; first < a.batch; first += 65535) {
        const int gy = static_cast<int>(std::min<int64_t>(65535, a.batch - first));
        const bf16 *A = a.A + first * a.sa, *B = a.B + first * a.sb;
        tk::launch(dev, {"matmul_tile_dot", {static_cast<int>(tiles), gy, 1}, {Tl::tx, Tl::ty, 1}, 0}, kernel, M, N,
                   a.K, a.alpha, swap ? B : A, swap ? a.ldb : a.lda, swap ? a.sb : a.sa, swap ? A : B,
                   swap ? a.lda : a.ldb, swap ? a.sa : a.sb, a.beta, a.C + first * a.sc, a.ldc, a.sc);
      }
    };
    using tk::kernels::matmul_tile_dot;
    if (swap) return go(&matmul_tile_dot<Tl, false, false, true, Out>);
    if (a.ta) return go(&matmul_tile_dot<Tl, true, false, false, Out>);
    if (a.tb) return go(&matmul_tile_dot<Tl, false, true, false, Out>);
    go(&matmul_tile_dot<Tl, false, false, false, Out>);
  } else {
    (void)dev, (void)a;
  }
}

template <class In, class Out>
void gemm16(const Device& dev, MatmulVariant variant, const GemmArgs<float, In, Out>& a) {
  if constexpr (std::is_same_v<In, bf16>) {
    if (a.K > 0 && tile_dot_kernel(dev, variant, a)) return run_tile_dot(dev, a);
    if (a.K > 0 && pair_dot_kernel(dev, variant, a)) return run_pair_dot(dev, a);
  }
  if (a.K > 0 && warpgroup(dev, variant, a)) return gemm_on_units(dev, true, a);
  if (a.K == 0 || on_matrix_units(dev, variant)) return gemm_on_units(dev, false, a);
  run_converted(dev, variant, a);
}

}  // namespace

bool gemm_tf32(const Device& dev, MatmulVariant variant, const GemmArgs<float>& a) {
  if (!on_matrix_units(dev, variant)) return false;
  gemm_on_units(dev, a.K > 0 && warpgroup(dev, variant, a), a);
  return true;
}

void gemm(const Device& dev, MatmulVariant variant, const GemmArgs<float, bf16, float>& a) { gemm16(dev, variant, a); }
void gemm(const Device& dev, MatmulVariant variant, const GemmArgs<float, bf16, bf16>& a) { gemm16(dev, variant, a); }
void gemm(const Device& dev, MatmulVariant variant, const GemmArgs<float, f16, float>& a) { gemm16(dev, variant, a); }
void gemm(const Device& dev, MatmulVariant variant, const GemmArgs<float, f16, f16>& a) { gemm16(dev, variant, a); }

}  // namespace tk::launchers::TK_TARGET_ID
