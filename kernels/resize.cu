/* Picture scaling on the GPU (see resize.h).
 *
 * The weight tables come from cpu/resize.c (cf_resize_plan_init ()), copied
 * as they are to device memory once per plan, so both backends filter with
 * the very same integers; the arithmetic below is cf_resize_cpu ()'s,
 * statement for statement, and every sum is exact, so the bytes agree.
 * Each plane is scaled by one of four kernels, chosen when the device plan
 * is made, or, at an exact 2x downscale of 8-bit samples whose weights are
 * four fixed small multiples of a power of two (antialiased bilinear), by
 * halve_kernel (): sums of two samples in the 16-bit lanes of a word,
 * which give the same integers; at an exact 3x or 1.5x downscale of 1-, 2-
 * and 4-byte pixels with fixed positive weights an axis (antialiased
 * bilinear) on a large plane, by third_kernel () (see there):
 *
 * 1. nearest_kernel (method nearest, one tap per axis): a gather. A one-tap
 *    weight is exactly 1, so output = the input sample at (first x, first
 *    y), as the two passes would compute it. Each thread copies 16 bytes of
 *    output (4 pixels of 3 bytes) in each of two rows, which share its x
 *    indices (read 16 bytes at a time) and whose loads are all in flight
 *    before the first store; one 16-byte store where the destination is
 *    aligned. Whole 4- and 8-byte pixels of aligned planes take
 *    nearest_strided () instead: a warp's lanes take every 32nd pixel of
 *    the warp's span, so each load and store instruction covers 32
 *    neighbouring pixels. A 16-bit sample is copied as its value in place,
 *    the bits outside it cleared (one AND per 32-bit word). 1-, 2- and
 *    4-byte pixels of a 16-byte aligned plane at an integer downscale of
 *    2, 3 or 4 take nearest_wide () before either: a thread's 16 bytes of
 *    a row from two to four 16-byte loads, in a kernel compiled for that
 *    step (step 2's at 32 registers).
 * 2. direct_kernel (8-bit samples in pixels of 1, 2 or 4 bytes): each
 *    thread computes 4 output bytes of several rows straight from the
 *    input. The horizontal sums take PTX's dp2a (two int16 weights times
 *    two unsigned bytes plus an int32, exact): a 4-byte pixel's tap pair
 *    costs two byte permutes and four dp2a instead of eight extractions
 *    and eight multiply-adds; a 1-byte pixel's four taps, one funnel shift
 *    of two aligned words and two dp2a. No shared memory, no barrier. Its
 *    tables are relaid with the taps of its compiled bucket, shifted to
 *    stay within the plane, so that a row's taps are loads at constant
 *    offsets. Two ways:
 *    - rows (at most 6 taps per axis, downscales where filtering each
 *      output's own taps costs less than sharing them through shared
 *      memory): two output rows a thread, all their taps' loads in flight
 *      at once;
 *    - strips (2x and 1.5x downscales along y up to 12 taps, 3x up to
 *      17): 2, 4 or 8 output rows a thread, 2, 3 or 1.5 input rows apart,
 *      so that each input row of the strip is filtered along x once and
 *      summed into every output row whose taps take it (a 4K to 1080p
 *      bicubic filters about 3.5 input rows per output row instead of 8).
 *    It reads whole pixels, so a plane whose address or pitch is not a
 *    multiple of 4 takes the kernel chosen before it (fused or two
 *    passes) at launch.
 * 3. fused_kernel (the other methods, when a tile's footprint fits in
 *    shared memory): a block scales a tile of TW x TH output pixels. It
 *    copies the input rectangle the tile needs (the "footprint", from
 *    per-tile tables made on the host) into shared memory, with 16-byte
 *    asynchronous copies (cp.async) when the plane is 16-byte aligned, its
 *    tables' loads overlapping them; filters each of those input rows
 *    along x into an int32 intermediate, in shared memory too (one
 *    thread per output column, all samples of its pixel; 4-byte pixels of
 *    8-bit samples with the direct kernel's dp2a pairs); then filters the
 *    intermediate along y (one thread per 4 output bytes, or per 8-byte
 *    pixel) and writes the output, 32 (64) bits at a time where aligned.
 *    The frame is read once (plus the footprints' overlap) and written once;
 *    nothing goes through global memory in between. TW is 128 / 64 / 32
 *    pixels for 1 / 2 / 3-8 bytes per pixel, so that a warp writes 128 bytes
 *    of an output row (256 of 8-byte pixels); TH is chosen for
 *    occupancy (choose_kernel ()).
 * 4. horizontal_kernel + vertical_kernel (a footprint too large for shared
 *    memory: strong downscales such as 640x480 to 1x1, or when asked): the
 *    intermediate makes a round trip through the workspace in global
 *    memory. One thread per intermediate sample, then one per output
 *    sample; samples read and written byte by byte.
 * Tables and input are only read during a launch, so they go through the
 * read-only data cache (__ldg).
 *
 * The kernels are templated on the pixel and sample bytes of the plane, one
 * instance per layout of CF_RESIZE_LAYOUTS. A 16-bit sample is read as its
 * value, (sample >> lsb) & max, and an output clamped to max and shifted by
 * lsb (resize.h), max and lsb of the format at run time; 8-bit samples are
 * their values, so their instances have none of this work. The weights
 * have the fraction bits of the sample size (resize.h: 14 for 8-bit
 * samples, 22 for 16-bit ones), so the shifts and biases of both passes
 * depend on SB too. 8-bit sums are int32, both passes (resize.h bounds
 * them: horizontal below 2^23, vertical below 2^31), 16-bit ones int64.
 */
#include "resize.h"
#include "cuda-common.cuh"
#include "device.h"

#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>

namespace {

constexpr int kThreads = 256;
constexpr size_t kAlign = 256;  /* of each table and workspace part */

/* The fixed point of SB-byte samples (resize.h): B, the shifts of the two
 * passes, and the accumulators of their exact sums. */
template <int SB>
struct Fixed {
  static constexpr int kBits = CF_RESIZE_WEIGHT_BITS (8 * SB);
  static constexpr int kHShift = kBits - CF_RESIZE_INTER_BITS;
  static constexpr int kVShift = kBits + CF_RESIZE_INTER_BITS;
  typedef typename std::conditional<SB == 1, int32_t, int64_t>::type Acc;
  /* Rounding, as cf_resize_cpu () does it: a sum plus half its last unit,
   * shifted right (arithmetic: half up, negative sums too). The fused
   * kernel starts its sums at the half unit, which saves an add per
   * sample. */
  static constexpr Acc kHBias = Acc (1) << (kHShift - 1);
  static constexpr Acc kVBias = Acc (1) << (kVShift - 1);
};

/* Where the 16-bit samples of a format hold their values (format.h):
 * value = (sample >> lsb) & max, sample = value << lsb. Unused for 8-bit
 * samples. Small, so that it fits in the tail padding of FusedArgs: the
 * 8-bit instances keep their code (a larger parameter block changes it). */
struct ValueField {
  uint16_t max;                 /* 2^bits - 1 */
  uint8_t lsb;
};

/* The value of @sample: an 8-bit sample is its value. */
template <int SB>
__host__ __device__ __forceinline__ int
value_of (uint32_t sample, ValueField f)
{
  return SB == 1 ? (int) sample : (int) ((sample >> f.lsb) & f.max);
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
  ValueField value;
};

struct VerticalArgs {
  const int32_t *inter;
  int row_samples;
  int rows;                     /* output rows */
  uint8_t *dst;                 /* the output plane */
  size_t dst_pitch;
  Axis y;
  ValueField value;
};

/* The intermediate (CF_RESIZE_INTER_BITS fraction bits) from a biased
 * horizontal sum. */
template <int SB>
__host__ __device__ __forceinline__ int32_t
horizontal_of_biased (typename Fixed<SB>::Acc biased)
{
  return (int32_t) (biased >> Fixed<SB>::kHShift);
}

template <int SB>
__host__ __device__ __forceinline__ int32_t
round_horizontal (typename Fixed<SB>::Acc acc)
{
  return horizontal_of_biased<SB> (acc + Fixed<SB>::kHBias);
}

/* An output sample from a biased vertical sum: the value clamped to
 * 0 .. max, shifted into place. The shifted sum fits int32 (below 2^20 in
 * magnitude: resize.h bounds the weights and the intermediate), so the
 * clamp is done in 32 bits. */
template <int SB>
__host__ __device__ __forceinline__ uint32_t
output_of_biased (typename Fixed<SB>::Acc biased, ValueField f)
{
  const int32_t max = SB == 1 ? 255 : (int32_t) f.max;
  const int32_t v = (int32_t) (biased >> Fixed<SB>::kVShift);
  const uint32_t c = (uint32_t) (v < 0 ? 0 : v > max ? max : v);

  return SB == 1 ? c : c << f.lsb;
}

template <int SB>
__host__ __device__ __forceinline__ uint32_t
round_vertical (typename Fixed<SB>::Acc acc, ValueField f)
{
  return output_of_biased<SB> (acc + Fixed<SB>::kVBias, f);
}

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
  typedef typename Fixed<SB>::Acc Acc;
  constexpr int kSamples = PB / SB;
  const int x = col / kSamples, k = col - x * kSamples;
  const int32_t *w = a.x.weights + (size_t) x * a.x.taps;
  const uint8_t *s = a.src + (size_t) row * a.src_pitch +
      (size_t) ld (a.x.first + x) * PB + k * SB;
  Acc acc = 0;

  for (int t = 0; t < a.x.taps; t++)
    acc += (Acc) ld (w + t) * value_of<SB> (sample_at<SB> (s + t * PB),
        a.value);
  a.inter[(size_t) row * a.row_samples + col] = round_horizontal<SB> (acc);
}

