/* 1D stencils on the GPU (see stencil.h): one fused launch per plane.
 *
 * Each block makes an output tile of kTileRows rows by about kTileSamples
 * samples (a whole number of pixels) and keeps everything in between in
 * shared memory:
 *
 * 0. load_weights (): the weights, and where each output row starts modulo
 *    16.
 * 1. stage_row_info (), then stage_rows (): the input rows the tile needs,
 *    kTileRows + 2 radius_y of them, kChunkRows at a time, each extended by
 *    radius_x pixels on both sides, rows and columns mapped through the
 *    border (worked out once per row). Each shared row starts at the same
 *    address modulo 16 as its global row, so vector copies are aligned
 *    whatever the pitch and plane pointer. Rows of tiles away from the
 *    left and right edges are copied as whole 16-byte vectors, several rows
 *    per warp, asynchronously (cp.async: the whole chunk in flight at once);
 *    the others vector by vector with the few bytes at their ends, the
 *    border and the constant rows byte by byte.
 * 2. rows_pass (): the horizontal correlation of each staged row (BOTH: the
 *    int32 intermediate with CF_STENCIL_INTER_BITS fraction bits;
 *    HORIZONTAL: the final samples; VERTICAL: the samples as they are) into
 *    the int32 tile s_inter, kTileRows + 2 radius_y rows of the tile's width.
 * 3. columns_pass (): the vertical correlation of s_inter (or nothing for
 *    HORIZONTAL), rounded and saturated, into the byte tile s_out.
 * 4. store_tile (): s_out to the output rows, 16-byte aligned vectors again
 *    (whole rows several to a warp where rows start and end on 16 bytes),
 *    bytes at the ends; nothing beyond the picture or a row's samples.
 *
 * In both passes a thread makes kM outputs along the axis from a window of
 * kM + taps - 1 inputs in registers (correlate ()): kM new loads and kM
 * weights per kM x kM multiply-adds, so shared-memory traffic stays well
 * below the arithmetic. Radii up to 8 run kernels compiled for radius 1,
 * 2, 4 or 8 with the taps unrolled (shorter taps centred among zero
 * weights, which add exact zeros); longer ones loop over the taps. The
 * weights are copied to shared memory once per block (a broadcast read).
 * The arithmetic is cf_stencil_cpu ()'s and every
 * sum is exact: int32 where stencil.h's bounds allow it (8-bit rows and
 * single-axis sums; the columns of BOTH when the plan's weights bound them
 * below 2^31), int64 otherwise, so the bytes agree.
 *
 * Samples become values (stencil.h) where they leave the staged rows
 * (value_at ()) and go back into samples where they enter s_out
 * (put_value ()): everything in between, s_inter included, is values, and
 * the staged bytes hold CONSTANT's border as samples (value << lsb). 8-bit
 * kernels keep 255 and no shifts at compile time; the 16-bit ones take the
 * mask, shift and maximum of 10- and 16-bit values from Args.
 *
 * The phases are __host__ __device__ functions of the thread index, so the
 * indexing can be checked on the host against the C reference by calling
 * each phase for every thread of every block in turn.
 *
 * Costs: the tile reads its 2 radius_y halo rows and 2 radius_x halo pixels
 * again from L2 (HBM traffic stays about one read and one write of the
 * frame), and the halo rows go through the horizontal pass again:
 * (kTileRows + 2 radius_y) / kTileRows of the horizontal arithmetic. The
 * kernel is bound by instruction issue, not memory: one int32 multiply-add
 * per tap, sample and axis (the FMA pipe issues 64 per clock and SM, half
 * the FP32 rate), plus some 50 instructions per sample of loads, rounding
 * and stores. Measured on an H200 (bench-stencil, docs/PERFORMANCE.md),
 * BOTH on 4K RGBA takes 88 us at radius 1 and 155 us at radius 8, where the
 * 1.1e9 multiply-adds alone need 67 us; a copy of the frame takes 20 us.
 * BOTH on 8-bit samples at radius 1 .. 8 therefore runs on the integer
 * tensor cores (stencil_mma_kernel () below, 1.1x to 3.4x faster, and
 * stencil_mma_frame_kernel (): every plane of a YUV frame in one launch),
 * which reuses phase 1; at 9 .. 64 on the tensor cores in two launches
 * through a workspace (stencil_rows_mma_kernel () and
 * stencil_columns_mma_kernel (), 2.6x to 11x faster); and at radius 1
 * with taps the tensor cores cannot split in registers without the tile
 * (stencil_window_kernel (), about 1.4x faster; docs/PERFORMANCE.md), which
 * also takes radius-1 blurs of planes of 4-byte pixels, with the rows'
 * sums in dp2a (4K RGBA 23.5 us against the tensor cores' 42.7, 640x480
 * 6.7 against 12.0 on an H200; win_dot_wins ()).
 */
#include "stencil.h"
#include "cuda-common.cuh"

#include <cuda_runtime.h>
#include <cuda_pipeline.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>

namespace {

constexpr int kThreads = 256;
constexpr int kTileRows = 64;
constexpr int kTileSamples = 128;       /* about: a whole number of pixels */
constexpr int kM = 8;                   /* outputs per thread and pass */
constexpr int kChunkRows = 32;          /* input rows staged at once */
constexpr int kInterShift = CF_STENCIL_INTER_BITS;
static_assert (kTileRows % kM == 0, "whole groups of rows");

/* The phases are compiled for the host too, where the pragma is unknown. */
#ifdef __CUDA_ARCH__
#define UNROLL _Pragma ("unroll")
#else
#define UNROLL
#endif

__host__ __device__ __forceinline__ int
imin (int a, int b)
{
  return a < b ? a : b;
}

__host__ __device__ __forceinline__ int
imax (int a, int b)
{
  return a > b ? a : b;
}

__host__ __device__ __forceinline__ int
round16 (int n)
{
  return (n + 15) & ~15;
}

/* cf_stencil_border_index (), for the device */
__host__ __device__ __forceinline__ int
border_index (int border, int i, int n)
{
  if (i >= 0 && i < n)
    return i;
  if (border == CF_STENCIL_CLAMP)
    return i < 0 ? 0 : n - 1;
  if (border == CF_STENCIL_MIRROR) {
    if (n == 1)
      return 0;
    const int period = 2 * (n - 1);
    int m = i % period;
    m = m < 0 ? m + period : m;
    return m < n ? m : period - m;
  }
  if (border == CF_STENCIL_WRAP) {
    const int m = i % n;
    return m < 0 ? m + n : m;
  }
  return -1;
}

/* The tensor-core kernels' taps as bytes: axis x then y, low bytes then
 * high, tap t of the band at byte kWPad + t of its kWRow, zeros around
 * (mma_weight_bytes ()). */
constexpr int kMmaR = 8;                /* the band's radius: 2 kMmaR + 1 taps */
constexpr int kMmaMinR = 1;             /* the smallest radius it takes */
constexpr int kWinR = 1;                /* the sliding window's radius */
constexpr int kWPad = 16;
constexpr int kLongTiles = 5;           /* k tiles of the two-pass kernels'
                                         * band: 2 r + 1 <= 32 x 5 - 15 */
constexpr int kWRow = kWPad + 32 * kLongTiles + 16;
constexpr int kWBytesWords = 4 * kWRow / 4;

/* Everything a launch needs; the weights travel with it (kernel arguments
 * live in constant memory). */
struct Args {
  const uint8_t *src;
  size_t src_pitch;
  uint8_t *dst;
  size_t dst_pitch;
  int width, height;            /* of the plane, in pixels */
  int rx, ry;                   /* radii applied: 0 on an axis left alone */
  int border;
  int bits;                     /* B */
  int lsb;                      /* of the value in a 16-bit sample */
  int32_t max;                  /* of a value: its mask, 2^bits - 1 */
  unsigned int skip;            /* bit k: sample k copied */
  int32_t border_sample[CF_MAX_CHANNELS];       /* as samples: value << lsb */
  int32_t wx[CF_STENCIL_MAX_TAPS], wy[CF_STENCIL_MAX_TAPS];
  /* the tensor-core kernel's weights as bytes (mma_weight_bytes ()) */
  uint32_t wbytes[kWBytesWords];
  /* the sliding-window kernel's: per axis (x, y) and channel of a pixel,
   * 2 kWinR + 1 taps (win_weights ()); and its output rows per block */
  int32_t wk[2][4][2 * kWinR + 1];
  /* its dot-product form (kWinDot, win_weights ()): per channel, the rows'
   * taps as the four int16 pairs win_sums_dot () takes, and the columns'
   * taps times 4 */
  uint32_t wpair[4][4];
  int32_t wy4[4][2 * kWinR + 1];
  int strip;
  /* the two-pass tensor-core kernels' workspace: h's low and high byte
   * planes, each h_rows rows in quads (long_layout ()); and the k tiles of
   * each axis's band */
  uint8_t *h;
  size_t h_pitch, h_plane;
  int h_rows;
  int k_tiles_x, k_tiles_y;
};

/* The constants of a kernel for PB-byte pixels of SB-byte samples. */
template <int PB, int SB>
struct Shape {
  static constexpr int kSpp = PB / SB;  /* samples per pixel */
  static constexpr int kTilePixels = kTileSamples / kSpp / kM * kM;
  static constexpr int kTileWidth = kTilePixels * kSpp;        /* samples */
  /* s_inter's rows: sample j of a row at inter_pos (j), 4 words skipped
   * after every 32, and rows 16 banks apart, so that the rows pass's
   * stores (threads kM pixels apart, two rows per warp) and the columns
   * pass's loads (consecutive samples) meet no bank conflicts */
  static constexpr int kInterStride =
      (kTileWidth + kTileWidth / 32 * 4 - 16 + 31) / 32 * 32 + 16;
};

/* Staged row @i of the tile: input row y0 - ry + i through the border. */
struct Row {
  const uint8_t *src;           /* NULL: a CONSTANT row outside the picture */
  int shift;                    /* where byte 0 sits in its shared row */
  int v_lo, v_hi;               /* bytes copied as aligned 16-byte vectors */
  int n_whole;                  /* > 0: the row is copied as this many whole
                                 * aligned vectors from byte -shift on, all
                                 * inside the picture row (no border, no
                                 * single bytes); 0: by v_lo, v_hi */
  const uint8_t *whole;         /* n_whole > 0: the first of them */
};

/* Where each part lives in dynamic shared memory (byte offsets, each 16
 * aligned). */
struct Shared {
  int weights;                  /* int32 wx[MAX_TAPS], wy[MAX_TAPS] */
  int rows;                     /* Row [kChunkRows]: the staged rows */
  int out_shifts;               /* int32 [out rows]: out_shift () per row */
  int in, in_stride;            /* kChunkRows staged input rows */
  int inter;                    /* int32 [kTileRows + 2 ry][kInterStride] */
  int out, out_stride;          /* the output rows (kTileRows unless told) */
  int bytes;
};

/* The parts in order: @weights bytes of weights, staged rows of @in_row
 * bytes (@in_mod >= 0: their stride that modulo 128), @inter bytes of
 * intermediate, @out_rows output rows of @out_row bytes. */
__host__ __device__ __forceinline__ Shared
layout_of (int weights, int in_row, int in_mod, int inter, int out_row,
    int out_rows = kTileRows, int staged = kChunkRows, bool out_on_in = false)
{
  Shared s;

  s.weights = 0;
  s.rows = round16 (weights);
  s.out_shifts = s.rows + round16 (staged * (int) sizeof (Row));
  s.in = s.out_shifts + round16 (out_rows * 4);
  /* 15 more bytes: a row starts at its global address modulo 16 */
  s.in_stride = round16 (in_row + 15);
  while (in_mod >= 0 && s.in_stride % 128 != in_mod)
    s.in_stride += 16;
  s.inter = s.in + staged * s.in_stride;
  s.out_stride = round16 (out_row + 15);
  s.out = out_on_in ? s.in : s.inter + inter;
  s.bytes = imax (s.inter + inter, s.out + out_rows * s.out_stride);
  return s;
}

template <int PB, int SB>
__host__ __device__ __forceinline__ Shared
shared_layout (int rx, int ry)
{
  typedef Shape<PB, SB> S;

  return layout_of (2 * CF_STENCIL_MAX_TAPS * 4, (S::kTilePixels + 2 * rx) *
      PB, -1, (kTileRows + 2 * ry) * S::kInterStride * 4,
      S::kTileWidth * SB);
}

/* The block's tile, and the byte ranges of its staged rows. */
struct Tile {
  int x0, y0;                   /* first output pixel and row */
  int rows;                     /* staged rows: kTileRows + 2 ry */
  int seg;                      /* bytes of a staged row: pixels x0 - rx .. */
  int b_lo, b_hi;               /* its bytes inside the picture */
  int out_rows, out_bytes;      /* of the output rows, inside the picture */
  int in_lg;                    /* 2^in_lg >= whole vectors of a staged row */
  int out_lg;                   /* 2^out_lg >= vectors of an output row */
};

/* The smallest lg with 2^lg >= @n. */
__host__ __device__ constexpr int
lg_at_least (int n)
{
  int lg = 0;

  while ((1 << lg) < n)
    lg++;
  return lg;
}

template <int PB, int SB, int TP = Shape<PB, SB>::kTilePixels>
__host__ __device__ __forceinline__ Tile
tile_of (const Args & a, int bx, int by)
{
  Tile t;

  t.x0 = bx * TP;
  t.y0 = by * kTileRows;
  t.rows = kTileRows + 2 * a.ry;
  t.seg = (TP + 2 * a.rx) * PB;
  /* staged pixel i is picture pixel x0 - rx + i */
  t.b_lo = imax (0, a.rx - t.x0) * PB;
  t.b_hi = imin (TP + 2 * a.rx, a.width - t.x0 + a.rx) * PB;
  t.out_rows = imin (kTileRows, a.height - t.y0);
  t.out_bytes = imin (TP, a.width - t.x0) * PB;
  t.in_lg = lg_at_least ((15 + t.seg + 15) / 16);
  t.out_lg = lg_at_least ((TP * PB + 15) / 16);
  return t;
}


template <int PB>
__host__ __device__ __forceinline__ Row
row_of (const Args & a, const Tile & t, int i)
{
  const int sy = border_index (a.border, t.y0 - a.ry + i, a.height);
  Row r;

  r.n_whole = 0;
  r.whole = NULL;
  if (sy < 0) {
    /* where the picture's row 0 would put it: on a plane and pitch
     * aligned to 16 bytes every staged row then has the same shift
     * (rows_pass_mma () takes it once) */
    r.src = NULL;
    r.shift = (int) (((uintptr_t) a.src + (uintptr_t) (intptr_t)
            ((t.x0 - a.rx) * PB)) & 15);
    r.v_lo = imin ((16 - r.shift) & 15, t.seg);
    r.v_hi = r.v_lo + ((t.seg - r.v_lo) & ~15);
    return r;
  }
  r.src = a.src + (size_t) sy * a.src_pitch;
  /* byte 0 is pixel x0 - rx, maybe left of the row: only its address
   * modulo 16 is used */
  const uintptr_t base = (uintptr_t) r.src + (uintptr_t) (intptr_t)
      ((t.x0 - a.rx) * PB);
  r.shift = (int) (base & 15);
  r.v_lo = imin (t.b_lo + (int) ((16 - ((base + t.b_lo) & 15)) & 15),
      t.b_hi);
  r.v_hi = r.v_lo + ((t.b_hi - r.v_lo) & ~15);
  /* a tile away from the left and right edges reads whole vectors when the
   * bytes they add at both ends still lie in the row */
  const int n = (r.shift + t.seg + 15) / 16;
  if (t.b_lo == 0 && t.b_hi == t.seg && base - r.shift >= (uintptr_t) r.src
      && base - r.shift + 16 * n <= (uintptr_t) r.src + (size_t) a.width * PB) {
    r.n_whole = n;
    r.whole = r.src + ((t.x0 - a.rx) * PB - r.shift);
  }
  return r;
}

/* Byte @b of staged row @r: a picture byte, or the border's. */
template <int PB, int SB>
__host__ __device__ __forceinline__ uint8_t
staged_byte (const Args & a, const Tile & t, const Row & r, int b)
{
  const int bp = b % PB;
  const int sx = r.src ? border_index (a.border, t.x0 - a.rx + b / PB,
      a.width) : -1;

  if (sx < 0)
    return (uint8_t) (a.border_sample[bp / SB] >> (8 * (bp % SB)));
  return ld (r.src + (size_t) sx * PB + bp);
}

/* Offset of output row @r of the tile in its shared row: its global
 * address modulo 16. */
template <int PB>
__host__ __device__ __forceinline__ int
out_shift (const Args & a, const Tile & t, int r)
{
  return (int) (((uintptr_t) a.dst + (size_t) (t.y0 + r) * a.dst_pitch +
          (size_t) t.x0 * PB) & 15);
}

/* Phase 0: the weights, and where each output row sits in its shared row,
 * into shared memory. */
template <int PB>
__host__ __device__ __forceinline__ void
load_weights (const Args & a, const Tile & t, const Shared & sh,
    uint8_t * smem, int tid)
{
  int32_t *s_w = (int32_t *) (smem + sh.weights);
  int32_t *s_oshift = (int32_t *) (smem + sh.out_shifts);

  for (int r = tid; r < kTileRows; r += kThreads)
    s_oshift[r] = out_shift<PB> (a, t, r);

  for (int i = tid; i < CF_STENCIL_MAX_TAPS; i += kThreads) {
    s_w[i] = a.wx[i];
    s_w[CF_STENCIL_MAX_TAPS + i] = a.wy[i];
  }
}

/* Phase 1a: where staged rows c0 .. c0 + @rows - 1 of the tile come
 * from, once per row for phase 1b, into shared rows 0 .. @rows - 1 (the
 * thread of index @tid, if below @rows, takes row @tid). Returns whether
 * this thread's row is not copied as whole vectors (for the barrier after
 * it, which tells phase 1b whether any row is). */
template <int PB>
__host__ __device__ __forceinline__ bool
stage_row_info (const Args & a, const Tile & t, const Shared & sh,
    uint8_t * smem, int c0, int rows, int tid)
{
  Row *s_rows = (Row *) (smem + sh.rows);
  bool partial = false;

  if (tid < rows) {
    s_rows[tid] = row_of<PB> (a, t, c0 + tid);
    partial = s_rows[tid].n_whole == 0;
  }
  return partial;
}

/* Phase 1b: the staged rows @first .. @end - 1 of shared memory (their
 * Row from stage_row_info ()); @partial: some of them are not copied as
 * whole vectors. The copies are one cp.async group, waited for unless
 * @wait is false. */
template <int PB, int SB, int NT = kThreads>
__host__ __device__ __forceinline__ void
stage_rows (const Args & a, const Tile & t, const Shared & sh,
    uint8_t * smem, int first, int end, int tid, bool partial,
    bool wait = true)
{
  const Row *s_rows = (const Row *) (smem + sh.rows);

  /* rows of whole vectors: 2^lg threads per row, rows side by side */
  for (int i0 = first; i0 < end; i0 += NT >> t.in_lg) {
    const int i = i0 + (tid >> t.in_lg), v = tid & ((1 << t.in_lg) - 1);

    if (i < end && v < s_rows[i].n_whole) {
      uint8_t *s_vec = smem + sh.in + i * sh.in_stride + 16 * v;
      const uint8_t *g = s_rows[i].whole + 16 * v;
#ifdef __CUDA_ARCH__
      /* asynchronous: every copy of the chunk in flight at once */
      __pipeline_memcpy_async (s_vec, g, 16);
#else
      *(uint4 *) s_vec = *(const uint4 *) g;
#endif
    }
  }

  /* the others, a warp per row: its aligned vectors, then the other bytes,
   * [0, v_lo) and [v_hi, seg) */
  for (int i = first + tid / 32; partial && i < end; i += NT / 32) {
    const Row r = s_rows[i];
    uint8_t *s_row = smem + sh.in + i * sh.in_stride + r.shift;
    const int n_single = r.v_lo + t.seg - r.v_hi;

    if (r.n_whole)
      continue;
    for (int b = r.v_lo + 16 * (tid % 32); b + 16 <= r.v_hi; b += 16 * 32) {
      if (r.src) {
        const uint8_t *g = r.src + ((t.x0 - a.rx) * PB + b);
#ifdef __CUDA_ARCH__
        __pipeline_memcpy_async (s_row + b, g, 16);
#else
        *(uint4 *) (s_row + b) = *(const uint4 *) g;
#endif
      } else {
        union {
          uint4 v;
          uint8_t b[16];
        } u;
        for (int j = 0; j < 16; j++)
          u.b[j] = staged_byte<PB, SB> (a, t, r, b + j);
        *(uint4 *) (s_row + b) = u.v;
      }
    }
    for (int s = tid % 32; s < n_single; s += 32) {
      const int b = s < r.v_lo ? s : r.v_hi + (s - r.v_lo);
      s_row[b] = staged_byte<PB, SB> (a, t, r, b);
    }
  }
#ifdef __CUDA_ARCH__
  __pipeline_commit ();
  if (wait)
    __pipeline_wait_prior (0);
#endif
}

/* An aligned vector of BYTES (4, 8 or 16) from @g into the shared memory
 * at the 32-bit shared address @s, asynchronously (cp.async); L1: through
 * the L1 cache, else around it (16 bytes only). A shared address of 32
 * bits, computed once, spares the generic-to-shared conversion each
 * __pipeline_memcpy_async () makes. */
template <int BYTES, bool L1 = true>
__device__ __forceinline__ void
copy_async (uint32_t s, const uint8_t * g)
{
  static_assert (L1 || BYTES == 16, "cp.async.cg copies 16 bytes");
  if (L1)
    asm volatile ("cp.async.ca.shared.global [%0], [%1], %2;"
        :: "r" (s), "l" (__cvta_generic_to_global (g)), "n" (BYTES)
        : "memory");
  else
    asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;"
        :: "r" (s), "l" (__cvta_generic_to_global (g)) : "memory");
}

