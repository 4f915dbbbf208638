/* Picture scaling on the GPU (see resize.h): two launches per plane.
 *
 * The weight tables come from cpu/resize.c (cf_resize_plan_init ()), copied
 * as they are to device memory once per plan, so both backends filter with
 * the very same integers; the arithmetic below is cf_resize_cpu ()'s,
 * statement for statement, and every sum is exact, so the bytes agree.
 *
 * 1. horizontal_kernel: one thread per sample of an intermediate row (output
 *    column x, sample k of the pixel) and input row. It reads `taps` weights
 *    of column x and the input samples first[x] .. first[x] + taps - 1 of
 *    its row, and writes the rounded sum as int32 with CF_RESIZE_INTER_BITS
 *    fraction bits to the workspace: in_height rows of out_width x
 *    samples-per-pixel. Consecutive threads write consecutive int32
 *    (coalesced) and read neighbouring input bytes; the threads of one
 *    pixel read the same weights (one transaction).
 * 2. vertical_kernel: one thread per output sample. It reads the `taps`
 *    intermediate rows first[y] .. of its column (coalesced along x: a warp
 *    reads 32 consecutive int32 of a row) and the weights of row y, which
 *    are the same for the whole block row (a broadcast), and writes the
 *    clamped, rounded sample.
 * Tables, input and intermediate are only read during a launch, so they go
 * through the read-only data cache (__ldg). Samples are read and written
 * byte by byte: any pitch and any alignment of the planes work.
 *
 * The kernels are templated on the pixel and sample bytes of the plane, so
 * that the division of a column into pixel and sample is by a constant.
 * 8-bit horizontal sums are int32 (resize.h bounds the positive weights of
 * an output below 2, so |sum| < 255 * 2^23 < 2^31), 16-bit ones and all
 * vertical sums int64.
 *
 * This first version favours clarity. The intermediate makes a round trip
 * through global memory (4 bytes per sample, in_height rows); a fused
 * kernel that keeps a tile's intermediate rows in shared memory would cut
 * that traffic, and would also let a warp share its input bytes when
 * downscaling. That is a later optimisation, and must give the same bytes.
 */
#include "resize.h"

#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>
#include <type_traits>