/* Sample @col of output row @row. */
template <int SB>
__host__ __device__ __forceinline__ void
vertical_sample (const VerticalArgs & a, int row, int col)
{
  const int32_t *w = a.y.weights + (size_t) row * a.y.taps;
  const int32_t *h = a.inter + (size_t) ld (a.y.first + row) * a.row_samples
      + col;
  typedef typename Fixed<SB>::Acc Acc;
  Acc acc = 0;

  for (int t = 0; t < a.y.taps; t++)
    acc += (Acc) ld (w + t) * ld (h + (size_t) t * a.row_samples);
  const uint32_t v = round_vertical<SB> (acc, a.value);
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

/* ------------------------------------------------------------ nearest */

/* What each thread of the fused kernel's vertical phase writes: V pixels
 * of PB bytes (V * PB = 4, except 3- and 8-byte pixels), as one Word. */
template <int PB>
struct Group {
  static constexpr int V = PB <= 2 ? 4 / PB : 1;
  typedef typename std::conditional<PB == 8, uint64_t, uint32_t>::type Word;
};

/* Stores @n bytes of @v (little-endian) at @d: one store of the whole word
 * when @aligned (to its size) and all its bytes belong to the row, else
 * byte by byte. */
template <typename Word>
__device__ __forceinline__ void
store_group (uint8_t * d, Word v, int n, bool aligned)
{
  if (aligned && n == (int) sizeof (Word)) {
    *(Word *) d = v;
    return;
  }
  for (int b = 0; b < n; b++)
    d[b] = (uint8_t) (v >> (8 * b));
}

/* A nearest table that is a line, first[i] = base + step i (an integer
 * downscale: 4K to 1080p and 720p), or step 0: read the table. */
struct Line {
  int base, step;
};

/* Entry @i of the nearest table @first, or of its line @l: computed, the
 * gather's pixel loads then wait for no table load. */
__device__ __forceinline__ int
nearest_index (const int32_t * first, Line l, int i)
{
  return l.step ? l.base + l.step * i : ld (first + i);
}

struct NearestArgs {
  const uint8_t *src;
  size_t src_pitch;
  uint8_t *dst;
  size_t dst_pitch;
  int out_width, out_height;
  const int32_t *first_x, *first_y;
  Line line_x, line_y;
  uint32_t value_mask;          /* the bits of the values in a word of two
                                 * 16-bit samples */
  bool src_aligned;             /* base and pitch multiples of 4 */
  bool dst_aligned;             /* multiples of 16 */
  bool wide_x;                  /* nearest_wide () (plan and alignment) */
};

/* Output pixels per gather thread: 16 bytes (12 for 3-byte pixels), so
 * that each thread has several loads in flight and one 16-byte store. */
template <int PB>
struct Gather {
  static constexpr int G = PB == 3 ? 4 : 16 / PB;
};

/* A 16-bit sample is written as the two passes would write it: its value
 * in place, the bits outside it cleared (value_mask); an 8-bit one as it
 * is. */
/* Output rows per gather thread: the rows share the thread's x indices,
 * and both rows' loads are in flight before the first store. */
constexpr int kNearestRows = 2;

/* The @n pixels of a gather thread from input row @row (x indices @ix) into
 * @w, little-endian. */
template <int PB, int G>
__device__ __forceinline__ void
gather_row (const NearestArgs & a, const uint8_t * row, const int (&ix)[G],
    int n, uint32_t (&w)[4])
{
#pragma unroll
  for (int i = 0; i < 4; i++)
    w[i] = 0;
#pragma unroll
  for (int j = 0; j < G; j++) {
    if (j >= n)
      break;
    const uint8_t *s = row + (size_t) ix[j] * PB;

    if (PB % 4 == 0 && a.src_aligned) {
      for (int b = 0; b < PB / 4; b++)
        w[j * PB / 4 + b] = ld ((const uint32_t *) s + b);
    } else if (PB == 2 && a.src_aligned) {
      w[j >> 1] |= (uint32_t) ld ((const uint16_t *) s) << (16 * (j & 1));
    } else {
      for (int b = 0; b < PB; b++) {
        const int k = j * PB + b;
        w[k >> 2] |= (uint32_t) ld (s + b) << (8 * (k & 3));
      }
    }
  }
}

/* The gather of whole 4- and 8-byte pixels (aligned planes): the warp's
 * 32 G output pixels from @wx0 on, lane @lane taking every 32nd of them,
 * so that each load and store instruction of the warp reads or writes 32
 * neighbouring pixels. (Four consecutive pixels a thread put lanes 32
 * bytes apart at a 2x downscale: every load instruction of the warp then
 * touched all 32 sectors of its span, four times the sectors the pixels
 * need.) */
template <int PB, int SB>
__device__ __forceinline__ void
nearest_strided (const NearestArgs & a, int wx0, int lane, int y0)
{
  constexpr int G = Gather<PB>::G;
  constexpr int W = PB >= 4 ? PB / 4 : 1;       /* words a pixel */
  int ix[G];
  uint32_t w[kNearestRows][G][W];

#pragma unroll
  for (int j = 0; j < G; j++) {
    const int x = wx0 + lane + 32 * j;

    ix[j] = x < a.out_width ? nearest_index (a.first_x, a.line_x, x) : -1;
  }
#pragma unroll
  for (int r = 0; r < kNearestRows; r++) {
    if (y0 + r >= a.out_height)
      break;
    const uint8_t *row = a.src + (size_t) nearest_index (a.first_y,
        a.line_y, y0 + r) * a.src_pitch;
#pragma unroll
    for (int j = 0; j < G; j++)
#pragma unroll
      for (int b = 0; b < W; b++)
        w[r][j][b] = ix[j] < 0 ? 0 :
            ld ((const uint32_t *) (row + (size_t) ix[j] * PB) + b);
  }
#pragma unroll
  for (int r = 0; r < kNearestRows; r++) {
    if (y0 + r >= a.out_height)
      break;
    uint32_t *d = (uint32_t *) (a.dst + (size_t) (y0 + r) * a.dst_pitch);
#pragma unroll
    for (int j = 0; j < G; j++)
#pragma unroll
      for (int b = 0; b < W; b++)
        if (ix[j] >= 0)
          d[(size_t) (wx0 + lane + 32 * j) * W + b] =
              SB == 2 ? w[r][j][b] & a.value_mask : w[r][j][b];
  }
}

/* The pixel layouts nearest_wide () takes: 1-, 2- (8-bit samples) and
 * 4-byte pixels. 2-byte pixels of 16-bit samples spilled registers in it. */
__host__ __device__ constexpr bool
nearest_wide_layout (int pb, int sb)
{
  return pb == 1 || (pb == 2 && sb == 1) || pb == 4;
}

/* The gather of 1-, 2- or 4-byte pixels along a line of step STEP (2, 3 or
 * 4: the integer downscales) from a first pixel @a.line_x.base below 4, the
 * plane 16-byte aligned (@a.wide_x): a full group's 16 bytes of G pixels
 * lie in the input pixels base + STEP (x0 + j), which are read with two to
 * four 16-byte loads instead of G (or 16) narrow ones and picked out with
 * word selects, byte shifts and byte permutes into @w, as gather_row ()
 * leaves them. The loads stop at the 16-byte chunk of the last byte taken,
 * which a 16-byte aligned pitch holds within the row. */
template <int PB, int STEP>
__device__ __forceinline__ void
nearest_wide (const NearestArgs & a, int x0, int y0,
    uint32_t (&w)[kNearestRows][4])
{
  constexpr int G = Gather<PB>::G;
  /* the first byte taken is at most 3 PB (base < 4) */
  constexpr int kChunks = (3 * PB + STEP * PB * (G - 1) + PB - 1) / 16 + 1;
  constexpr int kWords = 4 * kChunks;
  const int o = a.line_x.base * PB;
  const int last = o + STEP * PB * (G - 1) + PB - 1;
  uint4 c[kNearestRows][kChunks];

#pragma unroll
  for (int r = 0; r < kNearestRows; r++) {
    if (y0 + r >= a.out_height)
      break;
    const uint4 *s = (const uint4 *) (a.src + (size_t) nearest_index
        (a.first_y, a.line_y, y0 + r) * a.src_pitch + (size_t) x0 * STEP *
        PB);
#pragma unroll
    for (int i = 0; i < kChunks; i++)
      c[r][i] = 16 * i <= last ? ld (s + i) : make_uint4 (0, 0, 0, 0);
  }
#pragma unroll
  for (int r = 0; r < kNearestRows; r++) {
    if (y0 + r >= a.out_height)
      break;
    uint32_t b[kWords + 3];
#pragma unroll
    for (int i = 0; i < kChunks; i++) {
      b[4 * i] = c[r][i].x;
      b[4 * i + 1] = c[r][i].y;
      b[4 * i + 2] = c[r][i].z;
      b[4 * i + 3] = c[r][i].w;
    }
#pragma unroll
    for (int i = kWords; i < kWords + 3; i++)
      b[i] = 0;
    /* byte o of the chunks to byte 0: whole words (o >> 2, never for
     * 1-byte pixels), then bytes (o & 3, never for 4-byte ones) */
    if constexpr (PB > 1) {
#pragma unroll
      for (int i = 0; i < kWords + 2; i++)
        b[i] = o & 4 ? b[i + 1] : b[i];
      /* o is at most 3 PB: only 4-byte pixels reach 8 */
      if constexpr (PB == 4) {
#pragma unroll
        for (int i = 0; i < kWords; i++)
          b[i] = o & 8 ? b[i + 2] : b[i];
      }
    }
    if constexpr (PB < 4) {
#pragma unroll
      for (int i = 0; i < kWords; i++)
        b[i] = __funnelshift_r (b[i], b[i + 1], 8 * (o & 3));
    }
    /* output byte m is input byte STEP PB (m / PB) + m % PB */
#pragma unroll
    for (int q = 0; q < 4; q++) {
      if constexpr (PB == 4) {
        w[r][q] = b[STEP * q];
      } else if constexpr (PB == 2) {
        const int k0 = 2 * STEP * 2 * q, k1 = k0 + 2 * STEP;
        w[r][q] = __byte_perm (b[k0 >> 2], b[k1 >> 2], (k0 & 3) | ((k0 & 3)
                + 1) << 4 | (4 + (k1 & 3)) << 8 | (5 + (k1 & 3)) << 12);
      } else {
        w[r][q] = 0;
#pragma unroll
        for (int j = 0; j < 4; j++) {
          const int k = STEP * (4 * q + j);
          w[r][q] |= (b[k >> 2] >> (8 * (k & 3)) & 0xff) << (8 * j);
        }
      }
    }
  }
}

/* The pixels of a gather thread's rows through the x indices, into @w. */
template <int PB>
__device__ __forceinline__ void
nearest_gather (const NearestArgs & a, int x0, int y0, int n,
    uint32_t (&w)[kNearestRows][4])
{
  constexpr int G = Gather<PB>::G;
  int ix[G];
  /* a full group's indices from the table 16 bytes at a time: x0 is a
   * multiple of G and the table starts on kAlign */
  if (!a.line_x.step && G % 4 == 0 && n == G) {
#pragma unroll
    for (int q = 0; q < G / 4; q++) {
      const int4 v = ld ((const int4 *) (a.first_x + x0) + q);
      ix[4 * q] = v.x;
      ix[4 * q + 1] = v.y;
      ix[4 * q + 2] = v.z;
      ix[4 * q + 3] = v.w;
    }
  } else {
#pragma unroll
    for (int j = 0; j < G; j++)
      ix[j] = nearest_index (a.first_x, a.line_x, min (x0 + j,
              a.out_width - 1));
  }
#pragma unroll
  for (int r = 0; r < kNearestRows; r++)
    if (y0 + r < a.out_height)
      gather_row<PB, G> (a, a.src + (size_t) nearest_index (a.first_y,
              a.line_y, y0 + r) * a.src_pitch, ix, n, w[r]);
}

/* Blocks an SM the nearest kernel of a step is compiled for (0: no bound;
 * nvcc then emits no .minnctapersm, as without the argument, where 1 would
 * change ptxas' register choices). Step 2, the common 2x downscale, at
 * Hopper's 2048 threads an SM, 8 (32 registers): 4K to 1080p RGBA
 * then runs in 0.97 waves instead of 1.29 at 40 registers, 7.90 against
 * 8.13 us in Nsight Compute, and NV12 and GRAY8 a little faster too,
 * despite spills to L1 (ptxas, sm_90: 8 bytes for 4-byte pixels, 20 for
 * 2-byte, 64 for 1-byte; H200, docs/PERFORMANCE.md).
 * Steps 3 and 4 spill more at 8 and stay unbounded. */
__host__ __device__ constexpr int
nearest_min_blocks (int step)
{
  return step == 2 ? 2048 / kThreads : 0;
}

/* STEP: nearest_wide ()'s step (2, 3 or 4) where the plane takes it
 * (a.wide_x), else 0: a kernel of its own for each, as each needs its own
 * registers (the 4-byte gather 38 instead of 48 once the wide path is
 * out of it). */
template <int PB, int SB, int STEP>
__global__ void __launch_bounds__ (kThreads, nearest_min_blocks (STEP))
nearest_kernel (NearestArgs a)
{
  constexpr int G = Gather<PB>::G;
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * G;
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * kNearestRows;

  if (y0 >= a.out_height)
    return;
  /* blockDim.x is 32: the warp's first pixel and the lane */
  if (PB % 4 == 0 && a.src_aligned && a.dst_aligned && STEP == 0) {
    nearest_strided<PB, SB> (a, blockIdx.x * blockDim.x * G, threadIdx.x,
        y0);
    return;
  }
  if (x0 >= a.out_width)
    return;
  const int n = min (G, a.out_width - x0);
  uint32_t w[kNearestRows][4];
  bool wide = false;

  if constexpr (STEP != 0) {
    wide = n == G;
    if (wide)
      nearest_wide<PB, STEP> (a, x0, y0, w);
  }
  if (!wide)
    nearest_gather<PB> (a, x0, y0, n, w);
#pragma unroll
  for (int r = 0; r < kNearestRows; r++) {
    if (y0 + r >= a.out_height)
      break;
    if (SB == 2)
      for (int i = 0; i < 4; i++)
        w[r][i] &= a.value_mask;
    uint8_t *d = a.dst + (size_t) (y0 + r) * a.dst_pitch + (size_t) x0 * PB;
    if (PB != 3 && a.dst_aligned && n == G) {
      *(uint4 *) d = make_uint4 (w[r][0], w[r][1], w[r][2], w[r][3]);
    } else {
      for (int k = 0; k < n * PB; k++)
        d[k] = (uint8_t) (w[r][k >> 2] >> (8 * (k & 3)));
    }
  }
}

/* ------------------------------------------------------------ direct */

/* Taps the direct kernel is compiled for, per axis: an axis's count
 * rounded up to one of these (its tables laid out again with that many
 * taps, the extra weights 0: relay_axis ()). Rows: one of kDirectBuckets
 * for each axis (a 3-tap axis filters 3 input rows, not 4); strips: one
 * bucket of kStripBuckets for both axes, the larger (17: 3x steps only,
 * strip_takes_step ()). Along x the taps go in pairs; an odd count's last
 * pair is its last tap and a 0, not loaded. */
constexpr int kDirectBuckets[] = { 2, 3, 4, 5, 6 };
constexpr int kStripBuckets[] = { 4, 6, 8, 11, 12, 17 };
/* Output rows per direct thread: both rows' loads are in flight together,
 * and the x tables are read once for them. */
constexpr int kDirectRows = 2;
/* Output rows per strip thread (strip_offset () input rows apart), most
 * first. A strip's strip_offset (rows - 1) + TY input rows are each filtered
 * along x once, for every output row whose taps take them, so more rows
 * filter fewer input rows per output row, but hold more sums in registers
 * (fewer warps an SM). A plane takes the most rows, up to 4 (8 from 11
 * taps on), whose grid still has kStripWarps warps per multiprocessor:
 * small planes (NV12's chroma) take fewer rather than idle most of the
 * GPU, and 2-row strips only up to 4 taps. Measured on an H100, 4K to
 * 1080p RGBA (docs/PERFORMANCE.md): 4 rows against 8, 22.5 against 25.6
 * us at 4 taps, 30.3 against 33.0 at 8, but 45.6 against 44.0 at 12;
 * NV12's chroma in 2-row strips, 21.7 against 23.5 us (rows) at 4 taps,
 * but 31.1 and 42.8 against 27.9 and 35.8 (fused) at 8 and 12. 4K to 720p
 * RGBA lanczos (17 taps, in a bucket of 18 then) in 4-row strips 43.2 us,
 * in 8-row ones (460 blocks, 76 registers) 77.8, fused 62.0. 5- and 6-row
 * strips at 2x (for fewer waves of blocks: 2.05 and 1.7 against 2.6)
 * were slower at 4 taps (23.7 and 23.2 against 22.4) and 8 (31.5 and 31.0
 * against 30.0). */
constexpr int kStripRows[] = { 8, 4, 2 };
constexpr int kStripWarps = 48;

/* The most rows a strip of @taps (a bucket) takes, and whether it may
 * take @rows at all (kStripRows): choose_kernel () and launch_strips ()
 * both ask. */
constexpr int
strip_most_rows (int taps)
{
  return taps >= 11 ? 8 : 4;
}

constexpr bool
strip_takes_rows (int taps, int rows)
{
  return rows <= strip_most_rows (taps) && (rows > 2 || taps <= 4);
}

/* The input rows a strip thread loads ahead of the one it filters (their
 * loads in flight while it works): 1, except in 8-row strips of 12 taps,
 * whose 64 registers a thread would become 80 (fewer warps an SM). Measured
 * on an H100 (docs/PERFORMANCE.md), RGBA, us: 4K to 1080p bilinear 22.5 to
 * 22.1, lanczos antialias=false 26.4 to 25.0; 1080p to 720p bicubic 13.9
 * to 13.2; 4K to 720p bicubic 28.5 to 27.7; but 4K to 1080p lanczos (12
 * taps, 8 rows) 42.0 to 42.7. Two rows ahead: no faster, lanczos slower. */
__host__ __device__ constexpr int
strip_lookahead (int taps, int rows)
{
  return taps >= 12 && rows == 8 ? 0 : 1;
}

/* Whether strips of @taps (a bucket) are compiled for the step @s
 * (kStripSteps): more than 12 taps only at 3x, where lanczos has 17 (4K to
 * 720p); the 2x and 1.5x steps have at most 12 (lanczos) when both axes
 * scale alike. */
constexpr bool
strip_takes_step (int taps, int s)
{
  return taps <= 12 || s == 12;
}
/* The steps between a strip's output rows it is compiled for (S): twice
 * the step in half input rows, plus 1 where a 1.5x step rounds up.
 * - 8: 2 rows, the 2x downscales (4K to 1080p, 1080p to 540p);
 * - 12: 3 rows, the 3x ones (4K to 720p, 1080p to 360p);
 * - 7 and 6: 1.5 rows, rounded up (the rows step by 2, then 1) or down (1,
 *   then 2), the 1.5x downscales (1080p to 720p, 4K to 1440p): which of the
 *   two fits depends on the taps.
 * A strip starts at an even output row (it takes an even number of rows),
 * so one pattern fits every strip of a plane, the edges aside. */
constexpr int kStripSteps[] = { 8, 12, 7, 6 };

/* Row @k of a strip of step @s (kStripSteps): its first input row, from the
 * strip's first: 0, 2, 4, 6 (8); 0, 3, 6, 9 (12); 0, 2, 3, 5 (7); 0, 1,
 * 3, 4 (6). */
__host__ __device__ constexpr int
strip_offset (int s, int k)
{
  return (k * (s / 2) + s % 2) / 2;
}

/* Whether strips of @taps (a bucket) take @pb-byte pixels: 1-byte ones
 * (a luma plane) only up to 4 taps, four pixels a thread. Measured on an
 * H100 (docs/PERFORMANCE.md), 4K to 1080p: GRAY8 alone took 8-tap strips
 * of two pixels a thread slightly faster than the fused kernel (17.5
 * against 18.2 us) but 12-tap ones slower (25.3 against 24.0), and in
 * NV12, beside the chroma's strips on the other stream, every bucket
 * above 4 was slower: bicubic 25.7 against 22.9, lanczos 33.9 against
 * 31.0, lanczos antialias=false (6 taps) 24.8 against 22.3. */
constexpr bool
strip_takes_pixels (int taps, int pb)
{
  return pb != 1 || taps <= 4;
}

/* The fewest taps that take strips of step @s, as measured on an H100
 * (docs/PERFORMANCE.md):
 * - 2x: 3 (2 taps share no input row);
 * - 3x: 7. 4K to 720p RGBA bilinear (5 taps) took 23.4 us in strips, 21.6
 *   in rows; bicubic (11 taps) 29.4 in strips, 34.5 in the fused kernel.
 * - 1.5x: 4. 1080p to 720p RGBA, since the strips load a row ahead
 *   (strip_lookahead ()): 3 taps (bilinear) 11.35 us in strips, 11.4 in
 *   rows; 4 taps (bicubic antialias=false) 11.05 in strips, 11.8 in rows
 *   (NV12 13.35 against 14.0); 6 taps: 13.6 in strips, 18.7 fused. */
constexpr int
strip_min_taps (int s)
{
  return s == 8 ? 3 : s == 12 ? 7 : 4;
}
/* The direct kernel filters bucket_x x bucket_y input samples for each
 * output sample, the fused one about taps_x x scale_y + taps_y (scale_y:
 * input rows per output row) but through shared memory and two barriers.
 * AUTO takes the direct kernel while bucket_x x bucket_y <= kDirectCost x
 * scale_y on a downscale along y (scale_y >= 1), where it measured faster
 * on an H100; the fused kernel with dp2a pairs is the faster for upscales
 * (docs/PERFORMANCE.md). Strips of R rows filter bucket_x x
 * (strip_offset (S, R - 1) + bucket_y) / R + bucket_y samples for each
 * output sample (bicubic at 2x, 8 taps, 4 rows: 36 against the fused
 * kernel's 24), with no shared memory or barrier: AUTO takes them wherever
 * the rows step as one of kStripSteps says, with strip_min_taps () taps or
 * more, as kStripRows says. */
constexpr double kDirectCost = 12.0;

struct DirectArgs {
  const uint8_t *src;           /* base and pitch multiples of 4 */
  size_t src_pitch;
  uint8_t *dst;
  size_t dst_pitch;
  int out_width, out_height;
  Axis x, y;                    /* relaid to the kernel's buckets */
  bool dst_aligned;             /* base and pitch multiples of 4 */
};

/* The int16 weights of a tap pair in one word, as dot2 () takes them. */
__device__ __forceinline__ uint32_t
weight_pair (int32_t w0, int32_t w1)
{
  return ((uint32_t) w0 & 0xffff) | (uint32_t) w1 << 16;
}

/* Adds the tap pair @p0, @p1 (pixels of PB = 2 or 4 bytes of 8-bit samples,
 * in the low bytes of each word) times its weights @w (weight_pair ()) to
 * the sums @h of the pixel's samples: the two pixels permuted into
 * [s0 s0' s1 s1'] (and [s2 s2' s3 s3']), one dp2a a sample. */
template <int PB>
__device__ __forceinline__ void
add_tap_pair (uint32_t w, uint32_t p0, uint32_t p1, int32_t (&h)[PB])
{
  const uint32_t lo = __byte_perm (p0, p1, 0x5140);

  h[0] = dot2<false> (w, lo, h[0]);
  h[1] = dot2<true> (w, lo, h[1]);
  if constexpr (PB == 4) {
    const uint32_t hi = __byte_perm (p0, p1, 0x7362);

    h[2] = dot2<false> (w, hi, h[2]);
    h[3] = dot2<true> (w, hi, h[3]);
  }
}

/* @n consecutive weights of a relaid table from @p, in int4 or int2 loads
 * where @n allows (the rows of a relaid table start at multiples of n
 * words, the table at kAlign). */
template <int N>
__device__ __forceinline__ void
load_weights (const int32_t * p, int32_t * w)
{
  if constexpr (N % 4 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 4) {
      const int4 q = ld ((const int4 *) p + i / 4);
      w[i] = q.x; w[i + 1] = q.y; w[i + 2] = q.z; w[i + 3] = q.w;
    }
  } else if constexpr (N % 2 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 2) {
      const int2 q = ld ((const int2 *) p + i / 2);
      w[i] = q.x; w[i + 1] = q.y;
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; i++)
      w[i] = ld (p + i);
  }
}

