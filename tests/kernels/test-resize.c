/* Kernel-level tests of picture scaling (kernels/resize.h).
 *
 * The kernels work on values (format.h): every expectation here is made of
 * values, and an output sample must hold value << lsb, nothing else. Input
 * samples hold bits outside their values (random pictures everywhere,
 * "junk" in constant ones), which must change nothing.
 *
 * CF_TEST_BACKEND=cpu: known answers for cf_resize_cpu () (constant
 * pictures, unchanged sizes, nearest 2x upscale, area 2x downscale, a few
 * values written out, for 10- and 16-bit values too: masking, clamping to
 * the format's max, the shift into P010's high bits), the weight tables and
 * chroma siting of the plans (Y42B's too), P010 against I420_10LE of the
 * same values, and cf_resize_cpu () within 1 LSB of the float64 model
 * cf_resize_model () on random pictures, every method and format,
 * videoscale's size matrix.
 * cf_resize_cpu_threads () writes the same bytes for every thread count.
 * The SIMD paths of 8-bit planes (AUTO, with AVX2's 256-bit code where the
 * CPU has it, and SIMD128) write the very bytes of the scalar reference
 * (CF_RESIZE_CPU_SCALAR) over many sizes, methods, layouts and pitches, and
 * on 0/255 checkerboards, whose overshoots push the int16
 * intermediates and int32 sums to their bounds (resize.h), still within
 * 1 LSB of the model.
 * CF_TEST_BACKEND=cuda: cf_resize_cuda () bit-exact against cf_resize_cpu ()
 * over the same matrix and video sizes, every method and format, random and
 * constant pictures, unaligned and aligned padded pitches whose padding must
 * stay untouched, planes at odd addresses, with each of the kernels
 * (gather, direct rows and strips, fused, two passes) for every layout
 * of samples they take, and the direct kernel's fallbacks (unaligned
 * planes, and a plane whose fallback is the two passes).
 */
#include "cf-frame.h"
#include "cf-threads.h"
#include "resize.h"
#include "resize-fixed-sizes.h"

#include <math.h>

/* 1 in the weights of @a */
#define ONE(a) (INT64_C (1) << (a)->weight_bits)
#define N_METHODS CF_RESIZE_METHOD_COUNT

static const char *const method_names[N_METHODS] = { "nearest", "bilinear",
  "bicubic", "lanczos", "area"
};

/* videoscale's size matrix: in width, height, out width, height */
static const int matrix[][4] = {
  {640, 480, 1, 1}, {1, 1, 640, 480},
  {641, 481, 111, 30}, {111, 30, 641, 481},
  {641, 481, 30, 111}, {30, 111, 641, 481},
  {640, 480, 320, 1}, {320, 1, 640, 480},
  {640, 480, 1, 240}, {1, 240, 640, 480},
  {1, 1, 1, 1},
  {33, 17, 64, 35}, {64, 35, 33, 17},
};

/* ---- values (format.h) ---- */

static const CfFormatInfo *
frame_info (const Frame * f)
{
  return cf_format_info (f->img.format);
}

static guint
max_value (const Frame * f)
{
  return CF_FORMAT_MAX_VALUE (frame_info (f));
}

/* The value sample @k of pixel (@x, @y) of plane @p holds. */
static guint
value_get (const Frame * f, int p, int x, int y, int k)
{
  return CF_SAMPLE_VALUE (sample_get (f, p, x, y, k), frame_info (f)->bits,
      frame_info (f)->lsb);
}

/* Writes the sample holding @v, the bits outside the value 0: what the
 * kernels write. */
static void
value_set (Frame * f, int p, int x, int y, int k, guint v)
{
  sample_set (f, p, x, y, k, CF_VALUE_SAMPLE (v, frame_info (f)->lsb));
}

/* The bits of a 16-bit sample of @f outside its value. */
static guint
junk_bits (const Frame * f)
{
  return 0xffff & ~(max_value (f) << frame_info (f)->lsb);
}

/* The value of sample @k of plane @p in a constant picture: a different
 * one for each, within the value's bits (never held by a sample of MARKER
 * or of the GPU tests' poison bytes). */
static guint
constant_value (const Frame * f, int p, int k)
{
  const guint v = 17 + 23 * (4 * p + k);

  return frame_info (f)->bits == 8 ? v : frame_info (f)->bits == 16 ?
      v * 257 + 1 : (v << (frame_info (f)->bits - 8)) + 1;
}

/* Row 0 of every plane of @f constant, the others copies of it; with
 * @junk, every bit of a 16-bit sample outside its value set (P010's low 6,
 * I420_10LE's high 6), which the kernels must ignore. */
static void
frame_constant (Frame * f, gboolean junk)
{
  int p, x, y, k;

  for (p = 0; p < f->n_planes; p++) {
    for (x = 0; x < f->w[p]; x++)
      for (k = 0; k < f->pb[p] / f->sb[p]; k++)
        sample_set (f, p, x, 0, k, CF_VALUE_SAMPLE (constant_value (f, p, k),
                frame_info (f)->lsb) | (junk ? junk_bits (f) : 0));
    for (y = 1; y < f->h[p]; y++)
      memcpy (sample_ptr (f, p, 0, y, 0), f->img.data[p], f->row[p]);
  }
}

static char *
describe (CfFormat format, CfResizeMethod method, const int *size,
    const char *what)
{
  return g_strdup_printf ("%s %s %dx%d -> %dx%d %s",
      cf_format_info (format)->name, method_names[method], size[0], size[1],
      size[2], size[3], what);
}

/* ---- CPU: tables ---- */

/* Checks every output of @axis: weights summing to ONE exactly, taps within
 * the picture and the bound of resize.h, positive weights below 2; with
 * 14 bits (8-bit samples), resize.h's int16 and int32 bounds: every weight
 * and the largest intermediate an output of 8-bit samples can take (all
 * the positive taps at 255, the others 0) within int16, and the vertical
 * sums (sum |w| times that) within int32. */
static void
check_axis (const CfResizeAxis * a)
{
  const CfResizeMethod method = a->method;
  static const double radius[N_METHODS] = { 0, 1, 2, 3, 1 };
  const double f = MAX (1.0, a->scale);
  double bound = method == CF_RESIZE_NEAREST ? 1 :
      method == CF_RESIZE_AREA && f > 1 ? ceil (f) + 1 :
      ceil (2 * radius[method] * f) + 1;
  int i, t;

  g_assert_cmpint (a->taps, >=, 1);
  g_assert_cmpint (a->taps, <=, MIN (bound, a->in_size));
  for (i = 0; i < a->out_size; i++) {
    const int32_t *w = a->weights + (size_t) i * a->taps;
    gint64 sum = 0, positive = 0;

    g_assert_cmpint (a->first[i], >=, 0);
    g_assert_cmpint (a->first[i] + a->taps, <=, a->in_size);
    for (t = 0; t < a->taps; t++) {
      sum += w[t];
      positive += MAX (w[t], 0);
    }
    g_assert_cmpint (sum, ==, ONE (a));
    g_assert_cmpint (positive, <, 2 * ONE (a));
    if (a->weight_bits <= CF_RESIZE_WEIGHT_BITS_8) {
      const int shift = a->weight_bits - CF_RESIZE_INTER_BITS;
      const gint64 h_max = (255 * positive + (1 << (shift - 1))) >> shift;
      const gint64 h_min = (255 * (ONE (a) - positive) +
          (1 << (shift - 1))) >> shift;

      for (t = 0; t < a->taps; t++)
        g_assert_cmpint (ABS (w[t]), <=, G_MAXINT16);
      g_assert_cmpint (h_max, <=, 32640);
      g_assert_cmpint (h_min, >=, -16320);
      g_assert_cmpint ((2 * positive - ONE (a)) * 32640, <, G_MAXINT32);
    }
  }
}

static void
test_cpu_weights (void)
{
  static const int sizes[][2] = { {1, 1}, {1, 2}, {2, 1}, {7, 7}, {3, 32767},
  {32767, 1}, {32767, 2}, {32767, 32766}, {32766, 32767}, {640, 1}, {1, 640},
  {641, 111}, {481, 30}, {30, 481}, {33, 64}, {35, 17}, {1920, 1080},
  {1080, 1920}, {100, 99}
  };
  static const int bits[] = { CF_RESIZE_WEIGHT_BITS (8),
    CF_RESIZE_WEIGHT_BITS (16)
  };
  CfResizeAxis a;
  guint m, s, b;

  g_assert_cmpint (CF_RESIZE_WEIGHT_BITS (8), ==, 14);
  g_assert_cmpint (CF_RESIZE_WEIGHT_BITS (10), ==, 22);
  g_assert_cmpint (CF_RESIZE_WEIGHT_BITS (16), ==, 22);
  for (b = 0; b < G_N_ELEMENTS (bits); b++)
    for (m = 0; m < N_METHODS; m++)
      for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
        const double scale = (double) sizes[s][0] / sizes[s][1];

        g_assert_cmpint (cf_resize_axis_init (&a, m, 1, bits[b], sizes[s][0],
                sizes[s][1], scale, (scale - 1) / 2), ==, 0);
        g_assert_cmpint (a.weight_bits, ==, bits[b]);
        check_axis (&a);
        if (sizes[s][0] == sizes[s][1])
          g_assert_cmpint (a.taps, ==, 1);      /* a copy */
        cf_resize_axis_clear (&a);
        /* a chroma-like offset too */
        g_assert_cmpint (cf_resize_axis_init (&a, m, 1, bits[b], sizes[s][0],
                sizes[s][1], scale, (scale - 1) / 4), ==, 0);
        check_axis (&a);
        cf_resize_axis_clear (&a);
      }
}

/* Without antialiasing a filter keeps its own support at any scale: at
 * most 2 radius + 1 taps (3, 5, 7 for bilinear, bicubic, lanczos), the
 * tables of an upscale are those with antialiasing, and so are nearest's
 * and area's at any scale. */
static void
test_cpu_weights_no_antialias (void)
{
  static const int sizes[][2] = { {1, 1}, {2, 1}, {7, 7}, {32767, 1},
  {32767, 2}, {640, 1}, {1, 640}, {641, 111}, {3840, 1920}, {3840, 1280},
  {1920, 3840}, {100, 99}, {99, 100}
  };
  static const int bound[N_METHODS] = {
    [CF_RESIZE_NEAREST] = 1, [CF_RESIZE_BILINEAR] = 3,
    [CF_RESIZE_BICUBIC] = 5, [CF_RESIZE_LANCZOS] = 7,
  };
  CfResizeAxis a, b;
  guint m, s;

  for (m = 0; m < N_METHODS; m++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      const double scale = (double) sizes[s][0] / sizes[s][1];
      const gboolean same = scale <= 1.0 || m == CF_RESIZE_NEAREST
          || m == CF_RESIZE_AREA;

      g_assert_cmpint (cf_resize_axis_init (&a, m, 0, 14, sizes[s][0],
              sizes[s][1], scale, (scale - 1) / 2), ==, 0);
      g_assert_cmpint (cf_resize_axis_init (&b, m, 1, 14, sizes[s][0],
              sizes[s][1], scale, (scale - 1) / 2), ==, 0);
      check_axis (&a);
      if (m != CF_RESIZE_AREA)
        g_assert_cmpint (a.taps, <=, bound[m]);
      if (same) {
        g_assert_cmpint (a.taps, ==, b.taps);
        g_assert_cmpmem (a.first, sizes[s][1] * 4, b.first, sizes[s][1] * 4);
        g_assert_cmpmem (a.weights, sizes[s][1] * a.taps * 4, b.weights,
            sizes[s][1] * b.taps * 4);
      } else if (sizes[s][0] >= 4 * sizes[s][1]) {
        g_assert_cmpint (a.taps, <, b.taps);
      }
      cf_resize_axis_clear (&a);
      cf_resize_axis_clear (&b);
    }
}

/* Weights of output @i of @a from input @first on, in 16ths (the examples
 * are exact). */
static void
check_16ths (const CfResizeAxis * a, int i, int first, const int *w16, int n)
{
  int t, skip = first - a->first[i];

  g_assert_cmpint (skip, >=, 0);
  for (t = 0; t < a->taps; t++) {
    const int want = t >= skip && t < skip + n ? w16[t - skip] : 0;

    g_assert_cmpint (a->weights[(size_t) i * a->taps + t], ==,
        want * ONE (a) / 16);
  }
}

/* @a has the very tables of an axis made with these arguments. */
static void
check_axis_is (const CfResizeAxis * a, int in, int out, double scale,
    double offset)
{
  CfResizeAxis b;

  g_assert_cmpfloat (a->scale, ==, scale);
  g_assert_cmpfloat (a->offset, ==, offset);
  g_assert_cmpint (cf_resize_axis_init (&b, a->method, 1, a->weight_bits, in,
          out, scale, offset), ==, 0);
  g_assert_cmpint (a->taps, ==, b.taps);
  g_assert_cmpmem (a->first, out * 4, b.first, out * 4);
  g_assert_cmpmem (a->weights, out * a->taps * 4, b.weights, out * b.taps * 4);
  cf_resize_axis_clear (&b);
}

/* NV12 chroma: L = in / out; centred chroma gets offset (L - 1) / 2,
 * co-sited (L - 1) / 4; luma is the same either way. */
