// kernels/matmul/launch_mma_units.cpp — the matrix units' GEMM kernels launched, compiled once per target: the
// warp-level kernel (mma_tiled.hpp) for TF32, BF16, FP16 and FP64, and the warpgroup kernel (warpgroup_tiled.hpp,
// wgmma) where the build has it. launch_mma.cpp decides when they run for float and 16-bit inputs, launch.cpp's
// double GEMM for FP64 (launch_mma.hpp declares what they call here).
//
// On a CPU these launchers run the executor's exact emulation of the GPU's fragments (tilekit/mma.hpp): the path on
// which CPU-only developers and CI check the kernels' fragment indexing, not a fast one (the CPU's `best` converts
// 16-bit inputs to float in launch_mma.cpp). So the CPU copies of this file are compiled at -O1
// (cmake/TkKernelSources.cmake): at -O3 each of the three dispatched copies took 129 s to compile, at -O1 38 s, and
// the emulated GEMM tests run in under a second either way.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "args.hpp"
#include "convert.hpp"
#include "launch_mma.hpp"
#include "mma_tiled.hpp"
#include "pack_rule.hpp"
#include "policy/cuda.hpp"
#include "splitk_reduce.hpp"
#include "warpgroup_tiled.hpp"
#include "waves.hpp"
#include "tilekit/detail/knobs.hpp"
#include "tilekit/detail/launchers_matmul.hpp"
#include "tilekit/detail/memory.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel.hpp"
#include "tilekit/transpose.hpp"

