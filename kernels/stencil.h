/* gst-cudafilters kernel library: 1D stencils (correlations) along the rows,
 * the columns, or both, of every plane of a picture.
 *
 * Output sample i of an axis is  out[i] = sum_t w[t] * in[i + t - r],
 * t = 0 .. 2r, with r the radius of that axis (0 .. CF_STENCIL_MAX_RADIUS):
 * a correlation, so an impulse comes out as the taps in reverse order.
 * Direction HORIZONTAL filters along each row, VERTICAL along each column,
 * BOTH is separable 2D: the rows first, then the columns, each axis with its
 * own taps and radius. Every plane is filtered at its own size (subsampled
 * chroma too), each sample of a pixel on its own: R with R, U with U. The
 * alpha sample of the RGB formats with alpha (RGBA, BGRA, ARGB, ABGR) is
 * copied unchanged unless asked for (filter_alpha); padding samples (the x of
 * RGBx) are filtered like the others.
 *
 * Values: a sample is filtered as the value it holds (format.h),
 * (sample >> lsb) & (2^bits - 1); its other bits (P010's low 6, the high 6
 * of I420_10LE's 16) are ignored. Results, copied alpha included, are
 * written back as value << lsb, the other bits 0. Everything below is in
 * values: max = 2^bits - 1 (255, 1023 or 65535).
 *
 * Borders: the picture is extended beyond each edge (input index j outside
 * 0 .. n - 1 of an axis of n samples), the same way on every axis:
 * - CLAMP: the edge sample, j -> clamp (j, 0, n - 1);
 * - MIRROR: reflection about the edge sample without repeating it (OpenCV's
 *   BORDER_REFLECT_101: -1 -> 1, n -> n - 2), repeated with period
 *   2 (n - 1) however far j lies (any radius on any size); n = 1 maps
 *   everything to 0;
 * - WRAP: j modulo n (the picture tiled);
 * - CONSTANT: border_value of the sample's channel, a value (0 .. max), in
 *   every direction, corners included (padding samples get max, 0xff, as
 *   cf_fill_cpu () gives them). For BOTH, a row outside the picture is thus
 *   a constant row: its horizontal pass is the constant times the sum of
 *   the horizontal weights.
 * cf_stencil_border_index () is this mapping.
 *
 * Fixed point, so that the CUDA and CPU paths give the same bytes:
 *
 * 1. Weights. B = CF_STENCIL_WEIGHT_BITS (depth), of the sample size, not
 *    the value's (8-bit formats: 16 fraction bits; 16-bit samples, 10-bit
 *    values too: 22, enough for 129 taps of 16-bit values to stay within
 *    1 LSB of the model, where 16 bits would miss by about one LSB on
 *    noise). With `normalize`, the taps are first divided by their sum
 *    (which must not be 0, and in float64 neither overflow nor fall below
 *    DBL_MIN) and rounded as running sums, as resize.h does: with S(t)
 *    the exact sum of taps 0 .. t, weight t is
 *    round (2^B S(t)) - round (2^B S(t - 1)) (round: half away from zero)
 *    and the last running sum is exactly 2^B, so the weights sum to exactly
 *    1 and a constant stays constant. Without it, each tap is rounded on its
 *    own, round (2^B tap): [-0.5, 0, 0.5] and [1, -2, 1] are exact. The gain,
 *    the sum of |weight|, is at most CF_STENCIL_MAX_GAIN (64) << B.
 * 2. One axis (HORIZONTAL, VERTICAL): S = sum w * in, exact, then
 *    out = clamp ((S + 2^(B-1)) >> B, 0, max): rounded half up (arithmetic
 *    shift, also for negative sums) and saturated to the value's range.
 * 3. BOTH: the rows pass gives an intermediate with I = CF_STENCIL_INTER_BITS
 *    fraction bits,  h = (S_x + 2^(B-I-1)) >> (B-I)  (int32), for every input
 *    row the columns need (rows beyond the edges mapped as above); then
 *    out = clamp ((sum w_y * h + 2^(B+I-1)) >> (B+I), 0, max).
 * Bounds (gain G <= 64): 8-bit sums are below 255 G 2^16 <= 2^30 (int32), h
 *    below 255 G 2^6 + 1 < 2^21; sums of 16-bit samples (values below 2^16)
 *    below 2^38 (int64), h below 2^28 (int32); the columns pass of BOTH
 *    below G 2^B |h| <= 2^56 (int64; int32 when its bound, computed from
 *    the weights, allows). Every sum is exact.
 *
 * Against the float64 model (cf_stencil_model (): unrounded taps, no
 * intermediate rounding, then clamped) the error is the final rounding
 * (1/2), the intermediate's (G_y 2^-(I+1)) and the rounding of the weights:
 * each running sum (normalized) or weight is within 2^-(B+1) of the exact
 * one, which moves a filtered sample by at most 2^-(B+1) times the variation
 * of its input along the taps (sum of |in(k + 1) - in(k)|; sum of |in|
 * unnormalized). So normalized taps of gain 1 (blurs) keep 8-bit results
 * within 1 LSB of the model on any picture up to 127 taps per axis (at most
 * 1.01 LSB with 129 taps on both axes); on pictures and noise, whose errors
 * largely cancel, both depths stay within 1 LSB at any radius (tested on
 * random pictures up to radius 64).
 */
