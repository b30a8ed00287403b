// The tuning knobs (tilekit/detail/knobs.hpp), read from the environment once.
#include "tilekit/detail/knobs.hpp"

#include <cstdlib>

namespace tk::detail {
namespace {
int positive(const char* name) {
  const char* e = std::getenv(name);
  const int v = e != nullptr ? std::atoi(e) : 0;
  return v > 0 ? v : 0;
}
}  // namespace

const Knobs& knobs() {
  // never destroyed: a call during the program's exit still reads it
  static const Knobs& k = *new Knobs([] {
    Knobs r;
    if (const char* e = std::getenv("TK_MATMUL_CONFIG")) r.matmul_config = e;
    r.transpose_tune = positive("TK_TRANSPOSE_TUNE");
    r.stencil_tune = positive("TK_STENCIL_TUNE");
    r.stencil_grid_y = positive("TK_STENCIL_GRID_Y");
    r.stencil_stream = positive("TK_STENCIL_STREAM");
    r.stencil_order = positive("TK_STENCIL_ORDER");
    if (const char* e = std::getenv("TK_MATMUL_PACK")) {
      const int v = std::atoi(e);
      r.matmul_pack = v == 2 ? 2 : v != 0;
    }
    r.matmul_split = positive("TK_MATMUL_SPLIT");
    if (r.matmul_split > 256) r.matmul_split = 0;
    r.matmul_warpgroup = positive("TK_MATMUL_WARPGROUP");
    if (r.matmul_warpgroup > 2) r.matmul_warpgroup = 0;
    r.matmul_row_tiles = positive("TK_MATMUL_ROW_TILES");
    if (r.matmul_row_tiles > 16) r.matmul_row_tiles = 0;
    if (const char* e = std::getenv("TK_CPU_ISA")) r.cpu_isa = e;
    return r;
  }());
  return k;
}

}  // namespace tk::detail
