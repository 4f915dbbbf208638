/* Plans for kernels/stencil.cu, the CPU reference, and the float64 model
 * (see stencil.h).
 *
 * cf_stencil_plan_init () turns the taps into the fixed-point weights both
 * backends use. cf_stencil_cpu () works row by row on each plane, on the
 * values the samples hold (load_row (), store_row ()), in exact sums: of 32
 * bits where a bound computed from the weights allows (as the GPU does;
 * 8-bit rows always, the columns of 8-bit blurs), of 64 otherwise. The sums
 * run along a row (sum_rows32 (), sum_rows64 ()), every output sample a
 * lane of the vectors the compiler makes of them:
 * - HORIZONTAL: each input row is first extended by the radius on both
 *   sides (borders applied once), then correlated;
 * - VERTICAL: input row v (v from -radius_y to height - 1 + radius_y,
 *   mapped through the border) goes as values into a ring of 2 radius_y + 1
 *   rows, and each output row sums the ring's rows;
 * - BOTH: the same, each ring row being an input row through the
 *   horizontal pass (an intermediate row), so each one is made once and
 *   memory stays small for any size.
 * For 8-bit samples whose weights fit int16, both passes run instead in
 * 16-bit multiply-adds (pmaddwd, simd16.h; see narrow_sums ()),
 * with the same bytes.
 * Threads (cf_stencil_cpu_threads ()) take bands of output rows of every
 * plane; for BOTH each band has a ring of its own, filling it from the
 * radius_y input rows above the band (those are filtered twice).
 */
#include "../stencil.h"
#include "../threads.h"
#include "clones.h"
#include "simd16.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define INTER_SHIFT(bits) ((bits) - CF_STENCIL_INTER_BITS)
#define BOTH_SHIFT(bits) ((bits) + CF_STENCIL_INTER_BITS)
#define MAX_RADIUS(a, b) ((a) > (b) ? (a) : (b))

/* ---- 16-bit multiply-add passes (8-bit samples, x86) ----
 *
 * Where the weights of an axis fit int16 and its sums stay exact in 32
 * bits (narrow_sums ()), the passes over 8-bit samples take pmaddwd: two
 * 16-bit products summed into a 32-bit lane, twice the lanes of the 32-bit
 * multiplies of sum_rows32 (), and intermediates of BOTH kept as int16
 * (half the memory). simd16.h has the loops (shared with cpu/resize.c's
 * vertical pass), for SSE2 (the x86-64 baseline), AVX2, AVX-512BW and
 * AVX-512 VNNI; the CPU's best set is chosen at run time, so a baseline
 * build never runs an instruction the CPU lacks. The sums are exact, so
 * the bytes are those of the scalar code whatever the set. CF_STENCIL_SIMD in the environment caps the set,
 * read at each call: "off" (or "0") forces the scalar code, "sse2",
 * "avx2", "avx512" or "vnni" the set named, if the CPU has it, or the best
 * below it (for tests and measurements). */

/* The best set at or below CF_STENCIL_SIMD's cap, or NULL (scalar code). */
static const CfSimd16 *
simd_select (void)
{
  return cf_simd16_select (getenv ("CF_STENCIL_SIMD"));
}

/* ---- borders ---- */

/* i mod n in 0 .. n - 1, for negative i too */
static int
modulo (int i, int n)
{
  const int m = i % n;

  return m < 0 ? m + n : m;
}

int
cf_stencil_border_index (CfStencilBorder border, int i, int n)
{
  int period, m;

  if (n < 1)
    return -1;
  if (i >= 0 && i < n)
    return i;
  switch (border) {
    case CF_STENCIL_CLAMP:
      return i < 0 ? 0 : n - 1;
    case CF_STENCIL_MIRROR:
      if (n == 1)
        return 0;
      /* reflections about 0 and n - 1 repeat every 2 (n - 1) */
      period = 2 * (n - 1);
      m = modulo (i, period);
      return m < n ? m : period - m;
    case CF_STENCIL_WRAP:
      return modulo (i, n);
    default:
      return -1;
  }
}

/* ---- the plan ---- */

/* Whether sample @k of a pixel of plane @p of @info is alpha: channel 3 of
 * the RGB family (format.h names it "A"; gray and YUV have fewer channels,
 * and the x of RGBx is padding, channel -1). */
static int
is_alpha (const CfFormatInfo * info, int p, int k)
{
  return info->n_channels == 4 && info->channel_names[3]
      && strcmp (info->channel_names[3], "A") == 0
      && info->plane[p].channel[k] == 3;
}

/* The taps of @axis as doubles into @w (divided by their sum when
 * normalized) and as fixed point with @bits fraction bits into @q (see
 * stencil.h). Returns why not when the taps make no weights (stencil.h's
 * CfStencilTapsStatus): every float64 step that could turn them into
 * another filter is checked, not just the result. */
