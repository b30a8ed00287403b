// A fuzz test of the public API: random valid and invalid calls of copy, vector_add, matrix_add, transpose,
// moving_average, stencil_5point, convolve_2d and matmul on every backend. An oracle written here (not
// tilekit's checks) decides from the documented contract whether a call is valid. Every invalid call must
// throw tk::Error and leave memory untouched; every valid call must match a double-precision reference, and
// no element other than its output's elements may change.
//
// All operands of a call live in one device arena, at random offsets chosen so that they often share memory
// (the same start, overlapping spans, one matrix in the gaps between the rows of another); sometimes a
// pointer is null or misaligned, a size negative, a leading dimension too small, a radius or variant bad.
//
// Environment: TK_FUZZ_SEED (default 20261123), TK_FUZZ_CALLS (default 3000; 1000 on CUDA and HIP),
// TK_FUZZ_FIRST (the first call's index, default 0), TK_FUZZ_VERBOSE=1 (print each call before making it:
// the last line names a call that crashes). Call k draws everything from (seed, k) alone, so a failure
// names the line that replays it. A long run:
//   TK_FUZZ_CALLS=200000 TK_FUZZ_SEED=7 build/cpu/tests/tk_tests --gtest_filter='*Fuzz*'
// Replaying call 1234 of that run:
//   TK_FUZZ_SEED=7 TK_FUZZ_FIRST=1234 TK_FUZZ_CALLS=1 build/cpu/tests/tk_tests --gtest_filter='*Fuzz*'
#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "support.hpp"

namespace tk::test {
namespace {

constexpr std::int64_t arena_elems = 1 << 14;
constexpr double unit_roundoff = 1.0 / (1 << 24);

// ---- Operands ----------------------------------------------------------------------------------------------

// A pointer argument as drawn: an element of the arena, null, or an element of the arena plus 1 to 3 bytes.
struct Ptr {
  enum Kind { arena, null, misaligned } kind = arena;
  std::int64_t off = 0;  // elements from the arena's start
  int skew = 0;          // bytes, when misaligned

  float* at(float* base) const {
    if (kind == null) return nullptr;
    if (kind == arena) return base + off;
    return reinterpret_cast<float*>(reinterpret_cast<char*>(base + off) + skew);
  }
  // The address relative to the arena, for "the same pointer" (-1: null).
  std::int64_t address() const { return kind == null ? -1 : off * 4 + skew; }
};

std::ostream& operator<<(std::ostream& os, const Ptr& p) {
  if (p.kind == Ptr::null) return os << "nullptr";
  os << "arena+" << p.off;
  if (p.kind == Ptr::misaligned) os << "+" << p.skew << "B";
  return os;
}

// The extent of an operand: rows x cols elements, row i starting i * ld elements after the pointer. A vector
// of n is 1 x n. Only elements (i, j) with j < cols belong to it, not the gaps between its rows.
struct Mat {
  std::int64_t rows, cols, ld;

  bool has_elements() const { return rows > 0 && cols > 0; }
  // Elements from the first to one past the last, for placement; 1 for an empty or malformed extent (then
  // nothing is dereferenced, since the call must be invalid or a no-op).
  std::int64_t span() const { return has_elements() ? (rows - 1) * std::max(ld, cols) + cols : 1; }
};

Mat vec(std::int64_t n) { return {1, n, std::max<std::int64_t>(n, 1)}; }

struct Arg {
  Ptr p;
  Mat m;
};

// Calls f(arena index, i, j) for each element of x. Every operand's span lies inside the arena by
// construction (Gen); an operand outside it is a bug of this test, reported before any out-of-bounds access.
template <class F>
void for_each_element(const Arg& x, F f) {
  if (x.m.has_elements() && (x.p.off < 0 || x.p.off + x.m.span() > arena_elems))
    throw std::logic_error("test_fuzz: an operand at arena+" + std::to_string(x.p.off) + " spans " +
                           std::to_string(x.m.span()) + " elements, past the arena's end");
  for (std::int64_t i = 0; i < x.m.rows; ++i) {
    for (std::int64_t j = 0; j < x.m.cols; ++j) f(x.p.off + i * x.m.ld + j, i, j);
  }
}

// The oracle's aliasing rule, by brute force on the elements: x and y (arena pointers with well-formed
// extents) share an element.
bool share(const Arg& x, const Arg& y) {
  if (!x.m.has_elements() || !y.m.has_elements()) return false;
  std::vector<char> mark(arena_elems, 0);
  for_each_element(x, [&](std::int64_t k, std::int64_t, std::int64_t) { mark[k] = 1; });
  bool found = false;
  for_each_element(y, [&](std::int64_t k, std::int64_t, std::int64_t) { found = found || mark[k]; });
  return found;
}

// The spans of x and y intersect (with or without a shared element): for the statistics only.
bool spans_meet(const Arg& x, const Arg& y) {
  if (x.p.kind != Ptr::arena || y.p.kind != Ptr::arena || !x.m.has_elements() || !y.m.has_elements()) return false;
  return x.p.off < y.p.off + y.m.span() && y.p.off < x.p.off + x.m.span();
}

bool arena_pointers(std::initializer_list<Ptr> ps) {
  return std::all_of(ps.begin(), ps.end(), [](const Ptr& p) { return p.kind == Ptr::arena; });
}

bool ld_ok(std::int64_t ld, std::int64_t cols) { return ld >= std::max<std::int64_t>(1, cols); }

// ---- Random arguments --------------------------------------------------------------------------------------

class Gen {
 public:
  // Call `index` of a run with `seed`: independent of every other call, so that one call can be replayed.
  Gen(std::uint64_t seed, std::uint64_t index) {
    std::seed_seq s{std::uint32_t(seed), std::uint32_t(seed >> 32), std::uint32_t(index), std::uint32_t(index >> 32)};
    rng_.seed(s);
  }