#ifndef CF_STENCIL_H
#define CF_STENCIL_H

#include "format.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define CF_STENCIL_MAX_RADIUS 64
#define CF_STENCIL_MAX_TAPS (2 * CF_STENCIL_MAX_RADIUS + 1)
#define CF_STENCIL_WEIGHT_BITS_8 16
#define CF_STENCIL_WEIGHT_BITS_16 22
/* B of a format of @depth bits per sample (8 or 16) */
#define CF_STENCIL_WEIGHT_BITS(depth) \
  ((depth) > 8 ? CF_STENCIL_WEIGHT_BITS_16 : CF_STENCIL_WEIGHT_BITS_8)
#define CF_STENCIL_INTER_BITS 6
#define CF_STENCIL_MAX_GAIN 64

typedef enum {
  CF_STENCIL_HORIZONTAL,
  CF_STENCIL_VERTICAL,
  CF_STENCIL_BOTH,
  CF_STENCIL_DIRECTION_COUNT
} CfStencilDirection;

typedef enum {
  CF_STENCIL_CLAMP,
  CF_STENCIL_MIRROR,
  CF_STENCIL_WRAP,
  CF_STENCIL_CONSTANT,
  CF_STENCIL_BORDER_COUNT
} CfStencilBorder;

/* The taps of one axis. */
typedef struct {
  int radius;                   /* 0 .. CF_STENCIL_MAX_RADIUS */
  const double *taps;           /* 2 radius + 1; tap t weighs in[i + t - radius] */
  int normalize;                /* divide by their sum first */
} CfStencilTaps;

/* What to filter, and how. */
typedef struct {
  CfStencilDirection direction;
  CfStencilTaps x;              /* for HORIZONTAL and BOTH */
  CfStencilTaps y;              /* for VERTICAL and BOTH */
  CfStencilBorder border;
  /* CONSTANT's value per channel, in format.h's channel order (R, G, B, A;
   * Y, U, V; gray): a value of the format, 0 .. 2^bits - 1 (1023 for
   * P010_10LE and I420_10LE) */
  uint16_t border_value[CF_MAX_CHANNELS];
  int filter_alpha;             /* filter alpha too, instead of copying it */
} CfStencilParams;

/* A stencil of one picture size and format, made once on the host; both
 * backends read the very same weights from it. No memory of its own. */
typedef struct {
  CfFormat format;
  int width, height;
  CfStencilDirection direction;
  CfStencilBorder border;
  int weight_bits;              /* B: CF_STENCIL_WEIGHT_BITS (depth) */
  /* per axis; an axis the direction leaves alone has radius 0 and the
   * identity (tap 1, weight 1 << B), which is not applied */
  int radius_x, radius_y;
  int32_t weights_x[CF_STENCIL_MAX_TAPS], weights_y[CF_STENCIL_MAX_TAPS];
  double taps_x[CF_STENCIL_MAX_TAPS], taps_y[CF_STENCIL_MAX_TAPS];
  /* CONSTANT's value of sample k of a pixel of plane p (a value, not
   * shifted into its sample) */
  int32_t border_sample[CF_MAX_PLANES][CF_MAX_CHANNELS];
  /* bit k set: sample k of a pixel of plane p is copied, not filtered */
  unsigned int skip[CF_MAX_PLANES];
} CfStencilPlan;

/* Named taps, the same for the elements and the batch tool. */
typedef enum {
  CF_STENCIL_PRESET_BOX,        /* 2r + 1 equal taps, normalized */
  CF_STENCIL_PRESET_GAUSSIAN,   /* exp (-t^2 / (2 sigma^2)), normalized */
  CF_STENCIL_PRESET_SHARPEN,    /* unsharp mask: (1 + amount) delta - amount
                                 * gaussian (sigma), normalized (sum 1) */
  CF_STENCIL_PRESET_DERIVATIVE, /* central difference [-1/2, 0, 1/2]: out[i]
                                 * = (in[i + 1] - in[i - 1]) / 2; radius 1 */
  CF_STENCIL_PRESET_LAPLACIAN,  /* second difference [1, -2, 1]; radius 1 */
  CF_STENCIL_PRESET_COUNT
} CfStencilPreset;