static CfStencilTapsStatus
quantize (const CfStencilTaps * axis, int bits, double *w, int32_t * q)
{
  const int64_t one = INT64_C (1) << bits;
  const int n = axis ? 2 * axis->radius + 1 : 0;
  double sum = 0.0, abs_sum = 0.0, running = 0.0;
  int64_t before = 0, gain = 0;
  int t;

  if (!axis || !axis->taps || axis->radius < 0
      || axis->radius > CF_STENCIL_MAX_RADIUS)
    return CF_STENCIL_TAPS_BAD_RADIUS;
  for (t = 0; t < n; t++) {
    if (!isfinite (axis->taps[t]))
      return CF_STENCIL_TAPS_NOT_FINITE;
    sum += axis->taps[t];
  }
  if (axis->normalize && sum == 0.0)
    return CF_STENCIL_TAPS_SUM_ZERO;
  /* an infinite sum makes every tap 0 and the running sums 0, ..., 0, 1;
   * below DBL_MIN the taps have lost the digits their ratios need */
  if (axis->normalize && !isfinite (sum))
    return CF_STENCIL_TAPS_SUM_OVERFLOW;
  if (axis->normalize && fabs (sum) < DBL_MIN)
    return CF_STENCIL_TAPS_SUM_SUBNORMAL;
  for (t = 0; t < n; t++) {
    w[t] = axis->normalize ? axis->taps[t] / sum : axis->taps[t];
    abs_sum += fabs (w[t]);
  }
  /* checked in double first, so that the rounding below cannot overflow;
   * an infinite gain (huge taps, or taps over a tiny sum) fails too */
  if (!(abs_sum <= CF_STENCIL_MAX_GAIN + 1.0))
    return CF_STENCIL_TAPS_GAIN;

  for (t = 0; t < n; t++) {
    if (axis->normalize) {
      /* running sums: the errors alternate, and the last sum is exactly 1 */
      const int64_t upto = t == n - 1 ? one :
          (int64_t) llround ((running += w[t]) * (double) one);

      q[t] = (int32_t) (upto - before);
      before = upto;
    } else {
      q[t] = (int32_t) llround (w[t] * (double) one);
    }
    gain += q[t] < 0 ? -(int64_t) q[t] : q[t];
  }
  return gain <= ((int64_t) CF_STENCIL_MAX_GAIN << bits) ?
      CF_STENCIL_TAPS_OK : CF_STENCIL_TAPS_GAIN;
}

CfStencilTapsStatus
cf_stencil_taps_check (const CfStencilTaps * axis, CfFormat format)
{
  const CfFormatInfo *info = cf_format_info (format);
  double w[CF_STENCIL_MAX_TAPS];
  int32_t q[CF_STENCIL_MAX_TAPS];

  /* a format picks only the weight bits; without one, the finer ones */
  return quantize (axis, CF_STENCIL_WEIGHT_BITS (info ? info->depth : 16), w,
      q);
}

/* An axis the direction leaves alone: the identity. */
static void
identity (int bits, double *w, int32_t * q)
{
  w[0] = 1.0;
  q[0] = (int32_t) 1 << bits;
}

void
cf_stencil_plan_clear (CfStencilPlan * plan)
{
  if (plan)
    memset (plan, 0, sizeof (*plan));
}

int
cf_stencil_plan_init (CfStencilPlan * plan, CfFormat format, int width,
    int height, const CfStencilParams * params)
{
  const CfFormatInfo *info = cf_format_info (format);
  const CfStencilDirection dir = params ? params->direction :
      CF_STENCIL_DIRECTION_COUNT;
  int p, k, c, bits;
  uint32_t max;

  if (!plan)
    return -1;
  memset (plan, 0, sizeof (*plan));
  if (!info || info->packed || !params
      || (unsigned) dir >= CF_STENCIL_DIRECTION_COUNT
      || (unsigned) params->border >= CF_STENCIL_BORDER_COUNT
      || width < 1 || height < 1 || width > CF_MAX_SIDE || height > CF_MAX_SIDE)
    return -1;
  /* the weights' precision follows the sample size, the border the value
   * size: 10-bit values take 16-bit samples' weights */
  bits = CF_STENCIL_WEIGHT_BITS (info->depth);
  max = CF_FORMAT_MAX_VALUE (info);
  for (c = 0; c < info->n_channels; c++)
    if (params->border_value[c] > max)
      return -1;

  plan->format = format;
  plan->width = width;
  plan->height = height;
  plan->direction = dir;
  plan->border = params->border;
  plan->weight_bits = bits;
  if (dir == CF_STENCIL_VERTICAL) {
    identity (bits, plan->taps_x, plan->weights_x);
  } else if (quantize (&params->x, bits, plan->taps_x,
          plan->weights_x) == CF_STENCIL_TAPS_OK) {
    plan->radius_x = params->x.radius;
  } else {
    goto fail;
  }
  if (dir == CF_STENCIL_HORIZONTAL) {
    identity (bits, plan->taps_y, plan->weights_y);
  } else if (quantize (&params->y, bits, plan->taps_y,
          plan->weights_y) == CF_STENCIL_TAPS_OK) {
    plan->radius_y = params->y.radius;
  } else {
    goto fail;
  }

  for (p = 0; p < info->n_planes; p++) {
    const CfPlaneLayout *l = &info->plane[p];

    for (k = 0; k < l->pixel_bytes / l->sample_bytes; k++) {
      c = l->channel[k];
      plan->border_sample[p][k] = c < 0 ? (int32_t) max :
          params->border_value[c];
      if (!params->filter_alpha && is_alpha (info, p, k))
        plan->skip[p] |= 1u << k;
    }
  }
  return 0;

fail:
  cf_stencil_plan_clear (plan);
  return -1;
}

/* ---- the CPU reference ---- */

static int
plan_ok (const CfStencilPlan * plan)
{
  return plan && cf_format_info (plan->format) && plan->width > 0
      && plan->weight_bits > 0;
}

