// backends/cpu/checked_statics.cpp — checked mode's view of TK_SHARED arrays. A kernel written the CUDA way
// declares its tiles `TK_SHARED float As[T][T];`, and a prefix macro cannot move such an array into the arena
// (that is what TK_SHARED_ARRAY does). So in checked mode TK_SHARED makes the array a function-local
// `static` (one block runs at a time there), and this file finds it by its symbol: the modules' symbol
// tables (.symtab, read from each loaded file once) list every function-local static as `_ZZ<function>E<name>`.
// The ones that can be shared memory are writable, not thread-local, and have no guard variable (`_ZGVZ...`:
// shared memory has no initialiser, so the array lies in a NOBITS section, .bss). An access to one during a block
// is checked as shared memory. A stripped program (-s, --strip-all, `cmake --install --strip`) has no .symtab, and
// -Wl,--discard-all drops local symbols: their TK_SHARED arrays go unchecked (docs/design.md, checked mode).
#include <cxxabi.h>
#include <cstddef>
#include <new>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checked_state.hpp"

namespace tk::cpu::checked::detail {
namespace {

struct Registry {
  std::vector<StaticArray> arrays;                                // sorted by address
  std::unordered_set<std::uintptr_t> seen;                        // modules read, by load address
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges;  // per module: its candidates' [lo, hi)
  unsigned long long subs = 0;                                    // modules unloaded when last read
};
Registry& registry() {
  static Registry& r = *new Registry;  // never destroyed: launches may run during exit
  return r;
}

// A read-only mapping of a whole file, unmapped at scope exit.
struct Mapped {
  const unsigned char* data = nullptr;
  std::size_t size = 0;
  explicit Mapped(const char* path) {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
      void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        data = static_cast<const unsigned char*>(p);
        size = static_cast<std::size_t>(st.st_size);
      }
    }
    ::close(fd);
  }
  ~Mapped() {
    if (data) ::munmap(const_cast<unsigned char*>(data), size);
  }
  Mapped(const Mapped&) = delete;
  Mapped& operator=(const Mapped&) = delete;
  bool holds(std::size_t off, std::size_t n) const { return off <= size && n <= size - off; }
};

// Adds the candidate statics of one ELF64 file loaded at `base` (0 for a fixed-address executable).
void read_module(const char* path, std::uintptr_t base, std::vector<StaticArray>& out) {
  const Mapped f(path);
  if (!f.data || !f.holds(0, sizeof(Elf64_Ehdr))) return;
  Elf64_Ehdr eh;
  std::memcpy(&eh, f.data, sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr) || !f.holds(eh.e_shoff, std::size_t{eh.e_shnum} * sizeof(Elf64_Shdr)))
    return;
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  std::memcpy(sh.data(), f.data + eh.e_shoff, sh.size() * sizeof(Elf64_Shdr));
  for (const Elf64_Shdr& tab : sh) {
    if (tab.sh_type != SHT_SYMTAB || tab.sh_link >= sh.size() || tab.sh_entsize != sizeof(Elf64_Sym)) continue;
    const Elf64_Shdr& str = sh[tab.sh_link];
    if (!f.holds(tab.sh_offset, tab.sh_size) || !f.holds(str.sh_offset, str.sh_size) || str.sh_size == 0) continue;
    const char* names = reinterpret_cast<const char*>(f.data + str.sh_offset);
    auto name_of = [&](const Elf64_Sym& s) -> const char* {
      return s.st_name < str.sh_size && names[str.sh_size - 1] == '\0' ? names + s.st_name : "";
    };
    const std::size_t count = tab.sh_size / sizeof(Elf64_Sym);
    std::unordered_set<std::string> guarded;  // "Z<function>E<name>" of every _ZGVZ guard variable
    std::vector<Elf64_Sym> syms(count);
    std::memcpy(syms.data(), f.data + tab.sh_offset, count * sizeof(Elf64_Sym));
    for (const Elf64_Sym& s : syms) {
      const char* n = name_of(s);
      if (std::strncmp(n, "_ZGVZ", 5) == 0) guarded.emplace(n + 4);
    }
    for (const Elf64_Sym& s : syms) {
      const char* n = name_of(s);
      if (ELF64_ST_TYPE(s.st_info) != STT_OBJECT || s.st_size == 0 || std::strncmp(n, "_ZZ", 3) != 0) continue;
      if (s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE || s.st_shndx >= sh.size()) continue;
      const auto flags = sh[s.st_shndx].sh_flags;
      if (sh[s.st_shndx].sh_type != SHT_NOBITS || !(flags & SHF_ALLOC) || !(flags & SHF_WRITE) || (flags & SHF_TLS))
        continue;
      if (guarded.count(n + 2)) continue;
      const std::uintptr_t at = base + s.st_value;
      out.push_back(StaticArray{at, at + s.st_size, n});
    }
  }
}

