// kernels/matmul/launch_mma.cpp — the launchers of the matrix units' GEMM (mma_tiled.hpp), compiled once per
// target: TF32 float GEMM and the 16-bit inputs' GEMM (tilekit/matmul.hpp states what each call runs).
//
// Where it runs: `best` on an NVIDIA sm_90 GPU, for BF16 and FP16, is the warpgroup kernel
// (warpgroup_tiled.hpp: wgmma, when the build has sm_90a code: cmake/TkKernelSources.cmake); otherwise
// `best` and `warp_tiled` on a device with matrix units (NVIDIA sm_80 and later, AMD
// gfx90a/gfx94x); `warp_tiled` on a CPU as well, in the executor's exact emulation of the GPU's fragments
// (tilekit/mma.hpp), and any variant when there is nothing to multiply (K == 0: C = beta * C). Otherwise a
// 16-bit GEMM converts its operands to float in a workspace, one matrix at a time, and runs this target's
// float launcher; a TF32 one is computed exactly by the float launcher.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "convert.hpp"
#include "launch_mma.hpp"
#include "mma_tiled.hpp"
#include "warpgroup_tiled.hpp"
#include "tilekit/detail/launchers_matmul.hpp"
#include "tilekit/detail/memory.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel.hpp"

namespace tk::launchers::TK_TARGET_ID {
namespace {

using std::int64_t;
using tk::detail::GemmArgs;
using tk::mma::Precision;

// The warp-level kernel's tiling, one per precision: 128 x 128 block tiles of 64 x 64 warp tiles (4 warps of 32 lanes on NVIDIA,
// 4 waves of 64 on CDNA), strips 64 bytes deep (16 floats or 32 16-bit values), 4 of them in flight (74 KiB of
// shared memory; 2 on HIP, whose CDNA blocks have 64 KiB).
template <Precision P>
using Tiling = tk::kernels::MmaTiling<P, 128, 128, P == Precision::tf32 ? 16 : 32, 64, 64,
                                      tk::this_target == tk::Target::hip ? 2 : 4>;

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

// The warpgroup kernel's tiling: 128 x 256 tiles (two warpgroups of 64 x 256), strips of 64 values, 4 in flight
// (193 KiB of shared memory, one block per SM).
template <Precision P>
using WgTiling = tk::kernels::WarpgroupTiling<P, 128, 256, 4>;

// This copy holds the warpgroup kernel where the layer says the build has it (tk::mma::warpgroup_in_build).
constexpr bool warpgroup_built = tk::mma::warpgroup_in_build;

// `best` runs the warpgroup kernel (BF16, FP16) where it is built and the device runs it: an sm_90 GPU, or the
// CPU executor for the CUDA shapes' copy; `warp_tiled` runs the warp-level kernel.
bool warpgroup(const Device& dev, MatmulVariant v) {
  if (!warpgroup_built || v != MatmulVariant::best) return false;
  if (dev.backend() == Backend::cpu) return true;
  return dev.backend() == Backend::cuda && dev.props().arch == "sm_90";
}

// Every line (and, in a batch, every matrix) of X starts on 16 bytes.
template <class In>
bool lines16(const In* X, int64_t ld, int64_t stride, int64_t batch) {
  constexpr int64_t v = 16 / sizeof(In);
  return reinterpret_cast<std::uintptr_t>(X) % 16 == 0 && ld % v == 0 && (batch == 1 || stride % v == 0);
}

template <Precision P, class In, class Out>
void run_mma(const Device& dev, const GemmArgs<float, In, Out>& a) {
  using Tl = Tiling<P>;
  static_assert(std::is_same_v<typename Tl::In, In>, "the precision's input type");
  const int64_t tiles = ((a.M + Tl::bm - 1) / Tl::bm) * ((a.N + Tl::bn - 1) / Tl::bn);
  if (tiles > 0x7fffffff) tk::detail::fail("tk::gemm: ", a.M, " x ", a.N, " needs more than 2^31 - 1 tiles");
  const auto go = [&](auto kernel, std::size_t shared) {
    for (int64_t first = 0; first < a.batch; first += 65535) {
      const int gy = static_cast<int>(std::min<int64_t>(65535, a.batch - first));
      tk::launch(dev, {"matmul_mma_tiled", {static_cast<int>(tiles), gy, 1}, {Tl::threads, 1, 1}, shared}, kernel, a.M,
                 a.N, a.K, a.alpha, a.A + first * a.sa, a.lda, a.sa, a.B + first * a.sb, a.ldb, a.sb, a.beta,
                 a.C + first * a.sc, a.ldc, a.sc);
    }
  };
  const auto storage = [&](auto aligned) {
    constexpr bool AL = decltype(aligned)::value;
    using tk::kernels::matmul_mma_tiled;
    // K == 0 (C = beta C) touches no strip: on a GPU no shared memory, so that it runs on any GPU (a CPU's
    // arena has room, and its strips' addresses stay those of an allocation)
    const auto bytes = [&](std::size_t b) { return a.K == 0 && dev.backend() != Backend::cpu ? std::size_t{0} : b; };
    if (a.ta) {
      if (a.tb) return go(&matmul_mma_tiled<Tl, Out, AL, true, true>, bytes(Tl::template shared_bytes<true, true>));
      return go(&matmul_mma_tiled<Tl, Out, AL, true, false>, bytes(Tl::template shared_bytes<true, false>));
    }
    if (a.tb) return go(&matmul_mma_tiled<Tl, Out, AL, false, true>, bytes(Tl::template shared_bytes<false, true>));
    go(&matmul_mma_tiled<Tl, Out, AL, false, false>, bytes(Tl::template shared_bytes<false, false>));
  };
  // A CPU's own copy runs the plain loads only (16-byte copies in flight are a GPU's).
  if constexpr (tk::this_target != tk::Target::cpu) {
    if (a.K > 0 && lines16(a.A, a.lda, a.sa, a.batch) && lines16(a.B, a.ldb, a.sb, a.batch))
      return storage(std::true_type{});
  }
  storage(std::false_type{});
}

template <class From, class To>
void convert(const Device& dev, int64_t rows, int64_t cols, const From* X, int64_t ld, To* P, int64_t ldp) {
  constexpr int threads = 256;
  const int gx = static_cast<int>((cols + threads - 1) / threads),
            gy = static_cast<int>(std::min<int64_t>(rows, 65535));
  tk::launch(dev, {"matmul_convert", {gx, gy, 1}, {threads, 1, 1}, 0}, &tk::kernels::matmul_convert<From, To>, rows,
             cols, X, ld, P, ldp);
}

template <Precision P, class In, class Out>
void run_warpgroup(const Device& dev, const GemmArgs<float, In, Out>& a) {
  if constexpr (warpgroup_built) {
    using Tl = WgTiling<P>;
    const int64_t tiles = ((a.M + Tl::bm - 1) / Tl::bm) * ((a.N + Tl::bn - 1) / Tl::bn);
    if (tiles > 0x7fffffff) tk::detail::fail("tk::gemm: ", a.M, " x ", a.N, " needs more than 2^31 - 1 tiles");
    const auto storage_of = [&](const GemmArgs<float, In, Out>& x, auto aligned) {
      constexpr bool AL = decltype(aligned)::value;
      const auto go = [&](auto kernel) {
        for (int64_t first = 0; first < x.batch; first += 65535) {
          const int gy = static_cast<int>(std::min<int64_t>(65535, x.batch - first));
          tk::launch(
              dev, {"matmul_warpgroup_tiled", {static_cast<int>(tiles), gy, 1}, {Tl::threads, 1, 1}, Tl::shared_bytes},
              kernel, x.M, x.N, x.K, x.alpha, x.A + first * x.sa, x.lda, x.sa, x.B + first * x.sb, x.ldb, x.sb, x.beta,
              x.C + first * x.sc, x.ldc, x.sc);
        }
      };
      using tk::kernels::matmul_warpgroup_tiled;
      if (x.ta) {
        if (x.tb) return go(&matmul_warpgroup_tiled<Tl, Out, AL, true, true>);
        return go(&matmul_warpgroup_tiled<Tl, Out, AL, true, false>);
      }
      if (x.tb) return go(&matmul_warpgroup_tiled<Tl, Out, AL, false, true>);
      go(&matmul_warpgroup_tiled<Tl, Out, AL, false, false>);
    };
    if (lines16(a.A, a.lda, a.sa, a.batch) && lines16(a.B, a.ldb, a.sb, a.batch))
      return storage_of(a, std::true_type{});
    if (a.batch == 1 && std::min({a.M, a.N, a.K}) >= 128) {
      // A single product whose lines do not all start on 16 bytes, large enough that copying it is cheap beside
      // the multiply: each such operand copied with its leading dimension rounded up to 8 values (a workspace
      // of the device), then the 16-byte copies in flight (2049^3 BF16 on the H200: 33% of cuBLAS unpacked)
      const bool pack_a = !lines16(a.A, a.lda, a.sa, a.batch), pack_b = !lines16(a.B, a.ldb, a.sb, a.batch);
      const int64_t ar = a.ta ? a.K : a.M, ac = a.ta ? a.M : a.K, br = a.tb ? a.N : a.K, bc = a.tb ? a.K : a.N;
      const int64_t lpa = (ac + 7) / 8 * 8, lpb = (bc + 7) / 8 * 8;
      const int64_t na = pack_a ? ar * lpa : 0, nb = pack_b ? br * lpb : 0;
      const tk::detail::Workspace scratch(dev, sizeof(In) * static_cast<std::size_t>(na + nb));
      In* const pa = static_cast<In*>(scratch.get());
      In* const pb = pa + na;  // 16-byte aligned: na is a multiple of 8 values
      GemmArgs<float, In, Out> p = a;
      if (pack_a) {
        convert(dev, ar, ac, a.A, a.lda, pa, lpa);
        p.A = pa;
        p.lda = lpa;
      }
      if (pack_b) {
        convert(dev, br, bc, a.B, a.ldb, pb, lpb);
        p.B = pb;
        p.ldb = lpb;
      }
      if (lines16(p.A, p.lda, p.sa, 1) && lines16(p.B, p.ldb, p.sb, 1)) return storage_of(p, std::true_type{});
    }
    storage_of(a, std::false_type{});
  } else {
    (void)dev, (void)a;
    tk::detail::fail("tk::gemm: the warpgroup kernel is not built in this copy");
  }
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

template <Precision P, class In, class Out>
void gemm16(const Device& dev, MatmulVariant variant, const GemmArgs<float, In, Out>& a) {
  if (a.K > 0 && warpgroup(dev, variant)) return run_warpgroup<P>(dev, a);
  if (a.K == 0 || on_matrix_units(dev, variant)) return run_mma<P>(dev, a);
  run_converted(dev, variant, a);
}

}  // namespace

bool gemm_tf32(const Device& dev, MatmulVariant variant, const GemmArgs<float>& a) {
  if (!on_matrix_units(dev, variant)) return false;
  run_mma<Precision::tf32>(dev, a);
  return true;
}

void gemm(const Device& dev, MatmulVariant variant, const GemmArgs<float, bf16, float>& a) {
  gemm16<Precision::bf16>(dev, variant, a);
}
void gemm(const Device& dev, MatmulVariant variant, const GemmArgs<float, bf16, bf16>& a) {
  gemm16<Precision::bf16>(dev, variant, a);
}
void gemm(const Device& dev, MatmulVariant variant, const GemmArgs<float, f16, float>& a) {
  gemm16<Precision::f16>(dev, variant, a);
}
void gemm(const Device& dev, MatmulVariant variant, const GemmArgs<float, f16, f16>& a) {
  gemm16<Precision::f16>(dev, variant, a);
}

}  // namespace tk::launchers::TK_TARGET_ID
