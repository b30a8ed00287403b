// libtilekit_blas's default error handlers, each case in a child process (they end the program): the reference
// BLAS's and CBLAS's messages and exit statuses. Given the path of the reference BLAS with its CBLAS (Debian's
// libblas.so.3), also a reference routine's error while our handlers come first in the process (tilekit_blas
// linked, the reference loaded after it): the report reaches the reference's own handlers, with its numbering.
// Exit status 0 when every check holds.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tilekit/blas.h"

namespace {

int failures = 0;

struct Outcome {
  int status = -1;     // exit status, or -1 when the child did not exit normally
  std::string output;  // stdout and stderr
};

template <class F>
Outcome in_child(F f) {
  int fds[2];
  if (pipe(fds) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    f();
    std::fflush(nullptr);
    _exit(100);  // the handler returned: not what the defaults do
  }
  close(fds[1]);
  Outcome o;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) o.output.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) o.status = WEXITSTATUS(status);
  return o;
}

void expect(const char* what, const Outcome& o, int status, const char* text) {
  if (o.status != status || o.output.find(text) == std::string::npos) {
    std::printf("FAILED: %s: exit status %d, output '%s'; expected status %d and '%s'\n", what, o.status,
                o.output.c_str(), status, text);
    ++failures;
  }
}

}  // namespace

int main(int argc, char** argv) {
  double a[4] = {}, b[4] = {}, c[4] = {};
  expect("dgemm_ lda", in_child([&] {
           const int two = 2, one = 1;
           const double alpha = 1, beta = 0;
           dgemm_("N", "N", &two, &two, &two, &alpha, a, &one, b, &two, &beta, c, &two, 1, 1);
         }),
         0, " ** On entry to DGEMM parameter number  8 had an illegal value");
  // The CBLAS's numbers: lda is argument 9 in either layout (row-major: reported by the column-major call
  // as its ldb, and numbered back by cblas_xerbla).
  expect("cblas_dgemm column-major lda",
         in_child([&] { cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 1, b, 2, 0.0, c, 2); }),
         255, "Parameter 9 to routine cblas_dgemm was incorrect");
  expect("cblas_dgemm row-major lda",
         in_child([&] { cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 1, b, 2, 0.0, c, 2); }),
         255, "Parameter 9 to routine cblas_dgemm was incorrect");
  expect("cblas_sgemm row-major N", in_child([&] {
           float x[4] = {};
           cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, -1, 2, 1.0f, x, 2, x, 2, 0.0f, x, 2);
         }),
         255, "Parameter 5 to routine cblas_sgemm was incorrect");
  expect("cblas_dgemm layout", in_child([&] {
           cblas_dgemm(static_cast<CBLAS_LAYOUT>(0), CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, b, 2, 0.0, c, 2);
         }),
         255, "Parameter 1 to routine cblas_dgemm was incorrect");

  if (argc > 1) {
    void* ref = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);  // after us in the process's symbol lookup
    using Dsymm = void (*)(CBLAS_LAYOUT, int, int, int, int, double, const double*, int, const double*, int, double,
                           double*, int);
    const auto dsymm = ref ? reinterpret_cast<Dsymm>(dlsym(ref, "cblas_dsymm")) : nullptr;
    if (dsymm == nullptr) {
      std::printf("FAILED: no cblas_dsymm in %s\n", argv[1]);
      ++failures;
    } else {
      // CblasLeft = 141, CblasUpper = 121; M = -1 is the CBLAS's argument 4, reported by the reference's
      // F77 DSYMM (3) through its XERBLA to its cblas_xerbla.
      expect("the reference's cblas_dsymm M",
             in_child([&] { dsymm(CblasColMajor, 141, 121, -1, 2, 1.0, a, 2, b, 2, 0.0, c, 2); }), 255,
             "Parameter 4 to routine cblas_dsymm");
    }
  }
  if (failures == 0) std::printf("default handlers: every report as the reference's\n");
  return failures == 0 ? 0 : 1;
}