/* Output pixels a direct thread computes in a row: 4 bytes' worth, or two
 * 4-byte pixels where the x taps are 2 or 4. Measured on an H100
 * (docs/PERFORMANCE.md), RGBA, us: 4K to 1080p bilinear (4 taps, strips)
 * 22.4 to 21.7, antialias=false (2 taps) 19.2 to 18.6; 1080p to 720p
 * area (2 taps) 9.6 to 9.1. Other counts were slower with two pixels: 3
 * taps (1080p to 720p bilinear) 11.5 against 11.8, 5 (4K to 720p
 * bilinear) 19.6 against 20.9, 6 to 12 taps up to 1.7 times slower (twice
 * the registers). 1-byte pixels: 4 up to 4 taps, else 2 (a 16-bit store),
 * whose weights would otherwise take 4 x 6 registers a row at 12 taps. */
__host__ __device__ constexpr int
direct_pixels (int pb, int tx)
{
  return pb == 4 && (tx == 2 || tx == 4) ? 2 : pb == 1 && tx > 4 ? 2 :
      4 / pb;
}

/* The TX tap pixels of a direct thread's G pixels in input row
 * @row, pixel g's from pixel @cx[g] on (an odd TX's last pair: its last
 * tap and a 0, not loaded). 1-byte pixels: px[g][j] holds taps 4 j .. 4 j
 * + 3, funnel-shifted out of the aligned words that hold them, whose last
 * is the one of tap TX - 1 (inside the row's pitch: the tables keep the
 * taps within the plane); the bytes past an odd TX's last tap meet a 0
 * weight. */
template <int PB, int TX, int G>
__device__ __forceinline__ void
load_x (const uint8_t * row, const int (&cx)[G],
    uint32_t (&px)[G][TX + TX % 2])
{
  typedef typename std::conditional<PB == 4, uint32_t, uint16_t>::type Pixel;

#pragma unroll
  for (int g = 0; g < G; g++) {
    if constexpr (PB == 1) {
      constexpr int J = (TX + 3) / 4;           /* words of taps */
      const uint32_t *w = (const uint32_t *) (row + (cx[g] & ~3));
      const int last = ((cx[g] + TX - 1) >> 2) - (cx[g] >> 2);
      const unsigned shift = 8 * (cx[g] & 3);
      uint32_t v[J + 1];

#pragma unroll
      for (int j = 0; j <= J; j++)
        v[j] = ld (w + min (j, last));
#pragma unroll
      for (int j = 0; j < J; j++)
        px[g][j] = __funnelshift_r (v[j], v[j + 1], shift);
      continue;
    }
    const Pixel *p = (const Pixel *) row + cx[g];

#pragma unroll
    for (int i = 0; i < TX; i++)
      px[g][i] = ld (p + i);
    if constexpr (TX % 2)
      px[g][TX] = 0;
  }
}

/* The horizontal sums @h of the pixels @px (load_x ()), weights @wx[g]. */
template <int PB, int TX, int G>
__device__ __forceinline__ void
sum_x (const uint32_t (&px)[G][TX + TX % 2],
    const uint32_t (&wx)[G][(TX + 1) / 2], int32_t (&h)[G][PB])
{
#pragma unroll
  for (int g = 0; g < G; g++) {
#pragma unroll
    for (int k = 0; k < PB; k++)
      h[g][k] = Fixed<1>::kHBias;
#pragma unroll
    for (int i = 0; i < TX; i += 2) {
      /* 1-byte pixels: the pair's two taps are bytes 0, 1 or 2, 3 of a
       * word of load_x () */
      if constexpr (PB == 1) {
        if (i % 4 == 0)
          h[g][0] = dot2<false> (wx[g][i / 2], px[g][i / 4], h[g][0]);
        else
          h[g][0] = dot2<true> (wx[g][i / 2], px[g][i / 4], h[g][0]);
      } else {
        add_tap_pair<PB> (wx[g][i / 2], px[g][i], px[g][i + 1], h[g]);
      }
    }
#pragma unroll
    for (int k = 0; k < PB; k++)
      h[g][k] = horizontal_of_biased<1> (h[g][k]);
  }
}

/* The horizontal sums of a direct thread's pixels in input row @row. */
template <int PB, int TX, int G>
__device__ __forceinline__ void
filter_x (const uint8_t * row, const int (&cx)[G],
    const uint32_t (&wx)[G][(TX + 1) / 2], int32_t (&h)[G][PB])
{
  uint32_t px[G][TX + TX % 2];

  load_x<PB, TX, G> (row, cx, px);
  sum_x<PB, TX, G> (px, wx, h);
}

/* Writes output row @y's G pixels from @x0 on (fewer at the row's end):
 * one store of 4 or 8 bytes where the row allows (store_group ()). */
template <int PB, int G>
__device__ __forceinline__ void
store_direct (const DirectArgs & a, int y, int x0,
    const int32_t (&acc)[G][PB])
{
  typedef typename std::conditional<G * PB == 8, uint64_t,
      typename std::conditional<G * PB == 2, uint16_t, uint32_t>::type>::type
      Word;
  Word v = 0;

#pragma unroll
  for (int g = 0; g < G; g++)
#pragma unroll
    for (int k = 0; k < PB; k++)
      v |= (Word) output_of_biased<1> (acc[g][k], ValueField { 255, 0 }) <<
          (8 * (g * PB + k));
  uint8_t *d = a.dst + (size_t) y * a.dst_pitch + (size_t) x0 * PB;
  store_group (d, v, min (G, a.out_width - x0) * PB, a.dst_aligned &&
      (uintptr_t) d % sizeof (Word) == 0);
}

/* 8-bit samples in pixels of PB = 1, 2 or 4 bytes, few taps, planes aligned
 * to 4 bytes: each thread computes G = direct_pixels () pixels of R
 * rows straight from the input, with no shared memory and no barrier. The
 * sums are the two passes': each tap row filtered along x
 * (horizontal_of_biased ()), then those along y. Along x, the two pixels
 * of a tap pair are permuted into [R0 R1 G0 G1] and [B0 B1 A0 A1] (2-byte
 * pixels: [U0 U1 V0 V1]), one dp2a per sample against the pair's two
 * weights, packed into a word once per thread; 1-byte pixels (a luma
 * plane) take four consecutive taps from one funnel shift of two aligned
 * words (load_x ()), two dp2a. The tables are relaid to TX and TY taps
 * that stay within the plane (relay_axis ()), so the taps of a row are TX
 * loads at constant offsets (1-byte pixels: (TX + 3) / 4 + 1 words).
 *
 * Rows (S = 0, R = kDirectRows): R output rows, each of its own TY input
 * rows, all their loads in flight at once.
 *
 * Strips (S > 0): R output rows whose first input rows are
 * strip_offset (S, k) from the first (a 2x, 3x or 1.5x downscale's). The
 * strip's input rows are filtered along x once each, and each output row
 * sums those of its taps as they come: a row of a 4K to 1080p bicubic (8
 * taps) is filtered once instead of four times. The pixels of the next
 * input row are loaded before this one is filtered (strip_lookahead ()).
 * Every sum is the one the rows would make, in the same order. A strip
 * whose rows do not step so (the picture's edges, where the taps are
 * shifted to stay within it; the last rows) takes the rows' way. */
template <int PB, int TX, int TY, int S, int R>
__global__ void __launch_bounds__ (kThreads)
direct_kernel (DirectArgs a)
{
  constexpr int G = direct_pixels (PB, TX);
  /* the y weights a strip loads at once: int4 or int2; one at a time from
   * 12 taps on, where the 6 output rows a strip row feeds would hold 24
   * registers of them (80 registers a thread against 64: 4K to 1080p
   * lanczos 44.0 against 41.7 us on an H100; bicubic, 8 taps, is the other
   * way round: 30.2 with int4 against 32.0) */
  constexpr int V = TY >= 12 ? 1 : TY % 4 == 0 ? 4 : TY % 2 == 0 ? 2 : 1;
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * G;
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * R;

  if (x0 >= a.out_width || y0 >= a.out_height)
    return;
  int cx[G];                    /* the taps' first pixels */
  uint32_t wx[G][(TX + 1) / 2]; /* their weights, two int16 a word */

#pragma unroll
  for (int g = 0; g < G; g++) {
    const int x = min (x0 + g, a.out_width - 1);
    int32_t w[TX];

    cx[g] = ld (a.x.first + x);
    load_weights<TX> (a.x.weights + (size_t) x * TX, w);
#pragma unroll
    for (int t = 0; t < TX; t += 2)
      wx[g][t / 2] = weight_pair (w[t], t + 1 < TX ? w[t + 1] : 0);
  }

  if constexpr (S > 0) {
    /* warp-uniform: a warp's lanes share y0 */
    const int fy = ld (a.y.first + y0);
    bool strip = y0 + R <= a.out_height;

#pragma unroll
    for (int k = 1; k < R; k++)
      strip &= ld (a.y.first + min (y0 + k, a.out_height - 1)) ==
          fy + strip_offset (S, k);
    if (strip) {
      const uint8_t *row = a.src + (size_t) fy * a.src_pitch;
      constexpr int N = strip_offset (S, R - 1) + TY;
      constexpr int D = strip_lookahead (TX, R);
      int32_t acc[R][G][PB];
      int32_t wy[R][TY];
      uint32_t px[D + 1][G][TX + TX % 2];

#pragma unroll
      for (int j = 0; j < D; j++)
        load_x<PB, TX, G> (row + (size_t) j * a.src_pitch, cx, px[j]);
#pragma unroll
      for (int j = 0; j < N; j++) {
        int32_t h[G][PB];

        if (j + D < N)
          load_x<PB, TX, G> (row + (size_t) (j + D) * a.src_pitch, cx,
              px[(j + D) % (D + 1)]);
        sum_x<PB, TX, G> (px[j % (D + 1)], wx, h);
#pragma unroll
        for (int k = 0; k < R; k++) {
          const int t = j - strip_offset (S, k);

          if (t < 0 || t >= TY)
            continue;
          if (t % V == 0)
            load_weights<V> (a.y.weights + (size_t) (y0 + k) * TY + t,
                wy[k] + t);
#pragma unroll
          for (int g = 0; g < G; g++)
#pragma unroll
            for (int c = 0; c < PB; c++)
              acc[k][g][c] = (t == 0 ? Fixed<1>::kVBias : acc[k][g][c]) +
                  wy[k][t] * h[g][c];
          if (t == TY - 1)
            store_direct<PB, G> (a, y0 + k, x0, acc[k]);
        }
      }
      return;
    }
  }

#pragma unroll (S ? 1 : R)
  for (int r = 0; r < R; r++) {
    const int y = y0 + r;
    if (y >= a.out_height)
      break;
    const uint8_t *row = a.src + (size_t) ld (a.y.first + y) * a.src_pitch;
    int32_t acc[G][PB], wy[TY];

    load_weights<TY> (a.y.weights + (size_t) y * TY, wy);
#pragma unroll
    for (int g = 0; g < G; g++)
#pragma unroll
      for (int k = 0; k < PB; k++)
        acc[g][k] = Fixed<1>::kVBias;
#pragma unroll
    for (int t = 0; t < TY; t++, row += a.src_pitch) {
      int32_t h[G][PB];

      filter_x<PB, TX, G> (row, cx, wx, h);
#pragma unroll
      for (int g = 0; g < G; g++)
#pragma unroll
        for (int k = 0; k < PB; k++)
          acc[g][k] += wy[t] * h[g][k];
    }
    store_direct<PB, G> (a, y, x0, acc);
  }
}

/* ------------------------------------------------------------ halve */

/* halve_kernel: a 2x downscale of 8-bit samples in 1-, 2- or 4-byte
 * pixels (gray and luma planes, NV12's chroma pairs, RGBA and its kin)
 * whose axes each weigh the same four non-negative weights w[t] 2^b for
 * every output, output i from input 2 i - 1 .. 2 i + 2, the taps beyond an
 * edge folded onto it (halve_axis () checks the tables): the antialiased
 * bilinear (1 3 3 1) / 8, co-sited chroma's (3 7 5 1) / 16 and co-sited
 * chroma's area (1 4 3 0) / 8 (two taps an axis keep the direct kernel:
 * area and bilinear without antialiasing on centred samples, (0 1 1 0) / 2,
 * and co-sited chroma's bilinear without it, (0 3 1 0) / 4). The sums of
 * the two passes (resize.h) are then exact multiples: with b_x >= 8, h =
 * (2^b_x s_x + 2^7) >> 8 = 2^(b_x - 8) s_x, s_x = sum w_x in, and out =
 * (2^(b_x - 8 + b_y) s_y + 2^19) >> 20 = (s_y + round) >> shift, s_y =
 * sum w_y s_x: the same bytes as cf_resize_cpu (). Both sums stay below
 * 2^16 (halve_plane (): 255 sum w_x sum w_y + round), so a 32-bit word
 * holds two samples' sums in 16-bit lanes and one multiply-add moves both,
 * where the direct kernel's dp2a takes a word of weights per sample.
 *
 * A thread takes HalveShape<PB>::V 16-byte vectors of a row (the pixel
 * before and after them from the neighbouring lanes) and gives 8 output
 * bytes a vector, of HalveShape<PB>::R output rows, from the 2 R + 2 input
 * rows they take (clamped into the plane). */
constexpr int kHalveThreads = 256;

/* A thread's vectors V and output rows R, and the blocks an SM the kernel
 * is compiled for, by pixel size, as measured on an H200, 4K to 1080p, in a
 * prototype that launched this kernel in each shape (docs/PERFORMANCE.md):
 * - 1- and 2-byte pixels: 1 vector, 2 rows, no bound (48 and 54
 *   registers): GRAY8 bilinear 9.4 us against 10.0 at 6 blocks and the
 *   direct kernel's 13.1; NV12's chroma 6.0 against 6.1 at 6; 2 vectors
 *   were slower (GRAY8 13.2 to 13.8), and so were 1 or 4 rows;
 * - 4-byte pixels: 2 vectors, 4 rows, 5 blocks (48 registers, a few bytes
 *   spilled; without the bound 54, so 4 blocks an SM and 4K's 540 blocks
 *   in two waves): RGBA 16.5 against 19.5 without the bound and the direct
 *   kernel's 18.6; 2, 6 or 8 rows 17.2, 18.1, 20.0; 1 vector 22.0. */
template <int PB>
struct HalveShape
{
  static_assert (PB == 1 || PB == 2 || PB == 4, "1-, 2- and 4-byte pixels");
  static constexpr int V = PB == 4 ? 2 : 1;
  static constexpr int R = PB == 4 ? 4 : 2;
  static constexpr int kMinBlocks = PB == 4 ? 5 : 0;
};

/* A plane as the kernels of fixed patterns (halve, third) take it. */
struct FixedPlane {
  const uint8_t *src;           /* base and pitch aligned to the kernel's
                                 * loads */
  size_t src_pitch;
  uint8_t *dst;
  size_t dst_pitch;
  int in_bytes, in_height;      /* a row's bytes, rows */
  int out_bytes, out_height;
  bool dst_aligned;             /* base and pitch multiples of a thread's
                                 * output bytes */
};

struct HalveArgs {
  FixedPlane g;
  uint32_t wx[4], wy[4];        /* w[t], small: the lanes' sums fit */
  uint32_t round;               /* in both lanes */
  int shift;
};

/* Bytes 0 and 2 (@sel 0x4240), 1 and 3 (0x4341), 0 and 1 (0x4140) or 2
 * and 3 (0x4342) of @w in 16-bit lanes. */
__device__ __forceinline__ uint32_t
lanes_of (uint32_t w, uint32_t sel)
{
  return __byte_perm (w, 0, sel);
}

/* One pixel of @PB bytes at @p, in the low bytes. */
template <int PB>
__device__ __forceinline__ uint32_t
ld_pixel (const uint8_t * p)
{
  if constexpr (PB == 4)
    return ld ((const uint32_t *) p);
  else if constexpr (PB == 2)
    return ld ((const uint16_t *) p);
  else
    return ld (p);
}

