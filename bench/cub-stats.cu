/* The CUB peer of cf_stats_cuda (): see cub-stats.h for what it computes. */
#include "cub-stats.h"

#include <cub/cub.cuh>
#include <cuda/std/array>

#include <stdlib.h>
#include <string.h>

namespace {

constexpr int kBins = CF_STATS_BINS;

/* Per-channel partial statistics: the accumulator of the reductions. */
struct Moments {
  unsigned long long sum[CF_MAX_CHANNELS];
  unsigned long long sum_sq[CF_MAX_CHANNELS];
  unsigned char lo[CF_MAX_CHANNELS];
  unsigned char hi[CF_MAX_CHANNELS];
};

__host__ __device__ inline Moments
moments_identity ()
{
  Moments m;
  for (int c = 0; c < CF_MAX_CHANNELS; c++) {
    m.sum[c] = m.sum_sq[c] = 0;
    m.lo[c] = 255;
    m.hi[c] = 0;
  }
  return m;
}

/* Per-channel min, max and sums: associative and commutative. */
struct MomentsOp {
  __host__ __device__ Moments operator() (const Moments & a, const Moments & b) const
  {
    Moments r;
    for (int c = 0; c < CF_MAX_CHANNELS; c++) {
      r.sum[c] = a.sum[c] + b.sum[c];
      r.sum_sq[c] = a.sum_sq[c] + b.sum_sq[c];
      r.lo[c] = a.lo[c] < b.lo[c] ? a.lo[c] : b.lo[c];
      r.hi[c] = a.hi[c] > b.hi[c] ? a.hi[c] : b.hi[c];
    }
    return r;
  }
};

/* The item of the reductions: 64 bytes, read as four 16-byte loads, so
 * that each thread has 64 bytes in flight per item. */
struct __align__ (16) Chunk {
  uint4 v[4];
};
constexpr int kChunk = sizeof (Chunk);

/* 64 bytes of a plane as Moments, the sums in 32 bits first (64 samples
 * cannot overflow them), so the 64-bit accumulator is touched once per
 * chunk. Byte k (little-endian) is a sample of channel:
 * RGBA k % 4; NV12 Y 0; NV12 UV 1 + k % 2. Unused channels stay neutral. */
enum Layout { kRGBA, kY, kUV };

template <Layout L>
struct FromChunk {
  __device__ Moments operator() (const Chunk & chunk) const
  {
    unsigned int lo[4] = { 255, 255, 255, 255 }, hi[4] = { 0, 0, 0, 0 };
    unsigned int sum[4] = { 0, 0, 0, 0 }, sq[4] = { 0, 0, 0, 0 };
    Moments m;

#pragma unroll
    for (int k = 0; k < kChunk; k++) {
      const uint4 & v = chunk.v[k / 16];
      const unsigned int w = (k / 4) % 4 == 0 ? v.x : (k / 4) % 4 == 1 ? v.y
          : (k / 4) % 4 == 2 ? v.z : v.w;
      const int c = L == kRGBA ? k % 4 : L == kY ? 0 : 1 + k % 2;
      const unsigned int x = (w >> (8 * (k % 4))) & 0xffu;
      lo[c] = min (lo[c], x);
      hi[c] = max (hi[c], x);
      sum[c] += x;
      sq[c] += x * x;
    }
#pragma unroll
    for (int c = 0; c < CF_MAX_CHANNELS; c++) {
      m.lo[c] = (unsigned char) lo[c];
      m.hi[c] = (unsigned char) hi[c];
      m.sum[c] = sum[c];
      m.sum_sq[c] = sq[c];
    }
    return m;
  }
};

struct Outputs {
  unsigned int hist[CF_MAX_CHANNELS][kBins];
  Moments moments[2];           /* RGBA: [0]; NV12: [0] Y, [1] UV */
};

struct MinOp {
  __device__ unsigned int operator() (unsigned int a, unsigned int b) const
  {
    return min (a, b);
  }
};

struct MaxOp {
  __device__ unsigned int operator() (unsigned int a, unsigned int b) const
  {
    return max (a, b);
  }
};

/* CUB_STATS_DERIVE: min, max, sum and sum of squares of channel blockIdx.x
 * from its 256 bins (thread b holds bin b), with cub::BlockReduce. */
__global__ void __launch_bounds__ (kBins)
derive_kernel (Outputs * out, int nv12)
{
  using ReduceU64 = cub::BlockReduce<unsigned long long, kBins>;
  using ReduceU32 = cub::BlockReduce<unsigned int, kBins>;
  __shared__ union {
    typename ReduceU64::TempStorage u64;
    typename ReduceU32::TempStorage u32;
  } tmp;
  const int c = blockIdx.x, b = threadIdx.x;
  const unsigned long long n = out->hist[c][b];
  unsigned long long sum, sum_sq;
  unsigned int lo, hi;

  sum = ReduceU64 (tmp.u64).Sum (n * b);
  __syncthreads ();
  sum_sq = ReduceU64 (tmp.u64).Sum (n * b * b);
  __syncthreads ();
  lo = ReduceU32 (tmp.u32).Reduce (n ? b : 255u, MinOp ());
  __syncthreads ();
  hi = ReduceU32 (tmp.u32).Reduce (n ? b : 0u, MaxOp ());
  if (b == 0) {
    Moments *m = &out->moments[nv12 && c > 0];
    m->sum[c] = sum;
    m->sum_sq[c] = sum_sq;
    m->lo[c] = (unsigned char) lo;
    m->hi[c] = (unsigned char) hi;
  }
}

}  // namespace