  std::mt19937_64& rng() { return rng_; }
  double u01() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_); }
  bool chance(double p) { return u01() < p; }
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }
  float real(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng_); }
  template <class T>
  T pick(std::initializer_list<T> v) {
    return v.begin()[between(0, static_cast<std::int64_t>(v.size()) - 1)];
  }

  // A matrix size: 0 and 1 often (the edge cases), else up to `max`; about 3% negative.
  std::int64_t size(std::int64_t max) {
    const double r = u01();
    if (r < 0.03) return -between(1, 5);
    if (r < 0.13) return 0;
    if (r < 0.23) return 1;
    return between(2, max);
  }
  // A vector length: as size, and sometimes longer than a GPU block of 256 threads.
  std::int64_t length() { return chance(0.2) ? between(41, 700) : size(40); }

  // A leading dimension for `cols` columns: the least allowed (often), a small pad, a larger one, or room for
  // a second matrix of as many columns in the gaps; about 3% too small (possibly 0 or negative).
  std::int64_t ld(std::int64_t cols) {
    const std::int64_t least = std::max<std::int64_t>(1, cols);
    const double r = u01();
    if (r < 0.03) return least - between(1, 3);
    if (r < 0.48) return least;
    if (r < 0.73) return least + between(1, 4);
    if (r < 0.85) return least + between(5, 16);
    return least + std::max<std::int64_t>(0, cols) + between(0, 4);
  }

  // A variant: one of `valid` (the registry's, as ints), or about 2% of the time one that is not an enumerator.
  int variant(const std::vector<int>& valid) {
    if (chance(0.02)) return pick({-1, 1 + *std::max_element(valid.begin(), valid.end()), 42});
    return valid[static_cast<std::size_t>(between(0, static_cast<std::int64_t>(valid.size()) - 1))];
  }

  // A pointer for an operand of extent m, its whole span inside the arena. Regularly it is put where an
  // operand placed before lies — at the same start, in the gaps between that one's rows, or across its
  // span — so that overlaps, in-place calls and interleaved disjoint blocks all happen. About 2% null,
  // 2% misaligned.
  Ptr place(const Mat& m) {
    const std::int64_t span = m.span();
    std::int64_t off = between(0, arena_elems - span - 1);  // - 1: room for a skew
    if (!placed_.empty()) {
      const Arg& q = placed_[static_cast<std::size_t>(between(0, static_cast<std::int64_t>(placed_.size()) - 1))];
      const double r = u01();
      if (r < 0.08) off = q.p.off;
      else if (r < 0.16) off = q.p.off + std::max<std::int64_t>(1, q.m.cols) + between(0, 2);
      else if (r < 0.28) off = q.p.off + between(-span, q.m.span());
    }
    return finish(off, m);
  }

  // A pointer the contract says is not looked at, made bad: null or misaligned, half and half.
  Ptr spoil(Ptr p) {
    if (chance(0.5)) {
      p.kind = Ptr::null;
    } else {
      p.kind = Ptr::misaligned;
      p.skew = static_cast<int>(between(1, 3));
    }
    return p;
  }

  // Two blocks of one array side by side (the blocked-LU pattern, interleaved column blocks): a leading
  // dimension for both with room for a block of cols_a and one of cols_b columns, and a few to spare ...
  std::int64_t shared_ld(std::int64_t cols_a, std::int64_t cols_b) {
    return std::max<std::int64_t>(1, cols_a) + std::max<std::int64_t>(0, cols_b) + between(0, 3);
  }
  // ... and a pointer for the second block, 0 to 2 elements after the end of the first block's first row.
  // The blocks share no element when those 0 to 2 fit in what shared_ld spared, else they overlap.
  Ptr beside(const Ptr& first, std::int64_t first_cols, const Mat& m) {
    return finish(first.off + std::max<std::int64_t>(0, first_cols) + between(0, 2), m);
  }

 private:
  // The pointer at `off` (clamped so that m's span fits), about 2% null and 2% misaligned; for an operand
  // without elements (a no-op call, or an invalid one) 30% bad, since no pointer of a no-op is checked.
  Ptr finish(std::int64_t off, const Mat& m) {
    Ptr p{Ptr::arena, std::clamp<std::int64_t>(off, 0, arena_elems - m.span() - 1), 0};
    const double k = u01();
    if (k < 0.02) {
      p.kind = Ptr::null;
    } else if (k < 0.04) {
      p.kind = Ptr::misaligned;
      p.skew = static_cast<int>(between(1, 3));
    }
    placed_.push_back({p, m});
    if (!m.has_elements() && chance(0.3)) p = spoil(p);
    return p;
  }

  std::mt19937_64 rng_;
  std::vector<Arg> placed_;
};

// ---- One call: what it is, what the contract says of it, and its reference --------------------------------

enum class Op { copy, vector_add, matrix_add, transpose, moving_average, stencil_5point, convolve_2d, matmul };
constexpr int op_count = 8;
const char* const op_names[op_count] = {"copy",           "vector_add",     "matrix_add",  "transpose",
                                        "moving_average", "stencil_5point", "convolve_2d", "matmul"};

// What the contract promises for a call: it runs (valid), is a no-op (valid, writes nothing), or throws
// because of a bad size, leading dimension, radius or variant; a null or misaligned pointer; shared elements.
enum class Verdict { run, noop, bad_args, bad_pointer, overlap };
const char* to_text(Verdict v) {
  switch (v) {
    case Verdict::run: return "valid";
    case Verdict::noop: return "valid, a no-op";
    case Verdict::bad_args: return "invalid: a size, leading dimension, radius or variant";
    case Verdict::bad_pointer: return "invalid: a null or misaligned pointer";
    case Verdict::overlap: return "invalid: an output shares elements with another operand";
  }
  return "?";
}
bool valid(Verdict v) { return v == Verdict::run || v == Verdict::noop; }

