// The CPU target's checked mode (tilekit/cpu/checked.hpp): the block runs (each block twice, its threads in
// order and then in reverse in every phase, its global writes undone between the runs), the phases and
// barriers, and the arena storage of shared arrays and tk::Private values. checked_access.cpp answers the
// compiler's instrumentation, checked_report.cpp words the findings (checked_state.hpp: what they share).
#include "checked_state.hpp"

namespace tk::cpu::checked {
namespace detail {

std::mutex& launch_mutex() {
  static std::mutex& m = *new std::mutex;  // never destroyed: usable during exit
  return m;
}

}  // namespace detail

using namespace detail;

// ---- phases and barriers ----

PhaseLoop::PhaseLoop(const char* file, int line) {
  Busy busy;
  State& s = state();
  if (!hot.active) tk::detail::fail("TK_THREADS at ", file, ":", line, ": a phase outside a kernel launch");
  throw_pending();
  if (hot.in_phase)
    throw KernelCheckError(KernelBug::divergent_barrier,
                           where() + "a phase (TK_THREADS at " + file + ":" + std::to_string(line) +
                               ") inside another phase: phases follow one another, separated by barriers");
  auto it = std::find_if(s.sites.begin(), s.sites.end(),
                         [&](const PhaseSite& p) { return p.file == file && p.line == line; });
  if (it == s.sites.end()) it = s.sites.insert(s.sites.end(), PhaseSite{file, line});
  phase_ = static_cast<int>(it - s.sites.begin());
  hot.phase = phase_;
  hot.in_phase = true;
  hot.barrier_in_phase = false;
  s.barrier_counts.assign(static_cast<std::size_t>(s.threads), 0);
}

PhaseLoop::~PhaseLoop() {
  if (step_ >= 0 && hot.in_phase) {  // left by an exception or a break
    hot.in_phase = false;
    hot.tid = kBlock;
    hot.phase = -1;
  }
}

bool PhaseLoop::next() {
  Busy busy;
  State& s = state();
  throw_pending();
  ++step_;
  if (step_ < s.threads) {
    const int id = s.run == 0 ? step_ : s.threads - 1 - step_;
    const Dim3 d = s.spec->block;
    th_ = Thread{id % d.x, (id / d.x) % d.y, id / (d.x * d.y), id};
    hot.tid = id;
    return true;
  }
  hot.in_phase = false;
  hot.tid = kBlock;
  hot.phase = -1;
  if (hot.barrier_in_phase) {
    const auto [lo, hi] = std::minmax_element(s.barrier_counts.begin(), s.barrier_counts.end());
    std::ostringstream os;
    const char* bf = std::strrchr(s.barrier_site.file, '/');
    os << "TK_BARRIER() at " << (bf ? bf + 1 : s.barrier_site.file) << ":" << s.barrier_site.line << " inside "
       << site_name(phase_) << ": ";
    if (*lo != *hi) {
      os << thread_name(static_cast<int>(lo - s.barrier_counts.begin())) << " reached it " << *lo << " times, "
         << thread_name(static_cast<int>(hi - s.barrier_counts.begin())) << " " << *hi
         << " times (a GPU deadlocks or corrupts the block; the CPU does not wait at all)";
    } else {
      os << "every thread reached it " << *lo
         << " times, but a barrier inside a phase does not separate anything on the CPU; end the phase there";
    }
    throw KernelCheckError(KernelBug::divergent_barrier, where() + os.str());
  }
  return false;
}

void barrier(const char* file, int line) {
  Busy busy;
  if (!hot.active) return;
  State& s = state();
  if (hot.in_phase) {
    if (!hot.barrier_in_phase) s.barrier_site = {file, line};
    hot.barrier_in_phase = true;
    ++s.barrier_counts[static_cast<std::size_t>(hot.tid)];
    return;
  }
  throw_pending();
  ++hot.epoch;
}

void async_barrier_waited() {
  Busy busy;
  if (hot.active) ++hot.epoch;
}

namespace {
// A call of the block's that stands between phases, like a barrier (a warp-collective call, tk::copy_async_commit and
// _wait): inside a phase it is a divergent barrier; `why` says what it needs.
void between_phases(const char* what, const char* why) {
  throw_pending();
  if (hot.in_phase)
    throw KernelCheckError(
        KernelBug::divergent_barrier,
        where() + std::string(what) + " inside " + site_name(hot.phase) + ", by " + thread_name(hot.tid) + ": " + why);
}
constexpr const char* kCopiesBetweenPhases =
    "commits and waits of copies in flight stand between phases, where every thread makes them alike";
}  // namespace

void copy_async_issue(void* dst, const void* src, int src_bytes, const void* data, int bytes) {
  Busy busy;
  if (!hot.active || hot.pending) {  // not a checked block, or a finding on its way: the copy lands at the call
    std::memcpy(dst, data, static_cast<std::size_t>(bytes));
    return;
  }
  const auto off = [](const void* p, int b) { return reinterpret_cast<std::uintptr_t>(p) % static_cast<unsigned>(b); };
  if (off(dst, bytes) != 0 || (src_bytes > 0 && off(src, bytes) != 0) || src_bytes < 0 || src_bytes > bytes ||
      src_bytes % 4 != 0) {
    std::ostringstream os;
    os << thread_name(hot.tid) << " starts a tk::copy_async<" << bytes << "> in " << site_name(hot.phase)
       << " with its destination " << off(dst, bytes) << " bytes and its source " << off(src, bytes)
       << " bytes past a multiple of " << bytes << ", reading " << src_bytes << " bytes (both on " << bytes
       << " bytes, 0 to " << bytes << " bytes read, a multiple of 4)";
    return report(KernelBug::out_of_range, os.str());
  }
  if (!copy_cells(dst, static_cast<std::size_t>(bytes), CopyStep::issue, hot.tid)) {
    // not a place checked mode knows (a TK_SHARED array of a program without its symbol table runs unchecked): the
    // copy lands at the call, as on the plain CPU target
    std::memcpy(dst, data, static_cast<std::size_t>(bytes));
    return;
  }
  if (hot.tid < 0 || hot.pending) return;  // block-level code, or a finding in its cells
  State& s = state();
  PendingCopy c{dst, bytes, {}};
  std::memcpy(c.data, data, static_cast<std::size_t>(bytes));
  s.open_copies[static_cast<std::size_t>(hot.tid)].push_back(c);
}

void copy_async_commit() {
  Busy busy;
  if (!hot.active) return;
  between_phases("tk::copy_async_commit", kCopiesBetweenPhases);
  State& s = state();
  for (std::size_t t = 0; t < s.open_copies.size(); ++t) {
    s.copy_groups[t].push_back(std::move(s.open_copies[t]));
    s.open_copies[t].clear();
  }
}

void copy_async_wait(int n) {
  Busy busy;
  if (!hot.active) return;
  between_phases("tk::copy_async_wait", kCopiesBetweenPhases);
  State& s = state();
  for (std::size_t t = 0; t < s.copy_groups.size(); ++t) {
    auto& groups = s.copy_groups[t];
    while (static_cast<int>(groups.size()) > n) {
      for (const PendingCopy& c : groups.front()) {
        std::memcpy(c.dst, c.data, static_cast<std::size_t>(c.bytes));
        copy_cells(c.dst, static_cast<std::size_t>(c.bytes), CopyStep::land, static_cast<int>(t));
      }
      groups.pop_front();
    }
  }
  throw_pending();
}

void warp_collective(const char* what, int lanes) {
  Busy busy;
  if (!hot.active) tk::detail::fail(what, ": called outside a kernel launch");
  between_phases(what,
                 "a warp-collective call stands between phases, where every lane of the warp reaches it together "
                 "(inside a phase each thread would call it alone)");
  State& s = state();
  if (s.threads % lanes != 0)
    throw KernelCheckError(KernelBug::thread_state, where() + std::string(what) + ": the block's " +
                                                        std::to_string(s.threads) + " threads are not whole warps of " +
                                                        std::to_string(lanes) + " lanes");
}

// ---- arena storage ----

void* shared_array(std::size_t bytes, std::size_t align, std::size_t elem, const std::size_t* extents, int rank,
                   const char* name, const char* type, const char* file, int line) {
  Busy busy;
  if (!hot.active) tk::detail::fail("TK_SHARED_ARRAY ", name, " at ", file, ":", line, ": outside a kernel launch");
  if (align > Arena::alignment)
    tk::detail::fail("TK_SHARED_ARRAY ", name, ": alignment ", align, " is more than the arena's ", Arena::alignment);
  void* p = arena_push(bytes);
  Alloc a(Kind::shared_array, bytes);
  a.elem = elem;
  a.extents.assign(extents, extents + rank);
  a.name = name;
  a.type = type;
  a.file = file;
  a.line = line;
  track(p, std::move(a));
  return p;
}

void* private_storage(std::size_t bytes, int values, const char* type) {
  Busy busy;
  if (!hot.active) tk::detail::fail("tk::Private<", type, ">: constructed outside a kernel launch");
  void* p = arena_push(bytes);
  Alloc a(Kind::private_values, bytes);
  a.values = values;
  a.type = type;
  a.elem = bytes / static_cast<std::size_t>(values) / static_cast<std::size_t>(state().threads);
  track(p, std::move(a));
  return p;
}

void private_release(void* p) {
  Busy busy;
  State& s = state();
  const std::size_t off = arena_offset(p);
  while (!s.allocs.empty() && s.allocs.back().offset >= off) s.allocs.pop_back();
  if (4 * hot.nwords > off) hot.nwords = off / 4;  // what lies above is no longer tracked: out of range
  arena().pop_to(off);
}

void private_access(const void* storage, int id, int i, int values) {
  if (!hot.active ||
      (hot.in_phase && !hot.pending && id == hot.tid && static_cast<unsigned>(i) < static_cast<unsigned>(values)))
    return;
  Busy busy;
  throw_pending();
  State& s = state();
  const std::size_t off = arena_offset(storage);
  const Alloc* a = nullptr;
  for (const Alloc& x : s.allocs)
    if (x.offset == off) a = &x;
  const std::string what = a ? "tk::Private<" + a->type + ", " + std::to_string(values) + ">" : "a tk::Private";
  if (!hot.in_phase)
    throw KernelCheckError(KernelBug::thread_state,
                           where() + what + " used by block-level code, outside any phase: it has a value per thread");
  if (id != hot.tid)
    throw KernelCheckError(KernelBug::thread_state,
                           where() + thread_name(hot.tid) + " in " + site_name(hot.phase) + " uses the value of " +
                               what + " that belongs to " +
                               (id >= 0 && id < s.threads ? thread_name(id) : "thread id " + std::to_string(id)) +
                               "; index a Private with th.id");
  if (i < 0 || i >= values)
    throw KernelCheckError(KernelBug::out_of_range, where() + thread_name(hot.tid) + " in " + site_name(hot.phase) +
                                                        " uses value " + std::to_string(i) + " of " + what +
                                                        ", which holds values 0 to " + std::to_string(values - 1));
}

// ---- launches and block runs ----

Launch::Launch(const LaunchSpec& spec, const void* const* pointer_args, int nargs, void* stack_top) {
  std::unique_lock<std::mutex> lock(launch_mutex());  // held until ~Launch once nothing here can throw
  State& s = state();
  s.spec = &spec;
  s.args = pointer_args;
  s.nargs = nargs;
  s.threads = spec.block.x * spec.block.y * spec.block.z;
  hot.stack_top = reinterpret_cast<std::uintptr_t>(stack_top);
  s.first_run.clear();
  s.statics.clear();
  refresh_statics();
  lock.release();
}

Launch::~Launch() {
  State& s = state();
  hot.active = false;
  hot.pending = false;
  hot.in_phase = false;
  s.allocs.clear();
  s.before.clear();
  s.first_run.clear();
  s.atomics.clear();
  s.statics.clear();
  arena().pop_to(0);
  launch_mutex().unlock();
}

void Launch::begin_block(Dim3 block, int run) {
  State& s = state();
  BlockContext& c = tls_block;
  c.block_idx = block;
  c.block_dim = s.spec->block;
  c.grid_dim = s.spec->grid;
  c.threads = s.threads;
  c.kernel_name = s.spec->name;
  s.block = block;
  s.run = run;
  s.sites.clear();
  s.allocs.clear();
  s.before.clear();
  s.statics.clear();  // a TK_SHARED array starts each run of a block unwritten, as shared memory does
  if (run == 0) s.atomics.clear();
  // no copies in flight (those a block never waited for are dropped with it)
  s.open_copies.assign(static_cast<std::size_t>(s.threads), {});
  s.copy_groups.assign(static_cast<std::size_t>(s.threads), {});
  arena().pop_to(0);
  const Hot kept = hot;
  hot = Hot{};
  hot.stack_top = kept.stack_top;
  std::memcpy(hot.static_ranges, kept.static_ranges, sizeof hot.static_ranges);
  hot.nstatic_ranges = kept.nstatic_ranges;
  hot.words = s.words.data();
  hot.bytes = s.bytes.data();
  hot.nwords = 0;
  c.dynamic_shared = nullptr;
  // a red zone before the first allocation too: an index below 0 lands in it, not in the heap below
  arena_push(0);
  {
    const std::size_t lead = kRedZone / 4;
    if (s.words.size() < lead) {
      s.words.resize(lead);
      s.bytes.resize(4 * lead);
    }
    hot.words = s.words.data();
    hot.bytes = s.bytes.data();
    for (std::size_t w = 0; w < lead; ++w) s.words[w] = Cell{};
    for (std::size_t b = 0; b < 4 * lead; ++b) s.bytes[b] = Cell{};
    hot.nwords = lead;
  }
  if (s.spec->dynamic_shared > 0) {
    void* p = arena_push(s.spec->dynamic_shared);
    Alloc a(Kind::dynamic_shared, s.spec->dynamic_shared);
    a.elem = 1;
    track(p, std::move(a));
    c.dynamic_shared = static_cast<unsigned char*>(p);
  }
  hot.tid = kBlock;
  hot.phase = -1;
  hot.active = true;
}

void Launch::end_block(int run) {
  State& s = state();
  hot.active = false;
  throw_pending();
  auto load = [](std::uintptr_t g) {
    std::uint32_t v;
    std::memcpy(&v, reinterpret_cast<const void*>(g), 4);
    return v;
  };
  if (run == 0) {
    s.first_run.clear();
    for (const auto& [g, old] : s.before) s.first_run.emplace(g, load(g));
    for (const auto& [g, old] : s.before) std::memcpy(reinterpret_cast<void*>(g), &old, 4);
    s.before.clear();
    return;
  }
  // the second run's result against the first's
  auto check = [&](std::uintptr_t g, std::uint32_t expected) {
    if (s.atomics.count(g)) return;
    const std::uint32_t now = load(g);
    if (now == expected) return;
    std::ostringstream os;
    // the nearest pointer argument at or below the element
    int arg = -1;
    std::uintptr_t base = 0;
    for (int k = 0; k < s.nargs; ++k) {
      const auto p = reinterpret_cast<std::uintptr_t>(s.args[k]);
      if (p != 0 && p <= g && p >= base) {
        base = p;
        arg = k;
      }
    }
    float f0, f1;
    std::memcpy(&f0, &expected, 4);
    std::memcpy(&f1, &now, 4);
    os << "the block's result depends on the order in which a phase's threads run: ";
    if (arg >= 0) {
      os << "the 4 bytes at byte offset " << g - base << " from kernel argument " << arg;
    } else {
      os << "the 4 bytes at address " << reinterpret_cast<const void*>(g);
    }
    os << " hold 0x" << std::hex << expected << " (as float " << f0 << ") with the threads in order and 0x" << now
       << " (" << f1 << ") in reverse order" << std::dec
       << ". A value one thread left in a plain local (or any storage that is not shared memory or a "
          "tk::Private) was used by another thread: keep per-thread values that outlive a phase in a tk::Private "
          "(two threads writing one global element, or float atomics whose order matters, do this too)";
    throw KernelCheckError(KernelBug::thread_state, where() + os.str());
  };
  for (const auto& [g, v] : s.first_run) check(g, v);
  for (const auto& [g, old] : s.before)
    if (!s.first_run.count(g)) check(g, old);  // written by the second run only: it should hold what it held
  s.before.clear();
  s.first_run.clear();
}

}  // namespace tk::cpu::checked