static int
image_matches (const CfStencilPlan * plan, const CfImage * image)
{
  return cf_image_check (image) == 0 && image->format == plan->format
      && image->width == plan->width && image->height == plan->height;
}

static inline int32_t
sample_at (const uint8_t * s, int sample_bytes)
{
  return sample_bytes == 2 ? s[0] | s[1] << 8 : s[0];
}

/* One plane being filtered. */
typedef struct
{
  const CfStencilPlan *plan;
  int width, height;            /* of the plane */
  int pixel_bytes, sample_bytes, spp;   /* spp: samples per pixel */
  int n;                        /* samples of a row: width * spp */
  const uint8_t *src;
  size_t src_pitch;
  uint8_t *dst;
  size_t dst_pitch;
  const int32_t *border;        /* CONSTANT's value of each sample */
  unsigned int skip;
  int bits, lsb;                /* of the value in a sample (format.h) */
  int32_t max;                  /* of a value: 2^bits - 1 */
  /* sums of the rows' (columns') pass that may not fit 32 bits */
  int wide_x, wide_y;
  /* the 16-bit multiply-adds (narrow_sums ()): the rows' pass
   * (narrow_x), the columns' pass from a ring of int16 rows (narrow_y),
   * with the loops of simd; the weights of each axis in pairs,
   * (w[2m] & 0xffff) | w[2m + 1] << 16, 0 past the last tap */
  const CfSimd16 *simd;
  int narrow_x, narrow_y;
  int32_t pairs_x[CF_STENCIL_MAX_RADIUS + 1];
  int32_t pairs_y[CF_STENCIL_MAX_RADIUS + 1];
  size_t ring16_pitch;          /* int16 samples from a ring row to the next */
} Plane;

/* The sum of |w| of @n weights. */
static int64_t
gain_of (const int32_t * w, int n)
{
  int64_t g = 0;
  int t;

  for (t = 0; t < n; t++)
    g += w[t] < 0 ? -(int64_t) w[t] : w[t];
  return g;
}

/* Which passes of @pl need 64-bit sums: those whose bound, from the
 * weights and the largest value, with the rounding added, reaches 2^31
 * (stencil.h: 8-bit rows always fit; 16-bit ones do not; the columns of
 * BOTH fit for blurs of 8-bit samples, not for sharper gains). */
static void
wide_sums (Plane * pl)
{
  const CfStencilPlan *plan = pl->plan;
  const int bits = plan->weight_bits;
  const int64_t gx = gain_of (plan->weights_x, 2 * plan->radius_x + 1);
  const int64_t gy = gain_of (plan->weights_y, 2 * plan->radius_y + 1);
  const int64_t limit = INT64_C (1) << 31;
  const int both = plan->direction == CF_STENCIL_BOTH;
  /* the largest |value| the columns' pass reads: a value, or (BOTH) an
   * intermediate of I fraction bits */
  const int64_t in_y = both ? ((gx * pl->max + (INT64_C (1) <<
              (INTER_SHIFT (bits) - 1))) >> INTER_SHIFT (bits)) + 1 : pl->max;

  pl->wide_x = gx * pl->max + (INT64_C (1) << (bits - 1)) >= limit;
  pl->wide_y = gy * in_y + (INT64_C (1) << ((both ? BOTH_SHIFT (bits) :
              bits) - 1)) >= limit;
  /* BOTH's intermediate fits int16 where its bound does: |h| <= in_y
   * (h is at most (gx max + 2^(S-1)) >> S, and at least the negative of
   * that, less one, S = B - I); gain below about 2 for 8-bit samples */
  pl->narrow_y = !both || in_y <= INT16_MAX;
}

/* Whether every one of the @n weights @w fits int16 (a pmaddwd operand),
 * and their pairs into @pairs (Plane.pairs_x). */
static int
weight_pairs (const int32_t * w, int n, int32_t * pairs)
{
  int t, ok = 1;

  for (t = 0; t < n; t++)
    ok &= w[t] >= -INT16_MAX && w[t] <= INT16_MAX;
  for (t = 0; ok && t < n; t += 2)
    pairs[t / 2] = (int32_t) (((uint32_t) w[t] & 0xffff)
        | (uint32_t) (t + 1 < n ? w[t + 1] : 0) << 16);
  return ok;
}

/* Which passes of @pl take the 16-bit multiply-adds, if the CPU has a set
 * for them (@simd): samples of 8 bits (0 .. 255 fit int16), weights of the
 * axis within int16, 32-bit sums (wide_sums ()), and for the columns of
 * BOTH an intermediate within int16. Checked once a call, from the
 * plan's weights: blurs (gaussian, box) of any radius qualify, gains
 * above 2 (a strong sharpen) and weights of 0.5 or more (a radius 0
 * axis, weight 2^16) fall back to the 32-bit sums. */
static void
narrow_sums (Plane * pl, const CfSimd16 * simd)
{
  const CfStencilPlan *plan = pl->plan;
  const int eight = simd && pl->sample_bytes == 1 && pl->max == 255
      && pl->lsb == 0;

  pl->simd = simd;
  pl->narrow_x = eight && plan->direction != CF_STENCIL_VERTICAL
      && !pl->wide_x && weight_pairs (plan->weights_x, 2 * plan->radius_x
      + 1, pl->pairs_x);
  pl->narrow_y = eight && plan->direction != CF_STENCIL_HORIZONTAL
      && pl->narrow_y && !pl->wide_y && weight_pairs (plan->weights_y,
      2 * plan->radius_y + 1, pl->pairs_y);
  /* ring rows apart by whole vectors of the widest set */
  pl->ring16_pitch = ((size_t) pl->n + 31) / 32 * 32;
}

