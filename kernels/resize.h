/* gst-cudafilters kernel library: picture scaling.
 *
 * A separable filter, one axis after the other, in fixed point, so that the
 * CUDA and CPU paths give identical bytes:
 *
 * 1. Weights. For each axis of each plane, a CfResizeAxis lists, for every
 *    output sample i, the first input sample and `taps` signed weights of
 *    B = weight_bits fraction bits that sum to exactly ONE = 1 << B, with
 *    B = CF_RESIZE_WEIGHT_BITS (depth) of the plane's sample size: 14 for
 *    8-bit samples, 22 for 16-bit ones (10-bit values too). Output sample i
 *    is centred on input
 *    position p(i) = i * scale + offset (in input samples, sample k centred
 *    on k); the filter is evaluated at (k - p(i)) / f for input samples k,
 *    with f = max (1, scale) so that downscaling widens the support (no
 *    aliasing), or f = 1 without antialiasing (the filter's own support
 *    whatever the scale, as NPP and videoscale filter; area always averages
 *    its box, and nearest has one tap either way). Taps beyond the picture
 *    are folded onto the edge sample
 *    (edge replicated). The weights are computed in double, normalized to
 *    1, and rounded to fixed point as running sums: with S(t) the exact sum
 *    of weights 0 .. t, fixed-point weight t
 *    is round (2^B S(t)) - round (2^B S(t - 1)) (round: half away from
 *    zero; the last running sum is exactly 1). So they sum to 1 exactly, and
 *    the rounding errors alternate along the taps instead of piling up on
 *    one weight (which, on the many equal weights of a large box, costs
 *    several LSB of a 16-bit sample). Both backends use the very same
 *    tables, made once on the host.
 * 2. Horizontal pass, per row of the input and output column, with
 *    I = CF_RESIZE_INTER_BITS:
 *    h = (sum w * in + 2^(B - I - 1)) >> (B - I)
 *    kept with I fraction bits (arithmetic shift, so rounding is half up,
 *    also for negative sums).
 * 3. Vertical pass, per output sample:
 *    out = clamp ((sum w * h + 2^(B + I - 1)) >> (B + I), 0, max)
 *    Every sum is exact: the bounds below keep it within its type.
 *
 * Bounds. Every weight is below 2 ONE in magnitude, and so is the sum of
 * the positive weights of an output (cf_resize_axis_init () checks it), so
 * the negative ones sum above -ONE and sum |w| < 3 ONE. For 8-bit samples
 * (B = 14) this is what lets 16-bit multiply-adds (the CPU's pmaddwd:
 * int16 x int16, pairs summed into int32; the GPU's dp2a: int16 weights x
 * 8-bit samples) compute the very same integers:
 * - |w| <= 32767: int16;
 * - horizontal sums within (-255 ONE, 510 ONE), below 2^23: int32;
 * - h within -16320 .. 32640 (255 x 64 x 2 < 32768): int16;
 * - vertical sums below 3 ONE x 32640 < 2^31 in magnitude, any partial sum
 *   too (and a pair of products w h, below 2 x 32767 x 32640 < 2^31): int32.
 * For 16-bit samples (B = 22) horizontal sums are below 2^40 (int64), h
 * below 2^24 (int32) and vertical sums below 2^48 (int64, or exact in a
 * double).
 *
 * The filter works on VALUES (format.h): a sample is read as
 * (sample >> lsb) & max, with max = 2^bits - 1 of the format, and an output
 * is clamped to 0 .. max and written as value << lsb, the bits outside the
 * value 0. So P010's low 6 bits and an I420_10LE sample's bits above its
 * 10 are ignored; for 8- and 16-bit values the value is the sample.
 *
 * Every sample of a pixel is filtered alike (R, G, B, A, padding bytes too);
 * each plane is scaled at its own size, subsampled chroma with its siting.
 * A constant picture stays constant and an unchanged size is an exact copy
 * of the values, for every method. Against a float64 model of the same
 * filter (unrounded weights, no intermediate rounding, clamped to the value
 * range) the error is at most 1 LSB. Every running sum of weights is within
 * 2^-(B+1) of the exact one, so the rounded weights move a filtered sample
 * by at most 2^-(B+1) times the variation of the input along the taps (sum
 * of |s(k + 1) - s(k)|, Abel's summation); with the final rounding (1/2)
 * and the intermediate's (2^-(I+1) times the vertical gain, sum |w| < 3)
 * the error stays within 1 LSB as long as the two axes' variations sum
 * below about 0.47 2^(B+1) LSB:
 * - 8-bit samples (B = 14): 15000 LSB, so up to about 30 taps per axis
 *   whatever the picture (0/255 checkerboards: a downscale by 5 with
 *   Lanczos; tested), and on pictures and noise at any number of taps:
 *   their variations are far smaller, and the weights' errors, of
 *   alternating signs along the taps, largely cancel (640x480 to 1x1 with
 *   area, 640 and 480 equal taps, is tested on random pictures, whose
 *   errors add up as a random walk: about 2^-15 x 85 x sqrt (640) ~ 0.07
 *   LSB). 16 more bits of weight would not fit int16: the CPU's SIMD
 *   path and the GPU's direct kernel need 14.
 * - 16-bit samples (B = 22): up to about 20 taps per axis whatever the
 *   picture (a downscale by 3 with Lanczos; 14 bits would miss by several
 *   LSB there), beyond that on pictures and noise (videoscale's size
 *   matrix is tested on random pictures, every method and format).
 *
 * Methods, with the radius of the filter (in input samples times f):
 * - nearest: the single input sample floor (p(i) + 0.5), clamped;
 * - bilinear: triangle, radius 1;
 * - bicubic: Catmull-Rom (Keys, a = -0.5), radius 2;
 * - lanczos: Lanczos-3, sinc (x) sinc (x / 3), radius 3 (exactly 1 and 0 on
 *   integer x, so an unchanged size copies);
 * - area: when scale > 1, the exact box average of the input footprint:
 *   output i covers [c - scale / 2, c + scale / 2) with c = p(i) + 0.5 in
 *   pixel-edge coordinates (input sample k spans [k, k + 1)), and input k
 *   weighs its overlap / scale; when scale <= 1, bilinear.
 * An axis has at most ceil (2 * radius * f) + 1 taps (ceil (scale) + 1 for
 * area, 1 for nearest) and at most in_size; `taps` is the widest span of
 * non-zero weights over its outputs.
 *
 * Plane layouts: pixels of 1, 2, 3 or 4 bytes of 8-bit samples, of 2, 4
 * (P010's and P016's UV pairs) or 8 (RGBA64) bytes of 16-bit samples, the
 * list CF_RESIZE_LAYOUTS below; cf_resize_plan_init () refuses a format
 * with a plane of another layout.
 */
