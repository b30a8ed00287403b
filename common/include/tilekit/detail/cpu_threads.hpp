// tilekit/detail/cpu_threads.hpp — the threads the CPU executor runs a grid's blocks on: OpenMP's team for
// the next parallel region (OMP_NUM_THREADS, omp_set_num_threads, tk-bench --threads), 1 without OpenMP
// (backends/cpu/executor.cpp). Outside the target layer, so that a launcher compiled for any target can
// size a CPU grid by it without a backend's headers.
#pragma once

namespace tk::detail {
int cpu_executor_threads();

// The blocks a CPU grid should offer the executor's team: 4 per thread, so that blocks of uneven cost (edge
// tiles) still spread evenly. The CPU launchers size their tiles by it (matmul's block width and split-K,
// the transpose's tile).
inline int cpu_block_slots() { return 4 * cpu_executor_threads(); }
}  // namespace tk::detail
