/* Per-channel statistics of a frame in one launch (see stats.h).
 *
 * Each thread reads 16-byte vectors of the frame in a grid-stride loop,
 * UNROLL vectors in flight before the first is used (fewer in a plane
 * smaller than a round of the grid, which are then spread over every
 * block), plane after plane; the block's first round is on its way into L2
 * (one bulk prefetch) while the block zeroes its histograms.
 * Every sample is counted into a shared-memory histogram that is private to
 * the warp lane: bin b of channel c for lane l lives at (c*256 + b)*32 + l,
 * so the 32 lanes of a warp always hit 32 different banks and never the same
 * address, even on a constant frame (the worst case for shared atomics with
 * one histogram per block or per warp). Warps of a block share these
 * per-lane copies through atomicAdd, which orders them.
 *
 * 8-bit samples need nothing but the histogram: min, max, count, sum and sum
 * of squares follow exactly from it. A 16-bit sample holds a value of 10 or
 * 16 bits ((sample >> lsb) & (2^bits - 1)), binned by its high 8 bits, so
 * its exact moments are kept besides: in registers per sample position of a
 * pixel (a vector starts on a pixel, 16 being a multiple of 2, 4 and 8, so
 * the k-th sample of every vector belongs to the same channel), reduced
 * with warp shuffles at the end of each plane into per-channel moments of
 * the block in shared memory, which each block adds to the workspace.
 *
 * Grid finish: each block folds its 32 lane copies into one histogram and
 * adds the non-zero bins (and its 16-bit moments) to the workspace in global
 * memory; the last block to finish (a ticket counter) derives the moments,
 * writes the CfStats result and clears the workspace for the next frame, so
 * a frame costs exactly one launch and no memset.
 */
#include "stats.h"

#include <cuda_runtime.h>