struct Scan {
  std::vector<StaticArray> found;
  unsigned long long subs = 0;
  bool failed = false;
};

// Called by dl_iterate_phdr for each loaded module: nothing may leave it but its return value.
int on_module(dl_phdr_info* info, std::size_t size, void* data) {
  auto& scan = *static_cast<Scan*>(data);
  if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) scan.subs = info->dlpi_subs;
  Registry& r = registry();
  if (r.seen.count(info->dlpi_addr)) return 0;
  const char* path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
  try {
    std::vector<StaticArray> mine;
    read_module(path, info->dlpi_addr, mine);
    if (!mine.empty()) {
      std::uintptr_t lo = mine.front().begin, hi = 0;
      for (const StaticArray& a : mine) {
        lo = std::min(lo, a.begin);
        hi = std::max(hi, a.end);
      }
      r.ranges.emplace_back(lo, hi);
    }
    scan.found.insert(scan.found.end(), mine.begin(), mine.end());
    r.seen.insert(info->dlpi_addr);
  } catch (...) {
    scan.failed = true;
    return 1;
  }
  return 0;
}

}  // namespace

void refresh_statics() {  // under the launch mutex
  Registry& r = registry();
  Scan scan;
  dl_iterate_phdr(on_module, &scan);
  if (scan.subs != r.subs) {  // a module was unloaded since the last scan: its addresses may hold another now
    r.arrays.clear();
    r.seen.clear();
    r.ranges.clear();
    r.subs = scan.subs;
    scan = Scan{};
    dl_iterate_phdr(on_module, &scan);
  }
  if (scan.failed) throw std::bad_alloc();
  if (!scan.found.empty()) {
    r.arrays.insert(r.arrays.end(), std::make_move_iterator(scan.found.begin()),
                    std::make_move_iterator(scan.found.end()));
    // a static defined in two modules (an inline function's, STB_GNU_UNIQUE) is used at one address: keep both
    std::sort(r.arrays.begin(), r.arrays.end(),
              [](const StaticArray& a, const StaticArray& b) { return a.begin < b.begin; });
  }
  // the hot path tests kStaticRanges ranges inline; more modules than that share the last one
  std::sort(r.ranges.begin(), r.ranges.end());
  hot.nstatic_ranges = 0;
  for (const auto& [lo, hi] : r.ranges) {
    if (hot.nstatic_ranges < kStaticRanges) {
      hot.static_ranges[hot.nstatic_ranges][0] = lo;
      hot.static_ranges[hot.nstatic_ranges][1] = hi;
      ++hot.nstatic_ranges;
    } else {
      hot.static_ranges[kStaticRanges - 1][1] = std::max(hot.static_ranges[kStaticRanges - 1][1], hi);
    }
  }
}

const StaticArray* find_static(std::uintptr_t a) {
  const auto& v = registry().arrays;
  auto it = std::upper_bound(v.begin(), v.end(), a, [](std::uintptr_t x, const StaticArray& s) { return x < s.begin; });
  if (it == v.begin()) return nullptr;
  --it;
  return a < it->end ? &*it : nullptr;
}

namespace {
std::string demangled(const std::string& symbol) {
  int status = 0;
  char* d = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
  if (status != 0 || d == nullptr) return symbol;
  std::string s(d);
  std::free(d);
  return s;
}
// "f(int)::As" -> the position of "::As": the last "::" outside parentheses and angle brackets
std::size_t owner_end(const std::string& d) {
  int depth = 0;
  std::size_t last = std::string::npos;
  for (std::size_t i = 0; i + 1 < d.size(); ++i) {
    if (d[i] == '(' || d[i] == '<') ++depth;
    if (d[i] == ')' || d[i] == '>') --depth;
    if (depth == 0 && d[i] == ':' && d[i + 1] == ':') last = i++;
  }
  return last;
}
}  // namespace

std::string static_name(const StaticArray& s) {
  const std::string d = demangled(s.symbol);
  const std::size_t e = owner_end(d);
  return e == std::string::npos ? d : d.substr(e + 2);
}

std::string static_owner(const StaticArray& s) {
  const std::string d = demangled(s.symbol);
  const std::size_t e = owner_end(d);
  return e == std::string::npos ? std::string("?") : d.substr(0, e);
}

}  // namespace tk::cpu::checked::detail
