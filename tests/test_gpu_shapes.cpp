// The launch shapes and template instantiations of the CUDA (warp 32) and HIP (wave 64) launchers, run by
// the CPU executor (tests/CMakeLists.txt, tk_gpu_shapes): every CUDA and HIP matmul tile configuration in
// float and double, each storage of A and B, aligned and not, whole and split along K, batched; the GPU block shapes of transpose, the stencils, the AoS
// update and the elementwise ops; on shapes that cut every tile. In a checked build every access of these
// kernels is checked as well, so a race or an out-of-range index in a GPU-only configuration shows up on a
// CPU-only machine. (The coalescing and bank experiments are left out: their GPU launches differ only in
// sizes, and their point is timing.)
#include <cfloat>
#include <cmath>
#include <tuple>

#include "gemm16_support.hpp"
#include "gemm_support.hpp"
#include "support.hpp"
#include "tilekit/detail/knobs.hpp"
#include "tilekit/kernel_info.hpp"
#include "tilekit/detail/launchers_aos.hpp"
#include "tilekit/detail/launchers_elementwise.hpp"
#include "tilekit/detail/launchers_experiments.hpp"
#include "tilekit/detail/launchers_matmul.hpp"
#include "tilekit/detail/launchers_stencil.hpp"
#include "tilekit/detail/launchers_transpose.hpp"
#include "../kernels/matmul/policy/cuda.hpp"
#include "../kernels/matmul/policy/hip.hpp"
#include "../kernels/matmul/policy/hip.hpp"

TK_DECLARE_ELEMENTWISE_LAUNCHERS(cpu_as_cuda)
TK_DECLARE_ELEMENTWISE_LAUNCHERS(cpu_as_hip)
TK_DECLARE_MATMUL_LAUNCHERS(cpu_as_cuda)
TK_DECLARE_MATMUL_LAUNCHERS(cpu_as_hip)
TK_DECLARE_TRANSPOSE_LAUNCHERS(cpu_as_cuda)
TK_DECLARE_TRANSPOSE_LAUNCHERS(cpu_as_hip)
TK_DECLARE_AOS_LAUNCHERS(cpu_as_cuda)
TK_DECLARE_AOS_LAUNCHERS(cpu_as_hip)
TK_DECLARE_STENCIL_LAUNCHERS(cpu_as_cuda)
TK_DECLARE_STENCIL_LAUNCHERS(cpu_as_hip)
TK_DECLARE_EXPERIMENTS_LAUNCHERS(cpu_as_cuda)
TK_DECLARE_EXPERIMENTS_LAUNCHERS(cpu_as_hip)
namespace tk::test {
namespace {

enum class Gpu { cuda, hip };
// "as_cuda_...", not "cuda_...": a test whose parameter name starts with a backend's name runs under that
// backend's ctest label (tests/CMakeLists.txt); these run on the CPU.
const char* gpu_name(Gpu g) { return g == Gpu::cuda ? "as_cuda" : "as_hip"; }

// ---- matmul: every CUDA and HIP warp_tiled configuration by name (kernels/matmul/policy/), through the
// launcher's own dispatch, in each storage of A and B and both element types ----

using MatmulParam = std::tuple<Gpu, std::string, int, Op, Op>;  // target, configuration, element bytes, ops

class MatmulOnGpuShapes : public ::testing::TestWithParam<MatmulParam> {};

template <class T>
void run_on(Gpu gpu, const std::string& config, Op oa, Op ob, const GemmShape& s, std::uint64_t seed) {
  const Device dev = Device::cpu();
  std::mt19937_64 rng(seed);
  const GemmProblem<T> p = make_problem<T>(Layout::row_major, oa, ob, s, rng);
  Buffer<T> A(dev, p.a), B(dev, p.b), C(dev, p.c0);
  const tk::detail::GemmArgs<T> args = launcher_args(p, A.data(), B.data(), C.data(), s.batch);
  if (gpu == Gpu::cuda) {
    launchers::cpu_as_cuda::gemm(dev, MatmulVariant::warp_tiled, args, config.c_str());
  } else {
    launchers::cpu_as_hip::gemm(dev, MatmulVariant::warp_tiled, args, config.c_str());
  }
  expect_gemm_matches(p, C.to_host());
}

TEST_P(MatmulOnGpuShapes, MatchesWiderReference) {
  const auto& [gpu, config, bytes, oa, ob] = GetParam();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // rows and columns that cut every tile; 16-byte rows (the vector path) and not; a partial last strip of
  // K; a batch; a small C with a long K, which the launcher's wave plan splits along K; and 4 tile rows + 7
  // (for tiles of 64, 128 and 256 rows) over one tile column, which the plan runs as 4 whole tile rows and
  // the rest split (the CPU executor plans for a pretend GPU of 4 slots: tests/test_waves.cpp); K = 16 and
  // 256, whole strips of 8 or 16 (every step in the unchecked loop, whose last fetches re-read the last strip);
  // with beta != 0, edge tiles shifted to the last whole tile (cuda_square_nt, pipeline_pairs.hpp's shift_in)
  // along lines that lie along k (133 x 261) and k-major ones (140 x 136), whose rows and columns computed
  // twice must be stored once; K = 0 (C = beta C: no strip, an empty ring of copies in flight); and 3 rows or
  // columns of C, whose one chunk of 16 bytes along them holds 12 bytes of the operand (pipeline_async.hpp: a copy
  // of part of a chunk, the rest zeros)
  const std::vector<GemmShape> shapes = {
      {260, 300, 72, 4, 0, 4, 1, 0}, {133, 261, 37, 1, 1, 3, 1.5, -0.5}, {70, 90, 40, 0, 0, 0, 1, 1, 2, 3},
      {70, 90, 1100, 0, 0, 0, 1, 1}, {263, 8, 272, 0, 0, 0, 1, 0.5},     {519, 8, 272, 0, 1, 0, -1, 0},
      {1031, 8, 272, 0, 0, 1, 1, 1}, {140, 136, 16, 0, 0, 0, 1, 0.5},    {131, 129, 256, 0, 4, 0, 0.5, 0.25, 3, 8},
      {70, 90, 0, 0, 0, 0, 1, 0.5},  {3, 130, 70, 1, 0, 0, 1, 0.5},      {130, 3, 70, 0, 1, 0, -1, 1}};
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (!in_instrumented_half(i, storage_index(oa, ob))) continue;
    if (bytes == 4) run_on<float>(gpu, config, oa, ob, shapes[i], seed);
    else run_on<double>(gpu, config, oa, ob, shapes[i], seed);
  }
}

std::vector<MatmulParam> matmul_params() {
  std::vector<MatmulParam> out;
  for (Gpu gpu : {Gpu::cuda, Gpu::hip}) {
    for (int bytes : {4, 8}) {
      const auto names = gpu == Gpu::cuda ? launchers::cpu_as_cuda::matmul_configs(bytes)
                                          : launchers::cpu_as_hip::matmul_configs(bytes);
      for (const char* c : names) {
        for (Op oa : {Op::none, Op::trans}) {
          for (Op ob : {Op::none, Op::trans}) out.emplace_back(gpu, c, bytes, oa, ob);
        }
      }
    }
  }
  return out;
}

std::string matmul_name(const ::testing::TestParamInfo<MatmulParam>& i) {
  const auto& [gpu, config, bytes, oa, ob] = i.param;
  return std::string(gpu_name(gpu)) + "_" + config + (bytes == 4 ? "_float_" : "_double_") + to_string(oa) +
         to_string(ob);
}

INSTANTIATE_TEST_SUITE_P(GpuShapes, MatmulOnGpuShapes, ::testing::ValuesIn(matmul_params()), matmul_name);

// ---- the matrix units' GEMM (kernels/matmul/mma_tiled.hpp) in the executor's emulation of NVIDIA's warp-32
// fragments (mma.sync) and CDNA's wave-64 ones (MFMA): TF32, BF16 and FP16 with float and 16-bit C, each
// storage, aligned rows (16-byte copies in flight) and not. `warp_tiled` runs the warp-level kernel
// (mma_tiled.hpp) on either target's copy; `best` runs it on HIP's, and on CUDA's the warpgroup kernel
// (warpgroup_tiled.hpp, sm_90a's wgmma; TF32's operands that are not K-major transposed first) ----

enum class Mma { tf32, bf16_float, bf16_bf16, f16_float, f16_f16 };
const char* mma_name(Mma k) {
  constexpr const char* names[] = {"tf32", "bf16_float", "bf16_bf16", "f16_float", "f16_f16"};
  return names[static_cast<int>(k)];
}
using MmaParam = std::tuple<Gpu, Mma, Op, Op, MatmulVariant>;
class MmaOnGpuShapes : public ::testing::TestWithParam<MmaParam> {};

// shared: a batch whose A (or B) is one matrix for all, a stride of 0 (BLAS callers pass one for a shared operand)
enum class Shared { none, a, b };
template <class In, class Out>
void run_mma_on(Gpu gpu, MatmulVariant v, Op oa, Op ob, const GemmShape& s, std::uint64_t seed,
                Shared shared = Shared::none) {
  const Device dev = Device::cpu();
  std::mt19937_64 rng(seed);
  constexpr bool tf32 = std::is_same_v<In, float>;
  Problem16<In, Out> q = make_problem16<In, Out>(Layout::row_major, oa, ob, s, rng, tf32);
  if (shared == Shared::a) q.p.sa = 0;  // the reference reads matrix 0 for every z too
  if (shared == Shared::b) q.p.sb = 0;
  SCOPED_TRACE(shared == Shared::none ? "no operand shared"
               : shared == Shared::a  ? "A shared (stride 0)"
                                      : "B shared (stride 0)");
  const GemmProblem<float>& p = q.p;
  Buffer<In> A(dev, q.a), B(dev, q.b);
  Buffer<Out> C(dev, q.c0);
  tk::detail::GemmArgs<float, In, Out> a;
  a.M = s.M;
  a.N = s.N;
  a.K = s.K;
  a.alpha = static_cast<float>(s.alpha);
  a.A = A.data();
  a.lda = p.lda;
  a.sa = p.sa;
  a.ta = oa == Op::trans;
  a.B = B.data();
  a.ldb = p.ldb;
  a.sb = p.sb;
  a.tb = ob == Op::trans;
  a.beta = static_cast<float>(s.beta);
  a.C = C.data();
  a.ldc = p.ldc;
  a.sc = p.sc;
  a.batch = s.batch;
  a.math = tk::Math::tf32;
  if constexpr (tf32) {  // the float launcher, which hands Math::tf32 to the matrix units
    if (gpu == Gpu::cuda) launchers::cpu_as_cuda::gemm(dev, v, a, nullptr);
    else launchers::cpu_as_hip::gemm(dev, v, a, nullptr);
  } else if (gpu == Gpu::cuda) {
    launchers::cpu_as_cuda::gemm(dev, v, a);
  } else {
    launchers::cpu_as_hip::gemm(dev, v, a);
  }
  expect_gemm16_matches(q, C.to_host(), gpu_name(gpu));
}

TEST_P(MmaOnGpuShapes, MatchesFp64Reference) {
  const auto& [gpu, kind, oa, ob, v] = GetParam();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // tiles cut in both directions and a partial last strip; 16-byte rows (the in-flight copies) with a batch;
  // K = 0 (C = beta C only); two tile rows and columns, beta != 0; for the warpgroup kernel (CUDA's best) also
  // more strips than its 4 buffers (333 = 5 strips of 64 16-bit values or 10 of 32 floats, and a partial one), over
  // two tile rows of 128 and two columns of 256, packed (rows of 333 values); a batch of matrices larger than a
  // 128 x 128 tile, with 16-byte rows (smaller ones, as the batch of 64 x 136 above, take the warp-level kernel:
  // warpgroup_batch);
  // split along K on the pretend GPU of the executor's wave plan (4 slots): one tile split 3 ways (BF16, FP16) or
  // 4 (TF32) with a shorter last split, and 5 tile rows whose first 4 run unsplit and whose last is split 2 or 4
  // ways, beta 0 over C's NaN (the plans: tests/test_waves.cpp). TF32 on it: the single products transpose an MN-major operand first,
  // the batch transposes it in the strips. 136 x 136 x 72: 16-byte lines in every storage and precision, so that on
  // the warp-level kernel both A's and B's strips take mma_strip_load's interior path (tile row and column 0, the
  // first strips along K) beside edge strips in one product.
  std::vector<GemmShape> shapes = {{133, 70, 37, 1, 1, 3, 1.5, -0.5},
                                   {64, 136, 72, 0, 0, 0, 1, 0, 2, 8},
                                   {20, 30, 0, 0, 0, 0, 1, 0.5},
                                   {260, 257, 100, 0, 0, 0, -1, 0.25},
                                   {136, 136, 72, 0, 0, 0, 1, 0.5}};
  if (gpu == Gpu::cuda && v == MatmulVariant::best) {
    shapes.push_back({130, 264, 333, 0, 0, 0, 1, 0.5});
    shapes.push_back({136, 144, 40, 0, 0, 0, 1, 0.5, 2, 8});
    shapes.push_back({100, 200, 1000, 1, 0, 0, 1.5, -0.5});
    shapes.push_back({520, 40, 512, 0, 0, 0, -1, 0});
  }
  const auto run = [&](const GemmShape& s, Shared shared) {
    switch (kind) {
      case Mma::tf32: run_mma_on<float, float>(gpu, v, oa, ob, s, seed, shared); break;
      case Mma::bf16_float: run_mma_on<tk::bf16, float>(gpu, v, oa, ob, s, seed, shared); break;
      case Mma::bf16_bf16: run_mma_on<tk::bf16, tk::bf16>(gpu, v, oa, ob, s, seed, shared); break;
      case Mma::f16_float: run_mma_on<tk::f16, float>(gpu, v, oa, ob, s, seed, shared); break;
      case Mma::f16_f16: run_mma_on<tk::f16, tk::f16>(gpu, v, oa, ob, s, seed, shared); break;
    }
  };
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (in_instrumented_half(i, storage_index(oa, ob))) run(shapes[i], Shared::none);
  }
  // The warpgroup kernels' batch with one operand shared (stride 0): A in NN and TT, B in NT and TN, in every storage
  // (not the instrumented half: one small shape). The tensor-copy kernel by default where it takes the layout (TF32:
  // NT only), whose map of the shared operand then holds one matrix that every block's z reads; the block-barrier
  // kernel elsewhere and under TK_MATMUL_WARPGROUP=1 (ctest cpu.GpuShapes.WarpgroupBlockBarrierKernel*)
  if (gpu == Gpu::cuda && v == MatmulVariant::best) {
    const GemmShape s{136, 144, 72, 0, 0, 0, 1, 0.5, 3, 8};
    run(s, storage_index(oa, ob) % 2 == 0 ? Shared::a : Shared::b);
  }
}

