// tilekit/kernel_types.hpp — the plain types shared by kernels, launchers and every target.
#pragma once

#include <cstddef>

namespace tk {

// The target a kernel file is being compiled for (tk::this_target, set by the target header). Launchers
// choose tile sizes with it; kernels never branch on it.
enum class Target { cpu, cuda, hip };

// A grid or block extent, or a block index. int, as in CUDA/HIP; kernels widen to int64_t before
// multiplying indices (an index product may pass 2^31).
struct Dim3 {
  int x = 1, y = 1, z = 1;
};

// One thread of a block inside a TK_THREADS phase: its index in the block, and its linear rank
// id = (z * block_dim.y + y) * block_dim.x + x, which tk::Private uses on the CPU.
struct Thread {
  int x, y, z, id;
};

// Everything a launch needs besides the kernel and its arguments.
struct LaunchSpec {
  const char* name = "kernel";  // for error messages
  Dim3 grid;
  Dim3 block;
  std::size_t dynamic_shared = 0;  // bytes of tk::dynamic_shared<T>() per block
};

}  // namespace tk