/* The word of @row at @at (a multiple of 4) at the row's end (@in_bytes):
 * its bytes beyond the end are the last pixel's. Word by word, with 4-byte
 * and 2-byte pixels' words whole: halve_kernel takes 48 to 54 registers
 * without a bound, against 60 to 64 when it assembled its 16 bytes byte by
 * byte. */
template <int PB>
__device__ __forceinline__ uint32_t
row_end_word (const uint8_t * row, int at, int in_bytes)
{
  if (at + 4 <= in_bytes)
    return ld ((const uint32_t *) (row + at));
  if constexpr (PB == 4)
    return ld ((const uint32_t *) (row + in_bytes - 4));
  if constexpr (PB == 2)
    return ld ((const uint16_t *) (row + in_bytes - 2)) * 0x10001u;
  uint32_t w = 0;

#pragma unroll
  for (int i = 0; i < 4; i++)
    w |= (uint32_t) ld (row + min (at + i, in_bytes - 1)) << (8 * i);
  return w;
}

/* Whether this lane loads the pixels before (@left) and after (@right) its
 * @n bytes from @xi itself: at the warp's ends and the row's; the other
 * lanes take them from their neighbours (lane_pixels ()). */
__device__ __forceinline__ void
own_edges (int lane, int xi, int n, int in_bytes, bool & left, bool & right)
{
  left = lane == 0;
  right = lane == 31 || xi + n >= in_bytes;
}

/* The pixels before and after a thread's @n bytes of @row from @xi, in the
 * low bytes, loaded into @left and @right where own_edges () says this lane
 * loads them (the others are left as they are). */
template <int PB>
__device__ __forceinline__ void
edge_pixels (const uint8_t * row, int xi, int n, int in_bytes, int lane,
    uint32_t & left, uint32_t & right)
{
  bool own_left, own_right;

  own_edges (lane, xi, n, in_bytes, own_left, own_right);
  if (own_left)
    left = ld_pixel<PB> (row + max (xi - PB, 0));
  if (own_right)
    right = ld_pixel<PB> (row + min (xi + n, in_bytes - PB));
}

/* The pixels before and after a thread's bytes (words @first and @last the
 * first and last of them) from the neighbouring lanes, in the low bytes:
 * right for every lane but those of own_edges (). */
template <int PB>
__device__ __forceinline__ void
lane_pixels (uint32_t first, uint32_t last, uint32_t & left,
    uint32_t & right)
{
  left = __shfl_up_sync (0xffffffffu, last, 1) >> (8 * (4 - PB));
  right = __shfl_down_sync (0xffffffffu, first, 1);
}

/* Output row @y's 4 @W bytes from @x0 (bytes), the words @v, in one
 * vector store where the plane allows it, else byte by byte up to the
 * row's end (the fixed-pattern kernels' last thread of a row). */
template <int W>
__device__ __forceinline__ void
fixed_store (const FixedPlane & g, int y, int x0, const uint32_t (&v)[W])
{
  static_assert (W == 2 || W == 4, "8 or 16 bytes");
  uint8_t *d = g.dst + (size_t) y * g.dst_pitch + x0;

  if (g.dst_aligned && x0 + 4 * W <= g.out_bytes) {
    if constexpr (W == 4)
      *(uint4 *) d = make_uint4 (v[0], v[1], v[2], v[3]);
    else
      *(uint2 *) d = make_uint2 (v[0], v[1]);
  } else {
    for (int i = 0; i < 4 * W && x0 + i < g.out_bytes; i++)
      d[i] = (uint8_t) (v[i / 4] >> (8 * (i % 4)));
  }
}

/* The packed horizontal sums of the thread's 8 V output bytes in input row
 * @row (bytes @xi .. @xi + 16 V - 1, @xi a multiple of 16 V): h[j], lanes
 * as halve_store () takes them. */
template <int PB, int V>
__device__ __forceinline__ void
halve_row (const HalveArgs & a, const uint8_t * row, int xi, int lane,
    uint32_t (&h)[4 * V])
{
  uint32_t w[4 * V];

#pragma unroll
  for (int v = 0; v < V; v++) {
    const int at = xi + 16 * v;
    uint4 x;

    if (at + 16 <= a.g.in_bytes)
      x = ld ((const uint4 *) (row + at));
    else
      x = make_uint4 (row_end_word<PB> (row, at, a.g.in_bytes),
          row_end_word<PB> (row, at + 4, a.g.in_bytes),
          row_end_word<PB> (row, at + 8, a.g.in_bytes),
          row_end_word<PB> (row, at + 12, a.g.in_bytes));
    w[4 * v] = x.x;
    w[4 * v + 1] = x.y;
    w[4 * v + 2] = x.z;
    w[4 * v + 3] = x.w;
  }
  uint32_t left, right;

  lane_pixels<PB> (w[0], w[4 * V - 1], left, right);
  edge_pixels<PB> (row, xi, 16 * V, a.g.in_bytes, lane, left, right);
  uint32_t tap[4 * V][4];       /* [output word][tap] */

  if constexpr (PB == 1) {
    /* word j: outputs 2 j, 2 j + 1, from bytes 4 j - 1 .. 4 j + 4 */
    uint32_t e[4 * V + 1], o[4 * V + 1];

    o[0] = left << 16;
#pragma unroll
    for (int j = 0; j < 4 * V; j++) {
      e[j] = lanes_of (w[j], 0x4240);
      o[j + 1] = lanes_of (w[j], 0x4341);
    }
    e[4 * V] = right & 0xff;
#pragma unroll
    for (int j = 0; j < 4 * V; j++) {
      tap[j][0] = __byte_perm (o[j], o[j + 1], 0x5432);
      tap[j][1] = e[j];
      tap[j][2] = o[j + 1];
      tap[j][3] = __byte_perm (e[j], e[j + 1], 0x5432);
    }
  } else if constexpr (PB == 2) {
    /* word j: output pixel j, from pixels 2 j - 1 .. 2 j + 2; p[k + 1]:
     * pixel k's two samples */
    uint32_t p[8 * V + 2];

    p[0] = lanes_of (left, 0x4140);
#pragma unroll
    for (int j = 0; j < 4 * V; j++) {
      p[2 * j + 1] = lanes_of (w[j], 0x4140);
      p[2 * j + 2] = lanes_of (w[j], 0x4342);
    }
    p[8 * V + 1] = lanes_of (right, 0x4140);
#pragma unroll
    for (int j = 0; j < 4 * V; j++)
#pragma unroll
      for (int t = 0; t < 4; t++)
        tap[j][t] = p[2 * j + t];
  } else {
    /* words 2 q and 2 q + 1: output pixel q's samples 0 and 2, 1 and 3,
     * from pixels 2 q - 1 .. 2 q + 2; p[k + 1]: pixel k */
    uint32_t p[4 * V + 2];

    p[0] = left;
#pragma unroll
    for (int j = 0; j < 4 * V; j++)
      p[j + 1] = w[j];
    p[4 * V + 1] = right;
#pragma unroll
    for (int q = 0; q < 2 * V; q++)
#pragma unroll
      for (int t = 0; t < 4; t++) {
        tap[2 * q][t] = lanes_of (p[2 * q + t], 0x4240);
        tap[2 * q + 1][t] = lanes_of (p[2 * q + t], 0x4341);
      }
  }
#pragma unroll
  for (int j = 0; j < 4 * V; j++)
    h[j] = a.wx[0] * tap[j][0] + a.wx[1] * tap[j][1] + a.wx[2] * tap[j][2] +
        a.wx[3] * tap[j][3];
}

/* Output row @y's 8 V bytes from @x0 (bytes) from the packed sums @acc:
 * rounded, shifted, and put back in sample order. */
template <int PB, int V>
__device__ __forceinline__ void
halve_store (const HalveArgs & a, int y, int x0, const uint32_t (&acc)[4 * V])
{
  /* two words' lanes into one: 1- and 2-byte pixels interleave them, 4-byte
   * ones take samples 0 and 2 from the first, 1 and 3 from the second */
  constexpr uint32_t kJoin = PB == 4 ? 0x6240 : 0x6420;
  uint32_t r[4 * V], v[2 * V];

#pragma unroll
  for (int j = 0; j < 4 * V; j++)
    r[j] = ((acc[j] + a.round) >> a.shift) & 0x00ff00ffu;
#pragma unroll
  for (int i = 0; i < 2 * V; i++)
    v[i] = __byte_perm (r[2 * i], r[2 * i + 1], kJoin);
  fixed_store (a.g, y, x0, v);
}

template <int PB, int V, int R, int MIN_BLOCKS>
__global__ void __launch_bounds__ (kHalveThreads, MIN_BLOCKS)
halve_kernel (HalveArgs a)
{
  static_assert (V == 1 || V == 2, "one or two vectors a thread");
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int xi = 16 * V * t, x0 = 8 * V * t;
  const int y0 = blockIdx.y * R;

  /* whole warps stay (the shuffles); their lanes past the row load its
   * last pixel and store nothing */
  if (16 * V * (t & ~31) >= a.g.in_bytes)
    return;
  uint32_t acc[2][4 * V];

  /* input row 2 y0 - 1 + j feeds output rows y0 + k with tap j - 2 k */
#pragma unroll
  for (int j = 0; j < 2 * R + 2; j++) {
    const int yi = min (max (2 * y0 - 1 + j, 0), a.g.in_height - 1);
    uint32_t h[4 * V];

    halve_row<PB, V> (a, a.g.src + (size_t) yi * a.g.src_pitch, xi,
        threadIdx.x % 32, h);
#pragma unroll
    for (int k = 0; k < R; k++) {
      const int tap = j - 2 * k;

      if (tap < 0 || tap > 3)
        continue;
#pragma unroll
      for (int c = 0; c < 4 * V; c++)
        acc[k % 2][c] = (tap ? acc[k % 2][c] : 0) + a.wy[tap] * h[c];
      if (tap == 3 && y0 + k < a.g.out_height && x0 < a.g.out_bytes)
        halve_store<PB, V> (a, y0 + k, x0, acc[k % 2]);
    }
  }
}

/* halve_kernel ()'s grid of kHalveThreads-thread blocks on plane @g. */
template <int PB>
dim3
halve_grid (const FixedPlane & g)
{
  using S = HalveShape<PB>;
  const int threads = (g.in_bytes + 16 * S::V - 1) / (16 * S::V);

  return { (unsigned) ((threads + kHalveThreads - 1) / kHalveThreads),
    (unsigned) ((g.out_height + S::R - 1) / S::R), 1 };
}

/* Launches halve_kernel () of shape HalveShape<PB> on plane @a. */
template <int PB>
void
launch_halve (const HalveArgs & a, cudaStream_t stream)
{
  using S = HalveShape<PB>;

  halve_kernel<PB, S::V, S::R, S::kMinBlocks><<<halve_grid<PB> (a.g),
      kHalveThreads, 0, stream>>> (a);
}

/* ------------------------------------------------------------ third */

/* third_kernel<PB, P>: a downscale of 8-bit samples in 1-, 2- or 4-byte
 * pixels (gray and luma planes, NV12's chroma pairs, RGBA), by 3 / P, P
 * outputs a period of 3 inputs, whose axes weigh the same five weights
 * w[r][t] for phase r of every period: output P m + r from input 3 m - 1 +
 * t, t in third_tap_lo (P, r) .. third_tap_hi (P, r), the taps beyond an
 * edge folded onto it (third_plane () checks the tables):
 * - P = 1, 3x: the antialiased bilinear, 2^14 (1 2 3 2 1) / 9 as the tables
 *   round it (1820 3641 5462 3641 1820), taps 0 .. 4;
 * - P = 2, 1.5x: the antialiased bilinear, (1820 9103 5461) on taps 0 .. 2
 *   and (5461 9103 1820) on taps 2 .. 4.
 * Those weights are no multiples of a power of two, so the sums are
 * cf_resize_cpu ()'s in 32-bit words (along x, third_sums (): on 1-byte
 * pixels two dp2a and one multiply-add an output, on 2-byte pixels one
 * multiply-add a tap, on 4-byte pixels one dp2a a tap pair; along y one
 * multiply-add a tap), h = (sum w_x in + 2^7) >> 8
 * and out = clamp ((sum w_y h + 2^19) >> 20); what the
 * direct kernel's tables cost (a weight load a tap, each output row's own
 * input rows) it does not.
 *
 * A thread takes 24 / P input bytes of a row (three loads of 8 / P bytes; the
 * pixel before and after them from the neighbouring lanes) and gives 8 output
 * bytes, of P kThirdRows output rows, from the 3 kThirdRows + 2 input rows
 * they take (clamped into the plane), all loaded before the first sum (1-byte
 * pixels at 3x: kThirdAhead of them ahead of the sums). Measured on an H200
 * (docs/PERFORMANCE.md; 8 frames rotated, beyond L2), bilinear: GRAY8 4K to
 * 720p 8.5 us against the direct kernel's 12.5 (read row by row: 8.6); GRAY8
 * 1080p to 720p 5.6 against 7.7, 4K to 1440p 11.4 against 17.3 (GRAY8 4K to
 * 720p is 8.2 - 8.4 since the 1-byte sums took dp2a, kThirdThreads, and
 * 8.0 - 8.3 with kThirdAhead). 4-byte pixels, with dp2a sums (third_sums ()):
 * RGBA 1080p to 720p 10.0 against 10.8 (an A/B run at a6e3d35); RGBA 4K to
 * 720p 16.5 - 16.6 against 17.1 - 17.2, 8K to 1440p 44.6 - 44.8 against
 * 48.5 - 49.0 (ca05b7b; before those sums, in blocks of 256, 3x had been
 * slower than the direct kernel: 19.9 against 16.6). See also
 * third_min_output (). */
constexpr int kThirdRows = 2;   /* periods of output rows a thread */
/* Threads a block: one warp (the launch bound names no minimum of blocks:
 * 64 to 88 registers a thread). Blocks of 32 were faster than of 256 on an
 * H200 at 1.5x (5a53bb4's A/B: RGBA 1080p to 720p 9.5 / 9.6 against
 * 10.1 / 10.2 us, GRAY8 6.2 / 6.2 against 6.4 / 6.5), and at 3x once the
 * 1-byte sums took dp2a (86 registers under a launch bound of 256, where
 * 256-thread blocks leave 2 an SM: GRAY8 4K to 720p 8.2 - 8.4 against 9.5,
 * 8K to 1440p 17.1 - 17.2 against 17.7 - 17.9; a block of a 4K row's 160
 * threads, 8.2 - 8.3 and 17.1 - 17.2; docs/PERFORMANCE.md). */
constexpr int kThirdThreads = 32;
/* Input rows whose loads a thread keeps ahead of its sums where
 * third_staggers (): the first kThirdAhead rows at once, then row j +
 * kThirdAhead's after row j's sums, so that a warp's last rows arrive
 * while it sums its first ones. With every row loaded first, the last
 * warps' rows all arrive at the end and the kernel waits for their whole
 * arithmetic: GRAY8 4K to 720p took 6.5 - 7.6 us of GPU time under Nsight
 * Compute (median 6.7), where its loads alone (no arithmetic) took 5.0.
 * Four ahead: 6.0 - 6.5 (median 6.2; NPP's bilinear 6.4 - 6.5 in the same
 * run); event-timed 8.0 - 8.3 against 8.3 - 8.6 over nine rounds (NPP 8.4
 * - 8.5); 8K to 1440p 17.2 both; NV12 4K to 720p 11.3 - 15.3 both ways
 * (H200, 2ee4219 and 1570d6c, docs/PERFORMANCE.md). Six ahead was
 * between. On 4-byte pixels it was slower (RGBA 4K to 720p 17.2
 * against 16.4, 8K to 1440p 50.6 against 44.4: their grids take more than
 * a wave, whose later warps overlap the first ones' sums anyway); 2-byte
 * pixels were not measured alone. */
constexpr int kThirdAhead = 4;
/* The output bytes from which a plane takes third_kernel<PB, P>. Below
 * some size the kernel takes about as long as on a large plane (a floor
 * of 6.7 to 11 us), and the direct kernel is faster: GRAY8 2880 x 1620 to
 * 960 x 540 (518 400 bytes) 10.9 us against 8.4, 1920 x 1080 to 640 x 360
 * 9.7 against 6.3, 960 x 540 to 640 x 360 6.7 against 5.4; at 4K to 720p
 * and 1080p to 720p (921 600 bytes) the kernel wins (above). Loading every
 * row first did not lower that floor, so the reads are not its cause; the
 * likely one (not profiled) is a thread's long serial work on planes too
 * small to give each scheduler more than a warp or two (the 3x kernel
 * with 1 row a thread, in a prototype: 7.2 us at 1080p to 360p). The
 * threshold, 1024 x 768, lies between the sizes measured.
 * 4-byte pixels at 3x take it at any size: RGBA 960 x 540 to 320 x 180
 * (230 400 bytes) took 5.6 - 5.8 us against 7.3 - 7.5, 1920 x 1080 to 640
 * x 360 8.3 - 8.4 against 8.7 - 8.9 (49c188c, H200), 2880 x 1620 to 960 x
 * 540 12.0 - 12.2 against the same (ca05b7b); smaller planes were not
 * measured.
 * At 1.5x they tie with the direct kernel or lose by 0.1 us up to 1440 x
 * 810 to 960 x 540 (2 073 600 bytes: 7.5 us against 7.4; 960 x 540 to 640
 * x 360 6.0 against 5.9) and win from 1080p to 720p (3 686 400 bytes: 9.2
 * against 9.9; 2880 x 1620 to 1080p 14.3 against 16.4, 4K to 1440p 20.9
 * against 25.9; medians of three rounds, H200, 1fba55e), so theirs lies
 * between those, at 3 MiB. */