/* Plane @p of @plan: its size, layout and values; @src and @dst left
 * unset. */
static void
plane_init (Plane * pl, const CfStencilPlan * plan, int p)
{
  const CfFormatInfo *info = cf_format_info (plan->format);
  const CfPlaneLayout *l = &info->plane[p];

  memset (pl, 0, sizeof (*pl));
  pl->plan = plan;
  pl->width = cf_plane_width (plan->format, p, plan->width);
  pl->height = cf_plane_height (plan->format, p, plan->height);
  pl->pixel_bytes = l->pixel_bytes;
  pl->sample_bytes = l->sample_bytes;
  pl->spp = l->pixel_bytes / l->sample_bytes;
  pl->n = pl->width * pl->spp;
  pl->border = plan->border_sample[p];
  pl->skip = plan->skip[p];
  pl->bits = info->bits;
  pl->lsb = info->lsb;
  pl->max = (int32_t) CF_FORMAT_MAX_VALUE (info);
  wide_sums (pl);
}

/* The value of sample @k of pixel @x of input row @y, both in the plane:
 * the bits of the sample outside it (P010's low 6, a 10-bit value's high
 * 6) are not part of the picture. */
static inline int32_t
input (const Plane * pl, int x, int y, int k)
{
  return (int32_t) CF_SAMPLE_VALUE (sample_at (pl->src + (size_t) y *
          pl->src_pitch + (size_t) x * pl->pixel_bytes +
          k * pl->sample_bytes, pl->sample_bytes), pl->bits, pl->lsb);
}

/* Sample @k of pixel (@x, @y) of the picture extended through its border;
 * @x and @y may lie anywhere. */
static int32_t
extended (const Plane * pl, int x, int y, int k)
{
  const int sx = cf_stencil_border_index (pl->plan->border, x, pl->width);
  const int sy = cf_stencil_border_index (pl->plan->border, y, pl->height);

  return sx < 0 || sy < 0 ? pl->border[k] : input (pl, sx, sy, k);
}

/* ---- rows ---- */

/* Input row @y (any row: through the border) as values into @ext, with
 * radius_x pixels beyond each end (width + 2 radius_x pixels in all); or,
 * with @ext NULL, 8-bit values as bytes into @ext8 (for the pairs of the
 * 16-bit multiply-adds, a quarter of the memory). */
static void
load_row_to (const Plane * pl, int y, int32_t * restrict ext,
    uint8_t * restrict ext8)
{
  const int r = pl->plan->radius_x, spp = pl->spp, n = pl->n;
  const int sy = cf_stencil_border_index (pl->plan->border, y, pl->height);
  const uint8_t *restrict row = pl->src + (size_t) (sy < 0 ? 0 : sy) *
      pl->src_pitch;
  int32_t *restrict mid = ext ? ext + r * spp : NULL;
  uint8_t *restrict mid8 = ext ? NULL : ext8 + r * spp;
  int x, k, j;

/* sample i (from the row's start, may be negative) of either row */
#define EXT_GET(i) (mid ? mid[i] : mid8[i])
#define EXT_SET(i, v) \
  (mid ? (void) (mid[i] = (v)) : (void) (mid8[i] = (uint8_t) (v)))

  if (sy < 0) {
    /* CONSTANT above or below the picture: a constant row */
    for (x = -r; x < pl->width + r; x++)
      for (k = 0; k < spp; k++)
        EXT_SET (x * spp + k, pl->border[k]);
    return;
  }
  if (!mid) {
    memcpy (mid8, row, n);
  } else if (pl->sample_bytes == 1) {
    for (j = 0; j < n; j++)
      mid[j] = row[j];
  } else {
    const int lsb = pl->lsb, max = pl->max;

    for (j = 0; j < n; j++)
      mid[j] = ((row[2 * j] | row[2 * j + 1] << 8) >> lsb) & max;
  }
  /* the ends: radius_x pixels each side */
  for (j = 0; j < 2 * r; j++) {
    /* -r .. -1, then width .. width + r - 1 */
    const int x = j < r ? j - r : pl->width + j - r;
    const int sx = cf_stencil_border_index (pl->plan->border, x, pl->width);

    for (k = 0; k < spp; k++)
      EXT_SET (x * spp + k, sx < 0 ? pl->border[k] : EXT_GET (sx * spp + k));
  }
#undef EXT_GET
#undef EXT_SET
}

static void
load_row (const Plane * pl, int y, int32_t * restrict ext)
{
  load_row_to (pl, y, ext, NULL);
}

/* Samples summed at once: their sums stay in the first level of cache
 * across the taps. */
#define BLOCK 512

/* out[j] = init + sum over t of w[t] in[t][j], for j < @n: the rows of a
 * vertical pass, or shifted views of one row (in[t] = row + t spp) for a
 * horizontal one. 32-bit sums where the caller has bounded them below
 * 2^31 (stencil.h's bounds, or one computed from the weights), 64-bit ones
 * otherwise; exact either way, so the order of the additions (two taps at
 * a time) changes nothing. */