/* Phase 1b for a tile whose staged rows are consecutive picture rows,
 * each read as KV whole aligned vectors: all ROWS rows of shared memory
 * from @g (staged row 0's first vector) on, @pitch apart, as one cp.async
 * group of every kChunkRows rows. */
template <int NT, int KV, int ROWS>
__device__ __forceinline__ void
stage_consecutive (const Shared & sh, uint8_t * smem, const uint8_t * g,
    size_t pitch, int tid)
{
  constexpr int kLg = lg_at_least (KV);
  constexpr int kStep = NT >> kLg;      /* rows a pass */
  static_assert (kChunkRows % kStep == 0 && ROWS % kStep == 0,
      "whole passes a group");
  const int v = tid & ((1 << kLg) - 1), r = tid >> kLg;
  const uint8_t *s = smem + sh.in + r * sh.in_stride + 16 * v;
  const uint8_t *src = g + (size_t) r * pitch + 16 * v;
  const size_t step = kStep * pitch;

  const uint32_t s32 = (uint32_t) __cvta_generic_to_shared (s);

UNROLL
  for (int k = 0; k < ROWS / kStep; k++) {
    if (v < KV)
      copy_async<16, false> (s32 + k * kStep * sh.in_stride, src);
    src += step;
    if ((k + 1) * kStep % kChunkRows == 0 || k + 1 == ROWS / kStep)
      __pipeline_commit ();
  }
}

/* Where sample @j of a row of s_inter lies (see Shape::kInterStride). */
__host__ __device__ __forceinline__ int
inter_pos (int j)
{
  return j + (j >> 5) * 4;
}

/* The value of the sample at @s (CF_SAMPLE_VALUE ()); 8-bit samples are
 * their values. */
template <int SB>
__host__ __device__ __forceinline__ int32_t
value_at (const Args & a, const uint8_t * s)
{
  if (SB == 1)
    return s[0];
  return ((s[0] | s[1] << 8) >> a.lsb) & a.max;
}

/* The largest value: a constant for 8-bit samples. */
template <int SB>
__host__ __device__ __forceinline__ int32_t
value_max (const Args & a)
{
  return SB == 1 ? 255 : a.max;
}

/* Value @v (0 .. max) into the sample at @o (CF_VALUE_SAMPLE ()). */
template <int SB>
__host__ __device__ __forceinline__ void
put_value (const Args & a, uint8_t * o, int32_t v)
{
  if (SB == 1) {
    o[0] = (uint8_t) v;
  } else {
    v <<= a.lsb;
    o[0] = (uint8_t) v;
    o[1] = (uint8_t) (v >> 8);
  }
}

/* acc[m] = sum_t w[t] x[m + t], m < kM, t < taps (T when T > 0: a
 * compile-time count, unrolled completely; else taps_rt), where load (e) = x[e]
 * (e < kM + taps - 1). Taps are taken kM at a time, so each step loads kM
 * new inputs for kM x kM multiply-adds, the window living in registers
 * (lo = x[t .. t + kM - 1], hi = the next kM); the remaining taps one at a
 * time, sliding the window. */
template <int T, typename Acc, typename Load>
__host__ __device__ __forceinline__ void
correlate (const int32_t * w, int taps_rt, Load load, Acc (&acc)[kM])
{
  const int taps = T > 0 ? T : taps_rt;
  int32_t lo[kM];
  int t = 0;

UNROLL
  for (int m = 0; m < kM; m++) {
    acc[m] = 0;
    lo[m] = load (m);
  }
UNROLL
  for (; t + kM <= taps; t += kM) {
    int32_t hi[kM];
UNROLL
    for (int u = 0; u < kM; u++)
      hi[u] = t + u + 1 < taps ? load (t + kM + u) : 0;
UNROLL
    for (int u = 0; u < kM; u++) {
      const Acc wt = w[t + u];
UNROLL
      for (int m = 0; m < kM; m++)
        acc[m] += wt * (m + u < kM ? lo[m + u] : hi[m + u - kM]);
    }
UNROLL
    for (int u = 0; u < kM; u++)
      lo[u] = hi[u];
  }
UNROLL
  for (; t < taps; t++) {
    const Acc wt = w[t];
UNROLL
    for (int m = 0; m < kM; m++)
      acc[m] += wt * lo[m];
UNROLL
    for (int m = 0; m < kM - 1; m++)
      lo[m] = lo[m + 1];
    lo[kM - 1] = t + 1 < taps ? load (t + kM) : 0;
  }
}

template <typename Acc>
__host__ __device__ __forceinline__ int32_t
round_shift (Acc v, int shift)
{
  return (int32_t) ((v + (Acc (1) << (shift - 1))) >> shift);
}

__host__ __device__ __forceinline__ int32_t
saturate (int32_t v, int32_t max)
{
  return v < 0 ? 0 : v > max ? max : v;
}

/* Phase 2: staged rows c0 .. through the horizontal pass into s_inter. */
template <int PB, int SB, int DIR, int R>
__host__ __device__ __forceinline__ void
rows_pass (const Args & a, const Tile & t, const Shared & sh,
    uint8_t * smem, int c0, int tid)
{
  typedef Shape<PB, SB> S;
  typedef typename std::conditional<SB == 1, int32_t, int64_t>::type Acc;
  constexpr int kGroups = S::kTilePixels / kM;
  const int rows = imin (kChunkRows, t.rows - c0);
  const Row *s_rows = (const Row *) (smem + sh.rows);
  const int32_t *s_wx = (const int32_t *) (smem + sh.weights);
  int32_t *s_inter = (int32_t *) (smem + sh.inter);

  /* VERTICAL: no horizontal pass, the samples as they are */
  for (int it = tid; DIR == CF_STENCIL_VERTICAL && it < rows * S::kTileWidth;
      it += kThreads) {
    const int i = it / S::kTileWidth, j = it - i * S::kTileWidth;
    const uint8_t *s_row = smem + sh.in + i * sh.in_stride + s_rows[i].shift;

    s_inter[(c0 + i) * S::kInterStride + inter_pos (j)] =
        value_at<SB> (a, s_row + (j / S::kSpp) * PB + (j % S::kSpp) * SB);
  }

  /* otherwise one item: kM pixels (group g) of sample k of staged row i;
   * consecutive threads take consecutive samples of a pixel, then groups */
  for (int it = tid; DIR != CF_STENCIL_VERTICAL
      && it < rows * kGroups * S::kSpp; it += kThreads) {
    const int i = it / (kGroups * S::kSpp), rest = it - i * kGroups * S::kSpp;
    const int g = rest / S::kSpp, k = rest - g * S::kSpp;
    const uint8_t *s_px = smem + sh.in + i * sh.in_stride + s_rows[i].shift +
        g * kM * PB + k * SB;
    int32_t *out = s_inter + (c0 + i) * S::kInterStride;
    const int j0 = g * kM * S::kSpp + k;
    Acc acc[kM];

    correlate<R ? 2 * R + 1 : 0, Acc> (s_wx, 2 * a.rx + 1,
        [&](int e) { return value_at<SB> (a, s_px + e * PB); }, acc);
UNROLL
    for (int m = 0; m < kM; m++) {
      int32_t v;
      if (a.skip & (1u << k))
        v = value_at<SB> (a, s_px + (m + a.rx) * PB);
      else if (DIR == CF_STENCIL_BOTH)
        v = round_shift (acc[m], a.bits - kInterShift);
      else
        v = saturate (round_shift (acc[m], a.bits), value_max<SB> (a));
      out[inter_pos (j0 + m * S::kSpp)] = v;
    }
  }
}


/* Phase 3: the vertical pass of s_inter into s_out. */
template <int PB, int SB, int DIR, bool VWIDE, int R>
__host__ __device__ __forceinline__ void
columns_pass (const Args & a, const Tile & t, const Shared & sh,
    uint8_t * smem, int tid)
{
  typedef Shape<PB, SB> S;
  typedef typename std::conditional<DIR == CF_STENCIL_BOTH ? VWIDE :
      SB == 2, int64_t, int32_t>::type Acc;
  const int32_t *s_wy = (const int32_t *) (smem + sh.weights) +
      CF_STENCIL_MAX_TAPS;
  const int32_t *s_inter = (const int32_t *) (smem + sh.inter);
  const int shift = DIR == CF_STENCIL_BOTH ? a.bits + kInterShift : a.bits;
  const int32_t *s_oshift = (const int32_t *) (smem + sh.out_shifts);

  /* one item: kM rows of sample column j; consecutive threads take
   * consecutive columns */
  for (int it = tid; it < kTileRows / kM * S::kTileWidth; it += kThreads) {
    const int rg = it / S::kTileWidth, j = it - rg * S::kTileWidth;
    const int k = j % S::kSpp;
    const int32_t *col = s_inter + rg * kM * S::kInterStride + inter_pos (j);
    Acc acc[kM] = { };

    if (DIR != CF_STENCIL_HORIZONTAL)
      correlate<R ? 2 * R + 1 : 0, Acc> (s_wy, 2 * a.ry + 1,
          [&](int e) { return col[e * S::kInterStride]; }, acc);
UNROLL
    for (int m = 0; m < kM; m++) {
      const int r = rg * kM + m;
      int32_t v;
      if (DIR == CF_STENCIL_HORIZONTAL || (a.skip & (1u << k)))
        v = col[(m + a.ry) * S::kInterStride];
      else
        v = saturate (round_shift (acc[m], shift), value_max<SB> (a));
      put_value<SB> (a, smem + sh.out + r * sh.out_stride + s_oshift[r] +
          j * SB, v);
    }
  }
}

/* Phase 4: s_out to the picture; @aligned: every output row starts on 16
 * bytes (s_oshift all 0). */
template <int PB, int NT = kThreads>
__host__ __device__ __forceinline__ void
store_tile (const Args & a, const Tile & t, const Shared & sh,
    uint8_t * smem, int tid, bool aligned)
{
  const int32_t *s_oshift = (const int32_t *) (smem + sh.out_shifts);

  /* rows that start on 16 bytes and end on them: 2^lg threads per row,
   * rows side by side */
  const bool whole = t.out_bytes % 16 == 0;

  for (int r0 = 0; whole && r0 < t.out_rows; r0 += NT >> t.out_lg) {
    const int r = r0 + (tid >> t.out_lg), v = tid & ((1 << t.out_lg) - 1);

    if (r < t.out_rows && s_oshift[r] == 0 && 16 * v < t.out_bytes)
      *(uint4 *) (a.dst + (size_t) (t.y0 + r) * a.dst_pitch +
          (size_t) t.x0 * PB + 16 * v) =
          *(const uint4 *) (smem + sh.out + r * sh.out_stride + 16 * v);
  }

  /* the others, a warp per row: its aligned vectors, then the bytes at its
   * ends */
  for (int r = tid / 32; !(whole && aligned) && r < t.out_rows;
      r += NT / 32) {
    if (whole && s_oshift[r] == 0)
      continue;
    uint8_t *d = a.dst + (size_t) (t.y0 + r) * a.dst_pitch +
        (size_t) t.x0 * PB;
    const int shift = s_oshift[r];
    const int v_lo = imin ((16 - shift) & 15, t.out_bytes);
    const int v_hi = v_lo + ((t.out_bytes - v_lo) & ~15);
    const uint8_t *s_row = smem + sh.out + r * sh.out_stride + shift;

    for (int b = v_lo + 16 * (tid % 32); b + 16 <= v_hi; b += 16 * 32)
      *(uint4 *) (d + b) = *(const uint4 *) (s_row + b);
    for (int u = tid % 32; u < v_lo + t.out_bytes - v_hi; u += 32) {
      const int b = u < v_lo ? u : v_hi + (u - v_lo);
      d[b] = s_row[b];
    }
  }
}

template <int PB, int SB, int DIR, bool VWIDE, int R>
__global__ void __launch_bounds__ (kThreads)
stencil_kernel (Args a)
{
  extern __shared__ uint4 s_raw[];
  uint8_t *smem = (uint8_t *) s_raw;
  const Shared sh = shared_layout<PB, SB> (a.rx, a.ry);
  const Tile t = tile_of<PB, SB> (a, blockIdx.x, blockIdx.y);
  const int tid = threadIdx.x;

  load_weights<PB> (a, t, sh, smem, tid);
  for (int c0 = 0; c0 < t.rows; c0 += kChunkRows) {
    __syncthreads ();           /* the previous chunk is used up */
    const int rows = imin (kChunkRows, t.rows - c0);
    const bool partial = __syncthreads_or (stage_row_info<PB> (a, t, sh,
            smem, c0, rows, tid));
    stage_rows<PB, SB> (a, t, sh, smem, 0, rows, tid, partial);
    __syncthreads ();
    rows_pass<PB, SB, DIR, R> (a, t, sh, smem, c0, tid);
  }
  __syncthreads ();
  columns_pass<PB, SB, DIR, VWIDE, R> (a, t, sh, smem, tid);
  __syncthreads ();
  store_tile<PB> (a, t, sh, smem, tid, false);
}

/* ---- The tensor-core kernel: 8-bit samples, BOTH, radii up to 8 ----
 *
 * Each pass is a banded matrix product on the integer MMA
 * (mma.m16n8k32: A 16x32 bytes, B 32x8 bytes, exact int32 sums):
 * - rows: C[m][n] = sum_k W[m][k] X[k][n], m 16 output pixels, k the 32
 *   staged pixels they read (16 + 2 kMmaR), n 8 staged rows; W[m][k] =
 *   wx[k - m] inside the band, 0 outside. One channel at a time: the B
 *   fragments are the staged pixels' bytes of that channel, picked out of
 *   the pixels by byte permutes.
 * - columns: C[m][n] = sum_k W[m][k] H[k][n], m 16 output rows, k the 32
 *   staged rows they read, n 8 samples of a row, W from wy. On 4-byte
 *   pixels the n tiles take one channel each, so that a lane ends up with
 *   whole pixels, which it stores straight into the picture
 *   (columns_pass_pixels ()).
 * The weights (up to 16 bits) enter as two byte matrices, lo = w & 255
 * (u8) and hi = w >> 8 (s8 where a weight is negative, else u8), so a
 * product is hi x 256 + lo. The intermediate h (stencil.h, int32 with
 * CF_STENCIL_INTER_BITS fraction bits) likewise enters the columns as its
 * two bytes, four products in all: sum w h = 2^16 hi.hi + 2^8 (hi.lo +
 * lo.hi) + lo.lo, put together modulo 2^32, exact because the plan bounds
 * the true sum within int32 (mma_split ()). The rows' rounding constant
 * starts h (h_high ()); the columns' starts their accumulators, or, where
 * the columns' weights sum to 2^16 (kMmaBlur), is folded into h
 * (kHFold). Every sum is the one cf_stencil_cpu () makes, so the bytes
 * are the same.
 *
 * h is kept in shared memory transposed: a channel's plane holds, per
 * pixel of the tile, the staged rows of that pixel's column in pairs, a
 * 32-bit word a pair (h_pair ()): the low bytes of its two rows, then
 * their high bytes, as the accumulators of the rows pass give them. The
 * columns pass loads two pairs at once and permutes them into the words of
 * four rows' low and high bytes that its B fragments take. The strides and
 * a swizzle keep the rows pass's stores and the columns pass's loads free
 * of bank conflicts. A copied channel (alpha) of 1- and 2-byte pixels goes
 * through the rows pass as a delta band, its samples into the low bytes,
 * where the columns pass picks them up (h_low_byte ()); that of 4-byte
 * pixels skips the rows pass, and the columns pass copies it from the
 * staged rows.
 * Shorter taps are centred among zero weights; staging, borders and the
 * output tile are the other kernel's phases. Launches take this kernel
 * only on 16-byte aligned planes and pitches (cf_stencil_cuda ()), so
 * every output row of a tile starts on 16 bytes.
 *
 * Unlike the other kernel, a block stages all kMmaStaged rows at once (in
 * cp.async groups of kChunkRows rows, the rows pass taking each group as it
 * arrives). The output tile of 1- and 2-byte pixels lies over the staged
 * rows, which their columns pass no longer needs (4-byte pixels have
 * none); with h's columns as short as the staged rows (kHColumn) that
 * makes about 50 KB, four blocks a multiprocessor
 * (4K RGBA radius 8: 66 us against 90 staging 32 rows at a time at three
 * blocks, docs/PERFORMANCE.md). Its wide tiles (MmaBlock<2>) make about
 * 80 KB, two blocks of 512 threads a multiprocessor. */

constexpr int kMmaStaged = kTileRows + 2 * kMmaR;      /* staged rows */
/* words per pixel column of h: a word per pair of staged rows */
constexpr int kHColumn = kMmaStaged / 2;
static_assert (kHColumn % 8 == 0, "h_pair ()'s swizzle stays in a column");
static_assert (kMmaStaged % 8 == 0 && kChunkRows % 8 == 0,
    "whole n tiles of staged rows");
/* a band's fragment (store_fragment ()) reads words up to byte kWPad +
 * 4 * 3 + 16 + 8 of its row of Args::wbytes */
static_assert (kWPad + 4 * 3 + 16 + 8 <= kWRow && kWRow % 4 == 0,
    "fragment loads stay inside a row");

/* How the tensor-core kernel splits a plan's weights into bytes. */
enum MmaSplit {
  kMmaNone,                     /* it cannot take the plan */
  kMmaBlur,                     /* weights 0 .. 65535, the columns' summing
                                 * to 2^16 (normalized), results 0 .. 255
                                 * without saturating, h + kHFold 0 ..
                                 * 65535 */
  kMmaUnsigned,                 /* weights 0 .. 65535, h 0 .. 65535 */
  kMmaSigned                    /* weights and h within int16 */
};

/* The fused kernel's tiles, W times as wide as the CUDA-core kernel's (32
 * RGBA pixels): W = 1, 256 threads a block and four blocks a
 * multiprocessor, or W = 2 (wide tiles, mma_wide ()), 512 threads and two
 * blocks. */
template <int W>
struct MmaBlock {
  static constexpr int kThreads = W * ::kThreads;
  static constexpr int kBlocks = 4 / W;         /* a multiprocessor */
};

template <int PB, int W = 1>
struct MmaShape {
  static constexpr int kTilePixels = W * Shape<PB, 1>::kTilePixels;
  /* words of a channel's plane of h; the pad puts the PB channels of one
   * pixel 32 / PB banks apart (h_pair ()) */
  static constexpr int kChannelWords = kTilePixels * kHColumn +
      (PB == 1 ? 0 : 32 / PB);
  static constexpr int kPlaneBytes = PB * kChannelWords * 4;
  /* the columns passes load two pairs of h at once (uint2), from even
   * words of every channel's plane */
  static_assert (kChannelWords % 2 == 0 && kHColumn % 2 == 0,
      "h's pair loads stay 8-byte aligned");
};
static_assert (MmaShape<1>::kTilePixels % 16 == 0
    && MmaShape<2>::kTilePixels % 16 == 0
    && MmaShape<4>::kTilePixels % 16 == 0, "whole m tiles of pixels");

/* The four A fragments of the band (x low and high bytes, y low and
 * high: store_fragment (), from the rows of Args::wbytes), then as
 * shared_layout () with all kMmaStaged rows staged, h's channel planes
 * (h_pair ()) as the intermediate and the output tile (1- and 2-byte
 * pixels) over the staged rows; staged rows 16 PB bytes apart modulo 128,
 * so that the eight rows of a B fragment's load meet no bank conflict. */
constexpr int kMmaFragBytes = 4 * 32 * 16;

template <int PB, int W>
__host__ __device__ __forceinline__ Shared
shared_layout_mma ()
{
  typedef MmaShape<PB, W> S;

  return layout_of (kMmaFragBytes,
      (S::kTilePixels + 2 * kMmaR) * PB,
      16 * PB % 128, S::kPlaneBytes, S::kTilePixels * PB, kTileRows,
      kMmaStaged, true);
}