// The checks of the elementwise ops and stencils, in the contract's terms: arguments, then emptiness, then
// pointers, then aliasing (`conflict` runs only when every pointer is in the arena).
template <class Conflict>
Verdict decide(bool args_ok, bool empty, std::initializer_list<Ptr> ptrs, Conflict conflict) {
  if (!args_ok) return Verdict::bad_args;
  if (empty) return Verdict::noop;
  if (!arena_pointers(ptrs)) return Verdict::bad_pointer;
  return conflict() ? Verdict::overlap : Verdict::run;
}

// The elements a valid call writes, each with its reference value and tolerance.
struct Outputs {
  struct Element {
    std::int64_t index, i, j;  // arena index; the element's row and column in its operand
    double ref, tol;
  };
  std::vector<Element> elements;
  void add(std::int64_t index, std::int64_t i, std::int64_t j, double ref, double tol) {
    elements.push_back({index, i, j, ref, tol});
  }
};

struct Case {
  explicit Case(Op o) : op(o) {}
  Op op;
  std::string text;  // the call with its arguments
  Verdict verdict = Verdict::run;
  bool shares_memory = false;        // some pair of operands' spans meet (statistics)
  std::vector<std::int64_t> poison;  // arena elements set to NaN first: the contract says they are not read
  std::function<void(float* base)> call;
  std::function<void(const std::vector<float>& x, Outputs& out)> reference;  // x: the arena before the call
};

std::vector<int> ints_of_transpose_variants() {
  std::vector<int> v;
  for (const auto& info : transpose_variants()) v.push_back(static_cast<int>(info.variant));
  v.push_back(static_cast<int>(TransposeVariant::best));
  return v;
}
std::vector<int> ints_of_stencil_variants() {
  std::vector<int> v;
  for (const auto& info : stencil_variants()) v.push_back(static_cast<int>(info.variant));
  if (std::find(v.begin(), v.end(), static_cast<int>(StencilVariant::best)) == v.end())
    v.push_back(static_cast<int>(StencilVariant::best));
  return v;
}
std::vector<int> ints_of_matmul_variants() {
  std::vector<int> v;
  for (const auto& info : matmul_variants()) v.push_back(static_cast<int>(info.variant));
  v.push_back(static_cast<int>(MatmulVariant::best));
  return v;
}
bool listed(const std::vector<int>& valid, int v) { return std::find(valid.begin(), valid.end(), v) != valid.end(); }

template <class V>
std::string variant_text(V v) {
  return std::to_string(static_cast<int>(v)) + " (" + to_string(v) + ")";
}

// A float that prints back exactly.
std::string num(double x) {
  std::ostringstream os;
  os << std::setprecision(9) << x;
  return os.str();
}

// Correct rounding of a sum of two floats, with room for the double reference's own rounding.
double add_tol(double ref) { return 2 * unit_roundoff * std::fabs(ref); }

Case fuzz_copy(Gen& g, const Device& dev) {
  const std::int64_t n = g.length();
  const Arg in{g.place(vec(n)), vec(n)}, out{g.place(vec(n)), vec(n)};
  Case c{Op::copy};
  std::ostringstream os;
  os << "tk::copy(n=" << n << ", in=" << in.p << ", out=" << out.p << ")";
  c.text = os.str();
  c.verdict = decide(n >= 0, n == 0, {in.p, out.p}, [&] { return share(out, in); });
  c.shares_memory = spans_meet(out, in);
  c.call = [=](float* base) { tk::copy(dev, n, in.p.at(base), out.p.at(base)); };
  c.reference = [=](const std::vector<float>& x, Outputs& o) {
    for (std::int64_t i = 0; i < n; ++i) o.add(out.p.off + i, 0, i, x[in.p.off + i], 0.0);
  };
  return c;
}

Case fuzz_vector_add(Gen& g, const Device& dev) {
  const std::int64_t n = g.length();
  const Mat m = vec(n);
  const Arg a{g.place(m), m}, b{g.place(m), m};
  const double r = g.u01();
  const Arg c_arg{r < 0.15 ? a.p : r < 0.25 ? b.p : g.place(m), m};  // in place on a or b, often
  Case c{Op::vector_add};
  std::ostringstream os;
  os << "tk::vector_add(n=" << n << ", a=" << a.p << ", b=" << b.p << ", c=" << c_arg.p << ")";
  c.text = os.str();
  // c may be exactly a or exactly b; otherwise it shares no element with either. a and b may overlap freely.
  auto same = [](const Arg& x, const Arg& y) { return x.p.address() == y.p.address(); };
  c.verdict = decide(n >= 0, n == 0, {a.p, b.p, c_arg.p},
                     [&] { return (!same(c_arg, a) && share(c_arg, a)) || (!same(c_arg, b) && share(c_arg, b)); });
  c.shares_memory = spans_meet(c_arg, a) || spans_meet(c_arg, b) || spans_meet(a, b);
  c.call = [=](float* base) { tk::vector_add(dev, n, a.p.at(base), b.p.at(base), c_arg.p.at(base)); };
  c.reference = [=](const std::vector<float>& x, Outputs& o) {
    for (std::int64_t i = 0; i < n; ++i) {
      const double ref = double(x[a.p.off + i]) + double(x[b.p.off + i]);
      o.add(c_arg.p.off + i, 0, i, ref, add_tol(ref));
    }
  };
  return c;
}