// TF32 on CUDA's copy: `best` (the warpgroup kernel; NN's B, one float in a line of 4 bytes, transposed first) takes a
// float's top 19 bits as sm_90a's instruction does, `warp_tiled` rounds to nearest as cvt.rna does: 1 + 3 2^-12 (3/4
// of a TF32 ulp above 1) truncates to 1 and rounds to 1 + 2^-10; an input on the TF32 grid passes through both
// exactly.
TEST(MmaOnGpuShapesTf32, WarpgroupTruncatesWarpLevelRounds) {
  const Device dev = Device::cpu();
  for (const float x : {1.f + 0x3p-12f, 1.f + 0x1p-10f}) {
    Buffer<float> A(dev, std::vector<float>{x}), B(dev, std::vector<float>{1.f}), C(dev, std::vector<float>{0.f});
    for (MatmulVariant v : {MatmulVariant::best, MatmulVariant::warp_tiled}) {
      tk::detail::GemmArgs<float> a;
      a.M = a.N = a.K = 1;
      a.alpha = 1.f;
      a.A = A.data();
      a.lda = 1;
      a.B = B.data();
      a.ldb = 1;
      a.beta = 0.f;
      a.C = C.data();
      a.ldc = 1;
      a.math = tk::Math::tf32;
      launchers::cpu_as_cuda::gemm(dev, v, a, nullptr);
      const float want = x == 1.f + 0x1p-10f ? x : v == MatmulVariant::best ? 1.f : 1.f + 0x1p-10f;
      EXPECT_EQ(C.to_host()[0], want) << to_string(v) << ", input " << x;
    }
  }
}

std::vector<MmaParam> mma_params() {
  std::vector<MmaParam> out;
  for (Gpu gpu : {Gpu::cuda, Gpu::hip}) {
    for (Mma k : {Mma::tf32, Mma::bf16_float, Mma::bf16_bf16, Mma::f16_float, Mma::f16_f16}) {
      for (Op oa : {Op::none, Op::trans}) {
        for (Op ob : {Op::none, Op::trans}) {
          out.emplace_back(gpu, k, oa, ob, MatmulVariant::best);
          // CUDA's `best` is the warpgroup kernel: the warp-level one by name as well
          if (gpu == Gpu::cuda) out.emplace_back(gpu, k, oa, ob, MatmulVariant::warp_tiled);
        }
      }
    }
  }
  return out;
}