static void CF_CLONES_AVX2
sum_rows32 (const int32_t * const *in, const int32_t * w, int taps, int n,
    int32_t init, int32_t * restrict out)
{
  int32_t acc[BLOCK];
  int j0, i, t;

  for (j0 = 0; j0 < n; j0 += BLOCK) {
    const int m = n - j0 < BLOCK ? n - j0 : BLOCK;

    for (i = 0; i < m; i++)
      acc[i] = init;
    for (t = 0; t + 1 < taps; t += 2) {
      const int32_t w0 = w[t], w1 = w[t + 1];
      const int32_t *restrict a = in[t] + j0, *restrict b = in[t + 1] + j0;

      for (i = 0; i < m; i++)
        acc[i] += w0 * a[i] + w1 * b[i];
    }
    if (t < taps) {
      const int32_t w0 = w[t], *restrict a = in[t] + j0;

      for (i = 0; i < m; i++)
        acc[i] += w0 * a[i];
    }
    memcpy (out + j0, acc, sizeof (int32_t) * m);
  }
}

static void CF_CLONES_AVX2
sum_rows64 (const int32_t * const *in, const int32_t * w, int taps, int n,
    int64_t init, int64_t * restrict out)
{
  int64_t acc[BLOCK];
  int j0, i, t;

  for (j0 = 0; j0 < n; j0 += BLOCK) {
    const int m = n - j0 < BLOCK ? n - j0 : BLOCK;

    for (i = 0; i < m; i++)
      acc[i] = init;
    for (t = 0; t < taps; t++) {
      const int64_t w0 = w[t];
      const int32_t *restrict a = in[t] + j0;

      for (i = 0; i < m; i++)
        acc[i] += w0 * a[i];
    }
    memcpy (out + j0, acc, sizeof (int64_t) * m);
  }
}

/* Sums of one row: 32 or 64 bits (Plane.wide_*). */
typedef union
{
  int32_t *s32;
  int64_t *s64;
} Sums;

/* The copied samples (alpha) of output row @y, from the input's values. */
static void CF_CLONES_AVX2
copy_skipped (const Plane * pl, int y)
{
  uint8_t *restrict out = pl->dst + (size_t) y * pl->dst_pitch;
  const int lsb = pl->lsb;
  int x, k;

  for (k = 0; k < pl->spp; k++) {
    const uint8_t *in = pl->src + (size_t) y * pl->src_pitch;
    const int pb = pl->pixel_bytes, width = pl->width;

    if (!(pl->skip & (1u << k)))
      continue;
    if (pl->sample_bytes == 1) {
      /* an 8-bit value is its sample */
      for (x = 0; x < width; x++)
        out[x * pb + k] = in[x * pb + k];
      continue;
    }
    for (x = 0; x < width; x++) {
      const uint32_t sample = CF_VALUE_SAMPLE (input (pl, x, y, k), lsb);
      uint8_t *o = out + (size_t) x * pb + 2 * k;

      o[0] = (uint8_t) sample;
      o[1] = (uint8_t) (sample >> 8);
    }
  }
}

/* Output row @y from its sums (rounding included): shifted right by
 * @shift, saturated to the value's range and shifted into its sample;
 * copied samples (alpha) from the input's values. */
static void CF_CLONES_AVX2
store_row (const Plane * pl, int y, Sums sums, int wide, int shift)
{
  /* locals: a store through uint8_t * may alias *pl, which would keep the
   * loops from knowing their counts (and from being vectorised) */
  uint8_t *restrict out = pl->dst + (size_t) y * pl->dst_pitch;
  const int32_t max = pl->max;
  const int lsb = pl->lsb, n = pl->n;
  int j;

  if (pl->sample_bytes == 1 && !wide) {
    const int32_t *restrict s = sums.s32;

    for (j = 0; j < n; j++) {
      const int32_t v = s[j] >> shift;

      out[j] = (uint8_t) (v < 0 ? 0 : v > max ? max : v);
    }
  } else {
    for (j = 0; j < n; j++) {
      const int64_t v = (wide ? sums.s64[j] : sums.s32[j]) >> shift;
      const uint32_t sample = CF_VALUE_SAMPLE (v < 0 ? 0 : v > max ? max : v,
          lsb);

      out[(size_t) j * pl->sample_bytes] = (uint8_t) sample;
      if (pl->sample_bytes == 2)
        out[(size_t) j * 2 + 1] = (uint8_t) (sample >> 8);
    }
  }
  copy_skipped (pl, y);
}

/* The working memory of one band of one plane: an extended input row, a
 * ring of 2 radius_y + 1 rows (VERTICAL: values, BOTH: intermediates;
 * int32, or int16 for narrow_y), the row pointers a sum reads, the sums of
 * a row, and for narrow_x the extended row in pairs (simd_row ()). */
typedef struct
{
  int32_t *ext;
  int32_t *ring;
  int16_t *ring16;
  const int32_t **rows;
  const int16_t **rows16;
  Sums sums;
  int32_t *pairs;
  uint8_t *ext8;
} Scratch;

static size_t
round64 (size_t bytes)
{
  return (bytes + 63) / 64 * 64;
}

/* Bytes of a Scratch for @pl, or a layout of them at @mem (when not
 * NULL). */