__host__ __device__ constexpr size_t
third_min_output (int PB, int P)
{
  return PB != 4 ? 1024 * 768 : P == 2 ? 3 * 1024 * 1024 : 0;
}

/* The taps of phase @r of a period of @P outputs: [lo, hi] of 0 .. 4. */
__host__ __device__ constexpr int
third_tap_lo (int P, int r)
{
  return P == 1 ? 0 : 2 * r;
}

__host__ __device__ constexpr int
third_tap_hi (int P, int r)
{
  return P == 1 ? 4 : 2 * r + 2;
}

/* Whether third_kernel<PB, P> is compiled and chosen: pixels of 1, 2 and
 * 4 bytes, at both ratios. */
__host__ __device__ constexpr bool
third_takes (int PB, int P)
{
  return (PB == 1 || PB == 2 || PB == 4) && (P == 1 || P == 2);
}

/* Whether third_kernel<PB, P> staggers its loads (kThirdAhead): 1-byte
 * pixels at 3x. */
__host__ __device__ constexpr bool
third_staggers (int PB, int P)
{
  return PB == 1 && P == 1;
}

struct ThirdArgs {
  FixedPlane g;                 /* source base and pitch multiples of the
                                 * loads, 8 / P bytes */
  int32_t wx[2][5], wy[2][5];   /* [phase][tap], phases 0 .. P - 1 */
};

/* One input row's loads for a thread: its 24 / P bytes from @xi, and the
 * pixels before and after them where this lane loads them itself
 * (edge_pixels ()). */
template <int P>
struct ThirdRow {
  uint32_t w[6 / P];
  uint32_t left, right;
};

template <int PB, int P>
__device__ __forceinline__ void
third_load (const ThirdArgs & a, const uint8_t * row, int xi, int lane,
    ThirdRow<P> & r)
{
  constexpr int kBytes = 24 / P;

  if (xi + kBytes <= a.g.in_bytes) {
#pragma unroll
    for (int v = 0; v < 3; v++) {
      if constexpr (P == 1) {
        const uint2 x = ld ((const uint2 *) (row + xi + 8 * v));

        r.w[2 * v] = x.x;
        r.w[2 * v + 1] = x.y;
      } else {
        r.w[v] = ld ((const uint32_t *) (row + xi + 4 * v));
      }
    }
  } else {
#pragma unroll
    for (int v = 0; v < 6 / P; v++)
      r.w[v] = row_end_word<PB> (row, xi + 4 * v, a.g.in_bytes);
  }
  r.left = r.right = 0;
  edge_pixels<PB> (row, xi, kBytes, a.g.in_bytes, lane, r.left, r.right);
}

/* The horizontal sums (I fraction bits) of the thread's 8 output bytes in
 * the loaded row @r. */
template <int PB, int P>
__device__ __forceinline__ void
third_sums (const ThirdArgs & a, const ThirdRow<P> & r, int xi, int lane,
    int32_t (&h)[8])
{
  constexpr int kBytes = 24 / P;
  uint32_t left, right;
  bool own_left, own_right;

  lane_pixels<PB> (r.w[0], r.w[6 / P - 1], left, right);
  own_edges (lane, xi, kBytes, a.g.in_bytes, own_left, own_right);
  if (own_left)
    left = r.left;
  if (own_right)
    right = r.right;
  constexpr int kRound =
      1 << (CF_RESIZE_WEIGHT_BITS_8 - CF_RESIZE_INTER_BITS - 1);
  constexpr int kShift = CF_RESIZE_WEIGHT_BITS_8 - CF_RESIZE_INTER_BITS;

  if constexpr (PB == 1) {
    /* 1-byte pixels: an output's first four taps are four neighbouring
     * bytes, one word (one byte permute, none where it is aligned), two
     * dp2a, and its fifth tap (or third) one multiply-add. w[k]: bytes xi
     * + 4 k - 4 .. xi + 4 k - 1, the pixel before in w[0]'s top byte. */
    constexpr int kWords = kBytes / 4 + 2;
    uint32_t w[kWords];

    w[0] = left << 24;
#pragma unroll
    for (int v = 0; v < kBytes / 4; v++)
      w[v + 1] = r.w[v];
    w[kWords - 1] = right;
#pragma unroll
    for (int o = 0; o < 8; o++) {
      const int m = o / P, ph = o % P;
      const int lo = third_tap_lo (P, ph), hi = third_tap_hi (P, ph);
      const int at = 3 * m - 1 + lo + 4;        /* byte of w */
      const int k = at % 4;
      const uint32_t x = k ? __byte_perm (w[at / 4], w[at / 4 + 1],
          0x3210 + 0x1111 * k) : w[at / 4];
      int32_t sum = dot2<false> (weight_pair (a.wx[ph][lo],
              a.wx[ph][lo + 1]), x, kRound);

      if (hi - lo == 4) {
        sum = dot2<true> (weight_pair (a.wx[ph][lo + 2], a.wx[ph][lo + 3]),
            x, sum);
        sum += a.wx[ph][hi] * (int32_t) ((w[(at + 4) / 4] >>
                (8 * ((at + 4) % 4))) & 0xff);
      } else {
        sum += a.wx[ph][hi] * (int32_t) ((x >> 16) & 0xff);
      }
      h[o] = sum >> kShift;
    }
  } else if constexpr (PB == 2) {
    /* 2-byte pixels (their taps are every other byte): one byte extraction
     * and one multiply-add a tap (dp2a pairs, as for 4-byte pixels below,
     * were no faster on NV12's chroma on an H200); b[PB + i] is byte xi +
     * i, the pixel before in b[0 .. PB - 1], the one after from
     * b[PB + kBytes] */
    int32_t b[kBytes + 2 * PB];

#pragma unroll
    for (int i = 0; i < PB; i++) {
      b[i] = (left >> (8 * i)) & 0xff;
      b[PB + kBytes + i] = (right >> (8 * i)) & 0xff;
    }
#pragma unroll
    for (int i = 0; i < kBytes; i++)
      b[PB + i] = (r.w[i / 4] >> (8 * (i % 4))) & 0xff;
    /* output byte o: sample o % PB of output pixel q = o / PB, phase q % P
     * of period q / P, from pixels 3 (q / P) - 1 + t */
#pragma unroll
    for (int o = 0; o < 8; o++) {
      const int q = o / PB, m = q / P, ph = q % P;
      int32_t sum = kRound;

#pragma unroll
      for (int t = third_tap_lo (P, ph); t <= third_tap_hi (P, ph); t++)
        sum += a.wx[ph][t] * b[PB * (3 * m + t) + o % PB];
      h[o] = sum >> kShift;
    }
  } else {
    /* 4-byte pixels: the thread's 6 / P pixels and the one either side,
     * px[i] holding pixel i - 1 (pixel -1 is the one before); an output
     * pixel's taps in pairs, the pair's two pixels interleaved by two byte
     * permutes (samples 0 and 1 of both in e[0], 2 and 3 in e[1]), then
     * one dp2a a sample (the direct kernel's way); a phase's odd last tap
     * pairs with a zero pixel at weight 0 */
    uint32_t px[kBytes / 4 + 2];

    px[0] = left;
#pragma unroll
    for (int v = 0; v < kBytes / 4; v++)
      px[v + 1] = r.w[v];
    px[kBytes / 4 + 1] = right;
#pragma unroll
    for (int q = 0; q < 8 / PB; q++) {
      const int m = q / P, ph = q % P;
      const int lo = third_tap_lo (P, ph), hi = third_tap_hi (P, ph);
      int32_t sum[4];

#pragma unroll
      for (int c = 0; c < 4; c++)
        sum[c] = kRound;
#pragma unroll
      for (int t = lo; t <= hi; t += 2) {
        const int i = 3 * m + t;        /* tap t's pixel, 3 m - 1 + t */
        const uint32_t wp = weight_pair (a.wx[ph][t],
            t < hi ? a.wx[ph][t + 1] : 0);
        const uint32_t p0 = px[i], p1 = t < hi ? px[i + 1] : 0;
        const uint32_t e[2] = { __byte_perm (p0, p1, 0x5140),
          __byte_perm (p0, p1, 0x7362)
        };

#pragma unroll
        for (int c = 0; c < PB; c++)
          sum[c] = c % 2 ? dot2<true> (wp, e[c / 2], sum[c]) :
              dot2<false> (wp, e[c / 2], sum[c]);
      }
#pragma unroll
      for (int c = 0; c < PB; c++)
        h[PB * q + c] = sum[c] >> kShift;
    }
  }
}

/* Output row @y's 8 bytes from @x0 (bytes) from the vertical sums @acc. */
__device__ __forceinline__ void
third_store (const ThirdArgs & a, int y, int x0, const int32_t (&acc)[8])
{
  constexpr int kShift = CF_RESIZE_WEIGHT_BITS_8 + CF_RESIZE_INTER_BITS;
  uint32_t v[2] = { 0, 0 };

#pragma unroll
  for (int o = 0; o < 8; o++) {
    const int32_t out = (acc[o] + (1 << (kShift - 1))) >> kShift;

    v[o / 4] |= (uint32_t) min (max (out, 0), 255) << (8 * (o % 4));
  }
  fixed_store (a.g, y, x0, v);
}

/* Input row 3 @y0 - 1 + @j of a thread's kThirdRows periods from @y0,
 * clamped into the plane. */
__device__ __forceinline__ const uint8_t *
third_row (const ThirdArgs & a, int y0, int j)
{
  const int yi = min (max (3 * y0 - 1 + j, 0), a.g.in_height - 1);

  return a.g.src + (size_t) yi * a.g.src_pitch;
}

template <int PB, int P, bool STAGGER>
__global__ void __launch_bounds__ (kThirdThreads)
third_kernel (ThirdArgs a)
{
  constexpr int J = 3 * kThirdRows + 2, K = P * kThirdRows;
  constexpr int kAhead = STAGGER ? kThirdAhead : J;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int xi = 24 / P * t, x0 = 8 * t;
  const int y0 = blockIdx.y * kThirdRows;       /* in periods */
  const int lane = threadIdx.x % 32;

  /* whole warps stay (the shuffles); their lanes past the row load its
   * last pixel and store nothing */
  if (24 / P * (t & ~31) >= a.g.in_bytes)
    return;
  /* the first kAhead rows' loads in flight at once (all J unless
   * STAGGER), row j + kAhead's after row j's sums */
  ThirdRow<P> rows[J];

#pragma unroll
  for (int j = 0; j < kAhead; j++)
    third_load<PB, P> (a, third_row (a, y0, j), xi, lane, rows[j]);
  int32_t acc[K][8];

  /* input row j feeds output row P y0 + k (period n = k / P, phase k % P)
   * with tap j - 3 n, from its phase's first tap to its last */
#pragma unroll
  for (int j = 0; j < J; j++) {
    int32_t h[8];

    third_sums<PB, P> (a, rows[j], xi, lane, h);
    if (j + kAhead < J) {
      int dep = 0;

      /* 0, known only after row j's sums: the load stays after them */
#ifdef __CUDA_ARCH__
      asm volatile ("and.b32 %0, %1, 0;" : "=r" (dep) : "r" (h[0]));
#endif
      third_load<PB, P> (a, third_row (a, y0 + dep, j + kAhead), xi, lane,
          rows[j + kAhead]);
    }
#pragma unroll
    for (int k = 0; k < K; k++) {
      const int ph = k % P, tap = j - 3 * (k / P);

      if (tap < third_tap_lo (P, ph) || tap > third_tap_hi (P, ph))
        continue;
#pragma unroll
      for (int c = 0; c < 8; c++)
        acc[k][c] = (tap != third_tap_lo (P, ph) ? acc[k][c] : 0) +
            a.wy[ph][tap] * h[c];
      if (tap == third_tap_hi (P, ph) && P * y0 + k < a.g.out_height &&
          x0 < a.g.out_bytes)
        third_store (a, P * y0 + k, x0, acc[k]);
    }
  }
}

/* third_kernel<PB, P> ()'s grid of kThirdThreads-thread blocks on plane
 * @g: a thread takes 24 / P input bytes of kThirdRows periods of P output
 * rows. */
template <int P>
inline dim3
third_grid (const FixedPlane & g)
{
  const int threads = (g.in_bytes + 24 / P - 1) / (24 / P);
  const int periods = (g.out_height + P - 1) / P;

  return { (unsigned) ((threads + kThirdThreads - 1) / kThirdThreads),
    (unsigned) ((periods + kThirdRows - 1) / kThirdRows), 1 };
}

/* Launches third_kernel<PB, P, @stagger && third_staggers ()> on @a. */
template <int PB, int P>
void
launch_third (const ThirdArgs & a, bool stagger, cudaStream_t stream)
{
  const dim3 grid = third_grid<P> (a.g);

  if constexpr (third_staggers (PB, P))
    if (stagger)
      return third_kernel<PB, P, true><<<grid, kThirdThreads, 0, stream>>>
          (a);
  third_kernel<PB, P, false><<<grid, kThirdThreads, 0, stream>>> (a);
}

/* ------------------------------------------------------------ fused */

/* Shared memory a fused block may use: 2 blocks of 256 threads per SM at
 * worst, 3 or more for most scalings. */
constexpr size_t kFusedSmem = 100 * 1024;
/* The blocks per SM that the tile height is first chosen for, most first
 * (7: 56 of the 64 warps an SM holds): a block may then use what that many
 * leave each, occupancy_smem (). */
constexpr int kOccupancyLadder[] = { 7, 6, 5, 4 };

/* Shared memory per block with @blocks blocks on an SM: 228 KiB on sm_90,
 * in units of 128 bytes, 1 KiB of each block's reserved. Registers are not
 * counted: the 8-bit instances use 32 a thread, which allow 8 blocks, but
 * 16-bit ones with 12 or 16 taps use 40 to 48, so the ladder's first steps
 * can be out of their reach (they then take shorter tiles for nothing). */
constexpr size_t
occupancy_smem (int blocks)
{
  return 228 * 1024 / blocks / 128 * 128 - 1024;
}

/* The input rectangle one tile row or column needs: its first input
 * sample and how many. */
struct Extent {
  int first, count;
};

/* Output pixels of a fused tile row for @pb-byte pixels: a warp writes
 * 128 bytes of a row. */
__host__ __device__ constexpr int
tile_width (int pb)
{
  return pb == 1 ? 128 : pb == 2 ? 64 : 32;
}

/* Taps the fused kernel is compiled for (the larger of the two axes',
 * rounded up; the extra weights are 0), so that its loops unroll with the
 * weights in registers; 0: any count, in loops. */
constexpr int kTapBuckets[] = { 2, 4, 8, 12, 16, 0 };

struct FusedArgs {
  const uint8_t *src;
  size_t src_pitch;
  uint8_t *dst;
  size_t dst_pitch;
  int out_width, out_height;
  int th;                       /* tile rows */
  int in_rows;                  /* input rows of the largest footprint */
  int inter_rows;               /* in_rows + the rows padded taps reach */
  int row_stride;               /* shared bytes per input row */
  Axis x, y;
  const Extent *tiles_x, *tiles_y;
  bool src_aligned;             /* base and pitch multiples of 16 */
  bool dst_aligned;             /* multiples of the size of a Group's Word */
  ValueField value;
};

/* The values of the samples of the pixel at @p in shared memory (aligned
 * to its size for 2-, 4- and 8-byte pixels). */