namespace tk::launchers::TK_TARGET_ID {
// The transpose launcher of this target (kernels/transpose/launch.cpp), declared here for the GPU targets' CPU
// copies as well, which launchers_transpose.hpp does not list.
void transpose(const Device& dev, TransposeVariant variant, std::int64_t rows, std::int64_t cols, const float* in,
               std::int64_t ld_in, float* out, std::int64_t ld_out);

namespace {

using std::int64_t;
using tk::detail::GemmArgs;
using tk::mma::Precision;

// The warp-level kernel's tiling for TF32, BF16 and FP16: 128 x 128 block tiles of 64 x 64 warp tiles (4 warps of
// 32 lanes on NVIDIA, 4 waves of 64 on CDNA), strips 64 bytes deep (16 floats or 32 16-bit values), 4 of them in
// flight (74 KiB of shared memory; 2 on HIP, whose CDNA blocks have 64 KiB).
template <Precision P>
using Tiling = tk::kernels::MmaTiling<P, 128, 128, P == Precision::tf32 ? 16 : 32, 64, 64,
                                      tk::this_target == tk::Target::hip ? 2 : 4>;

// FP64's. CUDA: 128 x 64 tiles of four 32 x 64 warp tiles (64 accumulators a lane), strips 16 deep, 3 in flight,
// every strip's rows padded by 4 doubles (no bank conflicts: mma_tiled.hpp), 75-90 KiB by storage: two blocks per
// SM; each k step's fragments read while the step before is multiplied (PIPE_FRAGS). Fragments in flight against
// the same tiling without them (its k steps as a loop where lines start on 128 bytes, else unrolled), same H200
// run (docs/performance.md#h200-dgemm-fragments-in-flight), % of cuBLAS: 4096^3 NN 95.4-97.0 against 88.3-90.4,
// TN 101.8 against 94.8-95.8, 2048^3 95.1-96.2 against 86.5-88.1, ten shapes with every side >= 1024 at a
// geometric mean of 90.0% against 85.4%; the same in k steps of 4 (m16n8k4, half the fragment registers) 91-93
// at 4096^3, and k steps of 4 as a loop 83-84; 2049^3 NN read 91.2 against 96.8 (one row each). The price: 255
// registers and 92-400 bytes of spills by storage (aligned NN 92, TT 136, TN 248, NT 336), where the loop held 248
// and none. Before that, on the H200, same runs
// (docs/performance.md#h200-dgemm-padded-strips): 4096^3 NN / NT / TN / TT
// 41.9-42.2 / 41.9 / 40.5-40.6 / 40.4-40.5 TFLOP/s against 38.0-38.2 / 36.0-36.1 / 11.9 / 34.9-35.0 with 4 stages
// and the default padding (whose TN spilled 308 bytes); 64 x 32 warps with the same padding and stages led NN and
// TT by 1-2% and lost NT and TN by 5-6%; 4 stages with the 4-double padding (one block per SM in NN and NT) lost
// 43-46% there. cuBLAS runs this very tiling on the H100 (Nsight Compute, docs/performance.md#h100-dgemm-ncu), and
// 128 x 128 tiles of 8 warps and 64 x 64 tiles of 32 x 32 warps lost 5-24 points to it there; since the strip loads
// test their bounds once per strip (mma_tiled.hpp), 4096^3 NN / TT run at 89.0 / 90.3% of cuBLAS on the H200
// (docs/performance.md#h200-dgemm-strip-fast-path). HIP: 4 waves of 64 x 64 (MFMA 16 x 16: 64 accumulators a lane)
// on 128 x 128 tiles, strips 8 deep, 2 in flight (34-40 KiB of CDNA's 64; unmeasured).
constexpr bool on_hip = tk::this_target == tk::Target::hip;
using F64Tiling = std::conditional_t<on_hip, tk::kernels::MmaTiling<Precision::f64, 128, 128, 8, 64, 64, 2>,
                                     tk::kernels::MmaTiling<Precision::f64, 128, 64, 16, 32, 64, 3, 4, 4, true>>;

// The warpgroup kernel's tiling: 128 x 256 tiles (two warpgroups of 64 x 256), strips 128 bytes deep (64 16-bit
// values, 32 floats), 4 in flight (193 KiB of shared memory, one block per SM); the tensor-copy kernel takes the same
// with a third, copying warpgroup (384 threads) and 8 barriers (TmaTiling).
template <Precision P>
using WgTiling = tk::kernels::WarpgroupTiling<P, 128, 256, 4>;

// This copy holds the warpgroup kernel where the layer says the build has it (tk::mma::warpgroup_in_build).
constexpr bool warpgroup_built = tk::mma::warpgroup_in_build;

// Every line (and, in a batch, every matrix) of X starts on 16 bytes.
template <class In>
bool lines16(const In* X, int64_t ld, int64_t stride, int64_t batch) {
  constexpr int64_t v = 16 / sizeof(In);
  return reinterpret_cast<std::uintptr_t>(X) % 16 == 0 && ld % v == 0 && (batch == 1 || stride % v == 0);
}

// The warp-level kernel in tiling Tl (an MmaTiling).
// With k_per_split > 0, a's batch is the split of one product along K (matmul_mma_tiled's k_per_split).
template <class Tl, class S, class In, class Out>
void run_mma_as(const Device& dev, const GemmArgs<S, In, Out>& a, int64_t k_per_split = 0) {
  static_assert(std::is_same_v<typename Tl::In, In>, "the precision's input type");
  const int64_t tiles = ((a.M + Tl::bm - 1) / Tl::bm) * ((a.N + Tl::bn - 1) / Tl::bn);
  if (tiles > 0x7fffffff) tk::detail::fail("tk::gemm: ", a.M, " x ", a.N, " needs more than 2^31 - 1 tiles");
  // grid y's chunks of 65535 below offset A, B and C but not K: a split's K range comes from its index in the chunk
  if (k_per_split > 0 && a.batch > 65535) tk::detail::fail("tk::gemm: ", a.batch, " splits along K, at most 65535");
  const auto go = [&](auto kernel, std::size_t shared) {
    for (int64_t first = 0; first < a.batch; first += 65535) {
      const int gy = static_cast<int>(std::min<int64_t>(65535, a.batch - first));
      tk::launch(dev,
                 {k_per_split > 0 ? "matmul_mma_tiled(split-K)" : "matmul_mma_tiled",
                  {static_cast<int>(tiles), gy, 1},
                  {Tl::threads, 1, 1},
                  shared},
                 kernel, a.M, a.N, a.K, a.alpha, a.A + first * a.sa, a.lda, a.sa, a.B + first * a.sb, a.ldb, a.sb,
                 a.beta, a.C + first * a.sc, a.ldc, a.sc, k_per_split);
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
    const int64_t batch = k_per_split > 0 ? 1 : a.batch;  // a split's parts start inside the one product's lines
    if (a.K > 0 && lines16(a.A, a.lda, a.sa, batch) && lines16(a.B, a.ldb, a.sb, batch))
      return storage(std::true_type{});
  }
  storage(std::false_type{});
}

// x's product split `splits` ways along K in strips of bk: launch(p, per) multiplies the parts, per values of K
// each (a multiple of bk), as p's batch of slabs of M x N (alpha 1, beta 0) in a workspace of the device, and
// matmul_splitk_reduce sums them into C with x's alpha and beta. With splits <= 1, or where the workspace cannot be
// had, launch(x, 0): the product unsplit.
template <class S, class In, class Out, class Launch>
void split_along_k(const Device& dev, const GemmArgs<S, In, Out>& x, int64_t splits, int64_t bk, Launch launch) {
  if (splits <= 1) return launch(x, int64_t{0});
  const int64_t per = (x.K + splits * bk - 1) / (splits * bk) * bk;
  splits = (x.K + per - 1) / per;  // none empty
  std::optional<tk::detail::Workspace> scratch;
  try {
    scratch.emplace(dev, sizeof(S) * static_cast<std::size_t>(splits * x.M * x.N));
  } catch (const tk::Error&) {
    return launch(x, int64_t{0});  // device memory is short: unsplit
  }
  S* const partial = static_cast<S*>(scratch->get());
  GemmArgs<S, In, S> p;
  p.M = x.M;
  p.N = x.N;
  p.K = x.K;
  p.A = x.A;
  p.lda = x.lda;
  p.ta = x.ta;
  p.B = x.B;
  p.ldb = x.ldb;
  p.tb = x.tb;
  p.alpha = S(1);
  p.beta = S(0);
  p.C = partial;
  p.ldc = x.N;
  p.sc = x.M * x.N;
  p.batch = splits;
  launch(p, per);
  constexpr int threads = 256;
  const int gx = static_cast<int>((x.N + threads - 1) / threads), gy = static_cast<int>(std::min<int64_t>(x.M, 65535));
  tk::launch(dev, {"matmul_splitk_reduce", {gx, gy, 1}, {threads, 1, 1}, 0}, &tk::kernels::matmul_splitk_reduce<S, Out>,
             x.M, x.N, static_cast<int>(splits), static_cast<const S*>(partial), x.alpha, x.beta, x.C, x.ldc,
             int64_t{1});
}

// run(x, aligned) with aligned = std::true_type where every line of A and B starts on 16 bytes. A single product
// whose lines do not, where copying them is cheap beside the product (pack_rule.hpp, pays_mma: every side >= 128,
// or a copy of at most an eighth of the operands; any product with TK_MATMUL_PACK=2, none with 0), runs on copies
// of those operands with their leading dimension rounded up to 8 values (16 doubles: lines of 128 bytes; a workspace
// of the device), then takes the 16-byte copies in flight. Otherwise, or where the workspace cannot be had,
// run(a, std::false_type).
template <class S, class In, class Out, class Run>
void with_16_byte_lines(const Device& dev, const GemmArgs<S, In, Out>& a, Run run) {
  if (lines16(a.A, a.lda, a.sa, a.batch) && lines16(a.B, a.ldb, a.sb, a.batch)) return run(a, std::true_type{});
  const int knob = tk::detail::knobs().matmul_pack;
  const bool pack_a = !lines16(a.A, a.lda, a.sa, a.batch), pack_b = !lines16(a.B, a.ldb, a.sb, a.batch);
  const int64_t ar = a.ta ? a.K : a.M, ac = a.ta ? a.M : a.K, br = a.tb ? a.N : a.K, bc = a.tb ? a.K : a.N;
  // lines of 16 bytes or more: 8 values, and for FP64 16 (128 bytes, where FP64's tiling as a loop ran faster; that
  // tiling is gone since its fragments are in flight, and packed FP64 lines of 8 have not been measured against 16)
  constexpr int64_t pad = sizeof(In) == 8 ? 16 : 8;
  const int64_t lpa = (ac + pad - 1) / pad * pad, lpb = (bc + pad - 1) / pad * pad;
  const int64_t na = pack_a ? ar * lpa : 0, nb = pack_b ? br * lpb : 0;
  if (a.batch == 1 && knob != 0 &&
      (knob == 2 || tk::kernels::matmul_packing::pays_mma(a.M, a.N, a.K, na + nb, (a.M + a.N) * a.K))) {
    std::optional<tk::detail::Workspace> scratch;
    try {
      scratch.emplace(dev, sizeof(In) * static_cast<std::size_t>(na + nb));
    } catch (const tk::Error&) {
      return run(a, std::false_type{});  // device memory is short: the plain loads
    }
    In* const pa = static_cast<In*>(scratch->get());
    In* const pb = pa + na;  // 16-byte aligned: na is a multiple of 8 values
    GemmArgs<S, In, Out> p = a;
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
    if (lines16(p.A, p.lda, p.sa, 1) && lines16(p.B, p.ldb, p.sb, 1)) return run(p, std::true_type{});
  }
  run(a, std::false_type{});
}

// The tensor-copy kernel (warpgroup_tiled.hpp, matmul_warpgroup_tma) in tiling Tl (a TmaTiling) over x's tiles,
// grid y as launch_warpgroup's. Every line of A and B starts on 16 bytes (and, in a batch, every matrix), TF32's
// operands come K-major. Each operand is a tk::TensorMap of three dimensions: along its lines (K, or M / N where it
// is MN-major), its lines, and the batch (one matrix where the batch is 1 or its stride 0). Returns false, launching
// nothing, where a map cannot be made (the layer's rules: tk::TensorBox), so the caller runs the other kernel.
template <class Tl, class In, class Out>
bool launch_warpgroup_tma(const Device& dev, const GemmArgs<float, In, Out>& x, int64_t k_per_split, int64_t tiles) {
  const auto map_of = [&](const In* X, int64_t ld, int64_t s, int64_t batch, bool mn, int64_t lines,
                          const int(&box)[2][2]) -> std::optional<tk::TensorMap> {
    tk::TensorBox t;
    t.base = X;
    t.elem_bytes = static_cast<int>(sizeof(In));
    t.dims[0] = mn ? lines : x.K;
    t.dims[1] = mn ? x.K : lines;
    t.dims[2] = s != 0 ? batch : 1;
    t.strides[0] = ld * static_cast<int64_t>(sizeof(In));
    t.strides[1] = s != 0 ? s * static_cast<int64_t>(sizeof(In)) : t.dims[1] * t.strides[0];
    t.box[0] = box[mn][0];
    t.box[1] = box[mn][1];
    t.swizzle = true;
    try {
      return tk::tensor_map(t);
    } catch (const tk::Error&) {
      return std::nullopt;  // a layout the tensor copies do not take (a stride past 2^40 bytes, say)
    }
  };
  const char* const name = k_per_split > 0 ? "matmul_warpgroup_tma(split-K)" : "matmul_warpgroup_tma";
  const auto go = [&](auto kernel) {
    for (int64_t first = 0; first < x.batch; first += 65535) {
      const int gy = static_cast<int>(std::min<int64_t>(65535, x.batch - first));
      const int64_t sa = x.batch > 1 ? x.sa : 0, sb = x.batch > 1 ? x.sb : 0;
      const auto ma = map_of(x.A + first * sa, x.lda, sa, gy, x.ta, x.M, Tl::box_a);
      const auto mb = map_of(x.B + first * sb, x.ldb, sb, gy, !x.tb, x.N, Tl::box_b);
      if (!ma || !mb) {
        if (first == 0) return false;
        tk::detail::fail("tk::gemm: the tensor map of batch ", first, " could not be made where the first one could");
      }
      tk::launch(dev, {name, {static_cast<int>(tiles), gy, 1}, {Tl::threads, 1, 1}, Tl::shared_bytes}, kernel, x.M, x.N,
                 x.K, x.alpha, *ma, sa, *mb, sb, x.beta, x.C + first * x.sc, x.ldc, x.sc, k_per_split);
    }
    return true;
  };
  using tk::kernels::matmul_warpgroup_tma;
  if constexpr (std::is_same_v<In, float>) {
    if (x.ta || !x.tb) return false;  // TF32: K-major operands only
    return go(&matmul_warpgroup_tma<Tl, Out, false, true>);
  } else {
    if (x.ta) {
      if (x.tb) return go(&matmul_warpgroup_tma<Tl, Out, true, true>);
      return go(&matmul_warpgroup_tma<Tl, Out, true, false>);
    }
    if (x.tb) return go(&matmul_warpgroup_tma<Tl, Out, false, true>);
    return go(&matmul_warpgroup_tma<Tl, Out, false, false>);
  }
}

// The warpgroup kernel in tiling Tl over x's tiles, ALIGNED: every line of A and B starts on 16 bytes. Grid y is
// x's batch, or with k_per_split > 0 its x.batch splits along K (x.sa = x.sb = 0; C, ldc, sc: the partial slabs).
// The tensor-copy kernel (above) where it can run; else, and everywhere with TK_MATMUL_WARPGROUP=1, the
// block-barrier kernel, whose threads all copy strips with cp.async and meet at a barrier per strip. The tensor-copy
// kernel ran 4096^3 at 83-93% of cuBLAS on an H200 against the block-barrier kernel's 57-61% (BF16, FP16 and TF32,
// every storage but TF32 TN: 112-118% against 77%; same lease; docs/performance.md#h200-tma), and the GPU's GEMM tests
// pass on it there.
template <class Tl, bool ALIGNED, class In, class Out>
void launch_warpgroup(const Device& dev, const GemmArgs<float, In, Out>& x, int64_t k_per_split) {
  const int64_t tiles = ((x.M + Tl::bm - 1) / Tl::bm) * ((x.N + Tl::bn - 1) / Tl::bn);
  if (tiles > 0x7fffffff) tk::detail::fail("tk::gemm: ", x.M, " x ", x.N, " needs more than 2^31 - 1 tiles");
  // grid y's chunks of 65535 below offset C but not K: a split's K range comes from its index in the chunk
  if (k_per_split > 0 && x.batch > 65535) tk::detail::fail("tk::gemm: ", x.batch, " splits along K, at most 65535");
  using Tt = tk::kernels::TmaTiling<Tl::precision, Tl::bm, Tl::bn, Tl::stages>;
  if constexpr (ALIGNED) {
    if (tk::detail::knobs().matmul_warpgroup != 1 && x.M < (int64_t{1} << 31) && x.N < (int64_t{1} << 31) &&
        x.K < (int64_t{1} << 31) && launch_warpgroup_tma<Tt>(dev, x, k_per_split, tiles))
      return;
  }
  const char* const name = k_per_split > 0 ? "matmul_warpgroup_tiled(split-K)" : "matmul_warpgroup_tiled";
  const auto go = [&](auto kernel) {
    for (int64_t first = 0; first < x.batch; first += 65535) {
      const int gy = static_cast<int>(std::min<int64_t>(65535, x.batch - first));
      tk::launch(dev, {name, {static_cast<int>(tiles), gy, 1}, {Tl::threads, 1, 1}, Tl::shared_bytes}, kernel, x.M, x.N,
                 x.K, x.alpha, x.A + first * x.sa, x.lda, x.sa, x.B + first * x.sb, x.ldb, x.sb, x.beta,
                 x.C + first * x.sc, x.ldc, x.sc, k_per_split);
    }
  };
  using tk::kernels::matmul_warpgroup_tiled;
  if (x.ta) {
    if (x.tb) return go(&matmul_warpgroup_tiled<Tl, Out, ALIGNED, true, true>);
    return go(&matmul_warpgroup_tiled<Tl, Out, ALIGNED, true, false>);
  }
  if (x.tb) return go(&matmul_warpgroup_tiled<Tl, Out, ALIGNED, false, true>);
  go(&matmul_warpgroup_tiled<Tl, Out, ALIGNED, false, false>);
}

// The warpgroup kernel's wave plan for a single product (waves.hpp): with its tiles 128 x 256, 1024^3 has 32 tiles
// for the H100's and H200's 132 SMs, and 8 x 4096 x 4096 has 16. Splits of at least 4 strips (the pipeline's
// depth), priced on the machine of policy/cuda.hpp (warpgroup_machine); batches are not split. TK_MATMUL_SPLIT
// forces a plan. On the CPU executor (the tests of the CUDA shapes), the pretend GPU of policy/gpu.hpp's plan.
template <class Tl>
tk::kernels::matmul_waves::Plan warpgroup_plan(const Device& dev, int64_t M, int64_t N, int64_t K, int64_t batch) {
  namespace mw = tk::kernels::matmul_waves;
  using Cuda = tk::kernels::matmul_policy::Cuda;
  if (batch != 1 || K <= 0) return {};
  if (const int forced = tk::detail::knobs().matmul_split; forced > 0) return Cuda::forced_plan(K, Tl::bk, forced);
  const mw::Machine m = dev.backend() == Backend::cpu
                            ? mw::pretend_gpu
                            : Cuda::warpgroup_machine(dev, std::is_same_v<typename Tl::In, float>);
  return mw::plan(M, N, K, Tl::bm, Tl::bn, Tl::bk, static_cast<int>(sizeof(float)), m, 4);
}

// x's product on the warpgroup kernel split `splits` ways along K (split_along_k).
template <class Tl, bool ALIGNED, class In, class Out>
void split_warpgroup(const Device& dev, const GemmArgs<float, In, Out>& x, int64_t splits) {
  split_along_k(dev, x, splits, Tl::bk,
                [&](const auto& p, int64_t per) { launch_warpgroup<Tl, ALIGNED>(dev, p, per); });
}

template <Precision P, class In, class Out>
void run_warpgroup(const Device& dev, const GemmArgs<float, In, Out>& a) {
  if constexpr (warpgroup_built) {
    using Tl = WgTiling<P>;
    const auto run = [&](const GemmArgs<float, In, Out>& x, auto aligned) {
      constexpr bool AL = decltype(aligned)::value;
      // the plan's unsplit rows first, then the rest split along K
      const auto plan = warpgroup_plan<Tl>(dev, x.M, x.N, x.K, x.batch);
      if (plan.dp_rows > 0) split_warpgroup<Tl, AL>(dev, tk::kernels::matmul_args::rows_of(x, 0, plan.dp_rows), 1);
      split_warpgroup<Tl, AL>(dev, tk::kernels::matmul_args::rows_of(x, plan.dp_rows, x.M - plan.dp_rows), plan.splits);
    };
    with_16_byte_lines(dev, a, run);
  } else {
    (void)dev, (void)a;
    tk::detail::fail("tk::gemm: the warpgroup kernel is not built in this copy");
  }
}

// The warp-level kernel in precision P's tiling.
template <Precision P, class S, class In, class Out>
void run_mma(const Device& dev, const GemmArgs<S, In, Out>& a) {
  run_mma_as<std::conditional_t<P == Precision::f64, F64Tiling, Tiling<P>>>(dev, a);
}

template <Precision P, class In, class Out>
void run_units(const Device& dev, bool warpgroup, const GemmArgs<float, In, Out>& a) {
  if (warpgroup) return run_warpgroup<P>(dev, a);
  run_mma<P>(dev, a);
}

// TF32 on the warpgroup kernel. The instruction reads tf32 operands K-major only (A stored M x K, B stored N x K:
// NT). A single product with an operand stored the other way (NN's B, TN's A and B, TT's A) that more than one tile
// reads (pack_rule.hpp, tf32_transpose_first: A where C has two tile columns or more, B two tile rows), or whose
// lines do not all start on 16 bytes (so that with_16_byte_lines neither packs it nor takes the other operand's
// 16-byte copies away), first transposes it into a workspace of the device with tilekit's transpose (`best`), lines
// padded to 16 bytes: 4 (M + N) K' bytes at most (K' = K rounded up to 4; with_16_byte_lines may then pack the
// other operand). TK_MATMUL_PACK=2 transposes every such operand first, 0 none. Other operands, a batch's, and a
// call whose workspace cannot be had run as they are: the kernel then transposes them in its strips as it copies
// them, 4 bytes at a time. On the H200 at 4096^3 (NN / TN / TT) the transposition first ran at
// 203.6-203.8 / 193.7-193.9 / 203.6-204.0 TFLOP/s, the one in the strips at 131.0-132.2 / 108.7 / 163.3-163.4; in a
// batch of 512 products of 256^3, where the workspace path ran the warp-level kernel instead, the strips' transposition
// led in NN (71.7 against 57.4 TFLOP/s) and TT (83.2 against 57.5), and tied in TN (64.9 against 65.3)
// (docs/performance.md#h200-tf32-warpgroup).
void run_warpgroup_tf32(const Device& dev, const GemmArgs<float>& a) {
  if constexpr (warpgroup_built) {
    using Tl = WgTiling<Precision::tf32>;
    namespace mp = tk::kernels::matmul_packing;
    const int knob = tk::detail::knobs().matmul_pack;
    const auto first = [&](int64_t reads, bool lines) {
      return knob == 2 || (knob == 1 && (!lines || mp::tf32_transpose_first(reads)));
    };
    const bool tr_a = a.ta && first((a.N + Tl::bn - 1) / Tl::bn, lines16(a.A, a.lda, a.sa, 1));
    const bool tr_b = !a.tb && first((a.M + Tl::bm - 1) / Tl::bm, lines16(a.B, a.ldb, a.sb, 1));
    if (a.batch != 1 || (!tr_a && !tr_b)) return run_warpgroup<Precision::tf32>(dev, a);
    const int64_t lk = (a.K + 3) / 4 * 4;
    const int64_t na = tr_a ? a.M * lk : 0, nb = tr_b ? a.N * lk : 0;
    std::optional<tk::detail::Workspace> scratch;
    try {
      scratch.emplace(dev, sizeof(float) * static_cast<std::size_t>(na + nb));
    } catch (const tk::Error&) {
      return run_warpgroup<Precision::tf32>(dev, a);  // device memory is short: transposed in the strips
    }
    float* const pa = static_cast<float*>(scratch->get());
    float* const pb = pa + na;  // 16-byte aligned: na is a multiple of 4 floats
    GemmArgs<float> p = a;
    if (tr_a) {
      transpose(dev, TransposeVariant::best, a.K, a.M, a.A, a.lda, pa, lk);
      p.A = pa;
      p.lda = lk;
      p.ta = false;
    }
    if (tr_b) {
      transpose(dev, TransposeVariant::best, a.K, a.N, a.B, a.ldb, pb, lk);
      p.B = pb;
      p.ldb = lk;
      p.tb = true;
    }
    run_warpgroup<Precision::tf32>(dev, p);
  } else {
    (void)dev, (void)a;
    tk::detail::fail("tk::gemm: the warpgroup kernel is not built in this copy");
  }
}

}  // namespace

void gemm_on_units(const Device& dev, bool wg, const GemmArgs<float>& a) {
  if (wg) return run_warpgroup_tf32(dev, a);
  run_mma<Precision::tf32>(dev, a);
}
void gemm_on_units(const Device& dev, const GemmArgs<double>& a) {
  if constexpr (tk::this_target == tk::Target::cpu) {
    (void)dev, (void)a;
    tk::detail::fail("tk::gemm: the FP64 matrix-unit kernel is a GPU target's (the CPU's own copy never routes there)");
  } else {
    // operands whose lines do not start on 16 bytes packed first, as for the warpgroup kernel (run_mma itself
    // takes the plain loads for those it is handed), split along K where the wave plan says
    using Cuda = tk::kernels::matmul_policy::Cuda;
    static_assert(on_hip || (F64Tiling::bm == Cuda::f64_tile.bm && F64Tiling::bn == Cuda::f64_tile.bn &&
                             F64Tiling::bk == Cuda::f64_tile.bk),
                  "the policy plans DGEMM's waves on this tiling");
    with_16_byte_lines(dev, a, [&](const GemmArgs<double>& x, auto) {
      split_along_k(dev, x, Cuda::f64_units_plan(dev, x).splits, F64Tiling::bk,
                    [&](const auto& p, int64_t per) { run_mma_as<F64Tiling>(dev, p, per); });
    });
  }
}
void gemm_on_units(const Device& dev, bool wg, const GemmArgs<float, bf16, float>& a) {
  run_units<Precision::bf16>(dev, wg, a);
}
void gemm_on_units(const Device& dev, bool wg, const GemmArgs<float, bf16, bf16>& a) {
  run_units<Precision::bf16>(dev, wg, a);
}
void gemm_on_units(const Device& dev, bool wg, const GemmArgs<float, f16, float>& a) {
  run_units<Precision::f16>(dev, wg, a);
}
void gemm_on_units(const Device& dev, bool wg, const GemmArgs<float, f16, f16>& a) {
  run_units<Precision::f16>(dev, wg, a);
}

}  // namespace tk::launchers::TK_TARGET_ID
