// Microbenchmark: fegpu's FEGElemRef_Kernel<0, DIM> (one element per thread, run-time Nb, M by uniform loads from
// global memory) storing lma's grouped layouts: single in float4 groups of 4 entries of a row, double in double2
// pairs. Variants of the grouped branch against the one-by-one store.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)
#define NBM 20

template <int Nd>
__device__ __forceinline__ void Chat(const double *__restrict__ g, double Ch[4][4])
{
  const double w = __ldg(&g[9]);
#pragma unroll
  for (int r = 0; r < Nd; r++)
#pragma unroll
    for (int s = 0; s < Nd; s++) Ch[r][s] = w * (__ldg(&g[(r * 3 + s) % 9]) + (r == s));
}

__device__ __forceinline__ size_t GIdx(int w, size_t k, size_t e, size_t Ne) { return ((k / w) * Ne + e) * w + k % w; }

// OUT: 0 float one by one, 1 float4 groups, 2 double one by one, 3 double2 pairs
template <int Nd, int OUT>
__device__ __forceinline__ void Store4(float *of, double *od, int Nb, int Ne, int e, int a, int b, const double v[4])
{
  const size_t k = (size_t)a * Nb + b;
  if (OUT == 1) *(float4 *)&of[GIdx(4, k, e, Ne)] = make_float4((float)v[0], (float)v[1], (float)v[2], (float)v[3]);
  else if (OUT == 3) {
    *(double2 *)&od[GIdx(2, k, e, Ne)]     = make_double2(v[0], v[1]);
    *(double2 *)&od[GIdx(2, k + 2, e, Ne)] = make_double2(v[2], v[3]);
  } else
    for (int j = 0; j < 4; j++) {
      if (OUT == 0) of[(k + j) * Ne + e] = (float)v[j];
      else od[(k + j) * Ne + e] = v[j];
    }
}

// G0: fegpu's one-by-one branch: entries one at a time, scalar loads, scalar stores
template <int Nd, int OUT>
__global__ void G0(const double *__restrict__ geo, const double *__restrict__ M, int Ne, int Nb, float *of, double *od)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  double Ch[4][4];
  Chat<Nd>(geo + (size_t)e * 10, Ch);
#pragma unroll
  for (int a = 0; a < Nb; a++)
#pragma unroll
    for (int b = 0; b < Nb; b++) {
      double s = 0.0;
#pragma unroll
      for (int r = 0; r < Nd; r++)
#pragma unroll
        for (int t = 0; t < Nd; t++) s += Ch[r][t] * __ldg(&M[((r * Nd + t) * Nb + a) * Nb + b]);
      if (OUT == 0 || OUT == 1) of[(size_t)(a * Nb + b) * Ne + e] = (float)s;
      else od[(size_t)(a * Nb + b) * Ne + e] = s;
    }
}

// G1: fegpu's grouped branch (double2 loads, a group of 4 at a time)
template <int Nd, int OUT>
__global__ void G1(const double *__restrict__ geo, const double *__restrict__ M, int Ne, int Nb, float *of, double *od)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  double Ch[4][4];
  Chat<Nd>(geo + (size_t)e * 10, Ch);
  for (int a = 0; a < Nb; a++)
    for (int b = 0; b < Nb; b += 4) {
      double v[4] = {0.0};
#pragma unroll
      for (int r = 0; r < Nd; r++)
#pragma unroll
        for (int t = 0; t < Nd; t++) {
          const double2 *m  = (const double2 *)&M[((r * Nd + t) * Nb + a) * Nb + b];
          const double2  m0 = __ldg(m), m1 = __ldg(m + 1);
          v[0] += Ch[r][t] * m0.x;
          v[1] += Ch[r][t] * m0.y;
          v[2] += Ch[r][t] * m1.x;
          v[3] += Ch[r][t] * m1.y;
        }
      Store4<Nd, OUT>(of, od, Nb, Ne, e, a, b, v);
    }
}

