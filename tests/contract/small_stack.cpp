// A small stack gets tk::Error, not a crash (ctest cpu.Contract.SmallStacksAreRefused, run with
// OMP_STACKSIZE=256K): a GEMM from a thread made with a 256 KiB stack, and one whose blocks run on OpenMP's
// threads (256 KiB stacks by OMP_STACKSIZE; not in checked mode, whose blocks all run on the calling thread),
// each throw an error naming the call and the stack; a thread with 2 MiB runs the same GEMM right. Exit status 0
// when all three hold.
#include <pthread.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "tilekit/tilekit.hpp"

namespace {

// "ok", or the error's text
std::string gemm() {
  const std::int64_t n = 256;
  std::vector<float> a(n * n, 1.0f), b(n * n, 1.0f), c(n * n, 0.0f);
  try {
    tk::gemm(tk::Device::cpu(), tk::Layout::row_major, tk::Op::none, tk::Op::none, n, n, n, 1.0f, a.data(), n, b.data(),
             n, 0.0f, c.data(), n);
  } catch (const tk::Error& e) {
    return e.what();
  }
  return c[0] == float(n) && c[n * n - 1] == float(n) ? "ok" : "wrong";
}

std::string on_thread_with_stack(std::size_t bytes) {
  std::string result;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, bytes);
  pthread_t t;
  auto body = [](void* r) -> void* {
#if defined(_OPENMP)
    omp_set_num_threads(1);  // this thread's blocks on this thread alone
#endif
    *static_cast<std::string*>(r) = gemm();
    return nullptr;
  };
  if (pthread_create(&t, &attr, body, &result) != 0) return "pthread_create failed";
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
  return result;
}

bool refused(const std::string& what, const std::string& why) {
  // (the size as the C library reports it: glibc gives 256 KiB, an OpenMP runtime may add its own offset)
  const bool ok = why.rfind("tk::gemm: ", 0) == 0 && why.find("stack is ") != std::string::npos &&
                  why.find(" KiB; tilekit's CPU kernels need") != std::string::npos &&
                  why.find("OMP_STACKSIZE") != std::string::npos;
  std::printf("%s: %s\n  %s\n", what.c_str(), ok ? "refused, as it should be" : "NOT REFUSED AS EXPECTED", why.c_str());
  return ok;
}

}  // namespace

int main() {
  int failures = 0;
  failures += !refused("a thread with a 256 KiB stack", on_thread_with_stack(256 * 1024));
  const std::string big = on_thread_with_stack(2 << 20);
  std::printf("a thread with a 2 MiB stack: %s\n", big.c_str());
  failures += big != "ok";
#if defined(_OPENMP) && !defined(TK_CHECKED)  // (checked mode runs every block on the calling thread)
  const char* env = std::getenv("OMP_STACKSIZE");
  if (env && std::strcmp(env, "256K") == 0 && omp_get_max_threads() > 1)
    failures += !refused("OpenMP's threads with OMP_STACKSIZE=256K", gemm());
  else std::printf("OMP_STACKSIZE=256K with several OpenMP threads: not this run (one thread or another setting)\n");
#endif
  return failures == 0 ? 0 : 1;
}