static void
test_cpu_siting (void)
{
  static const int sizes[][4] = { {4, 4, 8, 8}, {16, 16, 8, 8},
  {641, 481, 111, 30}, {33, 17, 64, 35}
  };
  CfResizePlan centred, cosited;
  guint s;
  int c;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    const int *z = sizes[s];
    const double lx = (double) z[0] / z[2], ly = (double) z[1] / z[3];

    g_assert_cmpint (cf_resize_plan_init (&centred, CF_FORMAT_NV12,
            CF_RESIZE_BILINEAR, 1, z[0], z[1], z[2], z[3], 0, 0), ==, 0);
    g_assert_cmpint (cf_resize_plan_init (&cosited, CF_FORMAT_NV12,
            CF_RESIZE_BILINEAR, 1, z[0], z[1], z[2], z[3], 1, 1), ==, 0);
    for (c = 0; c < 2; c++) {
      const CfResizePlan *plan = c ? &cosited : &centred;
      const double div = c ? 4.0 : 2.0;

      check_axis_is (&plan->x[0], z[0], z[2], lx, (lx - 1) / 2);
      check_axis_is (&plan->y[0], z[1], z[3], ly, (ly - 1) / 2);
      check_axis_is (&plan->x[1], (z[0] + 1) / 2, (z[2] + 1) / 2, lx,
          (lx - 1) / div);
      check_axis_is (&plan->y[1], (z[1] + 1) / 2, (z[3] + 1) / 2, ly,
          (ly - 1) / div);
    }
    if (s == 0) {
      /* 2x up: chroma 1 at 0.25 (centred): 3/4, 1/4; at 0.375: 5/8, 3/8 */
      check_16ths (&centred.x[1], 1, 0, (const int[]) { 12, 4 }, 2);
      check_16ths (&cosited.x[1], 1, 0, (const int[]) { 10, 6 }, 2);
      check_16ths (&cosited.y[1], 1, 0, (const int[]) { 10, 6 }, 2);
    } else if (s == 1) {
      /* 2x down, tent of radius 2: chroma 1 at 2.5 or 2.25 */
      check_16ths (&centred.x[1], 1, 1, (const int[]) { 2, 6, 6, 2 }, 4);
      check_16ths (&cosited.x[1], 1, 1, (const int[]) { 3, 7, 5, 1 }, 4);
    }
    cf_resize_plan_clear (&centred);
    cf_resize_plan_clear (&cosited);

    /* Y42B: chroma sited along x as NV12's, centred along y (not
     * subsampled there) whatever the flag */
    for (c = 0; c < 2; c++) {
      CfResizePlan plan;

      g_assert_cmpint (cf_resize_plan_init (&plan, CF_FORMAT_Y42B,
              CF_RESIZE_BILINEAR, 1, z[0], z[1], z[2], z[3], c, c), ==, 0);
      check_axis_is (&plan.x[0], z[0], z[2], lx, (lx - 1) / 2);
      check_axis_is (&plan.y[0], z[1], z[3], ly, (ly - 1) / 2);
      check_axis_is (&plan.x[2], (z[0] + 1) / 2, (z[2] + 1) / 2, lx,
          (lx - 1) / (c ? 4.0 : 2.0));
      check_axis_is (&plan.y[2], z[1], z[3], ly, (ly - 1) / 2);
      cf_resize_plan_clear (&plan);
    }
  }
}

/* ---- CPU: known answers ---- */

/* Scales one GRAY8 row of @n samples to @m with @method. */
static void
check_row (CfResizeMethod method, const guint8 * in, int n, const guint8 * want,
    int m)
{
  CfImage src = { CF_FORMAT_GRAY8, n, 1, {(void *) in}, {n} };
  guint8 out[16];
  CfImage dst = { CF_FORMAT_GRAY8, m, 1, {out}, {m} };
  CfResizePlan plan;

  g_assert_cmpint (cf_resize_plan_init (&plan, CF_FORMAT_GRAY8, method, 1, n, 1,
          m, 1, 0, 0), ==, 0);
  g_assert_cmpint (cf_resize_cpu (&plan, &src, &dst), ==, 0);
  g_assert_cmpmem (out, m, want, m);
  cf_resize_plan_clear (&plan);
}

static void
test_cpu_known (void)
{
  /* 0 255 to 4: at -0.25 (edge), 0.25, 0.75, 1.25 (edge) */
  check_row (CF_RESIZE_BILINEAR, (const guint8[]) { 0, 255 }, 2,
      (const guint8[]) { 0, 64, 191, 255 }, 4);
  /* (10 + 20) / 2, (31 + 40) / 2 = 35.5 rounds up */
  check_row (CF_RESIZE_AREA, (const guint8[]) { 10, 20, 31, 40 }, 4,
      (const guint8[]) { 15, 36 }, 2);
  /* 3 to 2: at 0.25 and 1.75 */
  check_row (CF_RESIZE_NEAREST, (const guint8[]) { 1, 2, 3 }, 3,
      (const guint8[]) { 1, 3 }, 2);
  /* 3 to 1, area: the mean, 4.67 */
  check_row (CF_RESIZE_AREA, (const guint8[]) { 1, 3, 10 }, 3,
      (const guint8[]) { 5 }, 1);
  /* a step through Catmull-Rom, 2x up: weights in 128ths (-9, 111, 29, -3
   * and mirrored), so 255 * 26 / 128 = 51.8, 255 * 102 / 128 = 203.2; the
   * undershoot (-17.9) and overshoot (272.9, 261) are clamped */
  check_row (CF_RESIZE_BICUBIC, (const guint8[]) { 0, 0, 255, 255 }, 4,
      (const guint8[]) { 0, 0, 0, 52, 203, 255, 255, 255 }, 8);
}

/* Halving with bilinear: output i sits at input 2i + 0.5. Antialiased, the
 * tent is widened to 4 taps, 1/8 3/8 3/8 1/8 (edges folded); without, it
 * has 2, 1/2 1/2: exactly NPP's and videoscale's 2-tap linear filter. */
static void
test_cpu_known_no_antialias (void)
{
  static const int halves[] = { 8, 8 }, eighths[] = { 2, 6, 6, 2 };
  CfResizeAxis a;
  int i;

  g_assert_cmpint (cf_resize_axis_init (&a, CF_RESIZE_BILINEAR, 0, 14, 8, 4,
          2.0, 0.5), ==, 0);
  g_assert_cmpint (a.taps, ==, 2);
  for (i = 0; i < 4; i++)
    check_16ths (&a, i, 2 * i, halves, 2);
  cf_resize_axis_clear (&a);
  g_assert_cmpint (cf_resize_axis_init (&a, CF_RESIZE_BILINEAR, 1, 22, 8, 4,
          2.0, 0.5), ==, 0);
  g_assert_cmpint (a.taps, ==, 4);
  check_16ths (&a, 1, 1, eighths, 4);
  check_16ths (&a, 2, 3, eighths, 4);
  cf_resize_axis_clear (&a);
}

/* Scales a one-row picture of @format (16-bit samples) of @n pixels to @m
 * with @method: every sample of pixel x of plane 0 is @in[x], every sample
 * of the other planes 0xffff (the largest value, every bit outside it set).
 * The samples of plane 0 must be @want, the other planes' the largest
 * value in place. */
static void
check_row16 (CfFormat format, CfResizeMethod method, const guint16 * in,
    int n, const guint16 * want, int m)
{
  CfResizePlan plan;
  Frame src, dst;
  int p, x, k;

  frame_init (&src, format, n, 1, 0, 0);
  frame_init (&dst, format, m, 1, 2, 0);
  for (p = 0; p < src.n_planes; p++)
    for (x = 0; x < src.w[p]; x++)
      for (k = 0; k < samples_per_pixel (&src, p); k++)
        sample_set (&src, p, x, 0, k, p == 0 ? in[x] : 0xffff);
  g_assert_cmpint (cf_resize_plan_init (&plan, format, method, 1, n, 1, m, 1, 0,
          0), ==, 0);
  g_assert_cmpint (cf_resize_cpu (&plan, &src.img, &dst.img), ==, 0);
  for (p = 0; p < dst.n_planes; p++)
    for (x = 0; x < dst.w[p]; x++)
      for (k = 0; k < samples_per_pixel (&dst, p); k++)
        g_assert_cmphex (sample_get (&dst, p, x, 0, k), ==, p == 0 ? want[x] :
            CF_VALUE_SAMPLE (max_value (&dst), frame_info (&dst)->lsb));
  check_padding (&dst, MARKER, cf_format_info (format)->name);
  cf_resize_plan_clear (&plan);
  frame_clear (&src);
  frame_clear (&dst);
}

/* 10- and 16-bit values: the bits of a sample outside its value ignored,
 * outputs clamped to the format's max and written in place. */
static void
test_cpu_known_deep (void)
{
  static const CfFormat sixteen[] = { CF_FORMAT_GRAY16_LE, CF_FORMAT_P016_LE,
    CF_FORMAT_Y444_16LE, CF_FORMAT_RGBA64_LE, CF_FORMAT_BGRA64_LE
  };
  guint i;

  /* 0 1023 to 4 as test_cpu_known (): 1023 / 4 = 255.75, 767.25; 0xffff
   * holds 1023 under the junk of I420_10LE's high bits, and 1023 with
   * P010's low bits set */
  check_row16 (CF_FORMAT_I420_10LE, CF_RESIZE_BILINEAR,
      (const guint16[]) { 0, 0xffff }, 2,
      (const guint16[]) { 0, 256, 767, 1023 }, 4);
  check_row16 (CF_FORMAT_P010_10LE, CF_RESIZE_BILINEAR,
      (const guint16[]) { 0x003f, 0xffff }, 2,
      (const guint16[]) { 0, 256 << 6, 767 << 6, 1023 << 6 }, 4);
  /* nearest copies the value, not the sample */
  check_row16 (CF_FORMAT_P010_10LE, CF_RESIZE_NEAREST,
      (const guint16[]) { 5 << 6 | 0x2a, 0xffff }, 2,
      (const guint16[]) { 5 << 6, 5 << 6, 0xffc0, 0xffc0 }, 4);
  check_row16 (CF_FORMAT_I420_10LE, CF_RESIZE_AREA,
      (const guint16[]) { 0xfc00 | 10, 20, 0x8000 | 31, 40 }, 4,
      (const guint16[]) { 15, 36 }, 2);
  /* the step of test_cpu_known () at 10 bits: 1023 * 26 / 128 = 207.8,
   * 1023 * 102 / 128 = 815.2, the overshoot clamped to 1023, not to the
   * 16 bits of the sample */
  check_row16 (CF_FORMAT_I420_10LE, CF_RESIZE_BICUBIC,
      (const guint16[]) { 0, 0xfc00, 1023, 0xffff }, 4,
      (const guint16[]) { 0, 0, 0, 208, 815, 1023, 1023, 1023 }, 8);
  check_row16 (CF_FORMAT_P010_10LE, CF_RESIZE_BICUBIC,
      (const guint16[]) { 0x0001, 0x003f, 0xffc0, 0xffff }, 4,
      (const guint16[]) { 0, 0, 0, 208 << 6, 815 << 6, 0xffc0, 0xffc0,
        0xffc0 }, 8);
  /* and at 16 bits: 65535 * 26 / 128 = 13311.8, 65535 * 102 / 128 =
   * 52223.2; 65535 / 4 = 16383.75 */
  for (i = 0; i < G_N_ELEMENTS (sixteen); i++) {
    check_row16 (sixteen[i], CF_RESIZE_BICUBIC,
        (const guint16[]) { 0, 0, 0xffff, 0xffff }, 4,
        (const guint16[]) { 0, 0, 0, 13312, 52223, 0xffff, 0xffff, 0xffff },
        8);
    check_row16 (sixteen[i], CF_RESIZE_BILINEAR,
        (const guint16[]) { 0, 0xffff }, 2,
        (const guint16[]) { 0, 16384, 49151, 0xffff }, 4);
  }
}

/* P010 and I420_10LE of the same values (random, under random bits outside
 * them) scale to the same values, every method, odd sizes too; P010's low
 * bits change no output byte. */
static void
test_cpu_p010_i420 (void)
{
  static const int sizes[][4] = { {1, 1, 3, 3}, {7, 5, 3, 2}, {3, 3, 1, 1},
  {33, 17, 64, 35}, {64, 35, 33, 17}, {641, 481, 111, 30}
  };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  guint m, s;
  int p, x, y, k;

  for (m = 0; m < N_METHODS; m++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      const int *z = sizes[s];
      char *what = describe (CF_FORMAT_P010_10LE, m, z, "against I420_10LE");
      Frame i420, p010, clean, out_i, out_p, out_c;
      CfResizePlan plan_i, plan_p;

      frame_init (&i420, CF_FORMAT_I420_10LE, z[0], z[1], 3, 0);
      frame_init (&p010, CF_FORMAT_P010_10LE, z[0], z[1], 5, 0);
      frame_init (&clean, CF_FORMAT_P010_10LE, z[0], z[1], 0, 0);
      frame_random (&i420, rand);
      frame_random (&p010, rand);
      /* I420_10LE plane p is P010's plane 0, or sample p - 1 of plane 1 */
      for (p = 0; p < i420.n_planes; p++)
        for (y = 0; y < i420.h[p]; y++)
          for (x = 0; x < i420.w[p]; x++) {
            const guint v = value_get (&i420, p, x, y, 0);
            const int q = p ? 1 : 0;

            k = p ? p - 1 : 0;
            sample_set (&p010, q, x, y, k, v << 6 |
                (sample_get (&p010, q, x, y, k) & 0x3f));
            value_set (&clean, q, x, y, k, v);
          }
      g_assert_cmpint (cf_resize_plan_init (&plan_i, CF_FORMAT_I420_10LE, m, 1,
              z[0], z[1], z[2], z[3], s & 1, s >> 1 & 1), ==, 0);
      g_assert_cmpint (cf_resize_plan_init (&plan_p, CF_FORMAT_P010_10LE, m, 1,
              z[0], z[1], z[2], z[3], s & 1, s >> 1 & 1), ==, 0);
      frame_init (&out_i, CF_FORMAT_I420_10LE, z[2], z[3], 1, 0);
      frame_init (&out_p, CF_FORMAT_P010_10LE, z[2], z[3], 2, 0);
      frame_init (&out_c, CF_FORMAT_P010_10LE, z[2], z[3], 0, 0);
      g_assert_cmpint (cf_resize_cpu (&plan_i, &i420.img, &out_i.img), ==, 0);
      g_assert_cmpint (cf_resize_cpu (&plan_p, &p010.img, &out_p.img), ==, 0);
      g_assert_cmpint (cf_resize_cpu (&plan_p, &clean.img, &out_c.img), ==,
          0);

      check_samples (&out_p, &out_c, what);
      for (p = 0; p < out_i.n_planes; p++)
        for (y = 0; y < out_i.h[p]; y++)
          for (x = 0; x < out_i.w[p]; x++) {
            const guint v = sample_get (&out_i, p, x, y, 0);

            /* nothing above the 10 bits, nothing below P010's */
            g_assert_cmpuint (v, <=, 1023);
            g_assert_cmphex (sample_get (&out_p, p ? 1 : 0, x, y,
                    p ? p - 1 : 0), ==, v << 6);
          }
      check_padding (&out_i, MARKER, what);
      check_padding (&out_p, MARKER, what);
      cf_resize_plan_clear (&plan_i);
      cf_resize_plan_clear (&plan_p);
      frame_clear (&i420);
      frame_clear (&p010);
      frame_clear (&clean);
      frame_clear (&out_i);
      frame_clear (&out_p);
      frame_clear (&out_c);
      g_free (what);
    }
  g_rand_free (rand);
}

