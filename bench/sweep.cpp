// bench/sweep.cpp — `tk-bench --sweep`: the `best` variant of SGEMM (row-major; NN, or with --ops any of
// NN, NT, TN, TT), transpose and the 5-point stencil over shapes nobody tuned for, each row beside its
// ceiling from the same run (the vendor BLAS for SGEMM, a device copy of the same bytes for the memory-bound
// ops), then a summary per op: the geometric mean of the rows' percentages and the worst row, and for each
// transposed storage the same of its speed as a percentage of NN's on the same shapes. On a CPU,
// transpose_vector and stencil_vector take a user's std::vector data (malloc's 16-byte alignment, not
// tilekit's 64), beside the run's copy of the same size (one ceiling per size: the first row of that size sets it),
// and sgemm_vector (sgemm_NT_vector, ...) the SGEMM rows' operands in std::vectors, OpenBLAS taking the same ones.
//
// Shapes: powers of two, multiples of the tiles that are not powers of two, odd and prime sides, one side
// tiny (1-32) and the other huge, tall, wide, short K and long K. SGEMM's sides are a quarter on a CPU (odd
// ones kept odd), so that a 2-core sweep ends in minutes; the memory-bound ops move at least 64 MiB per
// array everywhere. Names: sweep/<op>/<device>/<shape>, with <shape> MxNxK (MxNxKxBATCH for a strided batch,
// --shapes) for SGEMM and ROWSxCOLS for the others; SGEMM's op is `sgemm` for NN, `sgemm_NT` etc. for the others.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bench_common.hpp"