static size_t
scratch_layout (const Plane * pl, uint8_t * mem, Scratch * sc)
{
  const int rx = pl->plan->radius_x, ry = pl->plan->radius_y;
  const size_t ext = round64 (sizeof (int32_t) * (pl->width + 2 * rx) *
      pl->spp);
  const int columns = pl->plan->direction != CF_STENCIL_HORIZONTAL;
  const size_t ring = !columns || pl->narrow_y ? 0 :
      round64 (sizeof (int32_t) * pl->n * (2 * ry + 1));
  const size_t ring16 = !columns || !pl->narrow_y ? 0 :
      round64 (sizeof (int16_t) * pl->ring16_pitch * (2 * ry + 1));
  const size_t rows = round64 (sizeof (int32_t *) * (2 * MAX_RADIUS (rx,
              ry) + 1));
  const size_t sums = round64 (sizeof (int64_t) * pl->n);
  /* the pairs of an extended row: one a sample */
  const size_t pairs = !pl->narrow_x ? 0 : round64 (sizeof (int32_t) *
      (pl->width + 2 * rx) * pl->spp);
  const size_t ext8 = !pl->narrow_x ? 0 : round64 ((size_t) (pl->width +
          2 * rx) * pl->spp);

  if (mem) {
    sc->ext = (int32_t *) mem;
    mem += ext;
    sc->ring = (int32_t *) mem;
    mem += ring;
    sc->ring16 = (int16_t *) mem;
    mem += ring16;
    /* int32_t * and int16_t * alike */
    sc->rows = (const int32_t **) mem;
    sc->rows16 = (const int16_t **) mem;
    mem += rows;
    sc->sums.s64 = (int64_t *) mem;
    mem += sums;
    sc->pairs = (int32_t *) mem;
    mem += pairs;
    sc->ext8 = mem;
  }
  return ext + ring + ring16 + rows + sums + pairs + ext8;
}

/* Row @y through the horizontal taps: its sums, rounding (2^(@shift - 1))
 * included, into sc->sums. */
static void
horizontal_sums (const Plane * pl, int y, const Scratch * sc, int shift)
{
  const int taps = 2 * pl->plan->radius_x + 1;
  int t;

  load_row (pl, y, sc->ext);
  for (t = 0; t < taps; t++)
    sc->rows[t] = sc->ext + t * pl->spp;
  if (pl->wide_x)
    sum_rows64 (sc->rows, pl->plan->weights_x, taps, pl->n,
        INT64_C (1) << (shift - 1), sc->sums.s64);
  else
    sum_rows32 (sc->rows, pl->plan->weights_x, taps, pl->n,
        (int32_t) 1 << (shift - 1), sc->sums.s32);
}

/* The pairs of the extended row @ext of @len samples into @pairs: sample
 * i and the same sample of the next pixel, ext[i] | ext[i + spp] << 16
 * (8-bit values), the last pixel's with 0 (the odd last tap weighs 0). */
static void CF_CLONES_AVX2
make_pairs (const uint8_t * restrict ext, int len, int spp,
    int32_t * restrict pairs)
{
  int i;

  for (i = 0; i < len - spp; i++)
    pairs[i] = (int32_t) (ext[i] | (uint32_t) ext[i + spp] << 16);
  for (; i < len; i++)
    pairs[i] = ext[i];
}

/* narrow_x: input row @y (any row: through the border) through the
 * horizontal taps in 16-bit multiply-adds, rounded and shifted right by
 * @shift into @out as @kind says (CfOutKind). The samples after the
 * vector loops' last block are summed here, as horizontal_sums () does. */
static void
simd_row (const Plane * pl, int y, const Scratch * sc, int shift,
    CfOutKind kind, void *out)
{
  const int r = pl->plan->radius_x, taps = 2 * r + 1, spp = pl->spp;
  const int32_t init = (int32_t) 1 << (shift - 1);
  const int32_t *w = pl->plan->weights_x;
  int j, t;

  load_row_to (pl, y, NULL, sc->ext8);
  make_pairs (sc->ext8, (pl->width + 2 * r) * spp, spp, sc->pairs);
  j = pl->simd->hpass (sc->pairs, pl->pairs_x, r + 1, spp, pl->n, init,
      shift, kind, out);
  for (; j < pl->n; j++) {
    int32_t sum = init;

    for (t = 0; t < taps; t++)
      sum += w[t] * sc->ext8[j + t * spp];
    sum >>= shift;
    if (kind == CF_OUT_I32)
      ((int32_t *) out)[j] = sum;
    else if (kind == CF_OUT_I16)
      ((int16_t *) out)[j] = (int16_t) sum;
    else
      ((uint8_t *) out)[j] = (uint8_t) (sum < 0 ? 0 : sum > 255 ? 255 : sum);
  }
}

/* Output rows @y0 .. @y1 - 1 of each direction's filter. */
static void
filter_horizontal (const Plane * pl, int y0, int y1, const Scratch * sc)
{
  const int bits = pl->plan->weight_bits;
  int y;

  for (y = y0; y < y1; y++) {
    if (pl->narrow_x) {
      simd_row (pl, y, sc, bits, CF_OUT_U8, pl->dst + (size_t) y *
          pl->dst_pitch);
      copy_skipped (pl, y);
      continue;
    }
    horizontal_sums (pl, y, sc, bits);
    store_row (pl, y, sc->sums, pl->wide_x, bits);
  }
}

/* narrow_y: row @y of the columns' input as int16 into @h, made as
 * filter_columns () says: the values of input row @y (VERTICAL), or its
 * intermediate (BOTH, bounded within int16). */
