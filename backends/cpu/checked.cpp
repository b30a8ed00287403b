// The CPU target's checked mode (tilekit/cpu/checked.hpp): the answers to the compiler's memory-access
// instrumentation, the shadow state of the arena, the block runs and what they report.
//
// This file is compiled without instrumentation. The hooks may not throw (the compiler declares them
// nothrow), so a finding is kept as the block's pending error and thrown at the next point that may throw:
// the end of the current thread's turn in a phase, a barrier, or the end of the block.
#include "tilekit/cpu/checked.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tilekit/cpu/executor.hpp"

namespace tk {

const char* to_string(KernelBug bug) {
  switch (bug) {
    case KernelBug::race: return "race on shared memory";
    case KernelBug::divergent_barrier: return "divergent barrier";
    case KernelBug::thread_state: return "per-thread state outside tk::Private";
    case KernelBug::out_of_range: return "out-of-range access";
    case KernelBug::uninitialized: return "read of uninitialised memory";
  }
  return "kernel bug";
}

namespace cpu::checked {
namespace {

constexpr int kNone = -1;   // no thread: never written / never read in this interval
constexpr int kBlock = -2;  // block-level code (outside the phases): every thread at once
constexpr int kMany = -3;   // several threads read it in this interval
constexpr std::size_t kRedZone = 1024;

enum class Kind { shared_array, dynamic_shared, private_values };

struct Alloc {
  Alloc(Kind k, std::size_t b) : kind(k), bytes(b) {}
  Kind kind;
  std::size_t offset = 0, bytes;  // in the arena
  std::size_t elem = 4;
  std::vector<std::size_t> extents;
  std::string name, type;
  const char* file = nullptr;
  int line = 0;
  int values = 1;  // Private: values per thread
};

// A shadow cell: per 4-byte word and per byte of the arena (arena_access says which is used when).
struct Cell {
  int alloc = -1;  // index into allocs; -1: outside any allocation (a red zone or free arena)
  int writer = kNone, wepoch = -1, wphase = -1;
  int reader = kNone, repoch = -1, rphase = -1;
};

struct PhaseSite {
  const char* file;
  int line;
};

// The hot part of the state: trivial, so the hooks reach it without a thread-local init guard.
struct Hot {
  bool active;      // a checked block is running on this OS thread
  bool busy;        // the runtime itself is running: its own loads and stores (through inline library
                    // code a test or user TU may have instrumented) are not the kernel's
  bool pending;     // a finding waits to be thrown
  bool in_phase;
  bool barrier_in_phase;
  int tid;          // the thread in the current phase, or kBlock
  int epoch;        // barriers passed in this run of the block
  int phase;        // index into State::sites of the current phase
  std::uintptr_t arena_base, arena_end, stack_top;
  struct Cell* words;  // State::words.data(): a cell per 4 bytes of the arena
  struct Cell* bytes;  // State::bytes.data(): a cell per byte
  std::size_t nwords;  // cells in use: the end of the last red zone, in words
};
thread_local Hot hot{};

struct State {
  const LaunchSpec* spec = nullptr;
  const void* const* args = nullptr;
  int nargs = 0;
  Dim3 block{0, 0, 0};
  int run = 0;
  int threads = 1;
  std::vector<Cell> words, bytes;
  std::vector<Alloc> allocs;
  std::vector<PhaseSite> sites;
  std::vector<int> barrier_counts;
  PhaseSite barrier_site{nullptr, 0};
  KernelBug bug = KernelBug::race;
  std::string message;
  std::unordered_map<std::uintptr_t, std::uint32_t> before;      // granule -> value before this run
  std::unordered_map<std::uintptr_t, std::uint32_t> first_run;   // granule -> value after the first run
  std::unordered_set<std::uintptr_t> atomics;
};
// Per thread, freed when the thread ends. The main thread's thread-locals end before static destructors and
// atexit handlers run, which may still launch: then a new State is made and left to the process's end (the
// pointer and the flag are trivially destructible, so reading them stays defined).
thread_local State* tls_state = nullptr;
thread_local bool tls_state_owner_gone = false;
struct StateOwner {
  ~StateOwner() {
    delete tls_state;
    tls_state = nullptr;
    tls_state_owner_gone = true;
  }
};
thread_local StateOwner tls_state_owner;
State& state() {
  if (tls_state == nullptr) {
    tls_state = new State;
    if (!tls_state_owner_gone) (void)&tls_state_owner;  // constructed on first use: frees it at thread exit
  }
  return *tls_state;
}

// Marks the runtime busy for a scope (see Hot::busy); nests.
struct Busy {
  bool was = hot.busy;
  Busy() { hot.busy = true; }
  ~Busy() { hot.busy = was; }
};

std::mutex& launch_mutex() {
  static std::mutex& m = *new std::mutex;  // never destroyed: usable during exit
  return m;
}

std::string thread_name(int tid) {
  if (tid == kBlock) return "every thread (block-level code outside the phases)";
  const Dim3 d = state().spec->block;
  std::ostringstream os;
  os << "thread (" << tid % d.x << ", " << (tid / d.x) % d.y << ", " << tid / (d.x * d.y) << ")";
  return os.str();
}

std::string site_name(int phase) {
  const auto& sites = state().sites;
  if (phase < 0 || phase >= static_cast<int>(sites.size())) return "block-level code";
  std::ostringstream os;
  const char* f = sites[phase].file;
  const char* base = std::strrchr(f, '/');
  os << "the phase at " << (base ? base + 1 : f) << ":" << sites[phase].line;
  return os.str();
}

std::string where() {
  const State& s = state();
  std::ostringstream os;
  os << "tk::launch(" << s.spec->name << "): checked mode: block (" << s.block.x << ", " << s.block.y << ", "
     << s.block.z << ")";
  if (s.run == 1) os << " (second run, threads in reverse order)";
  os << ": ";
  return os.str();
}

// "As[3][17] (float [16][33] As declared at smem_tiled.hpp:23, byte offset 508)"
std::string element_name(const Alloc& a, std::size_t offset_in_alloc) {
  std::ostringstream os;
  if (a.kind == Kind::dynamic_shared) {
    os << "dynamic shared memory byte " << offset_in_alloc << " (of " << a.bytes << " bytes given at launch)";
    return os.str();
  }
  if (a.kind == Kind::private_values) {
    const std::size_t per_value = a.bytes / static_cast<std::size_t>(a.values);
    os << "tk::Private<" << a.type << ", " << a.values << "> value " << offset_in_alloc / per_value
       << " of thread slot " << (offset_in_alloc % per_value) / a.elem;
    return os.str();
  }
  std::size_t index = offset_in_alloc / a.elem;
  std::vector<std::size_t> idx(a.extents.size());
  for (std::size_t k = a.extents.size(); k-- > 0;) {
    idx[k] = index % a.extents[k];
    index /= a.extents[k];
  }
  os << a.name;
  for (std::size_t i : idx) os << "[" << i << "]";
  const char* base = a.file ? std::strrchr(a.file, '/') : nullptr;
  os << " (" << a.type << " " << a.name << " declared at " << (base ? base + 1 : a.file) << ":" << a.line
     << ", byte offset " << offset_in_alloc << ")";
  return os.str();
}

void report(KernelBug bug, const std::string& what) {
  State& s = state();
  if (hot.pending) return;
  hot.pending = true;
  s.bug = bug;
  s.message = where() + to_string(bug) + ": " + what;
}

void throw_pending() {
  if (!hot.pending) return;
  State& s = state();
  hot.pending = false;
  throw KernelCheckError(s.bug, s.message);
}

void out_of_range_in_arena(std::size_t off, std::size_t size, bool write) {
  State& s = state();
  // the nearest allocation that ends at or before off, and the one that starts after it
  const Alloc* before = nullptr;
  const Alloc* after = nullptr;
  for (const Alloc& a : s.allocs) {
    if (a.offset + a.bytes <= off && (!before || a.offset > before->offset)) before = &a;
    if (a.offset > off && (!after || a.offset < after->offset)) after = &a;
  }
  std::ostringstream os;
  os << thread_name(hot.tid) << " " << (write ? "writes " : "reads ") << size << " bytes in " << site_name(hot.phase)
     << " at ";
  if (before && (!after || off - (before->offset + before->bytes) <= after->offset - off)) {
    os << off - (before->offset + before->bytes) << " bytes past the end of ";
    if (before->kind == Kind::dynamic_shared) {
      os << "dynamic shared memory (" << before->bytes << " bytes given at launch)";
    } else if (before->kind == Kind::private_values) {
      os << "a tk::Private<" << before->type << ", " << before->values << ">";
    } else {
      os << before->name << " (" << before->type << ", " << before->bytes << " bytes)";
    }
  } else if (after) {
    os << after->offset - off << " bytes before the start of "
       << (after->kind == Kind::dynamic_shared ? std::string("dynamic shared memory")
                                               : after->kind == Kind::private_values ? "a tk::Private" : after->name);
  } else {
    os << "arena offset " << off << ", outside every shared array";
  }
  report(KernelBug::out_of_range, os.str());
}

// Checks one shadow cell (a word or a byte at arena offset `at`); false when it reported a finding.
// `other_written`: whether the other granularity's cells saw a write there (a word written whole and read
// by bytes, or the reverse), asked only when this cell has seen none.
template <class OtherWritten>
bool check_cell(Cell& c, std::size_t at, bool write, bool atomic, OtherWritten other_written) {
  const Alloc& a = state().allocs[static_cast<std::size_t>(c.alloc)];
  const int t = hot.tid, e = hot.epoch;
  const bool unwritten = !write && c.writer == kNone && !other_written();
  if (a.kind == Kind::private_values) {
    if (unwritten) {
      report(KernelBug::uninitialized, thread_name(t) + " reads " + element_name(a, at - a.offset) + " in " +
                                           site_name(hot.phase) +
                                           " before anything wrote it (a tk::Private constructed without a value)");
      return false;
    }
    if (write || atomic) c.writer = t;
    return true;
  }
  if (hot.barrier_in_phase) return true;  // after a barrier inside a phase, the barrier is what gets reported
  if (unwritten) {
    report(KernelBug::uninitialized, thread_name(t) + " reads " + element_name(a, at - a.offset) + " in " +
                                         site_name(hot.phase) +
                                         ", which no thread of the block has written since the block started");
    return false;
  }
  if (atomic) {  // atomics do not race with each other
    if (c.writer == kNone) c.writer = t;
    return true;
  }
  if (write) {
    if (t == kBlock) {
      report(KernelBug::race, "block-level code (outside the phases, so every thread of the block) writes " +
                                  element_name(a, at - a.offset) +
                                  "; write shared memory inside a phase, from one thread per element");
      return false;
    }
    if (c.wepoch == e && c.writer != kNone && c.writer != t) {
      report(KernelBug::race, thread_name(t) + " writes " + element_name(a, at - a.offset) + " in " +
                                  site_name(hot.phase) + ", which " + thread_name(c.writer) + " wrote in " +
                                  site_name(c.wphase) + " with no TK_BARRIER() between them");
      return false;
    }
    if (c.repoch == e && c.reader != kNone && c.reader != t) {
      report(KernelBug::race, thread_name(t) + " writes " + element_name(a, at - a.offset) + " in " +
                                  site_name(hot.phase) + ", which " +
                                  (c.reader == kMany ? std::string("other threads") : thread_name(c.reader)) +
                                  " read in " + site_name(c.rphase) + " with no TK_BARRIER() between them");
      return false;
    }
    c.writer = t;
    c.wepoch = e;
    c.wphase = hot.phase;
    return true;
  }
  if (c.wepoch == e && c.writer != t && c.writer != kNone) {
    report(KernelBug::race, thread_name(t) + " reads " + element_name(a, at - a.offset) + " in " +
                                site_name(hot.phase) + ", which " + thread_name(c.writer) + " wrote in " +
                                site_name(c.wphase) + " with no TK_BARRIER() between them");
    return false;
  }
  if (c.repoch != e) {
    c.reader = t;
    c.repoch = e;
    c.rphase = hot.phase;
  } else if (c.reader != t) {
    c.reader = kMany;
  }
  return true;
}

// Whole aligned words go through the word cells (the common case, one cell per float); other accesses
// through the byte cells (threads may own neighbouring bytes of a char array). A race between a word access
// and a byte access of the same bytes is not seen; a write in one granularity counts as initialising for
// reads in the other.
void arena_access(std::size_t off, std::size_t size, bool write, bool atomic) {
  if ((off & 3) == 0 && (size & 3) == 0) {
    for (std::size_t w = off / 4; w < (off + size) / 4; ++w) {
      if (w >= hot.nwords || hot.words[w].alloc < 0) return out_of_range_in_arena(w * 4, size, write);
      const auto bytes_written = [&] {
        for (std::size_t b = 4 * w; b < 4 * w + 4; ++b)
          if (hot.bytes[b].writer != kNone) return true;
        return false;
      };
      if (!check_cell(hot.words[w], w * 4, write, atomic, bytes_written)) return;
    }
    return;
  }
  for (std::size_t b = off; b < off + size; ++b) {
    if (b >= 4 * hot.nwords || hot.bytes[b].alloc < 0) return out_of_range_in_arena(b, size, write);
    if (!check_cell(hot.bytes[b], b, write, atomic, [&] { return hot.words[b / 4].writer != kNone; })) return;
  }
}

void global_write(std::uintptr_t a, std::size_t size, bool atomic) {
  State& s = state();
  for (std::uintptr_t g = a & ~std::uintptr_t{3}; g < a + size; g += 4) {
    if (s.before.find(g) == s.before.end()) {
      std::uint32_t v;
      std::memcpy(&v, reinterpret_cast<const void*>(g), 4);
      s.before.emplace(g, v);
    }
    if (atomic) s.atomics.insert(g);
  }
}

// Every instrumented load and store of a kernel file comes here.
// `atomic` with `write` false is a read-modify-write (it reads: an unwritten element is reported).
inline void access(const volatile void* p, std::size_t size, bool write, bool atomic = false) {
  if (!hot.active || hot.pending || hot.busy) return;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const bool in_arena = a >= hot.arena_base && a < hot.arena_end;
  if (!in_arena && !write && !atomic) return;  // reads of global memory need nothing
  const auto sp = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  if (!in_arena && a >= sp && a < hot.stack_top) return;  // the kernel's own stack frames
  Busy busy;
  try {  // the compiler declares the hooks nothrow: nothing may leave them
    if (in_arena) return arena_access(a - hot.arena_base, size, write, atomic);
    global_write(a, size, atomic);
  } catch (...) {
    hot.pending = true;
    state().bug = KernelBug::out_of_range;
    state().message = where() + "checked mode ran out of memory for its own records";
  }
}

std::size_t arena_offset(const void* p) {
  return static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(p) - hot.arena_base);
}

// Registers [p, p + bytes) as allocation `a` and the red zone after it as no allocation.
void track(void* p, Alloc a) {
  State& s = state();
  a.offset = arena_offset(p);
  // cells from the end of the previous red zone are fresh: the gap, this allocation, its red zone
  const std::size_t end_word = (a.offset + a.bytes + kRedZone + 3) / 4;
  if (s.words.size() < end_word) {
    s.words.resize(end_word);
    s.bytes.resize(4 * end_word);
  }
  hot.words = s.words.data();
  hot.bytes = s.bytes.data();
  const int index = static_cast<int>(s.allocs.size());
  for (std::size_t w = hot.nwords; w < end_word; ++w) s.words[w] = Cell{};
  for (std::size_t b = 4 * hot.nwords; b < 4 * end_word; ++b) s.bytes[b] = Cell{};
  for (std::size_t w = a.offset / 4; w < (a.offset + a.bytes) / 4; ++w) s.words[w].alloc = index;
  for (std::size_t b = a.offset; b < a.offset + a.bytes; ++b) s.bytes[b].alloc = index;
  hot.nwords = end_word;
  s.allocs.push_back(std::move(a));
}

void* arena_push(std::size_t bytes) {
  void* p = arena().push(bytes + kRedZone);
  hot.arena_base = reinterpret_cast<std::uintptr_t>(arena().base());
  hot.arena_end = hot.arena_base + Arena::capacity;
  return p;
}

}  // namespace

// ---- phases and barriers ----

PhaseLoop::PhaseLoop(const char* file, int line) {
  Busy busy;
  State& s = state();
  if (!hot.active)
    tk::detail::fail("TK_THREADS at ", file, ":", line, ": a phase outside a kernel launch");
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
    os << "TK_BARRIER() at " << (bf ? bf + 1 : s.barrier_site.file) << ":" << s.barrier_site.line << " inside " << site_name(phase_)
       << ": ";
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
  if (!hot.active || (hot.in_phase && !hot.pending && id == hot.tid && static_cast<unsigned>(i) < static_cast<unsigned>(values)))
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
                           where() + thread_name(hot.tid) + " in " + site_name(hot.phase) + " uses the value of " + what +
                               " that belongs to " + (id >= 0 && id < s.threads ? thread_name(id) : "thread id " + std::to_string(id)) +
                               "; index a Private with th.id");
  if (i < 0 || i >= values)
    throw KernelCheckError(KernelBug::out_of_range, where() + thread_name(hot.tid) + " in " + site_name(hot.phase) +
                                                        " uses value " + std::to_string(i) + " of " + what +
                                                        ", which holds values 0 to " + std::to_string(values - 1));
}