/* D = A B + C on mma.m16n8k32 with int32 sums; AS, BS: A, B signed
 * bytes. C = 0 where left out (which the compiler can take from the zero
 * register instead of four moves). */
template <bool AS, bool BS>
__device__ __forceinline__ void
imma (int32_t (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1,
    int32_t c0 = 0, int32_t c1 = 0, int32_t c2 = 0, int32_t c3 = 0)
{
#define CF_IMMA(TA, TB) \
  asm ("mma.sync.aligned.m16n8k32.row.col.s32." TA "." TB ".s32 "       \
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};" \
      : "=r" (d[0]), "=r" (d[1]), "=r" (d[2]), "=r" (d[3])              \
      : "r" (a[0]), "r" (a[1]), "r" (a[2]), "r" (a[3]), "r" (b0), "r" (b1), \
      "r" (c0), "r" (c1), "r" (c2), "r" (c3))
  if (AS && BS)
    CF_IMMA ("s8", "s8");
  else if (AS)
    CF_IMMA ("s8", "u8");
  else if (BS)
    CF_IMMA ("u8", "s8");
  else
    CF_IMMA ("u8", "u8");
#undef CF_IMMA
}

/* Where register @r of this lane's A fragment starts in a band: PTX's
 * layout puts row m = g + 8 (r & 1), columns k = 4 q + 16 (r >> 1) .. + 3
 * in it, byte i column k + i (g = lane / 4, q = lane % 4), so it holds
 * taps k - m .. + 3 of the band W[m][k] = w[k - m]. */
__device__ __forceinline__ int
band_tap (int lane, int r)
{
  return 4 * (lane & 3) + 16 * (r >> 1) - (lane >> 2) - 8 * (r & 1);
}

/* This lane's A fragment of the band whose bytes start at byte @at of @w
 * (Args::wbytes, or its copy in shared memory), into shared memory, a
 * uint4 per lane from @slot on: four consecutive bytes of the band per
 * register (band_tap ()). A warp makes a fragment once for the block, and
 * every warp then loads it in one instruction. */
__device__ __forceinline__ void
store_fragment (const uint32_t * w, int at, uint4 * slot, int lane)
{
  uint32_t f[4];

UNROLL
  for (int r = 0; r < 4; r++) {
    const int b = at + kWPad + band_tap (lane, r);
    f[r] = __funnelshift_r (w[b >> 2], w[(b >> 2) + 1], 8 * (b & 3));
  }
  slot[lane] = make_uint4 (f[0], f[1], f[2], f[3]);
}

/* A fragment stored by store_fragment (). */
__device__ __forceinline__ void
load_fragment (const uint4 * slot, int lane, uint32_t (&f)[4])
{
  const uint4 v = slot[lane];

  f[0] = v.x;
  f[1] = v.y;
  f[2] = v.z;
  f[3] = v.w;
}

/* The fragment of the delta band (tap kMmaR 1, the others 0): C is the
 * staged sample at the output's own place. */
__device__ __forceinline__ void
delta_fragment (int lane, uint32_t (&f)[4])
{
UNROLL
  for (int r = 0; r < 4; r++) {
    /* 1 << 8 i for i = 0 .. 3, else 0: the clamping funnel shift gives 0
     * for shifts of 32 and more, negative i among them (as unsigned); one
     * instruction, as the compiler recomputes the fragment where it needs
     * it rather than keep its registers */
    const int i = kMmaR - band_tap (lane, r);
    f[r] = __funnelshift_lc (0u, 1u, (unsigned) (8 * i));
  }
}

/* Four consecutive PB-byte pixels at @p (aligned to 4 PB bytes) as PB
 * words, word c the bytes of channel c, pixel i in byte i. */
template <int PB>
__device__ __forceinline__ void
channel_words (const uint8_t * p, uint32_t (&c)[PB])
{
  if (PB == 1) {
    c[0] = *(const uint32_t *) p;
  } else if (PB == 2) {
    const uint2 v = *(const uint2 *) p;
    c[0] = __byte_perm (v.x, v.y, 0x6420);
    c[PB - 1] = __byte_perm (v.x, v.y, 0x7531);
  } else {
    const uint4 v = *(const uint4 *) p;
    const uint32_t lo01 = __byte_perm (v.x, v.y, 0x5140);
    const uint32_t hi01 = __byte_perm (v.x, v.y, 0x7362);
    const uint32_t lo23 = __byte_perm (v.z, v.w, 0x5140);
    const uint32_t hi23 = __byte_perm (v.z, v.w, 0x7362);
    c[0] = __byte_perm (lo01, lo23, 0x5410);
    c[1 % PB] = __byte_perm (lo01, lo23, 0x7632);
    c[2 % PB] = __byte_perm (hi01, hi23, 0x5410);
    c[3 % PB] = __byte_perm (hi01, hi23, 0x7632);
  }
}

constexpr int kHShift = CF_STENCIL_WEIGHT_BITS_8 - kInterShift;
/* kMmaBlur: the columns' rounding constant 2^(B + I - 1), taken in h
 * instead. With the columns' weights summing to 2^B, sum w (h + kHFold) =
 * sum w h + 2^(B + I - 1): the same sum, and the columns' accumulators
 * start at 0 (the zero register) rather than at a constant that takes
 * four moves per product. */
constexpr int kHFold = 1 << (kInterShift - 1);

/* h (stencil.h) of accumulator @i of the rows' products, the low and high
 * bytes' sums of the taps, rounded: (hi x 256 + lo + 2^(S-1)) >> S with S =
 * kHShift, plus kHFold for kMmaBlur, returned in bits 16 .. 31 (h's low
 * byte in byte 2, its high byte in byte 3, for the byte permutes that
 * store it): the rounded sum shifted left by 16 - S instead of right by S,
 * two multiply-adds. Exact: h fits 16 bits (unsigned, or signed for
 * kMmaSigned; with kHFold for kMmaBlur, mma_split ()), so the rounded sum
 * times 2^(16 - S) fits 32, and kHFold 2^16 leaves the bits below 16 as
 * they are. */
template <int SPLIT>
__device__ __forceinline__ uint32_t
h_high (const int32_t (&lo)[4], const int32_t (&hi)[4], int i)
{
  constexpr uint32_t kUp = 1u << (16 - kHShift);
  constexpr uint32_t kStart = (1u << (kHShift - 1)) * kUp +
      (SPLIT == kMmaBlur ? (uint32_t) kHFold << 16 : 0u);

  return (uint32_t) hi[i] * (256u * kUp) + (uint32_t) lo[i] * kUp + kStart;
}

/* The columns' sums of products: low by low bytes (with the rounding
 * constant, unless h holds it: kHFold), the two mixed ones, high by high.
 * JOINED (the fused kernel: one k tile): the second mixed sum goes on in
 * the first's accumulator (mid2 unused), four additions fewer for a
 * product that waits for another; the two-pass kernel's chains over
 * several k tiles keep them apart, which measured faster there. */
struct ColumnSums {
  int32_t ll[4], mid[4], mid2[4], hh[4];
};

/* The columns' products of one k tile (32 rows of h: bl0, bl1 the words
 * of their low bytes, bh0, bh1 of their high bytes, four rows a word) with
 * the weights' bytes, into @s; @start: the first k tile, which starts the
 * sums. */
template <int SPLIT, bool JOINED = false>
__device__ __forceinline__ void
column_products (const uint32_t (&wlo)[4], const uint32_t (&whi)[4],
    uint32_t bl0, uint32_t bl1, uint32_t bh0, uint32_t bh1, ColumnSums & s,
    bool start = true)
{
  constexpr bool SIGNED = SPLIT == kMmaSigned;
  constexpr int kShift = CF_STENCIL_WEIGHT_BITS_8 + kInterShift;
  const int32_t r0 = SPLIT == kMmaBlur ? 0 : 1 << (kShift - 1);

  if (JOINED) {
    imma<false, false> (s.ll, wlo, bl0, bl1, r0, r0, r0, r0);
    imma<SIGNED, false> (s.mid, whi, bl0, bl1);
    imma<false, SIGNED> (s.mid, wlo, bh0, bh1, s.mid[0], s.mid[1], s.mid[2],
        s.mid[3]);
    imma<SIGNED, SIGNED> (s.hh, whi, bh0, bh1);
  } else if (start) {
    imma<false, false> (s.ll, wlo, bl0, bl1, r0, r0, r0, r0);
    imma<SIGNED, false> (s.mid, whi, bl0, bl1);
    imma<false, SIGNED> (s.mid2, wlo, bh0, bh1);
    imma<SIGNED, SIGNED> (s.hh, whi, bh0, bh1);
  } else {
    imma<false, false> (s.ll, wlo, bl0, bl1, s.ll[0], s.ll[1], s.ll[2],
        s.ll[3]);
    imma<SIGNED, false> (s.mid, whi, bl0, bl1, s.mid[0], s.mid[1], s.mid[2],
        s.mid[3]);
    imma<false, SIGNED> (s.mid2, wlo, bh0, bh1, s.mid2[0], s.mid2[1],
        s.mid2[2], s.mid2[3]);
    imma<SIGNED, SIGNED> (s.hh, whi, bh0, bh1, s.hh[0], s.hh[1], s.hh[2],
        s.hh[3]);
  }
}

/* Output sample @i of the columns' sums: put together modulo 2^32 (exact:
 * the plan bounds the true sum within int32), shifted, saturated unless
 * the plan never needs it. */
template <int SPLIT, bool JOINED = false>
__device__ __forceinline__ int32_t
column_result (const ColumnSums & s, int i)
{
  constexpr int kShift = CF_STENCIL_WEIGHT_BITS_8 + kInterShift;
  const uint32_t mid = JOINED ? (uint32_t) s.mid[i] :
      (uint32_t) s.mid[i] + (uint32_t) s.mid2[i];
  const uint32_t sum = (uint32_t) s.hh[i] * 65536u + mid * 256u +
      (uint32_t) s.ll[i];
  const int32_t v = (int32_t) sum >> kShift;

  return SPLIT == kMmaBlur ? v : saturate (v, 255);
}

/* The copied channels of the tensor-core kernel's passes: @MASK, known at
 * compile time, or Args::skip for kAnyMask. */
constexpr unsigned kAnyMask = ~0u;

template <unsigned MASK>
__device__ __forceinline__ unsigned
skip_mask (const Args & a)
{
  return MASK == kAnyMask ? a.skip : MASK;
}

/* Where every staged row of the tensor-core kernel starts in its shared
 * row (Row::shift): the kernel takes 16-byte aligned planes and pitches
 * only, and its tiles start 16-byte aligned, so each row's first byte,
 * pixel x0 - kMmaR, lies kMmaR PB bytes before a 16-byte boundary; rows
 * outside the picture are placed alike (row_of ()). */
template <int PB>
constexpr int kMmaShift = (16 - kMmaR * PB % 16) % 16;

/* The word of h that holds pair @pair (staged rows 2 pair and 2 pair + 1)
 * of pixel @px's column in a channel's plane (MmaShape::kChannelWords):
 * bytes 0 and 1 their low bytes, 2 and 3 their high bytes. A column is
 * kHColumn words (8 banks mod 32); pixels 4 .. 7 (mod 8) have bit 2 of
 * the pair flipped, which lands them 4 banks over. So the rows pass's
 * stores (8 pixels, 4 pairs: banks 8 g + q, bit 2 flipped for g >= 4) and
 * the columns pass's 8-byte loads (each half warp 4 pixels, 2 pairs each:
 * 8 g + 2 q, and 2 q ^ 4 for pixels 4 .. 7) meet no bank conflict. */
__device__ __forceinline__ int
h_pair (int px, int pair)
{
  return px * kHColumn + (pair ^ (px & 4));
}

/* The byte that holds the low byte of staged row @row of pixel @px's
 * column of h, from the start of the channel's plane: a copied sample of
 * 1- and 2-byte pixels (rows_pass_mma ()'s delta band). */
__device__ __forceinline__ int
h_low_byte (int px, int row)
{
  return 4 * h_pair (px, row >> 1) + (row & 1);
}

/* Four staged rows' low and high bytes (@lo, @hi, row i in byte i), as a
 * columns' B fragment takes them, from the words of their two pairs. */
__device__ __forceinline__ void
h_quad (uint2 w, uint32_t & lo, uint32_t & hi)
{
  lo = __byte_perm (w.x, w.y, 0x5410);
  hi = __byte_perm (w.x, w.y, 0x7632);
}

/* Phase 2 on the tensor cores: staged rows c0 .. c0 + @rows - 1 (shared
 * rows c0 .. on) into h.
 * A warp's item is 16 pixels (m tile mt) of 8 staged rows (n tile nt), all
 * channels; a warp keeps its m tile, so its items lie a constant stride
 * apart. MASK: the copied channels (Args::skip), or kAnyMask: Args::skip
 * at run time. */
template <int PB, int W, int SPLIT, unsigned MASK>
__device__ __forceinline__ void
rows_pass_mma (const Args & a, const Shared & sh, uint8_t * smem, int c0,
    int rows, const uint32_t (&wlo)[4], const uint32_t (&whi)[4],
    const uint32_t (&delta)[4], int warp, int lane)
{
  typedef MmaShape<PB, W> S;
  constexpr unsigned kMTiles = S::kTilePixels / 16;
  constexpr unsigned kWarps = MmaBlock<W>::kThreads / 32;
  static_assert (kWarps % kMTiles == 0, "a warp keeps its m tile");
  const unsigned g = lane >> 2, q = lane & 3, mt = (unsigned) warp % kMTiles;
  uint32_t *h = (uint32_t *) (smem + sh.inter);
  /* B: staged row c0 + 8 nt + g, pixels 16 mt + 4 q .. + 3 and 16 on */
  const uint8_t *in = smem + sh.in + kMmaShift<PB> + (c0 + g) * sh.in_stride +
      (mt * 16 + 4 * q) * PB;

  for (unsigned nt = (unsigned) warp / kMTiles; nt < (unsigned) rows / 8;
      nt += kWarps / kMTiles) {
    const uint8_t *px = in + nt * 8 * sh.in_stride;
    /* C: pixel 16 mt + g + 8 e, staged rows c0 + 8 nt + 2 q and the next:
     * a pair of a column of h */
    const int at = h_pair (mt * 16 + g, (c0 + 8 * nt) / 2 + q);
    uint32_t b0[PB], b1[PB];

    channel_words<PB> (px, b0);
    channel_words<PB> (px + 16 * PB, b1);
UNROLL
    for (int c = 0; c < PB; c++) {
      uint32_t *h_c = h + c * S::kChannelWords + at;

      if (skip_mask<MASK> (a) & (1u << c)) {
        /* 4-byte pixels: columns_pass_pixels () takes the staged sample */
        if (PB == 4)
          continue;
        int32_t d[4];

        imma<false, false> (d, delta, b0[c], b1[c]);
UNROLL
        for (int e = 0; e < 2; e++)
          *(uint16_t *) (h_c + 8 * e * kHColumn) =
              (uint16_t) __byte_perm (d[2 * e], d[2 * e + 1], 0x0040);
        continue;
      }
      int32_t lo[4], hi[4];

      imma<false, false> (lo, wlo, b0[c], b1[c]);
      imma<SPLIT == kMmaSigned, false> (hi, whi, b0[c], b1[c]);
UNROLL
      for (int e = 0; e < 2; e++) {
        const uint32_t h0 = h_high<SPLIT> (lo, hi, 2 * e);
        const uint32_t h1 = h_high<SPLIT> (lo, hi, 2 * e + 1);

        /* pixel g + 8 e: the same swizzle (bit 2 of the pixel) */
        h_c[8 * e * kHColumn] = __byte_perm (h0, h1, 0x7362);
      }
    }
  }
}

/* Phase 3 on the tensor cores: h into s_out. A warp takes 8 samples (n
 * tile nt) down the whole tile, m tile by m tile: consecutive m tiles
 * share 16 rows of B. MASK as for rows_pass_mma (). */
template <int PB, int W, int SPLIT, unsigned MASK>
__device__ __forceinline__ void
columns_pass_mma (const Args & a, const Shared & sh, uint8_t * smem,
    const uint32_t (&wlo)[4], const uint32_t (&whi)[4], int warp, int lane)
{
  typedef MmaShape<PB, W> S;
  const int g = lane >> 2, q = lane & 3;
  const uint8_t *h = smem + sh.inter;

  constexpr int kWarps = MmaBlock<W>::kThreads / 32;

  for (int nt = warp; nt < S::kTilePixels * PB / 8; nt += kWarps) {
    /* B: sample j = 8 nt + g of the tile, rows 4 q .. + 3 of each half:
     * pairs 2 q and 2 q + 1, then 8 pairs on */
    const int j = nt * 8 + g;
    const uint2 *col = (const uint2 *) ((const uint32_t *) h +
        (j % PB) * S::kChannelWords + h_pair (j / PB, 2 * q));
    uint32_t bl0, bh0;
    h_quad (col[0], bl0, bh0);
    /* C: samples 8 nt + 2 q and the next; a copied one is its staged
     * sample, kMmaR rows down its column's low bytes */
    const int js = nt * 8 + 2 * q;
    const bool keep0 = skip_mask<MASK> (a) & (1u << (js % PB));
    const bool keep1 = skip_mask<MASK> (a) & (1u << ((js + 1) % PB));
    const uint8_t *raw0 = h + 4 * (js % PB) * S::kChannelWords;
    const uint8_t *raw1 = h + 4 * ((js + 1) % PB) * S::kChannelWords;

UNROLL
    for (int mt = 0; mt < kTileRows / 16; mt++) {
      uint32_t bl1, bh1;
      h_quad (col[4 * mt + 4], bl1, bh1);
      ColumnSums sums;

      column_products<SPLIT, true> (wlo, whi, bl0, bl1, bh0, bh1, sums);
      bl0 = bl1;
      bh0 = bh1;
UNROLL
      for (int e = 0; e < 2; e++) {
        const int r = mt * 16 + g + 8 * e;
        int32_t v[2] = { column_result<SPLIT, true> (sums, 2 * e),
          column_result<SPLIT, true> (sums, 2 * e + 1) };
        if (keep0)
          v[0] = raw0[h_low_byte (js / PB, r + kMmaR)];
        if (keep1)
          v[1] = raw1[h_low_byte ((js + 1) / PB, r + kMmaR)];
        *(uint16_t *) (smem + sh.out + r * sh.out_stride + js) =
            (uint16_t) __byte_perm (v[0], v[1], 0x0040);
      }
    }
  }
}

/* Phase 3 on the tensor cores for 4-byte pixels, straight into the
 * picture (no output tile, no phase 4). A warp's item is 8 pixels of 32
 * output rows (two m tiles), its n tiles one channel each, so that a lane
 * holds whole pixels: 2 q and 2 q + 1 of rows g and g + 8 of each m tile.
 * Each row's pair is one 8-byte store, and the four lanes of a row fill
 * its 32-byte sector. MASK as for rows_pass_mma (). */
template <int W, int SPLIT, unsigned MASK>
__device__ __forceinline__ void
columns_pass_pixels (const Args & a, const Tile & t, const Shared & sh,
    const uint8_t * smem, const uint32_t (&wlo)[4], const uint32_t (&whi)[4],
    int warp, int lane)
{
  constexpr int PB = 4;
  typedef MmaShape<PB, W> S;
  constexpr unsigned kGroups = S::kTilePixels / 8;
  static_assert (kGroups * (kTileRows / 32) == MmaBlock<W>::kThreads / 32,
      "an item a warp");
  const unsigned g = lane >> 2, q = lane & 3;
  const unsigned group = (unsigned) warp % kGroups;
  const unsigned half = (unsigned) warp / kGroups;
  /* B of a channel: the column of h of pixel 8 group + g, from its row
   * 32 half on, rows 4 q .. + 3 and 16 on of each m tile's 16 rows: pairs
   * 2 q and 2 q + 1, and 8 pairs on */
  const uint2 *col = (const uint2 *) ((const uint32_t *) (smem + sh.inter) +
      h_pair (8 * group + g, 16 * half + 2 * q));
  /* a copied sample: the staged one, kMmaR rows and pixels on (nothing
   * overwrites the staged rows here). kMmaBlur takes it from the lane's
   * staged pixel pair of each row (8 bytes, aligned): two loads with 2-way
   * bank conflicts for four 4-way conflicted byte loads (rows g and g + 2
   * lie at the same place modulo 128 bytes); 4K RGBA radius 8 on an H200:
   * 39.4 - 39.6 us against 39.7 - 39.9, docs/PERFORMANCE.md. The
   * saturating splits keep the byte loads, within 64 registers (the pairs
   * spill 12 bytes there). */
  constexpr bool kPairs = SPLIT == kMmaBlur;
  const int x = 8 * group + 2 * q, y = 32 * half + g;
  const uint8_t *raw = smem + sh.in + kMmaShift<PB> + (y + kMmaR) *
      sh.in_stride + (x + kMmaR) * PB;
  /* a tile inside the picture stores every pair; at its right and bottom
   * edges, the pixels and rows inside */
  const bool whole = t.out_bytes == S::kTilePixels * PB
      && t.out_rows == kTileRows;
  const int n_px = t.out_bytes / PB - x, n_rows = t.out_rows - y;
  /* this lane's first row, then 8 rows down at each store */
  uint8_t *d = a.dst + (size_t) (t.y0 + y) * a.dst_pitch +
      (size_t) (t.x0 + x) * PB;
  const size_t down = 8 * a.dst_pitch;

  /* both m tiles unrolled, so that their loads and products interleave
   * (64 registers either way; 4K RGBA radius 8 on an H200: 41.4 - 41.7 us
   * against 41.8 - 42.1 rolled, docs/PERFORMANCE.md) */
UNROLL
  for (int m = 0; m < 2; m++) {
    /* the pixels of accumulator i (row g + 8 (i >> 1), pixel 2 q + (i &
     * 1)), a channel's sample into byte c as it comes */
    uint32_t p[4];

UNROLL
    for (int c = 0; c < PB; c++) {
      const bool copied = skip_mask<MASK> (a) & (1u << c);
      uint32_t v[4];

      if (copied && kPairs) {
        /* whole staged pixels, channel c in byte c */
UNROLL
        for (int e = 0; e < 2; e++) {
          const uint2 w = *(const uint2 *) (raw + (16 * m + 8 * e) *
              sh.in_stride);
          v[2 * e] = w.x;
          v[2 * e + 1] = w.y;
        }
      } else if (copied) {
        const uint8_t *r = raw + 16 * m * sh.in_stride + c;
UNROLL
        for (int i = 0; i < 4; i++)
          v[i] = r[8 * (i >> 1) * sh.in_stride + (i & 1) * PB];
      } else {
        const uint2 *pairs = col + (c * S::kChannelWords) / 2 + 4 * m;
        uint32_t lo0, hi0, lo1, hi1;
        ColumnSums sums;

        h_quad (pairs[0], lo0, hi0);
        h_quad (pairs[4], lo1, hi1);
        column_products<SPLIT, true> (wlo, whi, lo0, lo1, hi0, hi1, sums);
UNROLL
        for (int i = 0; i < 4; i++)
          v[i] = (uint32_t) column_result<SPLIT, true> (sums, i);
      }
      /* the sample into byte c: byte 0 of a result, byte c of a copied
       * pixel */
      const unsigned from = copied && kPairs ? c << 4 * c : 0;
UNROLL
      for (int i = 0; i < 4; i++)
        p[i] = c == 0 ? v[i] : __byte_perm (p[i], v[i],
            (c == 1 ? 0x3240 : c == 2 ? 0x3410 : 0x4210) + from);
    }
UNROLL
    for (int e = 0; e < 2; e++) {
      const int row = 16 * m + 8 * e;

      if (whole || (row < n_rows && n_px >= 2))
        *(uint2 *) d = make_uint2 (p[2 * e], p[2 * e + 1]);
      else if (row < n_rows && n_px == 1)
        *(uint32_t *) d = p[2 * e];
      d += down;
    }
  }
}

/* Phases 2 and 3 of the tensor-core kernel, the staged rows' cp.async
 * groups (kChunkRows rows each) still in flight: the rows pass takes each
 * group as it arrives. The A fragments come from shared memory
 * (store_fragment ()), made before the first group's barrier. */
template <int PB, int W, int SPLIT, unsigned MASK>
__device__ __forceinline__ void
passes_mma (const Args & a, const Tile & t, const Shared & sh,
    uint8_t * smem, const uint32_t (&delta)[4], int warp, int lane)
{
  constexpr int kGroups = (kMmaStaged + kChunkRows - 1) / kChunkRows;
  const uint4 *s_frag = (const uint4 *) (smem + sh.weights);
  uint32_t wlo[4], whi[4];

UNROLL
  for (int k = 0; k < kGroups; k++) {
#ifdef __CUDA_ARCH__
    __pipeline_wait_prior (kGroups - 1 - k);
#endif
    __syncthreads ();
    if (k == 0) {
      load_fragment (s_frag, lane, wlo);
      load_fragment (s_frag + 32, lane, whi);
    }
    rows_pass_mma<PB, W, SPLIT, MASK> (a, sh, smem, k * kChunkRows,
        imin (kChunkRows, kMmaStaged - k * kChunkRows), wlo, whi, delta,
        warp, lane);
  }
  load_fragment (s_frag + 64, lane, wlo);
  load_fragment (s_frag + 96, lane, whi);
  __syncthreads ();
  if (PB == 4)
    columns_pass_pixels<W, SPLIT, MASK> (a, t, sh, smem, wlo, whi, warp,
        lane);
  else
    columns_pass_mma<PB, W, SPLIT, MASK> (a, sh, smem, wlo, whi, warp, lane);
}

/* The fused kernel's tile (@bx, @by) of the plane @a. */
template <int PB, int W, int SPLIT>
__device__ __forceinline__ void
mma_tile (const Args & a, int bx, int by)
{
  extern __shared__ uint4 s_raw[];
  uint8_t *smem = (uint8_t *) s_raw;
  const Shared sh = shared_layout_mma<PB, W> ();
  Tile t = tile_of<PB, 1, MmaShape<PB, W>::kTilePixels> (a, bx, by);
  /* the launch sets Args::rx and ry to kMmaR for this kernel: the staged
   * rows' length and the copy loops' shifts as constants */
  constexpr int kSeg = (MmaShape<PB, W>::kTilePixels + 2 * kMmaR) * PB;
  constexpr int kInLg = lg_at_least ((15 + kSeg + 15) / 16);
  t.rows = kMmaStaged;
  t.seg = kSeg;
  t.in_lg = kInLg;
  constexpr int kNT = MmaBlock<W>::kThreads;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  uint32_t delta[4];

  /* most tiles stage consecutive picture rows, each as kVecs whole
   * vectors inside the picture, from byte @first_byte of picture row
   * @first_row on: they need no Row table */
  constexpr int kVecs = (kMmaShift<PB> + kSeg + 15) / 16;
  const int first_row = t.y0 - kMmaR;
  const int first_byte = (t.x0 - kMmaR) * PB - kMmaShift<PB>;
  const bool inside = first_row >= 0 && first_row + kMmaStaged <= a.height
      && first_byte >= 0 && first_byte + 16 * kVecs <= a.width * PB;
  /* every staged row at once, in cp.async groups of kChunkRows rows: such
   * a tile's copies go first, before anything waits; the others' once
   * the block knows where each staged row comes from (the second half of
   * the block) */
  static_assert (kTileRows <= kNT / 4 && kMmaStaged <= kNT / 2,
      "one item a thread");
  if (inside) {
    const uint8_t *first = a.src + (size_t) first_row * a.src_pitch +
        first_byte;
    stage_consecutive<kNT, kVecs, kMmaStaged> (sh, smem, first, a.src_pitch,
        tid);
  } else {
    const int ri = tid - kNT / 2;
    const bool partial = __syncthreads_or (ri >= 0
        && stage_row_info<PB> (a, t, sh, smem, 0, kMmaStaged, ri));
UNROLL
    for (int c0 = 0; c0 < kMmaStaged; c0 += kChunkRows)
      stage_rows<PB, 1, kNT> (a, t, sh, smem, c0, imin (c0 + kChunkRows,
              kMmaStaged), tid, partial, false);
  }
  /* while they are in flight: the aligned output rows' offsets, all 0,
   * for store_tile () (4-byte pixels have no output tile), and the band
   * fragments, one a warp of the first four, from the arguments; the rows
   * pass's first barrier publishes them */
  if (PB != 4 && tid >= kNT / 4 && tid < kNT / 4 + kTileRows)
    ((int32_t *) (smem + sh.out_shifts))[tid - kNT / 4] = 0;
  delta_fragment (lane, delta);
  if (warp < 4)
    store_fragment (a.wbytes, warp * kWRow, (uint4 *) (smem + sh.weights) +
        32 * warp, lane);
  /* no channel copied, or the last (alpha of RGBA, BGRA, GRAY8 + A), with
   * the channels' paths chosen at compile time (a plane of 1-byte pixels
   * with its one channel copied takes the run-time path: no third copy of
   * the passes for it) */
  if (a.skip == 0)
    passes_mma<PB, W, SPLIT, 0> (a, t, sh, smem, delta, warp, lane);
  else if (PB > 1 && a.skip == 1u << (PB - 1))
    passes_mma<PB, W, SPLIT, 1u << (PB - 1)> (a, t, sh, smem, delta, warp,
        lane);
  else
    passes_mma<PB, W, SPLIT, kAnyMask> (a, t, sh, smem, delta, warp, lane);
  if (PB != 4) {
    __syncthreads ();
    store_tile<PB, kNT> (a, t, sh, smem, tid, true);
  }
}

template <int PB, int W, int SPLIT>
__global__ void
__launch_bounds__ (MmaBlock<W>::kThreads, MmaBlock<W>::kBlocks)
stencil_mma_kernel (Args a)
{
  mma_tile<PB, W, SPLIT> (a, blockIdx.x, blockIdx.y);
}

/* Every plane of a frame of 8-bit YUV in one launch of the fused kernel:
 * the luma plane of 1-byte pixels, then NP - 1 chroma planes of PB-byte
 * pixels (NV12, NV21: one of 2; I420, YV12, Y42B, Y444: two of 1). Block
 * b of the one-dimensional grid makes tile b - first[p] of the plane p it
 * falls in, that plane's tiles row by row. The planes one launch each
 * leave the device part idle: the chroma's few blocks (1080p NV12: 255 of
 * 256 threads where the device holds 528) cannot fill it, nor the luma's
 * last wave, and each launch waits for the last block of the one before;
 * here the chroma tiles fill what the luma leaves. */
struct MmaFrame {
  Args a[CF_MAX_PLANES];        /* each plane's, its images included */
  int first[CF_MAX_PLANES];     /* the first block of each plane */
  int tiles_x[CF_MAX_PLANES];   /* its tiles a row */
  int blocks;                   /* in all */
};

template <int PB, int NP, int W, int SPLIT>
__global__ void
__launch_bounds__ (MmaBlock<W>::kThreads, MmaBlock<W>::kBlocks)
stencil_mma_frame_kernel (const __grid_constant__ MmaFrame f)
{
  static_assert (NP == 2 || NP == 3, "a luma plane and its chroma");
  const int b = blockIdx.x;

  /* planes of 1-byte pixels (I420 and the like) share one copy of the
   * tile, which reads its plane's Args at a run-time offset: three copies
   * (about 200 KB of code) left the multiprocessors' instruction caches
   * with the hot loops of three tiles at once; planes of other pixels each
   * their own copy, its Args at a constant offset */
  if constexpr (PB == 1) {
    const int p = NP == 3 && b >= f.first[NP - 1] ? NP - 1 :
        b >= f.first[1] ? 1 : 0;
    const int i = b - f.first[p];
    mma_tile<1, W, SPLIT> (f.a[p], i % f.tiles_x[p], i / f.tiles_x[p]);
  } else if (b >= f.first[1]) {
    const int i = b - f.first[1];
    mma_tile<PB, W, SPLIT> (f.a[1], i % f.tiles_x[1], i / f.tiles_x[1]);
  } else {
    mma_tile<1, W, SPLIT> (f.a[0], b % f.tiles_x[0], b / f.tiles_x[0]);
  }
}

/* ---- The two-pass tensor-core kernels: 8-bit samples, BOTH, radii
 * above kMmaR ----
 *
 * At larger radii the fused kernel's tile would filter its 2 ry halo rows
 * again (3x the rows of a 64-row tile at radius 64) and stage 2 rx halo
 * pixels for every 32 output pixels. So the passes are two launches here,
 * through a workspace (cf_stencil_device_plan_workspace_bytes ()), with
 * the same products and sums as the fused kernel:
 * - stencil_rows_mma_kernel (): h of every row of the picture and of
 *   ry' rows above and below it (rows through the border, as the fused
 *   kernel stages them), into the workspace as the fused kernel's two byte
 *   planes, in quads: word (Q, j) of a plane holds sample j of h rows 4 Q
 *   .. 4 Q + 3 (h row i is picture row i - ry'), which is a columns B
 *   fragment's register;
 * - stencil_columns_mma_kernel (): the columns from those words, copied
 *   to shared memory and from there into registers, each word into the
 *   products of several m tiles and k tiles; the output tile through
 *   shared memory as whole vectors.
 * A copied channel (alpha) skips the products: the rows kernel puts its
 * staged sample in h's low byte, and the columns kernel takes it back
 * from the h row of the output row.
 * A band longer than 32 takes k_tiles k tiles of 32: the taps of an axis
 * of radius r are centred in r' = 16 k_tiles - 8 (long_radius ()), so
 * that a m tile's 16 outputs read exactly k_tiles x 32 inputs. */
constexpr int kLongSamples = 256;       /* a rows block's output samples */
constexpr int kLongOut = 128;           /* a columns block's output samples */
constexpr int kLongColRows = 128;       /* and rows: the taller, the fewer
                                         * halo rows read again */
constexpr int kLongRows = kChunkRows;   /* a rows block's h rows */
static_assert (kLongRows % 8 == 0 && kLongColRows % 16 == 0,
    "whole n tiles of h rows, whole m tiles of output rows");
/* the columns kernel's h tile: the quad rows its longest band reads, each
 * kLongOut words and a pad that puts the four quad rows of a B fragment's
 * load 8 banks apart */
constexpr int kColQuadRows = kLongColRows / 4 + 8 * kLongTiles - 4;
constexpr int kColQuadWords = kLongOut + 8;

template <int PB>
struct LongShape {
  static constexpr int kTilePixels = kLongSamples / PB;
  static constexpr int kStaged = kTilePixels + 32 * kLongTiles - 16;
  /* words of a quad row of the h tile; the pad keeps the rows' stores
   * (lanes PB words apart, two quad rows) free of bank conflicts */
  static constexpr int kQuadWords = kLongSamples + (PB == 4 ? 2 : 8 * PB);
  static constexpr int kPlaneBytes = kLongRows / 4 * kQuadWords * 4;
  /* the A fragments of each k tile of the band, per lane (uint4) */
  static constexpr int kFragBytes = 2 * kLongTiles * 32 * 16;
};

/* The k tiles of 32 inputs that the 16 outputs of a m tile read at
 * radius @r, and the radius of the band they hold, which the taps are
 * centred in: 16 + 2 r' = 32 k_tiles. r' is a multiple of 8, so staged
 * rows keep the alignment the B loads need, and h rows their quads. */
__host__ __device__ __forceinline__ int
long_k_tiles (int r)
{
  return (16 + 2 * r + 31) / 32;
}

__host__ __device__ __forceinline__ int
long_radius (int r)
{
  return 16 * long_k_tiles (r) - 8;
}

/* Layout of the rows kernel's shared memory: weights and fragments, the
 * staged rows (16 PB bytes apart modulo 128, as in the fused kernel), h's
 * tile. The columns kernel's: weights and fragments, the h quad rows its
 * tile reads, its output tile. */
template <int PB>
__host__ __device__ __forceinline__ Shared
shared_layout_long (bool rows)
{
  typedef LongShape<PB> L;

  return rows ? layout_of (kWBytesWords * 4 + L::kFragBytes,
      L::kStaged * PB, 16 * PB % 128, 2 * L::kPlaneBytes, 0) :
      layout_of (kWBytesWords * 4 + L::kFragBytes, 0, -1,
      2 * kColQuadRows * kColQuadWords * 4, kLongOut, kLongColRows);
}

/* The workspace of a plane of @width x @height PB-byte pixels whose
 * columns take @k_tiles_y k tiles: @rows h rows (the rows kernel's whole
 * tiles, at least what the columns kernel reads), @pitch bytes a quad
 * row; returns the bytes of both planes. */
__host__ __forceinline__ size_t
long_layout (int width, int height, int pb, int k_tiles_y, int *rows,
    size_t * pitch)
{
  const int pixels = kLongSamples / pb;
  const int read = (height + 15) / 16 * 16 + 32 * k_tiles_y - 16;

  *rows = (read + kLongRows - 1) / kLongRows * kLongRows;
  *pitch = (size_t) 4 * ((width + pixels - 1) / pixels * pixels) * pb;
  return 2 * (size_t) (*rows / 4) * *pitch;
}

/* The two passes' A fragments in shared memory (long_fragments ()),
 * after Args::wbytes. */
__device__ __forceinline__ const uint4 *
long_frag_base (uint8_t * smem, const Shared & sh)
{
  return (const uint4 *) (smem + sh.weights + kWBytesWords * 4);
}

/* Args::wbytes into shared memory, for long_fragments (). */
__device__ __forceinline__ void
long_weights (const Args & a, uint8_t * smem, const Shared & sh, int tid)
{
  uint32_t *s_wb = (uint32_t *) (smem + sh.weights);

  for (int i = tid; i < kWBytesWords; i += kThreads)
    s_wb[i] = a.wbytes[i];
}

/* Stages every k tile's A fragments of the band at byte row @row of the
 * weights (0: x, 2: y) into shared memory, warp by warp. */
template <int PB>
__device__ __forceinline__ void
long_fragments (const Args & a, uint8_t * smem, const Shared & sh,
    int row, int k_tiles, int warp, int lane)
{
  const uint32_t *s_wb = (const uint32_t *) (smem + sh.weights);
  uint4 *s_frag = (uint4 *) long_frag_base (smem, sh);

  for (int i = warp; i < 2 * k_tiles; i += kThreads / 32)
    store_fragment (s_wb, (row + (i & 1)) * kWRow + 32 * (i >> 1),
        s_frag + i * 32, lane);
}

/* The rows kernel: h rows 32 by .. + 31 of pixels kTilePixels bx .. */
template <int PB, int SPLIT>
__global__ void __launch_bounds__ (kThreads)
stencil_rows_mma_kernel (Args a)
{
  typedef LongShape<PB> L;
  extern __shared__ uint4 s_raw[];
  uint8_t *smem = (uint8_t *) s_raw;
  const Shared sh = shared_layout_long<PB> (true);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int g = lane >> 2, q = lane & 3;
  const uint4 *s_frag = long_frag_base (smem, sh);
  Tile t;

  /* staged pixel i is picture pixel x0 - rx + i, staged row i picture row
   * y0 - ry + i (row_of ()) */
  t.x0 = blockIdx.x * L::kTilePixels;
  t.y0 = blockIdx.y * kLongRows;
  t.rows = kLongRows;
  t.seg = (L::kTilePixels + 32 * a.k_tiles_x - 16) * PB;
  t.b_lo = imax (0, a.rx - t.x0) * PB;
  t.b_hi = imin (t.seg / PB, a.width - t.x0 + a.rx) * PB;
  t.out_rows = t.out_bytes = t.out_lg = 0;
  t.in_lg = lg_at_least ((15 + t.seg + 15) / 16);

  /* the weights (the first kWBytesWords threads) and where each staged
   * row comes from (the last kLongRows) side by side before one barrier;
   * the copies issued before the fragments are made */
  static_assert (kWBytesWords + kLongRows <= kThreads, "one item a thread");
  const int ri = tid - (kThreads - kLongRows);
  long_weights (a, smem, sh, tid);
  const bool partial = __syncthreads_or (ri >= 0
      && stage_row_info<PB> (a, t, sh, smem, 0, kLongRows, ri));
  stage_rows<PB, 1> (a, t, sh, smem, 0, kLongRows, tid, partial, false);
  long_fragments<PB> (a, smem, sh, 0, a.k_tiles_x, warp, lane);
#ifdef __CUDA_ARCH__
  __pipeline_wait_prior (0);
#endif
  __syncthreads ();

  /* a warp's item: 16 pixels (m tile mt) of 8 rows (n tile nt), all
   * channels, k tile by k tile */
  const Row *s_rows = (const Row *) (smem + sh.rows);
  uint8_t *h_lo = smem + sh.inter, *h_hi = h_lo + L::kPlaneBytes;
  constexpr int kMTiles = L::kTilePixels / 16;

  for (int it = warp; it < kLongRows / 8 * kMTiles; it += kThreads / 32) {
    const int nt = it / kMTiles, mt = it - nt * kMTiles;
    const int i = nt * 8 + g;
    const uint8_t *px = smem + sh.in + i * sh.in_stride + s_rows[i].shift +
        (mt * 16 + 4 * q) * PB;
    int32_t lo[PB][4], hi[PB][4];

UNROLL
    for (int kt = 0; kt < kLongTiles; kt++) {
      if (kt >= a.k_tiles_x)
        break;
      const uint4 fl = s_frag[2 * kt * 32 + lane];
      const uint4 fh = s_frag[(2 * kt + 1) * 32 + lane];
      const uint32_t wlo[4] = { fl.x, fl.y, fl.z, fl.w };
      const uint32_t whi[4] = { fh.x, fh.y, fh.z, fh.w };
      uint32_t b0[PB], b1[PB];

      channel_words<PB> (px + 32 * kt * PB, b0);
      channel_words<PB> (px + (32 * kt + 16) * PB, b1);
UNROLL
      for (int c = 0; c < PB; c++) {
        if (a.skip & (1u << c))
          continue;
        if (kt == 0) {
          imma<false, false> (lo[c], wlo, b0[c], b1[c]);
          imma<SPLIT == kMmaSigned, false> (hi[c], whi, b0[c], b1[c]);
        } else {
          imma<false, false> (lo[c], wlo, b0[c], b1[c], lo[c][0], lo[c][1],
              lo[c][2], lo[c][3]);
          imma<SPLIT == kMmaSigned, false> (hi[c], whi, b0[c], b1[c],
              hi[c][0], hi[c][1], hi[c][2], hi[c][3]);
        }
      }
    }
    /* C: pixels 16 mt + g (+ 8), rows 8 nt + 2 q and the next: half of
     * quad row 2 nt + q / 2; a copied channel's h is its staged sample */
    const int r0 = nt * 8 + 2 * q;
    const uint8_t *raw0 = smem + sh.in + r0 * sh.in_stride +
        s_rows[r0].shift + (mt * 16 + g + a.rx) * PB;
    const uint8_t *raw1 = smem + sh.in + (r0 + 1) * sh.in_stride +
        s_rows[r0 + 1].shift + (mt * 16 + g + a.rx) * PB;
UNROLL
    for (int c = 0; c < PB; c++) {
      const bool copy = a.skip & (1u << c);
UNROLL
      for (int e = 0; e < 2; e++) {
        /* h in bits 16 .. 31 (h_high ()) */
        uint32_t h0, h1;

        if (copy) {
          h0 = (uint32_t) raw0[8 * e * PB + c] << 16;
          h1 = (uint32_t) raw1[8 * e * PB + c] << 16;
        } else {
          h0 = h_high<SPLIT> (lo[c], hi[c], 2 * e);
          h1 = h_high<SPLIT> (lo[c], hi[c], 2 * e + 1);
        }
        const int at = 4 * ((2 * nt + (q >> 1)) * L::kQuadWords +
            (mt * 16 + g + 8 * e) * PB + c) + 2 * (q & 1);

        *(uint16_t *) (h_lo + at) = (uint16_t) __byte_perm (h0, h1, 0x0062);
        *(uint16_t *) (h_hi + at) = (uint16_t) __byte_perm (h0, h1, 0x0073);
      }
    }
  }
  __syncthreads ();

  /* the tile's quad rows to the workspace, 8-byte vectors (the pad
   * leaves a quad row on 8 bytes) */
  constexpr int kVectors = kLongSamples * 4 / 8;       /* of a quad row */
  for (int v = tid; v < 2 * kLongRows / 4 * kVectors; v += kThreads) {
    const int plane = v / (kLongRows / 4 * kVectors);
    const int qr = v / kVectors % (kLongRows / 4), x = v % kVectors;

    *(uint2 *) (a.h + plane * a.h_plane + (size_t) (t.y0 / 4 + qr) *
        a.h_pitch + (size_t) t.x0 * PB * 4 + 8 * x) =
        *(const uint2 *) (smem + sh.inter + plane * L::kPlaneBytes +
        4 * qr * L::kQuadWords + 8 * x);
  }
}

/* The columns kernel, for bands of NK k tiles: output rows kLongColRows
 * by .., samples kLongOut bx .. The h words the tile reads are copied to
 * shared memory first (asynchronously, all at once). A warp takes 8
 * samples (n tile) down the tile's m tiles, with every word of h they read
 * in registers (m tile mt and k tile kt read words mt + 2 kt and the next)
 * and the band's fragments too. */
template <int PB, int SPLIT, int NK>
__global__ void __launch_bounds__ (kThreads, 2)
stencil_columns_mma_kernel (Args a)
{
  constexpr int kMTiles = kLongColRows / 16;
  constexpr int kWords = kMTiles + 2 * NK - 1;
  extern __shared__ uint4 s_raw[];
  uint8_t *smem = (uint8_t *) s_raw;
  const Shared sh = shared_layout_long<PB> (false);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int g = lane >> 2, q = lane & 3;
  const uint4 *s_frag = long_frag_base (smem, sh);
  const uint32_t *s_h = (const uint32_t *) (smem + sh.inter);
  Tile t;

  t.x0 = blockIdx.x * (kLongOut / PB);
  t.y0 = blockIdx.y * kLongColRows;
  t.out_rows = imin (kLongColRows, a.height - t.y0);
  t.out_bytes = imin (kLongOut / PB, a.width - t.x0) * PB;
  t.out_lg = lg_at_least (kLongOut / 16);
  /* m tiles inside the picture, and the quad rows they read */
  const int m_tiles = imin (kMTiles, (a.height - t.y0 + 15) / 16);
  const int quads = 4 * m_tiles + 8 * NK - 4;

  /* h's quad rows y0 / 4 .., samples x0 PB .. + kLongOut - 1 */
  constexpr int kVectors = kLongOut * 4 / 16;  /* of a quad row */
  for (int v = tid; v < 2 * quads * kVectors; v += kThreads) {
    const int plane = v / (quads * kVectors);
    const int qr = v / kVectors % quads, x = v % kVectors;
    uint8_t *s_vec = smem + sh.inter + 4 * ((plane * kColQuadRows + qr) *
        kColQuadWords) + 16 * x;
    const uint8_t *src = a.h + plane * a.h_plane + (size_t) (t.y0 / 4 +
        qr) * a.h_pitch + (size_t) t.x0 * PB * 4 + 16 * x;

    __pipeline_memcpy_async (s_vec, src, 16);
  }
  __pipeline_commit ();
  long_weights (a, smem, sh, tid);
  /* aligned launches: every output row starts on 16 bytes */
  for (int r = tid; r < kLongColRows; r += kThreads)
    ((int32_t *) (smem + sh.out_shifts))[r] = 0;
  __syncthreads ();
  long_fragments<PB> (a, smem, sh, 2, NK, warp, lane);
  __pipeline_wait_prior (0);
  __syncthreads ();

  uint32_t wlo[NK][4], whi[NK][4];
UNROLL
  for (int kt = 0; kt < NK; kt++) {
    const uint4 fl = s_frag[2 * kt * 32 + lane];
    const uint4 fh = s_frag[(2 * kt + 1) * 32 + lane];

    wlo[kt][0] = fl.x; wlo[kt][1] = fl.y; wlo[kt][2] = fl.z; wlo[kt][3] = fl.w;
    whi[kt][0] = fh.x; whi[kt][1] = fh.y; whi[kt][2] = fh.z; whi[kt][3] = fh.w;
  }

  for (int nt = warp; nt < kLongOut / 8; nt += kThreads / 32) {
    /* B of k tile kt of m tile mt: sample 8 nt + g of the tile's quad rows
     * q + 4 (mt + 2 kt) and + 4: words wl[mt + 2 kt], wl[mt + 2 kt + 1] */
    const uint32_t *col = s_h + q * kColQuadWords + nt * 8 + g;
    uint32_t wl[kWords], wh[kWords];

UNROLL
    for (int u = 0; u < kWords; u++)
      if (u < m_tiles + 2 * NK - 1) {
        wl[u] = col[4 * u * kColQuadWords];
        wh[u] = col[(kColQuadRows + 4 * u) * kColQuadWords];
      }
    /* C: rows 16 mt + g (+ 8), samples 8 nt + 2 q and the next; a copied
     * sample is the low byte of its h, the picture's sample (the rows
     * kernel's), ry h rows down */
    const int js = nt * 8 + 2 * q;
    const bool keep0 = a.skip & (1u << (js % PB));
    const bool keep1 = a.skip & (1u << ((js + 1) % PB));
    const uint8_t *raw = (const uint8_t *) (s_h + js + a.ry / 4 *
        kColQuadWords);
UNROLL
    for (int mt = 0; mt < kMTiles; mt++) {
      if (mt >= m_tiles)
        break;
      ColumnSums sums;
UNROLL
      for (int kt = 0; kt < NK; kt++)
        column_products<SPLIT> (wlo[kt], whi[kt], wl[mt + 2 * kt],
            wl[mt + 2 * kt + 1], wh[mt + 2 * kt], wh[mt + 2 * kt + 1], sums,
            kt == 0);
UNROLL
      for (int e = 0; e < 2; e++) {
        const int r = mt * 16 + g + 8 * e;
        const int at = 4 * ((r & ~3) / 4 * kColQuadWords) + (r & 3);
        int32_t v[2] = { column_result<SPLIT> (sums, 2 * e),
          column_result<SPLIT> (sums, 2 * e + 1) };

        if (keep0)
          v[0] = raw[at];
        if (keep1)
          v[1] = raw[at + 4];
        *(uint16_t *) (smem + sh.out + r * sh.out_stride + js) =
            (uint16_t) __byte_perm (v[0], v[1], 0x0040);
      }
    }
  }
  __syncthreads ();
  store_tile<PB> (a, t, sh, smem, tid, true);
}

/* ---- The sliding-window kernel: 8-bit samples, BOTH, radius 1 ----
 *
 * The tiled kernels above pay for their shared-memory phases (staging,
 * the intermediate tile, the output tile and their barriers) more than for
 * the arithmetic, which at radius 1 is little. Here a thread owns
 * one aligned vector of WinShape::kBytes bytes of a row (as many samples,
 * win_vec_bytes ()) and walks
 * down a strip of a.strip output rows, no shared tile and no barrier:
 * - a warp copies its rows ahead into shared memory (cp.async) and each
 *   lane reads its window from there (win_walk_staged ()): every warp of
 *   4-byte pixels, whose words outside the picture are border pixels
 *   (win_lane ()), and the warps of 1- and 2-byte pixels whose strip lies
 *   inside the picture, their vectors and halos too;
 * - the others load each input row's vector 2 R rows ahead into registers
 *   (a ring of 2 R + 1 vectors), with the R PB bytes on each side that its
 *   horizontal taps need taken from the neighbouring lanes (shuffles);
 *   lanes 0 and 31 load theirs; the vectors at the picture's left and
 *   right edges read their bytes through the border (a per-thread table
 *   of offsets made once, all loads of a row in flight together), a
 *   CONSTANT row is a word of border bytes (win_fetch (), win_walk ());
 * - the rows pass turns the vector into its intermediates h (stencil.h),
 *   kept for the 2 R + 1 latest rows (a second ring);
 * - the columns pass makes the output samples of the row R rows up from
 *   those, and stores them as one vector.
 * A copied sample (alpha) is filtered with the identity on both axes,
 * which gives back its byte exactly: (2^16 (v 2^16 + 2^9 >> 10) + 2^21) >>
 * 22 = v; so the weights are per channel (Args::wk) and every sample takes
 * the same path (but the staged walk of kWinDot copies the alpha of 4-byte
 * pixels from the picture instead). The sums are cf_stencil_cpu ()'s
 * (int32: the plan's columns must fit, !columns_wide ()), so the bytes are
 * the same. Launches
 * take it on 16-byte aligned planes and pitches only (cf_stencil_cuda (),
 * as for the tensor cores). */
constexpr int kWinThreads = 64;         /* a block: 64 vectors of a row */
/* How a window kernel makes its sums:
 * - kWinSaturating, kWinInRange: int32 multiply-adds of each sample by each
 *   tap, the output clamped to 0 .. 255 or known to lie there
 *   (never_saturates ());
 * - kWinDot: known to lie there, and every rows weight 0 .. 65535 (a
 *   copied channel's identity as 65535, which gives a byte's h exactly:
 *   (65535 v + 2^9) >> 10 = 64 v for v <= 512): the rows pass takes dp2a,
 *   two unsigned int16 weights times two bytes in one instruction, on
 *   windows of four samples of a channel permuted into a word; the columns
 *   pass sums 4 (w h) + 2^23, which holds the output in its top byte, so
 *   that it is packed without a shift (win_sums_dot (),
 *   win_columns_dot ()). */
enum WinMode { kWinSaturating, kWinInRange, kWinDot };
/* Bytes of a thread's vector for @pb-byte pixels: 16 for 4-byte pixels
 * (every warp walks staged: 4K RGBA at radius 1 in 23.5 us against 26.0
 * with 8 on an H200, 12.0 M instructions against 16.6 M), 8 for 1- and
 * 2-byte ones (one uint2; in the register walk 8 measured faster than 16:
 * 80 registers a thread against 116, half again as many warps to hide the
 * loads). */
__host__ __device__ constexpr int
win_vec_bytes (int pb)
{
  return pb == 4 ? 16 : 8;
}

/* The window of a thread: kBytes bytes of a row (its vector) and the R PB
 * bytes each side its horizontal taps read, in whole words; and a staged
 * row's slot (win_walk_staged ()): the word left of the warp's vectors at
 * byte kFirst - 4 (lane 0 copies it), the 32 vectors from byte kFirst, the
 * word right of them at byte kFirst + 32 kBytes (lane 31). */
template <int PB, int R>
struct WinShape {
  static constexpr int kTaps = 2 * R + 1;
  static constexpr int kBytes = win_vec_bytes (PB);
  static constexpr int kVec = kBytes / 4;       /* words of the vector */
  static constexpr int kHalo = (R * PB + 3) / 4;        /* words each side */
  static constexpr int kWords = kVec + 2 * kHalo;       /* halo, vector, halo */
  static constexpr int kFirst = 16;
  static constexpr int kSlot = kFirst + 32 * kBytes + 16;
};

/* Where the bytes of an edge vector's window come from (@edge: it meets
 * the picture's left or right edge), once per thread: byte b of the
 * window, at row byte x0 - 4 kHalo + b, reads row byte s_off[b][thread],
 * or -1: CONSTANT's border. */
template <int PB, int R>
__device__ __forceinline__ void
win_offsets (const Args & a, int x0, bool edge,
    int32_t (*s_off)[kWinThreads])
{
  typedef WinShape<PB, R> W;

  for (int b = 0; edge && b < 4 * W::kWords; b++) {
    /* from -16 on, so that the division and modulo see no negative */
    const int pos = x0 - 4 * W::kHalo + b + 16;
    const int sx = border_index (a.border, pos / PB - 16 / PB, a.width);

    s_off[b][threadIdx.x] = sx < 0 ? -1 : sx * PB + pos % PB;
  }
}

/* The words of input row @y (picture row index, maybe outside) around the
 * vector at byte @x0 into @e: halo, the vector, halo. A vector past the
 * row's end gets zeros (no lane reads them). Lanes 0 and 31 load their
 * outer halo; the other lanes' halos come from their neighbours later
 * (win_rows ()), unless @edge: then every byte comes through the border
 * (win_offsets (), all loads in flight at once). A CONSTANT row outside
 * the picture is @cword, the border's bytes, in every word. */
template <int PB, int R>
__device__ __forceinline__ void
win_fetch (const Args & a, int y, int x0, int lane, bool edge,
    uint32_t cword, const int32_t (*s_off)[kWinThreads],
    uint32_t (&e)[WinShape<PB, R>::kWords])
{
  typedef WinShape<PB, R> W;
  static_assert (W::kBytes == 8, "the vector is one uint2");
  const int sy = border_index (a.border, y, a.height);
  const uint8_t *row = a.src + (size_t) imax (sy, 0) * a.src_pitch;

UNROLL
  for (int w = 0; w < W::kWords; w++)
    e[w] = sy < 0 ? cword : 0;
  if (sy < 0 || x0 >= a.width * PB)
    return;
  if (!edge) {
    const uint2 v = ld ((const uint2 *) (row + x0));

    e[W::kHalo] = v.x;
    e[W::kHalo + 1] = v.y;
UNROLL
    for (int w = 0; w < W::kHalo; w++) {
      if (lane == 0)
        e[w] = ld ((const uint32_t *) (row + x0 - 4 * W::kHalo) + w);
      if (lane == 31)
        e[W::kHalo + W::kVec + w] = ld ((const uint32_t *) (row + x0 +
                W::kBytes) + w);
    }
    return;
  }
UNROLL
  for (int b = 0; b < 4 * W::kWords; b++) {
    const int32_t off = s_off[b][threadIdx.x];
    const uint32_t v = off >= 0 ? ld (row + off) : cword >> 8 * (b % 4) & 255;
    e[b / 4] |= v << 8 * (b % 4);
  }
}

/* Sample @j of the extended vector @x (from its left halo on). */
template <int PB, int R>
__host__ __device__ __forceinline__ int32_t
win_sample (const uint32_t (&x)[WinShape<PB, R>::kWords], int j)
{
  const int b = j + 4 * WinShape<PB, R>::kHalo;
  return (int32_t) ((x[b >> 2] >> 8 * (b & 3)) & 255);
}

/* The int32 rows pass (kWinSaturating, kWinInRange) on the extended
 * vector @x (its halo words filled): each sample times each tap. */
template <int PB, int R>
__device__ __forceinline__ void
win_sums (const Args & a, const uint32_t (&x)[WinShape<PB, R>::kWords],
    int32_t (&h)[WinShape<PB, R>::kBytes])
{
  constexpr int kShift = CF_STENCIL_WEIGHT_BITS_8 - kInterShift;

UNROLL
  for (int j = 0; j < WinShape<PB, R>::kBytes; j++) {
    int32_t acc = 1 << (kShift - 1);
UNROLL
    for (int t = 0; t < WinShape<PB, R>::kTaps; t++)
      acc += a.wk[0][j % PB][t] * win_sample<PB, R> (x,
          j + (t - R) * PB);
    h[j] = acc >> kShift;
  }
}

/* Whose taps channel @c of a pixel takes (Args::wpair, Args::wy4): its
 * own, but with one channel COPY copied the others share the plan's, and
 * take channel 0's (1's when COPY is 0): a third of the registers, or of
 * the reads from the kernel's parameters, that each channel's own took. */
template <int COPY>
__device__ __forceinline__ int
win_taps_of (int c)
{
  return COPY < 0 ? c : COPY == 0 ? 1 : 0;
}

/* kWinDot's rows pass (radius 1) on the extended vector @x (its halo words
 * filled): output samples j and j + PB of a channel share the window of
 * four samples j - PB, j, j + PB, j + 2 PB, permuted into one word (6 to 8
 * byte permutes for the four windows of each 8 bytes of the vector), and
 * each takes two dp2a:
 * S_j = lo ((w0, w1), win) + hi ((w2, 0), win), S_j+PB = lo ((0, w0), win)
 * + hi ((w1, w2), win), Args::wpair's four words; h = (S + 2^9) >> 10.
 * COPY (0 .. 3, 4-byte pixels): that channel is copied, and its h is not
 * made (win_columns_dot () takes its bytes from the picture). */
template <int PB, int COPY>
__device__ __forceinline__ void
win_sums_dot (const Args & a,
    const uint32_t (&x)[WinShape<PB, kWinR>::kWords],
    int32_t (&h)[WinShape<PB, kWinR>::kBytes])
{
  constexpr int kShift = CF_STENCIL_WEIGHT_BITS_8 - kInterShift;

  /* 8 bytes at a time (4-byte pixels: two), from the words around them */
UNROLL
  for (int p = 0; p < WinShape<PB, kWinR>::kBytes / 8; p++) {
    const uint32_t y[4] = { x[2 * p], x[2 * p + 1], x[2 * p + 2],
      x[2 * p + 3]
    };
    /* the windows (window byte k: row byte j + (k - 1) PB, y's byte 4 +
     * that) and the first output sample of each */
    uint32_t win[4];
    int first[4];

    if constexpr (PB == 1) {
      win[0] = __byte_perm (y[0], y[1], 0x6543);
      win[1] = __byte_perm (y[1], y[2], 0x4321);
      win[2] = __byte_perm (y[1], y[2], 0x6543);
      win[3] = __byte_perm (y[2], y[3], 0x4321);
      first[0] = 0, first[1] = 2, first[2] = 4, first[3] = 6;
    } else if constexpr (PB == 2) {
      const uint32_t u = __byte_perm (y[1], y[2], 0x6420);
      const uint32_t v = __byte_perm (y[1], y[2], 0x7531);

      win[0] = __byte_perm (y[0], u, 0x6542);
      win[1] = __byte_perm (y[0], v, 0x6543);
      win[2] = __byte_perm (u, y[3], 0x4321);
      win[3] = __byte_perm (v, y[3], 0x5321);
      first[0] = 0, first[1] = 1, first[2] = 4, first[3] = 5;
    } else {
      static_assert (PB == 4, "pixels of 1, 2 or 4 bytes");
      const uint32_t lo01 = __byte_perm (y[0], y[1], 0x5140);
      const uint32_t lo23 = __byte_perm (y[2], y[3], 0x5140);
      const uint32_t hi01 = __byte_perm (y[0], y[1], 0x7362);
      const uint32_t hi23 = __byte_perm (y[2], y[3], 0x7362);

      win[0] = __byte_perm (lo01, lo23, 0x5410);
      win[1] = __byte_perm (lo01, lo23, 0x7632);
      win[2] = __byte_perm (hi01, hi23, 0x5410);
      win[3] = __byte_perm (hi01, hi23, 0x7632);
      first[0] = 0, first[1] = 1, first[2] = 2, first[3] = 3;
    }
UNROLL
    for (int q = 0; q < 4; q++) {
      const uint32_t *w = a.wpair[win_taps_of<COPY> (first[q] % PB)];

      if (PB == 4 && q == COPY)
        continue;
      const uint32_t round = 1u << (kShift - 1);

      h[8 * p + first[q]] = dot2<true, false> (w[1], win[q],
          dot2<false, false> (w[0], win[q], round)) >> kShift;
      h[8 * p + first[q] + PB] = dot2<true, false> (w[3], win[q],
          dot2<false, false> (w[2], win[q], round)) >> kShift;
    }
  }
}

/* The rows pass of @x as MODE makes it (COPY: win_sums_dot ()). */
template <int PB, int R, int MODE, int COPY>
__device__ __forceinline__ void
win_sums_of (const Args & a, const uint32_t (&x)[WinShape<PB, R>::kWords],
    int32_t (&h)[WinShape<PB, R>::kBytes])
{
  if constexpr (MODE == kWinDot)
    win_sums_dot<PB, COPY> (a, x, h);
  else
    win_sums<PB, R> (a, x, h);
}

/* The rows pass of the vector in @e: its intermediates into @h. The
 * halos of lanes that did not load theirs come from the neighbouring
 * lanes (every lane of the warp takes part in the shuffles). */
template <int PB, int R, int MODE>
__device__ __forceinline__ void
win_rows (const Args & a, const uint32_t (&e)[WinShape<PB, R>::kWords],
    int lane, bool edge, int32_t (&h)[WinShape<PB, R>::kBytes])
{
  typedef WinShape<PB, R> W;
  uint32_t x[W::kWords];

UNROLL
  for (int w = 0; w < W::kWords; w++)
    x[w] = e[w];
UNROLL
  for (int w = 0; w < W::kHalo; w++) {
    const uint32_t left = __shfl_up_sync (0xffffffffu, e[W::kVec + w], 1);
    const uint32_t right = __shfl_down_sync (0xffffffffu, e[W::kHalo + w],
        1);
    if (!edge && lane != 0)
      x[w] = left;
    if (!edge && lane != 31)
      x[W::kHalo + W::kVec + w] = right;
  }
  win_sums_of<PB, R, MODE, -1> (a, x, h);
}

/* The columns pass: the vector's output samples from the intermediates of 2 R +
 * 1 rows (@h, the ring, the oldest row at slot @first), as words; clamped
 * to 0 .. 255 if @SAT. */
template <int PB, int R, bool SAT>
__device__ __forceinline__ void
win_columns (const Args & a,
    const int32_t (&h)[2 * R + 1][WinShape<PB, R>::kBytes], int first,
    uint32_t (&out)[WinShape<PB, R>::kVec])
{
  constexpr int kShift = CF_STENCIL_WEIGHT_BITS_8 + kInterShift;

UNROLL
  for (int w = 0; w < WinShape<PB, R>::kVec; w++)
    out[w] = 0;
UNROLL
  for (int j = 0; j < WinShape<PB, R>::kBytes; j++) {
    int32_t acc = 1 << (kShift - 1);
UNROLL
    for (int t = 0; t < 2 * R + 1; t++)
      acc += a.wk[1][j % PB][t] * h[(first + t) % (2 * R + 1)][j];
    acc >>= kShift;
    if (SAT)
      acc = saturate (acc, 255);
    out[j / 4] |= (uint32_t) acc << 8 * (j % 4);
  }
}

/* kWinDot's columns pass, as win_columns () for outputs known to lie
 * within 0 .. 255: 4 S = 4 (sum w h + 2^21), Args::wy4, is below 2^32, its
 * top byte the output, packed by byte permutes without a shift. A copied
 * channel COPY (win_sums_dot ()) takes its byte from @centre, the vector of
 * the output row's own input row. */
template <int PB, int R, int COPY>
__device__ __forceinline__ void
win_columns_dot (const Args & a,
    const int32_t (&h)[2 * R + 1][WinShape<PB, R>::kBytes], int first,
    const uint32_t (&centre)[WinShape<PB, R>::kVec],
    uint32_t (&out)[WinShape<PB, R>::kVec])
{
  constexpr int kShift = CF_STENCIL_WEIGHT_BITS_8 + kInterShift;

UNROLL
  for (int w = 0; w < WinShape<PB, R>::kVec; w++) {
    uint32_t s[4];

UNROLL
    for (int b = 0; b < 4; b++) {
      const int j = 4 * w + b;

      if (PB == 4 && b == COPY) {
        s[b] = centre[w];
        continue;
      }
      s[b] = 1u << (kShift + 1);
UNROLL
      for (int t = 0; t < 2 * R + 1; t++)
        s[b] += (uint32_t) a.wy4[win_taps_of<COPY> (j % PB)][t] *
            (uint32_t) h[(first + t) % (2 * R + 1)][j];
    }
    /* byte 3 of each sum, byte COPY of the copied channel's word */
    constexpr int b0 = COPY == 0 ? 0 : 3, b1 = COPY == 1 ? 1 : 3;
    constexpr int b2 = COPY == 2 ? 2 : 3, b3 = 3;
    out[w] = __byte_perm (__byte_perm (s[0], s[1], (4 + b1) << 4 | b0),
        __byte_perm (s[2], s[3], (4 + b3) << 4 | b2), 0x5410);
  }
}

/* The columns pass as MODE makes it (@centre: win_columns_dot ()). */
template <int PB, int R, int MODE, int COPY>
__device__ __forceinline__ void
win_columns_of (const Args & a,
    const int32_t (&h)[2 * R + 1][WinShape<PB, R>::kBytes], int first,
    const uint32_t (&centre)[WinShape<PB, R>::kVec],
    uint32_t (&out)[WinShape<PB, R>::kVec])
{
  if constexpr (MODE == kWinDot)
    win_columns_dot<PB, R, COPY> (a, h, first, centre, out);
  else
    win_columns<PB, R, MODE == kWinSaturating> (a, h, first, out);
}

/* The walks' loop over the @n input rows of a strip: @step (i, slot) for i
 * = 0 .. n - 1, slot = i % K as a compile-time constant
 * (std::integral_constant), so that the rings of K rows it indexes stay
 * in registers. */
template <int K, int U = 0, typename F>
__device__ __forceinline__ void
win_rows_from (int base, int n, F & step)
{
  if constexpr (U < K) {
    if (base + U < n) {
      step (base + U, std::integral_constant<int, U> ());
      win_rows_from<K, U + 1> (base, n, step);
    }
  }
}

template <int K, typename F>
__device__ __forceinline__ void
win_for_rows (int n, F step)
{
  for (int base = 0; base < n; base += K)
    win_rows_from<K> (base, n, step);
}

/* Rows staged ahead of a warp (win_walk_staged ()), in slots of
 * WinShape::kSlot bytes. 8: 4 and 16 measured slower (4K RGBA, the dp2a at
 * radius 1, H200: 40.9 and 40.3 us against 38.3) */
constexpr int kWinAhead = 8;

/* Where a lane of a staged walk takes the words of its part of a slot
 * from, once per thread (win_lane ()): byte offsets in the row, or -1 for
 * CONSTANT's border word. */
struct WinLane {
  int32_t word[4];              /* its vector's words (kVec of them) */
  int32_t halo;                 /* lane 0, 31: the word beside the warp's */
  bool whole;                   /* the words one aligned vector of the row */
  uint32_t at, hat;             /* their bytes in a slot (hat 0: no halo) */
};

/* The row offset of the word at byte @b of the row extended by the border
 * (a multiple of 4): @b itself inside the row; outside, for 4-byte pixels,
 * the pixel the border maps it to (-1: CONSTANT's). Words of 1- and 2-byte
 * pixels outside the row hold samples of several pixels, which no copy of
 * one word gives: their warps take win_walk (). */
template <int PB>
__device__ __forceinline__ int32_t
win_word_offset (const Args & a, int b)
{
  if (b >= 0 && b + 4 <= a.width * PB)
    return b;
  const int sx = border_index (a.border, b >> 2, a.width);

  return sx < 0 ? -1 : 4 * sx;
}

template <int PB>
__device__ __forceinline__ WinLane
win_lane (const Args & a, int x0, int lane)
{
  typedef WinShape<PB, kWinR> W;
  WinLane l;

  l.whole = true;
UNROLL
  for (int k = 0; k < 4; k++) {
    l.word[k] = k < W::kVec ? win_word_offset<PB> (a, x0 + 4 * k) : 0;
    if (k < W::kVec)
      l.whole = l.whole && l.word[k] == l.word[0] + 4 * k;
  }
  l.whole = l.whole && l.word[0] >= 0 && l.word[0] % W::kBytes == 0;
  l.at = W::kFirst + W::kBytes * lane;
  l.halo = lane == 0 ? win_word_offset<PB> (a, x0 - 4) :
      lane == 31 ? win_word_offset<PB> (a, x0 + W::kBytes) : 0;
  l.hat = lane == 0 ? W::kFirst - 4 : lane == 31 ? W::kFirst + 32 *
      W::kBytes : 0;
  return l;
}

/* Whether a warp walks with the border's words and rows (EDGE in
 * win_walk_staged ()): its strip's rows not all @inside the picture, or a
 * lane's vector not one aligned vector of the row (at the right edge, or
 * past it), or a halo word CONSTANT's. The same for the whole warp. */
template <int PB>
__device__ __forceinline__ bool
win_walk_edge (const WinLane & l, bool inside, int x0, int row_bytes)
{
  return !inside || !__all_sync (0xffffffffu, l.whole && l.halo >= 0
      && x0 + WinShape<PB, kWinR>::kBytes <= row_bytes);
}

/* One word into the shared memory at @s: asynchronously from @row + @off,
 * or @cword where @off is -1. */
__device__ __forceinline__ void
win_word (uint32_t s, const uint8_t * row, int32_t off, uint32_t cword)
{
  if (off >= 0)
    copy_async<4> (s, row + off);
  else
    asm volatile ("st.shared.u32 [%0], %1;" :: "r" (s), "r" (cword)
        : "memory");
}

/* This lane's part of a row into the slot at shared address @slot:
 * asynchronously from @row, or @cword in every word (@row NULL: a CONSTANT
 * row outside the picture). Unless EDGE, @row is not NULL, the lane's
 * vector is one aligned vector of the row (l.whole) and its halo, if any,
 * is in the picture: one copy, and lanes 0 and 31 a predicated second. */
template <int PB, bool EDGE>
__device__ __forceinline__ void
win_stage (const WinLane & l, const uint8_t * row, uint32_t cword,
    uint32_t slot)
{
  typedef WinShape<PB, kWinR> W;

  if constexpr (!EDGE) {
    copy_async<W::kBytes> (slot + l.at, row + l.word[0]);
    asm volatile ("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %2, 0;\n\t"
        "@p cp.async.ca.shared.global [%0], [%1], 4;\n\t}"
        :: "r" (slot + l.hat), "l" (__cvta_generic_to_global (row +
                l.halo)), "r" (l.hat) : "memory");
    return;
  }
  if (row && l.whole) {
    copy_async<W::kBytes> (slot + l.at, row + l.word[0]);
  } else {
UNROLL
    for (int k = 0; k < W::kVec; k++)
      win_word (slot + l.at + 4 * k, row, row ? l.word[k] : -1, cword);
  }
  if (l.hat)
    win_word (slot + l.hat, row, row ? l.halo : -1, cword);
}

/* The word at shared address @s. */
__device__ __forceinline__ uint32_t
win_lds (uint32_t s)
{
  uint32_t v;

  asm volatile ("ld.shared.u32 %0, [%1];" : "=r" (v) : "r" (s) : "memory");
  return v;
}

/* The N (2 or 4) words of the aligned vector at shared address @s into @v
 * from @v[at] on. */
template <int N, int M>
__device__ __forceinline__ void
win_lds_vec (uint32_t s, uint32_t (&v)[M], int at)
{
  if constexpr (N == 2)
    asm volatile ("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r" (v[at]),
        "=r" (v[at + 1]) : "r" (s) : "memory");
  else
    asm volatile ("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r" (v[at]),
        "=r" (v[at + 1]), "=r" (v[at + 2]), "=r" (v[at + 3]) : "r" (s)
        : "memory");
}

/* The walk of a warp (stencil_window_kernel ()): its @n input rows, from
 * picture row y0 - R on, go through the kWinAhead slots at shared address
 * @ring, each row copied kAhead rows ahead of the one it makes (cp.async:
 * the copies in flight cost no registers; loads into registers two rows
 * ahead left the warps waiting on memory), and a lane reads its window,
 * halo words too, from the slot. Each lane copies the words @l names, so
 * that its vector's and the warp's halo words come through the border
 * where they leave the row; a row outside the picture is the row the
 * border maps it to, or a row of @cword (CONSTANT). A copied channel COPY
 * (kWinDot, 4-byte pixels) takes its bytes from the output row's own input
 * row, which stays in its slot: one row less ahead then. Unless EDGE
 * (win_walk_edge ()), the rows lie inside the picture, every lane's vector
 * too, and no word is CONSTANT's. */
template <int PB, int R, int MODE, int COPY, bool EDGE>
__device__ __forceinline__ void
win_walk_staged (const Args & a, const WinLane & l, int x0, int y0, int n,
    uint32_t cword, uint32_t ring)
{
  typedef WinShape<PB, R> W;
  static_assert (W::kHalo == 1, "one halo word a side");
  constexpr int kW = W::kTaps;
  constexpr int kAhead = kWinAhead - 1 - (COPY >= 0);
  /* the rows a pitch apart from the first on, or mapped one by one */
  const bool inside = !EDGE || (y0 - R >= 0 && y0 - R + n <= a.height);
  const int row_bytes = a.width * PB;
  const uint8_t *src = a.src + (size_t) imax (y0 - R, 0) * a.src_pitch;
  uint8_t *dst = a.dst + (size_t) y0 * a.dst_pitch + x0;
  int32_t h[kW][W::kBytes];
  auto stage = [&] (int i) {
    const uint8_t *row = src;

    if (inside) {
      src += a.src_pitch;
    } else {
      const int sy = border_index (a.border, y0 - R + i, a.height);

      row = sy < 0 ? NULL : a.src + (size_t) sy * a.src_pitch;
    }
    win_stage<PB, EDGE> (l, row, cword, ring + (unsigned) i % kWinAhead *
        W::kSlot);
  };

UNROLL
  for (int u = 0; u < kAhead; u++) {
    if (u < n)
      stage (u);
    /* a group for every row, empty past the strip, so that each wait
     * below counts the same */
    __pipeline_commit ();
  }
  win_for_rows<kW> (n, [&] (int i, auto slot) {
      constexpr int u = decltype (slot)::value;

      /* row i has come; every lane is done with the row whose slot takes
       * row i + kAhead */
      __pipeline_wait_prior (kAhead - 1);
      __syncwarp ();
      if (i + kAhead < n)
        stage (i + kAhead);
      __pipeline_commit ();

      const uint32_t s = ring + (unsigned) i % kWinAhead * W::kSlot + l.at;
      uint32_t x[W::kWords];

      x[0] = win_lds (s - 4);
      win_lds_vec<W::kVec> (s, x, 1);
      x[W::kWords - 1] = win_lds (s + W::kBytes);
      win_sums_of<PB, R, MODE, COPY> (a, x, h[u]);
      if (i >= 2 * R) {
        uint32_t o[W::kVec], c[W::kVec] = { 0 };

        if constexpr (COPY >= 0)
          win_lds_vec<W::kVec> (ring + (unsigned) (i - R) % kWinAhead *
              W::kSlot + l.at, c, 0);
        win_columns_of<PB, R, MODE, COPY> (a, h, (u + 1) % kW, c, o);
        if (!EDGE || x0 + W::kBytes <= row_bytes) {
          if constexpr (W::kVec == 4)
            *(uint4 *) dst = make_uint4 (o[0], o[1], o[2], o[3]);
          else
            *(uint2 *) dst = make_uint2 (o[0], o[1]);
        } else {
          /* 4-byte pixels: the row's last words */
UNROLL
          for (int k = 0; k < W::kVec; k++)
            if (x0 + 4 * k < row_bytes)
              ((uint32_t *) dst)[k] = o[k];
        }
        dst += a.dst_pitch;
      }
    });
}

/* A thread's walk down the strip (stencil_window_kernel (): warps of 1- and
 * 2-byte pixels at the picture's edges): @n input rows from picture row
 * y0 - R on, through the border. */
template <int PB, int R, int MODE>
__device__ __forceinline__ void
win_walk (const Args & a, int x0, int y0, int n, int lane, bool edge,
    uint32_t cword, const int32_t (*s_off)[kWinThreads])
{
  typedef WinShape<PB, R> W;
  /* the rings of input rows and of their intermediates: 2 R + 1 rows (a
   * deeper input ring, loads further ahead, measured slower: its
   * registers cost more warps than it hides) */
  constexpr int kW = W::kTaps;
  const int row_bytes = a.width * PB;
  uint32_t raw[kW][W::kWords];
  int32_t h[kW][W::kBytes];
  uint8_t *dst = a.dst + (size_t) y0 * a.dst_pitch + x0;

UNROLL
  for (int u = 0; u < kW - 1; u++)
    if (u < n)
      win_fetch<PB, R> (a, y0 - R + u, x0, lane, edge, cword, s_off,
          raw[u]);
  win_for_rows<kW> (n, [&] (int i, auto slot) {
      constexpr int u = decltype (slot)::value;

      /* the row 2 R ahead, into the slot row i - 1 left */
      if (i + kW - 1 < n)
        win_fetch<PB, R> (a, y0 - R + i + kW - 1, x0, lane, edge, cword,
            s_off, raw[(u + kW - 1) % kW]);
      win_rows<PB, R, MODE> (a, raw[u], lane, edge, h[u]);
      if (i >= 2 * R && x0 < row_bytes) {
        uint32_t o[W::kVec];

        win_columns_of<PB, R, MODE, -1> (a, h, (u + 1) % kW, o, o);
        if (x0 + W::kBytes <= row_bytes)
          *(uint2 *) dst = make_uint2 (o[0], o[1]);
        else {
          /* the row's last bytes (no array indexed at run time, which
           * would put o in local memory) */
          uint64_t v = o[0] | (uint64_t) o[1] << 32;

          for (int b = 0; b < row_bytes - x0; b++, v >>= 8)
            dst[b] = (uint8_t) v;
        }
        dst += a.dst_pitch;
      }
    });
}

/* A warp of 4-byte pixels walks staged wherever it lies (win_lane ()
 * brings the border's words); one of 1- or 2-byte pixels only where its
 * strip and vectors, halos included, lie inside the picture. */
template <int PB, int R, int MODE, int COPY>
__global__ void __launch_bounds__ (kWinThreads)
stencil_window_kernel (Args a)
{
  typedef WinShape<PB, R> W;
  const int lane = threadIdx.x % 32;
  const int x0 = W::kBytes * (blockIdx.x * kWinThreads + threadIdx.x);
  const int y0 = blockIdx.y * a.strip;
  const int row_bytes = a.width * PB;
  /* rows of the strip's input: its output rows and R more each side */
  const int n = imin (a.strip, a.height - y0) + 2 * R;
  __shared__ __align__ (16) uint8_t s_ring[kWinThreads / 32][kWinAhead *
      W::kSlot];
  uint32_t cword = 0;

  /* a warp past the row's end has nothing to make (no barrier here) */
  if (__all_sync (0xffffffffu, x0 >= row_bytes))
    return;
  for (int i = 0; i < 4; i++)
    cword |= ((uint32_t) a.border_sample[i % PB] & 255) << 8 * i;
  const uint32_t ring = (uint32_t) __cvta_generic_to_shared (
      s_ring[threadIdx.x / 32]);

  const bool inside = y0 - R >= 0 && y0 - R + n <= a.height;

  if constexpr (PB == 4) {
    const WinLane l = win_lane<PB> (a, x0, lane);

    if (win_walk_edge<PB> (l, inside, x0, row_bytes))
      win_walk_staged<PB, R, MODE, COPY, true> (a, l, x0, y0, n, cword, ring);
    else
      win_walk_staged<PB, R, MODE, COPY, false> (a, l, x0, y0, n, cword,
          ring);
  } else {
    /* this vector, or its halo, meets the picture's left or right edge */
    const bool edge = x0 < 4 * W::kHalo
        || x0 + W::kBytes + 4 * W::kHalo > row_bytes;
    __shared__ int32_t s_off[4 * W::kWords][kWinThreads];

    /* the same for the whole warp (the staged rows and the shuffles need
     * every lane) */
    if (inside && __all_sync (0xffffffffu, !edge)) {
      win_walk_staged<PB, R, MODE, COPY, false> (a, win_lane<PB> (a, x0,
              lane), x0, y0, n, cword, ring);
      return;
    }
    win_offsets<PB, R> (a, x0, edge, s_off);
    win_walk<PB, R, MODE> (a, x0, y0, n, lane, edge, cword, s_off);
  }
}

/* One kernel of the family, as the host sees it. */
struct Kernel {
  const void *func;
  void (*launch) (const Args &, dim3, size_t, cudaStream_t);
  int tile_pixels, tile_rows;   /* a block's output */
  int shared_bytes;             /* for the plan's radii */
};

template <int PB, int SB, int DIR, bool VWIDE, int R>
void
launch (const Args & a, dim3 grid, size_t shared, cudaStream_t stream)
{
  stencil_kernel<PB, SB, DIR, VWIDE, R><<<grid, kThreads, shared, stream>>> (a);
}

template <int PB, int SB, int DIR, bool VWIDE, int R>
Kernel
kernel_of (int rx, int ry)
{
  Kernel k;

  k.func = (const void *) stencil_kernel<PB, SB, DIR, VWIDE, R>;
  k.launch = launch<PB, SB, DIR, VWIDE, R>;
  k.tile_pixels = Shape<PB, SB>::kTilePixels;
  k.tile_rows = kTileRows;
  k.shared_bytes = shared_layout<PB, SB> (rx, ry).bytes;
  return k;
}

/* The kernel for radius bucket @r (kRadii, or 0: any radius). */
template <int PB, int SB, int DIR, bool VWIDE>
Kernel
kernel_of_radius (int r, int rx, int ry)
{
  switch (r) {
    case 1: return kernel_of<PB, SB, DIR, VWIDE, 1> (rx, ry);
    case 2: return kernel_of<PB, SB, DIR, VWIDE, 2> (rx, ry);
    case 4: return kernel_of<PB, SB, DIR, VWIDE, 4> (rx, ry);
    case 8: return kernel_of<PB, SB, DIR, VWIDE, 8> (rx, ry);
    default: return kernel_of<PB, SB, DIR, VWIDE, 0> (rx, ry);
  }
}

template <int PB, int SB>
Kernel
kernel_of_dir (int dir, bool wide, int r, int rx, int ry)
{
  if (dir == CF_STENCIL_HORIZONTAL)
    return kernel_of_radius<PB, SB, CF_STENCIL_HORIZONTAL, false> (r, rx, ry);
  if (dir == CF_STENCIL_VERTICAL)
    return kernel_of_radius<PB, SB, CF_STENCIL_VERTICAL, false> (r, rx, ry);
  /* 16-bit columns of BOTH always need int64: both calls name the same
   * kernels then, so no int32 ones are compiled for them */
  if (wide || SB == 2)
    return kernel_of_radius<PB, SB, CF_STENCIL_BOTH, true> (r, rx, ry);
  return kernel_of_radius<PB, SB, CF_STENCIL_BOTH, SB == 2> (r, rx, ry);
}

/* The kernel for a plane of @pb-byte pixels of @sb-byte samples; func NULL
 * for a layout format.h does not have. */
Kernel
select_kernel (int pb, int sb, int dir, bool wide, int r, int rx, int ry)
{
  Kernel none = { NULL, NULL, 0, 0, 0 };

  switch (pb * 10 + sb) {
    case 11: return kernel_of_dir<1, 1> (dir, wide, r, rx, ry);
    case 21: return kernel_of_dir<2, 1> (dir, wide, r, rx, ry);
    case 22: return kernel_of_dir<2, 2> (dir, wide, r, rx, ry);
    case 31: return kernel_of_dir<3, 1> (dir, wide, r, rx, ry);
    case 41: return kernel_of_dir<4, 1> (dir, wide, r, rx, ry);
    case 42: return kernel_of_dir<4, 2> (dir, wide, r, rx, ry);
    case 82: return kernel_of_dir<8, 2> (dir, wide, r, rx, ry);
    default: return none;
  }
}

/* The tensor-core kernels: the fused one (radii up to kMmaR), the two
 * passes' (above; the columns' for NK k tiles). */
/* The tensor-core kernels: fused (wide: its tiles twice as wide), the two
 * passes' rows and columns. */
enum MmaKind { kMmaFused, kMmaFusedWide, kMmaRows, kMmaColumns };

template <int PB, int SPLIT, int KIND, int NK>
void
launch_mma (const Args & a, dim3 grid, size_t shared, cudaStream_t stream)
{
  constexpr int W = KIND == kMmaFusedWide ? 2 : 1;

  if constexpr (KIND == kMmaFused || KIND == kMmaFusedWide)
    stencil_mma_kernel<PB, W, SPLIT><<<grid, MmaBlock<W>::kThreads, shared,
        stream>>> (a);
  else if constexpr (KIND == kMmaRows)
    stencil_rows_mma_kernel<PB, SPLIT><<<grid, kThreads, shared, stream>>>
        (a);
  else
    stencil_columns_mma_kernel<PB, SPLIT, NK><<<grid, kThreads, shared,
        stream>>> (a);
}

template <int PB, int SPLIT, int KIND, int NK>
Kernel
mma_kernel_of ()
{
  Kernel k;

  k.launch = launch_mma<PB, SPLIT, KIND, NK>;
  constexpr int W = KIND == kMmaFusedWide ? 2 : 1;

  if constexpr (KIND == kMmaFused || KIND == kMmaFusedWide) {
    k.func = (const void *) stencil_mma_kernel<PB, W, SPLIT>;
    k.tile_pixels = MmaShape<PB, W>::kTilePixels;
    k.tile_rows = kTileRows;
    k.shared_bytes = shared_layout_mma<PB, W> ().bytes;
  } else if constexpr (KIND == kMmaRows) {
    k.func = (const void *) stencil_rows_mma_kernel<PB, SPLIT>;
    k.tile_pixels = LongShape<PB>::kTilePixels;
    k.tile_rows = kLongRows;
    k.shared_bytes = shared_layout_long<PB> (true).bytes;
  } else {
    k.func = (const void *) stencil_columns_mma_kernel<PB, SPLIT, NK>;
    k.tile_pixels = kLongOut / PB;
    k.tile_rows = kLongColRows;
    k.shared_bytes = shared_layout_long<PB> (false).bytes;
  }
  return k;
}

template <int PB, int SPLIT, int KIND>
Kernel
mma_kernel_of_tiles (int k_tiles)
{
  static_assert (kLongTiles == 5, "a kernel for each count of k tiles");
  if constexpr (KIND != kMmaColumns) {
    return mma_kernel_of<PB, SPLIT, KIND, 0> ();
  } else {
    switch (k_tiles) {
      case 1: return mma_kernel_of<PB, SPLIT, KIND, 1> ();
      case 2: return mma_kernel_of<PB, SPLIT, KIND, 2> ();
      case 3: return mma_kernel_of<PB, SPLIT, KIND, 3> ();
      case 4: return mma_kernel_of<PB, SPLIT, KIND, 4> ();
      default: return mma_kernel_of<PB, SPLIT, KIND, 5> ();
    }
  }
}

template <int PB, int KIND>
Kernel
mma_kernel_of_split (MmaSplit split, int k_tiles)
{
  if (split == kMmaBlur)
    return mma_kernel_of_tiles<PB, kMmaBlur, KIND> (k_tiles);
  if (split == kMmaUnsigned)
    return mma_kernel_of_tiles<PB, kMmaUnsigned, KIND> (k_tiles);
  return mma_kernel_of_tiles<PB, kMmaSigned, KIND> (k_tiles);
}

template <int KIND>
Kernel
mma_kernel_of_pb (int pb, MmaSplit split, int k_tiles)
{
  Kernel none = { NULL, NULL, 0, 0, 0 };

  switch (pb) {
    case 1: return mma_kernel_of_split<1, KIND> (split, k_tiles);
    case 2: return mma_kernel_of_split<2, KIND> (split, k_tiles);
    case 4: return mma_kernel_of_split<4, KIND> (split, k_tiles);
    default: return none;
  }
}

/* The tensor-core kernel @kind for a plane of @pb-byte pixels of @sb-byte
 * samples (the columns': for bands of @k_tiles k tiles, 1 .. kLongTiles);
 * func NULL where it has none. */
Kernel
select_mma_kernel (int pb, int sb, MmaSplit split, MmaKind kind,
    int k_tiles = 0)
{
  Kernel none = { NULL, NULL, 0, 0, 0 };

  if (sb != 1 || split == kMmaNone
      || (kind == kMmaColumns && (k_tiles < 1 || k_tiles > kLongTiles)))
    return none;
  if (kind == kMmaFused)
    return mma_kernel_of_pb<kMmaFused> (pb, split, 0);
  if (kind == kMmaFusedWide)
    return mma_kernel_of_pb<kMmaFusedWide> (pb, split, 0);
  if (kind == kMmaRows)
    return mma_kernel_of_pb<kMmaRows> (pb, split, 0);
  return mma_kernel_of_pb<kMmaColumns> (pb, split, k_tiles);
}

/* The fused kernel for every plane of a frame in one launch (MmaFrame). */
struct FrameKernel {
  const void *func;
  void (*launch) (const MmaFrame &, size_t, cudaStream_t);
  int tile_pixels[CF_MAX_PLANES];       /* a block's output, per plane */
  int shared_bytes;                     /* the larger plane's */
};

template <int PB, int NP, int W, int SPLIT>
void
launch_frame (const MmaFrame & f, size_t shared, cudaStream_t stream)
{
  stencil_mma_frame_kernel<PB, NP, W, SPLIT><<<f.blocks,
      MmaBlock<W>::kThreads, shared, stream>>> (f);
}

template <int PB, int NP, int W, int SPLIT>
FrameKernel
frame_kernel_of ()
{
  FrameKernel k;

  k.func = (const void *) stencil_mma_frame_kernel<PB, NP, W, SPLIT>;
  k.launch = launch_frame<PB, NP, W, SPLIT>;
  for (int p = 0; p < CF_MAX_PLANES; p++)
    k.tile_pixels[p] = p == 0 ? MmaShape<1, W>::kTilePixels :
        MmaShape<PB, W>::kTilePixels;
  k.shared_bytes = imax (shared_layout_mma<1, W> ().bytes,
      shared_layout_mma<PB, W> ().bytes);
  return k;
}

template <int PB, int NP, int W>
FrameKernel
frame_kernel_of_split (MmaSplit split)
{
  if (split == kMmaBlur)
    return frame_kernel_of<PB, NP, W, kMmaBlur> ();
  if (split == kMmaUnsigned)
    return frame_kernel_of<PB, NP, W, kMmaUnsigned> ();
  return frame_kernel_of<PB, NP, W, kMmaSigned> ();
}

/* The one launch for a frame of a luma plane of 1-byte pixels and @np - 1
 * chroma planes of @pb-byte pixels (MmaFrame), with wide tiles (@wide) or
 * not; func NULL where it has none. */
FrameKernel
select_frame_kernel (int pb, int np, MmaSplit split, bool wide)
{
  FrameKernel none = { NULL, NULL, { 0 }, 0 };

  if (split == kMmaNone)
    return none;
  if (pb == 2 && np == 2)
    return wide ? frame_kernel_of_split<2, 2, 2> (split) :
        frame_kernel_of_split<2, 2, 1> (split);
  if (pb == 1 && np == 3)
    return wide ? frame_kernel_of_split<1, 3, 2> (split) :
        frame_kernel_of_split<1, 3, 1> (split);
  return none;
}

template <int PB, int R, int MODE, int COPY>
void
launch_window (const Args & a, dim3 grid, size_t shared, cudaStream_t stream)
{
  stencil_window_kernel<PB, R, MODE, COPY><<<grid, kWinThreads, shared,
      stream>>> (a);
}

template <int PB, int R, int MODE, int COPY = -1>
Kernel
window_kernel_of (void)
{
  Kernel k;

  k.func = (const void *) stencil_window_kernel<PB, R, MODE, COPY>;
  k.launch = launch_window<PB, R, MODE, COPY>;
  k.tile_pixels = kWinThreads * win_vec_bytes (PB) / PB;
  k.tile_rows = 0;               /* window_strip () */
  k.shared_bytes = 0;
  return k;
}

template <int PB>
Kernel
window_kernel_of_pb (WinMode mode, unsigned skip)
{
  /* radius 2 was compiled and measured no faster than the tensor cores
   * (docs/PERFORMANCE.md); the dp2a's copied channel of 4-byte pixels
   * (alpha: the first or the last) made from the picture's bytes */
  if constexpr (PB == 4) {
    if (mode == kWinDot && skip == 1u << 3)
      return window_kernel_of<PB, kWinR, kWinDot, 3> ();
    if (mode == kWinDot && skip == 1u)
      return window_kernel_of<PB, kWinR, kWinDot, 0> ();
  }
  if (mode == kWinDot)
    return window_kernel_of<PB, kWinR, kWinDot> ();
  return mode == kWinSaturating ?
      window_kernel_of<PB, kWinR, kWinSaturating> () :
      window_kernel_of<PB, kWinR, kWinInRange> ();
}

/* The sliding-window kernel on a plane of @pb-byte pixels of 8-bit
 * samples (@skip: its copied channels, Args::skip), making its sums as
 * @mode says (tile_rows 0: window_strip () sets it); func NULL where it
 * has none. */
Kernel
select_window_kernel (int pb, WinMode mode, unsigned skip)
{
  Kernel none = { NULL, NULL, 0, 0, 0 };

  switch (pb) {
    case 1: return window_kernel_of_pb<1> (mode, skip);
    case 2: return window_kernel_of_pb<2> (mode, skip);
    case 4: return window_kernel_of_pb<4> (mode, skip);
    default: return none;
  }
}

/* Args::wk from @plan's taps (BOTH, radii up to kWinR; @a's skip and
 * bits set): each channel's taps centred in 2 kWinR + 1, the identity
 * (1 << B) for a copied one. */
void
win_weights (Args * a, const CfStencilPlan * plan)
{
  const int rx = plan->radius_x, ry = plan->radius_y;

  for (int k = 0; k < 4; k++)
    for (int t = 0; t <= 2 * kWinR; t++) {
      const int dx = t - kWinR + rx, dy = t - kWinR + ry;
      const bool copy = a->skip & (1u << k);

      a->wk[0][k][t] = copy ? (t == kWinR) << a->bits :
          dx >= 0 && dx <= 2 * rx ? plan->weights_x[dx] : 0;
      a->wk[1][k][t] = copy ? (t == kWinR) << a->bits :
          dy >= 0 && dy <= 2 * ry ? plan->weights_y[dy] : 0;
    }
  static_assert (kWinR == 1, "win_sums_dot () takes three taps");
  for (int k = 0; k < 4; k++) {
    /* an identity's 2^16 as 65535 (kWinDot); win_mode () lets no other
     * weight above 65535 through */
    uint32_t w[3];

    for (int t = 0; t < 3; t++)
      w[t] = (uint32_t) imin (a->wk[0][k][t], 65535);
    a->wpair[k][0] = w[0] | w[1] << 16;
    a->wpair[k][1] = w[2];
    a->wpair[k][2] = w[0] << 16;
    a->wpair[k][3] = w[1] | w[2] << 16;
    for (int t = 0; t < 3; t++)
      a->wy4[k][t] = 4 * a->wk[1][k][t];
  }
}

/* Blocks of the sliding-window kernel across a row of @width @pb-byte
 * pixels. */
long
win_blocks_across (int width, int pb)
{
  const int bytes = win_vec_bytes (pb) * kWinThreads;

  return ((long) width * pb + bytes - 1) / bytes;
}

/* CF_STENCIL_WINDOW_DOT in the environment (for tests and measurements):
 * 1 takes the window's dp2a wherever its sums fit (win_dot_wins ()), 0
 * never (win_mode ()); -1 when unset or anything else. */
int
win_dot_env (void)
{
  const char *env = getenv ("CF_STENCIL_WINDOW_DOT");

  return env && strcmp (env, "1") == 0 ? 1 :
      env && strcmp (env, "0") == 0 ? 0 : -1;
}

/* Output rows per block of the sliding-window kernel @k on a plane of
 * @width x @height @pb-byte pixels on @sms multiprocessors. For 4-byte
 * pixels: 8 where that makes at least two waves of blocks, else 4 (more
 * rows a strip filter fewer halo rows again, but a strip's rows run one
 * after another). For 1- and 2-byte pixels: 4. Measured on an H200
 * (radius 1, strips of 4 / 8 / 16 rows, us): the dp2a on 4K RGBA 24.4 /
 * 23.5 / 24.9, 1080p 11.0 / 11.4 / 12.1, 720p 7.8 / 8.9 / 10.6, 640x480
 * 6.7 / 8.3 / 10.3; on 4K GRAY8 24.1 / 24.5 / 30.9, 1080p NV12 23.8 / 30.5
 * / 45.8 (docs/PERFORMANCE.md). CF_STENCIL_WINDOW_ROWS in the environment
 * sets it (for measurements; 0 turns the kernel off). */
int
window_strip (const Kernel * k, int width, int height, int pb, int sms)
{
  const char *env = getenv ("CF_STENCIL_WINDOW_ROWS");
  int per_sm = 0;

  if (env && *env)
    return (int) strtol (env, NULL, 10);
  if (pb != 4)
    return 4;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, k->func,
          kWinThreads, 0) != cudaSuccess) {
    cudaGetLastError ();        /* not sticky; leave none behind */
    return 4;
  }
  return win_blocks_across (width, pb) * ((height + 7) / 8) >=
      2L * per_sm * sms ? 8 : 4;
}