namespace {

constexpr int kThreads = 256;
constexpr int kHShift = CF_RESIZE_WEIGHT_BITS - CF_RESIZE_INTER_BITS;
constexpr int kVShift = CF_RESIZE_WEIGHT_BITS + CF_RESIZE_INTER_BITS;
constexpr size_t kAlign = 256;  /* of each table and workspace part */

/* Through the read-only data cache on the device; a plain load on the host
 * (where the sample functions can be run against the C reference). */
template <typename T>
__host__ __device__ __forceinline__ T
ld (const T * p)
{
#ifdef __CUDA_ARCH__
  return __ldg (p);
#else
  return *p;
#endif
}

/* One axis of one plane, as the kernels read it. */
struct Axis {
  const int32_t *first;         /* [out_size] */
  const int32_t *weights;       /* [out_size * taps] */
  int taps;
};

struct HorizontalArgs {
  const uint8_t *src;           /* the input plane */
  size_t src_pitch;
  int32_t *inter;               /* rows of row_samples int32 */
  int row_samples;              /* out_width * samples per pixel */
  int rows;                     /* input rows */
  Axis x;
};

struct VerticalArgs {
  const int32_t *inter;
  int row_samples;
  int rows;                     /* output rows */
  uint8_t *dst;                 /* the output plane */
  size_t dst_pitch;
  Axis y;
};

template <int SB>
__host__ __device__ __forceinline__ int
sample_at (const uint8_t * s)
{
  return SB == 1 ? ld (s) : ld (s) | ld (s + 1) << 8;
}

/* Sample @col of intermediate row @row (input row @row filtered along x):
 * PB bytes per pixel, SB bytes per sample. */
template <int PB, int SB>
__host__ __device__ __forceinline__ void
horizontal_sample (const HorizontalArgs & a, int row, int col)
{
  typedef typename std::conditional<SB == 1, int32_t, int64_t>::type Acc;
  constexpr int kSamples = PB / SB;
  const int x = col / kSamples, k = col - x * kSamples;
  const int32_t *w = a.x.weights + (size_t) x * a.x.taps;
  const uint8_t *s = a.src + (size_t) row * a.src_pitch +
      (size_t) ld (a.x.first + x) * PB + k * SB;
  Acc acc = 0;

  for (int t = 0; t < a.x.taps; t++)
    acc += (Acc) ld (w + t) * sample_at<SB> (s + t * PB);
  a.inter[(size_t) row * a.row_samples + col] =
      (int32_t) ((acc + (Acc (1) << (kHShift - 1))) >> kHShift);
}

/* Sample @col of output row @row. */
template <int SB>
__host__ __device__ __forceinline__ void
vertical_sample (const VerticalArgs & a, int row, int col)
{
  constexpr int64_t kMax = SB == 1 ? 255 : 65535;
  const int32_t *w = a.y.weights + (size_t) row * a.y.taps;
  const int32_t *h = a.inter + (size_t) ld (a.y.first + row) * a.row_samples
      + col;
  int64_t acc = 0;

  for (int t = 0; t < a.y.taps; t++)
    acc += (int64_t) ld (w + t) * ld (h + (size_t) t * a.row_samples);
  int64_t v = (acc + (int64_t (1) << (kVShift - 1))) >> kVShift;
  v = v < 0 ? 0 : v > kMax ? kMax : v;
  uint8_t *d = a.dst + (size_t) row * a.dst_pitch + (size_t) col * SB;
  d[0] = (uint8_t) v;
  if (SB == 2)
    d[1] = (uint8_t) (v >> 8);
}

template <int PB, int SB>
__global__ void __launch_bounds__ (kThreads)
horizontal_kernel (HorizontalArgs a)
{
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;

  if (col < a.row_samples && row < a.rows)
    horizontal_sample<PB, SB> (a, row, col);
}

template <int SB>
__global__ void __launch_bounds__ (kThreads)
vertical_kernel (VerticalArgs a)
{
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;

  if (col < a.row_samples && row < a.rows)
    vertical_sample<SB> (a, row, col);
}

/* kThreads per block, as wide as the row needs (32 .. kThreads) and as many
 * rows as fill the rest, so narrow pictures do not idle most threads. */
void
launch_shape (int row_samples, int rows, dim3 * grid, dim3 * block)
{
  unsigned int bx = 32;

  while (bx < kThreads && bx < (unsigned int) row_samples)
    bx *= 2;
  *block = dim3 (bx, kThreads / bx);
  *grid = dim3 ((row_samples + bx - 1) / bx,
      (rows + block->y - 1) / block->y);
}

size_t
align_up (size_t n)
{
  return (n + kAlign - 1) / kAlign * kAlign;
}

/* Bytes of plane @p's part of the workspace. */
size_t
plane_workspace_bytes (CfFormat format, int p, int in_height, int out_width)
{
  const CfPlaneLayout *l = &cf_format_info (format)->plane[p];

  return align_up ((size_t) cf_plane_height (format, p, in_height) *
      cf_plane_width (format, p, out_width) *
      (l->pixel_bytes / l->sample_bytes) * sizeof (int32_t));
}

/* Whether @plan is one cf_resize_plan_init () made. */
bool
plan_ok (const CfResizePlan * plan)
{
  const CfFormatInfo *info;

  if (!plan || !(info = cf_format_info (plan->format)))
    return false;
  for (int p = 0; p < info->n_planes; p++) {
    const CfResizeAxis *x = &plan->x[p], *y = &plan->y[p];

    if (!x->first || !x->weights || !y->first || !y->weights
        || x->in_size != cf_plane_width (plan->format, p, plan->in_width)
        || x->out_size != cf_plane_width (plan->format, p, plan->out_width)
        || y->in_size != cf_plane_height (plan->format, p, plan->in_height)
        || y->out_size != cf_plane_height (plan->format, p, plan->out_height))
      return false;
  }
  return true;
}

/* One plane: sizes, layout, tables in device memory, and where its
 * intermediate rows go in the workspace. */
struct PlaneTables {
  int in_width, in_height, out_width, out_height;
  int pixel_bytes, sample_bytes;
  Axis x, y;
  size_t workspace_offset;
};

}  // namespace