template <int PB, int SB>
__device__ __forceinline__ void
load_pixel (const uint8_t * p, ValueField f, int *s)
{
  if (PB == 8) {
    const uint2 v = *(const uint2 *) p;
    s[0] = value_of<SB> (v.x & 0xffff, f);
    s[1] = value_of<SB> (v.x >> 16, f);
    s[2] = value_of<SB> (v.y & 0xffff, f);
    s[3] = value_of<SB> (v.y >> 16, f);
  } else if (PB == 4 && SB == 2) {
    const uint32_t v = *(const uint32_t *) p;
    s[0] = value_of<SB> (v & 0xffff, f);
    s[1] = value_of<SB> (v >> 16, f);
  } else if (PB == 4) {
    const uint32_t v = *(const uint32_t *) p;
    for (int k = 0; k < 4; k++)
      s[k] = (v >> (8 * k)) & 0xff;
  } else if (PB == 2) {
    const uint32_t v = *(const uint16_t *) p;
    if (SB == 2) {
      s[0] = value_of<SB> (v, f);
    } else {
      s[0] = v & 0xff;
      s[1] = v >> 8;
    }
  } else {
    for (int k = 0; k < PB; k++)
      s[k] = p[k];
  }
}

/* @n consecutive int32 of shared memory, 16- or 8-byte loads when @n is 4
 * or 2 (the callers keep those aligned). */
template <int N>
__device__ __forceinline__ void
load_ints (const int32_t * p, int32_t * v)
{
  if (N == 4) {
    const int4 q = *(const int4 *) p;
    v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
  } else if (N == 2) {
    const int2 q = *(const int2 *) p;
    v[0] = q.x; v[1] = q.y;
  } else {
    for (int k = 0; k < N; k++)
      v[k] = p[k];
  }
}

template <int N>
__device__ __forceinline__ void
store_ints (int32_t * p, const int32_t * v)
{
  if (N == 4) {
    *(int4 *) p = make_int4 (v[0], v[1], v[2], v[3]);
  } else if (N == 2) {
    *(int2 *) p = make_int2 (v[0], v[1]);
  } else {
    for (int k = 0; k < N; k++)
      p[k] = v[k];
  }
}

/* Shared memory of a fused block, in this order: the intermediate
 * (inter_rows rows of TW x S int32), the input footprint (in_rows rows of
 * row_stride bytes), the x weights of the tile's columns (ntx x TW,
 * tap-major so that a warp reads consecutive words), their first input
 * pixels relative to the footprint (TW), the y weights of the tile's rows
 * (th x nty) and their first input rows (th). Taps padded to the bucket
 * read a few words past a footprint row or the intermediate's last row,
 * still inside this memory, and weigh them 0. */
__host__ __device__ inline size_t
fused_smem_bytes (int S, int tw, int th, int in_rows, int inter_rows,
    int row_stride, int ntx, int nty)
{
  return (size_t) inter_rows * tw * S * 4 + (size_t) in_rows * row_stride +
      ((size_t) ntx * tw + tw + (size_t) th * nty + th) * 4;
}

template <int PB, int SB, int TB>
__global__ void __launch_bounds__ (kThreads)
fused_kernel (FusedArgs a)
{
  typedef typename Fixed<SB>::Acc Acc;
  constexpr int S = PB / SB;
  constexpr int V = Group<PB>::V;
  constexpr int VS = V * S;     /* samples per thread, vertical phase */
  constexpr int TW = tile_width (PB);
  constexpr int kGroups = TW / V;       /* 32: a warp per output row */
  const int ntx = TB ? TB : a.x.taps, nty = TB ? TB : a.y.taps;
  extern __shared__ int4 s_raw[];
  const int x0 = blockIdx.x * TW, y0 = blockIdx.y * a.th;
  const int cols = min (TW, a.out_width - x0);
  const int rows = min (a.th, a.out_height - y0);
  const Extent ex = a.tiles_x[blockIdx.x], ey = a.tiles_y[blockIdx.y];
  int32_t *s_inter = (int32_t *) s_raw;
  uint8_t *s_in = (uint8_t *) (s_inter + a.inter_rows * TW * S);
  int32_t *s_wx = (int32_t *) (s_in + a.in_rows * a.row_stride);
  int32_t *s_fx = s_wx + ntx * TW;
  int32_t *s_wy = s_fx + TW;
  int32_t *s_fy = s_wy + a.th * nty;

  /* the footprint, first, so that the tables' loads below overlap it.
   * Aligned planes: whole 16-byte chunks (a chunk holding a byte of the
   * footprint lies within its row's pitch), the footprint starting `skew`
   * bytes into the first; otherwise byte by byte. */
  const int bytes = ex.count * PB;
  int skew = 0;
  if (a.src_aligned) {
    const size_t x_bytes = (size_t) ex.first * PB;
    skew = (int) (x_bytes & 15);
    const int chunks = (skew + bytes + 15) >> 4;
    const uint8_t *base = a.src + (size_t) ey.first * a.src_pitch + x_bytes -
        skew;
    /* asynchronous copies (cp.async): all of a thread's chunks in flight
     * at once, not one load's latency after another */
    for (int i = threadIdx.x; i < ey.count * chunks; i += kThreads) {
      const int r = i / chunks, k = i - r * chunks;
      __pipeline_memcpy_async ((int4 *) (s_in + r * a.row_stride) + k,
          (const int4 *) (base + (size_t) r * a.src_pitch) + k, 16);
    }
    __pipeline_commit ();
  } else {
    const uint8_t *base = a.src + (size_t) ey.first * a.src_pitch +
        (size_t) ex.first * PB;
    for (int i = threadIdx.x; i < ey.count * bytes; i += kThreads) {
      const int r = i / bytes, b = i - r * bytes;
      s_in[r * a.row_stride + b] = ld (base + (size_t) r * a.src_pitch + b);
    }
  }

  /* the tables of the tile's columns and rows, taps beyond the axis's 0 */
  for (int i = threadIdx.x; i < ntx * TW; i += kThreads) {
    const int t = i / TW, c = i % TW;
    s_wx[i] = c < cols && t < a.x.taps ?
        ld (a.x.weights + (x0 + c) * a.x.taps + t) : 0;
  }
  for (int c = threadIdx.x; c < TW; c += kThreads)
    s_fx[c] = c < cols ? ld (a.x.first + x0 + c) - ex.first : 0;
  for (int i = threadIdx.x; i < a.th * nty; i += kThreads) {
    const int r = i / nty, t = i - r * nty;
    s_wy[i] = r < rows && t < a.y.taps ?
        ld (a.y.weights + (y0 + r) * a.y.taps + t) : 0;
  }
  for (int r = threadIdx.x; r < a.th; r += kThreads)
    s_fy[r] = r < rows ? ld (a.y.first + y0 + r) - ey.first : 0;

  __pipeline_wait_prior (0);
  __syncthreads ();

  /* along x: each thread one output column of several footprint rows, its
   * weights in registers when TB is known. 4-byte pixels of 8-bit samples
   * with an even TB sum two taps of a sample with one dp2a, as the direct
   * kernel does (the same exact int32 sums). */
  constexpr bool kPairs = PB == 4 && SB == 1 && TB > 0 && TB % 2 == 0;
  {
    const int c = threadIdx.x % TW;
    int32_t w[TB ? TB : 1];

#pragma unroll
    for (int t = 0; t < TB; t++)
      w[t] = s_wx[t * TW + c];
    if (c < cols) {
      const uint8_t *p0 = s_in + skew + s_fx[c] * PB;

      if constexpr (kPairs) {
        uint32_t wp[TB / 2];

#pragma unroll
        for (int t = 0; t < TB; t += 2)
          wp[t / 2] = weight_pair (w[t], w[t + 1]);
        for (int r = threadIdx.x / TW; r < ey.count; r += kThreads / TW) {
          const uint32_t *q = (const uint32_t *) (p0 + r * a.row_stride);
          int32_t h[4] = { Fixed<1>::kHBias, Fixed<1>::kHBias,
            Fixed<1>::kHBias, Fixed<1>::kHBias };

#pragma unroll
          for (int t = 0; t < TB; t += 2)
            add_tap_pair<4> (wp[t / 2], q[t], q[t + 1], h);
#pragma unroll
          for (int k = 0; k < 4; k++)
            h[k] = horizontal_of_biased<1> (h[k]);
          store_ints<4> (s_inter + (r * TW + c) * 4, h);
        }
      } else {
        for (int r = threadIdx.x / TW; r < ey.count; r += kThreads / TW) {
          const uint8_t *p = p0 + r * a.row_stride;
          Acc acc[S];
          int32_t h[S];

#pragma unroll
          for (int k = 0; k < S; k++)
            acc[k] = Fixed<SB>::kHBias;
#pragma unroll
          for (int t = 0; t < ntx; t++) {
            const Acc wt = TB ? w[TB ? t : 0] : s_wx[t * TW + c];
            int smp[S];

            load_pixel<PB, SB> (p + t * PB, a.value, smp);
#pragma unroll
            for (int k = 0; k < S; k++)
              acc[k] += wt * smp[k];
          }
#pragma unroll
          for (int k = 0; k < S; k++)
            h[k] = horizontal_of_biased<SB> (acc[k]);
          store_ints<S> (s_inter + (r * TW + c) * S, h);
        }
      }
    }
  }
  __syncthreads ();

  /* along y: each thread V output pixels (VS samples, one Word: 4 bytes,
   * 3 or 8 for such pixels) of a row */
  {
    typedef typename Group<PB>::Word Word;
    const int c0 = (threadIdx.x % kGroups) * V;
    if (c0 < cols) {
      const int n = min (V, cols - c0);
      for (int r = threadIdx.x / kGroups; r < rows; r += kThreads / kGroups) {
        const int32_t *wr = s_wy + r * nty;
        const int32_t *h = s_inter + (s_fy[r] * TW + c0) * S;
        Acc acc[VS];
        Word v = 0;

#pragma unroll
        for (int k = 0; k < VS; k++)
          acc[k] = Fixed<SB>::kVBias;
#pragma unroll
        for (int t = 0; t < nty; t++) {
          const Acc wt = wr[t];
          int32_t hv[VS];

          load_ints<VS> (h + t * TW * S, hv);
#pragma unroll
          for (int k = 0; k < VS; k++)
            acc[k] += wt * hv[k];
        }
#pragma unroll
        for (int k = 0; k < VS; k++)
          v |= (Word) output_of_biased<SB> (acc[k], a.value) << (8 * SB * k);
        store_group (a.dst + (size_t) (y0 + r) * a.dst_pitch +
            (size_t) (x0 + c0) * PB, v, n * PB, a.dst_aligned);
      }
    }
  }
}

size_t
align_up (size_t n)
{
  return (n + kAlign - 1) / kAlign * kAlign;
}

/* Bytes of plane @p's part of the two-pass workspace. */
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

/* The footprints of the tiles of @tile outputs along @axis (@out may be
 * NULL); returns the largest count. */
int
tile_extents (const CfResizeAxis * axis, int tile, Extent * out)
{
  int span = 0;

  for (int i0 = 0, j = 0; i0 < axis->out_size; i0 += tile, j++) {
    int lo = axis->first[i0], hi = lo + axis->taps;

    for (int i = i0 + 1; i < axis->out_size && i < i0 + tile; i++) {
      lo = axis->first[i] < lo ? axis->first[i] : lo;
      hi = axis->first[i] + axis->taps > hi ? axis->first[i] + axis->taps : hi;
    }
    if (out)
      out[j] = Extent { lo, hi - lo };
    span = hi - lo > span ? hi - lo : span;
  }
  return span;
}

enum class Kernel { kNearest, kDirect, kFused, kTwoPass };

/* One plane: sizes, layout, tables in device memory, the kernel that
 * scales it, and where its intermediate rows go in the workspace. */
struct PlaneTables {
  int in_width, in_height, out_width, out_height;
  int pixel_bytes, sample_bytes;
  ValueField value;
  Kernel kernel;
  Kernel fallback;              /* direct: for planes not aligned to 4 */
  Axis x, y;
  Line line_x, line_y;          /* nearest: the tables as lines */
  bool nearest_wide;            /* nearest: nearest_wide () fits line_x */
  bool halve;                   /* halve_kernel () takes 16-byte aligned
                                 * launches (halve_plane ()) */
  HalveArgs halve_args;         /* its weights, rounding and shift */
  int third;                    /* third_kernel<PB, third> () takes
                                 * launches aligned to 8 / third bytes
                                 * (third_plane ()), 0: not */
  ThirdArgs third_args;         /* its weights */
  bool third_stagger;           /* ... its staggered instance where
                                 * third_staggers () (default) */
  int direct_tx, direct_ty;     /* direct: the taps' buckets */
  int direct_step;              /* direct: S (kStripSteps), 0 for rows */
  int direct_rows;              /* direct: output rows a thread */
  Axis direct_x, direct_y;      /* direct: the tables relaid to them */
  int tb, th, in_rows, inter_rows, row_stride;  /* fused */
  size_t smem;
  const Extent *tiles_x, *tiles_y;
  size_t workspace_offset;              /* two-pass */
};

/* The smallest of @buckets (ending in 0: any) that holds @taps. */
template <size_t N>
int
bucket_of (const int (&buckets)[N], int taps)
{
  for (int b : buckets)
    if (b == 0 || b >= taps)
      return b;
  return -1;
}

/* The step of kStripSteps that @axis's output rows take: the one where
 * more than two in three of them step from the one before as
 * strip_offset () says (at the edges the taps shift to stay within the
 * picture), else 0. */
int
strip_step (const CfResizeAxis * axis)
{
  const int n = axis->out_size - 1;

  if (n < 1)
    return 0;
  for (int s : kStripSteps) {
    int same = 0;

    if (lround (2 * axis->scale) != s / 2)
      continue;
    for (int i = 0; i < n; i++)
      same += axis->first[i + 1] - axis->first[i] ==
          strip_offset (s, i % 2 + 1) - strip_offset (s, i % 2);
    if (3 * same > 2 * n)
      return s;
  }
  return 0;
}

/* @axis's tables with @taps (>= axis->taps, <= in_size) weights an output
 * instead: its first input sample moved back where the span would read
 * past the end, the weights moved along with it, 0 at the other taps. */
void
relay_axis (const CfResizeAxis * axis, int taps, int32_t * first,
    int32_t * weights)
{
  for (int i = 0; i < axis->out_size; i++) {
    const int f = axis->first[i] < axis->in_size - taps ? axis->first[i] :
        axis->in_size - taps;

    first[i] = f;
    memcpy (weights + (size_t) i * taps + (axis->first[i] - f),
        axis->weights + (size_t) i * axis->taps,
        sizeof (int32_t) * axis->taps);
  }
}

/* The grid of a direct launch on @t with @tx taps along x (a bucket) and
 * @rows output rows a thread: blocks of 64 x kThreads / 64 threads, each
 * direct_pixels () pixels of @rows rows. */
dim3
direct_grid (const PlaneTables * t, int tx, int rows)
{
  const int n = direct_pixels (t->pixel_bytes, tx);
  const int groups = (t->out_width + n - 1) / n;
  const int row_groups = (t->out_height + rows - 1) / rows;

  return dim3 ((groups + 63) / 64,
      (row_groups + kThreads / 64 - 1) / (kThreads / 64));
}

/* @axis's first-sample table as a Line: its step where every entry is
 * first[0] + step i with a step of 1 or more, else step 0. */
Line
line_of (const CfResizeAxis * axis)
{
  const int n = axis->out_size;
  const int step = n > 1 ? axis->first[1] - axis->first[0] : 0;

  for (int i = 2; step > 0 && i < n; i++)
    if (axis->first[i] != axis->first[0] + step * i)
      return Line { 0, 0 };
  return Line { axis->first[0], step > 0 ? step : 0 };
}

/* Whether every output P m + r of @a weighs inputs @Q m - 1 .. @Q m + @T -
 * 2 with the same 14-bit weights @w[r T + t] for each phase r (read off an
 * inner period; T <= 5), the taps beyond an edge folded onto it as the
 * tables fold them: P in_size = Q out_size, out_size >= 3 P. */
bool
fixed_axis (const CfResizeAxis * a, int P, int Q, int T, int32_t * w)
{
  const int n = a->out_size, mid = a->out_size / P / 2;

  if (a->weight_bits != CF_RESIZE_WEIGHT_BITS_8 || n < 3 * P ||
      (long) P * a->in_size != (long) Q * n || T > 5)
    return false;
  /* the inner period's weights, by input sample Q mid - 1 + t */
  for (int r = 0; r < P; r++) {
    const int i = P * mid + r;

    for (int t = 0; t < T; t++)
      w[r * T + t] = 0;
    for (int k = 0; k < a->taps; k++) {
      const int32_t v = a->weights[(size_t) i * a->taps + k];
      const int t = a->first[i] + k - (Q * mid - 1);

      if (v && (t < 0 || t >= T))
        return false;
      if (v)
        w[r * T + t] = v;
    }
  }
  /* every output: its table against the pattern folded at the edges */
  for (int i = 0; i < n; i++) {
    const int m = i / P, r = i % P;
    int32_t folded[5] = { 0, 0, 0, 0, 0 };
    int at[5], u_n = 0;

    for (int t = 0; t < T; t++) {
      const int j = Q * m - 1 + t;
      const int k = j < 0 ? 0 : j >= a->in_size ? a->in_size - 1 : j;
      int u = 0;

      while (u < u_n && at[u] != k)
        u++;
      if (u == u_n)
        at[u_n++] = k;
      folded[u] += w[r * T + t];
    }
    for (int k = 0; k < a->taps; k++) {
      const int32_t v = a->weights[(size_t) i * a->taps + k];
      int u = 0;

      while (u < u_n && at[u] != a->first[i] + k)
        u++;
      if (v != (u < u_n ? folded[u] : 0))
        return false;
      if (u < u_n)
        folded[u] = 0;          /* found */
    }
    for (int u = 0; u < u_n; u++)
      if (folded[u])
        return false;           /* a weight outside the table's taps */
  }
  return true;
}