/* What run_cases () expects of a scaled picture. */
typedef enum
{
  EXPECT_CONSTANT,              /* a constant picture stays constant */
  EXPECT_COPY,                  /* an unchanged size copies */
  EXPECT_DUPLICATE,             /* nearest 2x up: each sample twice each way */
  EXPECT_MEAN,                  /* area 2x down: 2x2 means, rounded half up */
  EXPECT_MODEL                  /* within 1 LSB of the model */
} Expect;

/* The value of sample @k of output pixel (@x, @y) of plane @p as @e says
 * (not for EXPECT_CONSTANT and EXPECT_MODEL). Chroma is subsampled alike in
 * input and output, so these hold on every plane: nearest 2x up puts output
 * chroma j at 0.5 j - 0.25 (- 0.125 co-sited), nearest to j / 2; area 2x
 * down with centred chroma covers chroma samples 2j and 2j + 1. */
static guint
expected (Expect e, const Frame * src, int p, int x, int y, int k)
{
  if (e == EXPECT_COPY)
    return value_get (src, p, x, y, k);
  if (e == EXPECT_DUPLICATE)
    return value_get (src, p, x / 2, y / 2, k);
  return (value_get (src, p, 2 * x, 2 * y, k) +
      value_get (src, p, 2 * x + 1, 2 * y, k) +
      value_get (src, p, 2 * x, 2 * y + 1, k) +
      value_get (src, p, 2 * x + 1, 2 * y + 1, k) + 2) / 4;
}

/* Checks that the values of @dst are within 1 LSB of the model (clamped to
 * the value range) and that its samples hold nothing else: every pixel of
 * planes of at most @limit pixels, @limit of larger ones (the model costs
 * the product of the taps of both axes), a quarter of them near a corner,
 * where taps fold; @worst gets the largest error for 8- and 16-bit
 * samples. */
static void
check_model (const CfResizePlan * plan, const Frame * src, const Frame * dst,
    int limit, GRand * rand, double *worst, const char *what)
{
  int p, x, y, k, i;

  for (p = 0; p < dst->n_planes; p++) {
    const int w = dst->w[p], h = dst->h[p];
    const gboolean all = w * h <= limit;
    const double max = max_value (dst);

    for (i = 0; i < (all ? w * h : limit); i++) {
      x = all ? i % w : g_rand_int_range (rand, 0, w);
      y = all ? i / w : g_rand_int_range (rand, 0, h);
      if (!all && i % 4 == 0) { /* within 3 of a corner */
        x = i % 8 ? x % MIN (w, 3) : w - 1 - x % MIN (w, 3);
        y = i % 16 < 8 ? y % MIN (h, 3) : h - 1 - y % MIN (h, 3);
      }
      for (k = 0; k < dst->pb[p] / dst->sb[p]; k++) {
        const double m = CLAMP (cf_resize_model (plan, &src->img, p, x, y, k),
            0, max);
        const guint v = value_get (dst, p, x, y, k);
        const double err = fabs (v - m);

        if (!(err <= 1.0)) {
          g_printerr ("%s: plane %d, pixel %d,%d, sample %d: %u, model %.4f\n",
              what, p, x, y, k, v, m);
          g_assert_cmpfloat (err, <=, 1.0);
        }
        g_assert_cmphex (sample_get (dst, p, x, y, k), ==,
            CF_VALUE_SAMPLE (v, frame_info (dst)->lsb));
        worst[dst->sb[p] - 1] = MAX (worst[dst->sb[p] - 1], err);
      }
    }
  }
}

/* Test cases of run_cases (): every format, with every method of @methods
 * (a bit mask) and every size of @sizes (in width, height, out width,
 * height). */
typedef struct
{
  const char *path;
  Expect expect;
  guint methods;
  const int (*sizes)[4];
  guint n_sizes;
  gboolean no_antialias;        /* the filters' own support (antialias 0) */
} Cases;

static const int copy_sizes[][4] = { {1, 1, 1, 1}, {7, 5, 7, 5},
{2, 9, 2, 9}, {33, 17, 33, 17}, {640, 480, 640, 480}
};
static const int twice_sizes[][4] = { {1, 1, 2, 2}, {5, 3, 10, 6},
{33, 17, 66, 34}, {64, 48, 128, 96}
};

/* chroma planes of even sizes too */
static const int half_sizes[][4] = { {4, 4, 2, 2}, {12, 8, 6, 4},
{64, 36, 32, 18}, {640, 480, 320, 240}
};

#define ALL_METHODS ((1u << N_METHODS) - 1)
#define CASES(sizes) sizes, G_N_ELEMENTS (sizes)
static const Cases cases[] = {
  {"/resize/cpu/constant", EXPECT_CONSTANT, ALL_METHODS, CASES (matrix)},
  {"/resize/cpu/identity", EXPECT_COPY, ALL_METHODS, CASES (copy_sizes)},
  {"/resize/cpu/nearest-2x", EXPECT_DUPLICATE, 1 << CF_RESIZE_NEAREST,
      CASES (twice_sizes)},
  {"/resize/cpu/area-2x", EXPECT_MEAN, 1 << CF_RESIZE_AREA,
      CASES (half_sizes)},
  {"/resize/cpu/model", EXPECT_MODEL, ALL_METHODS, CASES (matrix)},
  {"/resize/cpu/model-no-antialias", EXPECT_MODEL, ALL_METHODS,
      CASES (matrix), TRUE},
};

/* Scales the pictures of @data (Cases) on the CPU, and checks the plan's
 * tables, that the padding of the output rows stays untouched, and the
 * samples as the case expects. The chroma siting varies with the size (bit
 * 0: co-sited horizontally, bit 1: vertically), except for EXPECT_MEAN
 * (centred). */
static void
run_cases (gconstpointer data)
{
  const Cases *c = data;
  const Expect expect = c->expect;
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  double worst[2] = { 0, 0 };
  guint f, m, s;
  int p, x, y, k;

  CF_FOR_EACH_FORMAT (f)
    for (m = 0; m < N_METHODS; m++)
      for (s = 0; (c->methods & (1u << m)) && s < c->n_sizes; s++) {
        const int *z = c->sizes[s], cosited = expect == EXPECT_MEAN ? 0 : s % 4;
        char *what = describe (f, m, z, expect == EXPECT_CONSTANT ?
            "constant" : "random");
        CfResizePlan plan;
        Frame src, dst, want;

        frame_init (&src, f, z[0], z[1], 3, 0);
        if (expect == EXPECT_CONSTANT)
          frame_constant (&src, TRUE);
        else
          frame_random (&src, rand);
        g_assert_cmpint (cf_resize_plan_init (&plan, f, m, !c->no_antialias,
                z[0], z[1], z[2], z[3], cosited & 1, cosited >> 1), ==, 0);
        for (p = 0; p < src.n_planes; p++) {
          g_assert_cmpint (plan.x[p].weight_bits, ==,
              CF_RESIZE_WEIGHT_BITS (8 * src.sb[p]));
          g_assert_cmpint (plan.y[p].weight_bits, ==,
              CF_RESIZE_WEIGHT_BITS (8 * src.sb[p]));
          check_axis (&plan.x[p]);
          check_axis (&plan.y[p]);
        }
        frame_init (&dst, f, z[2], z[3], 5, 0);
        g_assert_cmpint (cf_resize_cpu (&plan, &src.img, &dst.img), ==, 0);
        check_padding (&dst, MARKER, what);

        if (expect == EXPECT_MODEL) {
          check_model (&plan, &src, &dst, 64, rand, worst, what);
        } else {
          /* values: the samples of @src hold more (random bits, junk) */
          frame_init (&want, f, z[2], z[3], 0, 0);
          if (expect == EXPECT_CONSTANT)
            frame_constant (&want, FALSE);
          for (p = 0; expect != EXPECT_CONSTANT && p < want.n_planes; p++)
            for (y = 0; y < want.h[p]; y++)
              for (x = 0; x < want.w[p]; x++)
                for (k = 0; k < want.pb[p] / want.sb[p]; k++)
                  value_set (&want, p, x, y, k,
                      expected (expect, &src, p, x, y, k));
          check_samples (&dst, &want, what);
          frame_clear (&want);
        }
        cf_resize_plan_clear (&plan);
        frame_clear (&src);
        frame_clear (&dst);
        g_free (what);
      }
  if (expect == EXPECT_MODEL)
    g_test_message ("largest error against the model: %.4f LSB (8 bits), "
        "%.4f LSB (16 bits)", worst[0], worst[1]);
  g_rand_free (rand);
}

static void
test_cpu_invalid (void)
{
  static const int sizes[][4] = { {0, 1, 1, 1}, {1, 0, 1, 1}, {1, 1, 0, 1},
  {1, 1, 1, 0}, {CF_MAX_SIDE + 1, 1, 1, 1}, {1, 1, 1, CF_MAX_SIDE + 1},
  {-5, 1, 1, 1}, {4, 4, 2, 2}, {4, 4, 2, 2}
  };
  CfResizePlan plan;
  CfResizeAxis axis;
  Frame src, dst;
  int i;

  for (i = 0; i < (int) G_N_ELEMENTS (sizes); i++) {
    /* the last two: an unknown format, an unknown method */
    g_assert_cmpint (cf_resize_plan_init (&plan, i == 7 ? CF_FORMAT_COUNT :
            CF_FORMAT_RGBA, i == 8 ? CF_RESIZE_METHOD_COUNT :
            CF_RESIZE_BILINEAR, 1, sizes[i][0], sizes[i][1], sizes[i][2],
            sizes[i][3], 0, 0), ==, -1);
    cf_resize_plan_clear (&plan);       /* safe after a failure */
  }
  g_assert_cmpint (cf_resize_plan_init (NULL, CF_FORMAT_RGBA,
          CF_RESIZE_BILINEAR, 1, 4, 4, 2, 2, 0, 0), ==, -1);
  g_assert_cmpint (cf_resize_axis_init (&axis, CF_RESIZE_BILINEAR, 1, 14, 4, 2,
          0.0, 0.0), ==, -1);
  g_assert_cmpint (cf_resize_axis_init (&axis, CF_RESIZE_BILINEAR, 1, 14, 4, 2,
          NAN, 0.5), ==, -1);
  g_assert_cmpint (cf_resize_axis_init (&axis, CF_RESIZE_BILINEAR, 1, 14, 4, 2,
          2.0, INFINITY), ==, -1);
  /* weight bits: at least I + 2, at most 22 */
  g_assert_cmpint (cf_resize_axis_init (&axis, CF_RESIZE_BILINEAR, 1,
          CF_RESIZE_INTER_BITS + 1, 4, 2, 2.0, 0.5), ==, -1);
  g_assert_cmpint (cf_resize_axis_init (&axis, CF_RESIZE_BILINEAR, 1, 23, 4,
          2, 2.0, 0.5), ==, -1);
  cf_resize_axis_clear (&axis);

  /* I420 8x6 to 4x4: images spoilt every way, on either side */
  frame_init (&src, CF_FORMAT_I420, 8, 6, 0, 0);
  frame_init (&dst, CF_FORMAT_I420, 4, 4, 0, 0);
  g_assert_cmpint (cf_resize_plan_init (&plan, CF_FORMAT_I420,
          CF_RESIZE_LANCZOS, 1, 8, 6, 4, 4, 1, 0), ==, 0);
  g_assert_cmpint (cf_resize_cpu (&plan, &src.img, &dst.img), ==, 0);
  for (i = 0; i < 12; i++) {
    CfImage b = i < 6 ? src.img : dst.img;

    bad_image (&b, i % 6);
    g_assert_cmpint (cf_resize_cpu (&plan, i < 6 ? &b : &src.img,
            i < 6 ? &dst.img : &b), ==, -1);
    if (i < 6)
      g_assert_true (isnan (cf_resize_model (&plan, &b, 0, 0, 0, 0)));
  }
  g_assert_cmpint (cf_resize_cpu (&plan, &src.img, NULL), ==, -1);
  g_assert_cmpint (cf_resize_cpu (NULL, &src.img, &dst.img), ==, -1);
  g_assert_cmpint (cf_resize_cpu_path (&plan, &src.img, &dst.img, 1, 7), ==,
      -1);
  g_assert_cmpuint (cf_resize_cpu_simd_planes (NULL), ==, 0);
  /* plane 3, x 2 of a 2-wide plane, y 4 of 4 rows, sample 1 of 1 */
  g_assert_true (isnan (cf_resize_model (&plan, &src.img, 3, 0, 0, 0)));
  g_assert_true (isnan (cf_resize_model (&plan, &src.img, 1, 2, 0, 0)));
  g_assert_true (isnan (cf_resize_model (&plan, &src.img, 0, 0, 4, 0)));
  g_assert_true (isnan (cf_resize_model (&plan, &src.img, 0, 0, 0, 1)));
  g_assert_false (isnan (cf_resize_model (&plan, &src.img, 2, 1, 1, 0)));
  cf_resize_plan_clear (&plan);
  g_assert_cmpint (cf_resize_cpu (&plan, &src.img, &dst.img), ==, -1);
  frame_clear (&src);
  frame_clear (&dst);
}