// ---- launches and block runs ----

Launch::Launch(const LaunchSpec& spec, const void* const* pointer_args, int nargs, void* stack_top) {
  launch_mutex().lock();
  State& s = state();
  s.spec = &spec;
  s.args = pointer_args;
  s.nargs = nargs;
  s.threads = spec.block.x * spec.block.y * spec.block.z;
  hot.stack_top = reinterpret_cast<std::uintptr_t>(stack_top);
  s.first_run.clear();
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
  if (run == 0) s.atomics.clear();
  arena().pop_to(0);
  const std::uintptr_t stack_top = hot.stack_top;
  hot = Hot{};
  hot.stack_top = stack_top;
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

}  // namespace cpu::checked
}  // namespace tk

// ---- the compiler's instrumentation calls ----

using tk::cpu::checked::access;

extern "C" {
void __tsan_init() {}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}
void __tsan_read_range(void* p, unsigned long n) {
  if (n) access(p, n, false);
}
void __tsan_write_range(void* p, unsigned long n) {
  if (n) access(p, n, true);
}

#define TK_TSAN_RW(n)                                                       \
  void __tsan_read##n(void* p) { access(p, n, false); }                    \
  void __tsan_write##n(void* p) { access(p, n, true); }                    \
  void __tsan_unaligned_read##n(void* p) { access(p, n, false); }          \
  void __tsan_unaligned_write##n(void* p) { access(p, n, true); }          \
  void __tsan_volatile_read##n(void* p) { access(p, n, false); }           \
  void __tsan_volatile_write##n(void* p) { access(p, n, true); }           \
  void __tsan_unaligned_volatile_read##n(void* p) { access(p, n, false); } \
  void __tsan_unaligned_volatile_write##n(void* p) { access(p, n, true); }
