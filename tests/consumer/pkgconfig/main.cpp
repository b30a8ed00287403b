// Built with nothing but `pkg-config --cflags --libs tilekit` against an installed tilekit (CI step 8b):
// vector_add on the CPU, checked. CI builds it as C++17 and as C++20, which the .pc file must not override
// (std::span below is C++20's).
#include <tilekit/tilekit.hpp>
#include <tilekit/version.hpp>

#include <cstdio>
#include <vector>
#if __cplusplus >= 202002L
#include <span>
#endif

int main() {
  const tk::Device dev = tk::Device::cpu();
  const int n = 1000;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = float(i), b[i] = 0.5f * float(i);
  tk::Buffer<float> da(dev, a), db(dev, b), dc(dev, n);
  tk::vector_add(da, db, dc);
  const std::vector<float> result = dc.to_host();
#if __cplusplus >= 202002L
  const std::span<const float> c(result);  // the program's own standard holds
#else
  const std::vector<float>& c = result;
#endif
  for (int i = 0; i < n; ++i)
    if (c[i] != 1.5f * float(i)) {
      std::printf("pkg-config consumer: c[%d] = %g, expected %g\n", i, c[i], 1.5 * i);
      return 1;
    }
  std::printf("pkg-config consumer (C++%ld): tilekit %s works\n", __cplusplus / 100 % 100, TK_VERSION_STRING);
  return 0;
}