Case fuzz_matrix_add(Gen& g, const Device& dev) {
  const std::int64_t rows = g.size(40), cols = g.size(40);
  const double r = g.u01();
  const bool blocks = r >= 0.25 && r < 0.37;  // C beside A in one array
  const std::int64_t lda = blocks ? g.shared_ld(cols, cols) : g.ld(cols), ldb = g.ld(cols);
  const Arg A{g.place({rows, cols, lda}), {rows, cols, lda}}, B{g.place({rows, cols, ldb}), {rows, cols, ldb}};
  Arg C;
  // In place on A or B: usually with its leading dimension (the allowed form), else with a different one as
  // long as C still fits in the arena (a C past the arena's end would be out of bounds for the oracle too).
  auto in_place_ld = [&](const Arg& x) {
    const std::int64_t ld = g.chance(0.7) ? x.m.ld : g.ld(cols);
    return x.p.off + Mat{rows, cols, ld}.span() < arena_elems ? ld : x.m.ld;
  };
  if (r < 0.15) {
    C = {A.p, {rows, cols, in_place_ld(A)}};
  } else if (r < 0.25) {
    C = {B.p, {rows, cols, in_place_ld(B)}};
  } else if (blocks) {
    C = {g.beside(A.p, cols, {rows, cols, lda}), {rows, cols, lda}};
  } else {
    const std::int64_t ldc = g.ld(cols);
    C = {g.place({rows, cols, ldc}), {rows, cols, ldc}};
  }
  const std::int64_t ldc = C.m.ld;
  Case c{Op::matrix_add};
  std::ostringstream os;
  os << "tk::matrix_add(rows=" << rows << ", cols=" << cols << ", A=" << A.p << ", lda=" << lda << ", B=" << B.p
     << ", ldb=" << ldb << ", C=" << C.p << ", ldc=" << ldc << ")";
  c.text = os.str();
  // C may be exactly A (the same pointer and leading dimension, or a single row: the same elements whatever
  // the leading dimensions), likewise B; otherwise no shared element.
  auto same = [](const Arg& x, const Arg& y) {
    return x.p.address() == y.p.address() && (x.m.ld == y.m.ld || x.m.rows == 1);
  };
  const bool args_ok = rows >= 0 && cols >= 0 && ld_ok(lda, cols) && ld_ok(ldb, cols) && ld_ok(ldc, cols);
  c.verdict = decide(args_ok, rows == 0 || cols == 0, {A.p, B.p, C.p},
                     [&] { return (!same(C, A) && share(C, A)) || (!same(C, B) && share(C, B)); });
  c.shares_memory = spans_meet(C, A) || spans_meet(C, B) || spans_meet(A, B);
  c.call = [=](float* base) {
    tk::matrix_add(dev, rows, cols, A.p.at(base), lda, B.p.at(base), ldb, C.p.at(base), ldc);
  };
  c.reference = [=](const std::vector<float>& x, Outputs& o) {
    for_each_element(C, [&](std::int64_t k, std::int64_t i, std::int64_t j) {
      const double ref = double(x[A.p.off + i * lda + j]) + double(x[B.p.off + i * ldb + j]);
      o.add(k, i, j, ref, add_tol(ref));
    });
  };
  return c;
}

Case fuzz_transpose(Gen& g, const Device& dev) {
  static const std::vector<int> variants = ints_of_transpose_variants();
  const std::int64_t rows = g.size(40), cols = g.size(40);
  const bool blocks = g.chance(0.12);  // out beside in, in one array
  const std::int64_t ld_in = blocks ? g.shared_ld(cols, rows) : g.ld(cols), ld_out = blocks ? ld_in : g.ld(rows);
  const auto variant = static_cast<TransposeVariant>(g.variant(variants));
  const Arg in{g.place({rows, cols, ld_in}), {rows, cols, ld_in}};
  const Mat out_m{cols, rows, ld_out};  // out is cols x rows
  const Arg out{blocks ? g.beside(in.p, cols, out_m) : g.place(out_m), out_m};
  Case c{Op::transpose};
  std::ostringstream os;
  os << "tk::transpose(rows=" << rows << ", cols=" << cols << ", in=" << in.p << ", ld_in=" << ld_in
     << ", out=" << out.p << ", ld_out=" << ld_out << ", variant=" << variant_text(variant) << ")";
  c.text = os.str();
  const bool args_ok = rows >= 0 && cols >= 0 && ld_ok(ld_in, cols) && ld_ok(ld_out, rows) &&
                       listed(variants, static_cast<int>(variant));
  c.verdict = decide(args_ok, rows == 0 || cols == 0, {in.p, out.p}, [&] { return share(out, in); });
  c.shares_memory = spans_meet(out, in);
  c.call = [=](float* base) { tk::transpose(dev, rows, cols, in.p.at(base), ld_in, out.p.at(base), ld_out, variant); };
  c.reference = [=](const std::vector<float>& x, Outputs& o) {
    // out(j, i) = in(i, j), exactly
    for_each_element(
        out, [&](std::int64_t k, std::int64_t j, std::int64_t i) { o.add(k, j, i, x[in.p.off + i * ld_in + j], 0.0); });
  };
  return c;
}