/* Whether @a halves as halve_kernel () takes it: fixed_axis () at 2x with
 * 4 taps, non-negative weights @w[t] << @bits, @bits >= 8, so that the
 * rows' pass is exact. */
bool
halve_axis (const CfResizeAxis * a, uint32_t (&w)[4], int *bits)
{
  int32_t want[4];

  if (!fixed_axis (a, 1, 2, 4, want))
    return false;
  *bits = 14;
  for (int t = 0; t < 4; t++) {
    if (want[t] < 0)
      return false;
    if (want[t])
      *bits = *bits < __builtin_ctz ((unsigned) want[t]) ? *bits :
            __builtin_ctz ((unsigned) want[t]);
  }
  if (*bits < CF_RESIZE_WEIGHT_BITS_8 - CF_RESIZE_INTER_BITS)
    return false;
  for (int t = 0; t < 4; t++)
    w[t] = (uint32_t) want[t] >> *bits;
  return true;
}

/* Whether halve_kernel () scales plane @p of @plan (AUTO, 8-bit samples in
 * 1-, 2- or 4-byte pixels): both axes halve (halve_axis ()), one with more
 * than the two middle taps, and the lanes' sums stay below 2^16; @h gets
 * the weights, rounding and shift. */
bool
halve_plane (const CfResizePlan * plan, int p, HalveArgs * h)
{
  int bx, by;

  if (!halve_axis (&plan->x[p], h->wx, &bx) ||
      !halve_axis (&plan->y[p], h->wy, &by))
    return false;
  /* two taps an axis (area, bilinear without antialiasing): the direct
   * kernel's rows took 4K GRAY8 to 1080p as fast (10.4 / 10.6 us against
   * 10.5 / 10.6) and NV12 as fast or faster: they keep it */
  if (!(h->wx[0] | h->wx[3] | h->wy[0] | h->wy[3]))
    return false;
  /* sum w = 2^(14 - b) on each axis */
  const int k = bx - (CF_RESIZE_WEIGHT_BITS_8 - CF_RESIZE_INTER_BITS) + by;
  const int shift = CF_RESIZE_WEIGHT_BITS_8 + CF_RESIZE_INTER_BITS - k;
  const uint32_t round = shift ? 1u << (shift - 1) : 0;
  if (255u << (CF_RESIZE_WEIGHT_BITS_8 - bx + CF_RESIZE_WEIGHT_BITS_8 - by)
      > 0xffffu - round)
    return false;
  h->shift = shift;
  h->round = round | round << 16;
  return true;
}

/* Whether third_kernel<PB, @P> () scales plane @p of @plan (AUTO, 8-bit
 * samples in pixels third_takes ()): both axes by 3 / P with five taps a
 * period (fixed_axis ()), each phase r's weights positive on its taps
 * third_tap_lo (P, r) .. third_tap_hi (P, r) and 0 elsewhere, as
 * antialiased bilinear on centred samples weighs them, the patterns
 * measured (area, co-sited chroma's shifted windows and bicubic's negative
 * taps keep the direct kernel, whose results third_kernel would give too);
 * @h gets the weights. */
bool
third_plane (const CfResizePlan * plan, int p, int P, ThirdArgs * h)
{
  if (!fixed_axis (&plan->x[p], P, 3, 5, &h->wx[0][0]) ||
      !fixed_axis (&plan->y[p], P, 3, 5, &h->wy[0][0]))
    return false;
  for (int r = 0; r < P; r++)
    for (int t = 0; t < 5; t++) {
      const bool on = t >= third_tap_lo (P, r) && t <= third_tap_hi (P, r);

      if (on ? h->wx[r][t] <= 0 || h->wy[r][t] <= 0 :
          h->wx[r][t] || h->wy[r][t])
        return false;
    }
  return true;
}

/* The P of the third_kernel<@PB, P> () that scales plane @p of @plan
 * (third_takes (), third_plane ()), with its weights in @h; 0 for none. */
int
third_ratio (const CfResizePlan * plan, int p, int PB, ThirdArgs * h)
{
  for (int P = 1; P <= 2; P++)
    if (third_takes (PB, P) && third_plane (plan, p, P, h))
      return P;
  return 0;
}

/* Chooses @t's kernel: the gather for nearest; else the fused kernel with
 * its tap bucket and tile rows: for 7, then 6, 5 and 4 blocks per SM
 * (kOccupancyLadder: latency is what limits this kernel), the most of 32,
 * 16, 8 whose block fits that many without filtering more than 15% more
 * footprint rows; else the most of 32, 16 .. 1 that fit kFusedSmem; else
 * the two passes. Then,
 * with CF_RESIZE_KERNELS_AUTO, the direct kernel for 8-bit samples in 1-, 2-
 * or 4-byte pixels whose taps it is compiled for: in strips where the rows
 * step as kStripSteps says (kStripRows says how many), else in rows where
 * those are the cheaper (kDirectCost); what was chosen before stays as its
 * fallback, for planes not aligned to 4 bytes. @sms: the device's
 * multiprocessors. */
void
choose_kernel (const CfResizePlan * plan, int p, CfResizeKernels kernels,
    int sms, PlaneTables * t)
{
  const int PB = t->pixel_bytes, S = PB / t->sample_bytes;
  const int tw = tile_width (PB);
  const CfResizeAxis *x = &plan->x[p], *y = &plan->y[p];
  const int taps = x->taps > y->taps ? x->taps : y->taps;

  t->kernel = t->fallback = Kernel::kTwoPass;
  if (kernels == CF_RESIZE_KERNELS_TWO_PASS)
    return;
  if (x->taps == 1 && y->taps == 1) {
    t->kernel = t->fallback = Kernel::kNearest;
    t->line_x = line_of (x);
    t->line_y = line_of (y);
    /* CF_RESIZE_NEAREST_WIDE=0 in the environment turns it off, for
     * measurements */
    const char *env = getenv ("CF_RESIZE_NEAREST_WIDE");
    t->nearest_wide = nearest_wide_layout (PB, t->sample_bytes) &&
        t->line_x.step >= 2 && t->line_x.step <= 4 && t->line_x.base < 4 &&
        !(env && strcmp (env, "0") == 0);
    return;
  }
  t->tb = bucket_of (kTapBuckets, taps);
  const int ntx = t->tb ? t->tb : x->taps, nty = t->tb ? t->tb : y->taps;
  const int span_x = tile_extents (x, tw, NULL) + ntx - x->taps;
  /* room for the skew of the first 16-byte chunk */
  t->row_stride = (int) ((16 + (size_t) span_x * PB + 15) / 16 * 16);
  const double rows_per_row_32 = tile_extents (y, 32, NULL) / 32.0;
  const int levels = sizeof (kOccupancyLadder) / sizeof (kOccupancyLadder[0]);
  for (int level = 0; level <= levels && t->kernel == Kernel::kTwoPass;
      level++) {
    const bool last = level == levels;
    for (t->th = 32; t->th >= (last ? 1 : 8); t->th /= 2) {
      t->in_rows = tile_extents (y, t->th, NULL);
      t->inter_rows = t->in_rows + nty - y->taps;
      t->smem = fused_smem_bytes (S, tw, t->th, t->in_rows, t->inter_rows,
          t->row_stride, ntx, nty);
      /* the ladder: the most blocks per SM first, unless short tiles
       * filter many more footprint rows along x than 32-row tiles would;
       * then the tallest tile that fits at all */
      if (!last && (t->smem > occupancy_smem (kOccupancyLadder[level]) ||
              (double) t->in_rows / t->th > 1.15 * rows_per_row_32))
        continue;
      if (t->smem <= kFusedSmem) {
        t->kernel = t->fallback = Kernel::kFused;
        break;
      }
    }
  }

  if (kernels != CF_RESIZE_KERNELS_AUTO || t->sample_bytes != 1 ||
      (PB != 1 && PB != 2 && PB != 4))
    return;
  /* CF_RESIZE_HALVE=0 in the environment turns it off, for measurements */
  const char *halve_env = getenv ("CF_RESIZE_HALVE");
  t->halve = !(halve_env && strcmp (halve_env, "0") == 0) &&
      halve_plane (plan, p, &t->halve_args);
  /* third_kernel on planes of third_min_output () output bytes or more;
   * CF_RESIZE_THIRD=0 in the environment turns it off, =1 takes it at any
   * size (for measurements and tests) */
  const char *third_env = getenv ("CF_RESIZE_THIRD");
  const bool third_off = third_env && strcmp (third_env, "0") == 0;
  const bool third_any = third_env && strcmp (third_env, "1") == 0;
  const int third = third_off ? 0 : third_ratio (plan, p, PB,
      &t->third_args);
  t->third = third && (third_any || (size_t) x->out_size * PB * y->out_size
      >= third_min_output (PB, third)) ? third : 0;
  /* CF_RESIZE_THIRD_STAGGER=0 in the environment loads every row first
   * (for measurements) */
  const char *stagger_env = getenv ("CF_RESIZE_THIRD_STAGGER");
  t->third_stagger = !(stagger_env && strcmp (stagger_env, "0") == 0);
  const int strip = bucket_of (kStripBuckets, taps);
  t->direct_tx = bucket_of (kDirectBuckets, x->taps);
  t->direct_ty = bucket_of (kDirectBuckets, y->taps);
  t->direct_step = 0;
  t->direct_rows = kDirectRows;
  const int step = strip_step (y);
  if (step && taps >= strip_min_taps (step) && strip > 0 &&
      strip_takes_step (strip, step) && strip_takes_pixels (strip, PB)) {
    /* kStripRows says which */
    int rows = 0;

    for (int r : kStripRows) {
      if (r > strip_most_rows (strip))
        continue;
      const dim3 g = direct_grid (t, strip, r);

      rows = r;
      if ((double) g.x * g.y * (kThreads / 32) >= (double) kStripWarps * sms)
        break;
    }
    if (strip_takes_rows (strip, rows)) {
      t->direct_tx = t->direct_ty = strip;
      t->direct_step = step;
      t->direct_rows = rows;
    }
  }
  if (!t->direct_step && (t->direct_tx < 0 || t->direct_ty < 0 ||
          y->scale < 1.0 ||
          t->direct_tx * t->direct_ty > kDirectCost * y->scale))
    return;
  /* the relaid tables keep the taps within the plane */
  if (t->direct_tx <= x->in_size && t->direct_ty <= y->in_size)
    t->kernel = Kernel::kDirect;
}

}  // namespace

struct CfResizeDevicePlan {
  CfFormat format;
  int in_width, in_height, out_width, out_height;
  int n_planes;
  PlaneTables plane[CF_MAX_PLANES];
  size_t workspace_bytes;
  void *d_tables;               /* one allocation for all the tables */
  /* planes after the first (chroma) go on a stream of their own beside the
   * caller's, forked from it and joined back, so that they run beside the
   * first plane's blocks instead of after its last one; NULL for one
   * plane, or with CF_RESIZE_SIDE_STREAM=0 in the environment (for
   * measurements) */
  CfFork *fork;
};

extern "C" size_t
cf_resize_device_plan_workspace_bytes (const CfResizeDevicePlan * d_plan)
{
  return d_plan ? d_plan->workspace_bytes : 0;
}

extern "C" const char *
cf_resize_device_plan_describe (const CfResizeDevicePlan * d_plan, int p)
{
  static const char *const names[] = { "nearest gather", "direct",
    "fused", "two-pass"
  };

  if (!d_plan || p < 0 || p >= d_plan->n_planes)
    return NULL;
  if (d_plan->plane[p].halve)
    return "halve";
  if (d_plan->plane[p].third)
    return d_plan->plane[p].third == 1 ? "third" : "two thirds";
  if (d_plan->plane[p].kernel == Kernel::kDirect &&
      d_plan->plane[p].direct_step)
    return "direct strips";
  if (d_plan->plane[p].kernel == Kernel::kNearest &&
      d_plan->plane[p].nearest_wide)
    return "nearest wide";
  return names[(int) d_plan->plane[p].kernel];
}

extern "C" void
cf_resize_device_plan_free (CfResizeDevicePlan * d_plan)
{
  if (!d_plan)
    return;
  cudaFree (d_plan->d_tables);
  cf_fork_free (d_plan->fork);
  free (d_plan);
}

/* Lets fused_kernel<PB, SB, TB> use kFusedSmem of shared memory. */
template <int PB, int SB, int TB>
cudaError_t
allow_fused_smem ()
{
  cudaError_t err = cudaFuncSetAttribute (fused_kernel<PB, SB, TB>,
      cudaFuncAttributeMaxDynamicSharedMemorySize, (int) kFusedSmem);

  if (err == cudaSuccess)
    err = cudaFuncSetAttribute (fused_kernel<PB, SB, TB>,
        cudaFuncAttributePreferredSharedMemoryCarveout,
        cudaSharedmemCarveoutMaxShared);
  return err;
}

/* Calls F<PB, SB, TB> () for the bucket @tb. */
#define CF_RESIZE_FOR_BUCKET(F, PB, SB, tb, ...)                    \
  ((tb) == 2 ? F<PB, SB, 2> (__VA_ARGS__) :                         \
   (tb) == 4 ? F<PB, SB, 4> (__VA_ARGS__) :                         \
   (tb) == 8 ? F<PB, SB, 8> (__VA_ARGS__) :                         \
   (tb) == 12 ? F<PB, SB, 12> (__VA_ARGS__) :                       \
   (tb) == 16 ? F<PB, SB, 16> (__VA_ARGS__) :                       \
   F<PB, SB, 0> (__VA_ARGS__))

cudaError_t
allow_fused_smem (int pb, int sb, int tb)
{
#define ALLOW_CASE(PB, SB) \
    case PB * 10 + SB: \
      return CF_RESIZE_FOR_BUCKET (allow_fused_smem, PB, SB, tb);
  switch (pb * 10 + sb) {
    CF_RESIZE_LAYOUTS (ALLOW_CASE)
    default: return cudaErrorInvalidValue;
  }
#undef ALLOW_CASE
}