namespace tk::bench {
namespace {

struct Dims {
  std::int64_t a, b, c;    // SGEMM: M, N, K; the others: rows, cols (c unused)
  std::int64_t batch = 1;  // SGEMM: strided batched when > 1
};

// x / s, odd when x is (an odd side stays odd on the CPU)
std::int64_t scaled(std::int64_t x, std::int64_t s) { return x % 2 ? (x / s) | 1 : x / s; }

std::vector<Dims> gemm_shapes(bool gpu) {
  const std::int64_t s = gpu ? 1 : 4;  // the CPU runs a quarter of each side (K included)
  std::vector<Dims> v{
      {4096, 4096, 4096}, {2048, 2048, 2048}, {3072, 3072, 3072}, {1536, 1536, 1536},  // powers of 2, tile multiples
      {4095, 4095, 4095}, {3001, 3001, 3001}, {2039, 2039, 2039}, {1021, 1021, 1021},  // odd, prime
      {8192, 1024, 4096}, {1024, 8192, 4096}, {16384, 256, 2048}, {256, 16384, 2048},  // tall, wide
      {4096, 4096, 256},  {4096, 4096, 64},   {512, 512, 32768},  {128, 128, 65536},   // short K, long K
      {32, 8192, 4096},   {8192, 32, 4096},   {8192, 8192, 32},   {1, 8192, 8192},     // one side tiny
      {8192, 1, 8192},    {8, 8192, 4096},                                             // (GEMV-like)
      {2000, 3000, 1000}, {1000, 500, 3000},  {6000, 6000, 1000}, {777, 1999, 3333},   // the rest
  };
  for (Dims& d : v) {
    for (std::int64_t* x : {&d.a, &d.b, &d.c}) *x = scaled(*x, *x >= 64 ? s : 1);
  }
  return v;
}

// rows x cols of the memory-bound ops, at least 64 MiB per array (16 M floats) on every device, far beyond
// the caches (as the suite's rows), odd sides included.
std::vector<Dims> grid_shapes() {
  return {
      {8192, 8192, 0}, {4096, 16384, 0}, {16384, 4096, 0},                    // powers of 2
      {8191, 8193, 0}, {7919, 7907, 0},  {6000, 11000, 0}, {5003, 13001, 0},  // odd, prime, not near 64
      {5000, 7001, 0}, {30011, 997, 0},  {3, 3000017, 0},                     // odd, tall, 3 rows
      {1, 1 << 24, 0}, {16, 1 << 20, 0}, {31, 600001, 0},                     // few rows
      {1 << 24, 1, 0}, {1 << 20, 16, 0}, {600001, 31, 0},                     // few columns
  };
}

std::string dims_name(const Dims& d, bool three) {
  std::string n = std::to_string(d.a) + "x" + std::to_string(d.b);
  if (three) n += "x" + std::to_string(d.c);
  return d.batch > 1 ? n + "x" + std::to_string(d.batch) : n;
}

void register_grid_row(const tk::Device& dev, const std::string& op, const Dims& d) {
  const std::string name = "sweep/" + op + "/" + dev.name() + "/" + dims_name(d, false);
  benchmark::RegisterBenchmark(
      name.c_str(),
      [dev, op, d](benchmark::State& st) {
        const std::int64_t rows = d.a, cols = d.b, n = rows * cols;
        const double nb = 4.0 * n;
        if (op == "transpose_vector" || op == "stencil_vector") {  // a user's std::vector data (malloc's alignment)
          std::vector<float> user_in(static_cast<std::size_t>(n), 1.f), user_out(static_cast<std::size_t>(n), 0.f);
          run_row(
              st, dev, 2 * nb, 0, 2 * nb,
              [&] {
                if (op == "transpose_vector")
                  tk::transpose(dev, rows, cols, user_in.data(), cols, user_out.data(), rows);
                else tk::stencil_5point(dev, rows, cols, user_in.data(), cols, user_out.data(), cols, 0.2f, 0.2f);
              },
              [&] { device_memcpy(dev, user_out.data(), user_in.data(), nb); });
          return;
        }
        auto in = filled(dev, n, 1.f);
        tk::Buffer<float> out(dev, n);
        std::function<void()> run;
        if (op == "transpose") {
          run = [&] { tk::transpose(dev, rows, cols, in.data(), cols, out.data(), rows); };
        } else {
          run = [&] { tk::stencil_5point(dev, rows, cols, in.data(), cols, out.data(), cols, 0.2f, 0.2f); };
        }
        run_row(st, dev, 2 * nb, 0, 2 * nb, run, [&] { device_memcpy(dev, out.data(), in.data(), nb); });
      })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

// --shapes=LIST: "MxNxK" or "MxNxKxBATCH" (SGEMM, strided batched) and "ROWSxCOLS" (transpose, stencil)
// items, comma separated, each a whole number >= 1; exits 2 naming the item otherwise.
void parse_shapes(const std::string& list, std::vector<Dims>& gemm, std::vector<Dims>& grid) {
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t end = std::min(list.find(',', at), list.size());
    const std::string item = list.substr(at, end - at);
    std::vector<std::int64_t> sides;
    std::size_t p = 0;
    bool ok = !item.empty();
    while (ok && p <= item.size()) {
      const std::size_t x = std::min(item.find('x', p), item.size());
      const std::string side = item.substr(p, x - p);
      ok = !side.empty() && side.size() <= 12 && side.find_first_not_of("0123456789") == std::string::npos &&
           std::stoll(side) >= 1;
      if (ok) sides.push_back(std::stoll(side));
      p = x + 1;
    }
    if (!ok || sides.size() < 2 || sides.size() > 4) {
      std::fprintf(stderr, "tk-bench: --shapes: '%s' is not MxNxK, MxNxKxBATCH or ROWSxCOLS (each >= 1)\n",
                   item.c_str());
      std::exit(2);
    }
    if (sides.size() == 2) grid.push_back({sides[0], sides[1], 0});
    else gemm.push_back({sides[0], sides[1], sides[2], sides.size() == 4 ? sides[3] : 1});
    at = end + 1;
  }
}

// --ops=LIST: "NN", "NT", "TN", "TT" (op(A) op(B)), comma separated; exits 2 naming the item otherwise.
std::vector<std::pair<tk::Op, tk::Op>> parse_ops(const std::string& list) {
  std::vector<std::pair<tk::Op, tk::Op>> ops;
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t end = std::min(list.find(',', at), list.size());
    const std::string item = list.substr(at, end - at);
    const auto op = [](char c) { return c == 'N' ? tk::Op::none : tk::Op::trans; };
    if (item.size() != 2 || item.find_first_not_of("NT") != std::string::npos) {
      std::fprintf(stderr, "tk-bench: --ops: '%s' is not NN, NT, TN or TT\n", item.c_str());
      std::exit(2);
    }
    const std::pair<tk::Op, tk::Op> p{op(item[0]), op(item[1])};
    if (std::find(ops.begin(), ops.end(), p) == ops.end()) ops.push_back(p);
    at = end + 1;
  }
  return ops;
}

void register_sweep(const tk::Device& dev, const Options& opt) {
  if (dev.backend() == tk::Backend::kokkos) return;  // the cross-check is not a speed contender
  std::vector<Dims> gemm = gemm_shapes(is_gpu(dev)), grid = grid_shapes();
  if (!opt.shapes.empty()) {
    gemm.clear(), grid.clear();
    parse_shapes(opt.shapes, gemm, grid);
  }
  const auto ops = parse_ops(opt.ops);
  for (const auto& [oa, ob] : ops) {
    const bool nn = oa == tk::Op::none && ob == tk::Op::none;
    const std::string op = nn ? "sgemm" : std::string("sgemm_") + tk::to_string(oa) + tk::to_string(ob);
    for (const Dims& d : gemm)
      register_sgemm_row(dev, "sweep/" + op + "/" + dev.name() + "/" + dims_name(d, true), oa, ob, d.a, d.b, d.c,
                         d.batch);
  }
  // CPUs: the same products on a user's std::vector data (sgemm_vector, sgemm_NT_vector, ...), both libraries on
  // the same vectors; the summary also gives each as a percentage of the NN row on tilekit's buffers
  if (!is_gpu(dev)) {
    for (const auto& [oa, ob] : ops) {
      const bool nn = oa == tk::Op::none && ob == tk::Op::none;
      const std::string op =
          (nn ? std::string("sgemm") : std::string("sgemm_") + tk::to_string(oa) + tk::to_string(ob)) + "_vector";
      for (const Dims& d : gemm)
        register_sgemm_row(dev, "sweep/" + op + "/" + dev.name() + "/" + dims_name(d, true), oa, ob, d.a, d.b, d.c,
                           d.batch, true);
    }
  }
  for (const char* op : {"transpose", "transpose_vector", "stencil_5point", "stencil_vector"}) {
    if (std::string(op).find("_vector") != std::string::npos && is_gpu(dev)) continue;  // host memory: CPU rows alone
    for (const Dims& d : grid) register_grid_row(dev, op, d);
  }
}

void SweepSummary::Group::add(double pct, const std::string& shape) {
  log_sum += std::log(pct);
  ++rows;
  if (rows == 1 || pct < worst) worst = pct, worst_shape = shape;
}

void SweepSummary::add(const std::string& name, const std::map<std::string, double>& counters) {
  if (name.rfind("sweep/", 0) != 0) return;
  // sweep/<op>/<device>/<shape>/manual_time
  const std::size_t a = name.find('/', 6), b = name.find('/', a + 1), c = name.find('/', b + 1);
  const std::string op = name.substr(6, a - 6), device = name.substr(a + 1, b - a - 1);
  const std::string shape = name.substr(b + 1, c == std::string::npos ? c : c - b - 1);
  for (const auto& [key, value] : counters) {
    if (key.rfind("pct_of_", 0) == 0) groups_[op + " (" + key.substr(7) + ", " + device + ")"].add(value, shape);
  }
  const auto g = counters.find("GFLOP/s");
  if (op.rfind("sgemm", 0) == 0 && g != counters.end() && g->second > 0) gflops_[device][op][shape] = g->second;
}

void SweepSummary::print(std::FILE* f) const {
  if (groups_.empty()) return;
  std::map<std::string, Group> vs_nn;  // transposed storages against NN, shape by shape
  for (const auto& [device, ops] : gflops_) {
    const auto nn = ops.find("sgemm");
    if (nn == ops.end()) continue;
    for (const auto& [op, shapes] : ops) {
      if (op == "sgemm") continue;
      for (const auto& [shape, gflops] : shapes) {
        const auto base = nn->second.find(shape);
        if (base != nn->second.end()) vs_nn[op + " (NN, " + device + ")"].add(100.0 * gflops / base->second, shape);
      }
    }
  }
  std::fprintf(f, "\nsweep summary: %% of the same-run ceiling\n");
  for (const auto& [group, g] : groups_)
    std::fprintf(f, "  %-36s %3d shapes  geometric mean %5.1f%%  worst %5.1f%% at %s\n", group.c_str(), g.rows,
                 std::exp(g.log_sum / g.rows), g.worst, g.worst_shape.c_str());
  if (vs_nn.empty()) return;
  std::fprintf(f,
               "\nsweep summary: SGEMM transposed or on std::vector data, %% of NN on tilekit's buffers, same run\n");
  for (const auto& [group, g] : vs_nn)
    std::fprintf(f, "  %-36s %3d shapes  geometric mean %5.1f%%  worst %5.1f%% at %s\n", group.c_str(), g.rows,
                 std::exp(g.log_sum / g.rows), g.worst, g.worst_shape.c_str());
}

}  // namespace tk::bench
