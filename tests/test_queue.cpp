// Queues: two queues of one device at once, an application's own stream, events ordering work between
// queues, one queue per host thread; every result checked. On the CPU and Kokkos every queue is
// synchronous, and the same tests check that the queue-taking entries compute the same results there.
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "support.hpp"

#if defined(TK_HAVE_CUDA)
#include <cuda_runtime.h>
#endif

namespace tk::test {
namespace {

bool is_gpu(const Device& d) { return d.backend() == Backend::cuda || d.backend() == Backend::hip; }

// A B in double (M x K times K x N, row-major, packed).
std::vector<double> product(std::int64_t M, std::int64_t N, std::int64_t K, const std::vector<float>& a,
                            const std::vector<float>& b) {
  std::vector<double> c(static_cast<std::size_t>(M * N), 0.0);
  for (std::int64_t i = 0; i < M; ++i) {
    for (std::int64_t k = 0; k < K; ++k) {
      for (std::int64_t j = 0; j < N; ++j) c[i * N + j] += double(a[i * K + k]) * b[k * N + j];
    }
  }
  return c;
}

// A chain of dependent calls on one queue: C = A B (split-K on GPUs for this small C and long K: its
// partial sums are the queue's scratch memory), then T = C^T. Checked against a double reference.
struct Chain {
  static constexpr std::int64_t M = 96, N = 64;
  std::int64_t K;
  std::vector<float> a, b;
  std::vector<double> c_ref;
  Buffer<float> A, B, C, T;

  Chain(const Device& dev, std::int64_t k, std::uint64_t seed) : K(k) {
    std::mt19937_64 rng(seed);
    a = random_floats(static_cast<std::size_t>(M * K), rng);
    b = random_floats(static_cast<std::size_t>(K * N), rng);
    c_ref = product(M, N, K, a, b);
    A = Buffer<float>(dev, a);
    B = Buffer<float>(dev, b);
    C = Buffer<float>(dev, nans(M * N));
    T = Buffer<float>(dev, nans(M * N));
  }
  void queue_on(const Queue& q) {
    tk::matmul(q, M, N, K, 1.f, A.data(), K, B.data(), N, 0.f, C.data(), N, MatmulVariant::warp_tiled);
    tk::transpose(q, M, N, C.data(), N, T.data(), M);
  }
  // Call once the chain's queue is done.
  ::testing::AssertionResult check() const {
    const std::vector<float> c = C.to_host(), t = T.to_host();
    auto r = all_close(c, c_ref, 1e-4, 1e-4);
    if (!r) return r << " (C = A B)";
    for (std::int64_t i = 0; i < M; ++i) {
      for (std::int64_t j = 0; j < N; ++j)
        if (!(t[j * M + i] == c[i * N + j]))
          return ::testing::AssertionFailure() << "T(" << j << ", " << i << ") is " << t[j * M + i] << "; expected C("
                                               << i << ", " << j << ") = " << c[i * N + j];
    }
    return ::testing::AssertionSuccess();
  }
};

std::int64_t chain_k(const Device& dev) { return dev.backend() == Backend::kokkos ? 512 : 4096; }

class Queues : public ::testing::TestWithParam<Backend> {};

TEST_P(Queues, TwoQueuesOfOneDeviceRunAtOnceWithCheckedResults) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  const Queue q0 = Queue::create(dev), q1 = Queue::create(dev);
  EXPECT_EQ(q0.device(), dev);
  if (is_gpu(dev)) {
    EXPECT_NE(q0.native(), nullptr);
    EXPECT_NE(q0, q1);
  } else {
    EXPECT_EQ(q0.native(), nullptr) << "a host device's queues are synchronous";
  }
  const std::uint64_t seed = fresh_seed();
  Chain c0(dev, chain_k(dev), seed), c1(dev, chain_k(dev), seed + 1);
  // Everything is queued before either queue is waited for; each round rewrites the same outputs, so the
  // queues' scratch blocks are taken and given back many times while both run.
  for (int round = 0; round < 6; ++round) {
    c0.queue_on(q0);
    c1.queue_on(q1);
  }
  q0.synchronize();
  q1.synchronize();
  EXPECT_TRUE(c0.check()) << "queue 0, seed " << seed;
  EXPECT_TRUE(c1.check()) << "queue 1, seed " << seed;
}

// Calls on the default queue (no tk::Queue) run in the order they were made: 64 dependent calls queued at once,
// x doubling in each (y = x + x, then x = y + y), so a call that reads its operand before the call before it wrote it
// leaves a smaller power of two. (HIP-CPU's null stream broke this: its work ran on two threads at once.)
TEST_P(Queues, TheDefaultQueueRunsItsCallsInOrder) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  // (a host device's calls are synchronous: a small x there)
  const std::int64_t n = is_gpu(dev) ? std::int64_t{1} << 20 : std::int64_t{1} << 12;
  constexpr int rounds = 32;  // x = 4^32 = 2^64 at the end: exact in float
  Buffer<float> X(dev, std::vector<float>(static_cast<std::size_t>(n), 1.f)), Y(dev, nans(n));
  for (int attempt = 0; attempt < 4; ++attempt) {
    X.copy_from_host(std::vector<float>(static_cast<std::size_t>(n), 1.f).data(), static_cast<std::size_t>(n));
    for (int r = 0; r < rounds; ++r) {
      tk::vector_add(dev, n, X.data(), X.data(), Y.data());
      tk::vector_add(dev, n, Y.data(), Y.data(), X.data());
    }
    const std::vector<float> x = X.to_host();
    const float want = std::ldexp(1.f, 2 * rounds);
    std::int64_t wrong = 0, first = -1;
    for (std::int64_t i = 0; i < n; ++i)
      if (x[static_cast<std::size_t>(i)] != want && wrong++ == 0) first = i;
    ASSERT_EQ(wrong, 0) << "attempt " << attempt << ": x(" << first << ") is " << x[static_cast<std::size_t>(first)]
                        << ", expected 2^" << 2 * rounds;
  }
}