Case fuzz_moving_average(Gen& g, const Device& dev) {
  static const std::vector<int> variants = ints_of_stencil_variants();
  const std::int64_t n = g.length();
  const double r = g.u01();
  // Mostly short windows; the maximum 1024 and long ones now and then (the reference clips them to [0, n)).
  const int radius = r < 0.03   ? g.pick({-1, -7, 1025, 5000})
                     : r < 0.70 ? static_cast<int>(g.between(0, 4))
                     : r < 0.90 ? static_cast<int>(g.between(5, 64))
                     : r < 0.95 ? 1024
                                : static_cast<int>(g.between(65, 1023));
  const auto variant = static_cast<StencilVariant>(g.variant(variants));
  const Arg in{g.place(vec(n)), vec(n)}, out{g.place(vec(n)), vec(n)};
  Case c{Op::moving_average};
  std::ostringstream os;
  os << "tk::moving_average(n=" << n << ", in=" << in.p << ", out=" << out.p << ", radius=" << radius
     << ", variant=" << variant_text(variant) << ")";
  c.text = os.str();
  const bool args_ok = n >= 0 && radius >= 0 && radius <= 1024 && listed(variants, static_cast<int>(variant));
  c.verdict = decide(args_ok, n == 0, {in.p, out.p}, [&] { return share(out, in); });
  c.shares_memory = spans_meet(out, in);
  c.call = [=](float* base) { tk::moving_average(dev, n, in.p.at(base), out.p.at(base), radius, variant); };
  c.reference = [=](const std::vector<float>& x, Outputs& o) {
    // out[i] = (sum of in[j], j in [i - r, i + r] and in [0, n)) / (2r + 1): zeros outside count in the
    // divisor (stencil.hpp, tests/test_stencil.cpp). Only the in-range terms round (adding 0 is exact),
    // so the bound of test_stencil.cpp holds with their count.
    const double scale = 1.0 / (2.0 * radius + 1.0);
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t lo = std::max<std::int64_t>(0, i - radius), hi = std::min<std::int64_t>(n - 1, i + radius);
      double s = 0, m = 0;
      for (std::int64_t j = lo; j <= hi; ++j) s += x[in.p.off + j], m += std::fabs(x[in.p.off + j]);
      o.add(out.p.off + i, 0, i, s * scale, double(hi - lo + 1 + 2) * unit_roundoff * m * scale);
    }
  };
  return c;
}

// x(i, j) of a rows x cols matrix at `p` with leading dimension ld in the arena snapshot; 0 outside.
struct Grid {
  const std::vector<float>& x;
  std::int64_t off, rows, cols, ld;
  double operator()(std::int64_t i, std::int64_t j) const {
    return i >= 0 && i < rows && j >= 0 && j < cols ? double(x[off + i * ld + j]) : 0.0;
  }
};

Case fuzz_stencil_5point(Gen& g, const Device& dev) {
  static const std::vector<int> variants = ints_of_stencil_variants();
  const std::int64_t rows = g.size(40), cols = g.size(40);
  const bool blocks = g.chance(0.12);  // out beside in, in one array
  const std::int64_t ld_in = blocks ? g.shared_ld(cols, cols) : g.ld(cols), ld_out = blocks ? ld_in : g.ld(cols);
  const bool average = g.chance(0.25);  // the 5-point average, else random weights
  const float center = average ? 0.2f : g.real(-1.f, 1.f), side = average ? 0.2f : g.real(-1.f, 1.f);
  const auto variant = static_cast<StencilVariant>(g.variant(variants));
  const Arg in{g.place({rows, cols, ld_in}), {rows, cols, ld_in}};
  const Mat out_m{rows, cols, ld_out};
  const Arg out{blocks ? g.beside(in.p, cols, out_m) : g.place(out_m), out_m};
  Case c{Op::stencil_5point};
  std::ostringstream os;
  os << "tk::stencil_5point(rows=" << rows << ", cols=" << cols << ", in=" << in.p << ", ld_in=" << ld_in
     << ", out=" << out.p << ", ld_out=" << ld_out << ", center=" << num(center) << ", side=" << num(side)
     << ", variant=" << variant_text(variant) << ")";
  c.text = os.str();
  const bool args_ok = rows >= 0 && cols >= 0 && ld_ok(ld_in, cols) && ld_ok(ld_out, cols) &&
                       listed(variants, static_cast<int>(variant));
  c.verdict = decide(args_ok, rows == 0 || cols == 0, {in.p, out.p}, [&] { return share(out, in); });
  c.shares_memory = spans_meet(out, in);
  c.call = [=](float* base) {
    tk::stencil_5point(dev, rows, cols, in.p.at(base), ld_in, out.p.at(base), ld_out, center, side, variant);
  };
  c.reference = [=](const std::vector<float>& x, Outputs& o) {
    // out(i, j) = center x(i, j) + side (x(i-1, j) + x(i+1, j) + x(i, j-1) + x(i, j+1)), zero outside;
    // tolerance (5 + 2) u magnitude, as tests/test_stencil.cpp.
    const Grid v{x, in.p.off, rows, cols, ld_in};
    const double ce = center, si = side;
    for_each_element(out, [&](std::int64_t k, std::int64_t i, std::int64_t j) {
      const double around = v(i - 1, j) + v(i + 1, j) + v(i, j - 1) + v(i, j + 1);
      const double mag = std::fabs(ce * v(i, j)) + std::fabs(si) * (std::fabs(v(i - 1, j)) + std::fabs(v(i + 1, j)) +
                                                                    std::fabs(v(i, j - 1)) + std::fabs(v(i, j + 1)));
      o.add(k, i, j, ce * v(i, j) + si * around, 7 * unit_roundoff * mag);
    });
  };
  return c;
}

