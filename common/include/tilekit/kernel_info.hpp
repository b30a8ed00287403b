// tilekit/kernel_info.hpp — what a kernel costs the device, and the occupancy that follows (seed 001,
// section 5.4 "memory as a limiting factor to parallelism"; seed 000's choice of tile size).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilekit/device.hpp"

namespace tk {

// One kernel as tilekit launches it, and its resources as compiled (GPU: cudaFuncGetAttributes /
// hipFuncGetAttributes; -1 where the target has no such notion, as on a CPU).
struct KernelResources {
  std::string op, variant, kernel;  // "matmul", "warp_tiled", "matmul_warp_tiled<128,256,8,...>"
  int block_threads = 0;
  std::int64_t dynamic_shared = 0;
  int registers_per_thread = -1;
  std::int64_t static_shared = -1;
  int max_threads_per_block = -1;
  int runtime_blocks_per_multiprocessor = -1;  // the runtime's occupancy query
};

// Blocks of a kernel one multiprocessor holds at once, reasoned as seeds 000 / 001 do: the least of the
// block slots, threads / threads per block, registers / registers per block, shared memory / shared
// memory per block. `limit` names the resource that binds ("threads", "registers", "shared memory",
// "block slots"); 0 blocks when one block alone does not fit.
struct Occupancy {
  int blocks = 0;
  std::string limit;
  int threads() const { return blocks * threads_per_block; }
  int threads_per_block = 0;
};
Occupancy occupancy(const DeviceProps& p, int threads_per_block, int registers_per_thread,
                    std::int64_t shared_per_block);

// A device described from its datasheet, for analysis without the hardware (tk-info --device h100).
struct KnownDevice {
  std::string key;  // "h100"
  DeviceProps props;
  double bandwidth_gbs;  // DRAM bandwidth
  double fp32_gflops;    // FP32 FMA peak (2 FLOPs per lane per clock)
};
const std::vector<KnownDevice>& known_devices();  // G80, K40, A100, H100, H200, MI250X (one GCD), MI300X
const KnownDevice* find_known_device(const std::string& key);

// A matmul tile shape: a block computes BM x BN of C from strips of BK, with `threads` threads.
struct TileShape {
  std::string name;
  int bm, bn, bk, threads;
};

// Seed 000's tile-size table, one row: per phase (one strip) the block loads (BM + BN) * BK floats and
// does 2 * BM * BN * BK FLOPs; CGMA = FLOPs / floats loaded; the strips take `shared_bytes` of shared
// memory (double-buffered ones twice); residency follows `occupancy`; the bandwidth-bound ceiling is
// bandwidth / 4 bytes * CGMA, against the FMA peak.
struct TileAnalysis {
  TileShape tile;
  double loads_per_phase, flops_per_phase, cgma;
  std::int64_t shared_bytes;
  int blocks_by_threads, blocks_by_shared;  // what each resource alone allows (-1: no bound)
  Occupancy occ;
  double bandwidth_bound_gflops, fma_peak_gflops;
};
TileAnalysis analyse_tile(const DeviceProps& p, double bandwidth_gbs, double fp32_gflops, const TileShape& t,
                          int stages = 1, int registers_per_thread = -1);

// Every kernel tilekit launches for its ops (all variants of matmul, the elementwise ops, transpose,
// float3, the stencils), at the launch shape each uses for a large problem (4096^3 for matmul, 8192^2 for
// the 2D ops, 2^28 elements for the 1D ones). Nothing runs: tk::launch records instead (detail below).
std::vector<KernelResources> kernel_resources(const Device& dev);

namespace detail {
// While set (on this host thread), tk::launch on every target appends the kernel's resources here
// instead of launching it.
std::vector<KernelResources>*& describe_sink();
}  // namespace detail

}  // namespace tk