/* The taps of @preset into @taps[CF_STENCIL_MAX_TAPS] (*@radius_out of
 * them each side) and whether they are meant to be normalized
 * (*@normalize). @radius 1 .. CF_STENCIL_MAX_RADIUS, or 0 for the preset's
 * own: 3 sigma rounded up for gaussian and sharpen (at least 1), 1 for box;
 * derivative and laplacian always have radius 1. @sigma > 0 (gaussian,
 * sharpen), @amount finite (sharpen). Returns 0, or -1 on bad arguments. */
int cf_stencil_preset_taps (CfStencilPreset preset, int radius, double sigma,
    double amount, double *taps, int *radius_out, int *normalize);

/* Where input index @i of an axis of @n samples (n >= 1) reads from: an index
 * in 0 .. n - 1, or -1 for CONSTANT outside the axis (or a bad argument). */
int cf_stencil_border_index (CfStencilBorder border, int i, int n);

/* Why the taps of an axis make no weights (cf_stencil_taps_check ()).
 * A value that float64 arithmetic on the way would turn into another (an
 * infinite sum, digits lost below DBL_MIN) is refused, never quietly made
 * into another filter. */
typedef enum {
  CF_STENCIL_TAPS_OK,
  CF_STENCIL_TAPS_BAD_RADIUS,   /* taps NULL, radius out of range */
  CF_STENCIL_TAPS_NOT_FINITE,   /* a tap is infinite or NaN */
  CF_STENCIL_TAPS_SUM_ZERO,     /* normalize: they sum to 0 */
  /* normalize: their sum overflows float64 (1e308 three times); divided by
   * it, the taps would all be 0 and the running sums make 0, 0, 1 */
  CF_STENCIL_TAPS_SUM_OVERFLOW,
  /* normalize: |sum| below DBL_MIN, where the taps keep too few digits for
   * the weights they make (1e-323, 1.4e-323, 1e-323 reads as 2, 3, 2 times
   * 2^-1074, not as 1, 1.4, 1) */
  CF_STENCIL_TAPS_SUM_SUBNORMAL,
  /* the gain (sum of |weights|) is above CF_STENCIL_MAX_GAIN, or overflows */
  CF_STENCIL_TAPS_GAIN,
} CfStencilTapsStatus;

/* Whether cf_stencil_plan_init () takes @axis for pictures of @format, and
 * if not, why: it refuses exactly the taps this does not call OK. */
CfStencilTapsStatus cf_stencil_taps_check (const CfStencilTaps * axis,
    CfFormat format);

/* Makes the plan of @params for @width x @height pictures of @format (sizes
 * 1 .. CF_MAX_SIDE). Returns 0, or -1 (and @plan cleared) on a bad argument:
 * unknown format, direction or border, taps that cf_stencil_taps_check ()
 * refuses, a border value beyond the format's values (2^bits - 1). */
int cf_stencil_plan_init (CfStencilPlan * plan, CfFormat format, int width,
    int height, const CfStencilParams * params);
/* Safe on a cleared or failed plan (the plan owns no memory; this clears it
 * so that a cleared plan is refused). */
void cf_stencil_plan_clear (CfStencilPlan * plan);

/* CPU reference and CPU backend: filters every plane of @src into @dst
 * (host memory, the plan's size and format, any pitch and alignment, @src
 * and @dst not overlapping); only the samples of @dst's rows are written,
 * never the bytes between a row's end and its pitch. Returns 0, or -1 when
 * an image does not match the plan or memory runs out. */
int cf_stencil_cpu (const CfStencilPlan * plan, const CfImage * src,
    const CfImage * dst);
/* The same over @n_threads threads (threads.h: 0 = all the cores), each
 * filtering a band of output rows: the same bytes for any count.
 * cf_stencil_cpu () is this with 1. */
int cf_stencil_cpu_threads (const CfStencilPlan * plan, const CfImage * src,
    const CfImage * dst, int n_threads);

/* The 16-bit multiply-adds of the CPU backend (8-bit samples, x86): the
 * instruction set cf_stencil_cpu () takes for them now, "sse2", "avx2",
 * "avx512" or "vnni" (AVX-512 VNNI), or NULL where none (another
 * architecture or compiler, or CF_STENCIL_SIMD=off in the environment;
 * CF_STENCIL_SIMD=NAME caps the set at NAME, read at each call). The
 * bytes are the same either way; for tests and measurements. */
const char *cf_stencil_cpu_simd (void);
/* Which passes of plane @plane of @plan take them now: bit 0 the rows',
 * bit 1 the columns' (8-bit samples, the weights of the axis within
 * int16, and for BOTH's columns an intermediate within int16); 0 on bad
 * arguments. */