Case fuzz_convolve_2d(Gen& g, const Device& dev) {
  static const std::vector<int> variants = ints_of_stencil_variants();
  const std::int64_t rows = g.size(40), cols = g.size(40);
  const bool blocks = g.chance(0.12);  // out beside in, in one array
  const std::int64_t ld_in = blocks ? g.shared_ld(cols, cols) : g.ld(cols), ld_out = blocks ? ld_in : g.ld(cols);
  const double r = g.u01();
  const int radius = r < 0.03   ? g.pick({-1, -3, 9, 40})
                     : r < 0.45 ? static_cast<int>(g.between(0, 1))
                     : r < 0.85 ? static_cast<int>(g.between(2, 3))
                                : static_cast<int>(g.between(4, 8));
  const std::int64_t width = 2 * std::clamp(radius, 0, 8) + 1;  // for placement when the radius is bad
  const auto variant = static_cast<StencilVariant>(g.variant(variants));
  const Arg in{g.place({rows, cols, ld_in}), {rows, cols, ld_in}};
  const Arg filter{g.place(vec(width * width)), vec(width * width)};
  const Mat out_m{rows, cols, ld_out};
  const Arg out{blocks ? g.beside(in.p, cols, out_m) : g.place(out_m), out_m};
  Case c{Op::convolve_2d};
  std::ostringstream os;
  os << "tk::convolve_2d(rows=" << rows << ", cols=" << cols << ", in=" << in.p << ", ld_in=" << ld_in
     << ", filter=" << filter.p << ", radius=" << radius << ", out=" << out.p << ", ld_out=" << ld_out
     << ", variant=" << variant_text(variant) << ")";
  c.text = os.str();
  const bool args_ok = rows >= 0 && cols >= 0 && ld_ok(ld_in, cols) && ld_ok(ld_out, cols) && radius >= 0 &&
                       radius <= 8 && listed(variants, static_cast<int>(variant));
  // the filter may overlap in (both are read), not out
  c.verdict = decide(args_ok, rows == 0 || cols == 0, {in.p, filter.p, out.p},
                     [&] { return share(out, in) || share(out, filter); });
  c.shares_memory = spans_meet(out, in) || spans_meet(out, filter) || spans_meet(in, filter);
  c.call = [=](float* base) {
    tk::convolve_2d(dev, rows, cols, in.p.at(base), ld_in, filter.p.at(base), radius, out.p.at(base), ld_out, variant);
  };
  c.reference = [=](const std::vector<float>& x, Outputs& o) {
    // A cross-correlation: out(i, j) = sum over a, b in [-r, r] of filter[(a + r)(2r + 1) + b + r] x(i + a, j + b)
    // (stencil.hpp, tests/test_stencil.cpp); tolerance (terms + 2) u magnitude with terms = (2r + 1)^2.
    const Grid v{x, in.p.off, rows, cols, ld_in};
    for_each_element(out, [&](std::int64_t k, std::int64_t i, std::int64_t j) {
      double s = 0, m = 0;
      for (int a = -radius; a <= radius; ++a) {
        for (int b = -radius; b <= radius; ++b) {
          const double t = double(x[filter.p.off + (a + radius) * width + b + radius]) * v(i + a, j + b);
          s += t;
          m += std::fabs(t);
        }
      }
      o.add(k, i, j, s, double(width * width + 2) * unit_roundoff * m);
    });
  };
  return c;
}

Case fuzz_matmul(Gen& g, const Device& dev) {
  static const std::vector<int> variants = ints_of_matmul_variants();
  const std::int64_t M = g.size(40), N = g.size(40), K = g.size(70);
  const bool blocks = g.chance(0.12);  // C beside A in one array, as in a blocked LU
  const std::int64_t lda = blocks ? g.shared_ld(K, N) : g.ld(K), ldb = g.ld(N), ldc = blocks ? lda : g.ld(N);
  const double ra = g.u01(), rb = g.u01();
  const float alpha = ra < 0.10 ? 0.f : ra < 0.12 ? -0.f : ra < 0.45 ? 1.f : ra < 0.53 ? -1.f : g.real(-2.f, 2.f);
  const float beta = rb < 0.32 ? 0.f : rb < 0.35 ? -0.f : rb < 0.55 ? 1.f : rb < 0.60 ? -1.f : g.real(-2.f, 2.f);
  const auto variant = static_cast<MatmulVariant>(g.variant(variants));
  // Without a product term A and B are not checked, and with beta == 1 too neither is C: make them bad often.
  const bool no_product = alpha == 0.f || K == 0;
  Arg A{g.place({M, K, lda}), {M, K, lda}}, B{g.place({K, N, ldb}), {K, N, ldb}};
  const Mat c_m{M, N, ldc};
  Arg C{blocks ? g.beside(A.p, K, c_m) : g.place(c_m), c_m};
  if (no_product && g.chance(0.3)) A.p = g.spoil(A.p);
  if (no_product && g.chance(0.3)) B.p = g.spoil(B.p);
  if (no_product && beta == 1.f && g.chance(0.3)) C.p = g.spoil(C.p);
  Case c{Op::matmul};
  std::ostringstream os;
  os << "tk::matmul(M=" << M << ", N=" << N << ", K=" << K << ", alpha=" << num(alpha) << ", A=" << A.p
     << ", lda=" << lda << ", B=" << B.p << ", ldb=" << ldb << ", beta=" << num(beta) << ", C=" << C.p
     << ", ldc=" << ldc << ", variant=" << variant_text(variant) << ")";
  c.text = os.str();
  // BLAS: M or N of 0, or no product term with beta == 1, is a no-op that checks no pointer; with no product
  // term (alpha == 0 or K == 0) C = beta C, and A and B are neither checked nor read.
  const bool args_ok = M >= 0 && N >= 0 && K >= 0 && ld_ok(lda, K) && ld_ok(ldb, N) && ld_ok(ldc, N) &&
                       listed(variants, static_cast<int>(variant));
  if (!args_ok) c.verdict = Verdict::bad_args;
  else if (M == 0 || N == 0 || (no_product && beta == 1.f)) c.verdict = Verdict::noop;
  else if (C.p.kind != Ptr::arena) c.verdict = Verdict::bad_pointer;
  else if (no_product) c.verdict = Verdict::run;
  else if (!arena_pointers({A.p, B.p})) c.verdict = Verdict::bad_pointer;
  else c.verdict = share(C, A) || share(C, B) ? Verdict::overlap : Verdict::run;
  c.shares_memory = spans_meet(C, A) || spans_meet(C, B) || spans_meet(A, B);

  if (c.verdict == Verdict::run) {
    // What is not read holds NaN, so that a read shows: A and B without a product term (where they are not
    // also C, which beta != 0 reads), and C when beta == 0.
    std::vector<char> in_c(arena_elems, 0);
    for_each_element(C, [&](std::int64_t k, std::int64_t, std::int64_t) { in_c[k] = 1; });
    if (no_product) {
      for (const Arg* x : {&A, &B}) {
        if (x->p.kind != Ptr::arena) continue;
        for_each_element(*x, [&](std::int64_t k, std::int64_t, std::int64_t) {
          if (!in_c[k] || beta == 0.f) c.poison.push_back(k);
        });
      }
    }
    if (beta == 0.f) for_each_element(C, [&](std::int64_t k, std::int64_t, std::int64_t) { c.poison.push_back(k); });
  }

  c.call = [=](float* base) {
    tk::matmul(dev, M, N, K, alpha, A.p.at(base), lda, B.p.at(base), ldb, beta, C.p.at(base), ldc, variant);
  };
  c.reference = [=](const std::vector<float>& x, Outputs& o) {
    // Tolerance: (K + 4) u times the magnitude |alpha| sum |a b| + |beta c|, the bound on a float sum of K
    // products in any order (tiles, split-K, fused multiply-adds) plus the roundings of alpha, beta and the
    // final addition. A wrong or missing term is off by about |alpha a b| ~ 0.1, far above it.
    for_each_element(C, [&](std::int64_t k, std::int64_t i, std::int64_t j) {
      const double bc = beta == 0.f ? 0.0 : double(beta) * x[k];  // beta == 0: C is not read (it holds NaN)
      if (no_product) {
        o.add(k, i, j, bc, 2 * unit_roundoff * std::fabs(bc));
        return;
      }
      double s = 0, m = 0;
      for (std::int64_t l = 0; l < K; ++l) {
        const double t = double(x[A.p.off + i * lda + l]) * double(x[B.p.off + l * ldb + j]);
        s += t;
        m += std::fabs(t);
      }
      const double mag = std::fabs(double(alpha)) * m + std::fabs(bc);
      o.add(k, i, j, double(alpha) * s + bc, double(K + 4) * unit_roundoff * mag + 1e-30);
    });
  };
  return c;
}