// G2: the same with scalar loads
template <int Nd, int OUT>
__global__ void G2(const double *__restrict__ geo, const double *__restrict__ M, int Ne, int Nb, float *of, double *od)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  double Ch[4][4];
  Chat<Nd>(geo + (size_t)e * 10, Ch);
  for (int a = 0; a < Nb; a++)
    for (int b = 0; b < Nb; b += 4) {
      double v[4] = {0.0};
#pragma unroll
      for (int r = 0; r < Nd; r++)
#pragma unroll
        for (int t = 0; t < Nd; t++) {
          const double *m = &M[((r * Nd + t) * Nb + a) * Nb + b];
#pragma unroll
          for (int j = 0; j < 4; j++) v[j] += Ch[r][t] * __ldg(m + j);
        }
      Store4<Nd, OUT>(of, od, Nb, Ne, e, a, b, v);
    }
}

// G6: G2 held to 40 registers (occupancy)
template <int Nd, int OUT>
__global__ void __launch_bounds__(128, 12) G6(const double *__restrict__ geo, const double *__restrict__ M, int Ne, int Nb, float *of, double *od)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  double Ch[4][4];
  Chat<Nd>(geo + (size_t)e * 10, Ch);
  for (int a = 0; a < Nb; a++)
    for (int b = 0; b < Nb; b += 4) {
      double v[4] = {0.0};
#pragma unroll
      for (int r = 0; r < Nd; r++)
#pragma unroll
        for (int t = 0; t < Nd; t++) {
          const double *m = &M[((r * Nd + t) * Nb + a) * Nb + b];
#pragma unroll
          for (int j = 0; j < 4; j++) v[j] += Ch[r][t] * __ldg(m + j);
        }
      Store4<Nd, OUT>(of, od, Nb, Ne, e, a, b, v);
    }
}

// G7: G2 held to 32 registers
template <int Nd, int OUT>
__global__ void __launch_bounds__(128, 16) G7(const double *__restrict__ geo, const double *__restrict__ M, int Ne, int Nb, float *of, double *od)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  double Ch[4][4];
  Chat<Nd>(geo + (size_t)e * 10, Ch);
  for (int a = 0; a < Nb; a++)
    for (int b = 0; b < Nb; b += 4) {
      double v[4] = {0.0};
#pragma unroll
      for (int r = 0; r < Nd; r++)
#pragma unroll
        for (int t = 0; t < Nd; t++) {
          const double *m = &M[((r * Nd + t) * Nb + a) * Nb + b];
#pragma unroll
          for (int j = 0; j < 4; j++) v[j] += Ch[r][t] * __ldg(m + j);
        }
      Store4<Nd, OUT>(of, od, Nb, Ne, e, a, b, v);
    }
}

// G8: G1 held to 40 registers
template <int Nd, int OUT>
__global__ void __launch_bounds__(128, 12) G8(const double *__restrict__ geo, const double *__restrict__ M, int Ne, int Nb, float *of, double *od)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  double Ch[4][4];
  Chat<Nd>(geo + (size_t)e * 10, Ch);
  for (int a = 0; a < Nb; a++)
    for (int b = 0; b < Nb; b += 4) {
      double v[4] = {0.0};
#pragma unroll
      for (int r = 0; r < Nd; r++)
#pragma unroll
        for (int t = 0; t < Nd; t++) {
          const double2 *m  = (const double2 *)&M[((r * Nd + t) * Nb + a) * Nb + b];
          const double2  m0 = __ldg(m), m1 = __ldg(m + 1);
          v[0] += Ch[r][t] * m0.x;
          v[1] += Ch[r][t] * m0.y;
          v[2] += Ch[r][t] * m1.x;
          v[3] += Ch[r][t] * m1.y;
        }
      Store4<Nd, OUT>(of, od, Nb, Ne, e, a, b, v);
    }
}