int cf_stencil_cpu_narrow (const CfStencilPlan * plan, int plane);

/* The float64 model of the same filter (the taps unrounded, no rounding
 * between the passes, no clamping) for sample @k (0 .. samples per pixel - 1)
 * of pixel (@x, @y) of plane @plane, as a value (not shifted into its
 * sample); a copied (alpha) sample is the input's value. For tests; NAN on
 * bad arguments. */
double cf_stencil_model (const CfStencilPlan * plan, const CfImage * src,
    int plane, int x, int y, int k);

#ifdef HAVE_CUDA
/* A plan ready for launches (the weights travel as kernel arguments, so it
 * holds no device memory). */
typedef struct CfStencilDevicePlan CfStencilDevicePlan;

/* Which kernels filter the planes (stencil.cu describes them). */
typedef enum {
  /* BOTH on 8-bit samples in 1-, 2- or 4-byte pixels where the columns'
   * sums stay within int32 (blurs, mild sharpening; not strong
   * sharpening on both axes):
   * - the integer tensor cores, where the weights and the intermediate
   *   fit their byte pieces (blurs: gaussian, box, any taps of one sign;
   *   taps of both signs when each weight is within +-0.5 and the gains
   *   stay near 1, which leaves out sharpening, whose centre tap is above
   *   1, and an axis of radius 0, whose one tap is 1): the larger radius
   *   1 .. 8 in one launch, 9 .. 64 in two (rows, then columns) through a
   *   workspace;
   * - radius 1 (one axis may have 0) where the tensor cores cannot take
   *   the taps: the sliding-window kernel (each thread walks down a strip
   *   of rows with everything in registers; the strip's height, 8 rows
   *   unless the plane is too small to fill the device, is set by
   *   CF_STENCIL_WINDOW_ROWS in the environment, read when the plan is
   *   made; 0 turns the kernel off: for measurements).
   * An 8-bit YUV frame whose planes all take the one-launch tensor-core
   * kernel is filtered in a single launch for all its planes (where every
   * plane and pitch is aligned; CF_STENCIL_ONE_LAUNCH=0 in the
   * environment, read when the plan is made, launches them one by one:
   * for measurements).
   * On planes or pitches not aligned to 16 bytes a launch of either takes
   * the CUDA-core kernel instead. Everything else: the CUDA-core kernel
   * (int32 multiply-adds, a tile in shared memory). The default. */
  CF_STENCIL_KERNELS_AUTO,
  /* the CUDA-core kernel for every plane (tests and benchmarks compare
   * them) */
  CF_STENCIL_KERNELS_CUDA_CORES
} CfStencilKernels;

/* Makes the launch-ready copy of @plan with @kernels, and lets the kernels
 * it uses take the shared memory they need (at negotiation, not per
 * frame). */
cudaError_t cf_stencil_device_plan_new (const CfStencilPlan * plan,
    CfStencilKernels kernels, CfStencilDevicePlan ** d_plan);
/* The kernel of plane @p: "sliding window" (int32 sums), "sliding window,
 * dp2a", "tensor cores" or "tensor cores, two passes" (also where a launch
 * on an unaligned plane takes the CUDA-core kernel), or "cuda cores"; NULL
 * for a bad plane. */
const char *cf_stencil_device_plan_describe (const CfStencilDevicePlan *
    d_plan, int p);
/* Safe on NULL. */
void cf_stencil_device_plan_free (CfStencilDevicePlan * d_plan);

/* Device scratch a frame in flight needs with @d_plan: the two-pass
 * tensor-core kernels' intermediate (radii above 8; 2 bytes a sample and
 * row of the largest plane, with the rows above and below that its
 * columns read), 0 where every plane keeps it in shared memory; 0 for
 * NULL. */
size_t cf_stencil_device_plan_workspace_bytes (const CfStencilDevicePlan *
    d_plan);

/* GPU launcher: filters @d_src into @d_dst (device images, any pitch and
 * alignment, not overlapping) on @stream, one or two launches per plane;
 * only the samples of @d_dst's rows are written. @d_workspace: device
 * memory of cf_stencil_device_plan_workspace_bytes () bytes, 16-byte
 * aligned, not used by another launch in flight; may be NULL where that
 * is 0. Returns cudaErrorInvalidValue when an argument is missing or an
 * image does not match the plan, otherwise the launches' error. */
cudaError_t cf_stencil_cuda (const CfStencilDevicePlan * d_plan,
    const CfImage * d_src, const CfImage * d_dst, void *d_workspace,
    cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif
#endif /* CF_STENCIL_H */
