// Microbenchmark: affine element matrices K_ab = sum_rt Chat_rt M^rt_ab, one element per thread, M read
// (A) by uniform __ldg loads from global memory (fegpu's FEGElemRef_Kernel), (B) from the kernel parameter bank,
// (C) the half of M with a <= b from the parameter bank (M^rt_ab = M^tr_ba), (D) from a __constant__ symbol.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

constexpr int Nd = 4;

__device__ __forceinline__ void Chat(const double *__restrict__ g, const double C[16], double Ch[4][4])
{
  double T[4][4] = {{0}};
  T[0][0] = 1.0;
  for (int c = 0; c < 3; c++)
    for (int r = 0; r < 3; r++) T[1 + c][1 + r] = __ldg(&g[r * 3 + c]);
  const double w = __ldg(&g[9]);
#pragma unroll
  for (int i = 0; i < 4; i++)
#pragma unroll
    for (int s = 0; s < 4; s++) {
      double v = 0;
#pragma unroll
      for (int j = 0; j < 4; j++) v += C[i * 4 + j] * T[j][s];
      T[i][s] = T[i][s]; // keep
      Ch[i][s] = v;
    }
  double R[4][4];
#pragma unroll
  for (int r = 0; r < 4; r++)
#pragma unroll
    for (int s = 0; s < 4; s++) {
      double v = 0;
#pragma unroll
      for (int i = 0; i < 4; i++) v += T[i][r] * Ch[i][s];
      R[r][s] = w * v;
    }
#pragma unroll
  for (int r = 0; r < 4; r++)
#pragma unroll
    for (int s = 0; s < 4; s++) Ch[r][s] = R[r][s];
}

struct Cc { double c[16]; };

template <int NB> struct MFull { double m[Nd * Nd][NB * NB]; };
template <int NB> struct MHalf { double m[Nd * Nd][NB * (NB + 1) / 2]; };

__host__ __device__ constexpr int HIdx(int NB, int a, int b) { return a * NB - a * (a - 1) / 2 + (b - a); }

// (A) global uniform loads, full unroll (NB compile time); out: double element-interleaved, or float groups of 4
template <int NB, bool SINGLE>
__global__ void KA(const double *__restrict__ geo, Cc cc, const double *__restrict__ M, int Ne, double *out, float *outf)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  double Ch[4][4];
  Chat(geo + (size_t)e * 10, cc.c, Ch);
#pragma unroll
  for (int a = 0; a < NB; a++)
#pragma unroll
    for (int b = 0; b < NB; b++) {
      double s = 0;
#pragma unroll
      for (int r = 0; r < Nd; r++)
#pragma unroll
        for (int t = 0; t < Nd; t++) s += Ch[r][t] * __ldg(&M[((r * Nd + t) * NB + a) * NB + b]);
      if (SINGLE) outf[(size_t)(a * NB + b) * Ne + e] = (float)s;
      else out[(size_t)(a * NB + b) * Ne + e] = s;
    }
}

// (A0) runtime Nb loops (fegpu's FEGElemRef_Kernel<0,3>)
__global__ void KA0(const double *__restrict__ geo, Cc cc, const double *__restrict__ M, int Ne, int Nb, double *out)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  double Ch[4][4];
  Chat(geo + (size_t)e * 10, cc.c, Ch);
#pragma unroll
  for (int a = 0; a < Nb; a++)
#pragma unroll
    for (int b = 0; b < Nb; b++) {
      double s = 0;
#pragma unroll
      for (int r = 0; r < Nd; r++)
#pragma unroll
        for (int t = 0; t < Nd; t++) s += Ch[r][t] * __ldg(&M[((r * Nd + t) * Nb + a) * Nb + b]);
      out[(size_t)(a * Nb + b) * Ne + e] = s;
    }
}

// (A0g) fegpu's grouped branch: runtime loops, double2 loads, float4 stores of groups of 4
__global__ void KA0g(const double *__restrict__ geo, Cc cc, const double *__restrict__ M, int Ne, int Nb, float *outf)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  double Ch[4][4];
  Chat(geo + (size_t)e * 10, cc.c, Ch);
  for (int a = 0; a < Nb; a++)
    for (int b = 0; b < Nb; b += 4) {
      double v[4] = {0, 0, 0, 0};
#pragma unroll
      for (int r = 0; r < Nd; r++)
#pragma unroll
        for (int t = 0; t < Nd; t++) {
          const double2 *m = (const double2 *)&M[((r * Nd + t) * Nb + a) * Nb + b];
          const double2 m0 = __ldg(m), m1 = __ldg(m + 1);
          v[0] += Ch[r][t] * m0.x;
          v[1] += Ch[r][t] * m0.y;
          v[2] += Ch[r][t] * m1.x;
          v[3] += Ch[r][t] * m1.y;
        }
      const size_t k = (size_t)a * Nb + b;
      *(float4 *)&outf[((k / 4) * Ne + e) * 4] = make_float4((float)v[0], (float)v[1], (float)v[2], (float)v[3]);
    }
}

