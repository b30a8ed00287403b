// Throughput of the FP64 mma.sync shapes on sm_90: registers only, ACC independent accumulators per warp.
#include <cstdio>
#include <cuda_runtime.h>
template <int SHAPE> __device__ __forceinline__ void mma(double* d, const double* a, const double* b);
template <> __device__ __forceinline__ void mma<0>(double* d, const double* a, const double* b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1},{%2},{%3},{%0,%1};" : "+d"(d[0]), "+d"(d[1]) : "d"(a[0]), "d"(b[0]));
}
template <> __device__ __forceinline__ void mma<1>(double* d, const double* a, const double* b) {
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3},{%4,%5},{%6},{%0,%1,%2,%3};" : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3]) : "d"(a[0]), "d"(a[1]), "d"(b[0]));
}
template <> __device__ __forceinline__ void mma<2>(double* d, const double* a, const double* b) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3},{%4,%5,%6,%7},{%8,%9},{%0,%1,%2,%3};" : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3]) : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}
template <> __device__ __forceinline__ void mma<3>(double* d, const double* a, const double* b) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3},{%4,%5,%6,%7,%8,%9,%10,%11},{%12,%13,%14,%15},{%0,%1,%2,%3};" : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3]) : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}
constexpr int flops_of[4] = {2 * 8 * 8 * 4, 2 * 16 * 8 * 4, 2 * 16 * 8 * 8, 2 * 16 * 8 * 16};
template <int SHAPE, int ACC> __global__ void run(double* out, int iters) {
  double a[8], b[4], d[ACC][4];
  for (int i = 0; i < 8; ++i) a[i] = threadIdx.x * 1e-3 + i;
  for (int i = 0; i < 4; ++i) b[i] = threadIdx.x * 2e-3 + i;
  for (int j = 0; j < ACC; ++j) for (int i = 0; i < 4; ++i) d[j][i] = 0;
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int j = 0; j < ACC; ++j) mma<SHAPE>(d[j], a, b);
  double s = 0;
  for (int j = 0; j < ACC; ++j) for (int i = 0; i < 4; ++i) s += d[j][i];
  if (s == 12345.678) out[0] = s;
}
template <int SHAPE, int ACC> void time_it(int warps_per_block, int blocks_per_sm, int sms) {
  double* out; cudaMalloc(&out, 8);
  int iters = 4096 * 64 / flops_of[SHAPE] * 16;
  dim3 grid(sms * blocks_per_sm), block(32 * warps_per_block);
  run<SHAPE, ACC><<<grid, block>>>(out, 16);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaEventRecord(e0);
  for (int r = 0; r < 5; ++r) run<SHAPE, ACC><<<grid, block>>>(out, iters);
  cudaEventRecord(e1); cudaEventSynchronize(e1);
  float ms; cudaEventElapsedTime(&ms, e0, e1);
  double flops = 5.0 * grid.x * warps_per_block * (double)iters * ACC * flops_of[SHAPE];
  const char* names[4] = {"m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16"};
  printf("%-9s acc %d warps/block %d blocks/SM %d: %.1f TFLOP/s (%s)\n", names[SHAPE], ACC, warps_per_block,
         blocks_per_sm, flops / ms / 1e9, cudaGetErrorString(cudaGetLastError()));
  cudaFree(out);
}
int main() {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0); printf("%s, %d SMs\n", p.name, sms);
  for (int w : {4, 8}) {
    time_it<0, 8>(w, 2, sms); time_it<1, 4>(w, 2, sms); time_it<2, 4>(w, 2, sms); time_it<3, 4>(w, 2, sms);
    time_it<0, 16>(w, 2, sms); time_it<1, 8>(w, 2, sms); time_it<2, 8>(w, 2, sms); time_it<3, 8>(w, 2, sms);
  }
}