struct CfResizeDevicePlan {
  CfFormat format;
  int in_width, in_height, out_width, out_height;
  int n_planes;
  PlaneTables plane[CF_MAX_PLANES];
  void *d_tables;               /* one allocation for all the tables */
};

extern "C" size_t
cf_resize_workspace_bytes (const CfResizePlan * plan)
{
  size_t bytes = 0;

  if (!plan_ok (plan))
    return 0;
  for (int p = 0; p < cf_format_info (plan->format)->n_planes; p++)
    bytes += plane_workspace_bytes (plan->format, p, plan->in_height,
        plan->out_width);
  return bytes;
}

extern "C" void
cf_resize_device_plan_free (CfResizeDevicePlan * d_plan)
{
  if (!d_plan)
    return;
  cudaFree (d_plan->d_tables);
  free (d_plan);
}

extern "C" cudaError_t
cf_resize_device_plan_new (const CfResizePlan * plan,
    CfResizeDevicePlan ** d_plan)
{
  const CfResizeAxis *axes[CF_MAX_PLANES][2];
  size_t offset[CF_MAX_PLANES][2][2], total = 0, ws = 0;
  CfResizeDevicePlan *dp;
  uint8_t *host;
  cudaError_t err;

  if (!d_plan)
    return cudaErrorInvalidValue;
  *d_plan = NULL;
  if (!plan_ok (plan))
    return cudaErrorInvalidValue;
  if (!(dp = (CfResizeDevicePlan *) calloc (1, sizeof (*dp))))
    return cudaErrorMemoryAllocation;
  dp->format = plan->format;
  dp->in_width = plan->in_width;
  dp->in_height = plan->in_height;
  dp->out_width = plan->out_width;
  dp->out_height = plan->out_height;
  dp->n_planes = cf_format_info (plan->format)->n_planes;

  /* the layout of the tables: per plane and axis, first[] then weights[] */
  for (int p = 0; p < dp->n_planes; p++) {
    axes[p][0] = &plan->x[p];
    axes[p][1] = &plan->y[p];
    for (int a = 0; a < 2; a++) {
      offset[p][a][0] = total;
      total += align_up (sizeof (int32_t) * axes[p][a]->out_size);
      offset[p][a][1] = total;
      total += align_up (sizeof (int32_t) * axes[p][a]->out_size *
          axes[p][a]->taps);
    }
  }
  if (!(host = (uint8_t *) calloc (1, total))) {
    free (dp);
    return cudaErrorMemoryAllocation;
  }
  for (int p = 0; p < dp->n_planes; p++)
    for (int a = 0; a < 2; a++) {
      memcpy (host + offset[p][a][0], axes[p][a]->first,
          sizeof (int32_t) * axes[p][a]->out_size);
      memcpy (host + offset[p][a][1], axes[p][a]->weights,
          sizeof (int32_t) * axes[p][a]->out_size * axes[p][a]->taps);
    }

  /* an asynchronous copy from pageable memory may return before the data
   * has landed: wait for it, so that any stream may read the tables */
  err = cudaMalloc (&dp->d_tables, total);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync (dp->d_tables, host, total, cudaMemcpyHostToDevice,
        0);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize (0);
  free (host);
  if (err != cudaSuccess) {
    cf_resize_device_plan_free (dp);
    return err;
  }

  for (int p = 0; p < dp->n_planes; p++) {
    const CfPlaneLayout *l = &cf_format_info (plan->format)->plane[p];
    PlaneTables *t = &dp->plane[p];
    const uint8_t *base = (const uint8_t *) dp->d_tables;
    Axis *ax[2] = { &t->x, &t->y };

    t->in_width = plan->x[p].in_size;
    t->out_width = plan->x[p].out_size;
    t->in_height = plan->y[p].in_size;
    t->out_height = plan->y[p].out_size;
    t->pixel_bytes = l->pixel_bytes;
    t->sample_bytes = l->sample_bytes;
    for (int a = 0; a < 2; a++) {
      ax[a]->first = (const int32_t *) (base + offset[p][a][0]);
      ax[a]->weights = (const int32_t *) (base + offset[p][a][1]);
      ax[a]->taps = axes[p][a]->taps;
    }
    t->workspace_offset = ws;
    ws += plane_workspace_bytes (plan->format, p, plan->in_height,
        plan->out_width);
  }
  *d_plan = dp;
  return cudaSuccess;
}