/* Whether the sliding window's dp2a is faster than the tensor cores on a
 * plane of @pb-byte pixels: for 4-byte pixels, at every size measured
 * (an H200 at radius 1, us, the tensor cores measured the same day: 4K
 * RGBA 23.5 against 42.7, 1080p 11.0 against 17.2, 720p 7.8 against 12.4,
 * 640x480 6.7 against 12.0), not for 1- and
 * 2-byte pixels (4K NV12 43.6 against 27.0, GRAY8 26.6 against 20.9;
 * docs/PERFORMANCE.md). CF_STENCIL_WINDOW_DOT=1 in the environment takes
 * it wherever its sums fit (for tests and measurements). */
bool
win_dot_wins (int pb)
{
  return win_dot_env () == 1 || pb == 4;
}

/* The fused tensor-core kernel's wide blocks (MmaBlock<2>) on a @width x
 * @height plane of @pb-byte pixels. */
long
mma_wide_blocks (int width, int height, int pb)
{
  const int tp = pb == 1 ? MmaShape<1, 2>::kTilePixels : pb == 2 ?
      MmaShape<2, 2>::kTilePixels : MmaShape<4, 2>::kTilePixels;

  return (long) ((width + tp - 1) / tp) * ((height + kTileRows - 1) /
      kTileRows);
}