#ifndef CF_RESIZE_H
#define CF_RESIZE_H

#include "format.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Fraction bits of the weights, per sample size (see above), and of the
 * intermediate. */
#define CF_RESIZE_WEIGHT_BITS_8 14
#define CF_RESIZE_WEIGHT_BITS_16 22
#define CF_RESIZE_WEIGHT_BITS(depth) \
  ((depth) > 8 ? CF_RESIZE_WEIGHT_BITS_16 : CF_RESIZE_WEIGHT_BITS_8)
#define CF_RESIZE_INTER_BITS 6

/* The plane layouts both backends are compiled for, as X (pixel bytes,
 * sample bytes): each backend instantiates its filter for each, from this
 * one list. */
#define CF_RESIZE_LAYOUTS(X) \
  X (1, 1) X (2, 1) X (3, 1) X (4, 1) X (2, 2) X (4, 2) X (8, 2)

typedef enum {
  CF_RESIZE_NEAREST,
  CF_RESIZE_BILINEAR,
  CF_RESIZE_BICUBIC,
  CF_RESIZE_LANCZOS,
  CF_RESIZE_AREA,
  CF_RESIZE_METHOD_COUNT
} CfResizeMethod;

/* Weights of one axis of one plane. */
typedef struct {
  CfResizeMethod method;
  int antialias;                /* 1: the support widens when downscaling */
  int weight_bits;              /* B: CF_RESIZE_WEIGHT_BITS (depth) */
  int in_size, out_size;
  double scale, offset;         /* p(i) = i * scale + offset */
  int taps;                     /* weights per output sample */
  int32_t *first;               /* [out_size]: first input sample, and
                                 * first + taps <= in_size */
  int32_t *weights;             /* [out_size * taps], unused taps 0 */
} CfResizeAxis;

/* Fills @axis for output sample i centred on input position
 * i * @scale + @offset; with @antialias (non-zero), @scale is also the
 * widening of the support when above 1. For a plain plane
 * scale = in_size / out_size and offset = (scale - 1) / 2 (centres
 * aligned). Sizes 1 .. CF_MAX_SIDE; @weight_bits: B, CF_RESIZE_WEIGHT_BITS
 * (depth) of the samples the axis filters (CF_RESIZE_INTER_BITS + 2 .. 22
 * are accepted). Returns 0, or -1 (and @axis cleared) on bad arguments or
 * when memory runs out. */
int cf_resize_axis_init (CfResizeAxis * axis, CfResizeMethod method,
    int antialias, int weight_bits, int in_size, int out_size, double scale,
    double offset);