// G3: the groups' loops unrolled like G0's (#pragma unroll on the run-time bounds)
template <int Nd, int OUT>
__global__ void G3(const double *__restrict__ geo, const double *__restrict__ M, int Ne, int Nb, float *of, double *od)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  double Ch[4][4];
  Chat<Nd>(geo + (size_t)e * 10, Ch);
#pragma unroll
  for (int a = 0; a < Nb; a++)
#pragma unroll
    for (int b = 0; b < Nb; b += 4) {
      double v[4] = {0.0};
#pragma unroll
      for (int r = 0; r < Nd; r++)
#pragma unroll
        for (int t = 0; t < Nd; t++) {
          const double *m = &M[((r * Nd + t) * Nb + a) * Nb + b];
#pragma unroll
          for (int j = 0; j < 4; j++) v[j] += Ch[r][t] * __ldg(m + j);
        }
      Store4<Nd, OUT>(of, od, Nb, Ne, e, a, b, v);
    }
}

// G4: a whole row at a time (NBM accumulators, guarded), rt outer
template <int Nd, int OUT>
__global__ void G4(const double *__restrict__ geo, const double *__restrict__ M, int Ne, int Nb, float *of, double *od)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  double Ch[4][4];
  Chat<Nd>(geo + (size_t)e * 10, Ch);
  for (int a = 0; a < Nb; a++) {
    double v[NBM];
#pragma unroll
    for (int b = 0; b < NBM; b++) v[b] = 0.0;
#pragma unroll
    for (int r = 0; r < Nd; r++)
#pragma unroll
      for (int t = 0; t < Nd; t++) {
        const double *m = &M[((r * Nd + t) * Nb + a) * Nb];
#pragma unroll
        for (int b = 0; b < NBM; b++)
          if (b < Nb) v[b] += Ch[r][t] * __ldg(m + b);
      }
#pragma unroll
    for (int b = 0; b < NBM; b += 4)
      if (b < Nb) Store4<Nd, OUT>(of, od, Nb, Ne, e, a, b, &v[b]);
  }
}

// G5: two groups at a time (8 accumulators), scalar loads
template <int Nd, int OUT>
__global__ void G5(const double *__restrict__ geo, const double *__restrict__ M, int Ne, int Nb, float *of, double *od)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  double Ch[4][4];
  Chat<Nd>(geo + (size_t)e * 10, Ch);
  const int n = Nb * Nb;
  for (int k = 0; k < n; k += 8) {
    double v[8] = {0.0};
    const int kk = min(8, n - k);
#pragma unroll
    for (int r = 0; r < Nd; r++)
#pragma unroll
      for (int t = 0; t < Nd; t++) {
        const double *m = &M[(r * Nd + t) * n + k];
#pragma unroll
        for (int j = 0; j < 8; j++)
          if (j < kk) v[j] += Ch[r][t] * __ldg(m + j);
      }
    Store4<Nd, OUT>(of, od, Nb, Ne, e, k / Nb, k % Nb, v);
    if (kk > 4) Store4<Nd, OUT>(of, od, Nb, Ne, e, (k + 4) / Nb, (k + 4) % Nb, v + 4);
  }
}

template <class F>
static double timeit(F f, int reps = 15)
{
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> t;
  f();
  CK(cudaDeviceSynchronize());
  for (int i = 0; i < reps; i++) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[reps / 2];
}

template <class T>
static double maxdiff(const T *da, const T *db, size_t n)
{
  std::vector<T> a(n), b(n);
  CK(cudaMemcpy(a.data(), da, n * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), db, n * sizeof(T), cudaMemcpyDeviceToHost));
  double m = 0, s = 0;
  for (size_t i = 0; i < n; i++) m = std::max(m, (double)std::fabs(a[i] - b[i])), s = std::max(s, (double)std::fabs(a[i]));
  return m / s;
}