// (B) full M in the parameter bank
template <int NB>
__global__ void KB(const double *__restrict__ geo, Cc cc, const __grid_constant__ MFull<NB> M, int Ne, double *out)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  double Ch[4][4];
  Chat(geo + (size_t)e * 10, cc.c, Ch);
#pragma unroll
  for (int a = 0; a < NB; a++)
#pragma unroll
    for (int b = 0; b < NB; b++) {
      double s = 0;
#pragma unroll
      for (int r = 0; r < Nd; r++)
#pragma unroll
        for (int t = 0; t < Nd; t++) s += Ch[r][t] * M.m[r * Nd + t][a * NB + b];
      out[(size_t)(a * NB + b) * Ne + e] = s;
    }
}

// (C) half of M in the parameter bank; SINGLE: float groups of 4 (a row's b..b+3) like fegpu's grouped storage
template <int NB, int MODE> // MODE 0 double interleaved, 1 float interleaved, 2 float groups of 4
__global__ void KC(const double *__restrict__ geo, Cc cc, const __grid_constant__ MHalf<NB> M, int Ne, double *out, float *outf)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  double Ch[4][4];
  Chat(geo + (size_t)e * 10, cc.c, Ch);
#pragma unroll
  for (int a = 0; a < NB; a++)
#pragma unroll
    for (int b0 = 0; b0 < NB; b0 += 4) {
      double v[4];
#pragma unroll
      for (int j = 0; j < 4; j++) {
        const int b = b0 + j;
        double    s = 0;
        if (b < NB) {
#pragma unroll
          for (int r = 0; r < Nd; r++)
#pragma unroll
            for (int t = 0; t < Nd; t++) s += (a <= b) ? Ch[r][t] * M.m[r * Nd + t][HIdx(NB, a, b)] : Ch[r][t] * M.m[t * Nd + r][HIdx(NB, b, a)];
        }
        v[j] = s;
      }
      if (MODE == 2) {
        const size_t k = (size_t)a * NB + b0;
        *(float4 *)&outf[((k / 4) * Ne + e) * 4] = make_float4((float)v[0], (float)v[1], (float)v[2], (float)v[3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; j++)
          if (b0 + j < NB) {
            if (MODE == 1) outf[(size_t)(a * NB + b0 + j) * Ne + e] = (float)v[j];
            else out[(size_t)(a * NB + b0 + j) * Ne + e] = v[j];
          }
      }
    }
}

__constant__ double cM[6400];
// (D) __constant__ symbol, full
template <int NB>
__global__ void KD(const double *__restrict__ geo, Cc cc, int Ne, double *out)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  double Ch[4][4];
  Chat(geo + (size_t)e * 10, cc.c, Ch);
#pragma unroll
  for (int a = 0; a < NB; a++)
#pragma unroll
    for (int b = 0; b < NB; b++) {
      double s = 0;
#pragma unroll
      for (int r = 0; r < Nd; r++)
#pragma unroll
        for (int t = 0; t < Nd; t++) s += Ch[r][t] * cM[((r * Nd + t) * NB + a) * NB + b];
      out[(size_t)(a * NB + b) * Ne + e] = s;
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

static double maxdiffd(const double *da, const double *db, size_t n)
{
  std::vector<double> a(n), b(n);
  CK(cudaMemcpy(a.data(), da, n * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), db, n * 8, cudaMemcpyDeviceToHost));
  double m = 0, s = 0;
  for (size_t i = 0; i < n; i++) m = std::max(m, std::fabs(a[i] - b[i])), s = std::max(s, std::fabs(a[i]));
  return m / s;
}
static double maxdifff(const float *da, const float *db, size_t n)
{
  std::vector<float> a(n), b(n);
  CK(cudaMemcpy(a.data(), da, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), db, n * 4, cudaMemcpyDeviceToHost));
  double m = 0, s = 0;
  for (size_t i = 0; i < n; i++) m = std::max(m, (double)std::fabs(a[i] - b[i])), s = std::max(s, (double)std::fabs(a[i]));
  return m / s;
}