/* ---- CUDA against the CPU reference ---- */
#ifdef HAVE_CUDA


/* What the GPU tests share: random numbers, a stream, and a workspace that
 * grows as the sizes need. */
static GRand *gpu_rand;
static gboolean gpu_antialias = TRUE;   /* of gpu_check ()'s plans */
static cudaStream_t gpu_stream;
static void *gpu_ws;
static size_t gpu_ws_bytes;

/* How gpu_check () lays out and fills its pictures. */
typedef enum
{
  RANDOM_PADDED,                /* pitch row + 48: mostly unaligned rows */
  RANDOM_ALIGNED,               /* pitch a multiple of 64, with padding */
  CONSTANT_DENSE,               /* pitch exactly a row */
  RANDOM_ODD_OUTPUT,            /* the input as RANDOM_ALIGNED, the output
                                 * as RANDOM_ODD: aligned loads, unaligned
                                 * stores */
  RANDOM_ODD                    /* planes at odd addresses, pitch row + 5:
                                 * no sample aligned, 16-bit ones neither */
} Layout;

/* Scales a picture laid out as @layout with @method on both backends (the
 * GPU with @kernels) and compares every sample. The device output is
 * poisoned before the launch: its padding must still hold POISON after it,
 * and no sample may (a constant picture has none). */
static void
gpu_check (CfFormat format, CfResizeMethod method, const int *size,
    int cosited, Layout layout, CfResizeKernels kernels)
{
  static const char *const layouts[] = { "random, padded",
    "random, aligned", "constant", "random, odd output addresses",
    "random, odd addresses"
  };
  const gboolean random = layout != CONSTANT_DENSE;
  const gboolean odd_out = layout == RANDOM_ODD ||
      layout == RANDOM_ODD_OUTPUT;
  const size_t extra = layout == RANDOM_PADDED ? 48 :
      layout == RANDOM_ALIGNED || layout == RANDOM_ODD_OUTPUT ?
      ALIGNED_PITCH : layout == RANDOM_ODD ? 5 : 0;
  const int misalign = layout == RANDOM_ODD ? 1 : 0;
  char *what = describe (format, method, size, layouts[layout]);
  CfResizeDevicePlan *d_plan;
  CfResizePlan plan;
  Frame src, want, got;
  Device d_src, d_dst;

  frame_init (&src, format, size[0], size[1], extra, misalign);
  if (random)
    frame_random (&src, gpu_rand);
  else
    frame_constant (&src, TRUE);
  g_assert_cmpint (cf_resize_plan_init (&plan, format, method, gpu_antialias,
          size[0], size[1], size[2], size[3], cosited & 1, cosited >> 1), ==,
      0);
  frame_init (&want, format, size[2], size[3], odd_out ? 5 : extra,
      odd_out ? 1 : 0);
  frame_init (&got, format, size[2], size[3], odd_out ? 5 : extra,
      odd_out ? 1 : 0);
  g_assert_cmpint (cf_resize_cpu (&plan, &src.img, &want.img), ==, 0);

  CHECK_CUDA (cf_resize_device_plan_new (&plan, kernels, &d_plan));
  if (cf_resize_device_plan_workspace_bytes (d_plan) > gpu_ws_bytes) {
    gpu_ws_bytes = cf_resize_device_plan_workspace_bytes (d_plan);
    CHECK_CUDA (cudaFree (gpu_ws));
    CHECK_CUDA (cudaMalloc (&gpu_ws, gpu_ws_bytes));
  }
  device_init (&src, &d_src, FALSE, gpu_stream);
  device_init (&got, &d_dst, TRUE, gpu_stream);
  CHECK_CUDA (cf_resize_cuda (d_plan, &d_src.img, &d_dst.img, gpu_ws,
          gpu_stream));
  device_finish (&d_dst, &got, gpu_stream);
  device_finish (&d_src, NULL, gpu_stream);

  if (g_test_verbose ())
    g_print ("%s: %s\n", what, cf_resize_device_plan_describe (d_plan, 0));
  check_samples (&got, &want, what);
  check_padding (&got, POISON, what);
  cf_resize_device_plan_free (d_plan);
  cf_resize_plan_clear (&plan);
  frame_clear (&src);
  frame_clear (&want);
  frame_clear (&got);
  g_free (what);
}

static void
gpu_begin (void)
{
  gpu_rand = g_rand_new_with_seed (cf_test_seed ());
  CHECK_CUDA (cudaStreamCreateWithFlags (&gpu_stream, cudaStreamNonBlocking));
}

static void
gpu_end (void)
{
  CHECK_CUDA (cudaFree (gpu_ws));
  gpu_ws = NULL;
  gpu_ws_bytes = 0;
  CHECK_CUDA (cudaStreamDestroy (gpu_stream));
  g_rand_free (gpu_rand);
}

/* A layout and the kernels to scale it with, for gpu_check_matrix (). */
typedef struct
{
  Layout layout;
  CfResizeKernels kernels;
} MatrixRun;

/* Every format and method over the matrix, each run of @runs; the chroma
 * siting varies with the size. */
static void
gpu_check_matrix (const MatrixRun * runs, guint n_runs)
{
  guint f, m, s, r;

  CF_FOR_EACH_FORMAT (f)
    for (m = 0; m < N_METHODS; m++)
      for (s = 0; s < G_N_ELEMENTS (matrix); s++)
        for (r = 0; r < n_runs; r++)
          gpu_check (f, m, matrix[s], s % 4, runs[r].layout,
              runs[r].kernels);
}

/* Random (unaligned and aligned rows, planes at odd addresses) and
 * constant pictures, with the kernels chosen for the plan, with the two
 * passes, and with the fused kernel where AUTO takes the direct one. */
static void
test_cuda_matrix (void)
{
  static const MatrixRun runs[] = {
    {RANDOM_PADDED, CF_RESIZE_KERNELS_AUTO},
    {RANDOM_ALIGNED, CF_RESIZE_KERNELS_AUTO},
    {CONSTANT_DENSE, CF_RESIZE_KERNELS_AUTO},
    {RANDOM_ODD, CF_RESIZE_KERNELS_AUTO},
    {RANDOM_ALIGNED, CF_RESIZE_KERNELS_TWO_PASS},
    {RANDOM_ODD, CF_RESIZE_KERNELS_FUSED},
  };

  gpu_begin ();
  gpu_check_matrix (runs, G_N_ELEMENTS (runs));
  gpu_end ();
}

/* The benchmark's sizes, every method: 4K to 1080p and back, 1080p to
 * 720p and back, 4K to 720p, RGBA, NV12 (centred and co-sited chroma) and
 * I420, and the layouts of 16-bit samples (RGBA64's 8-byte pixels, P010's
 * pairs and I420_10LE's 10 low bits), so that the fused kernel's many full
 * and partial tiles are compared too. */
static void
test_cuda_video_sizes (void)
{
  static const int sizes[][4] = {
    {3840, 2160, 1920, 1080}, {1920, 1080, 3840, 2160},
    {1920, 1080, 1280, 720}, {1280, 720, 1920, 1080},
    {3840, 2160, 1280, 720},
  };
  guint m, s;

  gpu_begin ();
  for (m = 0; m < N_METHODS; m++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      gpu_check (CF_FORMAT_RGBA, m, sizes[s], 0, RANDOM_ALIGNED,
          CF_RESIZE_KERNELS_AUTO);
      gpu_check (CF_FORMAT_NV12, m, sizes[s], s & 1 ? 3 : 0, RANDOM_ALIGNED,
          CF_RESIZE_KERNELS_AUTO);
      gpu_check (CF_FORMAT_I420, m, sizes[s], 1, RANDOM_PADDED,
          CF_RESIZE_KERNELS_AUTO);
      gpu_check (CF_FORMAT_RGBA64_LE, m, sizes[s], 0, RANDOM_ALIGNED,
          CF_RESIZE_KERNELS_AUTO);
      gpu_check (CF_FORMAT_P010_10LE, m, sizes[s], s & 1 ? 3 : 0,
          RANDOM_PADDED, CF_RESIZE_KERNELS_AUTO);
      gpu_check (CF_FORMAT_I420_10LE, m, sizes[s], 1, RANDOM_ALIGNED,
          CF_RESIZE_KERNELS_AUTO);
    }
  gpu_check (CF_FORMAT_NV12, CF_RESIZE_BILINEAR, sizes[0], 3, CONSTANT_DENSE,
      CF_RESIZE_KERNELS_AUTO);
  gpu_end ();
}

/* Without antialiasing (the filters' own taps), every format and method
 * over the matrix and the benchmark's sizes, with the kernels AUTO chooses,
 * with the two passes and with the fused kernel instead of the direct
 * one. */
static void
test_cuda_no_antialias (void)
{
  static const int sizes[][4] = {
    {3840, 2160, 1920, 1080}, {3840, 2160, 1280, 720}, {1920, 1080, 640, 360},
  };
  static const MatrixRun runs[] = {
    {RANDOM_PADDED, CF_RESIZE_KERNELS_AUTO},
    {RANDOM_ALIGNED, CF_RESIZE_KERNELS_TWO_PASS},
    {RANDOM_ALIGNED, CF_RESIZE_KERNELS_FUSED},
  };
  guint m, s;

  gpu_begin ();
  gpu_antialias = FALSE;
  gpu_check_matrix (runs, G_N_ELEMENTS (runs));
  for (m = 0; m < N_METHODS; m++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      gpu_check (CF_FORMAT_RGBA, m, sizes[s], 0, RANDOM_ALIGNED,
          CF_RESIZE_KERNELS_AUTO);
      gpu_check (CF_FORMAT_RGBA, m, sizes[s], 0, RANDOM_ODD,
          CF_RESIZE_KERNELS_FUSED);
      gpu_check (CF_FORMAT_NV12, m, sizes[s], 3, RANDOM_PADDED,
          CF_RESIZE_KERNELS_AUTO);
      gpu_check (CF_FORMAT_P010_10LE, m, sizes[s], 0, RANDOM_ALIGNED,
          CF_RESIZE_KERNELS_AUTO);
    }
  gpu_antialias = TRUE;
  gpu_end ();
}

/* The kernels AUTO chooses, for every plane of 8-bit RGBA and NV12 and of
 * the layouts of 16-bit samples (nearest: /resize/cuda/nearest-lines): for
 * 8-bit samples in 1-, 2- or 4-byte pixels (RGBA, NV12's luma and chroma)
 * the direct kernel where each output's own few taps cost less than
 * sharing them (downscales; 1-byte pixels in strips up to 4 taps only;
 * at an exact 2x of antialiased bilinear: halve_kernel, /resize/cuda/halve;
 * at 3x, on 1-, 2- and 4-byte pixels of large planes: third_kernel,
 * /resize/cuda/third; at 1.5x, on 1-, 2- and 4-byte ones: its two thirds,
 * /resize/cuda/two-thirds);
 * the fused kernel for the other video sizes; the two passes where a tile's
 * footprint is too large for shared memory (so that the matrix above
 * exercises each for each layout). CF_RESIZE_KERNELS_FUSED takes the fused
 * kernel where AUTO takes the direct one, TWO_PASS the two passes
 * everywhere. */
