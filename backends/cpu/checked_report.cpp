// backends/cpu/checked_report.cpp — checked mode's findings in words: the kernel bug's name, the thread, the
// phase, the shared element, and the pending error that the next point that may throw throws.
#include "checked_state.hpp"

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

namespace cpu::checked::detail {

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
  if (a.kind == Kind::shared_static) {  // a TK_SHARED array: its symbol gives the name, not the extents
    os << a.name << " byte " << offset_in_alloc << " (TK_SHARED " << a.name << ", " << a.bytes << " bytes, in "
       << a.type << ")";
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
       << (after->kind == Kind::dynamic_shared   ? std::string("dynamic shared memory")
           : after->kind == Kind::private_values ? "a tk::Private"
                                                 : after->name);
  } else {
    os << "arena offset " << off << ", outside every shared array";
  }
  report(KernelBug::out_of_range, os.str());
}

}  // namespace cpu::checked::detail
}  // namespace tk