/* Whether the fused tensor-core kernel takes wide tiles (MmaBlock<2>) on a
 * plane, or a frame in one launch (MmaFrame), of @wide_blocks wide blocks
 * (mma_wide_blocks ()): where they make 0.9 to 4 waves of the @sms
 * multiprocessors' two blocks each. Measured on an H100
 * (docs/PERFORMANCE.md), radius 8, us: wide tiles won at 0.97 waves
 * (1080p RGBA 22.05 against 20.55; 4K NV12's chroma) and 1.93 (4K GRAY8
 * 23.2 against 22.45; 4K NV12 37.7 against 34.4 in all) but lost at
 * 0.27 and 0.52 (1080p NV12 25.4 against 28.0, GRAY8 14.4 against 15.9)
 * and, slightly, at 7.7 (4K RGBA 54.65 against 55.2).
 * CF_STENCIL_MMA_TILE=wide or narrow in the environment decides instead
 * (for tests and measurements). */
bool
mma_wide (long wide_blocks, int sms)
{
  const char *env = getenv ("CF_STENCIL_MMA_TILE");
  const double waves = wide_blocks / ((double) MmaBlock<2>::kBlocks *
      imax (sms, 1));

  if (env && *env)
    return strcmp (env, "wide") == 0;
  return waves >= 0.9 && waves <= 4.0;
}

