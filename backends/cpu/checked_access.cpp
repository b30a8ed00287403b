// backends/cpu/checked_access.cpp — checked mode's hot path: the answers to the compiler's memory-access
// instrumentation (every load and store of a kernel file comes here), the shadow cells they check, and the
// arena's allocations. The hooks may not throw (the compiler declares them nothrow), so a finding is kept
// as the block's pending error and thrown at the next point that may throw: the end of the current thread's
// turn in a phase, a barrier, or the end of the block. This file is compiled without instrumentation.
#include "checked_state.hpp"

namespace tk::cpu::checked::detail {

__thread Hot hot;

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

namespace {  // the hot path: inlined into the hooks below

// An access to a word that a tk::copy_async has not landed in (cell c: its word cell); always false.
bool report_in_flight(const Cell& c, const Alloc& a, std::size_t at, bool write) {
  const std::string what = element_name(a, at - a.offset),
                    by = "a tk::copy_async of " + thread_name(c.flight) + " started in " + site_name(c.fphase);
  if (hot.copy == CopyStep::issue) {
    report(KernelBug::race, thread_name(hot.tid) + " starts a tk::copy_async into " + what + " in " +
                                site_name(hot.phase) + ", which " + by +
                                " still fills: no tk::copy_async_wait of that thread has completed its group");
  } else {
    report(KernelBug::race, thread_name(hot.tid) + (write ? " writes " : " reads ") + what + " in " +
                                site_name(hot.phase) + ", which " + by +
                                " has not filled yet: no tk::copy_async_wait of that thread has completed its group "
                                "(on a GPU the copy may still be in flight)");
  }
  return false;
}

// Checks one shadow cell (a word or a byte at arena offset `at`); false when it reported a finding.
// `other_written`: whether the other granularity's cells saw a write there (a word written whole and read
// by bytes, or the reverse), asked only when this cell has seen none.
// `a`: the allocation the cell belongs to, `at - a.offset`: the offset in it.
template <class OtherWritten>
bool check_cell(Cell& c, const Alloc& a, std::size_t at, bool write, bool atomic, OtherWritten other_written) {
  const int t = hot.tid, e = hot.epoch;
  const bool unwritten = !write && c.writer == kNone && !other_written();
  if (hot.copy == CopyStep::issue && a.kind == Kind::private_values) {
    report(KernelBug::out_of_range, thread_name(t) + " starts a tk::copy_async into " + element_name(a, at - a.offset) +
                                        " in " + site_name(hot.phase) + ": a copy's destination is shared memory");
    return false;
  }
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
  if (hot.copy == CopyStep::land) {       // thread t's copy lands: written by it, now that its wait returns
    c.flight = kNone;
    c.writer = t;
    c.wepoch = e;
    c.wphase = c.fphase;
    return true;
  }
  if (c.flight != kNone) return report_in_flight(c, a, at, write);
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
    if (hot.copy == CopyStep::issue) {  // a copy's start: a store as far as races go, and in flight until it lands
      c.flight = t;
      c.fphase = hot.phase;
    }
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
      if (!check_cell(hot.words[w], state().allocs[static_cast<std::size_t>(hot.words[w].alloc)], w * 4, write, atomic,
                      bytes_written))
        return;
    }
    return;
  }
  for (std::size_t b = off; b < off + size; ++b) {
    if (b >= 4 * hot.nwords || hot.bytes[b].alloc < 0) return out_of_range_in_arena(b, size, write);
    if (const Cell& w = hot.words[b / 4]; w.flight != kNone && !hot.barrier_in_phase)  // copies are whole words
      return (void)report_in_flight(w, state().allocs[static_cast<std::size_t>(w.alloc)], b / 4 * 4, write);
    if (!check_cell(hot.bytes[b], state().allocs[static_cast<std::size_t>(hot.bytes[b].alloc)], b, write, atomic,
                    [&] { return hot.words[b / 4].writer != kNone; }))
      return;
  }
}