TEST_P(Queues, AnEventOrdersWorkBetweenQueues) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  const Queue producer = Queue::create(dev), consumer = Queue::create(dev);
  const std::int64_t rows = 1021, cols = 1031;  // 4 MiB: long enough for a missing wait to show on a GPU
  std::mt19937_64 rng(fresh_seed());
  const std::vector<float> x = random_floats(static_cast<std::size_t>(rows * cols), rng);
  Buffer<float> X(dev, x), Y(dev, nans(rows * cols)), Z(dev, nans(rows * cols));
  Event produced(dev), start(dev), stop(dev);
  start.record(producer);
  for (int round = 0; round < 4; ++round) {
    Z.copy_from_host(nans(rows * cols).data(), static_cast<std::size_t>(rows * cols));  // no stale Z to read
    tk::transpose(producer, rows, cols, X.data(), cols, Y.data(), rows);
    tk::stencil_5point(producer, cols, rows, Y.data(), rows, Z.data(), rows, 1.f, 0.f);  // Z = Y
    produced.record(producer);
    consumer.wait(produced);  // Z (the identity stencil of Y) is read only after the producer wrote it
    tk::transpose(consumer, cols, rows, Z.data(), rows, Y.data(), cols);
    stop.record(consumer);
    consumer.synchronize();
    ASSERT_EQ(Y.to_host(), x) << "round " << round << ": X^T^T through two queues is not X";
    Y.copy_from_host(nans(rows * cols).data(), static_cast<std::size_t>(rows * cols));
  }
  EXPECT_GT(Event::elapsed_ms(start, stop), 0.0) << "events on two queues of one device time the work between them";
}

// On HIP-CPU too: skipped there after one wrong element in a CI run of 2026-11-28. The likely cause, not proven:
// the default queue (the buffers' uploads) was then HIP-CPU's null stream, which ran calls on two threads at once;
// on a stream of the backend's own since 2026-12-04, the test passed 260 runs, 160 of them two processes at once.
TEST_P(Queues, OneQueuePerHostThread) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  constexpr int threads = 4;
  const std::uint64_t seed = fresh_seed();
  std::vector<std::string> results(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        const Queue q = Queue::create(dev);
        Chain c(dev, chain_k(dev), seed + 10 + t);
        for (int round = 0; round < 4; ++round) c.queue_on(q);
        q.synchronize();
        const auto r = c.check();
        results[t] = r ? "" : r.message();
      } catch (const std::exception& e) {
        results[t] = e.what();
      }
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(results[t], "") << "thread " << t << ", seed " << seed;
}

TEST_P(Queues, WrapsAnApplicationsStream) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Chain c(dev, chain_k(dev), fresh_seed());
  if (!is_gpu(dev)) {
    const Queue q = Queue::wrap(dev, nullptr);
    c.queue_on(q);
    EXPECT_TRUE(c.check()) << "returned: the call is synchronous";
    int not_a_stream = 0;
    TK_EXPECT_ERROR(Queue::wrap(dev, &not_a_stream), "tk::Queue::wrap", "'native_stream'", "synchronous");
    return;
  }
#if defined(TK_HAVE_CUDA)
  if (dev.backend() == Backend::cuda) {
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaSetDevice(dev.index()), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    {
      const Queue q = Queue::wrap(dev, s);
      EXPECT_EQ(q.native(), static_cast<void*>(s));
      c.queue_on(q);
    }  // the queue goes; the application's stream stays
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess) << "the stream outlives its tk::Queue";
    EXPECT_TRUE(c.check());
    EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
    return;
  }
#endif
  // HIP: the same through a queue tilekit made, handed over as a plain handle.
  const Queue made = Queue::create(dev);
  c.queue_on(Queue::wrap(dev, made.native()));
  made.synchronize();
  EXPECT_TRUE(c.check());
}