std::string mma_test_name(const ::testing::TestParamInfo<MmaParam>& i) {
  const auto& [gpu, kind, oa, ob, v] = i.param;
  return std::string(gpu_name(gpu)) + "_" + mma_name(kind) + "_" + to_string(oa) + to_string(ob) +
         (v == MatmulVariant::best ? "" : "_warp_tiled");
}

INSTANTIATE_TEST_SUITE_P(GpuShapes, MmaOnGpuShapes, ::testing::ValuesIn(mma_params()), mma_test_name);

// ---- DGEMM's `best` on the matrix units' kernel (mma_tiled.hpp in FP64: m16n8k8 fragments of NVIDIA's warp, MFMA
// 16 x 16 x 4 ones of CDNA's wave), which these copies take for every product with K > 0 (the policies'
// f64_on_units): each storage, through the launcher's own routing ----

using DgemmParam = std::tuple<Gpu, Op, Op>;
class DgemmOnGpuShapes : public ::testing::TestWithParam<DgemmParam> {};

TEST_P(DgemmOnGpuShapes, MatchesWiderReference) {
  const auto& [gpu, oa, ob] = GetParam();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // tiles cut in both directions and a partial last strip, with lines that do not start on 16 bytes (plain
  // loads); a batch with gaps and 16-byte lines (copies in flight); two tile rows and columns with lines that are
  // not 16-byte multiples (B's in every storage, A's in TN and TT), which the launcher packs first (every side
  // >= 128), beta != 0; K of 16 (one CUDA strip, two of HIP's); and the wave plan (policy/cuda.hpp's
  // f64_units_plan, for the executor's pretend GPU of 4 slots): C of two tiles split 2 ways along K (parts of 512,
  // the last 488: a partial strip) with A's lines off 16 bytes (plain loads from each part's start), beta != 0;
  // and with 16-byte lines (copies in flight from each part's start: 304 and 296). The third is peeled for that GPU
  // (f64_units_peel): its last 4 rows and, above them, its last column run apart (matrix-vector products), so the
  // kernel's rows and columns of C start at offsets of A, B and C that the peel computes for each storage; the last
  // is peeled 2 rows with beta 0 (C's NaN never read) and padded B and C; then K of two CUDA strips (the second
  // partial) with 16-byte lines, where the FP64 tiling's fragments in flight (3 stages) skip the prologue's last
  // strip load and read the second strip's first fragments across the only barrier.
  const std::vector<GemmShape> shapes = {{133, 70, 37, 1, 1, 3, 1.5, -0.5},  {64, 136, 72, 0, 0, 0, 1, 0, 2, 8},
                                         {260, 257, 129, 1, 0, 0, -1, 0.25}, {40, 200, 16, 0, 0, 0, 1, 1},
                                         {100, 120, 1000, 1, 0, 0, 1, 0.5},  {136, 64, 600, 0, 0, 0, -1, 0},
                                         {130, 130, 200, 0, 3, 1, 2, 0},     {72, 128, 24, 0, 0, 0, 1, 0.5}};
  const std::vector<tk::kernels::matmul_waves::Plan> plans = {{0, 1}, {0, 1}, {0, 1}, {0, 1},
                                                              {0, 2}, {0, 2}, {0, 1}, {0, 1}};
  const std::vector<tk::kernels::matmul_waves::Peel> peels = {{0, 0}, {0, 0}, {4, 1}, {0, 0},
                                                              {0, 0}, {0, 0}, {2, 0}, {0, 0}};
  const Device dev = Device::cpu();
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (!in_instrumented_half(i, storage_index(oa, ob))) continue;
    std::mt19937_64 rng(seed + i);
    const GemmProblem<double> p = make_problem<double>(Layout::row_major, oa, ob, shapes[i], rng);
    Buffer<double> A(dev, p.a), B(dev, p.b), C(dev, p.c0);
    const tk::detail::GemmArgs<double> args = launcher_args(p, A.data(), B.data(), C.data(), shapes[i].batch);
    const tk::kernels::matmul_waves::Plan plan = tk::kernels::matmul_policy::Cuda::f64_units_plan(dev, args);
    if (tk::detail::knobs().matmul_split == 0)  // TK_MATMUL_SPLIT forces another plan
      EXPECT_TRUE(plan == plans[i]) << "shape " << i << ": plan " << plan.dp_rows << " rows unsplit, " << plan.splits
                                    << " splits";
    const tk::kernels::matmul_waves::Peel peel = tk::kernels::matmul_policy::Cuda::f64_units_peel(dev, args);
    EXPECT_TRUE(peel == peels[i]) << "shape " << i << ": peel " << peel.rows << " rows, " << peel.cols << " columns";
    if (gpu == Gpu::cuda) launchers::cpu_as_cuda::gemm(dev, MatmulVariant::best, args, nullptr);
    else launchers::cpu_as_hip::gemm(dev, MatmulVariant::best, args, nullptr);
    expect_gemm_matches(p, C.to_host());
  }
}

std::vector<DgemmParam> dgemm_params() {
  std::vector<DgemmParam> out;
  for (Gpu gpu : {Gpu::cuda, Gpu::hip}) {
    for (Op oa : {Op::none, Op::trans}) {
      for (Op ob : {Op::none, Op::trans}) out.emplace_back(gpu, oa, ob);
    }
  }
  return out;
}

std::string dgemm_test_name(const ::testing::TestParamInfo<DgemmParam>& i) {
  const auto& [gpu, oa, ob] = i.param;
  return std::string(gpu_name(gpu)) + "_" + to_string(oa) + to_string(ob);
}

INSTANTIATE_TEST_SUITE_P(GpuShapes, DgemmOnGpuShapes, ::testing::ValuesIn(dgemm_params()), dgemm_test_name);

