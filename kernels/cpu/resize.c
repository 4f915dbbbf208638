/* Weight tables for kernels/resize.cu, the CPU reference, and the float64
 * model (see resize.h).
 *
 * The tables are made here, once per plan, and shared by both backends.
 * For output sample i, filter_taps () lists the input samples its filter
 * reaches, folds those beyond the picture onto the edge sample, and
 * normalizes the weights to 1, in double: the model uses these directly,
 * cf_resize_axis_init () rounds them to fixed point.
 *
 * cf_resize_cpu () filters each plane horizontally, one input row at a time,
 * into rows of CF_RESIZE_INTER_BITS fraction bits (integers held in doubles,
 * see vertical_row ()), then vertically. Only the `taps` input rows an
 * output row needs are kept, in a ring of rows (input row r in slot
 * r % taps), so memory stays small for any size. Both passes are written
 * for the auto-vectoriser: the horizontal one sums the samples of a pixel
 * side by side, the vertical one a run of output samples.
 * Samples are read as values and written back shifted into place (resize.h);
 * the row functions are inlined per layout of CF_RESIZE_LAYOUTS, so 8-bit
 * samples skip the value's mask and shift at compile time. Threads
 * (cf_resize_cpu_threads ()) take bands of output rows, each band with a
 * ring of its own: every output row is computed the same way whatever the
 * band it falls in.
 *
 * That is the scalar reference, for every plane. Planes of 8-bit samples
 * take the SIMD passes further below on x86 (int16
 * intermediate rows, 16-bit multiply-adds), which compute the very same
 * integers; cf_resize_cpu_path () can ask for the reference alone.
 */
#include "../resize.h"
#include "../threads.h"
#include "clones.h"
#include "simd16.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The shifts of the two passes for an axis of B weight bits (resize.h) */
#define H_SHIFT(axis) ((axis)->weight_bits - CF_RESIZE_INTER_BITS)
#define V_SHIFT(axis) ((axis)->weight_bits + CF_RESIZE_INTER_BITS)

/* ---- filter kernels: weight of an input sample at distance x ---- */