static void
test_cuda_kernels (void)
{
  static const struct
  {
    CfResizeMethod method;
    int antialias;
    int size[4];
    const char *kernel;
    const char *kernel_direct;  /* planes the direct kernel takes */
    const char *kernel_luma;    /* the same of 1-byte pixels (NV12's luma):
                                 * strips up to 4 taps only */
    const char *kernel_4;       /* the same of 4-byte pixels (RGBA) where
                                 * not kernel_direct */
  } cases[] = {
    /* antialiased bilinear at exactly 2x: halve_kernel (/resize/cuda/halve)
     * on every 8-bit plane */
    {CF_RESIZE_BILINEAR, 1, {3840, 2160, 1920, 1080}, "fused", "halve",
        "halve"},
    /* 2 taps at a 2x downscale share no rows: rows */
    {CF_RESIZE_AREA, 1, {3840, 2160, 1920, 1080}, "fused", "direct", "direct"},
    {CF_RESIZE_LANCZOS, 1, {7680, 4320, 3840, 2160}, "fused",
        "direct strips", "fused"},
    /* 6 taps an axis on a plane too small for strips of more than 2 rows
     * (kStripWarps): rows */
    {CF_RESIZE_BILINEAR, 1, {1000, 500, 333, 250}, "fused", "direct", "direct"},
    /* 1.5x downscales along y: strips from 4 taps on (6 here; on a plane
     * with rows enough for strips of 4, NV12's chroma too), rows below */
    {CF_RESIZE_BICUBIC, 1, {7680, 4320, 5120, 2880}, "fused",
        "direct strips", "fused"},
    /* 3x downscales along y: strips from 7 taps on (11 here: bicubic; on
     * a plane with rows enough for strips of 4, NV12's chroma too), rows
     * below (5: bilinear) */
    {CF_RESIZE_BICUBIC, 1, {11520, 6480, 3840, 2160}, "fused",
        "direct strips", "fused"},
    /* and up to 17 taps an axis there (lanczos) */
    {CF_RESIZE_LANCZOS, 1, {11520, 6480, 3840, 2160}, "fused",
        "direct strips", "fused"},
    /* antialiased bilinear at exactly 3x: third_kernel on 1-, 2- and
     * 4-byte pixels of large planes (/resize/cuda/third; NV12's chroma is
     * too small) */
    {CF_RESIZE_BILINEAR, 1, {3840, 2160, 1280, 720}, "fused", "direct",
        "third", "third"},
    /* other downscales with few taps: rows */
    /* antialiased bilinear at exactly 1.5x: third_kernel's two thirds on
     * 1-, 2- and 4-byte pixels of large planes (/resize/cuda/two-thirds;
     * NV12's chroma is too small) */
    {CF_RESIZE_BILINEAR, 1, {1920, 1080, 1280, 720}, "fused", "direct",
        "two thirds", "two thirds"},
    {CF_RESIZE_AREA, 1, {3840, 2160, 1280, 720}, "fused", "direct", "direct"},
    /* 16 taps along y: fused */
    {CF_RESIZE_BICUBIC, 1, {3840, 2160, 1920, 540}, "fused", "fused", "fused"},
    /* upscales: the fused kernel, faster there since its dp2a pairs */
    {CF_RESIZE_BILINEAR, 1, {1920, 1080, 3840, 2160}, "fused", "fused",
        "fused"},
    {CF_RESIZE_BICUBIC, 1, {1920, 1080, 3840, 2160}, "fused", "fused", "fused"},
    {CF_RESIZE_AREA, 1, {641, 481, 111, 30}, "fused", "fused", "fused"},
    {CF_RESIZE_LANCZOS, 1, {640, 480, 1, 1}, "two-pass", "two-pass",
        "two-pass"},
    {CF_RESIZE_BILINEAR, 1, {640, 480, 320, 1}, "two-pass", "two-pass",
        "two-pass"},
    /* 4 taps an axis: direct, but 4 footprint rows of 32 outputs of 256
     * pixels each (64 KiB or more) are too large for the fused kernel, so
     * the direct kernel falls back to the two passes */
    {CF_RESIZE_BICUBIC, 0, {32767, 32, 128, 16}, "two-pass",
        "direct strips", "direct strips"},
    /* the same rows at 1.4x along y (no strips' step): rows */
    {CF_RESIZE_BICUBIC, 0, {32767, 14, 128, 10}, "two-pass", "direct",
        "direct"},
  };
  static const CfFormat formats[] = { CF_FORMAT_RGBA, CF_FORMAT_NV12,
    CF_FORMAT_RGBA64_LE, CF_FORMAT_P010_10LE, CF_FORMAT_I420_10LE
  };
  guint i, f;
  int p;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (i = 0; i < G_N_ELEMENTS (cases); i++) {
      const CfFormatInfo *info = cf_format_info (formats[f]);
      const char *want[CF_MAX_PLANES];
      CfResizeDevicePlan *d_plan;
      CfResizePlan plan;

      g_assert_cmpint (cf_resize_plan_init (&plan, formats[f],
              cases[i].method, cases[i].antialias, cases[i].size[0],
              cases[i].size[1], cases[i].size[2], cases[i].size[3], 0, 0),
          ==, 0);
      for (p = 0; p < info->n_planes; p++)
        want[p] = info->plane[p].sample_bytes != 1 ? cases[i].kernel :
            info->plane[p].pixel_bytes == 1 ? cases[i].kernel_luma :
            info->plane[p].pixel_bytes == 4 && cases[i].kernel_4 ?
            cases[i].kernel_4 : cases[i].kernel_direct;
      CHECK_CUDA (cf_resize_device_plan_new (&plan, CF_RESIZE_KERNELS_AUTO,
              &d_plan));
      for (p = 0; p < info->n_planes; p++)
        g_assert_cmpstr (cf_resize_device_plan_describe (d_plan, p), ==,
            want[p]);
      g_assert_cmpuint (cf_resize_device_plan_workspace_bytes (d_plan) > 0,
          ==, strcmp (cases[i].kernel, "two-pass") == 0);
      cf_resize_device_plan_free (d_plan);
      CHECK_CUDA (cf_resize_device_plan_new (&plan, CF_RESIZE_KERNELS_FUSED,
              &d_plan));
      for (p = 0; p < info->n_planes; p++)
        g_assert_cmpstr (cf_resize_device_plan_describe (d_plan, p), ==,
            cases[i].kernel);
      cf_resize_device_plan_free (d_plan);
      CHECK_CUDA (cf_resize_device_plan_new (&plan,
              CF_RESIZE_KERNELS_TWO_PASS, &d_plan));
      for (p = 0; p < info->n_planes; p++)
        g_assert_cmpstr (cf_resize_device_plan_describe (d_plan, p), ==,
            "two-pass");
      cf_resize_device_plan_free (d_plan);
      cf_resize_plan_clear (&plan);
    }

  /* the direct kernel's plane with two passes to fall back on, both ways:
   * aligned (direct) and at odd addresses (the two passes) */
  gpu_begin ();
  gpu_antialias = FALSE;
  for (f = 0; f < 2; f++) {
    static const int sizes[][4] = { {32767, 32, 128, 16},
    {32767, 18, 128, 12}
    };
    for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
      gpu_check (formats[f], CF_RESIZE_BICUBIC, sizes[i], 0, RANDOM_ALIGNED,
          CF_RESIZE_KERNELS_AUTO);
      gpu_check (formats[f], CF_RESIZE_BICUBIC, sizes[i], 0, RANDOM_ODD,
          CF_RESIZE_KERNELS_AUTO);
    }
  }
  gpu_antialias = TRUE;
  gpu_end ();
}

/* Whether plane @p of @plan should take nearest_wide (): x taps on a line
 * base + step i (step 2, 3 or 4, base below 4) in pixels of 1, 2 (8-bit
 * samples) or 4 bytes. */
static gboolean
expect_nearest_wide (const CfResizePlan * plan, int p)
{
  const CfPlaneLayout *l = &cf_format_info (plan->format)->plane[p];
  const CfResizeAxis *x = &plan->x[p];
  const char *env = g_getenv ("CF_RESIZE_NEAREST_WIDE");
  int step, i;

  /* the switch that turns it off, for measurements */
  if (env && strcmp (env, "0") == 0)
    return FALSE;
  if (x->out_size < 2 || !(l->pixel_bytes == 1 || l->pixel_bytes == 4 ||
          (l->pixel_bytes == 2 && l->sample_bytes == 1)))
    return FALSE;
  step = x->first[1] - x->first[0];
  for (i = 2; i < x->out_size; i++)
    if (x->first[i] != x->first[0] + step * i)
      return FALSE;
  return step >= 2 && step <= 4 && x->first[0] < 4;
}

/* Nearest at integer downscales along x (2x, 3x, 4x; y down, up or
 * unchanged), where 1-, 2- and 4-byte pixels take nearest_wide () on 16-byte
 * aligned planes: every format, the kernel each plane is given (checked
 * against expect_nearest_wide (), and at the first size named for the
 * layouts it must take), then the output of aligned, padded (aligned where
 * a row is a multiple of 16 bytes), odd-address and constant pictures
 * against the CPU; output widths with and without a partial last group,
 * and planes narrower than a group. */
static void
test_cuda_nearest_lines (void)
{
  static const int sizes[][4] = {
    {640, 40, 320, 20}, {642, 31, 214, 13}, {1004, 9, 251, 3},
    {640, 10, 160, 20}, {96, 2, 48, 1}, {48, 48, 12, 12}, {7, 3, 2, 1},
    /* co-sited 2x: P010's chroma from base 0; centred 4x: NV12's chroma
     * from base 2 (the word select of 2-byte pixels); y unchanged */
    {640, 12, 320, 6}, {1280, 8, 320, 2}, {642, 31, 214, 31},
  };
  static const Layout layouts[] = { RANDOM_ALIGNED, RANDOM_PADDED,
    RANDOM_ODD, CONSTANT_DENSE
  };
  static const struct
  {
    CfFormat format;
    int plane;
    const char *kernel;
  } at_640[] = {
    {CF_FORMAT_GRAY8, 0, "nearest wide"},
    {CF_FORMAT_NV12, 0, "nearest wide"},
    {CF_FORMAT_NV12, 1, "nearest wide"},
    {CF_FORMAT_RGBA, 0, "nearest wide"},
    {CF_FORMAT_P010_10LE, 1, "nearest wide"},
    {CF_FORMAT_P010_10LE, 0, "nearest gather"},
    {CF_FORMAT_GRAY16_LE, 0, "nearest gather"},
    {CF_FORMAT_RGBA64_LE, 0, "nearest gather"},
    {CF_FORMAT_RGB, 0, "nearest gather"},
  };
  guint f, s, l, i;
  int p;

  gpu_begin ();
  CF_FOR_EACH_FORMAT (f)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      CfResizeDevicePlan *d_plan;
      CfResizePlan plan;

      g_assert_cmpint (cf_resize_plan_init (&plan, f, CF_RESIZE_NEAREST, 1,
              sizes[s][0], sizes[s][1], sizes[s][2], sizes[s][3], s & 1, 0),
          ==, 0);
      CHECK_CUDA (cf_resize_device_plan_new (&plan, CF_RESIZE_KERNELS_AUTO,
              &d_plan));
      for (p = 0; p < cf_format_info (f)->n_planes; p++) {
        const char *want = expect_nearest_wide (&plan, p) ? "nearest wide" :
            "nearest gather";

        g_assert_cmpstr (cf_resize_device_plan_describe (d_plan, p), ==,
            want);
        for (i = 0; s == 0 && i < G_N_ELEMENTS (at_640); i++)
          if ((guint) at_640[i].format == f && at_640[i].plane == p)
            g_assert_cmpstr (want, ==, at_640[i].kernel);
      }
      cf_resize_device_plan_free (d_plan);
      cf_resize_plan_clear (&plan);
      for (l = 0; l < G_N_ELEMENTS (layouts); l++)
        gpu_check (f, CF_RESIZE_NEAREST, sizes[s], s & 1, layouts[l],
            CF_RESIZE_KERNELS_AUTO);
    }
  gpu_end ();
}

/* Every format and method, antialiased and not, at each of @n_sizes
 * @sizes (the chroma siting varying with the size) in each of @n_layouts
 * @layouts, AUTO's kernels against the CPU. */
static void
gpu_check_all (const int (*sizes)[4], guint n_sizes, const Layout * layouts,
    guint n_layouts)
{
  guint f, m, s, l, aa;

  for (aa = 0; aa < 2; aa++) {
    gpu_antialias = aa == 0;
    CF_FOR_EACH_FORMAT (f)
      for (m = 0; m < N_METHODS; m++)
        for (s = 0; s < n_sizes; s++)
          for (l = 0; l < n_layouts; l++)
            gpu_check (f, m, sizes[s], s % 4, layouts[l],
                CF_RESIZE_KERNELS_AUTO);
  }
  gpu_antialias = TRUE;
}

/* How the output rows of @axis step at 1.5x, as the kernels' strips see
 * it: 7 where most even rows step by 2 to the next and odd ones by 1, 6
 * the other way round, else 0. */
static int
strip_pattern_15 (const CfResizeAxis * axis)
{
  int up = 0, down = 0, i;

  if (axis->out_size < 2 || lround (2 * axis->scale) != 3)
    return 0;
  for (i = 0; i + 1 < axis->out_size; i++) {
    const int d = axis->first[i + 1] - axis->first[i];

    up += d == (i % 2 ? 1 : 2);
    down += d == (i % 2 ? 2 : 1);
  }
  return 3 * up > 2 * (axis->out_size - 1) ? 7 :
      3 * down > 2 * (axis->out_size - 1) ? 6 : 0;
}

/* Strips (2x, 3x and 1.5x downscales along y): every format and method,
 * antialiased and not, at sizes whose last strip is partial or the only
 * one, whose edges shift the taps (strips that take the rows' way), with x
 * scaled by other factors, and a picture narrower than the taps (no direct
 * kernel); at 1.5x the taps of some methods step by 2 rows then 1, of
 * others by 1 then 2; random, padded and constant pictures, each against
 * the CPU. */
static void
test_cuda_strips (void)
{
  static const int sizes[][4] = {
    {130, 70, 65, 35}, {66, 36, 33, 18}, {9, 34, 4, 17}, {1000, 18, 333, 9},
    {258, 1002, 517, 501}, {3, 16, 1, 8}, {64, 2, 32, 1},
    {130, 72, 87, 48}, {33, 45, 22, 30}, {200, 303, 133, 202},
    {96, 12, 64, 8}, {5, 3, 3, 2},
    {120, 90, 40, 30}, {31, 33, 10, 11}, {200, 601, 67, 200},
  };
  static const Layout layouts[] = { RANDOM_ALIGNED, RANDOM_PADDED,
    CONSTANT_DENSE
  };
  guint m, s, aa;
  int seen[8] = { 0 };

  /* both 1.5x patterns are among the sizes, with taps enough for strips
   * (5: bicubic antialiased, lanczos) */
  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (m = 0; m < N_METHODS; m++)
      for (aa = 0; aa < 2; aa++) {
        CfResizePlan plan;

        g_assert_cmpint (cf_resize_plan_init (&plan, CF_FORMAT_RGBA, m, aa,
                sizes[s][0], sizes[s][1], sizes[s][2], sizes[s][3], 0, 0),
            ==, 0);
        if (plan.y[0].taps >= 5)
          seen[strip_pattern_15 (&plan.y[0])]++;
        cf_resize_plan_clear (&plan);
      }
  g_assert_cmpint (seen[6], >, 0);
  g_assert_cmpint (seen[7], >, 0);

  gpu_begin ();
  gpu_check_all (sizes, G_N_ELEMENTS (sizes), layouts, G_N_ELEMENTS (layouts));
  gpu_end ();
}