// The CUDA and HIP policies' pick (kernels/matmul/policy/) on the CPU executor, for shapes whose choice does
// not depend on the number of SMs (the executor's device reports its cores), or is made to follow it: the rule of
// docs/design.md#what-best-runs, tested where CI runs. (tests/test_gemm.cpp's GemmTileChoice runs the rules
// that depend on a real GPU's SM count there. Not covered by either: cuda_square_nt and cuda_wide, which depend
// on the storage and the alignment that the tile-choice text does not take, and the double configurations of
// batches and of the FP64 tensor cores.)
TEST(GemmTileChoiceOnGpuShapes, CudaPickFollowsTheRule) {
  const Device cpu = Device::cpu();
  const auto choice = [&](int bytes, std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t batch = 1) {
    return launchers::cpu_as_cuda::matmul_tile_choice(cpu, bytes, M, N, K, batch);
  };
  const auto picks = [&](int bytes, std::int64_t M, std::int64_t N, std::int64_t K, const std::string& config,
                         std::int64_t batch = 1) {
    const std::string c = choice(bytes, M, N, K, batch);
    EXPECT_NE(c.find("configuration " + config + " ="), std::string::npos)
        << M << " x " << N << " x " << K << " x " << batch << ": " << c;
  };
  picks(4, 4096, 4096, 4096, "cuda_square");  // long K, many tiles, 16-byte rows
  picks(4, 4096, 4096, 512, "cuda_mid");      // K <= 1536 (and 2048 tiles of 128 x 64: over 4.25 an SM below 482)
  picks(4, 64, 8192, 4096, "cuda_thin_m");    // 9-64 rows of C
  picks(4, 8192, 20, 4096, "cuda_thin_n");    // 9-32 columns
  // DGEMM: this copy's executor sends every product with K > 0 to the FP64 matrix-unit kernel (f64_on_units), and
  // says so; behind it, warp_tiled's pick for a GPU without FP64 tensor cores
  EXPECT_NE(choice(8, 4096, 4096, 4096).find("mma_tiled on the FP64 matrix units"), std::string::npos);
  EXPECT_NE(choice(8, 100, 100, 4096, 3).find("mma_tiled on the FP64 matrix units"), std::string::npos);
  {
    tk::detail::GemmArgs<double> d;
    d.M = d.N = d.K = d.lda = d.ldb = d.ldc = 4096;
    EXPECT_STREQ(tk::kernels::matmul_policy::Cuda::pick(cpu, d), "cuda_f64");  // no FP64 tensor cores on this device
    d.M = d.N = d.ldb = d.ldc = 100;
    if (cpu.props().multiprocessors >= 2)
      EXPECT_STREQ(tk::kernels::matmul_policy::Cuda::pick(cpu, d), "cuda_f64_small");  // fewer tiles than SMs
  }
  // sm_90's rule: every product with K > 0 on the FP64 matrix-unit kernel, single or batched, aligned or not, as
  // measured on the H100 (docs/performance.md#h100-dgemm-every-product); single products split along K where the
  // wave plan says, on the H100's machine (132 SMs of two blocks, 1980 MHz, 3352 GB/s)
  {
    namespace mw = tk::kernels::matmul_waves;
    const mw::Machine h100{264, 128.0 * 2 * 132 * 1.98e9 / 3.352e12, 8e-6 * 3.352e12, 132};
    const auto units = [&](std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t batch = 1) {
      tk::detail::GemmArgs<double> d;
      d.M = M, d.N = N, d.K = K, d.lda = K, d.ldb = N, d.ldc = N, d.batch = batch;
      return tk::kernels::matmul_policy::Cuda::f64_units_on(d);
    };
    const auto splits = [&](std::int64_t M, std::int64_t N, std::int64_t K) {
      tk::detail::GemmArgs<double> d;
      d.M = M, d.N = N, d.K = K, d.lda = K, d.ldb = N, d.ldc = N;
      return tk::kernels::matmul_policy::Cuda::f64_units_plan_on(d, h100).splits;
    };
    if (tk::detail::knobs().matmul_split == 0) {  // TK_MATMUL_SPLIT forces another plan
      EXPECT_EQ(splits(512, 512, 512), 4);        // 74.7% of cuBLAS against cuda_dmma_small's 60.2
      EXPECT_EQ(splits(768, 768, 768), 3);        // 75.2 against 67.9
      EXPECT_EQ(splits(512, 512, 8192), 8);       // 80.2 against 67.4
      EXPECT_EQ(splits(1024, 1024, 1024), 1);     // one block an SM: split 2 ways 67.3, unsplit 73.8
      EXPECT_EQ(splits(2049, 2049, 2049), 1);     // the hybrid (60.3) not taken: unsplit 63.6
    }
    // every product with K > 0, whatever its waves and lines (the shapes the rule before kept off the kernel, and
    // what the kernel then ran at on the H100, % of cuBLAS, against the rule before's kernel)
    EXPECT_TRUE(units(1024, 1024, 2048));    // under a wave: 76.0 against cuda_dmma_small's 51.0-52.4
    EXPECT_TRUE(units(1700, 1700, 1701));    // lines off 16 bytes, 72% of its waves: 71.0 against 60.4-60.5
    EXPECT_TRUE(units(200, 200, 200, 100));  // a batch, 75.7% of its waves: 63.1 against 53.3-55.5
    EXPECT_TRUE(units(4096, 4096, 4096));    // full waves
    EXPECT_FALSE(units(1024, 1024, 0));      // C = beta C: nothing to multiply
    EXPECT_FALSE(units(1024, 1024, 0, 8));   // nor in a batch
    // the peel: C's last rows where whole tile rows then fill fewer rounds of two blocks an SM
    const auto peel = [&](std::int64_t M, std::int64_t N, std::int64_t K) {
      tk::detail::GemmArgs<double> d;
      d.M = M, d.N = N, d.K = K, d.lda = K, d.ldb = N, d.ldc = N;
      return tk::kernels::matmul_policy::Cuda::f64_units_peel_on(d, h100);
    };
    using Peel = tk::kernels::matmul_waves::Peel;
    EXPECT_TRUE((peel(2049, 2049, 2049) == Peel{1, 0}));  // 528 blocks, four an SM, against 561
    EXPECT_TRUE((peel(4097, 4097, 4097) == Peel{1, 0}));
    EXPECT_TRUE((peel(2056, 2056, 2056) == Peel{8, 0}));  // at most 8 rows
    EXPECT_TRUE((peel(2057, 2057, 2057) == Peel{}));      // 9
    EXPECT_TRUE((peel(2048, 2048, 2048) == Peel{}));      // whole tiles
    EXPECT_TRUE((peel(4097, 4096, 4096) == Peel{}));      // 2048 blocks or 2112: 16 an SM either way
    EXPECT_TRUE((peel(1025, 1025, 1025) == Peel{}));
    EXPECT_TRUE((peel(2049, 2049, 64) == Peel{}));  // short K: the row's read of B costs more than the round
    EXPECT_TRUE((peel(1111, 4444, 2222) == Peel{}));
    EXPECT_TRUE((peel(6000, 5000, 3000) == Peel{0, 8}));  // 3666 blocks (28 an SM) against 3713 (29)
    // where `best` takes the peel: the rest of C on the MMA kernel, whatever the storage (NN and TN 2049^3 since
    // partial chunks are copied in flight: 95.8 / 95.4% of cuBLAS peeled, 69.1 / 72.4 on cuda_dmma)
    const auto taken = [&](std::int64_t M, std::int64_t N, std::int64_t K, bool tb) {
      tk::detail::GemmArgs<double> d;
      d.M = M, d.N = N, d.K = K, d.lda = K, d.ldb = tb ? K : N, d.ldc = N, d.tb = tb;
      const auto units = [&](const tk::detail::GemmArgs<double>& x) {
        return tk::kernels::matmul_policy::Cuda::f64_units_on(x);
      };
      const Peel p = tk::kernels::matmul_policy::Cuda::f64_units_peel_on(d, h100);
      return tk::kernels::matmul_policy::Cuda::f64_units_peel_taken(p, d, units);
    };
    EXPECT_TRUE((taken(2049, 2049, 2049, false) == Peel{1, 0}));  // NN
    EXPECT_TRUE((taken(2049, 2049, 2049, true) == Peel{1, 0}));   // NT
    EXPECT_TRUE((taken(1538, 1408, 256, false) == Peel{2, 0}));   // 264 blocks left
    EXPECT_TRUE((taken(1026, 2048, 256, false) == Peel{2, 0}));   // 256 blocks left, under a wave of 128 x 128
    EXPECT_TRUE((taken(2050, 2050, 2050, false) == Peel{2, 0}));
  }
  // one matrix whose 128 x 64 tiles would fill more than a quarter and at most half of the H200's 132 SMs, K <= 1024,
  // both sides >= 256: the 64 x 64 tiles (measured at 513^3 and 640^3; docs/performance.md#h200-fp32-half-wave-tiles)
  {
    namespace mp = tk::kernels::matmul_policy;
    const auto half = [](std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t batch = 1) {
      tk::detail::GemmArgs<float> f;
      f.M = M, f.N = N, f.K = K, f.batch = batch;
      return mp::Cuda::half_wave_tiles_64(f, 132);
    };
    EXPECT_TRUE(half(513, 513, 513));      // 45 tiles
    EXPECT_TRUE(half(640, 640, 640));      // 50
    EXPECT_TRUE(half(1024, 512, 1024));    // 64 tiles; K at the limit
    EXPECT_FALSE(half(640, 640, 1025));    // K over 1024
    EXPECT_FALSE(half(768, 768, 768));     // 72 tiles: over half (not measured on these tiles)
    EXPECT_FALSE(half(1000, 1000, 1000));  // 128 tiles: lost there
    EXPECT_FALSE(half(512, 512, 512));     // 32 tiles: a quarter or less (the thin tiles where rows are 16-byte)
    EXPECT_FALSE(half(255, 1536, 512));    // 48 tiles, but a side under 256
    EXPECT_FALSE(half(1536, 255, 512));
    EXPECT_FALSE(half(640, 640, 640, 2));  // a batch: batch_tiles and batch_rows_64 decide
  }
  // one matrix of 16-byte rows, K >= 768 (>= 500 in NN), whose cuda_mid tiles give the H200's 132 SMs more than 3.5
  // and at most 4.25 blocks each: cuda_square (docs/performance.md#h200-fp32-square-tiles-k-1024)
  {
    namespace mp = tk::kernels::matmul_policy;
    const auto args = [](std::int64_t M, std::int64_t N, std::int64_t K, bool ta = false, bool tb = false,
                         std::int64_t batch = 1, std::int64_t a_extra = 0, std::int64_t b_extra = 0) {
      tk::detail::GemmArgs<float> f;
      f.M = M, f.N = N, f.K = K, f.batch = batch, f.ta = ta, f.tb = tb;
      f.lda = (ta ? M : K) + a_extra, f.ldb = (tb ? K : N) + b_extra, f.ldc = N;
      return f;
    };
    const auto square = [&](auto... shape) { return mp::Cuda::square_tiles_fill_better(args(shape...), 132); };
    for (const bool ta : {false, true})
      for (const bool tb : {false, true}) {
        EXPECT_TRUE(square(2048, 2048, 1024, ta, tb));  // 512 tiles of 128 x 64: 3.9 an SM (won)
        EXPECT_TRUE(square(2048, 2048, 1536, ta, tb));
        EXPECT_TRUE(square(1024, 4096, 1024, ta, tb));
        EXPECT_TRUE(square(1800, 2300, 1400, ta, tb));  // 540: 4.09 (won)
        EXPECT_TRUE(square(1800, 2300, 1000, ta, tb));
        EXPECT_TRUE(square(128, 64 * 463, 768, ta, tb));    // 463 tiles: just over 3.5 an SM; K at its limit
        EXPECT_FALSE(square(128, 64 * 462, 1024, ta, tb));  // 462: 3.5
        EXPECT_TRUE(square(128, 64 * 561, 1024, ta, tb));   // 561: 4.25
        EXPECT_FALSE(square(128, 64 * 562, 1024, ta, tb));
        EXPECT_FALSE(square(1664, 2048, 1024, ta, tb));          // 416: 3.15 (cuda_mid ahead)
        EXPECT_FALSE(square(1792, 2048, 1024, ta, tb));          // 448: 3.39 (level)
        EXPECT_TRUE(square(2176, 2048, 1024, ta, tb));           // 544: 4.12 (won)
        EXPECT_FALSE(square(1792, 1792, 1024, ta, tb));          // 392 (lost)
        EXPECT_FALSE(square(2200, 2200, 1000, ta, tb));          // 630: 4.8 (lost)
        EXPECT_FALSE(square(2560, 2560, 1024, ta, tb));          // 800 (lost)
        EXPECT_FALSE(square(4096, 4096, 1024, ta, tb));          // 2048 (level)
        EXPECT_FALSE(square(2048, 2048, 256, ta, tb));           // K too short in every storage
        EXPECT_EQ(square(2048, 2048, 512, ta, tb), !ta && !tb);  // K of 500-767: NN alone (won there only)
        EXPECT_EQ(square(2100, 1900, 700, ta, tb), !ta && !tb);
        EXPECT_FALSE(square(2048, 2048, 499, ta, tb));
        EXPECT_EQ(square(2048, 2048, 767, ta, tb, 1, ta ? 0 : 1, tb ? 1 : 0), !ta && !tb);  // (rows padded to 768)
        EXPECT_TRUE(square(2048, 2048, 768, ta, tb));
        EXPECT_FALSE(square(2048, 2048, 1024, ta, tb, 2));        // a batch: not measured
        EXPECT_FALSE(square(2048, 2048, 1024, ta, tb, 1, 1, 0));  // A's rows not 16-byte multiples
        EXPECT_FALSE(square(2048, 2048, 1024, ta, tb, 1, 0, 1));  // B's
        EXPECT_FALSE(square(128 * 500, 64, 1024, ta, tb));        // 500 tiles either way: 3.8 an SM of 128 x 128 tiles
        EXPECT_FALSE(square(128 * 157, 160, 1024, ta, tb));       // 471 of 128 x 64 (3.6 an SM), 314 of 128 x 128 (2.4)
        EXPECT_TRUE(square(128 * 96, 320, 1024, ta, tb));         // 480 (3.6) and 288 (2.18)
        EXPECT_FALSE(square(128 * 97, 320, 1024, ta, tb));        // 485 and 291: over 2.2 an SM
      }
    // pick itself: on this executor's cores (its SMs here), 128 x 4c columns, 4 tiles of 128 x 64 and 2 of 128 x
    // 128 an SM, K = 1024 (cuda_square_nt in NT); 128 x 64c (cuda_mid's one round) stays
    const std::int64_t c = cpu.props().multiprocessors;
    for (const bool ta : {false, true})
      for (const bool tb : {false, true}) {
        EXPECT_STREQ(mp::Cuda::pick(cpu, args(128, 64 * 4 * c, 1024, ta, tb)),
                     !ta && tb ? "cuda_square_nt" : "cuda_square");
        EXPECT_STREQ(mp::Cuda::pick(cpu, args(128, 64 * 3 * c, 1024, ta, tb)), "cuda_mid");
      }
  }
  // batches of small matrices: the tile that covers more of itself, 64 x 64 on a tie; sides of 16-96 alone
  picks(4, 32, 32, 32, "cuda_batch_32", 10000);  // (before: the matrix-vector kernel, a side of 32)
  picks(4, 32, 32, 32, "cuda_thin_m");           // one product: the thin tiles
  picks(4, 64, 64, 64, "cuda_batch_64", 20000);
  picks(4, 48, 48, 48, "cuda_batch_64", 10000);  // a tie: each covers 56%
  picks(4, 96, 96, 96, "cuda_batch_32", 5000);
  picks(4, 64, 96, 1000, "cuda_batch_32", 2);  // 64 x 96: 100% against 75%; K and the batch's size do not count
  picks(4, 40, 40, 16, "cuda_batch_64", 100);  // 39% each
  picks(4, 40, 16, 16, "cuda_batch_32", 100);  // 31% against 16%
  picks(4, 128, 128, 128, "cuda_mid", 4096);   // a side over 96
  picks(4, 96, 97, 64, "cuda_mid", 100);
  // batches that cuda_mid's 128-row tiles would leave a quarter empty or more: 64-row tiles
  picks(4, 192, 320, 128, "cuda_batch_64", 1000);  // 2 x 128 rows against 3 x 64
  picks(4, 129, 2048, 256, "cuda_batch_64", 2);
  picks(4, 64, 320, 128, "cuda_batch_64", 1000);  // half empty
  picks(4, 192, 320, 128, "cuda_mid");            // one product
  picks(4, 193, 320, 128, "cuda_mid", 1000);      // 256 rows each way
  picks(4, 320, 320, 128, "cuda_mid", 1000);      // 384 against 320 rows: a sixth
  picks(4, 256, 256, 256, "cuda_mid", 1000);
  picks(4, 192, 4096, 4096, "cuda_square", 100);  // the long-K rule first
  picks(4, 160, 12, 128, "cuda_mid", 1000);       // a side under 16 (past the matrix-vector kernel's 8 here)
  // batches with a side of 16-32 and the other over 96: 32 x 32 tiles, the thin tiles across rows from 1000 columns
  picks(4, 32, 320, 128, "cuda_batch_32", 1000);  // (before: the matrix-vector kernel, 32 rows in NN)
  picks(4, 16, 200, 64, "cuda_batch_32", 1000);
  // 16-32 columns: the thin tiles across columns where M >= 128 and 128-row tiles leave no more rows empty than
  // 32-row ones (NN here; TN below)
  picks(4, 1000, 16, 512, "cuda_thin_n", 100);  // 1024 rows each way
  picks(4, 128, 32, 256, "cuda_thin_n", 1000);
  picks(4, 768, 16, 128, "cuda_thin_n", 400);    // K does not count
  picks(4, 100, 20, 300, "cuda_batch_32", 500);  // M under 128
  picks(4, 333, 20, 300, "cuda_batch_32", 500);  // 384 rows against 352
  picks(4, 160, 32, 512, "cuda_batch_32", 500);  // 256 against 160
  picks(4, 17, 999, 40, "cuda_batch_32", 400);
  picks(4, 24, 1000, 256, "cuda_thin_m", 200);
  picks(4, 32, 2048, 4096, "cuda_thin_m", 50);   // K does not count (128-row tiles would hold a quarter)
  picks(4, 2048, 32, 512, "cuda_thin_n", 50);    // the thin tiles across columns, not across rows
  picks(4, 33, 2048, 512, "cuda_batch_64", 50);  // a side over 32: the 64-row rule
  // a side under 16 in NN: the matrix-vector kernel first (tiles_not_gemv leaves the 64-row rule out)
  EXPECT_EQ(choice(4, 15, 320, 128, 1000).rfind("gemv", 0), 0u);
  EXPECT_EQ(choice(8, 64, 64, 64, 1000).find("cuda_batch"), std::string::npos);            // float alone
  EXPECT_NE(choice(4, 64, 64, 64, 20000).find(", a batch of 20000)"), std::string::npos);  // the text names it
  EXPECT_EQ(choice(4, 15, 64, 64, 1000).rfind("gemv", 0), 0u);  // a side under 16: the matrix-vector kernel
  EXPECT_EQ(choice(4, 6, 8192, 4096).rfind("gemv", 0), 0u);     // at most 8 rows: the matrix-vector kernel
  // the derived name follows the role name
  EXPECT_NE(choice(4, 4096, 4096, 4096).find("cuda_square = b128x128x8_w64x64x4_t8x4_l32_s3_m2_whole"),
            std::string::npos)
      << choice(4, 4096, 4096, 4096);
}