/* Args::wbytes from @plan's taps, each axis's centred in the band of
 * radius @a's rx, ry (kMmaR for the fused kernel, long_radius () for the
 * two passes'). */
void
mma_weight_bytes (Args * a, const CfStencilPlan * plan)
{
  uint8_t *b = (uint8_t *) a->wbytes;
  const int32_t *w[2] = { plan->weights_x, plan->weights_y };
  const int r[2] = { plan->radius_x, plan->radius_y };
  const int band[2] = { a->rx, a->ry };

  memset (a->wbytes, 0, sizeof (a->wbytes));
  for (int axis = 0; axis < 2; axis++)
    for (int t = 0; t <= 2 * r[axis]; t++) {
      uint8_t *at = b + 2 * axis * kWRow + kWPad + band[axis] - r[axis] + t;

      at[0] = (uint8_t) (w[axis][t] & 255);
      at[kWRow] = (uint8_t) ((w[axis][t] >> 8) & 255);
    }
}

/* Whether the columns pass of BOTH on 8-bit samples can leave int32: its
 * sum is at most sum |w_y| times the largest |h|, (255 sum |w_x|) >> (B -
 * I) plus one, and the rounding adds 2^(B+I-1). */
bool
columns_wide (const CfStencilPlan * plan)
{
  int64_t gx = 0, gy = 0;

  for (int t = 0; t <= 2 * plan->radius_x; t++)
    gx += plan->weights_x[t] < 0 ? -(int64_t) plan->weights_x[t] :
        plan->weights_x[t];
  for (int t = 0; t <= 2 * plan->radius_y; t++)
    gy += plan->weights_y[t] < 0 ? -(int64_t) plan->weights_y[t] :
        plan->weights_y[t];
  const int64_t h = ((255 * gx) >> (plan->weight_bits - kInterShift)) + 1;
  return gy * h + (INT64_C (1) << (plan->weight_bits + kInterShift - 1))
      > INT32_MAX;
}

