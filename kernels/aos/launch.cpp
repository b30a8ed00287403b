// kernels/aos/launch.cpp — the array-of-structs and struct-of-arrays launchers, compiled once per target.
//
// Grid math: 256 threads per block, the seed's block size (its s_data[256 * 3] tile), a multiple of every
// target's warp. One struct per thread for the AoS kernels; VEC = 4 structs per thread for SoA when its
// planes are 16-byte aligned (both pointers aligned and n a multiple of 4), else 1. On the CPU smem_staged
// uses blocks of 4096 threads (a 48 KiB tile): each block and phase costs the executor a fixed amount
// (thread-local look-ups), which 256 structs do not amortise (0.9 against 0.5 ns per struct measured).
#include <cstdint>

#include "direct.hpp"
#include "smem_staged.hpp"
#include "soa.hpp"
#include "tilekit/detail/launchers_aos.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel.hpp"

namespace tk::launchers::TK_TARGET_ID {
namespace {

constexpr int block_threads = 256;
constexpr int staged_block = tk::this_target == Target::cpu ? 4096 : block_threads;

int blocks_for(std::int64_t threads, const char* call) {
  const std::int64_t blocks = (threads + block_threads - 1) / block_threads;
  if (blocks > 0x7fffffff) tk::detail::fail(call, ": ", threads, " threads need more than 2^31 - 1 blocks");
  return static_cast<int>(blocks);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <int VEC>
void launch_soa(const Device& dev, std::int64_t n, const float* in, float* out, float value) {
  const LaunchSpec spec{
      "float3_add_soa", {blocks_for((n + VEC - 1) / VEC, "tk::float3_add_soa"), 1, 1}, {block_threads, 1, 1}, 0};
  tk::launch(dev, spec, &tk::kernels::float3_add_soa<VEC>, n, in, out, value);
}

}  // namespace

void float3_add(const Device& dev, AosVariant variant, std::int64_t n, const float* in, float* out, float value) {
  const Dim3 grid{blocks_for(n, "tk::float3_add"), 1, 1}, block{block_threads, 1, 1};
  switch (variant) {
    case AosVariant::direct:
      return tk::launch(dev, {"float3_add_direct", grid, block, 0}, &tk::kernels::float3_add_direct, n, in, out, value);
    case AosVariant::smem_staged: {
      const std::int64_t blocks = (n + staged_block - 1) / staged_block;  // <= the 256-thread count above
      return tk::launch(dev, {"float3_add_smem_staged", {static_cast<int>(blocks), 1, 1}, {staged_block, 1, 1}, 0},
                        &tk::kernels::float3_add_smem_staged<staged_block>, n, in, out, value);
    }
  }
  tk::detail::fail("tk::float3_add: argument 'variant' is ", static_cast<int>(variant), "; expected a tk::AosVariant");
}

void float3_add_soa(const Device& dev, std::int64_t n, const float* in, float* out, float value) {
  if (aligned16(in) && aligned16(out) && n % 4 == 0) return launch_soa<4>(dev, n, in, out, value);
  launch_soa<1>(dev, n, in, out, value);
}

}  // namespace tk::launchers::TK_TARGET_ID