template <int Nd, int OUT>
static void run(const char *name, int Nb, int Ne)
{
  const int    nt = 128, nb = (Ne + nt - 1) / nt;
  const size_t n = (size_t)Nb * Nb * Ne;
  std::vector<double> M((size_t)Nd * Nd * Nb * Nb), geo((size_t)Ne * 10);
  srand(1);
  for (auto &x : M) x = rand() / (double)RAND_MAX - 0.5;
  for (auto &x : geo) x = 0.5 + rand() / (double)RAND_MAX;
  double *dM, *dgeo, *od, *od2;
  float  *of, *of2;
  CK(cudaMalloc(&dM, M.size() * 8));
  CK(cudaMalloc(&dgeo, geo.size() * 8));
  CK(cudaMalloc(&od, n * 8));
  CK(cudaMalloc(&od2, n * 8));
  CK(cudaMalloc(&of, n * 4));
  CK(cudaMalloc(&of2, n * 4));
  CK(cudaMemcpy(dM, M.data(), M.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dgeo, geo.data(), geo.size() * 8, cudaMemcpyHostToDevice));
  constexpr int ONE = OUT == 1 ? 0 : 2; // the one-by-one store of the same precision
  const double  t0  = timeit([&] { G0<Nd, ONE><<<nb, nt>>>(dgeo, dM, Ne, Nb, of, od); });
  const double  t1  = timeit([&] { G1<Nd, OUT><<<nb, nt>>>(dgeo, dM, Ne, Nb, of, od); });
  printf("%s Nb %d Nd %d Ne %d: one by one %.4f ms | grouped: G1 (fegpu) %.4f", name, Nb, Nd, Ne, t0, t1);
  double t;
  t = timeit([&] { G2<Nd, OUT><<<nb, nt>>>(dgeo, dM, Ne, Nb, of2, od2); });
  printf(", G2 scalar loads %.4f (%.0e)", t, OUT == 1 ? maxdiff(of, of2, n) : maxdiff(od, od2, n));
  t = timeit([&] { G3<Nd, OUT><<<nb, nt>>>(dgeo, dM, Ne, Nb, of2, od2); });
  printf(", G3 unrolled %.4f (%.0e)", t, OUT == 1 ? maxdiff(of, of2, n) : maxdiff(od, od2, n));
  t = timeit([&] { G4<Nd, OUT><<<nb, nt>>>(dgeo, dM, Ne, Nb, of2, od2); });
  printf(", G4 row %.4f (%.0e)", t, OUT == 1 ? maxdiff(of, of2, n) : maxdiff(od, od2, n));
  t = timeit([&] { G5<Nd, OUT><<<nb, nt>>>(dgeo, dM, Ne, Nb, of2, od2); });
  printf(", G5 eight %.4f (%.0e)", t, OUT == 1 ? maxdiff(of, of2, n) : maxdiff(od, od2, n));
  t = timeit([&] { G6<Nd, OUT><<<nb, nt>>>(dgeo, dM, Ne, Nb, of2, od2); });
  printf(", G6 G2@40 %.4f (%.0e)", t, OUT == 1 ? maxdiff(of, of2, n) : maxdiff(od, od2, n));
  t = timeit([&] { G7<Nd, OUT><<<nb, nt>>>(dgeo, dM, Ne, Nb, of2, od2); });
  printf(", G7 G2@32 %.4f (%.0e)", t, OUT == 1 ? maxdiff(of, of2, n) : maxdiff(od, od2, n));
  t = timeit([&] { G8<Nd, OUT><<<nb, nt>>>(dgeo, dM, Ne, Nb, of2, od2); });
  printf(", G8 G1@40 %.4f (%.0e) ms\n", t, OUT == 1 ? maxdiff(of, of2, n) : maxdiff(od, od2, n));
  cudaFree(dM);
  cudaFree(dgeo);
  cudaFree(od);
  cudaFree(od2);
  cudaFree(of);
  cudaFree(of2);
}

int main()
{
  for (int rep = 0; rep < 2; rep++) {
    run<4, 1>("P3 tets single", 20, 162000);
    run<3, 1>("Q3 quads single", 16, 490000);
    run<3, 3>("Q3 quads double", 16, 490000);
  }
  return 0;
}