/* The kernel AUTO gives plane @p of a plan (aligned planes). */
static const char *
kernel_of (CfFormat format, CfResizeMethod method, gboolean antialias,
    const int *size, int cosited, int p)
{
  CfResizeDevicePlan *d_plan;
  CfResizePlan plan;
  const char *kernel;

  g_assert_cmpint (cf_resize_plan_init (&plan, format, method, antialias,
          size[0], size[1], size[2], size[3], cosited & 1, cosited >> 1), ==,
      0);
  CHECK_CUDA (cf_resize_device_plan_new (&plan, CF_RESIZE_KERNELS_AUTO,
          &d_plan));
  kernel = cf_resize_device_plan_describe (d_plan, p);
  cf_resize_device_plan_free (d_plan);
  cf_resize_plan_clear (&plan);
  return kernel;
}

/* A plane, and whether a kernel takes it. */
typedef struct
{
  CfFormat format;
  int plane;
  gboolean takes;
} PlaneKernel;

/* That @kernel takes each of @planes that says so, and no other, at @size
 * with antialiased bilinear, at chroma sitings 0 .. @sitings - 1. */
static void
assert_plane_kernels (const char *kernel, const PlaneKernel * planes,
    guint n_planes, const int *size, int sitings)
{
  guint i;
  int c;

  for (i = 0; i < n_planes; i++)
    for (c = 0; c < sitings; c++)
      g_assert_cmpint (g_strcmp0 (kernel_of (planes[i].format,
                  CF_RESIZE_BILINEAR, TRUE, size, c, planes[i].plane),
              kernel) == 0, ==, planes[i].takes);
}

/* The layouts the kernels of fixed patterns are checked on: random
 * pictures with aligned rows (the kernel), padded ones (the kernel where
 * the pitch stays aligned to its loads, else the fallback), constant ones,
 * and aligned input into an output at odd addresses (the kernel's byte
 * stores). */
static const Layout fixed_layouts[] = { RANDOM_ALIGNED, RANDOM_PADDED,
  CONSTANT_DENSE, RANDOM_ODD_OUTPUT
};

/* The checks against the CPU that the kernels of fixed patterns (halve,
 * third) share: every format and method at @sizes, on fixed_layouts;
 * then, antialiased and not, 4K (@uhd) GRAY8, NV12 and RGBA bilinear on a
 * random picture and @uhd_constant on a constant one at siting
 * @constant_siting, and @not_sizes of @not_format bilinear. */
static void
gpu_check_fixed (const int (*sizes)[4], guint n_sizes, const int *uhd,
    CfResizeMethod uhd_constant, int constant_siting,
    const int (*not_sizes)[4], guint n_not, CfFormat not_format)
{
  static const CfFormat uhd_formats[] = { CF_FORMAT_GRAY8, CF_FORMAT_NV12,
    CF_FORMAT_RGBA
  };
  guint f, s, aa;

  gpu_check_all (sizes, n_sizes, fixed_layouts,
      G_N_ELEMENTS (fixed_layouts));
  for (aa = 0; aa < 2; aa++) {
    gpu_antialias = aa == 0;
    for (f = 0; f < G_N_ELEMENTS (uhd_formats); f++) {
      gpu_check (uhd_formats[f], CF_RESIZE_BILINEAR, uhd, 0, RANDOM_ALIGNED,
          CF_RESIZE_KERNELS_AUTO);
      gpu_check (uhd_formats[f], uhd_constant, uhd, constant_siting,
          CONSTANT_DENSE, CF_RESIZE_KERNELS_AUTO);
    }
    for (s = 0; s < n_not; s++)
      gpu_check (not_format, CF_RESIZE_BILINEAR, not_sizes[s], 0,
          RANDOM_ALIGNED, CF_RESIZE_KERNELS_AUTO);
  }
  gpu_antialias = TRUE;
}

/* Exact 2x downscales, which halve_kernel takes where both axes weigh
 * four fixed non-negative taps, more than two on one (antialiased
 * bilinear, co-sited chroma's area), on 8-bit planes of 1-, 2- or 4-byte
 * pixels: first which planes take it, then gpu_check_fixed () at sizes
 * whose rows end inside a thread's 16 or 32 bytes or a warp, of one
 * thread's rows (2, or 4 for 4-byte pixels) or a number of rows that is
 * not a multiple of them, and 4K to 1080p. */
static void
test_cuda_halve (void)
{
  const int (*sizes)[4] = cf_halve_sizes;      /* resize-fixed-sizes.h */
  static const int uhd[4] = { 3840, 2160, 1920, 1080 };
  static const int not_2x[][4] = {
    {641, 481, 320, 240}, {642, 482, 322, 241}, {4, 4, 2, 2},
    {640, 480, 427, 240},
  };
  static const PlaneKernel at_644[] = {
    {CF_FORMAT_GRAY8, 0, TRUE}, {CF_FORMAT_RGBA, 0, TRUE},
    {CF_FORMAT_BGRX, 0, TRUE}, {CF_FORMAT_NV12, 0, TRUE},
    {CF_FORMAT_NV12, 1, TRUE}, {CF_FORMAT_I420, 2, TRUE},
    {CF_FORMAT_RGB, 0, FALSE}, {CF_FORMAT_GRAY16_LE, 0, FALSE},
    {CF_FORMAT_P010_10LE, 1, FALSE}, {CF_FORMAT_RGBA64_LE, 0, FALSE},
  };
  guint s, aa;
  int c;

  gpu_begin ();
  /* which planes: antialiased bilinear at every siting of the chroma */
  assert_plane_kernels ("halve", at_644, G_N_ELEMENTS (at_644), sizes[5], 4);
  /* two taps an axis (area, bilinear without antialiasing; co-sited
   * chroma's bilinear without it: 3 1): the direct kernel; co-sited
   * chroma's area (1 4 3 along x): halve */
  for (aa = 0; aa < 2; aa++) {
    g_assert_cmpstr (kernel_of (CF_FORMAT_GRAY8, CF_RESIZE_AREA, aa,
            sizes[5], 0, 0), ==, "direct");
    g_assert_cmpstr (kernel_of (CF_FORMAT_NV12, CF_RESIZE_AREA, aa,
            sizes[5], 0, 1), ==, "direct");
    g_assert_cmpstr (kernel_of (CF_FORMAT_NV12, CF_RESIZE_AREA, aa,
            sizes[5], 1, 1), ==, "halve");
  }
  g_assert_cmpstr (kernel_of (CF_FORMAT_GRAY8, CF_RESIZE_BILINEAR, FALSE,
          sizes[5], 0, 0), ==, "direct");
  g_assert_cmpstr (kernel_of (CF_FORMAT_NV12, CF_RESIZE_BILINEAR, FALSE,
          sizes[5], 1, 1), ==, "direct");
  /* negative taps, or not 2x, or too small an axis: not */
  g_assert_cmpstr (kernel_of (CF_FORMAT_GRAY8, CF_RESIZE_BICUBIC, TRUE,
          sizes[5], 0, 0), !=, "halve");
  g_assert_cmpstr (kernel_of (CF_FORMAT_NV12, CF_RESIZE_BILINEAR, TRUE,
          sizes[7], 0, 0), ==, "halve");
  g_assert_cmpstr (kernel_of (CF_FORMAT_NV12, CF_RESIZE_BILINEAR, TRUE,
          sizes[7], 0, 1), !=, "halve");
  g_assert_cmpstr (kernel_of (CF_FORMAT_GRAY8, CF_RESIZE_LANCZOS, FALSE,
          sizes[5], 0, 0), !=, "halve");
  for (s = 0; s < G_N_ELEMENTS (not_2x); s++)
    for (c = 0; c < 2; c++)
      g_assert_cmpstr (kernel_of (CF_FORMAT_NV12, CF_RESIZE_BILINEAR, TRUE,
              not_2x[s], 0, c), !=, "halve");

  gpu_check_fixed (sizes, G_N_ELEMENTS (cf_halve_sizes), uhd,
      CF_RESIZE_AREA, 1, not_2x, G_N_ELEMENTS (not_2x), CF_FORMAT_NV12);
  gpu_end ();
}

/* The planes that third_kernel takes (at 966 x 726 input), at 3x and
 * 1.5x: 8-bit samples in 1-, 2- and 4-byte pixels; never 3-byte pixels or
 * 16-bit samples. */
static const PlaneKernel third_planes[] = {
  {CF_FORMAT_GRAY8, 0, TRUE}, {CF_FORMAT_NV12, 0, TRUE},
  {CF_FORMAT_NV12, 1, TRUE}, {CF_FORMAT_I420, 2, TRUE},
  {CF_FORMAT_RGBA, 0, TRUE}, {CF_FORMAT_RGB, 0, FALSE},
  {CF_FORMAT_GRAY16_LE, 0, FALSE}, {CF_FORMAT_P010_10LE, 1, FALSE},
};

/* The end of test_cuda_third () and test_cuda_two_thirds (), with
 * CF_RESIZE_THIRD=1: that third_kernel's @kernel ("third", "two thirds")
 * takes GRAY8 antialiased bilinear at each of @sizes, and NV12's centred
 * chroma at sizes 0 and 4, but not area, bicubic or bilinear without
 * antialiasing at size 5 (other taps), nor @not_sizes (not its ratio);
 * then gpu_check_fixed () at them, and NV12 at @frame with the default
 * choice; then CF_RESIZE_THIRD back to @saved (freed). */
static void
check_third_kernel (const char *kernel, const int (*sizes)[4], guint n,
    const int *frame, const int (*not_sizes)[4], guint n_not, gchar * saved)
{
  guint s, aa;

  for (s = 0; s < n; s++)
    g_assert_cmpstr (kernel_of (CF_FORMAT_GRAY8, CF_RESIZE_BILINEAR, TRUE,
            sizes[s], 0, 0), ==, kernel);
  g_assert_cmpstr (kernel_of (CF_FORMAT_NV12, CF_RESIZE_BILINEAR, TRUE,
          sizes[0], 0, 1), ==, kernel);
  g_assert_cmpstr (kernel_of (CF_FORMAT_NV12, CF_RESIZE_BILINEAR, TRUE,
          sizes[4], 0, 1), ==, kernel);
  for (aa = 0; aa < 2; aa++)
    g_assert_cmpstr (kernel_of (CF_FORMAT_GRAY8, CF_RESIZE_AREA, aa,
            sizes[5], 0, 0), !=, kernel);
  g_assert_cmpstr (kernel_of (CF_FORMAT_GRAY8, CF_RESIZE_BILINEAR, FALSE,
          sizes[5], 0, 0), !=, kernel);
  g_assert_cmpstr (kernel_of (CF_FORMAT_GRAY8, CF_RESIZE_BICUBIC, TRUE,
          sizes[5], 0, 0), !=, kernel);
  for (s = 0; s < n_not; s++)
    g_assert_cmpstr (kernel_of (CF_FORMAT_GRAY8, CF_RESIZE_BILINEAR, TRUE,
            not_sizes[s], 0, 0), !=, kernel);

  gpu_check_fixed (sizes, n, frame, CF_RESIZE_BILINEAR, 0, not_sizes, n_not,
      CF_FORMAT_GRAY8);
  g_unsetenv ("CF_RESIZE_THIRD");
  gpu_check (CF_FORMAT_NV12, CF_RESIZE_BILINEAR, frame, 0, RANDOM_ALIGNED,
      CF_RESIZE_KERNELS_AUTO);
  if (saved)
    g_setenv ("CF_RESIZE_THIRD", saved, TRUE);
  g_free (saved);
}

/* Exact 3x downscales, which third_kernel takes where both axes weigh five
 * fixed taps, more than the middle three on one (antialiased bilinear), on
 * 8-bit planes of 1- or 2-byte pixels of 1024 x 768 output bytes or more
 * and of 4-byte pixels at any size (CF_RESIZE_THIRD=1, set here after the
 * first checks, takes it at any size): first which planes take it, then
 * the checks of 1-byte planes with every row loaded first
 * (CF_RESIZE_THIRD_STAGGER=0; by default their loads are staggered), then
 * gpu_check_fixed () at sizes whose rows end inside a thread's 24 bytes or
 * a warp, of one thread's 2 rows or an odd number of rows, and 4K to
 * 720p. */