/* Triangle (tent), radius 1: linear interpolation. */
static double
triangle (double x)
{
  x = fabs (x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

/* Keys' cubic with a = -0.5 (Catmull-Rom), radius 2: 1 at 0, 0 at the other
 * integers (exactly, in double). */
static double
catmull_rom (double x)
{
  const double a = -0.5;

  x = fabs (x);
  if (x < 1.0)
    return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
  if (x < 2.0)
    return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
  return 0.0;
}

/* sin (pi x) / (pi x), 1 at 0 */
static double
sinc (double x)
{
  if (x == 0.0)
    return 1.0;
  x *= M_PI;
  return sin (x) / x;
}

/* Lanczos-3, radius 3. sin (pi n) is not exactly 0 in double, so the
 * integers are answered exactly: 1 at 0, 0 elsewhere. */
static double
lanczos3 (double x)
{
  x = fabs (x);
  if (x >= 3.0)
    return 0.0;
  if (x == floor (x))
    return x == 0.0 ? 1.0 : 0.0;
  return sinc (x) * sinc (x / 3.0);
}

/* Length of the overlap of input sample @k, which spans [k, k + 1), with
 * the footprint [@lo, @hi): the area method's weight, times the scale. */
static double
coverage (int k, double lo, double hi)
{
  const double a = fmax (k, lo), b = fmin (k + 1.0, hi);

  return b > a ? b - a : 0.0;
}

/* ---- weights of one output sample ---- */

static int
is_area (const CfResizeAxis * axis)
{
  return axis->method == CF_RESIZE_AREA && axis->scale > 1.0;
}

/* How much a downscale widens the filter: f = the scale when antialiasing
 * and downscaling, else 1 (the filter's own support, as NPP's filters). */
static double
widening (const CfResizeAxis * axis)
{
  return axis->antialias ? fmax (1.0, axis->scale) : 1.0;
}

/* Half the width of the filter's support, in input samples: radius * f. */
static double
support (const CfResizeAxis * axis)
{
  static const double radius[CF_RESIZE_METHOD_COUNT] = {
    [CF_RESIZE_BILINEAR] = 1.0,
    [CF_RESIZE_BICUBIC] = 2.0,
    [CF_RESIZE_LANCZOS] = 3.0,
    [CF_RESIZE_AREA] = 1.0,     /* bilinear when not downscaling */
  };

  if (is_area (axis))
    return axis->scale / 2.0;
  return radius[axis->method] * widening (axis);
}

/* The most input samples an output of @axis reaches before folding:
 * ceil (2 * radius * f) + 1, 1 for nearest (see resize.h). */
static int
tap_bound (const CfResizeAxis * axis)
{
  if (axis->method == CF_RESIZE_NEAREST)
    return 1;
  return (int) ceil (2.0 * support (axis)) + 1;
}

static int
clamp_int (int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

/* Normalized weights of output @i of @axis, folded onto the picture: input
 * samples *@lo .. *@lo + n - 1 get @w[0 .. n - 1]; n (returned) spans the
 * non-zero weights only, so it is 1 where the filter hits a sample exactly.
 * @w holds tap_bound () doubles. Returns 0 if the weights sum to 0 (cannot
 * happen with these filters). */
static int
filter_taps (const CfResizeAxis * axis, int i, double *w, int *lo)
{
  const int bound = tap_bound (axis), last = axis->in_size - 1;
  const double p = i * axis->scale + axis->offset;
  const double f = widening (axis);
  double sum = 0.0, box_lo = 0.0, box_hi = 0.0;
  int kmin, kmax, k, a, b;

  if (axis->method == CF_RESIZE_NEAREST) {
    kmin = kmax = (int) floor (p + 0.5);
  } else if (is_area (axis)) {
    box_lo = p + 0.5 - axis->scale / 2.0;
    box_hi = p + 0.5 + axis->scale / 2.0;
    kmin = (int) floor (box_lo);
    kmax = (int) ceil (box_hi) - 1;
  } else {
    /* the open support (p - radius f, p + radius f) */
    const double r = support (axis);
    kmin = (int) floor (p - r) + 1;
    kmax = (int) ceil (p + r) - 1;
  }
  if (kmax > kmin + bound - 1)
    kmax = kmin + bound - 1;    /* rounding of p; the tap cut weighs ~0 */

  /* fold onto [0, last]: the folded taps span a .. b */
  a = clamp_int (kmin, 0, last);
  b = clamp_int (kmax, 0, last);
  memset (w, 0, sizeof (double) * (b - a + 1));
  for (k = kmin; k <= kmax; k++) {
    double v;

    if (axis->method == CF_RESIZE_NEAREST)
      v = 1.0;
    else if (is_area (axis))
      v = coverage (k, box_lo, box_hi) / axis->scale;
    else if (axis->method == CF_RESIZE_BICUBIC)
      v = catmull_rom ((k - p) / f);
    else if (axis->method == CF_RESIZE_LANCZOS)
      v = lanczos3 ((k - p) / f);
    else
      v = triangle ((k - p) / f);
    w[clamp_int (k, 0, last) - a] += v;
    sum += v;
  }
  if (sum == 0.0)
    return 0;

  /* keep the non-zero span */
  while (b > a && w[b - a] == 0.0)
    b--;
  k = 0;
  while (a + k < b && w[k] == 0.0)
    k++;
  if (k)
    memmove (w, w + k, sizeof (double) * (b - a - k + 1));
  a += k;
  for (k = 0; k <= b - a; k++)
    w[k] /= sum;
  *lo = a;
  return b - a + 1;
}

/* ---- tables ---- */

void
cf_resize_axis_clear (CfResizeAxis * axis)
{
  if (!axis)
    return;
  free (axis->first);
  free (axis->weights);
  memset (axis, 0, sizeof (*axis));
}

/* Rounds the @n normalized weights @w to fixed point of @bits fraction
 * bits into @q as running sums, with ONE = 2^bits:
 * q[t] = round (ONE (w[0] + .. + w[t])) - round (ONE (w[0] + .. +
 * w[t - 1])), the last one making the total ONE exactly. Each running sum is
 * then within half a unit of the exact one, so the rounding errors of the
 * weights alternate instead of piling up (as they would on the box of the
 * area method). Returns -1 when the positive weights sum to 2 ONE or more
 * (never with these filters): resize.h's bounds rest on less (8-bit sums
 * within int32, and for 14 bits every weight and intermediate within
 * int16). */
static int
quantize (const double *w, int n, int bits, int32_t * q)
{
  const int64_t ONE = INT64_C (1) << bits;
  int64_t before = 0, positive = 0;
  double running = 0.0;
  int t;

  for (t = 0; t < n; t++) {
    const int64_t upto = t == n - 1 ? ONE : (int64_t) round ((running += w[t])
        * ONE);

    q[t] = (int32_t) (upto - before);
    positive += q[t] > 0 ? q[t] : 0;
    before = upto;
  }
  return positive < 2 * ONE ? 0 : -1;
}

int
cf_resize_axis_init (CfResizeAxis * axis, CfResizeMethod method,
    int antialias, int weight_bits, int in_size, int out_size, double scale,
    double offset)
{
  double *all = NULL;
  int *lo = NULL, *n = NULL;
  int bound, i, taps = 1;

  if (!axis)
    return -1;
  memset (axis, 0, sizeof (*axis));
  if ((unsigned) method >= CF_RESIZE_METHOD_COUNT
      || weight_bits < CF_RESIZE_INTER_BITS + 2 || weight_bits > 22
      || in_size < 1
      || out_size < 1 || in_size > CF_MAX_SIDE || out_size > CF_MAX_SIDE
      || !isfinite (scale) || scale <= 0.0 || scale > CF_MAX_SIDE
      || !isfinite (offset) || fabs (offset) > 2.0 * CF_MAX_SIDE)
    return -1;
  axis->method = method;
  axis->antialias = antialias != 0;
  axis->weight_bits = weight_bits;
  axis->in_size = in_size;
  axis->out_size = out_size;
  axis->scale = scale;
  axis->offset = offset;

  /* the double weights of every output first, to find the widest span;
   * out_size * bound is at most about 2 radius in_size + 2 out_size */
  bound = tap_bound (axis);
  all = malloc (sizeof (double) * out_size * bound);
  lo = malloc (sizeof (int) * out_size);
  n = malloc (sizeof (int) * out_size);
  if (!all || !lo || !n)
    goto fail;
  for (i = 0; i < out_size; i++) {
    n[i] = filter_taps (axis, i, all + (size_t) i * bound, &lo[i]);
    if (n[i] == 0)
      goto fail;
    taps = n[i] > taps ? n[i] : taps;
  }

  axis->taps = taps;
  axis->first = malloc (sizeof (int32_t) * out_size);
  axis->weights = calloc ((size_t) out_size * taps, sizeof (int32_t));
  if (!axis->first || !axis->weights)
    goto fail;
  for (i = 0; i < out_size; i++) {
    /* the span starts at lo[i], unless that would read past the end */
    const int first = lo[i] < in_size - taps ? lo[i] : in_size - taps;
    int32_t *q = axis->weights + (size_t) i * taps + (lo[i] - first);

    axis->first[i] = first;
    if (quantize (all + (size_t) i * bound, n[i], weight_bits, q) != 0)
      goto fail;
  }
  free (all);
  free (lo);
  free (n);
  return 0;

fail:
  free (all);
  free (lo);
  free (n);
  cf_resize_axis_clear (axis);
  return -1;
}

/* The plan's arranged x weights (simd_x), made and freed with its tables
 * (the SIMD section below). */
static int plan_simd_init (CfResizePlan * plan);
static void plan_simd_clear (CfResizePlan * plan);

void
cf_resize_plan_clear (CfResizePlan * plan)
{
  int p;

  if (!plan)
    return;
  plan_simd_clear (plan);
  for (p = 0; p < CF_MAX_PLANES; p++) {
    cf_resize_axis_clear (&plan->x[p]);
    cf_resize_axis_clear (&plan->y[p]);
  }
  memset (plan, 0, sizeof (*plan));
}

/* Offset of an axis of a plane subsampled by 2^@shift with luma ratio @l:
 * a co-sited chroma sample j sits on luma sample 2^shift j, a centred one
 * in the middle of its 2^shift luma samples (which is what centres aligned
 * means for every plane). */
static double
axis_offset (double l, int shift, int cosited)
{
  return cosited ? (l - 1.0) / (2 << shift) : (l - 1.0) / 2.0;
}

/* Whether the row filters are compiled for @l's layout: formats with a
 * plane of another are refused rather than guessed at. */
static int
layout_known (const CfPlaneLayout * l)
{
#define KNOWN_CASE(PB, SB) case PB * 10 + SB:
  switch (l->pixel_bytes * 10 + l->sample_bytes) {
    CF_RESIZE_LAYOUTS (KNOWN_CASE)
        return 1;
    default:
      return 0;
  }
#undef KNOWN_CASE
}

int
cf_resize_plan_init (CfResizePlan * plan, CfFormat format,
    CfResizeMethod method, int antialias, int in_width, int in_height,
    int out_width, int out_height, int chroma_cosited_h, int chroma_cosited_v)
{
  const CfFormatInfo *info = cf_format_info (format);
  double lx, ly;
  int p;

  if (!plan)
    return -1;
  memset (plan, 0, sizeof (*plan));
  if (!info || info->packed || (unsigned) method >= CF_RESIZE_METHOD_COUNT
      || in_width < 1 || in_height < 1 || out_width < 1 || out_height < 1
      || in_width > CF_MAX_SIDE || in_height > CF_MAX_SIDE
      || out_width > CF_MAX_SIDE || out_height > CF_MAX_SIDE)
    return -1;
  plan->format = format;
  plan->method = method;
  plan->antialias = antialias != 0;
  plan->in_width = in_width;
  plan->in_height = in_height;
  plan->out_width = out_width;
  plan->out_height = out_height;
  lx = (double) in_width / out_width;
  ly = (double) in_height / out_height;
  for (p = 0; p < info->n_planes; p++) {
    const CfPlaneLayout *l = &info->plane[p];
    const int bits = CF_RESIZE_WEIGHT_BITS (8 * l->sample_bytes);

    if (!layout_known (l) || cf_resize_axis_init (&plan->x[p], method,
            antialias, bits,
            cf_plane_width (format, p, in_width),
            cf_plane_width (format, p, out_width), lx,
            axis_offset (lx, l->shift_x, chroma_cosited_h)) != 0
        || cf_resize_axis_init (&plan->y[p], method, antialias, bits,
            cf_plane_height (format, p, in_height),
            cf_plane_height (format, p, out_height), ly,
            axis_offset (ly, l->shift_y, chroma_cosited_v)) != 0) {
      cf_resize_plan_clear (plan);
      return -1;
    }
  }
  if (plan_simd_init (plan) != 0) {
    cf_resize_plan_clear (plan);
    return -1;
  }
  return 0;
}

/* ---- the CPU reference ---- */

/* Whether @image is a picture of the plan's format and the given size. */
static int
image_matches (const CfResizePlan * plan, const CfImage * image, int width,
    int height)
{
  return cf_image_check (image) == 0 && image->format == plan->format
      && image->width == width && image->height == height;
}

static int
plan_ok (const CfResizePlan * plan)
{
  const CfFormatInfo *info;
  int p;

  if (!plan || !(info = cf_format_info (plan->format)))
    return 0;
  for (p = 0; p < info->n_planes; p++)
    if (!layout_known (&info->plane[p]) || !plan->x[p].weights
        || !plan->y[p].weights)
      return 0;
  return 1;
}

/* Where a plane's samples hold their values (format.h). */
typedef struct
{
  int sample_bytes;
  int lsb;
  int max;                      /* 2^bits - 1 */
} Values;

static Values
values_of (const CfFormatInfo * info, int plane)
{
  const Values v = { info->plane[plane].sample_bytes, info->lsb,
    (int) CF_FORMAT_MAX_VALUE (info)
  };

  return v;
}

/* The value of the sample at @s: an 8-bit sample is its value, the bits
 * of a 16-bit one outside its value (lsb, max) are dropped. */
static inline int
value_at (const uint8_t * s, const int sample_bytes, int lsb, int max)
{
  return sample_bytes == 2 ? (int) ((unsigned) (s[0] | s[1] << 8) >> lsb)
      & max : s[0];
}

/* One input row of a plane through the horizontal filter: @h gets
 * out_size x (@pixel_bytes / @sample_bytes) values (of @lsb, @max) of
 * CF_RESIZE_INTER_BITS fraction bits, each an integer held exactly in a
 * double (for vertical_row ()). Inlined with constant sizes (see
 * horizontal_row ()).
 *
 * 8-bit samples are summed in 32 bits, so that the channels of a pixel
 * fill a vector: resize.h bounds those sums within int32, and the sums
 * are taken modulo 2^32 (unsigned, so that a negative partial sum is no
 * overflow), which gives the exact sum when it fits. 16-bit samples take
 * 64 bits. */
static inline void
horizontal_row_of (const CfResizeAxis * ax, const uint8_t * row,
    const int pixel_bytes, const int sample_bytes, const int lsb,
    const int max, double *h)
{
  const int spp = pixel_bytes / sample_bytes, hs = H_SHIFT (ax);
  int x, t;

  /* one accumulator per sample of the pixel, named rather than in an
   * array: the compiler keeps them in a vector (the taps' sums of a group
   * of them, a reduction it vectorises) */
  for (x = 0; x < ax->out_size; x++) {
    const int32_t *w = ax->weights + (size_t) x * ax->taps;
    const uint8_t *s = row + (size_t) ax->first[x] * pixel_bytes;
    double *o = h + (size_t) x * spp;

    if (sample_bytes == 1) {
      uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;

      for (t = 0; t < ax->taps; t++, s += pixel_bytes) {
        const uint32_t wt = (uint32_t) w[t];

        a0 += wt * s[0];
        if (spp > 1)
          a1 += wt * s[1];
        if (spp > 2)
          a2 += wt * s[2];
        if (spp > 3)
          a3 += wt * s[3];
      }
#define H_ROUND(a) ((int32_t) ((a) + (1u << (hs - 1))) >> hs)
      o[0] = H_ROUND (a0);
      if (spp > 1)
        o[1] = H_ROUND (a1);
      if (spp > 2)
        o[2] = H_ROUND (a2);
      if (spp > 3)
        o[3] = H_ROUND (a3);
#undef H_ROUND
    } else {
      int64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;

      for (t = 0; t < ax->taps; t++, s += pixel_bytes) {
        const int64_t wt = w[t];

        a0 += wt * value_at (s, 2, lsb, max);
        if (spp > 1)
          a1 += wt * value_at (s + 2, 2, lsb, max);
        if (spp > 2)
          a2 += wt * value_at (s + 4, 2, lsb, max);
        if (spp > 3)
          a3 += wt * value_at (s + 6, 2, lsb, max);
      }
#define H_ROUND(a) (((a) + (INT64_C (1) << (hs - 1))) >> hs)
      o[0] = H_ROUND (a0);
      if (spp > 1)
        o[1] = H_ROUND (a1);
      if (spp > 2)
        o[2] = H_ROUND (a2);
      if (spp > 3)
        o[3] = H_ROUND (a3);
#undef H_ROUND
    }
  }
}

/* horizontal_row_of () for @l's layout, with constant lsb and max where
 * the value is the whole sample (8-bit samples, 16-bit values), so that
 * those read their samples as they are. A switch, so that the compiler
 * inlines each case (a function pointer costs 8-bit rows 7%). */
static void CF_CLONES_AVX2
horizontal_row (const CfResizeAxis * ax, const uint8_t * row,
    const CfPlaneLayout * l, const Values * v, double *h)
{
#define HORIZONTAL_CASE(PB, SB) \
    case PB * 10 + SB: \
      if (SB == 2 && (v->lsb != 0 || v->max != 0xffff)) \
        horizontal_row_of (ax, row, PB, SB, v->lsb, v->max, h); \
      else \
        horizontal_row_of (ax, row, PB, SB, 0, 0xffff, h); \
      break;
  switch (l->pixel_bytes * 10 + l->sample_bytes) {
    CF_RESIZE_LAYOUTS (HORIZONTAL_CASE)
    default:                   /* not reached: plan_ok () */
      break;
  }
#undef HORIZONTAL_CASE
}

/* Samples of an output row summed at once: their sums stay in the first
 * level of cache across the taps. */
#define V_BLOCK 512

/* One output row from the @taps intermediate rows @rows and their weights
 * @w: each value sum w h, rounded (@shift: B + I), clamped to 0 .. max and
 * shifted into its sample.
 *
 * The sums are taken in double, as vectors of the FPU do best: every
 * product is an integer below 2^23 x 2^24 (weights below 2^23, an
 * intermediate below 2^24 for 16-bit values) and every sum below 2^48,
 * so each is exact (53 bits), whatever the order of the additions or
 * whether a multiply-add is fused, and equals the int64 sum of resize.h;
 * the taps are added two at a time. The rounding is exact too:
 * (S + 2^(V - 1)) 2^-V is computed without error, and its truncation once
 * clamped to 0 .. max is the arithmetic shift's floor there. */
static void CF_CLONES_AVX2
vertical_row (const double *const *rows, const int32_t * w, int taps,
    int shift, int n, const Values * values, uint8_t * restrict out)
{
  const double half = (double) (INT64_C (1) << (shift - 1));
  const double scale = 1.0 / (double) (INT64_C (1) << shift);
  const double max = values->max;
  double acc[V_BLOCK];
  int j0, i, t;

  for (j0 = 0; j0 < n; j0 += V_BLOCK) {
    const int m = n - j0 < V_BLOCK ? n - j0 : V_BLOCK;

    for (i = 0; i < m; i++)
      acc[i] = half;
    for (t = 0; t + 1 < taps; t += 2) {
      const double w0 = w[t], w1 = w[t + 1];
      const double *restrict h0 = rows[t] + j0, *restrict h1 = rows[t + 1]
          + j0;

      for (i = 0; i < m; i++)
        acc[i] += w0 * h0[i] + w1 * h1[i];
    }
    if (t < taps) {
      const double w0 = w[t], *restrict h0 = rows[t] + j0;

      for (i = 0; i < m; i++)
        acc[i] += w0 * h0[i];
    }
    for (i = 0; i < m; i++) {
      const double v = acc[i] * scale;

      acc[i] = v < 0.0 ? 0.0 : v > max ? max : v;
    }
    if (values->sample_bytes == 1) {
      for (i = 0; i < m; i++)
        out[j0 + i] = (uint8_t) (int32_t) acc[i];
    } else {
      for (i = 0; i < m; i++) {
        const uint32_t v = (uint32_t) (int32_t) acc[i] << values->lsb;

        out[2 * (j0 + i)] = (uint8_t) v;
        out[2 * (j0 + i) + 1] = (uint8_t) (v >> 8);
      }
    }
  }
}

static size_t
round64 (size_t bytes)
{
  return (bytes + 63) / 64 * 64;
}

/* ---- 16-bit SIMD for 8-bit samples ---- */

/* The planes of 8-bit samples (in pixels of 1, 2 or 4 bytes; 3-byte ones
 * widened to 4, simd_pixel_bytes ()) whose weights
 * have at most CF_RESIZE_WEIGHT_BITS_8 bits (every such plane of a plan
 * made by cf_resize_plan_init ()) are filtered with SSE2's pmaddwd, which
 * multiplies int16 by int16 and sums each pair of products into an int32:
 * resize.h bounds the weights, the intermediate and every sum so that this
 * computes the very integers of the scalar reference above (the tests
 * compare the two byte for byte). SSE2 is part of x86-64: the code needs
 * no run-time check, and CF_CLONES_AVX2 adds an AVX2 clone of each pass
 * (the same instructions, VEX-encoded, with broadcasts from memory).
 *
 * - Horizontal, per output pixel: each multiply-add takes 8 bytes of input
 *   (2 pixels of 4 bytes, 4 of 2, 8 of 1), widened to int16 and arranged so
 *   that each pair of lanes holds two taps of one sample, against 8
 *   weights arranged alike once per plan (SimdWeights, the plan's simd_x). The int32 sums of a
 *   pixel's samples are then folded, rounded, and stored as int16: the
 *   intermediate rows are int16 here (doubles in the reference).
 * - Vertical: the int16 rows through simd16.h's vertical loop (shared
 *   with the stencil: two rows interleaved against their two weights, so
 *   each multiply-add sums two taps, rounded and clamped to 0 .. 255 by
 *   the saturating packs), in the CPU's best set (SSE2 .. AVX-512), the
 *   last samples of a row by vertical_tail ().
 * - On a CPU with AVX2 (a run-time check, so baseline builds run
 *   everywhere) 4-byte pixels (RGBA and kin) take the horizontal
 *   avx2_horizontal_row4 (): two outputs per 256-bit multiply-add, one
 *   byte shuffle where the 128-bit code needs three; with 2 taps, four
 *   outputs whose pixels lie within 8 take one 32-byte load and a permute
 *   (avx2_quads ()).
 *   CF_RESIZE_CPU_SIMD128 keeps the baseline's 128-bit code in both
 *   passes, for the tests. */
/* The pixel size the SIMD code filters a plane of @pb-byte pixels at:
 * 3-byte pixels (RGB, BGR) are widened to 4 bytes, each input row before
 * its horizontal pass (widen_row ()), and narrowed back after the vertical
 * one (narrow_row ()); the fourth sample is filtered and dropped. */
static inline int
simd_pixel_bytes (int pb)
{
  return pb == 3 ? 4 : pb;
}

#if defined (__x86_64__) || (defined (__i386__) && defined (__SSE2__))
#define CF_RESIZE_SIMD 1
#include <emmintrin.h>

/* The helpers of the passes are inlined into each clone (clones.h): one
 * left out of line would be the baseline's code in the AVX2 clone too. */
#if defined (__GNUC__)
#define SIMD_INLINE static inline __attribute__ ((always_inline))
#else
#define SIMD_INLINE static inline
#endif

/* Input row @in of @n 3-byte pixels as 4-byte ones at @out (the fourth
 * byte 0). */
static void
widen_row (const uint8_t * restrict in, int n, uint8_t * restrict out)
{
  int i;

  for (i = 0; i < n; i++, in += 3, out += 4) {
    out[0] = in[0];
    out[1] = in[1];
    out[2] = in[2];
    out[3] = 0;
  }
}

/* @n 4-byte pixels at @in as 3-byte ones at @out. */
static void
narrow_row (const uint8_t * restrict in, int n, uint8_t * restrict out)
{
  int i;

  for (i = 0; i < n; i++, in += 4, out += 3) {
    out[0] = in[0];
    out[1] = in[1];
    out[2] = in[2];
  }
}

/* How far ahead of its reads the horizontal pass prefetches the input row:
 * the hardware's prefetchers start late on each row, and the pass waited
 * on memory for half its time without this (4K RGBA to 1080p on one Zen 4
 * core: 6.1 -> 4.0 ms for bilinear without antialias; 1 to 8 KiB all
 * helped). Prefetches past the row's end do no harm. */
#define PREFETCH_BYTES 2048

/* Prefetches PREFETCH_BYTES past @p (an address, not a pointer into the
 * row: it may lie past the end of the picture). */
SIMD_INLINE void
prefetch_ahead (const uint8_t * p)
{
  _mm_prefetch ((const char *) ((uintptr_t) p + PREFETCH_BYTES),
      _MM_HINT_T0);
}

/* The x weights of a plane in the order the multiply-adds read them:
 * per output sample, `halves` vectors of 8 int16, one per 8 input bytes;
 * lanes past the taps are 0. */
typedef struct CfResizeSimdWeights
{
  int halves;
  int direct;                   /* outputs 0 .. direct - 1 read their
                                 * halves x 8 bytes within the row */
  int direct16;                 /* ... and 8 more (AVX2's 16-byte loads) */
  /* 4-byte pixels, 1 half (2 taps): outputs 0 .. quads - 1 (a multiple of
   * 4) read their pixels in groups of 4 outputs from 8 pixels (32 bytes)
   * within the row from the group's first[]; quad_perm, per group, the
   * pixels' order for avx2_quads () */
  int quads;
  int32_t *quad_perm;           /* [quads / 4][8], 32-byte aligned */
  int16_t *w;                   /* [out_size][halves][8], 16-byte aligned */
  /* 4-byte pixels: the same per pair of outputs x, x + 1 (x even), half j
   * of both side by side, as avx2_pair () reads them:
   * [out_size / 2][halves][2][8], 32-byte aligned */
  int16_t *w_pairs;
} SimdWeights;

/* The pixel (tap, relative to the first of the 8 bytes) whose sample lane
 * @l of an arranged vector holds, for @pb-byte pixels: see arrange (). */
static int
lane_pixel (int pb, int l)
{
  return pb == 4 ? l & 1 : pb == 2 ? (l >> 2) * 2 + (l & 1) : l;
}

static void
simd_weights_clear (SimdWeights * sw)
{
  free (sw->w);
  free (sw->quad_perm);
  free (sw->w_pairs);
  sw->w = NULL;
  sw->quad_perm = NULL;
  sw->w_pairs = NULL;
}

/* Whether outputs @x .. @x + 3 of @ax (2 taps) read their pixels from the
 * 8 at first[x], all within the row. */
static int
quad_fits (const CfResizeAxis * ax, int x)
{
  int k;

  if (x + 3 >= ax->out_size || (int64_t) ax->first[x] + 8 > ax->in_size)
    return 0;
  for (k = 1; k < 4; k++)
    if (ax->first[x + k] < ax->first[x] || ax->first[x + k] + 1 -
        ax->first[x] >= 8)
      return 0;
  return 1;
}

/* Arranges @ax's weights for @pb-byte pixels. Returns 0 or -1 (no
 * memory). */
static int
simd_weights_init (SimdWeights * sw, const CfResizeAxis * ax, int pb)
{
  const int per_half = 8 / pb;
  size_t bytes;
  int x, j, l;

  sw->halves = (ax->taps + per_half - 1) / per_half;
  bytes = (size_t) ax->out_size * sw->halves * 8 * sizeof (int16_t);
  sw->w = aligned_alloc (64, round64 (bytes));
  if (!sw->w)
    return -1;
  for (x = 0; x < ax->out_size; x++)
    for (j = 0; j < sw->halves; j++)
      for (l = 0; l < 8; l++) {
        const int t = j * per_half + lane_pixel (pb, l);

        sw->w[((size_t) x * sw->halves + j) * 8 + l] = (int16_t)
            (t < ax->taps ? ax->weights[(size_t) x * ax->taps + t] : 0);
      }
  for (sw->direct = 0; sw->direct < ax->out_size; sw->direct++)
    if ((int64_t) ax->first[sw->direct] * pb + 8 * sw->halves >
        (int64_t) ax->in_size * pb)
      break;
  for (sw->direct16 = 0; sw->direct16 < sw->direct; sw->direct16++)
    if ((int64_t) ax->first[sw->direct16] * pb + 8 * sw->halves + 8 >
        (int64_t) ax->in_size * pb)
      break;
  sw->quads = 0;
  sw->quad_perm = NULL;
  sw->w_pairs = NULL;
  if (pb != 4)
    return 0;
  bytes = round64 ((size_t) (ax->out_size + 1) / 2 * sw->halves * 16 *
      sizeof (int16_t));
  sw->w_pairs = aligned_alloc (64, bytes);
  if (!sw->w_pairs)
    return -1;
  memset (sw->w_pairs, 0, bytes);       /* an odd last output's partner */
  for (x = 0; x < ax->out_size; x++)
    for (j = 0; j < sw->halves; j++)
      memcpy (sw->w_pairs + (((size_t) (x / 2) * sw->halves + j) * 2 +
              x % 2) * 8, sw->w + ((size_t) x * sw->halves + j) * 8,
          8 * sizeof (int16_t));
  /* groups of 4 outputs whose two pixels each lie in the 8 from the
   * group's first (downscales up to 2x and upscales) */
  if (sw->halves != 1)
    return 0;
  while (quad_fits (ax, sw->quads))
    sw->quads += 4;
  if (sw->quads == 0)
    return 0;
  sw->quad_perm = aligned_alloc (64, round64 ((size_t) sw->quads * 2 *
          sizeof (int32_t)));
  if (!sw->quad_perm) {
    sw->quads = 0;
    return -1;
  }
  for (x = 0; x < sw->quads; x += 4) {
    /* the 128-bit lanes: outputs x and x + 2 | x + 1 and x + 3, each as
     * its two pixels */
    static const int order[4] = { 0, 2, 1, 3 };

    for (j = 0; j < 4; j++) {
      const int d = ax->first[x + order[j]] - ax->first[x];

      sw->quad_perm[2 * x + 2 * j] = d;
      sw->quad_perm[2 * x + 2 * j + 1] = d + 1;
    }
  }
  return 0;
}

/* The 8 bytes of input in the low half of @v, widened to int16 so that
 * lanes 2k and 2k + 1 hold the same sample of two pixels (the pairs that
 * pmaddwd sums):
 * - 4-byte pixels a b: a0 b0 a1 b1 a2 b2 a3 b3 (one pixel's 4 sums);
 * - 2-byte pixels a b c d: a0 b0 a1 b1 c0 d0 c1 d1 (two partial sums of
 *   each of the 2 samples);
 * - 1-byte pixels: as they are (four partial sums). */
SIMD_INLINE __m128i
arrange (__m128i v, const int pb)
{
  if (pb == 4)
    v = _mm_unpacklo_epi8 (v, _mm_srli_si128 (v, 4));
  else if (pb == 2)
    v = _mm_shuffle_epi32 (_mm_unpacklo_epi8 (v, _mm_srli_si128 (v, 2)),
        _MM_SHUFFLE (3, 1, 2, 0));
  return _mm_unpacklo_epi8 (v, _mm_setzero_si128 ());
}

/* The multiply-adds of one output whose @halves x 8 bytes from @s all lie
 * within the row (@tail: those that do not, read from a zero-padded copy of
 * the row's last bytes; @end: the row's end), two chains of sums; the
 * partial sums of its samples, still to be folded. */
SIMD_INLINE __m128i
simd_tap (const uint8_t * s, const __m128i * w, const int pb, const int tail,
    const uint8_t * end)
{
  __m128i v;

  if (tail && s + 8 > end) {
    uint8_t last[8] = { 0 };

    if (end > s)
      memcpy (last, s, end - s);
    v = _mm_loadl_epi64 ((const __m128i *) last);
  } else {
    v = _mm_loadl_epi64 ((const __m128i *) s);
  }
  return _mm_madd_epi16 (arrange (v, pb), _mm_load_si128 (w));
}

SIMD_INLINE __m128i
simd_taps (const uint8_t * s, const __m128i * w, const int halves,
    const int pb, const int tail, const uint8_t * end)
{
  __m128i a = _mm_setzero_si128 (), b = _mm_setzero_si128 ();
  int j;

  for (j = 0; j + 1 < halves; j += 2) {
    a = _mm_add_epi32 (a, simd_tap (s + 8 * j, w + j, pb, tail, end));
    b = _mm_add_epi32 (b, simd_tap (s + 8 * j + 8, w + j + 1, pb, tail,
            end));
  }
  if (j < halves)
    a = _mm_add_epi32 (a, simd_tap (s + 8 * j, w + j, pb, tail, end));
  return _mm_add_epi32 (a, b);
}

/* The partial sums @acc of a pixel's samples folded into the low lanes
 * (one per sample): 2-byte pixels summed their taps in two halves, 1-byte
 * pixels in four. */
SIMD_INLINE __m128i
fold (__m128i acc, const int pb)
{
  if (pb <= 2)
    acc = _mm_add_epi32 (acc, _mm_srli_si128 (acc, 8));
  if (pb == 1)
    acc = _mm_add_epi32 (acc, _mm_srli_si128 (acc, 4));
  return acc;
}

/* Outputs @x0 .. @x1 - 1 of one input row into @h (int16), @halves
 * multiply-adds each (a constant where inlined so), @tail as simd_taps ()
 * says. Two outputs at a time: 4-byte pixels store 8 int16 at once, 2-byte
 * ones 4. */
SIMD_INLINE void
simd_outputs (const CfResizeAxis * ax, const SimdWeights * sw,
    const uint8_t * row, const int pb, const int halves, const int tail,
    int x0, int x1, int16_t * h)
{
  const uint8_t *end = row + (size_t) ax->in_size * pb;
  const __m128i bias = _mm_set1_epi32 (1 << (H_SHIFT (ax) - 1));
  const __m128i shift = _mm_cvtsi32_si128 (H_SHIFT (ax));
  const __m128i *w = (const __m128i *) sw->w;
  int x = x0;

  for (; pb > 1 && x + 1 < x1; x += 2) {
    prefetch_ahead (row + (size_t) ax->first[x] * pb);
    __m128i a = fold (simd_taps (row + (size_t) ax->first[x] * pb,
            w + (size_t) x * halves, halves, pb, tail, end), pb);
    __m128i b = fold (simd_taps (row + (size_t) ax->first[x + 1] * pb,
            w + (size_t) (x + 1) * halves, halves, pb, tail, end), pb);

    if (pb == 2) {              /* the two samples of each in one vector */
      a = _mm_unpacklo_epi64 (a, b);
      a = _mm_sra_epi32 (_mm_add_epi32 (a, bias), shift);
      _mm_storel_epi64 ((__m128i *) (h + 2 * x), _mm_packs_epi32 (a, a));
    } else {
      a = _mm_sra_epi32 (_mm_add_epi32 (a, bias), shift);
      b = _mm_sra_epi32 (_mm_add_epi32 (b, bias), shift);
      _mm_storeu_si128 ((__m128i *) (h + 4 * x), _mm_packs_epi32 (a, b));
    }
  }
  for (; x < x1; x++) {
    if (pb == 1 && x % 16 == 0)
      prefetch_ahead (row + ax->first[x]);
    __m128i a = fold (simd_taps (row + (size_t) ax->first[x] * pb,
            w + (size_t) x * halves, halves, pb, tail, end), pb);
    int32_t v;

    a = _mm_sra_epi32 (_mm_add_epi32 (a, bias), shift);
    a = _mm_packs_epi32 (a, a);
    if (pb == 4) {
      _mm_storel_epi64 ((__m128i *) (h + 4 * x), a);
    } else if (pb == 2) {
      v = _mm_cvtsi128_si32 (a);
      memcpy (h + 2 * x, &v, 4);
    } else {
      h[x] = (int16_t) _mm_cvtsi128_si32 (a);
    }
  }
}

/* One input row through the horizontal filter into @h (int16), for
 * @pb-byte pixels. The outputs before sw->direct read their input
 * directly, with the multiply-adds unrolled for the common tap counts; the
 * others (near the row's end) read within the row. */
SIMD_INLINE void
simd_horizontal_row_of (const CfResizeAxis * ax, const SimdWeights * sw,
    const uint8_t * row, const int pb, int16_t * h)
{
  const int d = sw->direct;

  switch (sw->halves) {
    case 1:
      simd_outputs (ax, sw, row, pb, 1, 0, 0, d, h);
      break;
    case 2:
      simd_outputs (ax, sw, row, pb, 2, 0, 0, d, h);
      break;
    case 3:
      simd_outputs (ax, sw, row, pb, 3, 0, 0, d, h);
      break;
    case 4:
      simd_outputs (ax, sw, row, pb, 4, 0, 0, d, h);
      break;
    default:
      simd_outputs (ax, sw, row, pb, sw->halves, 0, 0, d, h);
      break;
  }
  simd_outputs (ax, sw, row, pb, sw->halves, 1, d, ax->out_size, h);
}

/* simd_horizontal_row_of () for @pb-byte pixels (1, 2 or 4), each case
 * inlined with its constant. */
static void CF_CLONES_AVX2
simd_horizontal_row (const CfResizeAxis * ax, const SimdWeights * sw,
    const uint8_t * row, int pb, int16_t * h)
{
  if (pb == 4)
    simd_horizontal_row_of (ax, sw, row, 4, h);
  else if (pb == 2)
    simd_horizontal_row_of (ax, sw, row, 2, h);
  else
    simd_horizontal_row_of (ax, sw, row, 1, h);
}

#if defined (__x86_64__) && defined (__GNUC__) && defined (__has_attribute)
#if __has_attribute (target)
#define CF_RESIZE_AVX2 1
#include <immintrin.h>

/* 4-byte pixels on AVX2, two outputs per 256-bit multiply-add: each
 * 128-bit lane takes one output's 16 input bytes (so only the outputs
 * before sw->direct16), arranged 8 at a time by one byte shuffle (vpshufb:
 * zero-extended, the two taps of each sample side by side, as arrange ()
 * does in three), against that output's weights; four outputs are rounded,
 * packed and stored at once. The same integers as simd_outputs (), which
 * makes the rest of the row. Called only where the CPU has AVX2
 * (cf_resize_cpu_path ()). */
/* The byte shuffle that arranges the 8 bytes from @from of each 128-bit
 * lane (two 4-byte pixels a b) as arrange () does: a0 b0 a1 b1 a2 b2 a3
 * b3, zero-extended to int16. */
__attribute__ ((target ("avx2"), always_inline))
static inline __m256i
avx2_arrange (const char from)
{
  const __m128i order = _mm_add_epi8 (_mm_setr_epi8 (0, -128, 4, -128, 1,
          -128, 5, -128, 2, -128, 6, -128, 3, -128, 7, -128),
      _mm_set1_epi8 (from));

  return _mm256_broadcastsi128_si256 (order);
}

/* Outputs @x and @x + 1 (@x even): their @halves multiply-adds, biased,
 * shifted. Each 16-byte load (4 pixels of each output) serves two halves,
 * the low 8 bytes through one shuffle, the high 8 through the other, and
 * the weights of both outputs come as one vector (sw->w_pairs). */
__attribute__ ((target ("avx2"), always_inline))
static inline __m256i
avx2_pair (const CfResizeAxis * ax, const __m256i * wp, const uint8_t * row,
    const int halves, int x, __m256i bias, __m128i shift)
{
  const __m256i lo = avx2_arrange (0), hi = avx2_arrange (8);
  const uint8_t *sa = row + (size_t) ax->first[x] * 4;
  const uint8_t *sb = row + (size_t) ax->first[x + 1] * 4;
  const __m256i *w = wp + (size_t) (x / 2) * halves;
  __m256i a = bias;
  int j;

  for (j = 0; j < halves; j += 2) {
    const __m256i v = _mm256_inserti128_si256 (_mm256_castsi128_si256
        (_mm_loadu_si128 ((const __m128i *) (sa + 8 * j))),
        _mm_loadu_si128 ((const __m128i *) (sb + 8 * j)), 1);

    a = _mm256_add_epi32 (a, _mm256_madd_epi16 (_mm256_shuffle_epi8 (v, lo),
            _mm256_load_si256 (w + j)));
    if (j + 1 < halves)
      a = _mm256_add_epi32 (a, _mm256_madd_epi16 (_mm256_shuffle_epi8 (v,
                  hi), _mm256_load_si256 (w + j + 1)));
  }
  return _mm256_sra_epi32 (a, shift);
}

/* Outputs 0 .. sw->quads - 1 of one row (2 taps), four at a time from one
 * 32-byte load: one permute puts each output's two pixels in place (as
 * quad_perm says; the 128-bit lanes take outputs x and x + 2 | x + 1 and
 * x + 3), two byte shuffles arrange them as avx2_pair () does, and the
 * multiply-adds, rounding and stores are avx2_outputs4 ()'s: the same
 * integers, half the loads and shuffles. Returns sw->quads. */
__attribute__ ((target ("avx2")))
static int
avx2_quads (const CfResizeAxis * ax, const SimdWeights * sw,
    const uint8_t * row, int16_t * h)
{
  const __m256i lo = avx2_arrange (0), hi = avx2_arrange (8);
  const __m256i bias = _mm256_set1_epi32 (1 << (H_SHIFT (ax) - 1));
  const __m128i shift = _mm_cvtsi32_si128 (H_SHIFT (ax));
  const __m256i *w = (const __m256i *) sw->w;
  const __m256i *perm = (const __m256i *) sw->quad_perm;
  int x;

  for (x = 0; x < sw->quads; x += 4) {
    const uint8_t *s = row + (size_t) ax->first[x] * 4;
    const __m256i v = _mm256_permutevar8x32_epi32 (_mm256_loadu_si256
        ((const __m256i *) s), _mm256_load_si256 (perm + x / 4));
    __m256i a = _mm256_add_epi32 (bias, _mm256_madd_epi16
        (_mm256_shuffle_epi8 (v, lo), _mm256_load_si256 (w + x / 2)));
    __m256i b = _mm256_add_epi32 (bias, _mm256_madd_epi16
        (_mm256_shuffle_epi8 (v, hi), _mm256_load_si256 (w + x / 2 + 1)));

    prefetch_ahead (s);
    a = _mm256_sra_epi32 (a, shift);
    b = _mm256_sra_epi32 (b, shift);
    _mm256_storeu_si256 ((__m256i *) (h + 4 * x),
        _mm256_permute4x64_epi64 (_mm256_packs_epi32 (a, b),
            _MM_SHUFFLE (3, 1, 2, 0)));
  }
  return x;
}

/* Outputs @x0 .. sw->direct16 rounded down to 4 of one row (@x0 a
 * multiple of 4), @halves multiply-adds each (a constant where inlined
 * so); returns how far it got. */
__attribute__ ((target ("avx2"), always_inline))
static inline int
avx2_outputs4 (const CfResizeAxis * ax, const SimdWeights * sw,
    const uint8_t * row, const int halves, int x0, int16_t * h)
{
  const __m256i bias = _mm256_set1_epi32 (1 << (H_SHIFT (ax) - 1));
  const __m128i shift = _mm_cvtsi32_si128 (H_SHIFT (ax));
  const __m256i *w = (const __m256i *) sw->w_pairs;
  int x;

  for (x = x0; x + 3 < sw->direct16; x += 4) {
    const __m256i a = avx2_pair (ax, w, row, halves, x, bias, shift);
    const __m256i b = avx2_pair (ax, w, row, halves, x + 2, bias, shift);

    prefetch_ahead (row + (size_t) ax->first[x] * 4);

    /* lanes: x, x + 2 | x + 1, x + 3, back into order */
    _mm256_storeu_si256 ((__m256i *) (h + 4 * x),
        _mm256_permute4x64_epi64 (_mm256_packs_epi32 (a, b),
            _MM_SHUFFLE (3, 1, 2, 0)));
  }
  return x;
}

__attribute__ ((target ("avx2")))
static void
avx2_horizontal_row4 (const CfResizeAxis * ax, const SimdWeights * sw,
    const uint8_t * row, int16_t * h)
{
  int x;

  switch (sw->halves) {
    case 1:
      x = avx2_outputs4 (ax, sw, row, 1, avx2_quads (ax, sw, row, h), h);
      break;
    case 2:
      x = avx2_outputs4 (ax, sw, row, 2, 0, h);
      break;
    case 3:
      x = avx2_outputs4 (ax, sw, row, 3, 0, h);
      break;
    case 4:
      x = avx2_outputs4 (ax, sw, row, 4, 0, h);
      break;
    default:
      x = avx2_outputs4 (ax, sw, row, sw->halves, 0, h);
      break;
  }
  simd_outputs (ax, sw, row, 4, sw->halves, 0, x, sw->direct, h);
  simd_outputs (ax, sw, row, 4, sw->halves, 1, sw->direct, ax->out_size, h);
}

#endif
#endif

/* Samples @j0 .. @n - 1 of an output row from the @taps int16 rows @rows
 * and weights @w: the samples simd16.h's vertical loop leaves (less than a
 * vector), or all of them where there is no set. The same exact int32
 * sums, rounding and clamp. */
static void
vertical_tail (const int16_t * const *rows, const int32_t * w, int taps,
    int shift, int j0, int n, uint8_t * out)
{
  int j, t;

  for (j = j0; j < n; j++) {
    int32_t sum = 1 << (shift - 1), v;

    for (t = 0; t < taps; t++)
      sum += w[t] * rows[t][j];
    v = sum >> shift;
    out[j] = (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
  }
}
#endif /* SIMD */

/* Whether plane @p of @plan takes the SIMD path (see above). */
static int
plane_simd (const CfResizePlan * plan, int p)
{
#ifdef CF_RESIZE_SIMD
  const CfPlaneLayout *l = &cf_format_info (plan->format)->plane[p];

  return l->sample_bytes == 1
      && plan->x[p].weight_bits <= CF_RESIZE_WEIGHT_BITS_8
      && plan->y[p].weight_bits <= CF_RESIZE_WEIGHT_BITS_8;
#else
  (void) plan;
  (void) p;
  return 0;
#endif
}

unsigned
cf_resize_cpu_simd_planes (const CfResizePlan * plan)
{
  unsigned mask = 0;
  int p;

  if (!plan_ok (plan))
    return 0;
  for (p = 0; p < cf_format_info (plan->format)->n_planes; p++)
    mask |= plane_simd (plan, p) && plan->simd_x[p] ? 1u << p : 0;
  return mask;
}

static void
plan_simd_clear (CfResizePlan * plan)
{
  int p;

  for (p = 0; p < CF_MAX_PLANES; p++) {
#ifdef CF_RESIZE_SIMD
    if (plan->simd_x[p])
      simd_weights_clear (plan->simd_x[p]);
#endif
    free (plan->simd_x[p]);
    plan->simd_x[p] = NULL;
  }
}

/* Arranges the x weights of the planes the SIMD path scales, once per
 * plan. Returns 0, or -1 when memory runs out. */
static int
plan_simd_init (CfResizePlan * plan)
{
#ifdef CF_RESIZE_SIMD
  const CfFormatInfo *info = cf_format_info (plan->format);
  int p;

  for (p = 0; p < info->n_planes; p++) {
    if (!plane_simd (plan, p))
      continue;
    plan->simd_x[p] = calloc (1, sizeof (SimdWeights));
    if (!plan->simd_x[p] || simd_weights_init (plan->simd_x[p], &plan->x[p],
            simd_pixel_bytes (info->plane[p].pixel_bytes)) != 0)
      return -1;
  }
#else
  (void) plan;
#endif
  return 0;
}

/* ---- bands of output rows ---- */

/* The working memory of one band of one plane: a ring of ay->taps
 * intermediate rows (doubles, or int16 on the SIMD path, each row
 * 64-byte aligned and, for SIMD, padded to whole vectors), the input row
 * each slot of the ring holds, the rows an output row sums, in tap order,
 * and (SIMD) the vertical weights of a row in pairs. */
typedef struct
{
  uint8_t *ring;
  size_t row_bytes;
  int *held;
  const void **rows;
  int32_t *pairs;               /* [(taps + 1) / 2]: simd16.h's weight
                                 * pairs */
  uint8_t *wide_in, *wide_out;  /* SIMD, 3-byte pixels: an input row and an
                                 * output row widened to 4 (64-byte
                                 * aligned) */
} Scratch;

/* Samples of a row of plane @p's output. */
static int
row_samples (const CfResizePlan * plan, int p)
{
  const CfPlaneLayout *l = &cf_format_info (plan->format)->plane[p];

  return plan->x[p].out_size * (l->pixel_bytes / l->sample_bytes);
}

/* Bytes of a Scratch for plane @p (@simd: its path), or its layout at
 * @mem (when not NULL). */
static size_t
scratch_layout (const CfResizePlan * plan, int p, int simd, uint8_t * mem,
    Scratch * sc)
{
  const CfPlaneLayout *l = &cf_format_info (plan->format)->plane[p];
  const int wide = simd && l->pixel_bytes == 3;
  const size_t n = wide ? (size_t) plan->x[p].out_size * 4 :
      (size_t) row_samples (plan, p), taps = plan->y[p].taps;
  const size_t row = simd ? round64 (sizeof (int16_t) * ((n + 15) / 16 * 16))
      : round64 (sizeof (double) * n);
  const size_t held = round64 (sizeof (int) * taps);
  const size_t rows = round64 (sizeof (void *) * taps);
  const size_t pairs = round64 (sizeof (int32_t) * ((taps + 1) / 2));
  const size_t wide_in = wide ? round64 ((size_t) plan->x[p].in_size * 4) :
      0;
  const size_t wide_out = wide ? round64 (n) : 0;

  if (mem) {
    sc->ring = mem;
    sc->row_bytes = row;
    sc->held = (int *) (mem + row * taps);
    sc->rows = (const void **) (mem + row * taps + held);
    sc->pairs = (int32_t *) (mem + row * taps + held + rows);
    sc->wide_in = wide ? mem + row * taps + held + rows + pairs : NULL;
    sc->wide_out = wide ? sc->wide_in + wide_in : NULL;
  }
  return row * taps + held + rows + pairs + wide_in + wide_out;
}

/* One call: the band of every plane that each part scales. */
typedef struct
{
  const CfResizePlan *plan;
  const CfImage *src, *dst;
  int n_planes, n_parts;
  unsigned simd;                /* planes on the SIMD path */
  int avx2;                     /* AVX2's horizontal code for 4-byte pixels */
  const CfSimd16 *vset;         /* the vertical loops there, or NULL */
  uint8_t *scratch;             /* [n_parts][part_bytes], 64-byte aligned */
  size_t part_bytes;
} ResizeJob;

/* Output rows @y0 .. @y1 - 1 of plane @p. The ring starts empty, so a band
 * filters the input rows it needs itself (the taps - 1 rows it shares with
 * the band before are filtered twice). */
static void
resize_band (const ResizeJob * job, int p, int y0, int y1,
    const Scratch * sc)
{
  const CfResizePlan *plan = job->plan;
  const CfFormatInfo *info = cf_format_info (plan->format);
  const CfPlaneLayout *l = &info->plane[p];
  const Values values = values_of (info, p);
  const CfResizeAxis *ax = &plan->x[p], *ay = &plan->y[p];
  const int simd = job->simd >> p & 1;
  /* 3-byte pixels on the SIMD path: filtered as 4-byte ones */
  const int wide = simd && l->pixel_bytes == 3;
  const int pb = simd ? simd_pixel_bytes (l->pixel_bytes) : l->pixel_bytes;
  const int n = wide ? ax->out_size * 4 : row_samples (plan, p);
  int y, t;

  if (simd)                     /* the padding of the rows, never stored */
    memset (sc->ring, 0, sc->row_bytes * ay->taps);
  for (t = 0; t < ay->taps; t++)
    sc->held[t] = -1;
  for (y = y0; y < y1; y++) {
    const int32_t *w = ay->weights + (size_t) y * ay->taps;
    uint8_t *out = (uint8_t *) job->dst->data[p] +
        (size_t) y * job->dst->pitch[p];

    for (t = 0; t < ay->taps; t++) {
      const int r = ay->first[y] + t, slot = r % ay->taps;
      const uint8_t *in = (const uint8_t *) job->src->data[p] +
          (size_t) r * job->src->pitch[p];
      uint8_t *h = sc->ring + sc->row_bytes * slot;

      if (sc->held[slot] != r) {
#ifdef CF_RESIZE_SIMD
        if (wide) {
          widen_row (in, ax->in_size, sc->wide_in);
          in = sc->wide_in;
        }
#endif
#ifdef CF_RESIZE_AVX2
        if (simd && job->avx2 && pb == 4)
          avx2_horizontal_row4 (ax, plan->simd_x[p], in, (int16_t *) h);
        else
#endif
#ifdef CF_RESIZE_SIMD
        if (simd)
          simd_horizontal_row (ax, plan->simd_x[p], in, pb, (int16_t *) h);
        else
#endif
          horizontal_row (ax, in, l, &values, (double *) h);
        sc->held[slot] = r;
      }
      sc->rows[t] = h;
    }
#ifdef CF_RESIZE_SIMD
    if (simd) {
      const int16_t *const *rows = (const int16_t * const *) sc->rows;
      uint8_t *o = wide ? sc->wide_out : out;
      int done = 0;

      for (t = 0; t < ay->taps; t += 2)
        sc->pairs[t / 2] = (int32_t) ((uint16_t) w[t] |
            (uint32_t) (t + 1 < ay->taps ? w[t + 1] : 0) << 16);
      if (job->vset)
        done = job->vset->vpass (rows, sc->pairs, ay->taps, n,
            1 << (V_SHIFT (ay) - 1), V_SHIFT (ay), o);
      vertical_tail (rows, w, ay->taps, V_SHIFT (ay), done, n, o);
      if (wide)
        narrow_row (o, ax->out_size, out);
      continue;
    }
#endif
    vertical_row ((const double *const *) sc->rows, w, ay->taps,
        V_SHIFT (ay), n, &values, out);
  }
}

static void
resize_part (void *data, int part)
{
  const ResizeJob *job = data;
  int p;

  for (p = 0; p < job->n_planes; p++) {
    const int rows = job->plan->y[p].out_size;
    Scratch sc;

    scratch_layout (job->plan, p, job->simd >> p & 1,
        job->scratch + job->part_bytes * part, &sc);
    resize_band (job, p, cf_parallel_split (rows, job->n_parts, part),
        cf_parallel_split (rows, job->n_parts, part + 1), &sc);
  }
}

int
cf_resize_cpu_path (const CfResizePlan * plan, const CfImage * src,
    const CfImage * dst, int n_threads, CfResizeCpuPath path)
{
  ResizeJob job;
  int p;

  if (!plan_ok (plan)
      || !image_matches (plan, src, plan->in_width, plan->in_height)
      || !image_matches (plan, dst, plan->out_width, plan->out_height)
      || (path != CF_RESIZE_CPU_AUTO && path != CF_RESIZE_CPU_SCALAR &&
          path != CF_RESIZE_CPU_SIMD128))
    return -1;
  memset (&job, 0, sizeof (job));
  job.plan = plan;
  job.src = src;
  job.dst = dst;
  job.n_planes = cf_format_info (plan->format)->n_planes;
  job.simd = path != CF_RESIZE_CPU_SCALAR ?
      cf_resize_cpu_simd_planes (plan) : 0;
#ifdef CF_RESIZE_AVX2
  job.avx2 = path == CF_RESIZE_CPU_AUTO && __builtin_cpu_supports ("avx2");
#endif
  /* the CPU's best vertical loops; SIMD128: the baseline's */
  job.vset = cf_simd16_select (path == CF_RESIZE_CPU_AUTO ? NULL : "sse2");
  /* bands of the output's rows: the first plane has the most */
  job.n_parts = cf_parallel_parts (n_threads, plan->out_height);
  for (p = 0; p < job.n_planes; p++) {
    const size_t bytes = scratch_layout (plan, p, job.simd >> p & 1, NULL,
        NULL);

    job.part_bytes = bytes > job.part_bytes ? bytes : job.part_bytes;
  }
  job.scratch = aligned_alloc (64, job.part_bytes * job.n_parts);
  if (!job.scratch)
    return -1;
  cf_parallel_for (n_threads, job.n_parts, resize_part, &job);
  free (job.scratch);
  return 0;
}

int
cf_resize_cpu_threads (const CfResizePlan * plan, const CfImage * src,
    const CfImage * dst, int n_threads)
{
  return cf_resize_cpu_path (plan, src, dst, n_threads, CF_RESIZE_CPU_AUTO);
}

int
cf_resize_cpu (const CfResizePlan * plan, const CfImage * src,
    const CfImage * dst)
{
  return cf_resize_cpu_threads (plan, src, dst, 1);
}

/* ---- the float64 model ---- */

double
cf_resize_model (const CfResizePlan * plan, const CfImage * src, int plane,
    int x, int y, int k)
{
  const CfPlaneLayout *l;
  Values values;
  const CfResizeAxis *ax, *ay;
  double *wx, *wy, sum = NAN;
  int x0, y0, nx, ny, i, j;

  if (!plan_ok (plan)
      || !image_matches (plan, src, plan->in_width, plan->in_height)
      || plane < 0 || plane >= cf_format_info (plan->format)->n_planes)
    return NAN;
  l = &cf_format_info (plan->format)->plane[plane];
  values = values_of (cf_format_info (plan->format), plane);
  ax = &plan->x[plane];
  ay = &plan->y[plane];
  if (x < 0 || x >= ax->out_size || y < 0 || y >= ay->out_size || k < 0
      || k >= l->pixel_bytes / l->sample_bytes)
    return NAN;

  wx = malloc (sizeof (double) * tap_bound (ax));
  wy = malloc (sizeof (double) * tap_bound (ay));
  if (wx && wy && (nx = filter_taps (ax, x, wx, &x0))
      && (ny = filter_taps (ay, y, wy, &y0))) {
    sum = 0.0;
    for (j = 0; j < ny; j++) {
      const uint8_t *row = (const uint8_t *) src->data[plane] +
          (size_t) (y0 + j) * src->pitch[plane] + k * l->sample_bytes;
      double h = 0.0;

      for (i = 0; i < nx; i++)
        h += wx[i] * value_at (row + (size_t) (x0 + i) * l->pixel_bytes,
            l->sample_bytes, values.lsb, values.max);
      sum += wy[j] * h;
    }
  }
  free (wx);
  free (wy);
  return sum;
}