// CUDA: the per-thread default stream is every device's, so wrapping it passes; a stream of another GPU
// is refused, naming both devices (with two or more GPUs; HIP 5 cannot tell a stream's device).
TEST_P(Queues, WrapRefusesAStreamOfAnotherGpu) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
#if defined(TK_HAVE_CUDA) && CUDART_VERSION >= 12080
  if (dev.backend() == Backend::cuda) {
    Chain c(dev, chain_k(dev), fresh_seed());
    const Queue per_thread = Queue::wrap(dev, cudaStreamPerThread);
    c.queue_on(per_thread);
    per_thread.synchronize();
    EXPECT_TRUE(c.check());
    const int n = ::tk::device_count(Backend::cuda);
    if (n < 2) GTEST_SKIP() << "one CUDA device: no stream of another to refuse";
    const Device other = Device::cuda((dev.index() + 1) % n);
    const Queue made = Queue::create(other);
    const std::string name = dev.name(), other_at = "a stream of cuda:" + std::to_string(other.index());
    TK_EXPECT_ERROR(Queue::wrap(dev, made.native()), "tk::Queue::wrap", "'native_stream'", other_at.c_str(),
                    name.c_str());
    EXPECT_NO_THROW(Queue::wrap(other, made.native()));
    return;
  }
#endif
  GTEST_SKIP() << "a CUDA test (CUDA 12.8 or later: cudaStreamGetDevice)";
}

TEST_P(Queues, EventsAndQueuesOfAnotherDeviceAreRefused) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  const Device other =
      dev.backend() == Backend::cpu ? (device_count(Backend::kokkos) > 0 ? Device::kokkos() : Device{}) : Device::cpu();
  if (other == dev) GTEST_SKIP() << "no second device in this build";
  const std::string other_name = other.name(), dev_name = dev.name();  // outlive the checks' lists
  Event e(dev);
  TK_EXPECT_ERROR(e.record(Queue(other)), "tk::Event::record", "'q'", other_name.c_str(), dev_name.c_str());
  Event f(other);  // (other is always of another backend here)
  TK_EXPECT_ERROR(Queue(dev).wait(f), "tk::Queue::wait", "'e'", other_name.c_str());
}

INSTANTIATE_TEST_SUITE_P(All, Queues, ::testing::ValuesIn(built_backends()), backend_name);

// Two GPUs of one backend (skipped with fewer): two host threads each drive a chain of calls on a GPU of its
// own, on the default queue and on a created one, at once; every result checked. Memory of one GPU handed to an
// op on the other is refused naming both (tilekit offers no copy between devices: tk::Buffer copies to and from
// the host).
class TwoGpus : public ::testing::TestWithParam<Backend> {};

TEST_P(TwoGpus, TwoHostThreadsDriveTwoGpusAtOnce) {
  const Backend b = GetParam();
  if (::tk::device_count(b) < 2) GTEST_SKIP() << "fewer than two " << to_string(b) << " devices";
  const Device d0 = b == Backend::cuda ? Device::cuda(0) : Device::hip(0);
  const Device d1 = b == Backend::cuda ? Device::cuda(1) : Device::hip(1);
  std::vector<std::string> failures(2);
  auto drive = [&](const Device& dev, int slot) {
    try {
      for (int round = 0; round < 3; ++round) {
        Chain on_default(dev, 4096, fresh_seed()), on_created(dev, 1024, fresh_seed());
        const Queue q = Queue::create(dev);
        on_default.queue_on(dev);
        on_created.queue_on(q);
        q.synchronize();
        dev.synchronize();
        if (auto r = on_default.check(); !r) failures[slot] += dev.name() + " default queue: " + r.message() + "; ";
        if (auto r = on_created.check(); !r) failures[slot] += dev.name() + " created queue: " + r.message() + "; ";
      }
    } catch (const std::exception& e) {
      failures[slot] += dev.name() + " threw: " + e.what();
    }
  };
  std::thread t0(drive, d0, 0), t1(drive, d1, 1);
  t0.join();
  t1.join();
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
}

TEST_P(TwoGpus, MemoryOfTheOtherGpuIsRefused) {
  const Backend b = GetParam();
  if (::tk::device_count(b) < 2) GTEST_SKIP() << "fewer than two " << to_string(b) << " devices";
  const Device d0 = b == Backend::cuda ? Device::cuda(0) : Device::hip(0);
  const Device d1 = b == Backend::cuda ? Device::cuda(1) : Device::hip(1);
  Buffer<float> on0(d0, std::vector<float>(64, 1.f)), on1(d1, 64);
  const std::string other = "memory of " + d0.name() + ", not to memory of " + d1.name();
  TK_EXPECT_ERROR(tk::copy(d1, 64, on0.data(), on1.data()), "tk::copy", "'in'", other.c_str());
  TK_EXPECT_ERROR(tk::transpose(d1, 8, 8, on0.data(), 8, on1.data(), 8), "tk::transpose", "'in'");
}

std::vector<Backend> gpu_backends() {
  std::vector<Backend> out;
  for (Backend b : {Backend::cuda, Backend::hip})
    if (backend_built(b)) out.push_back(b);
  if (out.empty()) out.push_back(Backend::cuda);  // (reported skipped: not built)
  return out;
}
INSTANTIATE_TEST_SUITE_P(All, TwoGpus, ::testing::ValuesIn(gpu_backends()), backend_name);

}  // namespace
}  // namespace tk::test