namespace {

constexpr int kThreads = CF_STATS_THREADS;
constexpr int kLanes = CF_STATS_LANE_COPIES;
constexpr int kWarps = kThreads / 32;
constexpr int kBins = CF_STATS_BINS;
constexpr int kUnroll = 4;
/* 16-bit planes: the moments of four channels leave room in 64 registers
 * (1024 threads) for two vectors in flight, not four */
constexpr int kUnroll16 = 2;
constexpr int kMaxDevices = 64;

static_assert (kLanes == 32, "one sub-histogram per warp lane");
static_assert (kThreads >= CF_MAX_CHANNELS * kBins, "one bin per thread in the finish");

/* What the blocks add up: the histogram, the exact moments of the 16-bit
 * channels (channel c at [c]), and the ticket of the grid finish. */
struct Workspace {
  unsigned int hist[CF_MAX_CHANNELS * kBins];
  unsigned int min16[CF_MAX_CHANNELS], max16[CF_MAX_CHANNELS];
  unsigned long long sum16[CF_MAX_CHANNELS], sum_sq16[CF_MAX_CHANNELS];
  unsigned int blocks_done;
};

struct PlaneArgs {
  const uint4 *data;
  size_t pitch_vecs;            /* pitch / 16 */
  unsigned int row_bytes;       /* bytes of samples per row */
  unsigned int vecs_per_row;    /* ceil (row_bytes / 16) */
  unsigned int rows;            /* 1 when the plane is dense (see below) */
  unsigned int n_vecs;
  int pixel_bytes;
  int sample_bytes;             /* 1, or 2: 16-bit samples */
  int chan[4];                  /* channel of each sample of a pixel */
  bool padded;                  /* some byte of a pixel is no sample (-1) */
};

struct FrameArgs {
  int n_planes;
  int n_channels;
  int value_bits, value_lsb;    /* of the value in a 16-bit sample */
  PlaneArgs plane[CF_MAX_PLANES];
};

/* One thread's moments of a sample position; lo > hi until a value is
 * seen. */
struct Moments16 {
  unsigned int lo, hi;
  unsigned long long sum, sum_sq;
};

/* A block's moments of each 16-bit channel, in shared memory. */
struct BlockMoments16 {
  unsigned int lo[CF_MAX_CHANNELS], hi[CF_MAX_CHANNELS];
  unsigned long long sum[CF_MAX_CHANNELS], sum_sq[CF_MAX_CHANNELS];
};

/* Shared-memory offset of lane @lane's sub-histogram of channel @c, or -1
 * for padding bytes. */
__device__ __forceinline__ int
lane_offset (int c, int lane)
{
  return c < 0 ? -1 : c * kBins * kLanes + lane;
}

/* For 8-bit planes: the byte offset of channel @c's histograms, a multiple
 * of 2^15 (count_plane () puts the lane's word, below bit 7, into it).
 * Padding bytes (the x of RGBx) are counted too, with no branch: as value
 * 0 into the lane's word past the histograms (@n_channels of them), which
 * nothing reads. @mask gets the byte's mask, shifted to a bin's place in a
 * byte offset (kLanes * 4 bytes a bin): 0xff << 7, or 0 for padding. */
__device__ __forceinline__ unsigned int
channel_bytes8 (int c, int n_channels, unsigned int *mask)
{
  static_assert (kLanes * 4 == 1 << 7 && kBins * kLanes * 4 == 1 << 15,
      "a bin's lanes are bits 2 .. 6 of the offset, the bin bits 7 .. 14");
  *mask = c < 0 ? 0u : 0xffu << 7;
  return (unsigned int) ((c < 0 ? n_channels : c) * kBins * kLanes * 4);
}

/* Vector @i of plane @p: its row, and its index @col within the row.
 * DENSE: p.rows == 1, the plane one row (no division). */
template <bool DENSE = false>
__device__ __forceinline__ const uint4 *
vector_at (const PlaneArgs & p, unsigned int i, unsigned int *col)
{
  const unsigned int row = DENSE || p.rows == 1 ? 0 : i / p.vecs_per_row;
  *col = i - row * p.vecs_per_row;
  return p.data + row * p.pitch_vecs + *col;
}

/* Vectors a thread reads a round of plane @p: UNROLL, or fewer where that
 * covers the plane in one round of the grid, so that a plane smaller than
 * a round is spread over every block (4K NV12's chroma: 2 a thread in 127
 * blocks, not 4 in 64). The same in every thread. */
template <int UNROLL>
__device__ __forceinline__ unsigned int
round_vectors (const PlaneArgs & p)
{
  const unsigned int threads = gridDim.x * kThreads;
  unsigned int per = 1;

  while (per < UNROLL && (unsigned long long) threads * per < p.n_vecs)
    per *= 2;
  return per;
}

/* Asks L2 for the vectors that this block reads in its first round of
 * plane @p (for_each_vector<UNROLL> ()): one bulk prefetch by thread 0, so
 * that they are on their way while the block zeroes its histograms. Left
 * out when the round's rows span more than twice a whole round's vectors
 * (planes with more padding than samples). */
template <int UNROLL>
__device__ __forceinline__ void
prefetch_first_round (const PlaneArgs & p)
{
  const unsigned int per = round_vectors<UNROLL> (p);
  const unsigned int first = blockIdx.x * kThreads * per;
  unsigned int col;

  if (threadIdx.x != 0 || first >= p.n_vecs)
    return;
  const uint4 *lo = vector_at (p, first, &col);
  const uint4 *hi = vector_at (p, min (p.n_vecs, first + kThreads * per)
      - 1, &col);
  const size_t bytes = (size_t) (hi - lo + 1) * sizeof (uint4);
  if (bytes <= 2 * kThreads * per * sizeof (uint4))
    asm volatile ("cp.async.bulk.prefetch.L2.global [%0], %1;"
        :: "l" (__cvta_generic_to_global (lo)), "r" ((unsigned int) bytes)
        : "memory");
}

/* Loads this thread's vectors of plane @p, round_vectors () in flight, and
 * hands each to @count (vector, its index within its row). A dense plane
 * (p.rows == 1) takes a loop of its own, without the division by the
 * row's vectors, which the compiler would otherwise issue (predicated) for
 * every vector. */
template <int UNROLL, bool DENSE, typename Count>
__device__ __forceinline__ void
for_each_vector_in (const PlaneArgs & p, Count count)
{
  const unsigned int per = round_vectors<UNROLL> (p);
  const unsigned int stride = gridDim.x * kThreads * per;
  for (unsigned int base = blockIdx.x * kThreads * per + threadIdx.x;
      base < p.n_vecs; base += stride) {
    uint4 v[UNROLL];
    unsigned int col[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      const unsigned int i = base + u * kThreads;
      const uint4 *at = vector_at<DENSE> (p, i, &col[u]);
      if (u < per && i < p.n_vecs)
        v[u] = __ldcs (at);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      if (u < per && base + u * kThreads < p.n_vecs)
        count (v[u], col[u]);
    }
  }
}

template <int UNROLL, typename Count>
__device__ __forceinline__ void
for_each_vector (const PlaneArgs & p, Count count)
{
  if (p.rows == 1)
    for_each_vector_in<UNROLL, true> (p, count);
  else
    for_each_vector_in<UNROLL, false> (p, count);
}

/* Counts the 8-bit samples of one vector into the histograms at @hist
 * (shared memory); @off[j] is this lane's word of bin 0 of the histograms
 * of the vector's j-th byte modulo the pixel size (a byte offset), @mask[j]
 * its mask (channel_bytes8 ()): a shift, an and-or that puts the bin into
 * the offset (the bin's bits, 7 .. 14, are 0 in it), and the atomic, a
 * byte. Without PAD (no padding byte in the pixel) the masks are all 0xff
 * << 7 and left out. Only the first @valid bytes are samples when TAIL. */
template <int PB, bool PAD, bool TAIL>
__device__ __forceinline__ void
count_bytes (uint8_t *hist, uint4 v, const unsigned int (&off)[4],
    const unsigned int (&mask)[4], int valid)
{
  const unsigned int w[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
  for (int k = 0; k < 16; k++) {
    if (TAIL && k >= valid)
      break;
    /* byte k % 4 of its word, shifted to bit 7: the bin times 128 */
    const int shift = 8 * (k % 4) - 7;
    const unsigned int x = shift < 0 ? w[k / 4] << -shift :
        w[k / 4] >> shift;
    const unsigned int at = (x & (PAD ? mask[k % PB] : 0xffu << 7)) |
        off[k % PB];
    atomicAdd ((unsigned int *) (hist + at), 1u);
  }
}

/* One vector of a plane of PB-byte pixels of 8-bit samples: how much of it
 * is a row's samples, and which channel each byte belongs to. */
template <int PB, bool PAD>
__device__ __forceinline__ void
count_vector (uint8_t *hist, const PlaneArgs & p, const unsigned int (&off)[4],
    const unsigned int (&mask)[4], unsigned int row_vec, uint4 v)
{
  const unsigned int start = row_vec * 16;
  unsigned int rot[4] = { off[0], off[1], off[2], off[3] };
  unsigned int rmask[4] = { mask[0], mask[1], mask[2], mask[3] };
  if (PB == 3) {
    /* 16 = 1 (mod 3): the vector starts at byte (row_vec mod 3) of a pixel */
    const int phase = row_vec % 3;
    const int j1 = phase == 2 ? 0 : phase + 1, j2 = phase == 0 ? 2 : phase - 1;
    rot[0] = off[phase];
    rot[1] = off[j1];
    rot[2] = off[j2];
    rmask[0] = mask[phase];
    rmask[1] = mask[j1];
    rmask[2] = mask[j2];
  }
  if (p.row_bytes - start >= 16)
    count_bytes<PB, PAD, false> (hist, v, rot, rmask, 16);
  else
    count_bytes<PB, PAD, true> (hist, v, rot, rmask, p.row_bytes - start);
}

template <int PB, bool PAD>
__device__ __forceinline__ void
count_plane (unsigned int *s_hist, const PlaneArgs & p, int n_channels,
    int lane)
{
  /* the channels' offsets with this lane's word in them */
  unsigned int off[4], mask[4];
#pragma unroll
  for (int j = 0; j < 4; j++)
    off[j] = channel_bytes8 (j < PB ? p.chan[j] : -1, n_channels, &mask[j])
        | 4 * lane;
  uint8_t *hist = (uint8_t *) s_hist;

  for_each_vector<kUnroll> (p, [&] (uint4 v, unsigned int row_vec) {
        count_vector<PB, PAD> (hist, p, off, mask, row_vec, v);
      });
}

/* Counts the 16-bit samples of one vector, SPP to a pixel: sample k is the
 * (k mod SPP)-th of its pixel, counted into @m[k mod SPP] and the
 * histogram at @off[k mod SPP] (-1: padding). Only the first @valid bytes
 * are samples when TAIL. */
template <int SPP, bool TAIL>
__device__ __forceinline__ void
count_words16 (unsigned int *s_hist, uint4 v, const int (&off)[SPP],
    int valid, const FrameArgs & a, Moments16 (&m)[SPP])
{
  const unsigned int w[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
  for (int k = 0; k < 8; k++) {
    const int j = k % SPP;
    if (TAIL && 2 * k >= valid)
      break;
    if (off[j] < 0)
      continue;
    const unsigned int s = (w[k / 2] >> (16 * (k % 2))) & 0xffffu;
    const unsigned int x = CF_SAMPLE_VALUE (s, a.value_bits, a.value_lsb);
    atomicAdd (&s_hist[off[j] + (x >> (a.value_bits - 8)) * kLanes], 1u);
    m[j].lo = min (m[j].lo, x);
    m[j].hi = max (m[j].hi, x);
    m[j].sum += x;
    m[j].sum_sq += (unsigned long long) x * x;
  }
}

__device__ __forceinline__ unsigned long long
warp_sum (unsigned long long x)
{
#pragma unroll
  for (int d = 16; d > 0; d /= 2)
    x += __shfl_xor_sync (0xffffffffu, x, d);
  return x;
}

__device__ __forceinline__ unsigned int
warp_min (unsigned int x)
{
#pragma unroll
  for (int d = 16; d > 0; d /= 2)
    x = min (x, __shfl_xor_sync (0xffffffffu, x, d));
  return x;
}

__device__ __forceinline__ unsigned int
warp_max (unsigned int x)
{
#pragma unroll
  for (int d = 16; d > 0; d /= 2)
    x = max (x, __shfl_xor_sync (0xffffffffu, x, d));
  return x;
}

/* A plane of 16-bit samples, SPP to a pixel. Every lane of the warp must
 * call it (the moments are reduced with shuffles); the warp's moments of
 * each sample position go to its channel's moments in @s_m16. */
template <int SPP>
__device__ __forceinline__ void
count_plane16 (unsigned int *s_hist, const PlaneArgs & p, const FrameArgs & a,
    int lane, BlockMoments16 & s_m16)
{
  int off[SPP];
  Moments16 m[SPP];
#pragma unroll
  for (int j = 0; j < SPP; j++) {
    off[j] = lane_offset (p.chan[j], lane);
    m[j] = { 0xffffffffu, 0, 0, 0 };
  }

  for_each_vector<kUnroll16> (p, [&] (uint4 v, unsigned int row_vec) {
        const int valid = min (16u, p.row_bytes - row_vec * 16);
        if (valid == 16)
          count_words16<SPP, false> (s_hist, v, off, valid, a, m);
        else
          count_words16<SPP, true> (s_hist, v, off, valid, a, m);
      });

#pragma unroll
  for (int j = 0; j < SPP; j++) {
    const int c = p.chan[j];
    const unsigned int lo = warp_min (m[j].lo), hi = warp_max (m[j].hi);
    const unsigned long long sum = warp_sum (m[j].sum),
        sum_sq = warp_sum (m[j].sum_sq);
    /* lo > hi: the warp saw no sample of this plane */
    if (lane == 0 && c >= 0 && lo <= hi) {
      atomicMin (&s_m16.lo[c], lo);
      atomicMax (&s_m16.hi[c], hi);
      atomicAdd (&s_m16.sum[c], sum);
      atomicAdd (&s_m16.sum_sq[c], sum_sq);
    }
  }
}

/* DEEP: the frame's samples are 16-bit (every plane's). Frames of 8-bit
 * samples run a kernel of their own, whose registers no 16-bit code
 * competes for. */
template <bool DEEP>
__global__ void __launch_bounds__ (kThreads, 1)
stats_kernel (FrameArgs a, Workspace * ws, CfStats * result)
{
  extern __shared__ uint4 s_raw[];
  unsigned int *s_hist = reinterpret_cast<unsigned int *>(s_raw);
  __shared__ unsigned long long s_part[3][kWarps];
  __shared__ unsigned int s_lo[kWarps], s_hi[kWarps];
  __shared__ BlockMoments16 s_m16;
  __shared__ bool s_last;
  const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  const int hist_words = a.n_channels * kBins * kLanes;
  const int t = threadIdx.x;

  if (a.n_planes > 0)
    prefetch_first_round<(DEEP ? kUnroll16 : kUnroll)> (a.plane[0]);
  for (int i = threadIdx.x; i < hist_words / 4; i += kThreads)
    s_raw[i] = make_uint4 (0, 0, 0, 0);
  if (DEEP && t < CF_MAX_CHANNELS) {
    s_m16.lo[t] = 0xffffffffu;
    s_m16.hi[t] = 0;
    s_m16.sum[t] = s_m16.sum_sq[t] = 0;
  }
  __syncthreads ();

  for (int p = 0; p < a.n_planes; p++) {
    const PlaneArgs & pl = a.plane[p];
    if constexpr (DEEP) {
      switch (pl.pixel_bytes) {
        case 2: count_plane16<1> (s_hist, pl, a, lane, s_m16); break;
        case 4: count_plane16<2> (s_hist, pl, a, lane, s_m16); break;
        default: count_plane16<4> (s_hist, pl, a, lane, s_m16); break;
      }
    } else {
      switch (pl.pixel_bytes) {
        case 1: count_plane<1, false> (s_hist, pl, a.n_channels, lane); break;
        case 2: count_plane<2, false> (s_hist, pl, a.n_channels, lane); break;
        case 3: count_plane<3, false> (s_hist, pl, a.n_channels, lane); break;
        default:
          if (pl.padded)
            count_plane<4, true> (s_hist, pl, a.n_channels, lane);
          else
            count_plane<4, false> (s_hist, pl, a.n_channels, lane);
          break;
      }
    }
  }
  __syncthreads ();

  /* fold the lane copies of bin t, 16 bytes a load, rotated so that the
   * eight threads of each quarter of a warp read 8 different 16-byte
   * columns: all 32 banks */
  if (t < a.n_channels * kBins) {
    const uint4 *copies = s_raw + t * (kLanes / 4);
    unsigned int total = 0;
#pragma unroll
    for (int k = 0; k < kLanes / 4; k++) {
      const uint4 v = copies[(k + t) & (kLanes / 4 - 1)];
      total += v.x + v.y + v.z + v.w;
    }
    if (total)
      atomicAdd (&ws->hist[t], total);
  }
  /* lo > hi: the block saw no sample of the channel */
  if (DEEP && t < a.n_channels && s_m16.lo[t] <= s_m16.hi[t]) {
    atomicMin (&ws->min16[t], s_m16.lo[t]);
    atomicMax (&ws->max16[t], s_m16.hi[t]);
    atomicAdd (&ws->sum16[t], s_m16.sum[t]);
    atomicAdd (&ws->sum_sq16[t], s_m16.sum_sq[t]);
  }

  /* the barrier orders the block's additions before thread 0's fence,
   * which orders them (cumulatively) before its ticket: one fence a block,
   * not one a thread */
  __syncthreads ();
  if (threadIdx.x == 0) {
    __threadfence ();
    s_last = atomicAdd (&ws->blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads ();
  if (!s_last)
    return;
  __threadfence ();

  /* last block: thread t owns bin t of channel t / 256 (all 4 channels, so
   * unused ones are written as zeros) */
  const int c = t / kBins, b = t % kBins;
  unsigned int h = 0;
  if (c < a.n_channels) {
    h = __ldcg (&ws->hist[t]);
    ws->hist[t] = 0;
  }
  result->histogram[c][b] = h;
  unsigned long long n = h, sum = (unsigned long long) h * b,
      sum_sq = (unsigned long long) h * b * b;
  unsigned int lo = h ? b : 0xffffffffu, hi = h ? b : 0;
  n = warp_sum (n);
  sum = warp_sum (sum);
  sum_sq = warp_sum (sum_sq);
  lo = warp_min (lo);
  hi = warp_max (hi);
  if (lane == 0) {
    s_part[0][warp] = n;
    s_part[1][warp] = sum;
    s_part[2][warp] = sum_sq;
    s_lo[warp] = lo;
    s_hi[warp] = hi;
  }
  __syncthreads ();
  /* warps per channel: kBins / 32 = 8; thread ch (< 4) totals its channel */
  if (t < CF_MAX_CHANNELS) {
    const int w0 = t * (kBins / 32);
    n = sum = sum_sq = 0;
    lo = 0xffffffffu;
    hi = 0;
    for (int w = w0; w < w0 + kBins / 32; w++) {
      n += s_part[0][w];
      sum += s_part[1][w];
      sum_sq += s_part[2][w];
      lo = min (lo, s_lo[w]);
      hi = max (hi, s_hi[w]);
    }
    if (DEEP && t < a.n_channels) {
      /* the histogram has the count; the rest is the exact moments */
      lo = __ldcg (&ws->min16[t]);
      hi = __ldcg (&ws->max16[t]);
      sum = __ldcg (&ws->sum16[t]);
      sum_sq = __ldcg (&ws->sum_sq16[t]);
      ws->min16[t] = 0xffffffffu;
      ws->max16[t] = 0;
      ws->sum16[t] = ws->sum_sq16[t] = 0;
    }
    result->count[t] = n;
    result->sum[t] = sum;
    result->sum_sq[t] = sum_sq;
    result->min[t] = n ? lo : 0;
    result->max[t] = n ? hi : 0;
    if (t == 0) {
      result->n_channels = a.n_channels;
      result->reserved = 0;
      ws->blocks_done = 0;
    }
  }
}

__global__ void
workspace_init_kernel (Workspace * ws)
{
  for (int i = threadIdx.x; i < CF_MAX_CHANNELS * kBins; i += blockDim.x)
    ws->hist[i] = 0;
  if (threadIdx.x < CF_MAX_CHANNELS) {
    ws->min16[threadIdx.x] = 0xffffffffu;
    ws->max16[threadIdx.x] = 0;
    ws->sum16[threadIdx.x] = ws->sum_sq16[threadIdx.x] = 0;
  }
  if (threadIdx.x == 0)
    ws->blocks_done = 0;
}

/* One CfStats, a 32-bit word per thread (see cf_stats_copy_cuda ()). */
__global__ void
copy_kernel (unsigned int *dst, const unsigned int *src)
{
  for (unsigned int i = threadIdx.x; i < sizeof (CfStats) / 4; i += blockDim.x)
    dst[i] = src[i];
}

static_assert (sizeof (CfStats) % 4 == 0 && alignof (CfStats) >= 4,
    "a CfStats is whole aligned words");

/* per device: multiprocessor count (a benign race: every writer writes the
 * same) */
int sm_count[kMaxDevices];

}  // namespace

extern "C" size_t
cf_stats_workspace_bytes (void)
{
  return sizeof (Workspace);
}

extern "C" cudaError_t
cf_stats_workspace_init (void *d_workspace, cudaStream_t stream)
{
  if (!d_workspace)
    return cudaErrorInvalidValue;
  workspace_init_kernel<<<1, 256, 0, stream>>> ((Workspace *) d_workspace);
  return cudaGetLastError ();
}

extern "C" cudaError_t
cf_stats_cuda (const CfImage * d_image, void *d_workspace, CfStats * d_result,
    cudaStream_t stream)
{
  const CfFormatInfo *info;
  FrameArgs a = {};
  unsigned long long total_vecs = 0;
  cudaError_t err;
  int dev;

  if (cf_image_check_planar (d_image) != 0 || !d_workspace || !d_result)
    return cudaErrorInvalidValue;
  info = cf_format_info (d_image->format);
  a.n_planes = info->n_planes;
  a.n_channels = info->n_channels;
  a.value_bits = info->bits;
  a.value_lsb = info->lsb;
  for (int p = 0; p < info->n_planes; p++) {
    const CfPlaneLayout *l = &info->plane[p];
    PlaneArgs *pa = &a.plane[p];
    const size_t row_bytes = cf_plane_row_bytes (d_image->format, p, d_image->width);
    const size_t rows = cf_plane_height (d_image->format, p, d_image->height);
    const size_t pitch = d_image->pitch[p];

    if (((uintptr_t) d_image->data[p] & 15) || (pitch & 15))
      return cudaErrorInvalidValue;
    /* one kernel per sample size (depth): a format mixing them has no
     * kernel */
    if (l->sample_bytes != info->depth / 8)
      return cudaErrorInvalidValue;
    pa->data = (const uint4 *) d_image->data[p];
    pa->pixel_bytes = l->pixel_bytes;
    pa->sample_bytes = l->sample_bytes;
    for (int j = 0; j < 4; j++) {
      pa->chan[j] = j < l->pixel_bytes / l->sample_bytes ? l->channel[j] : -1;
      pa->padded |= j < l->pixel_bytes / l->sample_bytes && pa->chan[j] < 0;
    }
    pa->pitch_vecs = pitch / 16;
    if (pitch == row_bytes && (l->pixel_bytes != 3 || row_bytes % 3 == 0)
        && row_bytes * rows <= UINT32_MAX) {
      /* rows back to back: one long row, no per-vector division (a
       * 32767^2 frame of 8-byte pixels would not fit row_bytes) */
      pa->row_bytes = (unsigned int) (row_bytes * rows);
      pa->rows = 1;
    } else {
      pa->row_bytes = (unsigned int) row_bytes;
      pa->rows = (unsigned int) rows;
    }
    pa->vecs_per_row = (pa->row_bytes + 15) / 16;
    pa->n_vecs = pa->vecs_per_row * pa->rows;
    total_vecs += pa->n_vecs;
  }

  if ((err = cudaGetDevice (&dev)) != cudaSuccess)
    return err;
  if (dev < 0 || dev >= kMaxDevices)
    return cudaErrorInvalidDevice;
  if (!sm_count[dev]) {
    err = cudaDeviceGetAttribute (&sm_count[dev],
        cudaDevAttrMultiProcessorCount, dev);
    if (err != cudaSuccess)
      return err;
  }
  /* the histograms, and the padding bytes' word per lane (channel_bytes8 ()) */
  const size_t smem = ((size_t) a.n_channels * kBins + 1) * kLanes *
      sizeof (unsigned int);
  /* above 48 KiB of shared memory a kernel must opt in, once per CUDA
   * context (a module is loaded into each): asked at every launch, since
   * the caller's context may be another one each time (a host-side call) */
  void (*const kernel) (FrameArgs, Workspace *, CfStats *) =
      info->depth == 16 ? stats_kernel<true> : stats_kernel<false>;
  err = cudaFuncSetAttribute (kernel,
      cudaFuncAttributeMaxDynamicSharedMemorySize,
      (CF_MAX_CHANNELS * kBins + 1) * kLanes * sizeof (unsigned int));
  if (err != cudaSuccess)
    return err;
  const unsigned long long per_block = (unsigned long long) kThreads * kUnroll;
  unsigned int grid = (unsigned int) ((total_vecs + per_block - 1) / per_block);
  grid = grid < 1 ? 1 : grid > (unsigned) sm_count[dev] ? sm_count[dev] : grid;

  kernel<<<grid, kThreads, smem, stream>>> (a, (Workspace *) d_workspace,
      d_result);
  return cudaGetLastError ();
}

extern "C" cudaError_t
cf_stats_copy_cuda (CfStats * dst, const CfStats * src, cudaStream_t stream)
{
  if (!dst || !src || ((uintptr_t) dst | (uintptr_t) src) % alignof (CfStats))
    return cudaErrorInvalidValue;
  copy_kernel<<<1, 256, 0, stream>>> ((unsigned int *) dst,
      (const unsigned int *) src);
  return cudaGetLastError ();
}