Case fuzz_call(Gen& g, const Device& dev, Op op) {
  switch (op) {
    case Op::copy: return fuzz_copy(g, dev);
    case Op::vector_add: return fuzz_vector_add(g, dev);
    case Op::matrix_add: return fuzz_matrix_add(g, dev);
    case Op::transpose: return fuzz_transpose(g, dev);
    case Op::moving_average: return fuzz_moving_average(g, dev);
    case Op::stencil_5point: return fuzz_stencil_5point(g, dev);
    case Op::convolve_2d: return fuzz_convolve_2d(g, dev);
    case Op::matmul: return fuzz_matmul(g, dev);
  }
  return fuzz_copy(g, dev);
}

// ---- Checking one call -------------------------------------------------------------------------------------

struct Outcome {
  enum Kind { returned, tk_error, other } kind = returned;
  std::string what;
};

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Reports (ADD_FAILURE) where the call broke the contract; returns whether it kept it.
bool check_call(const Case& c, const std::vector<float>& before, const std::vector<float>& after, const Outcome& out) {
  bool ok = true;
  if (out.kind == Outcome::other) {
    ADD_FAILURE() << "threw an exception other than tk::Error: " << out.what;
    ok = false;
  }
  std::vector<char> written(arena_elems, 0);
  if (valid(c.verdict)) {
    if (out.kind == Outcome::tk_error) {
      ADD_FAILURE() << "a valid call threw tk::Error: " << out.what;
      ok = false;
    }
    if (ok && c.verdict == Verdict::run) {
      Outputs o;
      c.reference(before, o);
      int bad = 0;
      std::ostringstream msg;
      for (const auto& e : o.elements) {
        written[e.index] = 1;
        const double got = after[e.index];
        if (!(std::fabs(got - e.ref) <= e.tol)) {
          if (bad < 10)
            msg << "\n  output (" << e.i << ", " << e.j << ") at arena+" << e.index << ": got " << num(got)
                << ", expected " << num(e.ref) << " (tolerance " << e.tol << ")";
          ++bad;
        }
      }
      if (bad > 0) {
        ADD_FAILURE() << bad << " of " << o.elements.size() << " output elements differ from the reference"
                      << msg.str();
        ok = false;
      }
    }
  } else if (out.kind == Outcome::returned) {
    ADD_FAILURE() << "expected tk::Error, the call returned";
    ok = false;
  }
  // Whatever happened, no element outside the outputs of a valid, run call may change.
  int changed = 0;
  std::ostringstream msg;
  for (std::int64_t k = 0; k < arena_elems; ++k) {
    if (written[k] || bits(after[k]) == bits(before[k])) continue;
    if (changed < 10) msg << "\n  arena+" << k << ": " << num(before[k]) << " became " << num(after[k]);
    ++changed;
  }
  if (changed > 0) {
    ADD_FAILURE() << changed << " elements outside the call's output changed" << msg.str();
    ok = false;
  }
  return ok;
}