struct _CubStats {
  CfFormat format;
  int width, height;
  size_t plane_bytes[2];        /* per plane: dense bytes */
  void *d_temp;
  size_t temp_bytes;
  Outputs *d_out;
};

/* Every CUB call of a frame, in order. With @d_temp NULL it only asks each
 * call for its temporary storage and keeps the largest: the calls are
 * ordered on one stream, so they share one allocation. */
static cudaError_t
enqueue (CubStats * s, const CfImage * img, unsigned int parts,
    size_t * temp_bytes, cudaStream_t stream)
{
  const cuda::std::array<int, 4> levels4 = { kBins + 1, kBins + 1, kBins + 1, kBins + 1 };
  const cuda::std::array<int, 4> lower4 = { 0, 0, 0, 0 };
  const cuda::std::array<int, 4> upper4 = { kBins, kBins, kBins, kBins };
  const cuda::std::array<int, 2> levels2 = { kBins + 1, kBins + 1 };
  const cuda::std::array<int, 2> lower2 = { 0, 0 };
  const cuda::std::array<int, 2> upper2 = { kBins, kBins };
  const bool query = s->d_temp == NULL;
  unsigned int (*hist)[kBins] = s->d_out->hist;
  Moments *moments = s->d_out->moments;
  size_t need, most = 0;
  cudaError_t err = cudaSuccess;

#define CUB_CALL(...) do { \
    need = query ? 0 : s->temp_bytes; \
    err = (__VA_ARGS__); \
    if (err != cudaSuccess) \
      return err; \
    most = need > most ? need : most; \
  } while (0)

  if (s->format == CF_FORMAT_RGBA) {
    const unsigned char *px = (const unsigned char *) img->data[0];
    if (parts & CUB_STATS_HISTOGRAM) {
      const cuda::std::array<unsigned int *, 4> out = { hist[0], hist[1], hist[2], hist[3] };
      CUB_CALL (cub::DeviceHistogram::MultiHistogramEven<4, 4> (s->d_temp,
              need, px, out, levels4, lower4, upper4, s->width, s->height,
              img->pitch[0], stream));
    }
    if (parts & CUB_STATS_REDUCE)
      CUB_CALL (cub::DeviceReduce::TransformReduce (s->d_temp, need,
              (const Chunk *) px, moments, s->plane_bytes[0] / kChunk,
              MomentsOp (), FromChunk<kRGBA> (), moments_identity (), stream));
  } else {
    const unsigned char *y = (const unsigned char *) img->data[0];
    const unsigned char *uv = (const unsigned char *) img->data[1];
    const int uv_width = cf_plane_width (s->format, 1, s->width);
    const int uv_height = cf_plane_height (s->format, 1, s->height);
    if (parts & CUB_STATS_HISTOGRAM) {
      const cuda::std::array<unsigned int *, 2> out = { hist[1], hist[2] };
      CUB_CALL (cub::DeviceHistogram::HistogramEven (s->d_temp, need, y,
              hist[0], kBins + 1, 0, kBins, s->width, s->height,
              img->pitch[0], stream));
      CUB_CALL (cub::DeviceHistogram::MultiHistogramEven<2, 2> (s->d_temp,
              need, uv, out, levels2, lower2, upper2, uv_width, uv_height,
              img->pitch[1], stream));
    }
    if (parts & CUB_STATS_REDUCE) {
      CUB_CALL (cub::DeviceReduce::TransformReduce (s->d_temp, need,
              (const Chunk *) y, moments, s->plane_bytes[0] / kChunk,
              MomentsOp (), FromChunk<kY> (), moments_identity (), stream));
      CUB_CALL (cub::DeviceReduce::TransformReduce (s->d_temp, need,
              (const Chunk *) uv, moments + 1, s->plane_bytes[1] / kChunk,
              MomentsOp (), FromChunk<kUV> (), moments_identity (), stream));
    }
  }