static void
test_cuda_third (void)
{
  const int (*sizes)[4] = cf_third_sizes;      /* resize-fixed-sizes.h */
  static const int uhd[4] = { 3840, 2160, 1280, 720 };
  static const int not_3x[][4] = {
    {965, 726, 322, 242}, {966, 727, 322, 242}, {6, 6, 2, 2},
    {966, 726, 483, 242},
  };
  static const int small_3x[4] = { 1920, 1080, 640, 360 };
  static const int qhd_3x[4] = { 960, 540, 320, 180 };
  static const CfFormat byte_formats[] = { CF_FORMAT_GRAY8, CF_FORMAT_NV12 };
  gchar *saved = g_strdup (g_getenv ("CF_RESIZE_THIRD"));
  gchar *saved_stagger = g_strdup (g_getenv ("CF_RESIZE_THIRD_STAGGER"));
  guint f, s, l;
  int c;

  gpu_begin ();
  /* by default, large planes only: 4K to 720p's luma, not its chroma (640
   * x 360 pairs) or a 1080p plane */
  g_unsetenv ("CF_RESIZE_THIRD");
  g_assert_cmpstr (kernel_of (CF_FORMAT_NV12, CF_RESIZE_BILINEAR, TRUE, uhd,
          0, 0), ==, "third");
  g_assert_cmpstr (kernel_of (CF_FORMAT_NV12, CF_RESIZE_BILINEAR, TRUE, uhd,
          0, 1), !=, "third");
  g_assert_cmpstr (kernel_of (CF_FORMAT_GRAY8, CF_RESIZE_BILINEAR, TRUE,
          small_3x, 0, 0), !=, "third");
  /* 4-byte pixels at any size: RGBA 4K to 720p, and 960 x 540 to 320 x
   * 180 (230 400 output bytes) */
  g_assert_cmpstr (kernel_of (CF_FORMAT_RGBA, CF_RESIZE_BILINEAR, TRUE, uhd,
          0, 0), ==, "third");
  g_assert_cmpstr (kernel_of (CF_FORMAT_RGBA, CF_RESIZE_BILINEAR, TRUE,
          qhd_3x, 0, 0), ==, "third");
  g_assert_cmpstr (kernel_of (CF_FORMAT_GRAY8, CF_RESIZE_BILINEAR, TRUE,
          sizes[5], 0, 0), !=, "third");
  g_setenv ("CF_RESIZE_THIRD", "0", TRUE);
  g_assert_cmpstr (kernel_of (CF_FORMAT_GRAY8, CF_RESIZE_BILINEAR, TRUE, uhd,
          0, 0), !=, "third");
  /* at any size from here on */
  g_setenv ("CF_RESIZE_THIRD", "1", TRUE);
  /* which planes: antialiased bilinear on centred samples (co-sited
   * chroma's window is shifted: the direct kernel) */
  assert_plane_kernels ("third", third_planes, G_N_ELEMENTS (third_planes),
      sizes[5], 1);
  for (c = 1; c < 4; c++)
    g_assert_cmpstr (kernel_of (CF_FORMAT_NV12, CF_RESIZE_BILINEAR, TRUE,
            sizes[5], c, 1), !=, "third");
  /* 1-byte planes with every row loaded first, on every size and layout */
  g_setenv ("CF_RESIZE_THIRD_STAGGER", "0", TRUE);
  for (f = 0; f < G_N_ELEMENTS (byte_formats); f++)
    for (s = 0; s < G_N_ELEMENTS (cf_third_sizes); s++)
      for (l = 0; l < G_N_ELEMENTS (fixed_layouts); l++)
        gpu_check (byte_formats[f], CF_RESIZE_BILINEAR, sizes[s], 0,
            fixed_layouts[l], CF_RESIZE_KERNELS_AUTO);
  gpu_check (CF_FORMAT_GRAY8, CF_RESIZE_BILINEAR, uhd, 0, RANDOM_ALIGNED,
      CF_RESIZE_KERNELS_AUTO);
  g_assert_cmpstr (kernel_of (CF_FORMAT_GRAY8, CF_RESIZE_BILINEAR, TRUE, uhd,
          0, 0), ==, "third");
  /* the default (staggered) from here on, whatever the caller's
   * environment held */
  g_unsetenv ("CF_RESIZE_THIRD_STAGGER");
  /* the kernel takes every size checked (so gpu_check_all () runs it
   * where the layout is aligned); three taps (area), one (bilinear without
   * antialiasing: nearest), eleven (bicubic), or not 3x: not; then the
   * checks, and the default again on 4K (luma third, chroma direct) */
  check_third_kernel ("third", sizes, G_N_ELEMENTS (cf_third_sizes), uhd,
      not_3x, G_N_ELEMENTS (not_3x), saved);
  if (saved_stagger)
    g_setenv ("CF_RESIZE_THIRD_STAGGER", saved_stagger, TRUE);
  g_free (saved_stagger);
  gpu_end ();
}

/* Exact 1.5x downscales, which third_kernel<PB, 2> takes where both axes
 * weigh three fixed positive taps for each of a period's two outputs
 * (antialiased bilinear on centred samples), on 8-bit planes of 1-, 2-
 * or 4-byte pixels of 1024 x 768 output bytes or more (4-byte pixels:
 * 3 MiB; CF_RESIZE_THIRD=1 at any size): which planes take it, then
 * gpu_check_fixed () at sizes whose rows end inside a thread's 12 bytes or
 * a warp, of one thread's 4 rows or a number of rows that is not a
 * multiple of them, and 1080p to 720p. */
static void
test_cuda_two_thirds (void)
{
  const int (*sizes)[4] = cf_two_thirds_sizes;  /* resize-fixed-sizes.h */
  static const int hd[4] = { 1920, 1080, 1280, 720 };
  static const int rgba_2mb[4] = { 1440, 810, 960, 540 };
  static const int gray_2mb[4] = { 2880, 1620, 1920, 1080 };
  static const int not_15[][4] = {
    {965, 726, 644, 484}, {966, 727, 644, 484}, {6, 6, 4, 4},
    {966, 726, 322, 484},
  };
  gchar *saved = g_strdup (g_getenv ("CF_RESIZE_THIRD"));

  gpu_begin ();
  /* by default, large planes only: 1080p to 720p's luma, not its chroma */
  g_unsetenv ("CF_RESIZE_THIRD");
  g_assert_cmpstr (kernel_of (CF_FORMAT_NV12, CF_RESIZE_BILINEAR, TRUE, hd,
          0, 0), ==, "two thirds");
  g_assert_cmpstr (kernel_of (CF_FORMAT_NV12, CF_RESIZE_BILINEAR, TRUE, hd,
          0, 1), !=, "two thirds");
  g_assert_cmpstr (kernel_of (CF_FORMAT_GRAY8, CF_RESIZE_BILINEAR, TRUE,
          sizes[5], 0, 0), !=, "two thirds");
  /* 4-byte pixels from 3 MiB of output: RGBA 1080p to 720p, not 1440 x 810
   * to 960 x 540 (2 MB, which 1- and 2-byte pixels would take) */
  g_assert_cmpstr (kernel_of (CF_FORMAT_RGBA, CF_RESIZE_BILINEAR, TRUE, hd,
          0, 0), ==, "two thirds");
  g_assert_cmpstr (kernel_of (CF_FORMAT_RGBA, CF_RESIZE_BILINEAR, TRUE,
          rgba_2mb, 0, 0), !=, "two thirds");
  g_assert_cmpstr (kernel_of (CF_FORMAT_GRAY8, CF_RESIZE_BILINEAR, TRUE,
          gray_2mb, 0, 0), ==, "two thirds");
  /* at any size from here on: the 2 MB RGBA plane takes it too */
  g_setenv ("CF_RESIZE_THIRD", "1", TRUE);
  g_assert_cmpstr (kernel_of (CF_FORMAT_RGBA, CF_RESIZE_BILINEAR, TRUE,
          rgba_2mb, 0, 0), ==, "two thirds");
  /* co-sited chroma at 1.5x keeps three positive taps a phase in the same
   * windows: it takes the kernel too */
  assert_plane_kernels ("two thirds", third_planes,
      G_N_ELEMENTS (third_planes), sizes[5], 4);
  /* the kernel takes every size checked; two taps (area, bilinear without
   * antialiasing), more (bicubic), or not 1.5x: not; then the checks, and
   * the default again on 1080p (luma two thirds, chroma direct) */
  check_third_kernel ("two thirds", sizes,
      G_N_ELEMENTS (cf_two_thirds_sizes), hd, not_15, G_N_ELEMENTS (not_15),
      saved);
  gpu_end ();
}

/* One thread of test_cuda_shared_plan (): its own stream and frames, the
 * shared plan. */
typedef struct
{
  const CfResizeDevicePlan *d_plan;
  const CfResizePlan *plan;
  guint32 seed;
  void *d_ws;
} SharedRun;

static gpointer
shared_plan_thread (gpointer data)
{
  const SharedRun *run = data;
  const CfResizePlan *plan = run->plan;
  GRand *rand = g_rand_new_with_seed (run->seed);
  cudaStream_t stream;
  Frame src, want, got;
  Device d_src, d_dst;

  CHECK_CUDA (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  frame_init (&src, plan->format, plan->in_width, plan->in_height,
      ALIGNED_PITCH, 0);
  frame_init (&want, plan->format, plan->out_width, plan->out_height,
      ALIGNED_PITCH, 0);
  frame_init (&got, plan->format, plan->out_width, plan->out_height,
      ALIGNED_PITCH, 0);
  for (int i = 0; i < 16; i++) {
    char *what = g_strdup_printf ("shared plan, %s, seed %u, frame %d",
        cf_format_info (plan->format)->name, run->seed, i);

    frame_random (&src, rand);
    g_assert_cmpint (cf_resize_cpu (plan, &src.img, &want.img), ==, 0);
    device_init (&src, &d_src, FALSE, stream);
    /* poisoned: a plane the launcher's join did not wait for shows */
    device_init (&got, &d_dst, TRUE, stream);
    CHECK_CUDA (cf_resize_cuda (run->d_plan, &d_src.img, &d_dst.img,
            run->d_ws, stream));
    device_finish (&d_dst, &got, stream);
    device_finish (&d_src, NULL, stream);
    check_samples (&got, &want, what);
    g_free (what);
  }
  CHECK_CUDA (cudaStreamDestroy (stream));
  frame_clear (&src);
  frame_clear (&want);
  frame_clear (&got);
  g_rand_free (rand);
  return NULL;
}

/* One device plan of a format of several planes (whose chroma planes run
 * on the plan's own stream, forked from the caller's and joined back)
 * used by four threads at once, each on its own stream: every frame
 * equals the CPU's. */
static void
test_cuda_shared_plan (void)
{
  static const CfFormat formats[] = { CF_FORMAT_NV12, CF_FORMAT_I420 };

  gpu_begin ();
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    CfResizeDevicePlan *d_plan;
    CfResizePlan plan;
    SharedRun runs[4];
    GThread *threads[4];

    g_assert_cmpint (cf_resize_plan_init (&plan, formats[f], f ?
            CF_RESIZE_LANCZOS : CF_RESIZE_BILINEAR, gpu_antialias, 1280, 720,
            f ? 500 : 640, f ? 283 : 360, 0, 0), ==, 0);
    CHECK_CUDA (cf_resize_device_plan_new (&plan, CF_RESIZE_KERNELS_AUTO,
            &d_plan));
    for (guint t = 0; t < G_N_ELEMENTS (threads); t++) {
      const size_t ws = cf_resize_device_plan_workspace_bytes (d_plan);

      runs[t].d_plan = d_plan;
      runs[t].plan = &plan;
      runs[t].seed = cf_test_seed () + 17 * t + f;
      runs[t].d_ws = NULL;
      if (ws)
        CHECK_CUDA (cudaMalloc (&runs[t].d_ws, ws));
    }
    for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
      threads[t] = g_thread_new ("shared-plan", shared_plan_thread, &runs[t]);
    for (guint t = 0; t < G_N_ELEMENTS (threads); t++) {
      g_thread_join (threads[t]);
      CHECK_CUDA (cudaFree (runs[t].d_ws));
    }
    cf_resize_device_plan_free (d_plan);
    cf_resize_plan_clear (&plan);
  }
  gpu_end ();
}

static void
test_cuda_invalid (void)
{
  CfResizeDevicePlan *d_plan = (CfResizeDevicePlan *) 1;
  CfResizePlan plan, empty = { 0 };
  Device d_src, d_dst;
  Frame src, dst;
  guint i;
  int p;

  gpu_begin ();
  g_assert_cmpint (cf_resize_device_plan_new (&empty, CF_RESIZE_KERNELS_AUTO,
          &d_plan), ==, cudaErrorInvalidValue);
  g_assert_null (d_plan);
  g_assert_cmpint (cf_resize_device_plan_new (NULL, CF_RESIZE_KERNELS_AUTO,
          &d_plan), ==, cudaErrorInvalidValue);
  g_assert_cmpuint (cf_resize_device_plan_workspace_bytes (NULL), ==, 0);
  g_assert_null (cf_resize_device_plan_describe (NULL, 0));
  cf_resize_device_plan_free (NULL);

  /* NV12 6x4 to 3x2: a chroma row is 6 bytes */
  frame_init (&src, CF_FORMAT_NV12, 6, 4, 0, 0);
  frame_init (&dst, CF_FORMAT_NV12, 3, 2, 0, 0);
  g_assert_cmpint (cf_resize_plan_init (&plan, CF_FORMAT_NV12,
          CF_RESIZE_BICUBIC, 1, 6, 4, 3, 2, 0, 0), ==, 0);
  CHECK_CUDA (cf_resize_device_plan_new (&plan, CF_RESIZE_KERNELS_TWO_PASS,
          &d_plan));
  gpu_ws_bytes = cf_resize_device_plan_workspace_bytes (d_plan);
  g_assert_cmpuint (gpu_ws_bytes, >, 0);
  CHECK_CUDA (cudaMalloc (&gpu_ws, gpu_ws_bytes));
  device_init (&src, &d_src, FALSE, gpu_stream);
  device_init (&dst, &d_dst, TRUE, gpu_stream);
  for (i = 0; i < 12; i++) {
    CfImage b = i < 6 ? d_src.img : d_dst.img;

    bad_image (&b, i % 6);
    g_assert_cmpint (cf_resize_cuda (d_plan, i < 6 ? &b : &d_src.img,
            i < 6 ? &d_dst.img : &b, gpu_ws, gpu_stream), ==,
        cudaErrorInvalidValue);
  }
  g_assert_cmpint (cf_resize_cuda (d_plan, &d_src.img, &d_dst.img, NULL,
          gpu_stream),
      ==, cudaErrorInvalidValue);
  g_assert_cmpint (cf_resize_cuda (NULL, &d_src.img, &d_dst.img, gpu_ws,
          gpu_stream),
      ==, cudaErrorInvalidValue);
  g_assert_cmpint (cf_resize_cuda (d_plan, NULL, &d_dst.img, gpu_ws,
          gpu_stream),
      ==, cudaErrorInvalidValue);
  CHECK_CUDA (cudaGetLastError ());

  /* nothing was launched: the output is all poison */
  device_finish (&d_dst, &dst, gpu_stream);
  device_finish (&d_src, NULL, gpu_stream);
  for (p = 0; p < dst.n_planes; p++)
    for (i = 0; i < dst.img.pitch[p] * dst.h[p]; i++)
      g_assert_cmphex (((guint8 *) dst.img.data[p])[i], ==, POISON);
  cf_resize_device_plan_free (d_plan);
  cf_resize_plan_clear (&plan);
  frame_clear (&src);
  frame_clear (&dst);
  gpu_end ();
}
#endif /* HAVE_CUDA */