extern "C" cudaError_t
cf_resize_device_plan_new (const CfResizePlan * plan, CfResizeKernels kernels,
    CfResizeDevicePlan ** d_plan)
{
  /* per plane: x first, x weights, y first, y weights, x tiles, y tiles,
   * then the direct kernel's relaid x first, x weights, y first, y
   * weights */
  enum { kTables = 10 };
  size_t offset[CF_MAX_PLANES][kTables], total = 0;
  CfResizeDevicePlan *dp;
  uint8_t *host;
  int device = 0, sms = 0;
  cudaError_t err = cudaSuccess;

  if (!d_plan)
    return cudaErrorInvalidValue;
  *d_plan = NULL;
  if (!plan_ok (plan) || (kernels != CF_RESIZE_KERNELS_AUTO &&
          kernels != CF_RESIZE_KERNELS_FUSED &&
          kernels != CF_RESIZE_KERNELS_TWO_PASS))
    return cudaErrorInvalidValue;
  /* the multiprocessors that the direct kernel's strips are sized for */
  if ((err = cudaGetDevice (&device)) != cudaSuccess ||
      (err = cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount,
              device)) != cudaSuccess)
    return err;
  if (!(dp = (CfResizeDevicePlan *) calloc (1, sizeof (*dp))))
    return cudaErrorMemoryAllocation;
  dp->format = plan->format;
  dp->in_width = plan->in_width;
  dp->in_height = plan->in_height;
  dp->out_width = plan->out_width;
  dp->out_height = plan->out_height;
  dp->n_planes = cf_format_info (plan->format)->n_planes;

  for (int p = 0; p < dp->n_planes; p++) {
    const CfFormatInfo *info = cf_format_info (plan->format);
    const CfPlaneLayout *l = &info->plane[p];
    const CfResizeAxis *x = &plan->x[p], *y = &plan->y[p];
    PlaneTables *t = &dp->plane[p];
    const size_t bytes[kTables] = {
      sizeof (int32_t) * x->out_size,
      sizeof (int32_t) * x->out_size * x->taps,
      sizeof (int32_t) * y->out_size,
      sizeof (int32_t) * y->out_size * y->taps,
      0, 0, 0, 0, 0, 0
    };

    t->in_width = x->in_size;
    t->out_width = x->out_size;
    t->in_height = y->in_size;
    t->out_height = y->out_size;
    t->pixel_bytes = l->pixel_bytes;
    t->sample_bytes = l->sample_bytes;
    t->value = ValueField { (uint16_t) CF_FORMAT_MAX_VALUE (info),
      (uint8_t) info->lsb };
    t->x.taps = x->taps;
    t->y.taps = y->taps;
    choose_kernel (plan, p, kernels, sms, t);
    for (int k = 0; k < kTables; k++) {
      size_t b = bytes[k];
      if (t->fallback == Kernel::kFused && k == 4)
        b = sizeof (Extent) * ((t->out_width + tile_width (t->pixel_bytes) -
                1) / tile_width (t->pixel_bytes));
      if (t->fallback == Kernel::kFused && k == 5)
        b = sizeof (Extent) * ((t->out_height + t->th - 1) / t->th);
      if (t->kernel == Kernel::kDirect && k >= 6)
        b = sizeof (int32_t) * (k < 8 ? x->out_size : y->out_size) *
            (k == 7 ? t->direct_tx : k == 9 ? t->direct_ty : 1);
      offset[p][k] = total;
      total += align_up (b);
    }
    if (t->fallback == Kernel::kTwoPass) {
      t->workspace_offset = dp->workspace_bytes;
      dp->workspace_bytes += plane_workspace_bytes (plan->format, p,
          plan->in_height, plan->out_width);
    } else if (t->fallback == Kernel::kFused && err == cudaSuccess) {
      err = allow_fused_smem (t->pixel_bytes, t->sample_bytes, t->tb);
    }
  }
  if (err != cudaSuccess) {
    free (dp);
    return err;
  }
  if (!(host = (uint8_t *) calloc (1, total))) {
    free (dp);
    return cudaErrorMemoryAllocation;
  }
  for (int p = 0; p < dp->n_planes; p++) {
    const CfResizeAxis *x = &plan->x[p], *y = &plan->y[p];
    const PlaneTables *t = &dp->plane[p];

    memcpy (host + offset[p][0], x->first, sizeof (int32_t) * x->out_size);
    memcpy (host + offset[p][1], x->weights,
        sizeof (int32_t) * x->out_size * x->taps);
    memcpy (host + offset[p][2], y->first, sizeof (int32_t) * y->out_size);
    memcpy (host + offset[p][3], y->weights,
        sizeof (int32_t) * y->out_size * y->taps);
    if (t->fallback == Kernel::kFused) {
      tile_extents (x, tile_width (t->pixel_bytes),
          (Extent *) (host + offset[p][4]));
      tile_extents (y, t->th, (Extent *) (host + offset[p][5]));
    }
    if (t->kernel == Kernel::kDirect) {
      relay_axis (x, t->direct_tx, (int32_t *) (host + offset[p][6]),
          (int32_t *) (host + offset[p][7]));
      relay_axis (y, t->direct_ty, (int32_t *) (host + offset[p][8]),
          (int32_t *) (host + offset[p][9]));
    }
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
  const char *side_env = getenv ("CF_RESIZE_SIDE_STREAM");
  if (err == cudaSuccess && dp->n_planes > 1
      && !(side_env && strcmp (side_env, "0") == 0))
    err = (cudaError_t) cf_fork_new (&dp->fork);
  if (err != cudaSuccess) {
    cf_resize_device_plan_free (dp);
    return err;
  }

  for (int p = 0; p < dp->n_planes; p++) {
    const uint8_t *base = (const uint8_t *) dp->d_tables;
    PlaneTables *t = &dp->plane[p];

    t->x.first = (const int32_t *) (base + offset[p][0]);
    t->x.weights = (const int32_t *) (base + offset[p][1]);
    t->y.first = (const int32_t *) (base + offset[p][2]);
    t->y.weights = (const int32_t *) (base + offset[p][3]);
    t->tiles_x = (const Extent *) (base + offset[p][4]);
    t->tiles_y = (const Extent *) (base + offset[p][5]);
    t->direct_x = Axis { (const int32_t *) (base + offset[p][6]),
      (const int32_t *) (base + offset[p][7]), t->direct_tx };
    t->direct_y = Axis { (const int32_t *) (base + offset[p][8]),
      (const int32_t *) (base + offset[p][9]), t->direct_ty };
  }
  *d_plan = dp;
  return cudaSuccess;
}

namespace {

bool
aligned (const void *p, size_t pitch, size_t to)
{
  return ((uintptr_t) p | pitch) % to == 0;
}

template <int PB, int SB>
void
launch_two_pass (const PlaneTables * t, const CfImage * d_src, int p,
    const CfImage * d_dst, void *d_workspace, cudaStream_t stream)
{
  const int row_samples = t->out_width * (PB / SB);
  int32_t *inter = (int32_t *) ((uint8_t *) d_workspace + t->workspace_offset);
  const HorizontalArgs h = { (const uint8_t *) d_src->data[p],
    d_src->pitch[p], inter, row_samples, t->in_height, t->x, t->value
  };
  const VerticalArgs v = { inter, row_samples, t->out_height,
    (uint8_t *) d_dst->data[p], d_dst->pitch[p], t->y, t->value
  };
  dim3 grid, block;

  launch_shape (row_samples, t->in_height, &grid, &block);
  horizontal_kernel<PB, SB><<<grid, block, 0, stream>>> (h);
  if (cudaPeekAtLastError () != cudaSuccess)
    return;
  launch_shape (row_samples, t->out_height, &grid, &block);
  vertical_kernel<SB><<<grid, block, 0, stream>>> (v);
}

template <int PB, int TX, int TY, int S, int R>
void
launch_direct (const PlaneTables * t, const DirectArgs & a,
    cudaStream_t stream)
{
  const dim3 grid = direct_grid (t, TX, R);

  direct_kernel<PB, TX, TY, S, R><<<grid, dim3 (64, kThreads / 64), 0,
      stream>>> (a);
}

/* Calls launch_direct<PB, TX, TY, 0, kDirectRows> () for the bucket @ty. */
template <int PB, int TX>
void
launch_direct_ty (const PlaneTables * t, const DirectArgs & a,
    cudaStream_t stream)
{
  constexpr int R = kDirectRows;

  static_assert (sizeof (kDirectBuckets) == 5 * sizeof (int),
      "a case a bucket");
  switch (t->direct_ty) {
    case 2: launch_direct<PB, TX, 2, 0, R> (t, a, stream); break;
    case 3: launch_direct<PB, TX, 3, 0, R> (t, a, stream); break;
    case 4: launch_direct<PB, TX, 4, 0, R> (t, a, stream); break;
    case 5: launch_direct<PB, TX, 5, 0, R> (t, a, stream); break;
    default: launch_direct<PB, TX, 6, 0, R> (t, a, stream); break;
  }
}

/* Calls launch_direct<PB, T, T, S, R> () for the plane's rows, compiled
 * only for the rows that strips of T taps take. */
template <int PB, int T, int S>
void
launch_strip_rows (const PlaneTables * t, const DirectArgs & a,
    cudaStream_t stream)
{
  if constexpr (strip_takes_rows (T, 8))
    if (t->direct_rows == 8)
      return launch_direct<PB, T, T, S, 8> (t, a, stream);
  if constexpr (strip_takes_rows (T, 2))
    if (t->direct_rows == 2)
      return launch_direct<PB, T, T, S, 2> (t, a, stream);
  launch_direct<PB, T, T, S, 4> (t, a, stream);
}

/* Calls launch_strip_rows<PB, T, S> () for the plane's step S. */
template <int PB, int T>
void
launch_strips (const PlaneTables * t, const DirectArgs & a,
    cudaStream_t stream)
{
  static_assert (sizeof (kStripSteps) == 4 * sizeof (int), "a case a step");
  /* a bucket compiled for the 3x step only */
  if constexpr (!strip_takes_step (T, 8)) {
    launch_strip_rows<PB, T, 12> (t, a, stream);
  } else {
    switch (t->direct_step) {
      case 8: launch_strip_rows<PB, T, 8> (t, a, stream); break;
      case 12: launch_strip_rows<PB, T, 12> (t, a, stream); break;
      case 7: launch_strip_rows<PB, T, 7> (t, a, stream); break;
      default: launch_strip_rows<PB, T, 6> (t, a, stream); break;
    }
  }
}

template <int PB>
void
launch_direct_plane (const PlaneTables * t, const DirectArgs & a,
    cudaStream_t stream)
{
  static_assert (sizeof (kStripBuckets) == 6 * sizeof (int),
      "a case a bucket");
  if (t->direct_step) {
    /* 1-byte pixels: the one bucket strip_takes_pixels () gives them */
    if constexpr (PB == 1) {
      launch_strips<PB, 4> (t, a, stream);
    } else {
      switch (t->direct_tx) {
        case 4: launch_strips<PB, 4> (t, a, stream); break;
        case 6: launch_strips<PB, 6> (t, a, stream); break;
        case 8: launch_strips<PB, 8> (t, a, stream); break;
        case 11: launch_strips<PB, 11> (t, a, stream); break;
        case 12: launch_strips<PB, 12> (t, a, stream); break;
        default: launch_strips<PB, 17> (t, a, stream); break;
      }
    }
  } else {
    switch (t->direct_tx) {
      case 2: launch_direct_ty<PB, 2> (t, a, stream); break;
      case 3: launch_direct_ty<PB, 3> (t, a, stream); break;
      case 4: launch_direct_ty<PB, 4> (t, a, stream); break;
      case 5: launch_direct_ty<PB, 5> (t, a, stream); break;
      default: launch_direct_ty<PB, 6> (t, a, stream); break;
    }
  }
}

template <int PB, int SB, int TB>
void
launch_fused (const FusedArgs & a, dim3 grid, size_t smem,
    cudaStream_t stream)
{
  fused_kernel<PB, SB, TB><<<grid, kThreads, smem, stream>>> (a);
}

/* nearest_kernel () of the x line's @step where the plane takes
 * nearest_wide () (@a.wide_x: the plan's choice and a 16-byte aligned
 * source), else of step 0 */
template <int PB, int SB>
void
launch_nearest (const NearestArgs & a, int step, dim3 grid, dim3 block,
    cudaStream_t stream)
{
  if constexpr (nearest_wide_layout (PB, SB)) {
    switch (a.wide_x ? step : 0) {
      case 2:
        nearest_kernel<PB, SB, 2><<<grid, block, 0, stream>>> (a);
        return;
      case 3:
        nearest_kernel<PB, SB, 3><<<grid, block, 0, stream>>> (a);
        return;
      case 4:
        nearest_kernel<PB, SB, 4><<<grid, block, 0, stream>>> (a);
        return;
    }
  }
  nearest_kernel<PB, SB, 0><<<grid, block, 0, stream>>> (a);
}

template <int PB, int SB>
void
launch_plane (const PlaneTables * t, const CfImage * d_src, int p,
    const CfImage * d_dst, void *d_workspace, cudaStream_t stream)
{
  const uint8_t *src = (const uint8_t *) d_src->data[p];
  uint8_t *dst = (uint8_t *) d_dst->data[p];
  /* the direct kernel reads whole pixels: planes aligned to 4 bytes, of
   * the layouts it is compiled for (the only ones choose_kernel () gives
   * it) */
  constexpr bool kDirectLayout = SB == 1 && (PB == 1 || PB == 2 ||
      PB == 4);
  const Kernel kernel = t->kernel == Kernel::kDirect && (!kDirectLayout ||
      !aligned (src, d_src->pitch[p], 4)) ? t->fallback : t->kernel;

  if constexpr (SB == 1 && (PB == 1 || PB == 2 || PB == 4)) {
    /* the kernels of fixed patterns, on planes aligned to their loads */
    const FixedPlane g = { src, d_src->pitch[p], dst, d_dst->pitch[p],
      t->in_width * PB, t->in_height, t->out_width * PB, t->out_height,
      false
    };
    if (t->halve && aligned (src, d_src->pitch[p], 16)) {
      HalveArgs a = t->halve_args;

      a.g = g;
      a.g.dst_aligned = aligned (dst, d_dst->pitch[p],
          8 * HalveShape<PB>::V);
      launch_halve<PB> (a, stream);
      return;
    }
    if (t->third && aligned (src, d_src->pitch[p], 8 / t->third)) {
      ThirdArgs a = t->third_args;

      a.g = g;
      a.g.dst_aligned = aligned (dst, d_dst->pitch[p], 8);
      if constexpr (third_takes (PB, 1))
        if (t->third == 1)
          return launch_third<PB, 1> (a, t->third_stagger, stream);
      if constexpr (third_takes (PB, 2))
        if (t->third == 2)
          return launch_third<PB, 2> (a, t->third_stagger, stream);
    }
  }
  if (kernel == Kernel::kNearest) {
    const uint32_t mask = (uint32_t) t->value.max << t->value.lsb;
    const NearestArgs a = { src, d_src->pitch[p], dst, d_dst->pitch[p],
      t->out_width, t->out_height, t->x.first, t->y.first, t->line_x,
      t->line_y, mask | mask << 16,
      aligned (src, d_src->pitch[p], 4), aligned (dst, d_dst->pitch[p], 16),
      t->nearest_wide && aligned (src, d_src->pitch[p], 16)
    };
    const int groups = (t->out_width + Gather<PB>::G - 1) / Gather<PB>::G;
    const dim3 block (32, kThreads / 32);
    const int row_groups = (t->out_height + kNearestRows - 1) / kNearestRows;
    const dim3 grid ((groups + 31) / 32, (row_groups + block.y - 1) / block.y);

    launch_nearest<PB, SB> (a, t->line_x.step, grid, block, stream);
  } else if (kernel == Kernel::kDirect) {
    const DirectArgs a = { src, d_src->pitch[p], dst, d_dst->pitch[p],
      t->out_width, t->out_height, t->direct_x, t->direct_y,
      aligned (dst, d_dst->pitch[p], 4)
    };

    if constexpr (kDirectLayout)
      launch_direct_plane<PB> (t, a, stream);
  } else if (kernel == Kernel::kFused) {
    const FusedArgs a = { src, d_src->pitch[p], dst, d_dst->pitch[p],
      t->out_width, t->out_height, t->th, t->in_rows, t->inter_rows,
      t->row_stride, t->x, t->y, t->tiles_x, t->tiles_y,
      aligned (src, d_src->pitch[p], 16),
      aligned (dst, d_dst->pitch[p], sizeof (typename Group<PB>::Word)),
      t->value
    };
    const dim3 grid ((t->out_width + tile_width (PB) - 1) / tile_width (PB),
        (t->out_height + t->th - 1) / t->th);

    CF_RESIZE_FOR_BUCKET (launch_fused, PB, SB, t->tb, a, grid, t->smem,
        stream);
  } else {
    launch_two_pass<PB, SB> (t, d_src, p, d_dst, d_workspace, stream);
  }
}

}  // namespace

extern "C" cudaError_t
cf_resize_cuda (const CfResizeDevicePlan * d_plan, const CfImage * d_src,
    const CfImage * d_dst, void *d_workspace, cudaStream_t stream)
{
  if (!d_plan || (d_plan->workspace_bytes > 0 && !d_workspace)
      || cf_image_check (d_src) != 0
      || cf_image_check (d_dst) != 0 || d_src->format != d_plan->format
      || d_dst->format != d_plan->format
      || d_src->width != d_plan->in_width
      || d_src->height != d_plan->in_height
      || d_dst->width != d_plan->out_width
      || d_dst->height != d_plan->out_height)
    return cudaErrorInvalidValue;

  /* the first plane on @stream, the others beside it (CfResizeDevicePlan's
   * fork) */
  void *side = stream;
  cudaError_t err = d_plan->fork ? (cudaError_t) cf_fork (d_plan->fork,
      stream, &side) : cudaSuccess;
  if (err != cudaSuccess)
    return err;
  for (int p = 0; err == cudaSuccess && p < d_plan->n_planes; p++) {
    const PlaneTables *t = &d_plan->plane[p];
    const cudaStream_t s = p == 0 ? stream : (cudaStream_t) side;

#define LAUNCH_CASE(PB, SB) \
      case PB * 10 + SB: \
        launch_plane<PB, SB> (t, d_src, p, d_dst, d_workspace, s); \
        break;
    switch (t->pixel_bytes * 10 + t->sample_bytes) {
      CF_RESIZE_LAYOUTS (LAUNCH_CASE)
      default: err = cudaErrorInvalidValue; continue;
    }
#undef LAUNCH_CASE
    err = cudaGetLastError ();
  }
  /* joined even after an error, which then wins */
  const cudaError_t joined = d_plan->fork ?
      (cudaError_t) cf_join (d_plan->fork, stream) : cudaSuccess;
  return err != cudaSuccess ? err : joined;
}