#undef CUB_CALL
  if ((parts & CUB_STATS_DERIVE) && !query) {
    derive_kernel<<<cf_format_info (s->format)->n_channels, kBins, 0, stream>>>
        (s->d_out, s->format == CF_FORMAT_NV12);
    err = cudaGetLastError ();
  }
  if (temp_bytes)
    *temp_bytes = most;
  return err;
}

extern "C" int
cub_stats_takes (CfFormat format)
{
  return format == CF_FORMAT_RGBA || format == CF_FORMAT_NV12;
}

extern "C" cudaError_t
cub_stats_setup (CfFormat format, int width, int height, CubStats ** out)
{
  CubStats *s;
  CfImage img = { };
  cudaError_t err;

  *out = NULL;
  if (!cub_stats_takes (format) || width < 1 || height < 1
      || width > CF_MAX_SIDE || height > CF_MAX_SIDE)
    return cudaErrorInvalidValue;
  s = (CubStats *) calloc (1, sizeof (CubStats));
  if (!s)
    return cudaErrorMemoryAllocation;
  s->format = format;
  s->width = width;
  s->height = height;
  img.format = format;
  img.width = width;
  img.height = height;
  for (int p = 0; p < cf_format_info (format)->n_planes; p++) {
    img.pitch[p] = cf_plane_row_bytes (format, p, width);
    s->plane_bytes[p] = img.pitch[p] * cf_plane_height (format, p, height);
    if (s->plane_bytes[p] % kChunk) {
      free (s);
      return cudaErrorInvalidValue;
    }
  }

  if ((err = cudaMalloc (&s->d_out, sizeof (Outputs))) != cudaSuccess
      || (err = enqueue (s, &img, CUB_STATS_ALL, &s->temp_bytes, 0)) != cudaSuccess
      || (err = cudaMalloc (&s->d_temp, s->temp_bytes ? s->temp_bytes : 16)) != cudaSuccess) {
    cub_stats_free (s);
    return err;
  }
  *out = s;
  return cudaSuccess;
}

extern "C" cudaError_t
cub_stats_run (CubStats * s, const CfImage * d_image, unsigned int parts,
    cudaStream_t stream)
{
  const CfFormatInfo *info;

  if (!s || !d_image || d_image->format != s->format
      || d_image->width != s->width || d_image->height != s->height)
    return cudaErrorInvalidValue;
  info = cf_format_info (s->format);
  for (int p = 0; p < info->n_planes; p++) {
    if (!d_image->data[p] || ((uintptr_t) d_image->data[p] & 15)
        || d_image->pitch[p] != cf_plane_row_bytes (s->format, p, s->width))
      return cudaErrorInvalidValue;
  }
  return enqueue (s, d_image, parts, NULL, stream);
}

extern "C" cudaError_t
cub_stats_read (CubStats * s, CfStats * r)
{
  Outputs out;
  const CfFormatInfo *info = cf_format_info (s->format);
  cudaError_t err;

  /* read, then poison, so that no read sees the outputs of an older run */
  if ((err = cudaDeviceSynchronize ()) != cudaSuccess
      || (err = cudaMemcpy (&out, s->d_out, sizeof (out),
              cudaMemcpyDeviceToHost)) != cudaSuccess
      || (err = cudaMemset (s->d_out, 0xa5, sizeof (Outputs))) != cudaSuccess)
    return err;
  memset (r, 0, sizeof (*r));
  r->n_channels = info->n_channels;
  for (int c = 0; c < info->n_channels; c++) {
    /* RGBA: every channel in moments[0]; NV12: Y in [0], U and V in [1] */
    const Moments *m = &out.moments[c > 0 && s->format == CF_FORMAT_NV12];
    const int plane = s->format == CF_FORMAT_NV12 && c > 0;
    r->count[c] = (uint64_t) cf_plane_width (s->format, plane, s->width)
        * cf_plane_height (s->format, plane, s->height);
    r->min[c] = r->count[c] ? m->lo[c] : 0;
    r->max[c] = r->count[c] ? m->hi[c] : 0;
    r->sum[c] = m->sum[c];
    r->sum_sq[c] = m->sum_sq[c];
    memcpy (r->histogram[c], out.hist[c], sizeof (r->histogram[c]));
  }
  return cudaSuccess;
}

extern "C" void
cub_stats_free (CubStats * s)
{
  if (!s)
    return;
  cudaFree (s->d_temp);
  cudaFree (s->d_out);
  free (s);
}