// The storage, which the tile-choice text does not take: a batch with 16-32 columns of C whose 128-row tiles hold
// its rows whole takes the thin tiles across columns in NN, NT and TT, the 32 x 32 tiles in TN.
TEST(GemmTileChoiceOnGpuShapes, CudaSmallSideBatchesTakeTheThinTilesOutsideTN) {
  using tk::kernels::matmul_policy::Cuda;
  tk::detail::GemmArgs<float> a;
  a.M = 1000;
  a.N = 16;
  a.K = 512;
  a.batch = 100;
  for (const bool ta : {false, true}) {
    for (const bool tb : {false, true}) {
      a.ta = ta;
      a.tb = tb;
      const std::string want = ta && !tb ? "cuda_batch_32" : "cuda_thin_n";
      EXPECT_EQ(std::string(Cuda::batch_tiles(a)), want) << "ta " << ta << ", tb " << tb;
    }
  }
  a.ta = a.tb = false;
  a.M = 1500;  // its last 128-row tile holds 92 rows: three 32-row tiles would hold them
  EXPECT_EQ(std::string(Cuda::batch_tiles(a)), "cuda_batch_32");
}

// The warpgroup kernel takes a batch only of matrices larger than a 128 x 128 tile; single products always.
TEST(GemmTileChoiceOnGpuShapes, CudaWarpgroupTakesBatchesOfLargerMatrices) {
  using tk::kernels::matmul_policy::Cuda;
  EXPECT_TRUE(Cuda::warpgroup_batch(64, 64, 1));
  EXPECT_TRUE(Cuda::warpgroup_batch(1, 1, 1));
  EXPECT_FALSE(Cuda::warpgroup_batch(64, 64, 1000));
  EXPECT_FALSE(Cuda::warpgroup_batch(128, 128, 2));
  EXPECT_TRUE(Cuda::warpgroup_batch(128, 129, 2));
  EXPECT_TRUE(Cuda::warpgroup_batch(256, 256, 512));
}