/* ---- threads ---- */

typedef struct
{
  const CfResizePlan *plan;
  const Frame *src;
} ResizeRun;

static int
resize_run (int n_threads, Frame * out, gpointer data)
{
  const ResizeRun *r = data;

  return cf_resize_cpu_threads (r->plan, &r->src->img, &out->img, n_threads);
}

/* cf_resize_cpu_threads () writes the same bytes for every thread count:
 * every method, layouts of 1 to 8 bytes, subsampled planes, scaled down
 * and up (so that bands are shorter than the taps and the rings start
 * mid-picture), random pictures with padded and misaligned rows. */
static void
test_cpu_threads (void)
{
  static const CfFormat formats[] = { CF_FORMAT_GRAY8, CF_FORMAT_RGBA,
    CF_FORMAT_RGB, CF_FORMAT_NV12, CF_FORMAT_I420, CF_FORMAT_Y42B,
    CF_FORMAT_P010_10LE, CF_FORMAT_GRAY16_LE, CF_FORMAT_RGBA64_LE
  };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  guint f, s, m, up;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (cf_thread_sizes); s++)
      for (m = 0; m < N_METHODS; m++)
        for (up = 0; up < 2; up++) {
          const int w = cf_thread_sizes[s][0], h = cf_thread_sizes[s][1];
          const int ow = up ? 2 * w + 1 : MAX (1, w / 3);
          const int oh = up ? 3 * h - 1 : MAX (1, 2 * h / 5);
          gchar *what = g_strdup_printf ("%s %s %dx%d -> %dx%d",
              cf_format_info (formats[f])->name, method_names[m], w, h, ow,
              oh);
          CfResizePlan plan;
          ResizeRun run = { &plan, NULL };
          Frame src, out;

          cf_thread_frame_init (&src, formats[f], w, h, s);
          frame_random (&src, rand);
          cf_thread_frame_init (&out, formats[f], ow, oh, s + 1);
          g_assert_cmpint (cf_resize_plan_init (&plan, formats[f], m,
                  (s / 2) % 2, w, h, ow, oh, s % 2, 0), ==, 0);
          run.src = &src;
          cf_check_thread_counts (&out, resize_run, &run, rand, what);
          cf_resize_plan_clear (&plan);
          frame_clear (&src);
          frame_clear (&out);
          g_free (what);
        }
  g_rand_free (rand);
}

/* ---- SIMD against the scalar reference ---- */

/* Scales @src with @plan on the CPU paths (AUTO and SIMD128 on
 * @n_threads, the scalar reference on one) into pictures laid out as
 * @dst_extra and @dst_misalign say; they must be equal byte for byte,
 * padding untouched. Returns AUTO's output (the caller clears it). */
static Frame
check_paths (const CfResizePlan * plan, const Frame * src, size_t dst_extra,
    int dst_misalign, int n_threads, const char *what)
{
  Frame simd, simd128, scalar;

  frame_init (&simd, plan->format, plan->out_width, plan->out_height,
      dst_extra, dst_misalign);
  frame_init (&simd128, plan->format, plan->out_width, plan->out_height,
      dst_extra, dst_misalign);
  frame_init (&scalar, plan->format, plan->out_width, plan->out_height,
      dst_extra, dst_misalign);
  g_assert_cmpint (cf_resize_cpu_path (plan, &src->img, &simd.img, n_threads,
          CF_RESIZE_CPU_AUTO), ==, 0);
  g_assert_cmpint (cf_resize_cpu_path (plan, &src->img, &simd128.img,
          n_threads, CF_RESIZE_CPU_SIMD128), ==, 0);
  g_assert_cmpint (cf_resize_cpu_path (plan, &src->img, &scalar.img, 1,
          CF_RESIZE_CPU_SCALAR), ==, 0);
  check_samples (&simd, &scalar, what);
  check_padding (&simd, MARKER, what);
  check_samples (&simd128, &scalar, what);
  check_padding (&simd128, MARKER, what);
  frame_clear (&simd128);
  frame_clear (&scalar);
  return simd;
}

/* The planes the SIMD path takes: every 8-bit plane on x86 builds (3-byte
 * pixels widened to 4), none of 16-bit samples. */
static void
check_simd_planes (const CfResizePlan * plan)
{
#if defined (__x86_64__) || (defined (__i386__) && defined (__SSE2__))
  const CfFormatInfo *info = cf_format_info (plan->format);
  unsigned want = 0;
  int p;

  for (p = 0; p < info->n_planes; p++)
    if (info->plane[p].sample_bytes == 1)
      want |= 1u << p;
  g_assert_cmphex (cf_resize_cpu_simd_planes (plan), ==, want);
#else
  g_assert_cmphex (cf_resize_cpu_simd_planes (plan), ==, 0);
#endif
}

/* The SIMD path equals the scalar reference byte for byte: every method,
 * with and without antialiasing, 8-bit layouts of 1, 2, 3 (widened to 4)
 * and 4 bytes and subsampled planes, random sizes (odd widths, 1
 * to 3 pixel wide, up and down by up to 9x, so that taps run from 1 to
 * dozens and outputs near the right edge read the padded copies), random
 * pictures with dense, padded and misaligned rows, on 1 and 2 threads. */
static void
test_cpu_simd (void)
{
  static const CfFormat formats[] = { CF_FORMAT_RGBA, CF_FORMAT_GRAY8,
    CF_FORMAT_NV12, CF_FORMAT_I420, CF_FORMAT_Y42B, CF_FORMAT_BGRX,
    CF_FORMAT_RGB, CF_FORMAT_Y444
  };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  guint f, m, i, compared = 0;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (m = 0; m < N_METHODS; m++)
      for (i = 0; i < 24; i++) {
        /* (MAX () evaluates its arguments twice) */
        const double fx = g_rand_double_range (rand, 0.11, 9.0);
        const double fy = g_rand_double_range (rand, 0.11, 4.0);
        const int w = i < 3 ? (int) i + 1 : g_rand_int_range (rand, 1, 300);
        const int h = g_rand_int_range (rand, 1, 120);
        const int ow = i % 3 == 1 ? (int) i % 4 + 1 : MAX (1, (int) (w * fx));
        const int oh = MAX (1, (int) (h * fy));
        const int aa = i & 1, cosited = g_rand_int_range (rand, 0, 4);
        /* source and output rows: dense, padded (odd), misaligned */
        const size_t extra = i % 3 == 0 ? 0 : i % 3 == 1 ? 13 : 64;
        const int misalign = i % 4 == 3 ? 3 : 0;
        gchar *what = g_strdup_printf ("%s %s%s %dx%d -> %dx%d",
            cf_format_info (formats[f])->name, method_names[m],
            aa ? "" : " no-antialias", w, h, ow, oh);
        CfResizePlan plan;
        Frame src, out;

        frame_init (&src, formats[f], w, h, extra, misalign);
        frame_random (&src, rand);
        if (g_test_verbose ())
          g_print ("%s\n", what);
        g_assert_cmpint (cf_resize_plan_init (&plan, formats[f], m, aa, w, h,
                ow, oh, cosited & 1, cosited >> 1), ==, 0);
        check_simd_planes (&plan);
        out = check_paths (&plan, &src, extra ? extra + 3 : 0,
            (misalign + 1) % 4, 1 + i % 2, what);
        compared++;
        cf_resize_plan_clear (&plan);
        frame_clear (&src);
        frame_clear (&out);
        g_free (what);
      }
  g_test_message ("%u scalings compared", compared);
#if defined (__x86_64__) && defined (__GNUC__)
  g_test_message ("this CPU %s AVX2: AUTO %s its 256-bit code",
      __builtin_cpu_supports ("avx2") ? "has" : "lacks",
      __builtin_cpu_supports ("avx2") ? "ran" : "did not run");
#endif
  g_rand_free (rand);
}

/* The bounds of resize.h where they are tightest: 0/255 checkerboards of
 * periods 1 and 2 pixels (and stripes), where bicubic and lanczos
 * overshoot the most (the intermediate reaches its extremes, the vertical
 * sums theirs), scaled up and down by 2 to 5 with and without
 * antialiasing. The SIMD path must equal the reference (an int16 or int32
 * overflow would change bytes) and stay within 1 LSB of the model at every
 * pixel. */
static void
test_cpu_bounds (void)
{
  static const CfFormat formats[] = { CF_FORMAT_RGBA, CF_FORMAT_GRAY8,
    CF_FORMAT_NV12
  };
  static const int sizes[][4] = { {40, 30, 80, 60}, {40, 30, 20, 15},
  {60, 45, 20, 15}, {100, 75, 20, 15}, {41, 31, 97, 13}, {40, 30, 40, 29}
  };
  static const CfResizeMethod methods[] = { CF_RESIZE_BICUBIC,
    CF_RESIZE_LANCZOS, CF_RESIZE_BILINEAR, CF_RESIZE_AREA
  };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  double worst[2] = { 0, 0 };
  guint f, s, m, pattern, aa;
  int p, x, y, k;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (m = 0; m < G_N_ELEMENTS (methods); m++)
        for (pattern = 0; pattern < 4; pattern++)
          for (aa = 0; aa < 2; aa++) {
            const int *z = sizes[s];
            gchar *what = g_strdup_printf ("%s %s%s %dx%d -> %dx%d, "
                "checkerboard %u", cf_format_info (formats[f])->name,
                method_names[methods[m]], aa ? "" : " no-antialias", z[0],
                z[1], z[2], z[3], pattern);
            CfResizePlan plan;
            Frame src, out;

            /* 0: 1-pixel checks, 1: 2-pixel checks, 2: columns, 3: rows;
             * samples of a pixel alternate too */
            frame_init (&src, formats[f], z[0], z[1], 7, 1);
            for (p = 0; p < src.n_planes; p++)
              for (y = 0; y < src.h[p]; y++)
                for (x = 0; x < src.w[p]; x++)
                  for (k = 0; k < src.pb[p]; k++) {
                    const int d = pattern == 1 ? 2 : 1;
                    const int on = pattern == 2 ? x / d : pattern == 3 ?
                        y / d : x / d + y / d;

                    sample_set (&src, p, x, y, k, (on + k) & 1 ? 255 : 0);
                  }
            g_assert_cmpint (cf_resize_plan_init (&plan, formats[f],
                    methods[m], aa, z[0], z[1], z[2], z[3], 0, 0), ==, 0);
            for (p = 0; p < src.n_planes; p++) {
              check_axis (&plan.x[p]);
              check_axis (&plan.y[p]);
            }
            out = check_paths (&plan, &src, 5, 0, 1, what);
            check_model (&plan, &src, &out, G_MAXINT, rand, worst, what);
            cf_resize_plan_clear (&plan);
            frame_clear (&src);
            frame_clear (&out);
            g_free (what);
          }
  g_test_message ("largest error against the model: %.4f LSB", worst[0]);
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  guint i;

  cf_test_require_backend ();
  g_test_init (&argc, &argv, NULL);
  cf_test_seed ();

  if (!cf_test_want_cuda ()) {
    g_test_add_func ("/resize/cpu/weights", test_cpu_weights);
    g_test_add_func ("/resize/cpu/weights-no-antialias",
        test_cpu_weights_no_antialias);
    g_test_add_func ("/resize/cpu/siting", test_cpu_siting);
    g_test_add_func ("/resize/cpu/known", test_cpu_known);
    g_test_add_func ("/resize/cpu/known-no-antialias",
        test_cpu_known_no_antialias);
    g_test_add_func ("/resize/cpu/known-deep", test_cpu_known_deep);
    g_test_add_func ("/resize/cpu/p010-i420-10", test_cpu_p010_i420);
    for (i = 0; i < G_N_ELEMENTS (cases); i++)
      g_test_add_data_func (cases[i].path, &cases[i], run_cases);
    g_test_add_func ("/resize/cpu/invalid", test_cpu_invalid);
    g_test_add_func ("/resize/cpu/threads", test_cpu_threads);
    g_test_add_func ("/resize/cpu/simd", test_cpu_simd);
    g_test_add_func ("/resize/cpu/bounds", test_cpu_bounds);
  }
#ifdef HAVE_CUDA
  if (cf_test_want_cuda ()) {
    g_test_add_func ("/resize/cuda/matrix", test_cuda_matrix);
    g_test_add_func ("/resize/cuda/video-sizes", test_cuda_video_sizes);
    g_test_add_func ("/resize/cuda/no-antialias", test_cuda_no_antialias);
    g_test_add_func ("/resize/cuda/kernels", test_cuda_kernels);
    g_test_add_func ("/resize/cuda/nearest-lines", test_cuda_nearest_lines);
    g_test_add_func ("/resize/cuda/strips", test_cuda_strips);
    g_test_add_func ("/resize/cuda/halve", test_cuda_halve);
    g_test_add_func ("/resize/cuda/third", test_cuda_third);
    g_test_add_func ("/resize/cuda/two-thirds", test_cuda_two_thirds);
    g_test_add_func ("/resize/cuda/shared-plan", test_cuda_shared_plan);
    g_test_add_func ("/resize/cuda/invalid", test_cuda_invalid);
  }
#endif
  return g_test_run ();
}
