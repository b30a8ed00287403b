// backends/cpu/checked_state.hpp — checked mode's internal state, shared by its files: the shadow cells of
// the arena, the per-thread state of the block being run, and the functions each file gives the others.
// checked_access.cpp answers the compiler's instrumentation (the hot path), checked_report.cpp words the
// findings, checked.cpp runs the phases, barriers, arena storage and blocks.
#pragma once

#include "tilekit/cpu/checked.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tilekit/cpu/executor.hpp"

// Hidden: these are the runtime's own, so the compiler may inline them where they are defined (position-
// independent code would otherwise keep every call replaceable) and reach `hot` without the global TLS model.
#pragma GCC visibility push(hidden)
namespace tk::cpu::checked::detail {

constexpr int kNone = -1;   // no thread: never written / never read in this interval
constexpr int kBlock = -2;  // block-level code (outside the phases): every thread at once
constexpr int kMany = -3;   // several threads read it in this interval
constexpr std::size_t kRedZone = 1024;
constexpr int kStaticRanges = 4;  // Hot::static_ranges

// shared_static: a TK_SHARED array, which checked mode declares `static` (tilekit/portability/cpu.hpp) and finds
// by its symbol (checked_statics.cpp).
enum class Kind { shared_array, dynamic_shared, private_values, shared_static };

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
  int flight = kNone, fphase = -1;  // a tk::copy_async into this word not yet landed: its thread and phase
};

// What the shadow cells are being asked for (Hot::copy): an access of the kernel, the start of a tk::copy_async
// (checked as a store, then marked in flight), or its landing (written by the issuing thread, no longer in flight).
enum class CopyStep { none, issue, land };

// A tk::copy_async held until a wait of its thread completes its group.
struct PendingCopy {
  void* dst;
  int bytes;
  unsigned char data[16];
};

struct PhaseSite {
  const char* file;
  int line;
};

// The hot part of the state: trivial, so the hooks reach it without a thread-local init guard.
struct Hot {
  bool active;   // a checked block is running on this OS thread
  bool busy;     // the runtime itself is running: its own loads and stores (through inline library
                 // code a test or user TU may have instrumented) are not the kernel's
  bool pending;  // a finding waits to be thrown
  bool in_phase;
  bool barrier_in_phase;
  CopyStep copy;  // Cell's CopyStep for the accesses being checked
  int tid;        // the thread in the current phase, or kBlock
  int epoch;      // barriers passed in this run of the block
  int phase;      // index into State::sites of the current phase
  std::uintptr_t arena_base, arena_end, stack_top;
  std::uintptr_t static_ranges[4][2];  // per module (kStaticRanges at most): its candidate statics' [lo, hi)
  int nstatic_ranges;
  struct Cell* words;  // State::words.data(): a cell per 4 bytes of the arena
  struct Cell* bytes;  // State::bytes.data(): a cell per byte
  std::size_t nwords;  // cells in use: the end of the last red zone, in words
};
// Defined in checked_access.cpp, with state(). __thread, not thread_local: no initialisation guard, and no
// wrapper call when the other files reach it.
extern __thread Hot hot;

// A function-local static of a loaded module that may be a TK_SHARED array: writable, not thread-local, and
// without a guard variable (shared memory has no dynamic initialiser). Named by its mangled symbol.
struct StaticArray {
  std::uintptr_t begin, end;
  std::string symbol;
};

// The shadow cells of one TK_SHARED array for the current run of the block, made when it is first touched.
struct StaticShadow {
  const StaticArray* array;
  Alloc alloc;
  std::vector<Cell> words, bytes;
};

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
  std::unordered_map<std::uintptr_t, std::uint32_t> before;     // granule -> value before this run
  std::unordered_map<std::uintptr_t, std::uint32_t> first_run;  // granule -> value after the first run
  std::unordered_set<std::uintptr_t> atomics;
  std::vector<StaticShadow> statics;  // the TK_SHARED arrays this run of the block has touched
  // tk::copy_async's copies in flight, per thread of the block: those since its last commit, and its committed
  // groups, oldest first
  std::vector<std::vector<PendingCopy>> open_copies;
  std::vector<std::deque<std::vector<PendingCopy>>> copy_groups;
};
State& state();

// Marks the runtime busy for a scope (see Hot::busy); nests.
struct Busy {
  bool was = hot.busy;
  Busy() { hot.busy = true; }
  ~Busy() { hot.busy = was; }
};

std::mutex& launch_mutex();

// checked_access.cpp: the shadow cells of a tk::copy_async's destination [p, p + size), for its start (checked as a
// store of thread tid, then in flight) or its landing (written by tid); false where p is neither in the arena nor a
// TK_SHARED array found in the program's symbol table (nothing is checked then)
bool copy_cells(void* p, std::size_t size, CopyStep step, int tid);

// checked_report.cpp: names and messages
std::string thread_name(int tid);
std::string site_name(int phase);
std::string where();
std::string element_name(const Alloc& a, std::size_t offset_in_alloc);
void report(KernelBug bug, const std::string& what);
void throw_pending();
void out_of_range_in_arena(std::size_t off, std::size_t size, bool write);

// checked_statics.cpp: the function-local statics of the loaded modules (TK_SHARED arrays in checked mode)
void refresh_statics();  // reads the symbol tables of modules loaded since the last call; sets hot.static_ranges
const StaticArray* find_static(std::uintptr_t a);  // the static holding address a, or nullptr
std::string static_name(const StaticArray& s);     // "As", from the demangled symbol
std::string static_owner(const StaticArray& s);    // the function that declares it

// checked_access.cpp: the arena's allocations
std::size_t arena_offset(const void* p);
void track(void* p, Alloc a);
void* arena_push(std::size_t bytes);

}  // namespace tk::cpu::checked::detail
#pragma GCC visibility pop