template <int NB>
static void run(int Ne)
{
  const int    nent = NB * NB, nt = 128, nb = (Ne + nt - 1) / nt;
  const size_t n    = (size_t)nent * Ne;
  // symmetric-in-(r,t)-swap reference tensors from random R: M^rt_ab = sum_q w_q R_ra R_tb
  std::vector<double> R(4 * NB * 7), Mh(16 * nent), geo((size_t)Ne * 10);
  srand(1);
  for (auto &x : R) x = rand() / (double)RAND_MAX - 0.5;
  for (int r = 0; r < 4; r++)
    for (int t = 0; t < 4; t++)
      for (int a = 0; a < NB; a++)
        for (int b = 0; b < NB; b++) {
          double s = 0;
          for (int q = 0; q < 7; q++) s += R[(r * NB + a) * 7 + q] * R[(t * NB + b) * 7 + q];
          Mh[((r * 4 + t) * NB + a) * NB + b] = s;
        }
  for (auto &x : geo) x = 0.5 + rand() / (double)RAND_MAX;
  Cc cc;
  for (int i = 0; i < 16; i++) cc.c[i] = (i % 5 == 0) ? 1.0 : 0.1 * (i % 3);
  MFull<NB> *mf = new MFull<NB>;
  MHalf<NB> *mh = new MHalf<NB>;
  for (int rt = 0; rt < 16; rt++)
    for (int a = 0; a < NB; a++)
      for (int b = 0; b < NB; b++) {
        mf->m[rt][a * NB + b] = Mh[(rt * NB + a) * NB + b];
        if (a <= b) mh->m[rt][HIdx(NB, a, b)] = Mh[(rt * NB + a) * NB + b];
      }
  double *dM, *dgeo, *o1, *o2;
  float  *f1, *f2;
  CK(cudaMalloc(&dM, Mh.size() * 8));
  CK(cudaMalloc(&dgeo, geo.size() * 8));
  CK(cudaMalloc(&o1, n * 8));
  CK(cudaMalloc(&o2, n * 8));
  CK(cudaMalloc(&f1, n * 4));
  CK(cudaMalloc(&f2, n * 4));
  CK(cudaMemcpy(dM, Mh.data(), Mh.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dgeo, geo.data(), geo.size() * 8, cudaMemcpyHostToDevice));
  const bool cfit = Mh.size() <= 6400;
  if (cfit) CK(cudaMemcpyToSymbol(cM, Mh.data(), Mh.size() * 8));
  printf("NB %d Ne %d: store-bandwidth floor (double) %.3f ms at 3 TB/s; param bytes full %zu half %zu\n", NB, Ne, n * 8 / 3e9, sizeof(MFull<NB>), sizeof(MHalf<NB>));
  double tA0 = timeit([&] { KA0<<<nb, nt>>>(dgeo, cc, dM, Ne, NB, o1); });
  printf("  A0 global, runtime loops, double     %.4f ms\n", tA0);
  double tA = timeit([&] { KA<NB, false><<<nb, nt>>>(dgeo, cc, dM, Ne, o2, f1); });
  printf("  A  global, unrolled, double          %.4f ms  diff %.1e\n", tA, maxdiffd(o1, o2, n));
  if constexpr (sizeof(MFull<NB>) + 200 < 32000) {
    double tB = timeit([&] { KB<NB><<<nb, nt>>>(dgeo, cc, *mf, Ne, o2); });
    printf("  B  param full, double                %.4f ms  diff %.1e  (A/B %.2f)\n", tB, maxdiffd(o1, o2, n), tA / tB);
  }
  double tC = timeit([&] { KC<NB, 0><<<nb, nt>>>(dgeo, cc, *mh, Ne, o2, f1); });
  printf("  C  param half, double                %.4f ms  diff %.1e  (A/C %.2f, A0/C %.2f)\n", tC, maxdiffd(o1, o2, n), tA / tC, tA0 / tC);
  if (cfit) {
    double tD = timeit([&] { KD<NB><<<nb, nt>>>(dgeo, cc, Ne, o2); });
    printf("  D  __constant__ full, double         %.4f ms  diff %.1e  (A/D %.2f)\n", tD, maxdiffd(o1, o2, n), tA / tD);
  }
  double tAf = timeit([&] { KA<NB, true><<<nb, nt>>>(dgeo, cc, dM, Ne, o2, f1); });
  double tCf = timeit([&] { KC<NB, 1><<<nb, nt>>>(dgeo, cc, *mh, Ne, o2, f2); });
  printf("  single interleaved: A %.4f ms, C %.4f ms (A/C %.2f) diff %.1e\n", tAf, tCf, tAf / tCf, maxdifff(f1, f2, n));
  if (NB % 4 == 0) {
    double tg  = timeit([&] { KA0g<<<nb, nt>>>(dgeo, cc, dM, Ne, NB, f1); });
    double tCg = timeit([&] { KC<NB, 2><<<nb, nt>>>(dgeo, cc, *mh, Ne, o2, f2); });
    printf("  single groups of 4: A0g %.4f ms, C %.4f ms (A0g/C %.2f) diff %.1e\n", tg, tCg, tg / tCg, maxdifff(f1, f2, n));
  }
  cudaFree(dM);
  cudaFree(dgeo);
  cudaFree(o1);
  cudaFree(o2);
  cudaFree(f1);
  cudaFree(f2);
  delete mf;
  delete mh;
}

int main()
{
  run<4>(998250);
  run<10>(998250);
  run<16>(300000);
  run<20>(162000);
  return 0;
}