TK_TSAN_RW(1)
TK_TSAN_RW(2)
TK_TSAN_RW(4)
TK_TSAN_RW(8)
TK_TSAN_RW(16)
#undef TK_TSAN_RW

// Atomics: the instrumented code hands the operation over, so it is done here (sequentially consistent,
// at least as strong as any order asked for). An atomic load counts as the read of a read-modify-write: gcc
// compiles `omp atomic` on a float (tk::atomic_add) into an instrumented atomic load and a compare-and-swap
// loop that its TSan pass leaves uninstrumented, so the load is where such an update is seen (and logged, to
// be undone between the two runs of a block).
#define TK_TSAN_ATOMIC(bits, T)                                                                               \
  T __tsan_atomic##bits##_load(const volatile T* p, int) {                                                  \
    access(p, sizeof(T), false, true); /* gcc's omp atomic on float: this load, then an uninstrumented CAS */ \
    return __atomic_load_n(p, __ATOMIC_SEQ_CST);                                                             \
  }                                                                                                          \
  void __tsan_atomic##bits##_store(volatile T* p, T v, int) {                                               \
    access(p, sizeof(T), true, true);                                                                        \
    __atomic_store_n(p, v, __ATOMIC_SEQ_CST);                                                                \
  }                                                                                                          \
  T __tsan_atomic##bits##_exchange(volatile T* p, T v, int) {                                               \
    access(p, sizeof(T), true, true);                                                                        \
    return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                                                      \
  }                                                                                                          \
  T __tsan_atomic##bits##_fetch_add(volatile T* p, T v, int) {                                              \
    access(p, sizeof(T), false, true);                                                                        \
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                                                       \
  }                                                                                                          \
  T __tsan_atomic##bits##_fetch_sub(volatile T* p, T v, int) {                                              \
    access(p, sizeof(T), false, true);                                                                        \
    return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);                                                       \
  }                                                                                                          \
  T __tsan_atomic##bits##_fetch_and(volatile T* p, T v, int) {                                              \
    access(p, sizeof(T), false, true);                                                                        \
    return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);                                                       \
  }                                                                                                          \
  T __tsan_atomic##bits##_fetch_or(volatile T* p, T v, int) {                                               \
    access(p, sizeof(T), false, true);                                                                        \
    return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);                                                        \
  }                                                                                                          \
  T __tsan_atomic##bits##_fetch_xor(volatile T* p, T v, int) {                                              \
    access(p, sizeof(T), false, true);                                                                        \
    return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);                                                       \
  }                                                                                                          \
  T __tsan_atomic##bits##_fetch_nand(volatile T* p, T v, int) {                                             \
    access(p, sizeof(T), false, true);                                                                        \
    return __atomic_fetch_nand(p, v, __ATOMIC_SEQ_CST);                                                      \
  }                                                                                                          \
  int __tsan_atomic##bits##_compare_exchange_strong(volatile T* p, T* expected, T v, int, int) {             \
    access(p, sizeof(T), false, true);                                                                        \
    return __atomic_compare_exchange_n(p, expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);           \
  }                                                                                                          \
  int __tsan_atomic##bits##_compare_exchange_weak(volatile T* p, T* expected, T v, int, int) {               \
    access(p, sizeof(T), false, true);                                                                        \
    return __atomic_compare_exchange_n(p, expected, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);            \
  }                                                                                                          \
  T __tsan_atomic##bits##_compare_exchange_val(volatile T* p, T expected, T v, int, int) {                   \
    access(p, sizeof(T), false, true);                                                                        \
    __atomic_compare_exchange_n(p, &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                 \
    return expected;                                                                                         \
  }