/* Frees the tables; safe on a cleared or failed axis. */
void cf_resize_axis_clear (CfResizeAxis * axis);

/* All the axes of a scaling from one picture size to another. */
typedef struct {
  CfFormat format;
  CfResizeMethod method;
  int antialias;
  int in_width, in_height, out_width, out_height;
  CfResizeAxis x[CF_MAX_PLANES], y[CF_MAX_PLANES];
  /* the CPU backend's arrangement of each plane's x weights for its 16-bit
   * multiply-adds (cpu/resize.c), made with the tables; NULL where that
   * path does not run */
  struct CfResizeSimdWeights *simd_x[CF_MAX_PLANES];
} CfResizePlan;

/* Plane p of the format scales from its own input size to its own output
 * size (cf_plane_width (), cf_plane_height ()). With L = in / out of the
 * picture on an axis, every plane's axis gets scale = L; packed, gray and
 * luma planes (and Y444's chroma) get offset = (L - 1) / 2 (centres
 * aligned). Chroma subsampled along an axis (I420, YV12, NV12, NV21 and
 * their 10- and 16-bit kin on both, Y42B along x only) is sited there as
 * GStreamer's GST_VIDEO_CHROMA_SITE_H_COSITED / _V_COSITED flags say: a
 * co-sited chroma sample sits on the first luma sample of its pair,
 * otherwise between the two; such an axis gets offset = (L - 1) / 4 when
 * co-sited, (L - 1) / 2 when centred (Y42B's chroma y axis: (L - 1) / 2
 * either way). @antialias: see CfResizeAxis (1 widens the support of
 * bilinear, bicubic and lanczos when downscaling). Each plane's axes get
 * the weight bits of its sample size: CF_RESIZE_WEIGHT_BITS (8) for 1-byte
 * samples, CF_RESIZE_WEIGHT_BITS (16) for 2-byte ones. Returns 0 or -1
 * (bad sizes, unknown format, a plane layout
 * not in CF_RESIZE_LAYOUTS, unknown method, no memory; @plan is then
 * cleared). */
int cf_resize_plan_init (CfResizePlan * plan, CfFormat format,
    CfResizeMethod method, int antialias, int in_width, int in_height,
    int out_width, int out_height, int chroma_cosited_h,
    int chroma_cosited_v);
/* Safe on a cleared or failed plan. */
void cf_resize_plan_clear (CfResizePlan * plan);

/* CPU reference: scales every plane of @src (plan->in_* size) into @dst
 * (plan->out_* size), host memory, any pitch and alignment; only the
 * samples of @dst's rows are written, never the bytes between a row's end and
 * its pitch. Returns 0, or -1 when an image does not match the plan or
 * memory runs out. */
int cf_resize_cpu (const CfResizePlan * plan, const CfImage * src,
    const CfImage * dst);
/* The same over @n_threads threads (threads.h: 0 = all the cores), each
 * scaling a band of output rows: the same bytes for any count.
 * cf_resize_cpu () is this with 1. */
int cf_resize_cpu_threads (const CfResizePlan * plan, const CfImage * src,
    const CfImage * dst, int n_threads);

/* The CPU backend's code paths: planes of 8-bit samples take 16-bit SIMD
 * multiply-adds where the build has them (x86-64; 256-bit ones where the
 * CPU has AVX2; 3-byte pixels widened to 4 a row at a time),
 * every other plane the portable scalar reference. All write the same
 * bytes; the tests compare them. */
typedef enum {
  CF_RESIZE_CPU_AUTO,           /* SIMD where it applies: the default */
  CF_RESIZE_CPU_SCALAR,         /* the scalar reference for every plane */
  CF_RESIZE_CPU_SIMD128         /* as AUTO, but 128-bit code where AUTO
                                 * takes AVX2's 256-bit code (a CPU with
                                 * AVX2) */
} CfResizeCpuPath;

/* cf_resize_cpu_threads () with the paths @path allows. */
int cf_resize_cpu_path (const CfResizePlan * plan, const CfImage * src,
    const CfImage * dst, int n_threads, CfResizeCpuPath path);
/* The planes of @plan that CF_RESIZE_CPU_AUTO scales with SIMD, a bit
 * mask (bit p: plane p); 0 for a bad plan or a build without SIMD. */
unsigned cf_resize_cpu_simd_planes (const CfResizePlan * plan);

/* The float64 model of the same filter (weights unrounded, no rounding
 * between the passes, no clamping), on the input's values: the value of
 * sample @k (0 .. pixel_bytes/sample_bytes - 1) of output pixel (@x, @y) of
 * plane @plane. For tests; NAN on bad arguments or when memory runs out. */
double cf_resize_model (const CfResizePlan * plan, const CfImage * src,
    int plane, int x, int y, int k);