// An unsigned number from the environment, or `fallback` when unset; false when set but not a number.
bool env_number(const char* name, std::uint64_t fallback, std::uint64_t& value) {
  value = fallback;
  const char* s = std::getenv(name);
  if (s == nullptr || *s == '\0') return true;
  char* end = nullptr;
  value = std::strtoull(s, &end, 0);
  return *end == '\0';
}

struct Tally {
  std::array<std::int64_t, 5> by_verdict{};  // indexed by Verdict
  std::int64_t run_sharing = 0;              // valid, run, with operands whose spans meet
  std::int64_t of(Verdict v) const { return by_verdict[static_cast<std::size_t>(v)]; }
  std::int64_t invalid() const { return of(Verdict::bad_args) + of(Verdict::bad_pointer) + of(Verdict::overlap); }
};

class Fuzz : public ::testing::TestWithParam<Backend> {};

TEST_P(Fuzz, RandomCallsMatchTheReferenceOrThrow) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  const bool gpu = GetParam() == Backend::cuda || GetParam() == Backend::hip;
  std::uint64_t seed = 0, calls = 0, first = 0;
  ASSERT_TRUE(env_number("TK_FUZZ_SEED", 20261123, seed)) << "TK_FUZZ_SEED is not a number";
  ASSERT_TRUE(env_number("TK_FUZZ_CALLS", gpu ? 1000 : 3000, calls)) << "TK_FUZZ_CALLS is not a number";
  ASSERT_TRUE(env_number("TK_FUZZ_FIRST", 0, first)) << "TK_FUZZ_FIRST is not a number";
  const char* verbose_env = std::getenv("TK_FUZZ_VERBOSE");
  const bool verbose = verbose_env != nullptr && *verbose_env != '\0' && std::string(verbose_env) != "0";

  Buffer<float> arena(dev, static_cast<std::size_t>(arena_elems));
  std::array<Tally, op_count> tally{};
  int failing = 0;
  for (std::uint64_t k = first; k < first + calls; ++k) {
    Gen g(seed, k);
    std::vector<float> before = random_floats(static_cast<std::size_t>(arena_elems), g.rng());  // fresh each call
    const auto op = static_cast<Op>(g.between(0, op_count - 1));
    const Case c = fuzz_call(g, dev, op);
    std::ostringstream trace;
    trace << "fuzz call " << k << " of seed " << seed << " on " << dev.name() << " (replay: TK_FUZZ_SEED=" << seed
          << " TK_FUZZ_FIRST=" << k << " TK_FUZZ_CALLS=1): " << c.text << "; expected: " << to_text(c.verdict);
    SCOPED_TRACE(trace.str());
    if (verbose) std::cout << trace.str() << std::endl;  // flushed: the last line names a call that crashes

    for (std::int64_t idx : c.poison) before[idx] = std::numeric_limits<float>::quiet_NaN();
    Outcome outcome;
    std::vector<float> after;
    try {
      arena.copy_from_host(before.data(), before.size());
      try {
        c.call(arena.data());
      } catch (const Error& e) {
        outcome = {Outcome::tk_error, e.what()};
      } catch (const std::exception& e) {
        outcome = {Outcome::other, e.what()};
      } catch (...) {
        outcome = {Outcome::other, "(not a std::exception)"};
      }
      after = arena.to_host();  // on a GPU, also waits for the call
    } catch (const Error& e) {
      FAIL() << "moving the arena failed, the device may be broken by the call: " << e.what();
    }

    Tally& t = tally[static_cast<std::size_t>(op)];
    ++t.by_verdict[static_cast<std::size_t>(c.verdict)];
    t.run_sharing += c.verdict == Verdict::run && c.shares_memory;
    if (!check_call(c, before, after, outcome) && ++failing == 10) {
      ADD_FAILURE() << "stopping after 10 failing calls";
      break;
    }
  }

  std::ostringstream report;
  report << "fuzz on " << dev.name() << ", seed " << seed << ", calls " << first << " to " << first + calls - 1
         << "\n  op               valid  (no-op, sharing memory)  invalid  (args, pointer, overlap)\n";
  for (int i = 0; i < op_count; ++i) {
    const Tally& t = tally[static_cast<std::size_t>(i)];
    report << "  " << std::left << std::setw(16) << op_names[i] << std::right << std::setw(6)
           << t.of(Verdict::run) + t.of(Verdict::noop) << "  (" << t.of(Verdict::noop) << ", " << t.run_sharing << ")"
           << std::setw(20) << t.invalid() << "  (" << t.of(Verdict::bad_args) << ", " << t.of(Verdict::bad_pointer)
           << ", " << t.of(Verdict::overlap) << ")\n";
  }
  std::cout << report.str();

  // The test must not pass by testing nothing: with enough calls, every op ran valid calls and refused
  // invalid ones, aliasing among them. (A replay of a few calls covers less.)
  if (calls >= 400) {
    for (int i = 0; i < op_count; ++i) {
      const Tally& t = tally[static_cast<std::size_t>(i)];
      EXPECT_GT(t.of(Verdict::run), 0) << op_names[i] << " ran no valid call";
      EXPECT_GT(t.invalid(), 0) << op_names[i] << " was given no invalid call";
      if (calls >= 1000) {
        EXPECT_GT(t.of(Verdict::overlap), 0) << op_names[i] << " was given no overlapping operands";
        // copy and moving_average have two contiguous operands that may not share elements: their spans
        // cannot meet in a valid call
        const bool can_share = static_cast<Op>(i) != Op::copy && static_cast<Op>(i) != Op::moving_average;
        if (can_share) {
          EXPECT_GT(t.run_sharing, 0) << op_names[i] << " ran no valid call whose operands' spans meet";
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, Fuzz, ::testing::ValuesIn(built_backends()), backend_name);

}  // namespace
}  // namespace tk::test