namespace {

/* The arguments of plane @p's two launches. */
void
plane_args (const CfResizeDevicePlan * dp, int p, const CfImage * d_src,
    const CfImage * d_dst, void *d_workspace, HorizontalArgs * h,
    VerticalArgs * v)
{
  const PlaneTables *t = &dp->plane[p];
  int32_t *inter = (int32_t *) ((uint8_t *) d_workspace + t->workspace_offset);
  const int row_samples = t->out_width * (t->pixel_bytes / t->sample_bytes);

  h->src = (const uint8_t *) d_src->data[p];
  h->src_pitch = d_src->pitch[p];
  h->inter = inter;
  h->row_samples = row_samples;
  h->rows = t->in_height;
  h->x = t->x;
  v->inter = inter;
  v->row_samples = row_samples;
  v->rows = t->out_height;
  v->dst = (uint8_t *) d_dst->data[p];
  v->dst_pitch = d_dst->pitch[p];
  v->y = t->y;
}

template <int PB, int SB>
void
launch_horizontal (const HorizontalArgs & a, cudaStream_t stream)
{
  dim3 grid, block;

  launch_shape (a.row_samples, a.rows, &grid, &block);
  horizontal_kernel<PB, SB><<<grid, block, 0, stream>>> (a);
}

template <int SB>
void
launch_vertical (const VerticalArgs & a, cudaStream_t stream)
{
  dim3 grid, block;

  launch_shape (a.row_samples, a.rows, &grid, &block);
  vertical_kernel<SB><<<grid, block, 0, stream>>> (a);
}

}  // namespace

extern "C" cudaError_t
cf_resize_cuda (const CfResizeDevicePlan * d_plan, const CfImage * d_src,
    const CfImage * d_dst, void *d_workspace, cudaStream_t stream)
{
  if (!d_plan || !d_workspace || cf_image_check (d_src) != 0
      || cf_image_check (d_dst) != 0 || d_src->format != d_plan->format
      || d_dst->format != d_plan->format
      || d_src->width != d_plan->in_width
      || d_src->height != d_plan->in_height
      || d_dst->width != d_plan->out_width
      || d_dst->height != d_plan->out_height)
    return cudaErrorInvalidValue;

  for (int p = 0; p < d_plan->n_planes; p++) {
    const PlaneTables *t = &d_plan->plane[p];
    HorizontalArgs h;
    VerticalArgs v;
    cudaError_t err;

    plane_args (d_plan, p, d_src, d_dst, d_workspace, &h, &v);
    switch (t->pixel_bytes * 10 + t->sample_bytes) {
      case 11: launch_horizontal<1, 1> (h, stream); break;
      case 21: launch_horizontal<2, 1> (h, stream); break;
      case 22: launch_horizontal<2, 2> (h, stream); break;
      case 31: launch_horizontal<3, 1> (h, stream); break;
      case 41: launch_horizontal<4, 1> (h, stream); break;
      default: return cudaErrorInvalidValue;
    }
    if ((err = cudaGetLastError ()) != cudaSuccess)
      return err;
    if (t->sample_bytes == 2)
      launch_vertical<2> (v, stream);
    else
      launch_vertical<1> (v, stream);
    if ((err = cudaGetLastError ()) != cudaSuccess)
      return err;
  }
  return cudaSuccess;
}