static void
ring16_row (const Plane * pl, int y, const Scratch * sc, int16_t * h)
{
  const int inter = INTER_SHIFT (pl->plan->weight_bits), n = pl->n;
  int j;

  if (pl->plan->direction == CF_STENCIL_BOTH && pl->narrow_x) {
    simd_row (pl, y, sc, inter, CF_OUT_I16, h);
  } else if (pl->plan->direction == CF_STENCIL_BOTH) {
    /* the 32-bit sums (weights beyond int16), the intermediate within
     * int16 all the same */
    horizontal_sums (pl, y, sc, inter);
    for (j = 0; j < n; j++)
      h[j] = (int16_t) (sc->sums.s32[j] >> inter);
  } else {
    /* VERTICAL (radius_x 0): the values, through the border */
    load_row (pl, y, sc->ext);
    for (j = 0; j < n; j++)
      h[j] = (int16_t) sc->ext[j];
  }
}

/* narrow_y: output row @y from the 2 radius_y + 1 int16 rows in
 * sc->rows16, rounded and shifted right by @shift. */
static void
simd_columns (const Plane * pl, int y, const Scratch * sc, int shift)
{
  const int taps = 2 * pl->plan->radius_y + 1;
  const int32_t init = (int32_t) 1 << (shift - 1);
  const int32_t *w = pl->plan->weights_y;
  uint8_t *out = pl->dst + (size_t) y * pl->dst_pitch;
  int j, t;

  j = pl->simd->vpass (sc->rows16, pl->pairs_y, taps, pl->n, init, shift,
      out);
  for (; j < pl->n; j++) {
    int32_t sum = init;

    for (t = 0; t < taps; t++)
      sum += w[t] * sc->rows16[t][j];
    sum >>= shift;
    out[j] = (uint8_t) (sum < 0 ? 0 : sum > 255 ? 255 : sum);
  }
  copy_skipped (pl, y);
}

/* VERTICAL and BOTH: the ring holds row v of the columns' input (the
 * values of input row v through the border, or its horizontal pass) in
 * slot (v - first) mod its size, first = y0 - radius_y the band's first
 * row; each is made once per band. */
static void
filter_columns (const Plane * pl, int y0, int y1, const Scratch * sc)
{
  const int r = pl->plan->radius_y, taps = 2 * r + 1, first = y0 - r;
  const int bits = pl->plan->weight_bits, n = pl->n;
  const int both = pl->plan->direction == CF_STENCIL_BOTH;
  /* BOTH: the intermediate's rounding, then the final one */
  const int inter = INTER_SHIFT (bits), shift = both ? BOTH_SHIFT (bits) :
      bits;
  int y, t, j;

  if (y0 >= y1)
    return;                     /* a band of no rows: nothing to fill */
  for (y = first; y < y1 + r; y++) {
    int32_t *h = sc->ring + (size_t) ((y - first) % taps) * pl->n;

    if (pl->narrow_y) {
      ring16_row (pl, y, sc, sc->ring16 + (size_t) ((y - first) % taps) *
          pl->ring16_pitch);
      if (y < y0 + r)
        continue;
      for (t = 0; t < taps; t++)
        sc->rows16[t] = sc->ring16 + (size_t) ((y - 2 * r + t - first) %
            taps) * pl->ring16_pitch;
      simd_columns (pl, y - r, sc, shift);
      continue;
    }
    if (!both) {
      load_row (pl, y, h);
    } else if (pl->narrow_x) {
      simd_row (pl, y, sc, inter, CF_OUT_I32, h);
    } else {
      horizontal_sums (pl, y, sc, inter);
      if (pl->wide_x)
        for (j = 0; j < n; j++)
          h[j] = (int32_t) (sc->sums.s64[j] >> inter);
      else
        for (j = 0; j < n; j++)
          h[j] = sc->sums.s32[j] >> inter;
    }
    if (y < y0 + r)
      continue;
    /* rows y - 2r .. y are in: output row y - r */
    for (t = 0; t < taps; t++)
      sc->rows[t] = sc->ring + (size_t) ((y - 2 * r + t - first) % taps) *
          pl->n;
    if (pl->wide_y)
      sum_rows64 (sc->rows, pl->plan->weights_y, taps, pl->n,
          INT64_C (1) << (shift - 1), sc->sums.s64);
    else
      sum_rows32 (sc->rows, pl->plan->weights_y, taps, pl->n,
          (int32_t) 1 << (shift - 1), sc->sums.s32);
    store_row (pl, y - r, sc->sums, pl->wide_y, shift);
  }
}

/* One call: the band of every plane that each part filters. */
typedef struct
{
  Plane plane[CF_MAX_PLANES];
  int n_planes, n_parts;
  uint8_t *scratch;             /* [n_parts][part_bytes] */
  size_t part_bytes;
} StencilJob;

static void
stencil_part (void *data, int part)
{
  const StencilJob *job = data;
  int p;

  for (p = 0; p < job->n_planes; p++) {
    const Plane *pl = &job->plane[p];
    const int y0 = cf_parallel_split (pl->height, job->n_parts, part);
    const int y1 = cf_parallel_split (pl->height, job->n_parts, part + 1);
    Scratch sc;

    scratch_layout (pl, job->scratch + job->part_bytes * part, &sc);
    if (pl->plan->direction == CF_STENCIL_HORIZONTAL)
      filter_horizontal (pl, y0, y1, &sc);
    else
      filter_columns (pl, y0, y1, &sc);
  }
}

