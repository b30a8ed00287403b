// kernels/matmul/launch_double.cpp — launch.cpp's double GEMM (tk::gemm on doubles, every variant and
// configuration), compiled apart from the float one so that a build compiles the two in parallel.
#define TK_MATMUL_DOUBLE_TU 1
#include "launch.cpp"
