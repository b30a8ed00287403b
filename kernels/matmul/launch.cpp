// kernels/matmul/launch.cpp — the GEMM launchers, compiled once per target: the target-neutral orchestration
// (the variant switch, batches, split-K, packing, the matrix-vector routing). What differs per target, its
// configurations, the rule that picks one, its machine model and block shapes, is in its policy
// (policy/<target>.hpp, through policy.hpp). What `best` runs is described in docs/design.md#what-best-runs.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "args.hpp"
#include "gemv.hpp"
#include "launch_mma.hpp"
#include "naive.hpp"
#include "pack.hpp"
#include "pack_rule.hpp"
#include "policy.hpp"
#include "register_tiled.hpp"
#include "smem_dynamic.hpp"
#include "smem_tiled.hpp"
#include "splitk_reduce.hpp"
#include "tilekit/detail/knobs.hpp"
#include "tilekit/detail/launchers_matmul.hpp"
#include "tilekit/detail/memory.hpp"
#include "tilekit/detail/per_device.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel.hpp"
#include "warp_tiled.hpp"

namespace tk::launchers::TK_TARGET_ID {
namespace {

using std::int64_t;
using tk::detail::GemmArgs;
using namespace tk::kernels::matmul_args;
namespace mc = tk::kernels::matmul_config;
using Policy = tk::kernels::matmul_policy::ThisTarget;

// The teaching kernels: one thread per output of t x t tiles, `shared` bytes of dynamic shared memory.
template <class T, class Kernel>
void run_simple(const Device& dev, const GemmArgs<T>& a, const char* name, int t, std::size_t shared, Kernel kernel) {
  over_batch(a, [&](int gy, int64_t z) {
    std::apply(
        [&](auto... x) {
          tk::launch(dev, {name, {tile_count(a, t, t), gy, 1}, {t, t, 1}, shared}, kernel, x...);
        },
        tk::kernels::matmul_detail::teaching_args(params(a, z)));
  });
}

// The second kernel of split-K: C = alpha * (the sum of the `splits` partial products) + beta * C, where the
// partial products are rows x cols slabs whose element (i, j) is C's element at C[i * ci + j * cj]
// (splitk_reduce.hpp).
template <class T>
void launch_splitk_reduce(const Device& dev, int64_t rows, int64_t cols, int64_t splits, const T* partial, T alpha,
                          T beta, T* C, int64_t ci, int64_t cj) {
  constexpr int threads = 256;
  const int gx = static_cast<int>((cols + threads - 1) / threads),
            gy = static_cast<int>(std::min<int64_t>(rows, 65535));
  tk::launch(dev, {"matmul_splitk_reduce", {gx, gy, 1}, {threads, 1, 1}, 0}, &tk::kernels::matmul_splitk_reduce<T>,
             rows, cols, static_cast<int>(splits), partial, alpha, beta, C, ci, cj);
}

// Runs `kernel` over the product's tiles (`tiles` per matrix, blocks of `block`): the batch in grid y, or with
// splits > 1 (a single product) splits x tiles blocks over their shares of K, summed into C by
// launch_splitk_reduce (unsplit where their workspace cannot be had). `bk`: the split's granularity along K.
// `args`: the kernel's arguments from GemmParams (common.hpp). names: the kernel's, unsplit and split.
struct Names {
  const char* whole;
  const char* split;
};
template <class T, class Kernel, class Args>
void launch_tiles(const Device& dev, const GemmArgs<T>& a, Names name, int tiles, Dim3 block, int bk, int64_t splits,
                  Kernel kernel, Args args) {
  const auto go = [&](const LaunchSpec& spec, const tk::kernels::matmul_detail::GemmParams<T>& p) {
    std::apply([&](auto... x) { tk::launch(dev, spec, kernel, x...); }, args(p));
  };
  const auto whole = [&] {
    over_batch(a, [&](int gy, int64_t z) { go({name.whole, {tiles, gy, 1}, block, 0}, params(a, z)); });
  };
  if (splits <= 1) return whole();
  auto p = params(a);
  p.k_per_split = (a.K + splits * bk - 1) / (splits * bk) * bk;
  std::optional<tk::detail::Workspace> scratch;
  try {
    scratch.emplace(dev, sizeof(T) * splits * a.M * a.N);
  } catch (const tk::Error&) {
    return whole();  // device memory is short (a forced split of a large product): unsplit
  }
  p.partial = static_cast<T*>(scratch->get());
  go({name.split, {static_cast<int>(splits) * tiles, 1, 1}, block, 0}, p);
  launch_splitk_reduce(dev, a.M, a.N, splits, static_cast<const T*>(p.partial), a.alpha, a.beta, a.C, a.ldc,
                       int64_t{1});
}

// register_tiled in the block the policy chooses (Tile: policy/gpu.hpp's RegisterTile).
template <class T>
void run_register_tiled(const Device& dev, const GemmArgs<T>& a) {
  constexpr Names register_names{"matmul_register_tiled", "matmul_register_tiled(split-K)"};
  Policy::register_tiled(dev, a, [&](auto tile, const GemmArgs<T>& part, int64_t splits) {
    using R = decltype(tile);
    // (a CPU's block runs row_tiles tiles one above the other: register_tiled.hpp)
    const int rt = Policy::row_tiles(dev, part, R::bm, R::bn, splits);
    // (the kernel's accumulators hold max_row_tiles tiles on a CPU, one on a GPU)
    if (rt < 1 || rt > (tk::this_target == tk::Target::cpu ? tk::kernels::matmul_cpu::max_row_tiles : 1))
      tk::detail::fail("tk::gemm: register_tiled's row_tiles is ", rt);
    const auto args = [rt](auto p) {
      p.row_tiles = rt;
      return tk::kernels::matmul_detail::register_tiled_args(p);
    };
    with_storage(part, [&](auto ta, auto tb) {
      const Dim3 block{R::bn / R::tn, R::bm / R::tm, 1};
      const int tiles = tile_count(part, int64_t{R::bm} * rt, R::bn);
      // (a CPU's copy splits at run time: register_tiled.hpp)
      if (tk::this_target != tk::Target::cpu && splits > 1) {
        constexpr auto kernel =
            &tk::kernels::matmul_register_tiled<T, R::bm, R::bn, R::bk, R::tm, R::tn, R::vec, ta.value, tb.value,
                                                tk::this_target != tk::Target::cpu>;
        return launch_tiles(dev, part, register_names, tiles, block, R::bk, splits, kernel, args);
      }
      constexpr auto kernel =
          &tk::kernels::matmul_register_tiled<T, R::bm, R::bn, R::bk, R::tm, R::tn, R::vec, ta.value, tb.value>;
      launch_tiles(dev, part, register_names, tiles, block, R::bk, splits, kernel, args);
    });
  });
}

// warp_tiled in configuration Cfg with compile-time alignment and storage: the policy's plan (a GPU's wave
// plan, a CPU's split for its cores) runs some rows unsplit and the rest split along K.
template <class Cfg, class T, bool AL, bool TA, bool TB>
void run_warp_tiled_as(const Device& dev, const GemmArgs<T>& a) {
  static_assert(mc::complete(Cfg::config), "a configuration names every part of its tiling");
  using W = tk::kernels::WarpTilingOf<Cfg>;
  if (a.K / W::bk >= 0x7fffffff) tk::detail::fail("tk::gemm: K = ", a.K, " needs more than 2^31 - 1 strips of ", W::bk);
  const auto kernel = &tk::kernels::matmul_warp_tiled<Cfg, T, AL, TA, TB>;
  const Dim3 block{W::lanes_n, W::warp / W::lanes_n, W::threads / W::warp};
  static tk::detail::PerDevice<int> cache;
  const int per_sm = Policy::occupancy(cache, dev, "matmul_warp_tiled", block, kernel);
  const auto plan = Policy::template plan<Cfg>(dev, a, per_sm);
  const auto launch = [&](const GemmArgs<T>& part, int64_t splits) {
    launch_tiles(dev, part, {"matmul_warp_tiled", "matmul_warp_tiled(split-K)"}, tile_count(part, W::bm, W::bn), block,
                 W::bk, splits, kernel, [](const auto& p) { return tk::kernels::matmul_detail::warp_tiled_args(p); });
  };
  if (plan.dp_rows > 0) launch(rows_of(a, 0, plan.dp_rows), 1);
  launch(rows_of(a, plan.dp_rows, a.M - plan.dp_rows), plan.splits);
}

// ---- products with a side of C of at most Policy::gemv_max_rows (gemv.hpp) ----

template <class T, int R, bool ALONG_K, bool ALIGNED>
void launch_gemv(const Device& dev, const GemmArgs<T>& a, bool m_small) {
  using S = typename Policy::template gemv_shape<T, ALONG_K, R>;
  const auto kernel = &tk::kernels::matmul_gemv<T, R, S::vec, S::bx, S::by, S::kc, ALONG_K, ALIGNED>;
  tk::kernels::GemvParams<T> p = gemv_params(a, m_small);
  const int64_t blocks_j = (p.J + S::per_block - 1) / S::per_block;
  const Dim3 block{S::bx, S::by, 1};

  // Split K (one matrix) until the grid fills the machine twice over, each split a whole number of chunks.
  int64_t splits = 1;
  if (a.batch == 1) {
    static tk::detail::PerDevice<int> cache;
    const int slots = Policy::slots(dev, Policy::occupancy(cache, dev, "matmul_gemv", block, kernel));
    const int64_t chunks = (a.K + S::kc - 1) / S::kc;
    splits = std::max<int64_t>(1, std::min<int64_t>(chunks, (2 * int64_t{slots} + blocks_j - 1) / blocks_j));
  }
  const int64_t k_per_split = (a.K + splits * S::kc - 1) / (splits * S::kc) * S::kc;
  if (k_per_split > 0) splits = (a.K + k_per_split - 1) / k_per_split;
  if (blocks_j * splits > 0x7fffffff)
    tk::detail::fail("tk::gemm: ", a.M, " x ", a.N, " needs more than 2^31 - 1 blocks of ", S::per_block);
  const int gx = static_cast<int>(blocks_j * splits);
  if (splits <= 1) {
    over_batch(a, [&](int gy, int64_t z) {
      auto pz = p;
      pz.W += z * p.sw;
      pz.X += z * p.sx;
      pz.Y += z * p.sy;
      std::apply(
          [&](auto... x) {
            tk::launch(dev, {"matmul_gemv", {gx, gy, 1}, block, 0}, kernel, x...);
          },
          tk::kernels::gemv_args(pz));
    });
    return;
  }
  // The partial sums in the kernel's own rows x J coordinates (coalesced along j), which the reduction maps
  // to C's: with few columns of C they are C's transposed. (In C's coordinates, 8192 x 32 x 4096 with A
  // stored transposed put every partial store a 128-byte stride apart and left 7 of 8 reduction threads
  // idle:
  // docs/history/performance-log.md#nvidia-h100-sgemm-in-all-four-storages-over-the-sweep-tt-on-cuda_square-nt-staged-mid-multiply-few-columns-of-c-2026-11-26-evening.)
  const tk::detail::Workspace scratch(dev, sizeof(T) * splits * a.M * a.N);
  p.k_per_split = k_per_split;
  p.partial = static_cast<T*>(scratch.get());
  std::apply(
      [&](auto... x) {
        tk::launch(dev, {"matmul_gemv(split-K)", {gx, 1, 1}, block, 0}, kernel, x...);
      },
      tk::kernels::gemv_args(p));
  launch_splitk_reduce(dev, p.rows, p.J, splits, static_cast<const T*>(p.partial), a.alpha, a.beta, a.C, p.yr, p.yj);
}

// Runs the product through gemv.hpp when C has at most gemv_max_rows rows or columns; false otherwise.
template <class T>
bool run_gemv(const Device& dev, const GemmArgs<T>& a) {
  const bool m_small = a.M <= a.N;
  const int64_t rows = m_small ? a.M : a.N;
  // W's lines lie along k when it is B stored transposed or A as stored (gemv.hpp's second form).
  const bool along_k = m_small ? a.tb : !a.ta;
  if (rows > Policy::template gemv_max_rows<T>(along_k) || rows < 1) return false;
  // 16-byte vectors: W and its lines 16-byte aligned (a CPU's VEC is 1: always).
  constexpr int64_t vec = Policy::template gemv_shape<T, false, 1>::vec;
  const bool aligned = vec == 1 || (m_small ? vec_ok(a.B, a.ldb, a.sb, a.batch) : vec_ok(a.A, a.lda, a.sa, a.batch));
  const auto go = [&](auto r, auto k_form) {
    constexpr int R = decltype(r)::value;
    constexpr bool K_FORM = decltype(k_form)::value;
    if constexpr (vec == 1) {
      launch_gemv<T, R, K_FORM, false>(dev, a, m_small);
    } else {
      if (aligned) return launch_gemv<T, R, K_FORM, true>(dev, a, m_small);
      launch_gemv<T, R, K_FORM, false>(dev, a, m_small);
    }
  };
  const auto sized = [&](auto k_form) {
    constexpr int64_t most = Policy::template gemv_max_rows<T>(decltype(k_form)::value);
    if (rows == 1) return go(std::integral_constant<int, 1>{}, k_form);
    if (rows <= 4) return go(std::integral_constant<int, 4>{}, k_form);
    if (rows <= 8) return go(std::integral_constant<int, 8>{}, k_form);
    if constexpr (most > 8) {
      if (rows <= 16) return go(std::integral_constant<int, 16>{}, k_form);
      if constexpr (most > 16) return go(std::integral_constant<int, 32>{}, k_form);
    }
  };
  if (along_k) sized(std::true_type{});
  else sized(std::false_type{});
  return true;
}

// warp_tiled in configuration Cfg. 16-byte rows whose lines end inside a chunk (B as stored with N not a
// multiple of VEC, A stored transposed with M not one): the blocks of the last column (row) of tiles cannot
// clamp their vector loads to a whole chunk (Strip::clamps; unaligned operands' scalar loads clamp one by one), so
// they run every step with bounds tests, and in a single wave the slowest block sets the kernel's time (
// docs/history/performance-log.md#nvidia-h200-sgemm-on-unaligned-operands--a-128-x-256-tile-packing-and-a-matrix-vector-tail-2026-11-26).
// Such a product runs its first N - N % VEC columns (M - M % VEC rows) here and the other 1-3 through the
// matrix-vector kernel, which reads the other operand once. A packed copy's lines are padded to whole chunks
// and may be read to their end (n_read, m_read): no tail.
template <class Cfg, class T>
void run_config(const Device& dev, const GemmArgs<T>& a) {
  const bool al = vec_ok(a);
  constexpr int64_t vec = 16 / sizeof(T);
  // part(first, count): the product over columns (rows) [first, first + count) of C
  const auto split = [&](int64_t whole, auto part) {
    const int64_t body = whole - whole % vec;
    run_config<Cfg>(dev, part(0, body));
    const GemmArgs<T> tail = part(body, whole - body);
    if (!run_gemv(dev, tail)) run_config<Cfg>(dev, tail);
  };
  if (al && !a.tb && a.N > vec && lines_b(a) % vec != 0)
    return split(a.N, [&](int64_t first, int64_t count) { return cols_of(a, first, count); });
  if (al && a.ta && a.M > vec && lines_a(a) % vec != 0)
    return split(a.M, [&](int64_t first, int64_t count) { return rows_of(a, first, count); });
  with_storage(a, [&](auto ta, auto tb) {
    if (al) return run_warp_tiled_as<Cfg, T, true, ta.value, tb.value>(dev, a);
    return run_warp_tiled_as<Cfg, T, false, ta.value, tb.value>(dev, a);
  });
}

template <class T>
using Configs = typename Policy::template configs<T>;

// Runs the entry of the list whose role name is `name`; false if none is.
template <class T, class... Cs>
bool run_named(const Device& dev, const GemmArgs<T>& a, const char* name, mc::List<Cs...>) {
  return ((std::strcmp(name, Cs::name) == 0 ? (run_config<Cs>(dev, a), true) : false) || ...);
}

// TK_MATMUL_CONFIG=<name> (a role name or a derived one) forces a configuration in every call of its
// precision (tuning runs, tools/gpu-check.sh): nullptr when unset or naming the other precision's (a double
// configuration leaves float GEMMs alone); a name that is neither precision's is refused.
template <class T>
const char* forced_config() {
  const std::string& forced = tk::detail::knobs().matmul_config;
  if (forced.empty()) return nullptr;
  using Other = std::conditional_t<sizeof(T) == 4, double, float>;
  if (const char* n = mc::find(forced.c_str(), Configs<T>{})) return n;
  if (mc::find(forced.c_str(), Configs<Other>{})) return nullptr;
  const char* call = tk::detail::current_call();
  tk::detail::fail("tk::", call ? call : "gemm", ": TK_MATMUL_CONFIG is '", forced,
                   "', not one of this target's configurations: ", mc::known_names(Configs<Other>{}), ", ",
                   mc::known_names(Configs<T>{}));
}

template <class T>
void run_warp_tiled_as_is(const Device& dev, const GemmArgs<T>& a, const char* config) {
  const char* forced = config ? nullptr : forced_config<T>();
  const char* name = config ? config : forced ? forced : Policy::pick(dev, a);
  const char* role = mc::find(name, Configs<T>{});
  if (!role || !run_named(dev, a, role, Configs<T>{})) {
    tk::detail::fail("tk::gemm: warp_tiled configuration '", name,
                     "' (argument 'config') is not one of this target's for ", sizeof(T) == 4 ? "float" : "double",
                     ": ", mc::known_names(Configs<T>{}));
  }
}

// Packing (pack.hpp): a single product whose A or B rows are not 16-byte multiples runs on copies of those
// operands with aligned rows, padded to whole chunks (so no matrix-vector tail either), when its arithmetic
// outweighs the copy (pack_rule.hpp). TK_MATMUL_PACK=0 turns it off, 2 packs every such product. If the
// workspace cannot be had (device memory is short), the product runs as it is.
template <class T>
void run_warp_tiled(const Device& dev, const GemmArgs<T>& a, const char* config) {
  const int knob = tk::detail::knobs().matmul_pack;
  const bool pack =
      a.batch == 1 && knob != 0 && !vec_ok(a) && (knob == 2 || tk::kernels::matmul_packing::pays(a.M, a.N, a.K));
  if (!pack) return run_warp_tiled_as_is(dev, a, config);
  const Packing k = packing_of(a);
  std::optional<tk::detail::Workspace> scratch;
  try {
    scratch.emplace(dev, sizeof(T) * static_cast<std::size_t>(k.a_elems + k.b_elems));
  } catch (const tk::Error&) {
    return run_warp_tiled_as_is(dev, a, config);
  }
  T* const base = static_cast<T*>(scratch->get());
  const auto copy = [&](const T* X, int64_t ld, int64_t rows, int64_t cols, T* P, int64_t ldp) {
    constexpr int threads = 256, per_thread = 4;
    const int gx = static_cast<int>((ldp + threads * per_thread - 1) / (threads * per_thread));
    const int gy = static_cast<int>(std::min<int64_t>(rows, 65535));
    tk::launch(dev, {"matmul_pack", {gx, gy, 1}, {threads, 1, 1}, 0}, &tk::kernels::matmul_pack<T, per_thread>, rows,
               cols, X, ld, P, ldp);
  };
  if (k.pa) copy(a.A, a.lda, k.ar, k.ac, base, k.lda);
  if (k.pb) copy(a.B, a.ldb, k.br, k.bc, base + k.a_elems, k.ldb);
  const GemmArgs<T> p = packed_args(a, k, base);
  run_warp_tiled_as_is(dev, p, config);
}

template <class T>
void gemm_impl(const Device& dev, MatmulVariant variant, const GemmArgs<T>& a, const char* config);

// DGEMM's peel (policy/cuda.hpp, f64_units_peel): the part of C that runs on the matrix units with its last p.rows
// rows and p.cols columns peeled off; nothing ({}) where there is no peel or the rest would not go there. The CPU's own
// copy never runs the matrix units (its policy's f64_on_units): no model priced on its every DGEMM call.
template <class T>
tk::kernels::matmul_waves::Peel peel_of(const Device& dev, const GemmArgs<T>& a, GemmArgs<T>& main) {
  if constexpr (tk::this_target == tk::Target::cpu) {
    (void)dev;
    main = a;
    return {};
  }
  const tk::kernels::matmul_waves::Peel p = tk::kernels::matmul_policy::Cuda::f64_units_peel_where(
      dev, a, [&](const GemmArgs<T>& x) { return Policy::f64_on_units(dev, x); });
  main = rows_of(cols_of(a, 0, a.N - p.cols), 0, a.M - p.rows);
  return p;
}

// Where DGEMM's peel applies: the rest of C on the matrix units, then C's last p.rows rows (every column) and, above
// them, its last p.cols columns as products of their own through `best` (matrix-vector products: at most
// f64_peel_most of them, within gemv_max_rows). The parts of C are disjoint; each takes a's alpha and beta.
template <class T>
bool run_peeled(const Device& dev, const GemmArgs<T>& a) {
  GemmArgs<T> main;
  const tk::kernels::matmul_waves::Peel p = peel_of(dev, a, main);
  if (p.rows == 0 && p.cols == 0) return false;
  gemm_on_units(dev, main);
  if (p.rows > 0) gemm_impl(dev, MatmulVariant::best, rows_of(a, main.M, p.rows), nullptr);
  if (p.cols > 0) gemm_impl(dev, MatmulVariant::best, cols_of(main, main.N, p.cols), nullptr);
  return true;
}

template <class T>
void gemm_impl(const Device& dev, MatmulVariant variant, const GemmArgs<T>& a, const char* config) {
  using namespace tk::kernels;
  switch (variant) {
    case MatmulVariant::naive: return run_simple(dev, a, "matmul_naive", 16, 0, &matmul_naive<T>);
    case MatmulVariant::smem_tiled16: return run_simple(dev, a, "matmul_smem_tiled", 16, 0, &matmul_smem_tiled<T, 16>);
    case MatmulVariant::smem_tiled32: return run_simple(dev, a, "matmul_smem_tiled", 32, 0, &matmul_smem_tiled<T, 32>);
    case MatmulVariant::smem_dynamic: {
      const int t = Policy::template dynamic_tile<T>(dev);  // the largest tile whose two strips fit a block
      return run_simple(dev, a, "matmul_smem_dynamic", t, std::size_t{2} * t * t * sizeof(T), &matmul_smem_dynamic<T>);
    }
    case MatmulVariant::register_tiled: return run_register_tiled(dev, a);
    case MatmulVariant::warp_tiled: return run_warp_tiled(dev, a, config);
    case MatmulVariant::best:
      // The matrix-vector routing, unless a configuration is asked for (the argument, or where `best` is
      // warp_tiled TK_MATMUL_CONFIG, whose tuning runs time that configuration on every shape) or the policy
      // sends the product to its tiles (thin tiles, a batch of small matrices).
      if (!config && (Policy::best_register_tiled || !forced_config<T>()) && !Policy::tiles_not_gemv(a) &&
          run_gemv(dev, a))
        return;
      // DGEMM on the matrix units' kernel where the policy says (f64_on_units), unless a warp_tiled configuration
      // is asked for
      if constexpr (std::is_same_v<T, double>) {
        if (!config && !forced_config<T>()) {
          if (run_peeled(dev, a)) return;
          if (Policy::f64_on_units(dev, a)) return gemm_on_units(dev, a);
        }
      }
      if constexpr (Policy::best_register_tiled) return run_register_tiled(dev, a);
      return run_warp_tiled(dev, a, config);
  }
  tk::detail::fail("tk::gemm: argument 'variant' is ", static_cast<int>(variant), "; expected a tk::MatmulVariant");
}

}  // namespace

// The double GEMM is compiled in a translation unit of its own (launch_double.cpp, which includes this file
// with TK_MATMUL_DOUBLE_TU): the two element types' kernel instantiations then compile in parallel.
#if defined(TK_MATMUL_DOUBLE_TU)
void gemm(const Device& dev, MatmulVariant variant, const GemmArgs<double>& a, const char* config) {
  gemm_impl(dev, variant, a, config);
}
#else
void gemm(const Device& dev, MatmulVariant variant, const GemmArgs<float>& a, const char* config) {
  if (a.math == Math::tf32 && gemm_tf32(dev, variant, a)) return;
  gemm_impl(dev, variant, a, config);
}

std::vector<const char*> matmul_configs(int bytes) {
  return bytes == 8 ? mc::role_names(Configs<double>{}) : mc::role_names(Configs<float>{});
}

namespace {
template <class T>
std::string tile_choice(const Device& dev, int64_t M, int64_t N, int64_t K, int64_t batch) {
  GemmArgs<T> a;
  a.M = M;
  a.N = N;
  a.K = K;
  a.lda = K;
  a.ldb = N;
  a.ldc = N;
  a.batch = batch;
  if (batch > 1) {  // contiguous matrices (tk::matmul_tile_choice checked that the counts fit)
    a.sa = M * K;
    a.sb = K * N;
    a.sc = M * N;
  }
  const int64_t most = Policy::template gemv_max_rows<T>(M > N);
  if (std::min(M, N) >= 1 && std::min(M, N) <= most && !Policy::tiles_not_gemv(a)) {
    return "gemv (C has " + std::to_string(std::min(M, N)) + (M <= N ? " rows" : " columns") + ", at most " +
           std::to_string(most) + " here: the other operand is read once, split along K to fill the machine)";
  }
  if constexpr (std::is_same_v<T, double>) {
    GemmArgs<T> main;
    const tk::kernels::matmul_waves::Peel peel = peel_of(dev, a, main);
    if (peel.rows > 0 || peel.cols > 0) {
      const tk::kernels::matmul_waves::Plan plan = tk::kernels::matmul_policy::Cuda::f64_units_plan(dev, main);
      return "mma_tiled on the FP64 matrix units (launch_mma_units.cpp's FP64 tiling; K = " + std::to_string(K) +
             ") for C's first " + std::to_string(main.M) + " x " + std::to_string(main.N) +
             (plan.splits > 1 ? ", split along K in " + std::to_string(plan.splits) + " parts" : std::string()) +
             "; its last " + std::to_string(peel.rows) + " rows and " + std::to_string(peel.cols) +
             " columns peeled off, each a product of its own (fewer waves of tiles)";
    }
    if (Policy::f64_on_units(dev, a)) {
      // the wave plan of a single product (policy/cuda.hpp's f64_units_plan; the HIP policy sends DGEMM there on its
      // CPU executor only, whose plan is the same pretend GPU's)
      const tk::kernels::matmul_waves::Plan plan = tk::kernels::matmul_policy::Cuda::f64_units_plan(dev, a);
      // (the plan is all of C split or none of it: f64_units_plan never takes the hybrid)
      const std::string split =
          plan.splits > 1 ? ", C split along K in " + std::to_string(plan.splits) + " parts" : std::string();
      return "mma_tiled on the FP64 matrix units (launch_mma_units.cpp's FP64 tiling; K = " + std::to_string(K) +
             (batch > 1 ? ", a batch of " + std::to_string(batch) : std::string()) + split + ")";
    }
  }
  return Policy::tile_choice(dev, a);
}
}  // namespace

std::string matmul_tile_choice(const Device& dev, int bytes, int64_t M, int64_t N, int64_t K, int64_t batch) {
  return bytes == 8 ? tile_choice<double>(dev, M, N, K, batch) : tile_choice<float>(dev, M, N, K, batch);
}
#endif  // TK_MATMUL_DOUBLE_TU

}  // namespace tk::launchers::TK_TARGET_ID
