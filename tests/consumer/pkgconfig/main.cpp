// Built with nothing but `pkg-config --cflags --libs tilekit` against an installed tilekit (CI step 8):
// vector_add on the CPU, checked.
#include <tilekit/tilekit.hpp>
#include <tilekit/version.hpp>

#include <cstdio>
#include <vector>

int main() {
  const tk::Device dev = tk::Device::cpu();
  const int n = 1000;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = float(i), b[i] = 0.5f * float(i);
  tk::Buffer<float> da(dev, a), db(dev, b), dc(dev, n);
  tk::vector_add(da, db, dc);
  const std::vector<float> c = dc.to_host();
  for (int i = 0; i < n; ++i)
    if (c[i] != 1.5f * float(i)) {
      std::printf("pkg-config consumer: c[%d] = %g, expected %g\n", i, c[i], 1.5 * i);
      return 1;
    }
  std::printf("pkg-config consumer: tilekit %s works\n", TK_VERSION_STRING);
  return 0;
}