TK_TSAN_ATOMIC(8, unsigned char)
TK_TSAN_ATOMIC(16, unsigned short)
TK_TSAN_ATOMIC(32, unsigned int)
TK_TSAN_ATOMIC(64, unsigned long long)
#undef TK_TSAN_ATOMIC
void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

// -fsanitize=bounds: an index outside an array's declared extent. The layout is the sanitizer ABI's
// (SourceLocation, TypeDescriptor) as gcc and clang emit it.
struct TkUbsanSourceLocation {
  const char* file;
  unsigned line, column;
};
struct TkUbsanType {
  unsigned short kind, info;
  char name[1];
};
struct TkUbsanOutOfBounds {
  TkUbsanSourceLocation loc;
  const TkUbsanType* array_type;
  const TkUbsanType* index_type;
};
static long long tk_ubsan_index(const TkUbsanType* t, unsigned long v) {
  const unsigned bits = 1u << (t->info >> 1);
  const bool is_signed = t->info & 1;
  if (bits >= 64 || !is_signed) return static_cast<long long>(v);
  const unsigned long long m = 1ull << (bits - 1);
  return static_cast<long long>(((v & ((1ull << bits) - 1)) ^ m) - m);
}
void __ubsan_handle_out_of_bounds(TkUbsanOutOfBounds* d, unsigned long index) {
  if (tk::cpu::checked::hot.busy || tk::cpu::checked::hot.pending) return;
  tk::cpu::checked::Busy busy;
  std::ostringstream os;
  const char* base = std::strrchr(d->loc.file, '/');
  os << "index " << tk_ubsan_index(d->index_type, index) << " into " << d->array_type->name << " at "
     << (base ? base + 1 : d->loc.file) << ":" << d->loc.line << ":" << d->loc.column;
  if (tk::cpu::checked::hot.active) {
    try {  // nothrow, as the compiler declares it
      tk::cpu::checked::report(tk::KernelBug::out_of_range,
                               tk::cpu::checked::thread_name(tk::cpu::checked::hot.tid) + " uses " + os.str());
    } catch (...) {
      tk::cpu::checked::hot.pending = true;
    }
    return;
  }
  std::fprintf(stderr, "tilekit checked build: out-of-range %s (host code)\n", os.str().c_str());
  std::abort();
}
void __ubsan_handle_out_of_bounds_abort(TkUbsanOutOfBounds* d, unsigned long index) {  // declared noreturn
  const char* base = std::strrchr(d->loc.file, '/');
  std::fprintf(stderr, "tilekit checked build: out-of-range index %lld into %s at %s:%u (built with "
               "-fno-sanitize-recover=bounds: cannot report it as a tk::KernelCheckError)\n",
               tk_ubsan_index(d->index_type, index), d->array_type->name, base ? base + 1 : d->loc.file, d->loc.line);
  std::abort();
}
}  // extern "C"