// An access to a TK_SHARED array (a function-local static in checked mode): the same checks as the arena's,
// on shadow cells made for this run of the block when the array is first touched.
void static_access(const StaticArray& s, std::uintptr_t p, std::size_t size, bool write, bool atomic) {
  State& st = state();
  StaticShadow* sh = nullptr;
  for (StaticShadow& x : st.statics)
    if (x.array == &s) sh = &x;
  if (!sh) {
    const std::size_t bytes = s.end - s.begin;
    StaticShadow made{&s, Alloc(Kind::shared_static, bytes), std::vector<Cell>((bytes + 3) / 4),
                      std::vector<Cell>(bytes)};
    made.alloc.name = static_name(s);
    made.alloc.type = static_owner(s);
    made.alloc.elem = 1;
    st.statics.push_back(std::move(made));
    sh = &st.statics.back();
  }
  const std::size_t off = p - s.begin, bytes = s.end - s.begin;
  if (size > bytes - off) {  // runs past the end of the array
    report(KernelBug::out_of_range, thread_name(hot.tid) + (write ? " writes " : " reads ") + std::to_string(size) +
                                        " bytes in " + site_name(hot.phase) + " at " + element_name(sh->alloc, off) +
                                        ", past its end");
    return;
  }
  if ((off & 3) == 0 && (size & 3) == 0) {
    for (std::size_t w = off / 4; w < (off + size) / 4; ++w) {
      const auto bytes_written = [&] {
        for (std::size_t b = 4 * w; b < 4 * w + 4 && b < bytes; ++b)
          if (sh->bytes[b].writer != kNone) return true;
        return false;
      };
      if (!check_cell(sh->words[w], sh->alloc, w * 4, write, atomic, bytes_written)) return;
    }
    return;
  }
  for (std::size_t b = off; b < off + size; ++b) {
    if (const Cell& w = sh->words[b / 4]; w.flight != kNone && !hot.barrier_in_phase)
      return (void)report_in_flight(w, sh->alloc, b / 4 * 4, write);
    if (!check_cell(sh->bytes[b], sh->alloc, b, write, atomic, [&] { return sh->words[b / 4].writer != kNone; }))
      return;
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
  bool near_static = false;
  for (int r = 0; r < hot.nstatic_ranges; ++r)
    near_static |= a >= hot.static_ranges[r][0] && a < hot.static_ranges[r][1];
  if (!in_arena && near_static) {
    if (const StaticArray* s = find_static(a)) {
      Busy busy;
      try {
        return static_access(*s, a, size, write, atomic);
      } catch (...) {
        hot.pending = true;
        state().bug = KernelBug::out_of_range;
        state().message = where() + "checked mode ran out of memory for its own records";
        return;
      }
    }
  }
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

}  // namespace

bool copy_cells(void* p, std::size_t size, CopyStep step, int tid) {
  struct Step {  // the step and its thread for these cells only, whatever throws
    CopyStep copy = hot.copy;
    int tid = hot.tid;
    ~Step() {
      hot.copy = copy;
      hot.tid = tid;
    }
  } kept;
  hot.copy = step;
  hot.tid = tid;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  try {  // as the hooks do: a failure of checked mode's own records is the block's finding
    if (a >= hot.arena_base && a < hot.arena_end) {
      arena_access(a - hot.arena_base, size, true, false);
      return true;
    }
    if (const StaticArray* s = find_static(a)) {
      static_access(*s, a, size, true, false);
      return true;
    }
  } catch (...) {
    hot.pending = true;
    state().bug = KernelBug::out_of_range;
    state().message = where() + "checked mode ran out of memory for its own records";
    return true;
  }
  return false;
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

}  // namespace tk::cpu::checked::detail

// ---- the compiler's instrumentation calls ----

using tk::cpu::checked::detail::access;

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

#define TK_TSAN_RW(n)                                                      \
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
  T __tsan_atomic##bits##_load(const volatile T* p, int) {                                                    \
    access(p, sizeof(T), false, true); /* gcc's omp atomic on float: this load, then an uninstrumented CAS */ \
    return __atomic_load_n(p, __ATOMIC_SEQ_CST);                                                              \
  }                                                                                                           \
  void __tsan_atomic##bits##_store(volatile T* p, T v, int) {                                                 \
    access(p, sizeof(T), true, true);                                                                         \
    __atomic_store_n(p, v, __ATOMIC_SEQ_CST);                                                                 \
  }                                                                                                           \
  T __tsan_atomic##bits##_exchange(volatile T* p, T v, int) {                                                 \
    access(p, sizeof(T), true, true);                                                                         \
    return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                                                       \
  }                                                                                                           \
  T __tsan_atomic##bits##_fetch_add(volatile T* p, T v, int) {                                                \
    access(p, sizeof(T), false, true);                                                                        \
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                                                        \
  }                                                                                                           \
  T __tsan_atomic##bits##_fetch_sub(volatile T* p, T v, int) {                                                \
    access(p, sizeof(T), false, true);                                                                        \
    return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);                                                        \
  }                                                                                                           \
  T __tsan_atomic##bits##_fetch_and(volatile T* p, T v, int) {                                                \
    access(p, sizeof(T), false, true);                                                                        \
    return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);                                                        \
  }                                                                                                           \
  T __tsan_atomic##bits##_fetch_or(volatile T* p, T v, int) {                                                 \
    access(p, sizeof(T), false, true);                                                                        \
    return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);                                                         \
  }                                                                                                           \
  T __tsan_atomic##bits##_fetch_xor(volatile T* p, T v, int) {                                                \
    access(p, sizeof(T), false, true);                                                                        \
    return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);                                                        \
  }                                                                                                           \
  T __tsan_atomic##bits##_fetch_nand(volatile T* p, T v, int) {                                               \
    access(p, sizeof(T), false, true);                                                                        \
    return __atomic_fetch_nand(p, v, __ATOMIC_SEQ_CST);                                                       \
  }                                                                                                           \
  int __tsan_atomic##bits##_compare_exchange_strong(volatile T* p, T* expected, T v, int, int) {              \
    access(p, sizeof(T), false, true);                                                                        \
    return __atomic_compare_exchange_n(p, expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);            \
  }                                                                                                           \
  int __tsan_atomic##bits##_compare_exchange_weak(volatile T* p, T* expected, T v, int, int) {                \
    access(p, sizeof(T), false, true);                                                                        \
    return __atomic_compare_exchange_n(p, expected, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);             \
  }                                                                                                           \
  T __tsan_atomic##bits##_compare_exchange_val(volatile T* p, T expected, T v, int, int) {                    \
    access(p, sizeof(T), false, true);                                                                        \
    __atomic_compare_exchange_n(p, &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                  \
    return expected;                                                                                          \
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
  if (tk::cpu::checked::detail::hot.busy || tk::cpu::checked::detail::hot.pending) return;
  tk::cpu::checked::detail::Busy busy;
  std::ostringstream os;
  const char* base = std::strrchr(d->loc.file, '/');
  os << "index " << tk_ubsan_index(d->index_type, index) << " into " << d->array_type->name << " at "
     << (base ? base + 1 : d->loc.file) << ":" << d->loc.line << ":" << d->loc.column;
  if (tk::cpu::checked::detail::hot.active) {
    try {  // nothrow, as the compiler declares it
      tk::cpu::checked::detail::report(
          tk::KernelBug::out_of_range,
          tk::cpu::checked::detail::thread_name(tk::cpu::checked::detail::hot.tid) + " uses " + os.str());
    } catch (...) {
      tk::cpu::checked::detail::hot.pending = true;
    }
    return;
  }
  std::fprintf(stderr, "tilekit checked build: out-of-range %s (host code)\n", os.str().c_str());
  std::abort();
}
void __ubsan_handle_out_of_bounds_abort(TkUbsanOutOfBounds* d, unsigned long index) {  // declared noreturn
  const char* base = std::strrchr(d->loc.file, '/');
  std::fprintf(stderr,
               "tilekit checked build: out-of-range index %lld into %s at %s:%u (built with "
               "-fno-sanitize-recover=bounds: cannot report it as a tk::KernelCheckError)\n",
               tk_ubsan_index(d->index_type, index), d->array_type->name, base ? base + 1 : d->loc.file, d->loc.line);
  std::abort();
}
}  // extern "C"