#ifdef HAVE_CUDA
/* A plan's tables in device memory, with the kernels chosen for it. */
typedef struct CfResizeDevicePlan CfResizeDevicePlan;

/* Which kernels scale the planes (resize.cu describes them). */
typedef enum {
  /* nearest: a gather; 8-bit samples in 1-, 2- or 4-byte pixels with few
   * taps, or downscaled 2x or 1.5x along y with up to 12 (3x: 17): the
   * direct kernel, where it is the cheaper (8-bit samples halved exactly
   * with four fixed small weights an axis, more than two on one, such as
   * antialiased bilinear: the halve kernel; large planes of 1-, 2- and
   * 4-byte pixels downscaled exactly 3x or 1.5x with fixed positive
   * weights an axis, antialiased bilinear: the third kernel); other
   * planes: one fused launch per plane whose tiles fit in shared memory,
   * else the two passes. The default. */
  CF_RESIZE_KERNELS_AUTO,
  /* the two passes for every plane (tests and benchmarks compare them) */
  CF_RESIZE_KERNELS_TWO_PASS,
  /* as AUTO without the direct kernel: its planes take the kernel it falls
   * back to on unaligned planes (fused, or the two passes where that does
   * not fit); tests and benchmarks compare them */
  CF_RESIZE_KERNELS_FUSED
} CfResizeKernels;

/* Copies @plan's tables to the device (synchronously: at negotiation; the
 * copy is complete when this returns, whatever stream later reads it) and
 * chooses the kernels; formats of several planes also get a stream for
 * the planes after the first (device.h's CfFork). In the current context,
 * which must still be there when the plan is freed. */
cudaError_t cf_resize_device_plan_new (const CfResizePlan * plan,
    CfResizeKernels kernels, CfResizeDevicePlan ** d_plan);
/* Safe on NULL. */
void cf_resize_device_plan_free (CfResizeDevicePlan * d_plan);

/* Device scratch that one frame in flight needs: for each plane scaled in
 * two passes (or that the direct kernel hands to them where the plane is
 * not aligned to 4 bytes), in_height rows of out_width x samples-per-pixel
 * int32 (each plane's part rounded up to 256 bytes). 0 when every plane
 * takes a one-launch kernel, or for NULL. Frames scaled concurrently need
 * one each. */
size_t cf_resize_device_plan_workspace_bytes (const CfResizeDevicePlan *
    d_plan);
/* The kernel of plane @p: "nearest gather", "nearest wide" (the gather of
 * a nearest plane whose x taps step by 2, 3 or 4 pixels of 1, 2 (8-bit
 * samples) or 4 bytes, with 16-byte loads where the plane and its pitch
 * are 16-byte aligned), "halve" (an exact 2x downscale of 1-, 2- or
 * 4-byte pixels of 8-bit samples with four fixed small weights an axis, in
 * 16-bit lanes, on planes and pitches aligned to 16 bytes), "third" (an
 * exact 3x downscale of 1-, 2- or 4-byte pixels of 8-bit samples with five
 * fixed positive weights an axis, on planes of 1024 x 768 output bytes or
 * more (4-byte pixels: any) whose source and pitch are aligned to 8
 * bytes), "two thirds" (the same at an exact 1.5x downscale, 3 fixed
 * positive weights an output, of 1-, 2- or 4-byte pixels, on planes of
 * 1024 x 768 output bytes or more (3 MiB for 4-byte pixels) aligned to 4
 * bytes), "direct", "direct strips", "fused" or "two-pass" ("halve",
 * "third", "two thirds", "direct" and "direct strips" also where a launch
 * on a plane not aligned as they need takes the kernel AUTO would have
 * chosen without them); NULL for a bad plane. */
const char *cf_resize_device_plan_describe (const CfResizeDevicePlan *
    d_plan, int p);

/* GPU launcher: scales @d_src into @d_dst (device images, any pitch and
 * alignment; 16-byte aligned planes and pitches read fastest) on @stream,
 * one or two launches per plane; only the samples of @d_dst's rows are
 * written. The planes after the first run on the plan's own stream, which
 * waits for @stream's work before them and which @stream waits for after
 * them, so that to the caller everything is in @stream's order; a plan
 * may serve several threads and streams at once. @d_workspace holds
 * cf_resize_device_plan_workspace_bytes () (may be NULL when that is 0).
 * Returns cudaErrorInvalidValue when an argument is missing or an image
 * does not match the plan, otherwise the launches' error. */
cudaError_t cf_resize_cuda (const CfResizeDevicePlan * d_plan,
    const CfImage * d_src, const CfImage * d_dst, void *d_workspace,
    cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif
#endif /* CF_RESIZE_H */