int
cf_stencil_cpu_threads (const CfStencilPlan * plan, const CfImage * src,
    const CfImage * dst, int n_threads)
{
  const CfSimd16 *simd = simd_select ();
  StencilJob job;
  int p;

  if (!plan_ok (plan) || !image_matches (plan, src)
      || !image_matches (plan, dst))
    return -1;
  job.n_planes = cf_format_info (plan->format)->n_planes;
  job.part_bytes = 0;
  for (p = 0; p < job.n_planes; p++) {
    Plane *pl = &job.plane[p];

    plane_init (pl, plan, p);
    narrow_sums (pl, simd);
    pl->src = src->data[p];
    pl->src_pitch = src->pitch[p];
    pl->dst = dst->data[p];
    pl->dst_pitch = dst->pitch[p];
    if (scratch_layout (pl, NULL, NULL) > job.part_bytes)
      job.part_bytes = scratch_layout (pl, NULL, NULL);
  }
  /* bands of rows: the first plane has the most */
  job.n_parts = cf_parallel_parts (n_threads, plan->height);
  job.scratch = malloc (job.part_bytes * job.n_parts);
  if (!job.scratch)
    return -1;
  cf_parallel_for (n_threads, job.n_parts, stencil_part, &job);
  free (job.scratch);
  return 0;
}

int
cf_stencil_cpu (const CfStencilPlan * plan, const CfImage * src,
    const CfImage * dst)
{
  return cf_stencil_cpu_threads (plan, src, dst, 1);
}

const char *
cf_stencil_cpu_simd (void)
{
  const CfSimd16 *simd = simd_select ();

  return simd ? simd->name : NULL;
}

int
cf_stencil_cpu_narrow (const CfStencilPlan * plan, int plane)
{
  Plane pl;

  if (!plan_ok (plan) || plane < 0
      || plane >= cf_format_info (plan->format)->n_planes)
    return 0;
  plane_init (&pl, plan, plane);
  narrow_sums (&pl, simd_select ());
  return (pl.narrow_x ? 1 : 0) | (pl.narrow_y ? 2 : 0);
}

/* ---- the float64 model ---- */

double
cf_stencil_model (const CfStencilPlan * plan, const CfImage * src, int plane,
    int x, int y, int k)
{
  Plane pl;
  double sum = 0.0;
  int tx, ty;

  if (!plan_ok (plan) || !image_matches (plan, src) || plane < 0
      || plane >= cf_format_info (plan->format)->n_planes)
    return NAN;
  plane_init (&pl, plan, plane);
  pl.src = src->data[plane];
  pl.src_pitch = src->pitch[plane];
  if (x < 0 || x >= pl.width || y < 0 || y >= pl.height || k < 0
      || k >= pl.spp)
    return NAN;
  if (plan->skip[plane] & (1u << k))
    return input (&pl, x, y, k);

  /* an axis the direction leaves alone has radius 0 and tap 1 */
  for (ty = 0; ty <= 2 * plan->radius_y; ty++) {
    double h = 0.0;

    for (tx = 0; tx <= 2 * plan->radius_x; tx++)
      h += plan->taps_x[tx] * extended (&pl, x + tx - plan->radius_x,
          y + ty - plan->radius_y, k);
    sum += plan->taps_y[ty] * h;
  }
  return sum;
}

int
cf_stencil_preset_taps (CfStencilPreset preset, int radius, double sigma,
    double amount, double *taps, int *radius_out, int *normalize)
{
  const int gaussian = preset == CF_STENCIL_PRESET_GAUSSIAN ||
      preset == CF_STENCIL_PRESET_SHARPEN;
  int t, r = radius;

  if (!taps || !radius_out || !normalize || (unsigned) preset >=
      CF_STENCIL_PRESET_COUNT || radius < 0 || radius > CF_STENCIL_MAX_RADIUS
      || (gaussian && !(sigma > 0 && isfinite (sigma))) ||
      (preset == CF_STENCIL_PRESET_SHARPEN && !isfinite (amount)))
    return -1;
  if (preset == CF_STENCIL_PRESET_DERIVATIVE
      || preset == CF_STENCIL_PRESET_LAPLACIAN)
    r = 1;
  else if (r == 0 && gaussian)
    r = (int) fmin (fmax (ceil (3 * sigma), 1), CF_STENCIL_MAX_RADIUS);
  else if (r == 0)
    r = 1;
  *radius_out = r;
  *normalize = 1;
  switch (preset) {
    case CF_STENCIL_PRESET_BOX:
      for (t = 0; t <= 2 * r; t++)
        taps[t] = 1;
      break;
    case CF_STENCIL_PRESET_GAUSSIAN:
    case CF_STENCIL_PRESET_SHARPEN:{
      double sum = 0;

      for (t = 0; t <= 2 * r; t++)
        /* the centre apart: 0 / (2 sigma^2) is NaN once sigma^2
         * underflows, and exp (-0) is 1 anyway */
        sum += taps[t] = t == r ? 1.0 :
            exp (-(double) (t - r) * (t - r) / (2 * sigma * sigma));
      if (preset == CF_STENCIL_PRESET_SHARPEN) {
        for (t = 0; t <= 2 * r; t++)
          taps[t] = (t == r ? 1 + amount : 0) - amount * taps[t] / sum;
      }
      break;
    }
    case CF_STENCIL_PRESET_DERIVATIVE:
      taps[0] = -0.5;
      taps[1] = 0;
      taps[2] = 0.5;
      *normalize = 0;
      break;
    case CF_STENCIL_PRESET_LAPLACIAN:
      taps[0] = 1;
      taps[1] = -2;
      taps[2] = 1;
      *normalize = 0;
      break;
    default:
      return -1;
  }
  return 0;
}