// The names of the kernels that run() launches, each followed by a space, in launch order: the launches are recorded
// (tk::detail::describe_sink), nothing runs.
template <class Run>
std::string kernels_of(Run run) {
  std::vector<KernelResources> got;
  tk::detail::describe_sink() = &got;
  try {
    run();
  } catch (...) {
    tk::detail::describe_sink() = nullptr;
    throw;
  }
  tk::detail::describe_sink() = nullptr;
  std::string names;
  for (const auto& k : got) names += k.kernel + " ";
  return names;
}

// CUDA's `best` on the matrix units runs the tensor-copy warpgroup kernel where every line of A and B starts on 16
// bytes and TF32's operands come K-major (a single TF32 product's MN-major ones after their transposition first), and
// the block-barrier kernel for a TF32 batch with an MN-major operand (transposed in its strips); with
// TK_MATMUL_WARPGROUP=1 the block-barrier kernel everywhere. Nothing runs: the launches are recorded
// (tk::detail::describe_sink).
TEST(GemmTileChoiceOnGpuShapes, CudaWarpgroupCopiesByTensorMapsWhereTheLayoutAllows) {
  const bool tma = tk::detail::knobs().matmul_warpgroup != 1;
  const std::string chosen = tma ? "matmul_warpgroup_tma" : "matmul_warpgroup_tiled",
                    other = tma ? "matmul_warpgroup_tiled" : "matmul_warpgroup_tma";
  const Device dev = Device::cpu();
  const std::int64_t n = 256;
  Buffer<tk::bf16> A16(dev, std::vector<tk::bf16>(2 * n * n)), B16(dev, std::vector<tk::bf16>(2 * n * n));
  Buffer<float> A(dev, std::vector<float>(2 * n * n)), B(dev, std::vector<float>(2 * n * n)),
      C(dev, std::vector<float>(2 * n * n));
  for (const bool ta : {false, true}) {
    for (const bool tb : {false, true}) {
      tk::detail::GemmArgs<float, tk::bf16, float> a;
      a.M = a.N = a.K = n;
      a.A = A16.data();
      a.B = B16.data();
      a.C = C.data();
      a.lda = a.ldb = a.ldc = n;
      a.ta = ta;
      a.tb = tb;
      a.alpha = 1.f;
      a.beta = 0.f;
      const std::string k = kernels_of([&] { launchers::cpu_as_cuda::gemm(dev, MatmulVariant::best, a); });
      EXPECT_NE(k.find(chosen), std::string::npos) << "BF16 " << ta << tb << ": " << k;
      EXPECT_EQ(k.find(other), std::string::npos) << "BF16 " << ta << tb << ": " << k;
    }
  }
  for (const bool batch : {false, true}) {
    tk::detail::GemmArgs<float> a;
    a.M = a.N = a.K = n;
    a.A = A.data();
    a.B = B.data();
    a.C = C.data();
    a.lda = a.ldb = a.ldc = n;
    a.sa = a.sb = a.sc = n * n;
    a.batch = batch ? 2 : 1;
    a.alpha = 1.f;
    a.beta = 0.f;
    a.math = tk::Math::tf32;  // NN: B is N-major
    const std::string k = kernels_of([&] { launchers::cpu_as_cuda::gemm(dev, MatmulVariant::best, a, nullptr); });
    EXPECT_NE(k.find(batch ? "matmul_warpgroup_tiled" : chosen), std::string::npos)
        << "TF32 NN, batch " << a.batch << ": " << k;
  }
}

// The wave plans' splits along K run where the plans say (on the executor's pretend GPU of 4 slots:
// tests/test_waves.cpp), which the GPU-shape tests cannot show (a split product equals the unsplit one): on CUDA's
// matrix-unit kernel (BF16) one 128 x 256 tile with K = 1000 is launched split and summed by the reduction; 5 tile rows
// run 4 unsplit and the last split; 32 tiles (8 whole waves) run unsplit. warp_tiled (float) splits a small C with a
// long K. A launcher that ignored its plan computes the same C and fails here. Skipped under TK_MATMUL_SPLIT, which
// forces the plans.
TEST(GemmTileChoiceOnGpuShapes, WavePlansSplitAlongKWhereTheySay) {
  if (tk::detail::knobs().matmul_split != 0) GTEST_SKIP() << "TK_MATMUL_SPLIT forces the plans";
  const Device dev = Device::cpu();
  const std::int64_t most = 1024 * 1024;
  Buffer<tk::bf16> A16(dev, std::vector<tk::bf16>(most)), B16(dev, std::vector<tk::bf16>(most));
  Buffer<float> A(dev, std::vector<float>(most)), B(dev, std::vector<float>(most)), C(dev, std::vector<float>(most));
  const auto bf16_kernels = [&](std::int64_t M, std::int64_t N, std::int64_t K) {
    tk::detail::GemmArgs<float, tk::bf16, float> a;
    a.M = M;
    a.N = N;
    a.K = K;
    a.A = A16.data();
    a.B = B16.data();
    a.C = C.data();
    a.lda = K;
    a.ldb = N;
    a.ldc = N;
    a.alpha = 1.f;
    a.beta = 0.f;
    return kernels_of([&] { launchers::cpu_as_cuda::gemm(dev, MatmulVariant::best, a); });
  };
  const auto count = [](const std::string& names, const std::string& what) {
    int n = 0;
    for (std::size_t at = names.find(what); at != std::string::npos; at = names.find(what, at + 1)) ++n;
    return n;
  };
  std::string k = bf16_kernels(100, 200, 1000);
  EXPECT_EQ(count(k, "(split-K) "), 1) << k;
  EXPECT_EQ(count(k, "matmul_splitk_reduce "), 1) << k;
  k = bf16_kernels(520, 40, 512);
  EXPECT_EQ(count(k, "(split-K) "), 1) << k;
  EXPECT_EQ(count(k, "matmul_splitk_reduce "), 1) << k;
  EXPECT_EQ(count(k, "matmul_warpgroup_"), 2) << "4 whole rows unsplit, the last split: " << k;
  k = bf16_kernels(1024, 1024, 1024);
  EXPECT_EQ(count(k, "split"), 0) << k;
  EXPECT_EQ(count(k, "matmul_warpgroup_"), 1) << k;

  tk::detail::GemmArgs<float> f;
  f.M = 70;
  f.N = 90;
  f.K = 1100;
  f.A = A.data();
  f.B = B.data();
  f.C = C.data();
  f.lda = f.K;
  f.ldb = f.ldc = f.N;
  f.alpha = 1.f;
  f.beta = 0.f;
  k = kernels_of([&] { launchers::cpu_as_cuda::gemm(dev, MatmulVariant::warp_tiled, f, nullptr); });
  EXPECT_EQ(count(k, "matmul_warp_tiled(split-K) "), 1) << k;
  EXPECT_EQ(count(k, "matmul_splitk_reduce "), 1) << k;

  // DGEMM on the matrix units' kernel (policy/cuda.hpp f64_units_plan): C of two tiles split 2 ways, one of four
  // tiles and K of 64 (four strips) not
  Buffer<double> Ad(dev, std::vector<double>(most)), Bd(dev, std::vector<double>(most)),
      Cd(dev, std::vector<double>(most));
  const auto f64_kernels = [&](std::int64_t M, std::int64_t N, std::int64_t K) {
    tk::detail::GemmArgs<double> d;
    d.M = M;
    d.N = N;
    d.K = K;
    d.A = Ad.data();
    d.B = Bd.data();
    d.C = Cd.data();
    d.lda = K;
    d.ldb = d.ldc = N;
    d.alpha = 1;
    d.beta = 0;
    return kernels_of([&] { launchers::cpu_as_cuda::gemm(dev, MatmulVariant::best, d, nullptr); });
  };
  k = f64_kernels(136, 64, 600);
  EXPECT_EQ(count(k, "matmul_mma_tiled(split-K) "), 1) << k;
  EXPECT_EQ(count(k, "matmul_splitk_reduce "), 1) << k;
  k = f64_kernels(200, 100, 64);
  EXPECT_EQ(count(k, "split"), 0) << k;
  EXPECT_EQ(count(k, "matmul_mma_tiled "), 1) << k;
}