/* Whether BOTH on 8-bit samples with @plan's weights gives no value
 * outside 0 .. 255 before saturating: every weight >= 0, and the largest
 * h (255 times the x weights' sum, rounded) through the y weights at most
 * 255. */
bool
never_saturates (const CfStencilPlan * plan)
{
  const int shift = CF_STENCIL_WEIGHT_BITS_8 - kInterShift;
  const int out_shift = CF_STENCIL_WEIGHT_BITS_8 + kInterShift;
  int64_t gx = 0, gy = 0;

  for (int t = 0; t <= 2 * plan->radius_x; t++) {
    if (plan->weights_x[t] < 0)
      return false;
    gx += plan->weights_x[t];
  }
  for (int t = 0; t <= 2 * plan->radius_y; t++) {
    if (plan->weights_y[t] < 0)
      return false;
    gy += plan->weights_y[t];
  }
  const int64_t h_max = (255 * gx + (1 << (shift - 1))) >> shift;
  return (gy * h_max + (INT64_C (1) << (out_shift - 1))) >> out_shift <= 255;
}

/* Whether the 2 @r + 1 weights @w are one tap of 1 << 16 and zeros. */
bool
win_is_identity (const int32_t * w, int r)
{
  int ones = 0, others = 0;

  for (int t = 0; t <= 2 * r; t++) {
    ones += w[t] == 1 << 16;
    others += w[t] != 0 && w[t] != 1 << 16;
  }
  return ones == 1 && others == 0;
}