// TK_MATMUL_SPLIT's plans: 1 no split; more splits than strips of K are capped at one a strip; each split a whole
// number of strips and none empty (100 deep in strips of 8: 12 asked, 7 of 16).
TEST(GemmTileChoiceOnGpuShapes, ForcedSplitsCoverKWithNoneEmpty) {
  using tk::kernels::matmul_policy::Cuda;
  EXPECT_EQ(Cuda::forced_plan(4096, 64, 1).splits, 1);
  EXPECT_EQ(Cuda::forced_plan(4096, 64, 4).splits, 4);
  EXPECT_EQ(Cuda::forced_plan(100, 64, 8).splits, 2);
  EXPECT_EQ(Cuda::forced_plan(40, 64, 8).splits, 1);
  for (std::int64_t K : {1, 63, 64, 100, 1000, 4097}) {
    for (int forced : {2, 3, 7, 12, 256}) {
      const auto p = Cuda::forced_plan(K, 8, forced);
      EXPECT_EQ(p.dp_rows, 0);
      EXPECT_LE(p.splits, forced);
      const std::int64_t per = (K + p.splits * 8 - 1) / (p.splits * 8) * 8;
      EXPECT_LT((p.splits - 1) * per, K) << "K " << K << ", " << forced << " asked: split " << p.splits - 1 << " empty";
      EXPECT_GE(p.splits * per, K);
    }
  }
  EXPECT_EQ(Cuda::forced_plan(100, 8, 12).splits, 7);
}

TEST(GemmTileChoiceOnGpuShapes, HipPicksItsOneConfigurationPerPrecision) {
  const Device cpu = Device::cpu();
  EXPECT_NE(launchers::cpu_as_hip::matmul_tile_choice(cpu, 4, 4096, 4096, 4096, 1).find("hip_f32 = "),
            std::string::npos);
  // DGEMM with K > 0 on this copy's executor: the FP64 matrix-unit kernel (f64_on_units); behind it, hip_f64
  EXPECT_NE(launchers::cpu_as_hip::matmul_tile_choice(cpu, 8, 4096, 4096, 4096, 1).find("mma_tiled on the FP64"),
            std::string::npos);
  tk::detail::GemmArgs<double> d;
  d.M = d.N = d.K = d.lda = d.ldb = d.ldc = 4096;
  EXPECT_STREQ(tk::kernels::matmul_policy::Hip::pick(cpu, d), "hip_f64");
}

// The other matmul variants with their GPU block shapes (16 x 16, 32 x 32, the register-tiled 128 x 128),
// float and double, transposed or not.
using VariantParam = std::tuple<Gpu, MatmulVariant>;
class MatmulVariantsOnGpuShapes : public ::testing::TestWithParam<VariantParam> {};