/* How the sliding window makes @plan's sums (WinMode; BOTH, radius up to
 * kWinR, 8-bit samples, columns within int32); win_dot_env () 0 keeps the
 * int32 sums. */
WinMode
win_mode (const CfStencilPlan * plan)
{
  bool big = false;

  if (!never_saturates (plan))
    return kWinSaturating;
  for (int t = 0; t <= 2 * plan->radius_x; t++)
    big = big || plan->weights_x[t] > 65535;
  /* an identity (1 << 16 alone) is the one weight above 65535 that 65535
   * stands in for */
  if ((big && !win_is_identity (plan->weights_x, plan->radius_x))
      || win_dot_env () == 0)
    return kWinInRange;
  return kWinDot;
}

/* How the tensor-core kernels can take @plan (MmaSplit): BOTH on 8-bit
 * samples, the larger radius at least kMmaMinR, the columns' sums within int32
 * (columns_wide ()), and the weights and the rows' results h within the
 * two bytes it splits them into: every weight 0 .. 65535 with h 0 ..
 * 65535 (unsigned bytes), or every weight and h within int16 (the high
 * byte signed). h is at most (255 P + 2^9) >> 10 and at least (-255 N +
 * 2^9) >> 10, P and N the sums of the positive and negative weights of x.
 * Unsigned plans that never saturate and whose columns' weights sum to
 * 2^16 (normalized taps: blurs) are kMmaBlur, which adds kHFold to h;
 * other unsigned ones are kMmaUnsigned (the same sums, clamped). */
MmaSplit
mma_split (const CfStencilPlan * plan)
{
  const int shift = CF_STENCIL_WEIGHT_BITS_8 - kInterShift;
  int64_t pos = 0, neg = 0, sum_y = 0;
  int32_t lo = 0, hi = 0;

  if (plan->direction != CF_STENCIL_BOTH
      || plan->weight_bits != CF_STENCIL_WEIGHT_BITS_8
      || imax (plan->radius_x, plan->radius_y) < kMmaMinR
      || columns_wide (plan))
    return kMmaNone;
  for (int t = 0; t <= 2 * plan->radius_x; t++) {
    const int32_t w = plan->weights_x[t];
    pos += w > 0 ? w : 0;
    neg += w < 0 ? -(int64_t) w : 0;
    lo = w < lo ? w : lo;
    hi = w > hi ? w : hi;
  }
  for (int t = 0; t <= 2 * plan->radius_y; t++) {
    const int32_t w = plan->weights_y[t];
    lo = w < lo ? w : lo;
    hi = w > hi ? w : hi;
    sum_y += w;
  }
  const int64_t h_max = (255 * pos + (1 << (shift - 1))) >> shift;
  const int64_t h_min = -((255 * neg - (1 << (shift - 1)) +
          (1 << shift) - 1) >> shift);
  if (lo >= 0 && hi <= 65535 && h_max <= 65535)
    return never_saturates (plan) && h_max + kHFold <= 65535
        && sum_y == INT64_C (1) << CF_STENCIL_WEIGHT_BITS_8 ?
        kMmaBlur : kMmaUnsigned;
  if (lo >= -32768 && hi <= 32767 && h_min >= -32768 && h_max <= 32767)
    return kMmaSigned;
  return kMmaNone;
}

/* The radius the unrolled kernels are compiled for that fits the radii
 * the direction applies, or 0 when they are too long for any. */
int
radius_bucket (int direction, int rx, int ry)
{
  const int r = direction == CF_STENCIL_HORIZONTAL ? rx :
      direction == CF_STENCIL_VERTICAL ? ry : imax (rx, ry);

  return r <= 1 ? 1 : r <= 2 ? 2 : r <= 4 ? 4 : r <= 8 ? 8 : 0;
}

/* The 2 @r + 1 weights @w centred in 2 @bucket + 1 (zeros around them) into
 * @out, or copied as they are for bucket 0; returns the radius @out has. */
int
pad_taps (int32_t * out, const int32_t * w, int r, int bucket)
{
  const int R = bucket > 0 ? bucket : r;

  memset (out, 0, CF_STENCIL_MAX_TAPS * sizeof (int32_t));
  memcpy (out + (R - r), w, (2 * r + 1) * sizeof (int32_t));
  return R;
}

bool
plan_ok (const CfStencilPlan * plan)
{
  return plan && cf_format_info (plan->format) && plan->width > 0
      && plan->height > 0 && plan->weight_bits > 0
      && (unsigned) plan->direction < CF_STENCIL_DIRECTION_COUNT
      && plan->radius_x >= 0 && plan->radius_x <= CF_STENCIL_MAX_RADIUS
      && plan->radius_y >= 0 && plan->radius_y <= CF_STENCIL_MAX_RADIUS;
}

}  // namespace

struct CfStencilDevicePlan {
  CfFormat format;
  int width, height;
  int n_planes;
  Args args[CF_MAX_PLANES];     /* without the images */
  Kernel kernel[CF_MAX_PLANES];
  /* the kernel of each plane (cf_stencil_device_plan_describe ()); one
   * that needs aligned rows (the tensor cores, the sliding window) keeps
   * the tiled CUDA-core kernel for a launch whose plane or pitch is not
   * aligned to 16 bytes */
  const char *what[CF_MAX_PLANES];
  bool aligned[CF_MAX_PLANES];
  Args fb_args[CF_MAX_PLANES];
  Kernel fallback[CF_MAX_PLANES];
  /* the two passes' rows kernel, launched before kernel[p] (func NULL
   * where the plane takes one kernel), and the workspace they need: the
   * largest plane's, the planes one after the other on the stream */
  Kernel rows[CF_MAX_PLANES];
  size_t workspace;
  /* every plane on the fused tensor-core kernel, of 8-bit YUV: one launch
   * for the frame (func NULL where there is none), taken when every plane
   * and pitch is aligned; frame_args without the images */
  FrameKernel frame;
  MmaFrame frame_args;
};

extern "C" size_t
cf_stencil_device_plan_workspace_bytes (const CfStencilDevicePlan * d_plan)
{
  return d_plan ? d_plan->workspace : 0;
}

extern "C" void
cf_stencil_device_plan_free (CfStencilDevicePlan * d_plan)
{
  free (d_plan);
}

/* Lets @k take the shared memory it needs: above the default 48 KiB a
 * kernel must opt in; allowing the device's maximum @optin (the same value
 * whatever the plan) keeps plans made on other threads from lowering each
 * other's limit. */
static cudaError_t
allow_shared_bytes (const void *func, int bytes, int optin)
{
  if (bytes <= 48 * 1024)
    return cudaSuccess;
  if (bytes > optin)
    return cudaErrorInvalidConfiguration;
  return cudaFuncSetAttribute (func,
      cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
}

static cudaError_t
allow_shared (const Kernel * k, int optin)
{
  return allow_shared_bytes (k->func, k->shared_bytes, optin);
}

extern "C" cudaError_t
cf_stencil_device_plan_new (const CfStencilPlan * plan,
    CfStencilKernels kernels, CfStencilDevicePlan ** d_plan)
{
  const CfFormatInfo *info;
  CfStencilDevicePlan *dp;
  int device, optin = 0;
  MmaSplit split;
  cudaError_t err;

  if (!d_plan)
    return cudaErrorInvalidValue;
  *d_plan = NULL;
  if (!plan_ok (plan) || (kernels != CF_STENCIL_KERNELS_AUTO
          && kernels != CF_STENCIL_KERNELS_CUDA_CORES))
    return cudaErrorInvalidValue;
  if ((err = cudaGetDevice (&device)) != cudaSuccess
      || (err = cudaDeviceGetAttribute (&optin,
              cudaDevAttrMaxSharedMemoryPerBlockOptin, device)) != cudaSuccess)
    return err;
  if (!(dp = (CfStencilDevicePlan *) calloc (1, sizeof (*dp))))
    return cudaErrorMemoryAllocation;
  info = cf_format_info (plan->format);
  dp->format = plan->format;
  dp->width = plan->width;
  dp->height = plan->height;
  dp->n_planes = info->n_planes;
  split = kernels == CF_STENCIL_KERNELS_AUTO ? mma_split (plan) : kMmaNone;
  const bool two_pass = imax (plan->radius_x, plan->radius_y) > kMmaR;
  /* the sliding window: BOTH on 8-bit samples, radius kWinR, int32
   * columns */
  const bool win = kernels == CF_STENCIL_KERNELS_AUTO
      && plan->direction == CF_STENCIL_BOTH
      && plan->weight_bits == CF_STENCIL_WEIGHT_BITS_8
      && imax (plan->radius_x, plan->radius_y) == kWinR
      && !columns_wide (plan);
  int sms = 0;
  if ((err = cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount,
              device)) != cudaSuccess) {
    free (dp);
    return err;
  }

  /* 8-bit YUV with every plane on the fused kernel: one launch (MmaFrame);
   * CF_STENCIL_ONE_LAUNCH=0 in the environment launches the planes one
   * by one instead (for measurements) */
  const char *one_env = getenv ("CF_STENCIL_ONE_LAUNCH");
  bool one_launch = dp->n_planes > 1 && info->plane[0].pixel_bytes == 1
      && !(one_env && strcmp (one_env, "0") == 0);
  long wide_blocks = 0;

  for (int p = 0; p < dp->n_planes; p++) {
    const CfPlaneLayout *l = &info->plane[p];
    Args *a = &dp->args[p];

    a->width = cf_plane_width (plan->format, p, plan->width);
    a->height = cf_plane_height (plan->format, p, plan->height);
    a->rx = plan->direction == CF_STENCIL_VERTICAL ? 0 : plan->radius_x;
    a->ry = plan->direction == CF_STENCIL_HORIZONTAL ? 0 : plan->radius_y;
    a->border = plan->border;
    a->bits = plan->weight_bits;
    a->lsb = info->lsb;
    a->max = (int32_t) CF_FORMAT_MAX_VALUE (info);
    a->skip = plan->skip[p];
    /* staged as bytes of the picture, read back through value_at () */
    for (int k = 0; k < CF_MAX_CHANNELS; k++) {
      const int32_t value = plan->border_sample[p][k];
      a->border_sample[k] = (int32_t) CF_VALUE_SAMPLE (value, info->lsb);
    }
    /* radius 1 .. kWinR: the sliding window, its weights per channel,
     * where the tensor cores cannot split the taps (elsewhere the fused
     * kernel is the faster: 4K RGBA 45 against 51 us, NV12 33 against 41
     * on an H100; docs/PERFORMANCE.md); up to kMmaR: the fused
     * tensor-core kernel, both axes' taps centred in 2 kMmaR + 1; above:
     * the two passes on the tensor cores; the CUDA-core kernel stays for
     * unaligned launches */
    const WinMode wmode = win ? win_mode (plan) : kWinSaturating;
    Kernel wk = win && l->sample_bytes == 1
        && (split == kMmaNone || wmode == kWinDot) ?
        select_window_kernel (l->pixel_bytes, wmode, a->skip) :
        Kernel { NULL, NULL, 0, 0, 0 };
    /* taps the tensor cores can take too: the window where its dp2a is
     * the faster (win_dot_wins ()) */
    if (wk.func && split != kMmaNone && !win_dot_wins (l->pixel_bytes))
      wk.func = NULL;
    const int strip = wk.func ? window_strip (&wk, a->width, a->height,
        l->pixel_bytes, sms) : 0;
    if (strip > 0)
      wk.tile_rows = strip;
    else
      wk.func = NULL;
    const Kernel fast = wk.func ? wk :
        select_mma_kernel (l->pixel_bytes, l->sample_bytes, split,
        two_pass ? kMmaColumns : mma_wide (mma_wide_blocks (a->width,
                a->height, l->pixel_bytes), sms) ? kMmaFusedWide : kMmaFused,
        long_k_tiles (a->ry));
    dp->what[p] = "cuda cores";
    if (fast.func) {
      dp->aligned[p] = true;
      dp->fb_args[p] = *a;
      dp->kernel[p] = fast;
      if (wk.func) {
        dp->what[p] = wmode == kWinDot ? "sliding window, dp2a" :
            "sliding window";
        a->strip = strip;
        win_weights (a, plan);
      } else if (!two_pass) {
        dp->what[p] = "tensor cores";
        a->rx = a->ry = kMmaR;
        mma_weight_bytes (a, plan);
        wide_blocks += mma_wide_blocks (a->width, a->height, l->pixel_bytes);
      } else {
        dp->what[p] = "tensor cores, two passes";
        dp->rows[p] = select_mma_kernel (l->pixel_bytes, l->sample_bytes,
            split, kMmaRows);
        a->k_tiles_x = long_k_tiles (a->rx);
        a->k_tiles_y = long_k_tiles (a->ry);
        a->rx = long_radius (a->rx);
        a->ry = long_radius (a->ry);
        mma_weight_bytes (a, plan);
        const size_t bytes = long_layout (a->width, a->height,
            l->pixel_bytes, a->k_tiles_y, &a->h_rows, &a->h_pitch);
        a->h_plane = bytes / 2;
        dp->workspace = bytes > dp->workspace ? bytes : dp->workspace;
        if ((err = allow_shared (&dp->rows[p], optin)) != cudaSuccess) {
          free (dp);
          return err;
        }
      }
      a = &dp->fb_args[p];
    }
    one_launch = one_launch && fast.func && !wk.func && !two_pass
        && (p == 0
        || l->pixel_bytes == info->plane[dp->n_planes - 1].pixel_bytes);
    /* radius up to 8: the unrolled kernel of the next bucket, the taps
     * padded with zero weights on both sides (which adds exact zeros) */
    const int r = radius_bucket (plan->direction, a->rx, a->ry);
    if (plan->direction != CF_STENCIL_VERTICAL)
      a->rx = pad_taps (a->wx, plan->weights_x, a->rx, r);
    if (plan->direction != CF_STENCIL_HORIZONTAL)
      a->ry = pad_taps (a->wy, plan->weights_y, a->ry, r);
    Kernel *k = dp->aligned[p] ? &dp->fallback[p] : &dp->kernel[p];
    *k = select_kernel (l->pixel_bytes, l->sample_bytes, plan->direction,
        columns_wide (plan), r, a->rx, a->ry);
    if (!k->func)
      err = cudaErrorInvalidValue;
    else if ((err = allow_shared (k, optin)) == cudaSuccess
        && dp->aligned[p])
      err = allow_shared (&dp->kernel[p], optin);
    if (err != cudaSuccess) {
      free (dp);
      return err;
    }
  }
  if (one_launch)
    dp->frame = select_frame_kernel (
        info->plane[dp->n_planes - 1].pixel_bytes, dp->n_planes, split,
        mma_wide (wide_blocks, sms));
  if (dp->frame.func) {
    MmaFrame *f = &dp->frame_args;

    for (int p = 0; p < dp->n_planes; p++) {
      const int tp = dp->frame.tile_pixels[p];

      f->a[p] = dp->args[p];
      f->first[p] = f->blocks;
      f->tiles_x[p] = (f->a[p].width + tp - 1) / tp;
      f->blocks += f->tiles_x[p] * ((f->a[p].height + kTileRows - 1) /
          kTileRows);
    }
    if ((err = allow_shared_bytes (dp->frame.func, dp->frame.shared_bytes,
                optin)) != cudaSuccess) {
      free (dp);
      return err;
    }
  }
  *d_plan = dp;
  return cudaSuccess;
}

extern "C" const char *
cf_stencil_device_plan_describe (const CfStencilDevicePlan * d_plan, int p)
{
  if (!d_plan || p < 0 || p >= d_plan->n_planes)
    return NULL;
  return d_plan->what[p];
}

/* Whether plane @p of both images and its pitches are 16-byte aligned. */
static bool
aligned16 (const CfImage * d_src, const CfImage * d_dst, int p)
{
  return !(((uintptr_t) d_src->data[p] | (uintptr_t) d_dst->data[p]
          | d_src->pitch[p] | d_dst->pitch[p]) & 15);
}

extern "C" cudaError_t
cf_stencil_cuda (const CfStencilDevicePlan * d_plan, const CfImage * d_src,
    const CfImage * d_dst, void *d_workspace, cudaStream_t stream)
{
  if (!d_plan || cf_image_check (d_src) != 0 || cf_image_check (d_dst) != 0
      || (d_plan->workspace && (!d_workspace || (uintptr_t) d_workspace % 16))
      || d_src->format != d_plan->format || d_dst->format != d_plan->format
      || d_src->width != d_plan->width || d_src->height != d_plan->height
      || d_dst->width != d_plan->width || d_dst->height != d_plan->height)
    return cudaErrorInvalidValue;

  /* the tensor cores and the sliding window read and write 16-byte
   * aligned rows */
  bool all_aligned = true;
  for (int p = 0; p < d_plan->n_planes; p++)
    all_aligned = all_aligned && aligned16 (d_src, d_dst, p);
  if (d_plan->frame.func && all_aligned) {
    MmaFrame f = d_plan->frame_args;

    for (int p = 0; p < d_plan->n_planes; p++) {
      f.a[p].src = (const uint8_t *) d_src->data[p];
      f.a[p].src_pitch = d_src->pitch[p];
      f.a[p].dst = (uint8_t *) d_dst->data[p];
      f.a[p].dst_pitch = d_dst->pitch[p];
    }
    d_plan->frame.launch (f, d_plan->frame.shared_bytes, stream);
    return cudaGetLastError ();
  }

  for (int p = 0; p < d_plan->n_planes; p++) {
    const bool fall = d_plan->aligned[p] && !aligned16 (d_src, d_dst, p);
    const Kernel *k = fall ? &d_plan->fallback[p] : &d_plan->kernel[p];
    const Kernel *rows = fall ? NULL : &d_plan->rows[p];
    Args a = fall ? d_plan->fb_args[p] : d_plan->args[p];
    const dim3 grid ((a.width + k->tile_pixels - 1) / k->tile_pixels,
        (a.height + k->tile_rows - 1) / k->tile_rows);
    cudaError_t err;

    a.src = (const uint8_t *) d_src->data[p];
    a.src_pitch = d_src->pitch[p];
    a.dst = (uint8_t *) d_dst->data[p];
    a.dst_pitch = d_dst->pitch[p];
    if (rows && rows->func) {
      const dim3 h_grid ((a.width + rows->tile_pixels - 1) /
          rows->tile_pixels, a.h_rows / rows->tile_rows);

      a.h = (uint8_t *) d_workspace;
      rows->launch (a, h_grid, rows->shared_bytes, stream);
      if ((err = cudaGetLastError ()) != cudaSuccess)
        return err;
    }
    k->launch (a, grid, k->shared_bytes, stream);
    if ((err = cudaGetLastError ()) != cudaSuccess)
      return err;
  }
  return cudaSuccess;
}