TEST_P(MatmulVariantsOnGpuShapes, MatchWiderReference) {
  const auto& [gpu, variant] = GetParam();
  const Device dev = Device::cpu();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const GemmShape s{97, 131, 75, 2, 2, 2};
  auto run = [&](auto zero, Op oa, Op ob) {
    using T = decltype(zero);
    std::mt19937_64 rng(seed);
    const GemmProblem<T> p = make_problem<T>(Layout::row_major, oa, ob, s, rng);
    Buffer<T> A(dev, p.a), B(dev, p.b), C(dev, p.c0);
    const tk::detail::GemmArgs<T> args = launcher_args(p, A.data(), B.data(), C.data(), 1);
    if (gpu == Gpu::cuda) launchers::cpu_as_cuda::gemm(dev, variant, args);
    else launchers::cpu_as_hip::gemm(dev, variant, args);
    expect_gemm_matches(p, C.to_host());
  };
  for (Op oa : {Op::none, Op::trans}) {
    for (Op ob : {Op::none, Op::trans}) {
      run(0.f, oa, ob);
      run(0.0, oa, ob);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(GpuShapes, MatmulVariantsOnGpuShapes,
                         ::testing::Combine(::testing::Values(Gpu::cuda, Gpu::hip),
                                            ::testing::Values(MatmulVariant::naive, MatmulVariant::smem_tiled16,
                                                              MatmulVariant::smem_tiled32, MatmulVariant::smem_dynamic,
                                                              MatmulVariant::register_tiled)),
                         [](const ::testing::TestParamInfo<VariantParam>& i) {
                           return std::string(gpu_name(std::get<0>(i.param))) + "_" + to_string(std::get<1>(i.param));
                         });

// `best` with a side of C of at most 8 (kernels/matmul/gemv.hpp with the GPU's 16-byte vectors and blocks),
// every storage, both element types.
class GemvOnGpuShapes : public ::testing::TestWithParam<Gpu> {};

TEST_P(GemvOnGpuShapes, MatchesWiderReference) {
  const Gpu gpu = GetParam();
  const Device dev = Device::cpu();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto run = [&](auto zero, Op oa, Op ob, const GemmShape& s) {
    using T = decltype(zero);
    std::mt19937_64 rng(seed);
    const GemmProblem<T> p = make_problem<T>(Layout::row_major, oa, ob, s, rng);
    Buffer<T> A(dev, p.a), B(dev, p.b), C(dev, p.c0);
    const tk::detail::GemmArgs<T> args = launcher_args(p, A.data(), B.data(), C.data(), s.batch);
    if (gpu == Gpu::cuda) launchers::cpu_as_cuda::gemm(dev, MatmulVariant::best, args);
    else launchers::cpu_as_hip::gemm(dev, MatmulVariant::best, args);
    expect_gemm_matches(p, C.to_host());
  };
  const std::vector<GemmShape> shapes = small_side_shapes();
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    for (Op oa : {Op::none, Op::trans}) {
      for (Op ob : {Op::none, Op::trans}) {
#if defined(TK_CHECKED)
        // every access checked (44 s a GPU in CI for all of it): half the runs, every shape in both types
        // (across its storages) and every storage and type on every other shape
        if ((i + (oa == Op::trans) + (ob == Op::trans)) % 2 == 0) run(0.f, oa, ob, shapes[i]);
        else run(0.0, oa, ob, shapes[i]);
#else
        run(0.f, oa, ob, shapes[i]);
        run(0.0, oa, ob, shapes[i]);
#endif
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(GpuShapes, GemvOnGpuShapes, ::testing::Values(Gpu::cuda, Gpu::hip),
                         [](const ::testing::TestParamInfo<Gpu>& i) { return std::string(gpu_name(i.param)); });

// ---- the memory-bound ops ----

class MemoryOpsOnGpuShapes : public ::testing::TestWithParam<Gpu> {};

#define TK_ON(gpu, call) ((gpu) == Gpu::cuda ? launchers::cpu_as_cuda::call : launchers::cpu_as_hip::call)

TEST_P(MemoryOpsOnGpuShapes, TransposeEveryVariant) {
  const Gpu gpu = GetParam();
  const Device dev = Device::cpu();
  std::mt19937_64 rng(fresh_seed());
  // rows, cols, ld_in, ld_out: GPU `best`'s every path (kernels/transpose/launch.cpp): out's rows off 32-byte
  // boundaries (transpose_shaped_fast: tiles inside the matrix and at its edges); aligned; fewer than 32 rows (1, 2,
  // 5, 16, 31); fewer than 32 columns (3, 16, 31), with out's rows aligned and not.
  const std::int64_t shapes[][4] = {{129, 257, 260, 131}, {96, 200, 200, 96}, {1, 300, 300, 2},   {2, 700, 700, 2},
                                    {5, 333, 340, 7},     {16, 400, 400, 16}, {31, 150, 151, 31}, {300, 3, 3, 304},
                                    {300, 3, 4, 301},     {520, 16, 16, 520}, {333, 31, 33, 339}};
  for (const auto& sh : shapes) {
    const std::int64_t rows = sh[0], cols = sh[1], ld_in = sh[2], ld_out = sh[3];
    const auto x = random_floats(rows * ld_in, rng);
    for (TransposeVariant v :
         {TransposeVariant::naive, TransposeVariant::smem, TransposeVariant::smem_padded, TransposeVariant::best}) {
      Buffer<float> in(dev, x), out(dev, nans(cols * ld_out));
      TK_ON(gpu, transpose(dev, v, rows, cols, in.data(), ld_in, out.data(), ld_out));
      const auto y = out.to_host();
      const std::string what = std::string(to_string(v)) + " " + std::to_string(rows) + " x " + std::to_string(cols);
      for (std::int64_t i = 0; i < rows; ++i) {
        for (std::int64_t j = 0; j < cols; ++j) ASSERT_EQ(y[j * ld_out + i], x[i * ld_in + j]) << what;
      }
      for (std::int64_t j = 0; j < cols; ++j) {
        for (std::int64_t i = rows; i < ld_out; ++i) ASSERT_TRUE(std::isnan(y[j * ld_out + i])) << what;
      }
    }
  }
}

TEST_P(MemoryOpsOnGpuShapes, StencilsEveryVariant) {
  const Gpu gpu = GetParam();
  const Device dev = Device::cpu();
  std::mt19937_64 rng(fresh_seed());
  for (StencilVariant v : {StencilVariant::naive, StencilVariant::smem_tiled, StencilVariant::best}) {
    // moving average, radius 5, across several 256-thread blocks
    const std::int64_t n = 1000;
    const int r = 5;
    const auto x = random_floats(n, rng);
    Buffer<float> in(dev, x), out(dev, nans(n));
    TK_ON(gpu, moving_average(dev, v, n, in.data(), out.data(), r));
    auto y = out.to_host();
    for (std::int64_t i = 0; i < n; ++i) {
      double s = 0;
      for (std::int64_t j = std::max<std::int64_t>(0, i - r); j <= std::min(n - 1, i + r); ++j) s += x[j];
      ASSERT_NEAR(y[i], s / (2 * r + 1), 1e-5) << "moving_average " << to_string(v) << " at " << i;
    }
    // 5-point stencil and a 5 x 5 convolution on a grid that cuts the 32 x 8 blocks and 32 x 32 tiles
    const std::int64_t rows = 70, cols = 45, ld = 47;
    const auto g = random_floats(rows * ld, rng), f = random_floats(25, rng);
    auto at = [&](std::int64_t i, std::int64_t j) {
      return i >= 0 && i < rows && j >= 0 && j < cols ? double(g[i * ld + j]) : 0.0;
    };
    Buffer<float> gin(dev, g), gout(dev, nans(rows * ld)), conv(dev, nans(rows * ld)), filter(dev, f);
    TK_ON(gpu, stencil_5point(dev, v, rows, cols, gin.data(), ld, gout.data(), ld, -0.75f, 0.3f));
    TK_ON(gpu, convolve_2d(dev, v, rows, cols, gin.data(), ld, filter.data(), 2, conv.data(), ld));
    const auto s5 = gout.to_host(), cv = conv.to_host();
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < cols; ++j) {
        const double e = -0.75 * at(i, j) + 0.3 * (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1));
        ASSERT_NEAR(s5[i * ld + j], e, 1e-5) << "stencil_5point " << to_string(v) << " at " << i << ", " << j;
        double c = 0;
        for (int a = -2; a <= 2; ++a) {
          for (int b = -2; b <= 2; ++b) c += double(f[(a + 2) * 5 + b + 2]) * at(i + a, j + b);
        }
        ASSERT_NEAR(cv[i * ld + j], c, 1e-4) << "convolve_2d " << to_string(v) << " at " << i << ", " << j;
      }
      for (std::int64_t j = cols; j < ld; ++j) ASSERT_TRUE(std::isnan(s5[i * ld + j]) && std::isnan(cv[i * ld + j]));
    }
  }
}

TEST_P(MemoryOpsOnGpuShapes, AosUpdateAndElementwise) {
  const Gpu gpu = GetParam();
  const Device dev = Device::cpu();
  std::mt19937_64 rng(fresh_seed());
  const std::int64_t n = 1000;  // structs: not a multiple of the 256-thread block
  const auto x = random_floats(3 * n, rng);
  for (AosVariant v : {AosVariant::direct, AosVariant::smem_staged}) {
    Buffer<float> in(dev, x), out(dev, nans(3 * n));
    TK_ON(gpu, float3_add(dev, v, n, in.data(), out.data(), 2.f));
    const auto y = out.to_host();
    for (std::int64_t i = 0; i < 3 * n; ++i) ASSERT_EQ(y[i], x[i] + 2.f) << to_string(v) << " at " << i;
  }
  {
    Buffer<float> in(dev, x), out(dev, nans(3 * n));
    TK_ON(gpu, float3_add_soa(dev, n, in.data(), out.data(), 2.f));
    const auto y = out.to_host();
    for (std::int64_t i = 0; i < 3 * n; ++i) ASSERT_EQ(y[i], x[i] + 2.f) << "soa at " << i;
  }
  const std::int64_t m = 100003;
  const auto p = random_floats(m, rng), q = random_floats(m, rng);
  Buffer<float> P(dev, p), Q(dev, q), R(dev, nans(m)), S(dev, nans(m));
  TK_ON(gpu, copy(dev, m, P.data(), R.data()));
  TK_ON(gpu, vector_add(dev, m, P.data(), Q.data(), S.data()));
  const auto r = R.to_host(), s = S.to_host();
  for (std::int64_t i = 0; i < m; ++i) ASSERT_TRUE(r[i] == p[i] && s[i] == p[i] + q[i]) << i;
  const std::int64_t rows = 37, cols = 301, ld = 305;
  const auto u = random_floats(rows * ld, rng), w = random_floats(rows * ld, rng);
  Buffer<float> U(dev, u), W(dev, w), V(dev, nans(rows * ld));
  TK_ON(gpu, matrix_add(dev, rows, cols, U.data(), ld, W.data(), ld, V.data(), ld));
  TK_ON(gpu, matrix_scale(dev, rows, cols, 0.5f, W.data(), ld));
  const auto v = V.to_host(), ws = W.to_host();
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < ld; ++j) {
      const std::int64_t k = i * ld + j;
      if (j < cols) {
        ASSERT_EQ(v[k], u[k] + w[k]) << i << ", " << j;
        ASSERT_EQ(ws[k], 0.5f * w[k]) << i << ", " << j;
      } else {
        ASSERT_TRUE(std::isnan(v[k]) && ws[k] == w[k]) << "padding " << i << ", " << j;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(GpuShapes, MemoryOpsOnGpuShapes, ::testing::Values(Gpu::cuda, Gpu::hip),
                         [](const ::testing::TestParamInfo<Gpu>& i) { return std::string(gpu_name(i.param)); });

}  // namespace
}  // namespace tk::test
