/* Kernel-level tests of 1D stencils (kernels/stencil.h).
 *
 * Samples are read and checked as the values they hold (format.h): the
 * pictures set the bits outside the values (P010_10LE's low 6, I420_10LE's
 * high 6), and every output sample must hold its value and 0 elsewhere.
 *
 * CF_TEST_BACKEND=cpu: the border mapping and the fixed-point weights
 * written out by hand; known answers for cf_stencil_cpu (): an impulse gives
 * the taps (reversed: a correlation), a normalized filter keeps a constant
 * picture constant, the derivative of a ramp is constant, every border mode
 * at both edges of both axes, a radius beyond the width and height (1x1
 * too), the alpha sample copied unless asked (16-bit RGBA too); 10- and
 * 16-bit values by hand (masked on input, saturated at 2^bits - 1, shifted
 * into place, CONSTANT's border a value), the bits outside the values
 * changing nothing and P010_10LE giving I420_10LE's values;
 * cf_stencil_cpu () within 1 LSB of the float64 model cf_stencil_model ()
 * on random pictures, every format, direction and border, radius
 * {0, 1, 4, 8, 64}, unaligned planes and padded pitches whose padding stays
 * untouched; bad arguments; cf_stencil_cpu_threads () writes the same
 * bytes for every thread count; the 16-bit multiply-adds of 8-bit samples
 * write the scalar code's bytes in every instruction set the CPU has, and
 * are taken exactly where stencil.h's bounds allow (test_cpu_simd ()).
 * CF_TEST_BACKEND=cuda: cf_stencil_cuda () bit-exact against
 * cf_stencil_cpu (), every format x direction x border x radius
 * {0, 1, 4, 8, 64} over sizes from 1x1 to 641x481, random pictures (random
 * bits outside the values too) in unaligned planes with odd pitches, and
 * constant ones; radius 64 on 8-byte pixels; 4K RGBA; bad arguments.
 */
#include "cf-frame.h"
#include "cf-threads.h"
#include "stencil.h"

#include <math.h>

#define N_DIRS CF_STENCIL_DIRECTION_COUNT
#define N_BORDERS CF_STENCIL_BORDER_COUNT
#define R_MAX CF_STENCIL_MAX_RADIUS

static const char *const dir_names[N_DIRS] = { "horizontal", "vertical",
  "both"
};

static const char *const border_names[N_BORDERS] = { "clamp", "mirror",
  "wrap", "constant"
};

static const int radii[] = { 0, 1, 4, 8, 64 };

/* ---- pictures ---- */

/* The stencils filter values, (sample >> lsb) & (2^bits - 1) (format.h),
 * and write value << lsb: these read, write and check samples that way. */

static guint
value_get (const Frame * f, int p, int x, int y, int k)
{
  const CfFormatInfo *info = cf_format_info (f->img.format);

  return CF_SAMPLE_VALUE (sample_get (f, p, x, y, k), info->bits, info->lsb);
}

/* Sets the sample to hold @value, the bits of it outside the value (P010's
 * low 6, I420_10LE's high 6), which the filters must ignore, taken from
 * @other (G_MAXUINT: all set). */
static void
value_set (Frame * f, int p, int x, int y, int k, guint value, guint other)
{
  const CfFormatInfo *info = cf_format_info (f->img.format);
  const guint sample_max = f->sb[p] == 2 ? 0xffff : 0xff;

  sample_set (f, p, x, y, k, CF_VALUE_SAMPLE (value, info->lsb) |
      (other & sample_max & ~(CF_FORMAT_MAX_VALUE (info) << info->lsb)));
}

/* Sample @k of pixel (@x, @y) of plane @p is exactly the one holding @want:
 * the value, and 0 in the bits outside it. */
static void
check_value (const Frame * f, int p, int x, int y, int k, guint want,
    const char *what)
{
  const guint want_sample = CF_VALUE_SAMPLE (want,
      cf_format_info (f->img.format)->lsb);

  if (sample_get (f, p, x, y, k) != want_sample) {
    g_printerr ("%s: plane %d, pixel %d,%d, sample %d: value %u\n", what, p,
        x, y, k, want);
    g_assert_cmphex (sample_get (f, p, x, y, k), ==, want_sample);
  }
}

/* Every sample of @got holds the value of @want's, and nothing else. */
static void
check_values (const Frame * got, const Frame * want, const char *what)
{
  int p, x, y, k;

  for (p = 0; p < got->n_planes; p++)
    for (y = 0; y < got->h[p]; y++)
      for (x = 0; x < got->w[p]; x++)
        for (k = 0; k < samples_per_pixel (got, p); k++)
          check_value (got, p, x, y, k, value_get (want, p, x, y, k), what);
}

/* The value of channel @c in a constant picture of @format (-1: padding,
 * which CONSTANT borders fill with the maximum): 17 + 23 c in 8 bits,
 * scaled to the value's bits with its lowest bit set. */
static guint
channel_value (CfFormat format, int c)
{
  const CfFormatInfo *info = cf_format_info (format);

  if (c < 0)
    return CF_FORMAT_MAX_VALUE (info);
  return ((17u + 23 * c) << (info->bits - 8)) + (info->bits > 8);
}

/* Every sample of @f its channel_value (), its bits outside the value
 * set. */
static void
frame_constant (Frame * f)
{
  const CfFormatInfo *info = cf_format_info (f->img.format);
  int p, x, y, k;

  for (p = 0; p < f->n_planes; p++)
    for (y = 0; y < f->h[p]; y++)
      for (x = 0; x < f->w[p]; x++)
        for (k = 0; k < samples_per_pixel (f, p); k++)
          value_set (f, p, x, y, k, channel_value (f->img.format,
                  info->plane[p].channel[k]), G_MAXUINT);
}

/* ---- stencils ---- */

/* Taps of one of a few kinds, for radius @r, into @t (2 r + 1): */
typedef enum
{
  TAPS_GAUSSIAN,                /* sigma r / 2, normalized */
  TAPS_BOX,                     /* normalized */
  TAPS_RANDOM,                  /* positive, normalized */
  TAPS_SHARPEN,                 /* 2 delta - box, normalized (gain 3) */
  TAPS_DERIVATIVE,              /* (in[i + r] - in[i - r]) / 2, as given */
  TAPS_KIND_COUNT
} TapsKind;

static const char *const kind_names[TAPS_KIND_COUNT] = { "gaussian", "box",
  "random", "sharpen", "derivative"
};

static gboolean
make_taps (TapsKind kind, int r, double *t, GRand * rand)
{
  int i;

  for (i = 0; i <= 2 * r; i++) {
    const double d = i - r;

    switch (kind) {
      case TAPS_GAUSSIAN:
        t[i] = r ? exp (-d * d / (2.0 * (r / 2.0) * (r / 2.0))) : 1.0;
        break;
      case TAPS_BOX:
        t[i] = 1.0;
        break;
      case TAPS_RANDOM:
        t[i] = g_rand_double_range (rand, 0.01, 1.0);
        break;
      case TAPS_SHARPEN:
        t[i] = (d == 0 ? 2.0 : 0.0) - 1.0 / (2 * r + 1);
        break;
      default:
        t[i] = r == 0 ? 1.0 : i == 0 ? -0.5 : i == 2 * r ? 0.5 : 0.0;
        break;
    }
  }
  return kind != TAPS_DERIVATIVE;
}

/* Parameters for @dir with taps @tx (radius @rx) and @ty (@ry). */
static CfStencilParams
params_of (CfStencilDirection dir, int rx, const double *tx, gboolean nx,
    int ry, const double *ty, gboolean ny, CfStencilBorder border)
{
  CfStencilParams s;

  memset (&s, 0, sizeof (s));
  s.direction = dir;
  s.x.radius = rx;
  s.x.taps = tx;
  s.x.normalize = nx;
  s.y.radius = ry;
  s.y.taps = ty;
  s.y.normalize = ny;
  s.border = border;
  return s;
}

/* CONSTANT's values: the constant picture's (see channel_value ()). */
static void
set_border_values (CfStencilParams * s, CfFormat format)
{
  int c;

  for (c = 0; c < CF_MAX_CHANNELS; c++)
    s->border_value[c] = channel_value (format, c);
}

/* Filters @src into a new picture @dst (pitch +5, misaligned by 3) on the
 * CPU, checking that padding is untouched. */
static void
filter_cpu (const CfStencilParams * s, const Frame * src, Frame * dst,
    const char *what)
{
  CfStencilPlan plan;

  g_assert_cmpint (cf_stencil_plan_init (&plan, src->img.format,
          src->img.width, src->img.height, s), ==, 0);
  frame_init (dst, src->img.format, src->img.width, src->img.height, 5, 3);
  g_assert_cmpint (cf_stencil_cpu (&plan, &src->img, &dst->img), ==, 0);
  check_padding (dst, MARKER, what);
  cf_stencil_plan_clear (&plan);
}

/* ---- CPU: the border mapping and the weights ---- */

static void
test_cpu_border_index (void)
{
  /* n = 5, i = -8 .. 9 */
  static const int want[N_BORDERS][18] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 4, 4, 4, 4, 4},
    {0, 1, 2, 3, 4, 3, 2, 1, 0, 1, 2, 3, 4, 3, 2, 1, 0, 1},
    {2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4},
    {-1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 2, 3, 4, -1, -1, -1, -1, -1},
  };
  /* n = 2: period 2, i = -3 .. 4 */
  static const int mirror2[8] = { 1, 0, 1, 0, 1, 0, 1, 0 };
  int b, i;

  for (b = 0; b < N_BORDERS; b++) {
    for (i = -8; i <= 9; i++)
      g_assert_cmpint (cf_stencil_border_index (b, i, 5), ==, want[b][i + 8]);
    /* n = 1: everything at 0, CONSTANT outside */
    for (i = -70; i <= 70; i++)
      g_assert_cmpint (cf_stencil_border_index (b, i, 1), ==,
          b == CF_STENCIL_CONSTANT && i != 0 ? -1 : 0);
    g_assert_cmpint (cf_stencil_border_index (b, 0, 0), ==, -1);
  }
  for (i = -3; i <= 4; i++)
    g_assert_cmpint (cf_stencil_border_index (CF_STENCIL_MIRROR, i, 2), ==,
        mirror2[i + 3]);
  /* far away: 32766 + 64 on 32767 samples */
  g_assert_cmpint (cf_stencil_border_index (CF_STENCIL_MIRROR, 32830, 32767),
      ==, 32766 - 64);
  g_assert_cmpint (cf_stencil_border_index (CF_STENCIL_WRAP, -64, 3), ==, 2);
}

static void
test_cpu_weights (void)
{
  static const double box5[5] = { 1, 1, 1, 1, 1 };
  static const double deriv[3] = { -0.5, 0, 0.5 }, lapl[3] = { 1, -2, 1 };
  static const double zero_sum[3] = { 1, 0, -1 };
  const double big[2] = { 64.0, 64.5 }, bad[1] = { NAN };
  double many[CF_STENCIL_MAX_TAPS + 2];
  CfStencilParams s;
  CfStencilPlan plan;
  gint64 sum;
  int t;

  /* box of 5, normalized, 8 bits: running sums of 65536 k / 5 rounded:
   * 13107, 26214, 39322, 52429, 65536 */
  s = params_of (CF_STENCIL_HORIZONTAL, 2, box5, TRUE, 0, NULL, FALSE, 0);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_GRAY8, 8, 8, &s),
      ==, 0);
  g_assert_cmpint (plan.weight_bits, ==, 16);
  g_assert_cmpint (plan.radius_x, ==, 2);
  g_assert_cmpint (plan.radius_y, ==, 0);       /* left alone: identity */
  g_assert_cmpint (plan.weights_y[0], ==, 1 << 16);
  {
    const int32_t want[5] = { 13107, 13107, 13108, 13107, 13107 };
    g_assert_cmpmem (plan.weights_x, sizeof (want), want, sizeof (want));
  }
  /* 16 bits: 22 fraction bits, still summing to one exactly */
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_GRAY16_LE, 8, 8,
          &s), ==, 0);
  g_assert_cmpint (plan.weight_bits, ==, 22);
  for (t = 0, sum = 0; t < 5; t++) {
    sum += plan.weights_x[t];
    g_assert_cmpfloat (fabs (plan.weights_x[t] - (1 << 22) / 5.0), <=, 1.0);
  }
  g_assert_cmpint (sum, ==, 1 << 22);
  /* the precision follows the samples: 10-bit values in 16 bits too */
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_P010_10LE, 8, 8,
          &s), ==, 0);
  g_assert_cmpint (plan.weight_bits, ==, 22);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_Y42B, 8, 8, &s),
      ==, 0);
  g_assert_cmpint (plan.weight_bits, ==, 16);

  /* as given: derivative and laplacian exactly */
  s = params_of (CF_STENCIL_VERTICAL, 0, NULL, FALSE, 1, deriv, FALSE, 0);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_RGBA, 8, 8, &s),
      ==, 0);
  g_assert_cmpint (plan.radius_x, ==, 0);
  g_assert_cmpint (plan.weights_x[0], ==, 1 << 16);
  g_assert_cmpint (plan.weights_y[0], ==, -32768);
  g_assert_cmpint (plan.weights_y[1], ==, 0);
  g_assert_cmpint (plan.weights_y[2], ==, 32768);
  g_assert_cmpfloat (plan.taps_y[0], ==, -0.5);
  s.y.taps = lapl;
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_RGBA, 8, 8, &s),
      ==, 0);
  g_assert_cmpint (plan.weights_y[0], ==, 65536);
  g_assert_cmpint (plan.weights_y[1], ==, -131072);
  g_assert_cmpint (plan.weights_y[2], ==, 65536);
  /* normalized sharpen: -1/3 4/3 ... sum to one, negative taps kept */
  s.y.normalize = TRUE;
  s.y.taps = (const double[]) { -1, 5, -1 };
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_RGBA, 8, 8, &s),
      ==, 0);
  g_assert_cmpint (plan.weights_y[0] + plan.weights_y[1] + plan.weights_y[2],
      ==, 65536);
  g_assert_cmpint (plan.weights_y[0], <, 0);

  /* the gain: 64 is the most */
  s = params_of (CF_STENCIL_HORIZONTAL, 0, big, FALSE, 0, NULL, FALSE, 0);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_GRAY8, 8, 8, &s),
      ==, 0);
  g_assert_cmpint (plan.weights_x[0], ==, 64 << 16);
  s.x.taps = big + 1;
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_GRAY8, 8, 8, &s),
      ==, -1);
  g_assert_cmpint (plan.weight_bits, ==, 0);    /* cleared */

  /* a radius of 64, normalized */
  for (t = 0; t < (int) G_N_ELEMENTS (many); t++)
    many[t] = 1.0 + t % 7;
  s = params_of (CF_STENCIL_BOTH, R_MAX, many, TRUE, R_MAX, many, TRUE, 0);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_NV12, 3, 3, &s),
      ==, 0);
  for (t = 0, sum = 0; t < CF_STENCIL_MAX_TAPS; t++)
    sum += plan.weights_y[t];
  g_assert_cmpint (sum, ==, 1 << 16);

  /* bad taps, on either axis */
  for (t = 0; t < 12; t++) {
    s = params_of (CF_STENCIL_BOTH, 1, box5, TRUE, 1, box5, TRUE, 0);
    CfStencilTaps *a = t % 2 ? &s.y : &s.x;
    switch (t / 2) {
      case 0:
        a->radius = R_MAX + 1;
        break;
      case 1:
        a->radius = -1;
        break;
      case 2:
        a->taps = NULL;
        break;
      case 3:
        a->taps = zero_sum;
        break;
      case 4:
        a->taps = bad;
        a->radius = 0;
        break;
      default:
        a->taps = big + 1;
        a->radius = 0;
        a->normalize = FALSE;
        break;
    }
    g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_I420, 8, 8, &s),
        ==, -1);
  }
  /* the taps of an axis left alone are not looked at */
  s = params_of (CF_STENCIL_HORIZONTAL, 1, box5, TRUE, 99, NULL, TRUE, 0);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_I420, 8, 8, &s),
      ==, 0);
  cf_stencil_plan_clear (&plan);
}

/* Taps at the ends of float64: a sum that overflows, or lies below DBL_MIN,
 * would make another filter than the one asked for (1e308, 1e308, 1e308
 * divided by an infinite sum became 0, 0, 1), so the plan refuses them;
 * taps as large or as small as float64 holds with its digits are the
 * filter they are proportional to. */
static void
test_cpu_float_limits (void)
{
  static const struct
  {
    double taps[3];
    gboolean normalize;
    CfStencilTapsStatus why;
  } refused[] = {
    {{1e308, 1e308, 1e308}, TRUE, CF_STENCIL_TAPS_SUM_OVERFLOW},
    {{-1e308, -1e308, -1e308}, TRUE, CF_STENCIL_TAPS_SUM_OVERFLOW},
    {{1e308, 1e308, 1e308}, FALSE, CF_STENCIL_TAPS_GAIN},
    /* parsed as 2, 3, 2 times 2^-1074: not 1, 1.4, 1 */
    {{1e-323, 1.4e-323, 1e-323}, TRUE, CF_STENCIL_TAPS_SUM_SUBNORMAL},
    /* the sum is 1e-300: weights of 1e608 */
    {{1e308, -1e308, 1e-300}, TRUE, CF_STENCIL_TAPS_GAIN},
    {{1, -1, 0}, TRUE, CF_STENCIL_TAPS_SUM_ZERO},
    {{1, NAN, 0}, FALSE, CF_STENCIL_TAPS_NOT_FINITE},
  };
  static const double scaled[][3] = {
    {1e300, 2e300, 1e300}, {3e-300, 6e-300, 3e-300}, {-1, -2, -1},
  };
  double taps[CF_STENCIL_MAX_TAPS];
  CfStencilParams s;
  CfStencilPlan plan;
  int radius, normalize;
  guint k;

  for (k = 0; k < G_N_ELEMENTS (refused); k++) {
    s = params_of (CF_STENCIL_HORIZONTAL, 1, refused[k].taps,
        refused[k].normalize, 0, NULL, FALSE, 0);
    g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_GRAY8, 8, 8, &s),
        ==, -1);
    g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_GRAY16_LE, 8, 8,
            &s), ==, -1);
    g_assert_cmpint (cf_stencil_taps_check (&s.x, CF_FORMAT_GRAY8), ==,
        refused[k].why);
  }
  for (k = 0; k < G_N_ELEMENTS (scaled); k++) {
    s = params_of (CF_STENCIL_HORIZONTAL, 1, scaled[k], TRUE, 0, NULL, FALSE,
        0);
    g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_GRAY8, 8, 8, &s),
        ==, 0);
    g_assert_cmpint (plan.weights_x[0], ==, 16384);
    g_assert_cmpint (plan.weights_x[1], ==, 32768);
    g_assert_cmpint (plan.weights_x[2], ==, 16384);
    g_assert_cmpint (cf_stencil_taps_check (&s.x, CF_FORMAT_RGBA), ==,
        CF_STENCIL_TAPS_OK);
  }
  s.x.radius = CF_STENCIL_MAX_RADIUS + 1;
  g_assert_cmpint (cf_stencil_taps_check (&s.x, CF_FORMAT_RGBA), ==,
      CF_STENCIL_TAPS_BAD_RADIUS);

  /* a gaussian narrower than float64 can square is the identity, not NaN */
  g_assert_cmpint (cf_stencil_preset_taps (CF_STENCIL_PRESET_GAUSSIAN, 2,
          1e-200, 1, taps, &radius, &normalize), ==, 0);
  g_assert_cmpint (radius, ==, 2);
  g_assert_cmpfloat (taps[2], ==, 1);
  g_assert_cmpfloat (taps[0] + taps[1] + taps[3] + taps[4], ==, 0);
  cf_stencil_plan_clear (&plan);
}

/* Plans: which samples are copied, CONSTANT's value of each sample. */
static void
test_cpu_plan_samples (void)
{
  static const struct
  {
    CfFormat format;
    unsigned int skip;
  } alpha[] = {
    {CF_FORMAT_RGBA, 1 << 3}, {CF_FORMAT_BGRA, 1 << 3},
    {CF_FORMAT_ARGB, 1 << 0}, {CF_FORMAT_ABGR, 1 << 0},
    {CF_FORMAT_RGBX, 0}, {CF_FORMAT_XRGB, 0}, {CF_FORMAT_RGB, 0},
    {CF_FORMAT_GRAY8, 0}, {CF_FORMAT_I420, 0}, {CF_FORMAT_NV12, 0},
    {CF_FORMAT_RGBA64_LE, 1 << 3}, {CF_FORMAT_BGRA64_LE, 1 << 3},
    {CF_FORMAT_P010_10LE, 0}, {CF_FORMAT_Y444_16LE, 0},
  };
  /* the values of channels R/Y G/U B/V A below, as samples */
  static const int32_t argb[4] = { 40, 10, 20, 30 };
  static const int32_t xbgr[4] = { 255, 30, 20, 10 };
  static const int32_t vu[2] = { 30, 20 };
  const double one[1] = { 1.0 };
  CfStencilParams s;
  CfStencilPlan plan;
  guint i;

  s = params_of (CF_STENCIL_HORIZONTAL, 0, one, TRUE, 0, NULL, FALSE,
      CF_STENCIL_CONSTANT);
  for (i = 0; i < G_N_ELEMENTS (alpha); i++) {
    s.filter_alpha = FALSE;
    g_assert_cmpint (cf_stencil_plan_init (&plan, alpha[i].format, 4, 4, &s),
        ==, 0);
    g_assert_cmpuint (plan.skip[0], ==, alpha[i].skip);
    g_assert_cmpuint (plan.skip[1] | plan.skip[2], ==, 0);
    s.filter_alpha = TRUE;
    g_assert_cmpint (cf_stencil_plan_init (&plan, alpha[i].format, 4, 4, &s),
        ==, 0);
    g_assert_cmpuint (plan.skip[0], ==, 0);
  }

  /* per channel in, per sample out; padding gets the maximum */
  s.border_value[0] = 10;
  s.border_value[1] = 20;
  s.border_value[2] = 30;
  s.border_value[3] = 40;
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_ARGB, 4, 4, &s),
      ==, 0);
  g_assert_cmpmem (plan.border_sample[0], 16, argb, 16);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_XBGR, 4, 4, &s),
      ==, 0);
  g_assert_cmpmem (plan.border_sample[0], 16, xbgr, 16);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_NV21, 4, 4, &s),
      ==, 0);
  g_assert_cmpint (plan.border_sample[0][0], ==, 10);
  g_assert_cmpmem (plan.border_sample[1], 8, vu, 8);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_YV12, 4, 4, &s),
      ==, 0);
  g_assert_cmpint (plan.border_sample[1][0], ==, 30);
  g_assert_cmpint (plan.border_sample[2][0], ==, 20);

  /* the range of a sample */
  s.border_value[2] = 256;
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_I420, 4, 4, &s),
      ==, -1);
  s.border_value[0] = 65535;
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_GRAY16_LE, 4, 4,
          &s), ==, 0);
  g_assert_cmpint (plan.border_sample[0][0], ==, 65535);
  /* 65535 is beyond 8 bits (and channel 2, 256, does not exist in gray) */
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_GRAY8, 4, 4, &s),
      ==, -1);
  s.border_value[0] = 0;
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_GRAY8, 4, 4, &s),
      ==, 0);
  /* values, not samples: 10 bits end at 1023 wherever they sit, and the
   * plan keeps the value (the GPU shifts it into P010's high bits) */
  s.border_value[1] = 1023;
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_P010_10LE, 4, 4,
          &s), ==, 0);
  g_assert_cmpint (plan.border_sample[1][0], ==, 1023);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_I420_10LE, 4, 4,
          &s), ==, 0);
  s.border_value[2] = 1024;
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_P010_10LE, 4, 4,
          &s), ==, -1);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_I420_10LE, 4, 4,
          &s), ==, -1);
  s.border_value[2] = 65535;
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_P016_LE, 4, 4,
          &s), ==, 0);
  g_assert_cmpint (plan.border_sample[1][1], ==, 65535);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_BGRA64_LE, 4, 4,
          &s), ==, 0);
  g_assert_cmpint (plan.border_sample[0][0], ==, 65535);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_Y42B, 4, 4, &s),
      ==, -1);
  cf_stencil_plan_clear (&plan);
}

/* ---- CPU: known answers ---- */

/* Filters a @w x @h picture of @format whose plane 0 (gray or luma, one
 * sample a pixel) holds the samples @in, and compares its samples, as they
 * are in memory, with @want. */
static void
check_plane0 (CfFormat format, const CfStencilParams * s, const guint * in,
    int w, int h, const guint * want, const char *what)
{
  Frame src, dst;
  int x, y;

  frame_init (&src, format, w, h, 3, 1);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      sample_set (&src, 0, x, y, 0, in[y * w + x]);
  filter_cpu (s, &src, &dst, what);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      if (sample_get (&dst, 0, x, y, 0) != want[y * w + x]) {
        g_printerr ("%s: pixel %d,%d\n", what, x, y);
        g_assert_cmpuint (sample_get (&dst, 0, x, y, 0), ==, want[y * w + x]);
      }
  frame_clear (&src);
  frame_clear (&dst);
}

/* An impulse of @v at the middle of every plane, every sample: the taps
 * come out reversed, times v (exactly: their products are multiples of
 * 1/32, v of 32); BOTH gives their outer product. The copied alpha keeps
 * the impulse. The bits of the samples outside their values are all set,
 * and must come out 0. */
static void
test_cpu_impulse (void)
{
  static const double tx[5] = { 1 / 16., 2 / 16., 3 / 16., 4 / 16., 5 / 16. };
  static const double ty[3] = { 0.5, 1.0, 0.5 };
  guint f, d;
  int p, x, y, k;

  CF_FOR_EACH_FORMAT (f)
    for (d = 0; d < N_DIRS; d++) {
      const CfStencilParams s = params_of (d, 2, tx, FALSE, 1, ty, FALSE,
          CF_STENCIL_CLAMP);
      char *what = g_strdup_printf ("%s %s impulse",
          cf_format_info (f)->name, dir_names[d]);
      const guint v = 160u << (cf_format_info (f)->bits - 8);
      CfStencilPlan plan;
      Frame src, dst;

      frame_init (&src, f, 18, 14, 0, 0);
      for (p = 0; p < src.n_planes; p++)
        for (y = 0; y < src.h[p]; y++)
          for (x = 0; x < src.w[p]; x++)
            for (k = 0; k < samples_per_pixel (&src, p); k++)
              value_set (&src, p, x, y, k, x == src.w[p] / 2
                  && y == src.h[p] / 2 ? v : 0, G_MAXUINT);
      filter_cpu (&s, &src, &dst, what);
      g_assert_cmpint (cf_stencil_plan_init (&plan, f, 18, 14, &s), ==, 0);
      for (p = 0; p < src.n_planes; p++)
        for (y = 0; y < src.h[p]; y++)
          for (x = 0; x < src.w[p]; x++) {
            /* out (c + r - t) = v w[t] */
            const int tX = src.w[p] / 2 + 2 - x, tY = src.h[p] / 2 + 1 - y;
            const double wx = d == CF_STENCIL_VERTICAL ? (tX == 2) :
                tX >= 0 && tX < 5 ? tx[tX] : 0;
            const double wy = d == CF_STENCIL_HORIZONTAL ? (tY == 1) :
                tY >= 0 && tY < 3 ? ty[tY] : 0;

            for (k = 0; k < samples_per_pixel (&src, p); k++)
              check_value (&dst, p, x, y, k, plan.skip[p] & (1u << k) ?
                  value_get (&src, p, x, y, k) : (guint) (v * wx * wy),
                  what);
          }
      cf_stencil_plan_clear (&plan);
      frame_clear (&src);
      frame_clear (&dst);
      g_free (what);
    }
}

/* A normalized filter keeps a constant picture constant: every format,
 * direction, border (CONSTANT's value that of the picture), radius, over
 * small and odd sizes, radii beyond them included; gaussian, box and
 * sharpen (negative taps). */
static void
test_cpu_constant (void)
{
  static const int sizes[][2] = { {1, 1}, {7, 5}, {2, 9}, {33, 17} };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  double tx[CF_STENCIL_MAX_TAPS], ty[CF_STENCIL_MAX_TAPS];
  guint f, d, b, r, z;

  CF_FOR_EACH_FORMAT (f)
    for (d = 0; d < N_DIRS; d++)
      for (b = 0; b < N_BORDERS; b++)
        for (r = 0; r < G_N_ELEMENTS (radii); r++)
          for (z = 0; z < G_N_ELEMENTS (sizes); z++) {
            const TapsKind kx = (f + r + z) % 4, ky = (f + b + z + 1) % 4;
            const int rx = radii[r], ry = radii[(r + z) % G_N_ELEMENTS (radii)];
            CfStencilParams s;
            Frame src, dst;
            char *what;

            if (kx == TAPS_RANDOM || ky == TAPS_RANDOM)
              continue;         /* random taps: not exactly 1 in total */
            make_taps (kx, rx, tx, rand);
            make_taps (ky, ry, ty, rand);
            s = params_of (d, rx, tx, TRUE, ry, ty, TRUE, b);
            set_border_values (&s, f);
            what = g_strdup_printf ("%s %dx%d %s %s rx %d %s ry %d %s",
                cf_format_info (f)->name, sizes[z][0], sizes[z][1],
                dir_names[d], border_names[b], rx, kind_names[kx], ry,
                kind_names[ky]);
            frame_init (&src, f, sizes[z][0], sizes[z][1], 2, z);
            frame_constant (&src);
            filter_cpu (&s, &src, &dst, what);
            check_values (&dst, &src, what);
            frame_clear (&src);
            frame_clear (&dst);
            g_free (what);
          }
  g_rand_free (rand);
}

/* The derivative (in[i + 1] - in[i - 1]) / 2 of the ramp 10 + 3i: 3 inside,
 * and at the edges (halves round up, negatives saturate to 0):
 * clamp (13 - 10) / 2 = 1.5, (34 - 31) / 2; mirror (13 - 13) / 2 = 0;
 * wrap (13 - 34) / 2 < 0, (10 - 31) / 2 < 0; constant 100: (13 - 100) / 2
 * < 0, (100 - 31) / 2 = 34.5. The negated derivative too (0 inside):
 * wrap (34 - 13) / 2 = 10.5, (31 - 10) / 2 = 10.5; constant
 * (100 - 13) / 2 = 43.5, (31 - 100) / 2 < 0. Along rows, along
 * columns, and with BOTH (a box along the other axis, which a ramp in the
 * first axis does not change). */
static void
test_cpu_ramp (void)
{
  static const double deriv[3] = { -0.5, 0, 0.5 }, neg[3] = { 0.5, 0, -0.5 };
  static const double box[3] = { 1, 1, 1 };
  static const guint edges[2][N_BORDERS][2] = {
    {{2, 2}, {0, 0}, {0, 0}, {0, 35}},
    {{0, 0}, {0, 0}, {11, 11}, {44, 0}},
  };
  guint in[9 * 3], want[9 * 3], b, d;
  int i, j;

  for (b = 0; b < N_BORDERS; b++)
    for (d = 0; d < N_DIRS; d++)
      for (j = 0; j < 2; j++) {
        /* d = HORIZONTAL, BOTH: 9 x 3 ramp along x; VERTICAL: 3 x 9 */
        const gboolean along_y = d == CF_STENCIL_VERTICAL;
        CfStencilParams s = along_y ?
            params_of (d, 0, NULL, FALSE, 1, j ? neg : deriv, FALSE, b) :
            params_of (d, 1, j ? neg : deriv, FALSE, 1, box, TRUE, b);
        char *what = g_strdup_printf ("ramp %s %s%s", dir_names[d],
            border_names[b], j ? " negated" : "");

        s.border_value[0] = 100;
        for (i = 0; i < 27; i++) {
          const int pos = along_y ? i / 3 : i % 9;
          in[i] = 10 + 3 * pos;
          if (pos == 0 || pos == 8)
            want[i] = edges[j][b][pos == 8];
          else
            want[i] = j ? 0 : 3;
        }
        if (d == CF_STENCIL_BOTH && b == CF_STENCIL_CONSTANT) {
          /* the box along y sees 100 above and below: skip those rows */
          g_free (what);
          continue;
        }
        check_plane0 (CF_FORMAT_GRAY8, &s, in, along_y ? 3 : 9,
            along_y ? 9 : 3, want, what);
        g_free (what);
      }
}

/* The input shifted by (dx, dy): a single tap of 1 at t = r + d reads
 * in[i + d], so every output is the extended picture at (x + dx, y + dy),
 * cf_stencil_border_index () of each coordinate (checked by hand above):
 * the value there, or CONSTANT's. Every format, border and shift of a
 * radius beyond the picture; random bytes, so the bits outside the values
 * too. */
static void
test_cpu_shift (void)
{
  static const int sizes[][2] = { {1, 1}, {3, 2}, {5, 4} };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  const int r = 6;
  double tx[13], ty[13];
  guint f, b, z;
  int dx, dy, p, x, y, k;

  CF_FOR_EACH_FORMAT (f)
    for (b = 0; b < N_BORDERS; b++)
      for (z = 0; z < G_N_ELEMENTS (sizes); z++)
        for (dy = -r; dy <= r; dy += 1 + (int) z)
          for (dx = -r; dx <= r; dx += 1 + (int) z) {
            const CfStencilDirection d = dx == 0 ? CF_STENCIL_VERTICAL :
                dy == 0 ? CF_STENCIL_HORIZONTAL : CF_STENCIL_BOTH;
            CfStencilParams s;
            CfStencilPlan plan;
            Frame src, dst;
            char *what = g_strdup_printf ("%s %dx%d %s shift %d,%d",
                cf_format_info (f)->name, sizes[z][0], sizes[z][1],
                border_names[b], dx, dy);

            memset (tx, 0, sizeof (tx));
            memset (ty, 0, sizeof (ty));
            tx[r + dx] = ty[r + dy] = 1.0;
            s = params_of (d, r, tx, FALSE, r, ty, FALSE, b);
            s.border_value[0] = 7;
            s.border_value[1] = 8;
            s.border_value[2] = 9;
            s.border_value[3] = 10;
            g_assert_cmpint (cf_stencil_plan_init (&plan, f, sizes[z][0],
                    sizes[z][1], &s), ==, 0);
            frame_init (&src, f, sizes[z][0], sizes[z][1], 1, 2);
            frame_random (&src, rand);
            filter_cpu (&s, &src, &dst, what);
            for (p = 0; p < src.n_planes; p++)
              for (y = 0; y < src.h[p]; y++)
                for (x = 0; x < src.w[p]; x++)
                  for (k = 0; k < samples_per_pixel (&src, p); k++) {
                    const int sx = cf_stencil_border_index (b, x + dx,
                        src.w[p]);
                    const int sy = cf_stencil_border_index (b, y + dy,
                        src.h[p]);
                    guint want = sx < 0 || sy < 0 ?
                        (guint) plan.border_sample[p][k] :
                        value_get (&src, p, sx, sy, k);

                    if (plan.skip[p] & (1u << k))
                      want = value_get (&src, p, x, y, k);
                    check_value (&dst, p, x, y, k, want, what);
                  }
            cf_stencil_plan_clear (&plan);
            frame_clear (&src);
            frame_clear (&dst);
            g_free (what);
          }
  g_rand_free (rand);
}

/* Hand-made rows: 10 20 30 40 50 shifted by 2 both ways, 10 20 30 by 7
 * (radius 7 on 3 samples), and the box of radius 3 on a single sample, along
 * rows and along columns. */
static void
test_cpu_borders (void)
{
  static const guint row5[5] = { 10, 20, 30, 40, 50 }, row3[3] = { 10, 20,
    30
  };
  /* [border][shift -2, +2][i] */
  static const guint want5[N_BORDERS][2][5] = {
    {{10, 10, 10, 20, 30}, {30, 40, 50, 50, 50}},
    {{30, 20, 10, 20, 30}, {30, 40, 50, 40, 30}},
    {{40, 50, 10, 20, 30}, {30, 40, 50, 10, 20}},
    {{7, 7, 10, 20, 30}, {30, 40, 50, 7, 7}},
  };
  /* [border][shift -7, +7][i]: mirror has period 4, wrap 3 */
  static const guint want3[N_BORDERS][2][3] = {
    {{10, 10, 10}, {30, 30, 30}},
    {{20, 30, 20}, {20, 10, 20}},
    {{30, 10, 20}, {20, 30, 10}},
    {{7, 7, 7}, {7, 7, 7}},
  };
  /* box of 7 on the single sample 10: the constant 7 weighs 6/7 (7.43) */
  static const guint want1[N_BORDERS] = { 10, 10, 10, 7 };
  static const double box7[7] = { 1, 1, 1, 1, 1, 1, 1 };
  double taps[15];
  guint b, j, v;

  for (b = 0; b < N_BORDERS; b++)
    for (v = 0; v < 2; v++) {
      const CfStencilDirection d = v ? CF_STENCIL_VERTICAL :
          CF_STENCIL_HORIZONTAL;
      char *what = g_strdup_printf ("%s %s", border_names[b], dir_names[d]);
      CfStencilParams s;

      for (j = 0; j < 2; j++) {
        memset (taps, 0, sizeof (taps));
        taps[j ? 4 : 0] = 1.0;  /* radius 2: reads in[i -+ 2] */
        s = params_of (d, 2, taps, FALSE, 2, taps, FALSE, b);
        s.border_value[0] = 7;
        check_plane0 (CF_FORMAT_GRAY8, &s, row5, v ? 1 : 5, v ? 5 : 1,
            want5[b][j], what);
        memset (taps, 0, sizeof (taps));
        taps[j ? 14 : 0] = 1.0; /* radius 7 */
        s = params_of (d, 7, taps, FALSE, 7, taps, FALSE, b);
        s.border_value[0] = 7;
        check_plane0 (CF_FORMAT_GRAY8, &s, row3, v ? 1 : 3, v ? 3 : 1,
            want3[b][j], what);
      }
      s = params_of (d, 3, box7, TRUE, 3, box7, TRUE, b);
      s.border_value[0] = 7;
      check_plane0 (CF_FORMAT_GRAY8, &s, row5, 1, 1, &want1[b], what);
      g_free (what);
    }
}

/* RGBA-family alpha is copied unless asked for; when asked, it is filtered
 * like the other samples: as a gray picture of the same depth. */
static void
test_cpu_alpha (void)
{
  static const CfFormat formats[] = { CF_FORMAT_RGBA, CF_FORMAT_BGRA,
    CF_FORMAT_ARGB, CF_FORMAT_ABGR, CF_FORMAT_RGBA64_LE, CF_FORMAT_BGRA64_LE
  };
  static const double box[5] = { 1, 1, 1, 1, 1 };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  guint f, d;
  int x, y, k, a;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (d = 0; d < N_DIRS; d++) {
      const int alpha = formats[f] == CF_FORMAT_ARGB
          || formats[f] == CF_FORMAT_ABGR ? 0 : 3;
      const CfFormat gray_format = cf_format_info (formats[f])->depth > 8 ?
          CF_FORMAT_GRAY16_LE : CF_FORMAT_GRAY8;
      CfStencilParams s = params_of (d, 2, box, TRUE, 2, box, TRUE,
          CF_STENCIL_MIRROR);
      Frame src, copied, filtered, gray, gray_out;
      int changed = 0;

      frame_init (&src, formats[f], 23, 11, 4, 1);
      frame_random (&src, rand);
      filter_cpu (&s, &src, &copied, "alpha copied");
      s.filter_alpha = TRUE;
      filter_cpu (&s, &src, &filtered, "alpha filtered");
      /* each sample as a gray picture of its own gives the same */
      for (k = 0; k < 4; k++) {
        frame_init (&gray, gray_format, 23, 11, 0, 0);
        for (y = 0; y < 11; y++)
          for (x = 0; x < 23; x++)
            sample_set (&gray, 0, x, y, 0, sample_get (&src, 0, x, y, k));
        filter_cpu (&s, &gray, &gray_out, "gray");
        for (y = 0; y < 11; y++)
          for (x = 0; x < 23; x++) {
            a = sample_get (&gray_out, 0, x, y, 0);
            g_assert_cmpuint (sample_get (&filtered, 0, x, y, k), ==, a);
            g_assert_cmpuint (sample_get (&copied, 0, x, y, k), ==,
                k == alpha ? sample_get (&src, 0, x, y, k) : (guint) a);
            changed += k == alpha && (guint) a != sample_get (&src, 0, x, y, k);
          }
        frame_clear (&gray);
        frame_clear (&gray_out);
      }
      g_assert_cmpint (changed, >, 0);
      frame_clear (&src);
      frame_clear (&copied);
      frame_clear (&filtered);
    }
  g_rand_free (rand);
}

/* Values in 16-bit samples (format.h), by hand: rows of 4 samples of plane
 * 0 of I420_10LE (the value in the low 10 bits), P010_10LE (the high 10)
 * and P016_LE, as they are in memory, along rows, along columns and with
 * BOTH (the identity on the other axis):
 * - radius 0, tap 1 gives each value back in place, the other bits 0
 *   (I420_10LE 0xfc01 holds 1, 0x0400 holds 0; P010 0x003f holds 0);
 * - a box of 3 (CLAMP) on the values 1, 2, 3, 6: 4/3, 2, 11/3, 15/3 round
 *   to 1, 2, 4, 5, whatever the other bits hold;
 * - -1, 3, -1 (CLAMP) on 0, 1000, 0, 0: -1000, 3000, -1000, 0 saturate to
 *   0 and the value's maximum, 1023 in 10 bits (P016: 0, 30000, 0, 0 to
 *   65535);
 * - the shift by one to the right with a CONSTANT border of 1000: a value,
 *   shifted into the sample like the others. */
static void
test_cpu_values (void)
{
  static const double one[1] = { 1 }, box[3] = { 1, 1, 1 };
  static const double peak[3] = { -1, 3, -1 }, shift[3] = { 1, 0, 0 };
  static const struct
  {
    const char *name;
    const double *taps;
    int radius;
    gboolean normalize;
    CfStencilBorder border;
    CfFormat format;
    guint in[4], want[4];
  } rows[] = {
    {"identity", one, 0, FALSE, CF_STENCIL_CLAMP, CF_FORMAT_I420_10LE,
        {0xffff, 0x0400, 0xfc01, 0x83ff}, {0x03ff, 0x0000, 0x0001, 0x03ff}},
    {"identity", one, 0, FALSE, CF_STENCIL_CLAMP, CF_FORMAT_P010_10LE,
        {0xffff, 0x003f, 0x0041, 0x8020}, {0xffc0, 0x0000, 0x0040, 0x8000}},
    {"identity", one, 0, FALSE, CF_STENCIL_CLAMP, CF_FORMAT_P016_LE,
        {0xffff, 0x003f, 0x0041, 0x8020}, {0xffff, 0x003f, 0x0041, 0x8020}},
    {"box", box, 1, TRUE, CF_STENCIL_CLAMP, CF_FORMAT_I420_10LE,
        {0xfc01, 0x0402, 0x8003, 0x7c06}, {0x0001, 0x0002, 0x0004, 0x0005}},
    {"box", box, 1, TRUE, CF_STENCIL_CLAMP, CF_FORMAT_P010_10LE,
        {0x007f, 0x0095, 0x00ea, 0x01bf}, {0x0040, 0x0080, 0x0100, 0x0140}},
    {"peak", peak, 1, FALSE, CF_STENCIL_CLAMP, CF_FORMAT_I420_10LE,
        {0xfc00, 0xffe8, 0x0400, 0x0000}, {0x0000, 0x03ff, 0x0000, 0x0000}},
    {"peak", peak, 1, FALSE, CF_STENCIL_CLAMP, CF_FORMAT_P010_10LE,
        {0x003f, 0xfa3f, 0x0001, 0x0000}, {0x0000, 0xffc0, 0x0000, 0x0000}},
    {"peak", peak, 1, FALSE, CF_STENCIL_CLAMP, CF_FORMAT_P016_LE,
        {0x0000, 30000, 0x0000, 0x0000}, {0x0000, 0xffff, 0x0000, 0x0000}},
    {"constant", shift, 1, FALSE, CF_STENCIL_CONSTANT, CF_FORMAT_I420_10LE,
        {0xfc05, 0x0006, 0x0007, 0xf008}, {1000, 5, 6, 7}},
    {"constant", shift, 1, FALSE, CF_STENCIL_CONSTANT, CF_FORMAT_P010_10LE,
        {0x017f, 0x0180, 0x01c0, 0x0215}, {0xfa00, 0x0140, 0x0180, 0x01c0}},
    {"constant", shift, 1, FALSE, CF_STENCIL_CONSTANT, CF_FORMAT_P016_LE,
        {5, 6, 7, 8}, {1000, 5, 6, 7}},
  };
  guint i, d;

  for (i = 0; i < G_N_ELEMENTS (rows); i++)
    for (d = 0; d < N_DIRS; d++) {
      const gboolean along_y = d == CF_STENCIL_VERTICAL;
      CfStencilParams s = along_y ?
          params_of (d, 0, NULL, FALSE, rows[i].radius, rows[i].taps,
          rows[i].normalize, rows[i].border) :
          params_of (d, rows[i].radius, rows[i].taps, rows[i].normalize, 0,
          one, FALSE, rows[i].border);
      char *what = g_strdup_printf ("%s %s %s",
          cf_format_info (rows[i].format)->name, rows[i].name, dir_names[d]);

      s.border_value[0] = 1000;
      check_plane0 (rows[i].format, &s, rows[i].in, along_y ? 1 : 4,
          along_y ? 4 : 1, rows[i].want, what);
      g_free (what);
    }
}

/* Fills @p010 and @i420 (I420_10LE), of the same size, with the same random
 * values, the bits outside them random too when @dirty, else 0. */
static void
random_10bit_pair (Frame * p010, Frame * i420, gboolean dirty, GRand * rand)
{
  int p, x, y;

  for (p = 0; p < i420->n_planes; p++)
    for (y = 0; y < i420->h[p]; y++)
      for (x = 0; x < i420->w[p]; x++) {
        /* the same draws either way, so the same values */
        const guint v = g_rand_int_range (rand, 0, 1024);
        const guint other = g_rand_int (rand);

        /* P010's U and V are samples 0 and 1 of plane 1 */
        value_set (i420, p, x, y, 0, v, dirty ? other : 0);
        value_set (p010, MIN (p, 1), x, y, p == 2, v, dirty ? other >> 16 : 0);
      }
}

/* The bits outside the values do not change the result, and P010_10LE
 * and I420_10LE holding the same values give the same values, channel by
 * channel: each direction and border, a gaussian along rows and a sharpen
 * (negative taps) along columns, on an odd size; CONSTANT's border is
 * 1000, 3, 1023. */
static void
test_cpu_10bit (void)
{
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  double tx[CF_STENCIL_MAX_TAPS], ty[CF_STENCIL_MAX_TAPS];
  guint d, b;
  int p, x, y;

  make_taps (TAPS_GAUSSIAN, 3, tx, rand);
  make_taps (TAPS_SHARPEN, 2, ty, rand);
  for (d = 0; d < N_DIRS; d++)
    for (b = 0; b < N_BORDERS; b++) {
      CfStencilParams s = params_of (d, 3, tx, TRUE, 2, ty, TRUE, b);
      char *what = g_strdup_printf ("10-bit %s %s", dir_names[d],
          border_names[b]);
      Frame p010[2], i420[2], p010_out[2], i420_out[2];
      const guint32 seed = g_rand_int (rand);
      int dirty;

      s.border_value[0] = 1000;
      s.border_value[1] = 3;
      s.border_value[2] = 1023;
      for (dirty = 0; dirty < 2; dirty++) {
        /* the same values both times */
        g_rand_set_seed (rand, seed);
        frame_init (&p010[dirty], CF_FORMAT_P010_10LE, 13, 7, 3, 1);
        frame_init (&i420[dirty], CF_FORMAT_I420_10LE, 13, 7, 5, 2);
        random_10bit_pair (&p010[dirty], &i420[dirty], dirty, rand);
        filter_cpu (&s, &p010[dirty], &p010_out[dirty], what);
        filter_cpu (&s, &i420[dirty], &i420_out[dirty], what);
      }
      check_samples (&p010_out[1], &p010_out[0], what);
      check_samples (&i420_out[1], &i420_out[0], what);
      for (p = 0; p < 3; p++)
        for (y = 0; y < i420_out[0].h[p]; y++)
          for (x = 0; x < i420_out[0].w[p]; x++)
            check_value (&p010_out[0], MIN (p, 1), x, y, p == 2,
                value_get (&i420_out[0], p, x, y, 0), what);
      for (dirty = 0; dirty < 2; dirty++) {
        frame_clear (&p010[dirty]);
        frame_clear (&i420[dirty]);
        frame_clear (&p010_out[dirty]);
        frame_clear (&i420_out[dirty]);
      }
      g_free (what);
    }
  g_rand_free (rand);
}

/* ---- CPU against the float64 model ---- */

/* Checks that the values of @dst are within 1 LSB of the model (clamped to
 * the values' range), and its samples 0 outside them: every sample of small
 * planes, 48 of larger ones, half of them near a corner; @worst gets the
 * largest error per value size (8, 10, 16 bits). */
static void
check_model (const CfStencilPlan * plan, const Frame * src, const Frame * dst,
    GRand * rand, double *worst, const char *what)
{
  const CfFormatInfo *info = cf_format_info (dst->img.format);
  const double max = CF_FORMAT_MAX_VALUE (info);
  double *worst_here = &worst[info->bits == 8 ? 0 : info->bits == 10 ? 1 : 2];
  int p, x, y, k, i;

  for (p = 0; p < dst->n_planes; p++) {
    const int w = dst->w[p], h = dst->h[p];
    const gboolean all = w * h <= 48;

    for (i = 0; i < (all ? w * h : 48); i++) {
      x = all ? i % w : g_rand_int_range (rand, 0, w);
      y = all ? i / w : g_rand_int_range (rand, 0, h);
      if (!all && i % 2 == 0) { /* within 3 of a corner */
        x = i % 4 ? x % MIN (w, 3) : w - 1 - x % MIN (w, 3);
        y = i % 8 < 4 ? y % MIN (h, 3) : h - 1 - y % MIN (h, 3);
      }
      for (k = 0; k < samples_per_pixel (dst, p); k++) {
        const double m = CLAMP (cf_stencil_model (plan, &src->img, p, x, y, k),
            0, max);
        const guint v = value_get (dst, p, x, y, k);
        const double err = fabs (v - m);

        if (!(err <= 1.0)) {
          g_printerr ("%s: plane %d, pixel %d,%d, sample %d: %u, model %.4f\n",
              what, p, x, y, k, v, m);
          g_assert_cmpfloat (err, <=, 1.0);
        }
        check_value (dst, p, x, y, k, v, what);
        *worst_here = MAX (*worst_here, err);
      }
    }
  }
}

/* Random pictures (random padding, unaligned planes), every format,
 * direction, border and radius, the kinds of taps in turn; the largest size
 * only with a few formats, for time. */
static void
test_cpu_model (void)
{
  static const int sizes[][2] = { {1, 1}, {7, 5}, {2, 9}, {67, 33},
  {641, 481}
  };
  static const CfFormat large[] = { CF_FORMAT_GRAY8, CF_FORMAT_RGBA,
    CF_FORMAT_NV12, CF_FORMAT_GRAY16_LE, CF_FORMAT_P010_10LE
  };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  double tx[CF_STENCIL_MAX_TAPS], ty[CF_STENCIL_MAX_TAPS];
  double worst[3] = { 0, 0, 0 };
  guint f, d, b, r, z, i, n = 0;

  for (z = 0; z < G_N_ELEMENTS (sizes); z++)
    CF_FOR_EACH_FORMAT (f)
      for (d = 0; d < N_DIRS; d++)
        for (b = 0; b < N_BORDERS; b++)
          for (r = 0; r < G_N_ELEMENTS (radii); r++) {
            const int rx = radii[r], ry = radii[(r + b) % G_N_ELEMENTS (radii)];
            gboolean is_large = z == G_N_ELEMENTS (sizes) - 1, listed = FALSE;
            TapsKind kx, ky;
            gboolean nx, ny;
            CfStencilParams s;
            CfStencilPlan plan;
            Frame src, dst;
            char *what;

            for (i = 0; i < G_N_ELEMENTS (large); i++)
              listed |= large[i] == f;
            /* 641x481: a few formats, one border each, radius 64 once */
            if (is_large && (!listed || b != (f + d) % N_BORDERS
                    || (radii[r] == R_MAX && d != CF_STENCIL_BOTH)))
              continue;
            kx = n++ % TAPS_KIND_COUNT;
            ky = (kx + 1 + d) % TAPS_KIND_COUNT;
            nx = make_taps (kx, rx, tx, rand);
            ny = make_taps (ky, ry, ty, rand);
            s = params_of (d, rx, tx, nx, ry, ty, ny, b);
            s.filter_alpha = n % 2;
            set_border_values (&s, f);
            what = g_strdup_printf ("%s %dx%d %s %s rx %d %s ry %d %s",
                cf_format_info (f)->name, sizes[z][0], sizes[z][1],
                dir_names[d], border_names[b], rx, kind_names[kx], ry,
                kind_names[ky]);
            frame_init (&src, f, sizes[z][0], sizes[z][1], 3 + z, n % 16);
            frame_random (&src, rand);
            filter_cpu (&s, &src, &dst, what);
            g_assert_cmpint (cf_stencil_plan_init (&plan, f, sizes[z][0],
                    sizes[z][1], &s), ==, 0);
            check_model (&plan, &src, &dst, rand, worst, what);
            cf_stencil_plan_clear (&plan);
            frame_clear (&src);
            frame_clear (&dst);
            g_free (what);
          }
  g_test_message ("largest error against the model: %.4f LSB (8 bits), "
      "%.4f LSB (10 bits), %.4f LSB (16 bits)", worst[0], worst[1], worst[2]);
  g_rand_free (rand);
}

static void
test_cpu_invalid (void)
{
  static const double box[3] = { 1, 1, 1 };
  CfStencilParams s = params_of (CF_STENCIL_BOTH, 1, box, TRUE, 1, box, TRUE,
      CF_STENCIL_CLAMP), t;
  CfStencilPlan plan;
  Frame src, dst;
  int i;

  g_assert_cmpint (cf_stencil_plan_init (NULL, CF_FORMAT_RGBA, 4, 4, &s), ==,
      -1);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_RGBA, 4, 4, NULL),
      ==, -1);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_COUNT, 4, 4, &s),
      ==, -1);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_RGBA, 0, 4, &s),
      ==, -1);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_RGBA, 4, -1, &s),
      ==, -1);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_RGBA,
          CF_MAX_SIDE + 1, 4, &s), ==, -1);
  t = s;
  t.direction = N_DIRS;
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_RGBA, 4, 4, &t),
      ==, -1);
  t = s;
  t.border = N_BORDERS;
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_RGBA, 4, 4, &t),
      ==, -1);
  cf_stencil_plan_clear (&plan);        /* safe after a failure */
  cf_stencil_plan_clear (NULL);

  /* I420 8x6: images spoilt every way, on either side */
  frame_init (&src, CF_FORMAT_I420, 8, 6, 0, 0);
  frame_init (&dst, CF_FORMAT_I420, 8, 6, 0, 0);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_I420, 8, 6, &s),
      ==, 0);
  g_assert_cmpint (cf_stencil_cpu (&plan, &src.img, &dst.img), ==, 0);
  for (i = 0; i < 12; i++) {
    CfImage bad = i < 6 ? src.img : dst.img;

    bad_image (&bad, i % 6);
    g_assert_cmpint (cf_stencil_cpu (&plan, i < 6 ? &bad : &src.img,
            i < 6 ? &dst.img : &bad), ==, -1);
    if (i < 6)
      g_assert_true (isnan (cf_stencil_model (&plan, &bad, 0, 0, 0, 0)));
  }
  g_assert_cmpint (cf_stencil_cpu (&plan, &src.img, NULL), ==, -1);
  g_assert_cmpint (cf_stencil_cpu (NULL, &src.img, &dst.img), ==, -1);
  /* plane 3, x 4 of a 4-wide plane, y 6 of 6 rows, sample 1 of 1 */
  g_assert_true (isnan (cf_stencil_model (&plan, &src.img, 3, 0, 0, 0)));
  g_assert_true (isnan (cf_stencil_model (&plan, &src.img, 1, 4, 0, 0)));
  g_assert_true (isnan (cf_stencil_model (&plan, &src.img, 0, 0, 6, 0)));
  g_assert_true (isnan (cf_stencil_model (&plan, &src.img, 0, 0, 0, 1)));
  g_assert_true (isnan (cf_stencil_model (&plan, &src.img, 0, -1, 0, 0)));
  g_assert_false (isnan (cf_stencil_model (&plan, &src.img, 2, 3, 2, 0)));
  cf_stencil_plan_clear (&plan);
  g_assert_cmpint (cf_stencil_cpu (&plan, &src.img, &dst.img), ==, -1);
  g_assert_true (isnan (cf_stencil_model (&plan, &src.img, 0, 0, 0, 0)));
  frame_clear (&src);
  frame_clear (&dst);
}

/* ---- CPU: the 16-bit multiply-adds against the scalar code ---- */

/* Taps for test_cpu_simd (): the kinds above, the presets, and custom
 * ones, unnormalized, in -0.4 .. 0.4 (weights within int16, gains up to
 * about 50: the intermediate of BOTH beyond int16, the columns of BOTH
 * falling back); returns whether they are to be normalized. */
static gboolean
simd_taps (int i, int r, double *t, GRand * rand)
{
  const int n_kinds = TAPS_KIND_COUNT + CF_STENCIL_PRESET_COUNT + 1;
  const int kind = i % n_kinds;
  int j, r_out, normalize;

  if (kind < TAPS_KIND_COUNT)
    return make_taps (kind, r, t, rand);
  if (kind < TAPS_KIND_COUNT + CF_STENCIL_PRESET_COUNT) {
    /* sharpen: amount 0.5 (fits) or 6 (a centre beyond int16) */
    g_assert_cmpint (cf_stencil_preset_taps (kind - TAPS_KIND_COUNT, r,
            r ? r / 2.0 : 1.0, i % 2 ? 0.5 : 6.0, t, &r_out, &normalize),
        ==, 0);
    /* derivative and laplacian have radius 1: the rest 0 */
    for (j = 2 * r_out + 1; j <= 2 * r; j++)
      t[j] = 0;
    if (r_out > r) {
      /* radius 0 asked, radius 1 given: the centre tap */
      t[0] = t[1];
    }
    return normalize;
  }
  for (j = 0; j <= 2 * r; j++)
    t[j] = g_rand_double_range (rand, -0.4, 0.4);
  return FALSE;
}

/* What cf_stencil_cpu_narrow () should say of plane 0 of @plan (8-bit
 * samples): stencil.c's checks written out again from stencil.h's
 * bounds. */
static int
simd_expected (const CfStencilPlan * plan)
{
  const CfFormatInfo *info = cf_format_info (plan->format);
  const int nx = 2 * plan->radius_x + 1, ny = 2 * plan->radius_y + 1;
  gint64 gx = 0, gy = 0, in_y;
  gboolean fit_x = TRUE, fit_y = TRUE;
  int t, want = 0;

  if (info->depth != 8)
    return 0;
  for (t = 0; t < nx; t++) {
    gx += ABS (plan->weights_x[t]);
    fit_x &= ABS (plan->weights_x[t]) <= G_MAXINT16;
  }
  for (t = 0; t < ny; t++) {
    gy += ABS (plan->weights_y[t]);
    fit_y &= ABS (plan->weights_y[t]) <= G_MAXINT16;
  }
  /* |h| of BOTH, or a value */
  in_y = plan->direction == CF_STENCIL_BOTH ?
      ((gx * 255 + (1 << 9)) >> 10) + 1 : 255;
  if (plan->direction != CF_STENCIL_VERTICAL && fit_x)
    want |= 1;
  if (plan->direction != CF_STENCIL_HORIZONTAL && fit_y
      && in_y <= G_MAXINT16 && gy * in_y + (plan->direction ==
          CF_STENCIL_BOTH ? 1 << 21 : 1 << 15) < G_GINT64_CONSTANT (1) << 31)
    want |= 2;
  return want;
}

/* The 16-bit multiply-adds (kernels/cpu/simd16-loops.h), in every
 * instruction set this CPU has, write the bytes of the scalar code
 * (CF_STENCIL_SIMD=off): the formats of 8-bit samples and two of 16 (which
 * never take them), radius 0 .. 64 on each axis, every direction and
 * border, the test kinds, the presets and custom taps (some of which must
 * fall back: the passes taken are checked against stencil.h's bounds),
 * sizes from 1x1 to 197x23 (odd, wider and narrower than a vector),
 * misaligned planes and padded pitches, random pictures, 1, 2, 3 and all
 * the threads. */
static void
test_cpu_simd (void)
{
  static const char *const sets[] = { "sse2", "avx2", "avx512", "vnni" };
  static const int sizes[][2] = { {1, 1}, {1, 9}, {9, 1}, {3, 5}, {17, 9},
  {33, 31}, {67, 13}, {197, 23}, {129, 3}
  };
  static const int threads[] = { 1, 2, 3, 0 };
  const guint32 seed = cf_test_seed ();
  GRand *rand = g_rand_new_with_seed (seed);
  double tx[CF_STENCIL_MAX_TAPS], ty[CF_STENCIL_MAX_TAPS];
  CfFormat formats[CF_FORMAT_COUNT];
  guint n_formats = 0, f, set, n_sets = 0, n = 0, paths[4] = { 0 };
  int r, d, b;
  gboolean have[G_N_ELEMENTS (sets)] = { FALSE };

  g_test_message ("seed %u", seed);
  CF_FOR_EACH_FORMAT (f)
    if (cf_format_info (f)->depth == 8 || f == CF_FORMAT_GRAY16_LE
        || f == CF_FORMAT_P010_10LE)
      formats[n_formats++] = f;
  /* the sets this CPU has: CF_STENCIL_SIMD=NAME gives NAME or one below */
  for (set = 0; set < G_N_ELEMENTS (sets); set++) {
    g_setenv ("CF_STENCIL_SIMD", sets[set], TRUE);
    have[set] = g_strcmp0 (cf_stencil_cpu_simd (), sets[set]) == 0;
    n_sets += have[set];
  }
  g_setenv ("CF_STENCIL_SIMD", "off", TRUE);
  g_assert_null (cf_stencil_cpu_simd ());
  g_test_message ("instruction sets: %u", n_sets);
#if defined (__x86_64__) && defined (__GNUC__) && !defined (__clang__)
  g_assert_true (have[0]);      /* the x86-64 baseline */
#endif

  for (r = 0; r <= R_MAX; r++)
    for (d = 0; d < N_DIRS; d++)
      for (b = 0; b < N_BORDERS; b++) {
        const CfFormat format = formats[n % n_formats];
        const int *size = sizes[(n / 3) % G_N_ELEMENTS (sizes)];
        /* both axes' radii cover 0 .. 64, in another order for y */
        const int rx = r, ry = (r * 37 + b) % (R_MAX + 1);
        const gboolean nx = simd_taps (n, rx, tx, rand);
        const gboolean ny = simd_taps (n / 2 + d, ry, ty, rand);
        CfStencilParams s = params_of (d, rx, tx, nx, ry, ty, ny, b);
        CfStencilPlan plan;
        Frame src, want;
        char *what;

        s.filter_alpha = n % 3 == 0;
        set_border_values (&s, format);
        n++;
        if (cf_stencil_plan_init (&plan, format, size[0], size[1], &s) < 0)
          continue;             /* a gain beyond 64 */
        what = g_strdup_printf ("%s %dx%d %s %s rx %d ry %d (case %u, "
            "seed %u)", cf_format_info (format)->name, size[0], size[1],
            dir_names[d], border_names[b], rx, ry, n, seed);
        frame_init (&src, format, size[0], size[1], n % 7, n % 5);
        frame_random (&src, rand);
        /* the scalar code, one thread */
        g_setenv ("CF_STENCIL_SIMD", "off", TRUE);
        g_assert_cmpint (cf_stencil_cpu_narrow (&plan, 0), ==, 0);
        frame_init (&want, format, size[0], size[1], 3, 1);
        g_assert_cmpint (cf_stencil_cpu (&plan, &src.img, &want.img), ==, 0);
        for (set = 0; set < G_N_ELEMENTS (sets); set++) {
          const int n_threads = threads[(n + set) % G_N_ELEMENTS (threads)];
          Frame got;

          if (!have[set])
            continue;
          g_setenv ("CF_STENCIL_SIMD", sets[set], TRUE);
          g_assert_cmpint (cf_stencil_cpu_narrow (&plan, 0), ==,
              simd_expected (&plan));
          paths[simd_expected (&plan)]++;
          frame_init (&got, format, size[0], size[1], 64 + n % 9, n % 3);
          g_assert_cmpint (cf_stencil_cpu_threads (&plan, &src.img,
                  &got.img, n_threads), ==, 0);
          check_padding (&got, MARKER, what);
          check_samples (&got, &want, what);
          frame_clear (&got);
        }
        cf_stencil_plan_clear (&plan);
        frame_clear (&src);
        frame_clear (&want);
        g_free (what);
      }
  g_unsetenv ("CF_STENCIL_SIMD");
  g_test_message ("%u runs: %u scalar, %u rows only, %u columns only, "
      "%u both passes in 16 bits", paths[0] + paths[1] + paths[2] +
      paths[3], paths[0], paths[1], paths[2], paths[3]);
  /* each combination of passes was taken (where a set exists) */
  if (n_sets > 0)
    for (set = 0; set < 4; set++)
      g_assert_cmpuint (paths[set], >, 0);
  g_rand_free (rand);
}

/* ---- CUDA against the CPU reference ---- */
#ifdef HAVE_CUDA


static GRand *gpu_rand;
static cudaStream_t gpu_stream;

/* The kernels cf_stencil_device_plan_describe () names, in the order of
 * gpu_check_kernels ()'s counts. */
enum
{
  KERNEL_CUDA_CORES,
  KERNEL_WINDOW,
  KERNEL_WINDOW_DOT,
  KERNEL_TENSOR_CORES,
  KERNEL_TWO_PASS,
  N_KERNELS
};
static const char *const kernel_names[N_KERNELS] = { "cuda cores",
  "sliding window", "sliding window, dp2a", "tensor cores",
  "tensor cores, two passes"
};

/* Filters a @width x @height picture with @s on both backends and compares
 * every sample: a random picture in planes misaligned by @misalign with
 * pitches of row bytes + @extra, or a constant one. The device output is
 * poisoned before the launch: its padding must still hold POISON after
 * it. @counts (or NULL): planes per kernel of the plan, added. */
static void
gpu_check_kernels (CfFormat format, int width, int height,
    const CfStencilParams * s, CfStencilKernels kernels, gboolean random,
    size_t extra, int misalign, const char *what, guint counts[N_KERNELS])
{
  CfStencilDevicePlan *d_plan;
  CfStencilPlan plan;
  Frame src, want, got;
  Device d_src, d_dst;

  frame_init (&src, format, width, height, extra, misalign);
  if (random)
    frame_random (&src, gpu_rand);
  else
    frame_constant (&src);
  g_assert_cmpint (cf_stencil_plan_init (&plan, format, width, height, s),
      ==, 0);
  /* the output misaligned otherwise than the input, unless both are
   * aligned */
  const int out_misalign = extra == ALIGNED_PITCH ? misalign :
      (misalign + 5) % 16;
  frame_init (&want, format, width, height, extra, out_misalign);
  frame_init (&got, format, width, height, extra, out_misalign);
  g_assert_cmpint (cf_stencil_cpu (&plan, &src.img, &want.img), ==, 0);

  CHECK_CUDA (cf_stencil_device_plan_new (&plan, kernels, &d_plan));
  for (int p = 0; counts && p < src.n_planes; p++) {
    const char *name = cf_stencil_device_plan_describe (d_plan, p);
    int k = 0;

    while (k < N_KERNELS && strcmp (name, kernel_names[k]))
      k++;
    g_assert_cmpint (k, <, N_KERNELS);
    counts[k]++;
  }
  /* the two passes' workspace (none otherwise), poisoned: the columns
   * must read only what the rows wrote */
  const size_t ws = cf_stencil_device_plan_workspace_bytes (d_plan);
  void *d_ws = NULL;
  for (int p = 0; p < src.n_planes; p++)
    g_assert_true ((ws > 0) == (strcmp (cf_stencil_device_plan_describe
                (d_plan, p), kernel_names[KERNEL_TWO_PASS]) == 0));
  if (ws) {
    CHECK_CUDA (cudaMalloc (&d_ws, ws));
    CHECK_CUDA (cudaMemsetAsync (d_ws, POISON, ws, gpu_stream));
    g_assert_cmpint (cf_stencil_cuda (d_plan, &src.img, &got.img, NULL,
            gpu_stream), ==, cudaErrorInvalidValue);
  }
  device_init (&src, &d_src, FALSE, gpu_stream);
  device_init (&got, &d_dst, TRUE, gpu_stream);
  CHECK_CUDA (cf_stencil_cuda (d_plan, &d_src.img, &d_dst.img, d_ws,
          gpu_stream));
  device_finish (&d_dst, &got, gpu_stream);
  device_finish (&d_src, NULL, gpu_stream);
  if (d_ws)
    CHECK_CUDA (cudaFree (d_ws));

  check_samples (&got, &want, what);
  check_padding (&got, POISON, what);
  cf_stencil_device_plan_free (d_plan);
  cf_stencil_plan_clear (&plan);
  frame_clear (&src);
  frame_clear (&want);
  frame_clear (&got);
}

static void
gpu_check (CfFormat format, int width, int height, const CfStencilParams * s,
    gboolean random, size_t extra, int misalign, const char *what)
{
  gpu_check_kernels (format, width, height, s, CF_STENCIL_KERNELS_AUTO,
      random, extra, misalign, what, NULL);
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
  CHECK_CUDA (cudaStreamDestroy (gpu_stream));
  g_rand_free (gpu_rand);
}

/* Every format x direction x border x radius over the sizes, random
 * (misaligned, odd pitches) and constant pictures. The largest sizes take
 * the CPU reference longest: radius 64 runs on the mid size there. */
static void
test_cuda_matrix (void)
{
  static const int sizes[][2] = { {1, 1}, {7, 5}, {5, 70}, {131, 67},
  {641, 481}
  };
  double tx[CF_STENCIL_MAX_TAPS], ty[CF_STENCIL_MAX_TAPS];
  guint f, d, b, r, z, n = 0;

  gpu_begin ();
  CF_FOR_EACH_FORMAT (f)
    for (d = 0; d < N_DIRS; d++)
      for (b = 0; b < N_BORDERS; b++)
        for (r = 0; r < G_N_ELEMENTS (radii); r++)
          for (z = 0; z < G_N_ELEMENTS (sizes); z++) {
            const int rx = radii[r];
            const int ry = radii[(r + z) % G_N_ELEMENTS (radii)];
            const TapsKind kx = n % TAPS_KIND_COUNT;
            const TapsKind ky = (n / TAPS_KIND_COUNT) % TAPS_KIND_COUNT;
            const gboolean nx = make_taps (kx, rx, tx, gpu_rand);
            const gboolean ny = make_taps (ky, ry, ty, gpu_rand);
            CfStencilParams s = params_of (d, rx, tx, nx, ry, ty, ny, b);
            char *what;

            if (z == G_N_ELEMENTS (sizes) - 1 && (rx == R_MAX || ry == R_MAX))
              continue;
            n++;
            set_border_values (&s, f);
            s.filter_alpha = n % 3 == 0;
            what = g_strdup_printf ("%s %dx%d %s %s rx %d %s ry %d %s",
                cf_format_info (f)->name, sizes[z][0], sizes[z][1],
                dir_names[d], border_names[b], rx, kind_names[kx], ry,
                kind_names[ky]);
            gpu_check (f, sizes[z][0], sizes[z][1], &s, TRUE,
                37 + 16 * (n % 3), n % 16, what);
            /* a constant picture: exact pitches, aligned */
            if (z % 2 == 0)
              gpu_check (f, sizes[z][0], sizes[z][1], &s, FALSE, 0, 0, what);
            g_free (what);
          }
  gpu_end ();
}

/* Radius 64 on 641x481 (only BOTH, gaussian), and 4K RGBA and NV12, radius
 * 8 both ways, as the benchmark runs them. */
static void
test_cuda_large (void)
{
  /* RGBA64_LE: the largest shared tile (8-byte pixels, about 170 KB) */
  static const CfFormat formats[] = { CF_FORMAT_RGBA, CF_FORMAT_GRAY8,
    CF_FORMAT_GRAY16_LE, CF_FORMAT_RGB, CF_FORMAT_RGBA64_LE,
    CF_FORMAT_P010_10LE
  };
  double taps[CF_STENCIL_MAX_TAPS];
  CfStencilParams s;
  guint f;

  gpu_begin ();
  make_taps (TAPS_GAUSSIAN, R_MAX, taps, NULL);
  s = params_of (CF_STENCIL_BOTH, R_MAX, taps, TRUE, R_MAX, taps, TRUE,
      CF_STENCIL_MIRROR);
  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    gpu_check (formats[f], 641, 481, &s, TRUE, 37, 9, "radius 64, 641x481");
  make_taps (TAPS_GAUSSIAN, 8, taps, NULL);
  s = params_of (CF_STENCIL_BOTH, 8, taps, TRUE, 8, taps, TRUE,
      CF_STENCIL_CLAMP);
  gpu_check (CF_FORMAT_RGBA, 3840, 2160, &s, TRUE, 0, 0, "4K RGBA");
  gpu_check (CF_FORMAT_NV12, 3840, 2160, &s, TRUE, 64, 0, "4K NV12");
  gpu_end ();
}

/* How many planes of @format the tensor cores and the sliding window take
 * (stencil.h: 8-bit samples in 1-, 2- and 4-byte pixels): the count
 * expected of cf_stencil_device_plan_describe (). */
static guint
fast_planes (CfFormat format)
{
  const CfFormatInfo *info = cf_format_info (format);
  guint n = 0;

  for (int p = 0; p < info->n_planes; p++)
    n += info->plane[p].sample_bytes == 1 && info->plane[p].pixel_bytes != 3;
  return n;
}

/* Taps of radius @r (at least 1), as given: a box of gain @gain. */
static void
box_gain (int r, double *t, double gain)
{
  for (int i = 0; i <= 2 * r; i++)
    t[i] = gain / (2 * r + 1);
}

/* Random taps for radius @r (at least 1) into @t, as given (not
 * normalized), of either sign (@with_negative: each within +-0.45, gain at
 * most 1.3) or positive (gain 1.3, so that results saturate; each tap
 * below 1.3 / 1.6, so below 1): the weights, h and the columns' sums fit
 * the tensor cores' signed or unsigned pieces. */
static void
gain_taps (int r, double *t, gboolean with_negative)
{
  double gain = 0;

  for (int i = 0; i <= 2 * r; i++) {
    t[i] = with_negative ? g_rand_double_range (gpu_rand, -0.45, 0.45) :
        g_rand_double_range (gpu_rand, 0.3, 1.0);
    gain += fabs (t[i]);
  }
  for (int i = 0; (!with_negative || gain > 1.3) && i <= 2 * r; i++)
    t[i] *= 1.3 / gain;
}

/* The runs of one case of the kernels that need aligned planes (the
 * tensor cores, the sliding window): @s on a random picture, aligned; a
 * constant one where @constant; where @compare, the CUDA-core kernel
 * (counted into @cuda) and an unaligned launch (the fallback). Returns how
 * many planes the runs of AUTO count into @counts when each run's @planes
 * take the aligned kernel. */
static guint
aligned_runs (CfFormat f, int width, int height, const CfStencilParams * s,
    gboolean constant, gboolean compare, const char *what, guint planes,
    guint counts[N_KERNELS], guint cuda[N_KERNELS])
{
  guint want = planes;

  gpu_check_kernels (f, width, height, s, CF_STENCIL_KERNELS_AUTO, TRUE,
      ALIGNED_PITCH, 0, what, counts);
  if (constant) {
    gpu_check_kernels (f, width, height, s, CF_STENCIL_KERNELS_AUTO, FALSE,
        ALIGNED_PITCH, 0, what, counts);
    want += planes;
  }
  if (compare) {
    gpu_check_kernels (f, width, height, s, CF_STENCIL_KERNELS_CUDA_CORES,
        TRUE, ALIGNED_PITCH, 0, what, cuda);
    gpu_check_kernels (f, width, height, s, CF_STENCIL_KERNELS_AUTO, TRUE, 3,
        7, what, counts);
    want += planes;
  }
  return want;
}

/* The tensor-core kernels (BOTH, 8-bit samples) against the CPU on
 * 16-byte aligned planes and pitches, where they run: every format,
 * border and size in @sizes, radius pairs from @pairs, blurs (unsigned
 * byte pieces; with normalized columns the columns' rounding rides in h,
 * kHFold, else not) and small signed taps (signed pieces), alpha copied or
 * filtered, random and constant pictures; then the CUDA-core kernel on
 * the same, which the plan must choose when asked, and an unaligned launch
 * (the fallback). Asserts that every aligned plane took @kernel. */
static void
tensor_core_cases (const int (*pairs)[2], guint n_pairs,
    const int (*sizes)[2], guint n_sizes, int kernel)
{
  double tx[CF_STENCIL_MAX_TAPS], ty[CF_STENCIL_MAX_TAPS];
  guint f, b, z, n = 0, want = 0;
  guint counts[N_KERNELS] = { 0 }, cuda[N_KERNELS] = { 0 };

  gpu_begin ();
  CF_FOR_EACH_FORMAT (f) {
    if (cf_format_info (f)->depth != 8)
      continue;
    for (b = 0; b < N_BORDERS; b++)
      for (z = 0; z < n_sizes; z++) {
        const int rx = pairs[n % n_pairs][0];
        const int ry = pairs[n % n_pairs][1];
        const guint kind = n % 7;
        const guint planes = fast_planes (f);
        gboolean nx = TRUE, ny = TRUE;
        CfStencilParams s;
        char *what;

        /* gaussian, box, random positive (blurs: no saturation), signed
         * taps of at most 0.45 (the high byte of weight and h signed),
         * positive taps of gain 1.3 (saturating), then blurs of gain 0.8
         * as given on one axis: the rows (the columns still sum to 1), or
         * the columns (their rounding not in h) */
        if (kind < 3) {
          make_taps ((TapsKind) kind, rx, tx, gpu_rand);
          make_taps ((TapsKind) ((kind + 1) % 3), ry, ty, gpu_rand);
        } else if (kind < 5) {
          gain_taps (rx, tx, kind == 3);
          gain_taps (ry, ty, kind == 3);
          nx = ny = FALSE;
        } else if (kind == 5) {
          box_gain (rx, tx, 0.8);
          make_taps (TAPS_RANDOM, ry, ty, gpu_rand);
          nx = FALSE;
        } else {
          make_taps (TAPS_GAUSSIAN, rx, tx, gpu_rand);
          box_gain (ry, ty, 0.8);
          ny = FALSE;
        }
        s = params_of (CF_STENCIL_BOTH, rx, tx, nx, ry, ty, ny, b);
        set_border_values (&s, f);
        s.filter_alpha = n % 2;
        n++;
        what = g_strdup_printf ("%s: %s %dx%d %s rx %d ry %d taps %s",
            kernel_names[kernel], cf_format_info (f)->name, sizes[z][0],
            sizes[z][1], border_names[b], rx, ry, kind < 3 ?
            kind_names[kind] : kind == 3 ? "signed" : kind == 4 ? "gain 1.3"
            : kind == 5 ? "rows of gain 0.8" : "columns of gain 0.8");
        want += aligned_runs (f, sizes[z][0], sizes[z][1], &s, z % 2 == 0,
            z == 3, what, planes, counts, cuda);
        g_free (what);
      }
  }
  g_test_message ("%u runs, %u planes on %s", n, counts[kernel],
      kernel_names[kernel]);
  g_assert_cmpuint (counts[kernel], ==, want);
  g_assert_cmpuint (counts[kernel], >, 0);
  for (int k = KERNEL_WINDOW; k < N_KERNELS; k++) {
    g_assert_cmpuint (cuda[k], ==, 0);
    if (k != kernel)
      g_assert_cmpuint (counts[k], ==, 0);
  }
  gpu_end ();
}

/* YUV frames whose luma plane is aligned and whose last chroma plane is
 * not: no launch for the whole frame then (its 16-byte loads would fault),
 * the luma on the tensor cores, that plane on the CUDA cores. */
static void
one_launch_misaligned (void)
{
  double tx[CF_STENCIL_MAX_TAPS], ty[CF_STENCIL_MAX_TAPS];
  guint f, n = 0;

  gpu_begin ();
  CF_FOR_EACH_FORMAT (f) {
    const CfFormatInfo *info = cf_format_info (f);

    if (info->depth != 8 || info->n_planes < 2)
      continue;
    make_taps (TAPS_GAUSSIAN, 3, tx, gpu_rand);
    make_taps (TAPS_BOX, 2, ty, gpu_rand);
    CfStencilParams s = params_of (CF_STENCIL_BOTH, 3, tx, TRUE, 2, ty,
        TRUE, CF_STENCIL_MIRROR);
    char *what = g_strdup_printf ("tensor cores, last plane misaligned: %s",
        info->name);
    gpu_check_kernels (f, 131, 67, &s, CF_STENCIL_KERNELS_AUTO, TRUE,
        ALIGNED_PITCH, -3, what, NULL);
    g_free (what);
    n++;
  }
  g_assert_cmpuint (n, >=, 6);
  gpu_end ();
}

/* The fused tensor-core kernel, tiles of both widths: the larger radius
 * 1 .. 8, 0 .. 8 on the other axis; sizes across its tiles' edges. */
static void
test_cuda_tensor_cores (void)
{
  static const int sizes[][2] = { {1, 1}, {7, 5}, {33, 70}, {131, 67},
  {257, 131}
  };
  static const int pairs[][2] = { {2, 2}, {3, 8}, {8, 2}, {8, 8}, {1, 2},
  {5, 3}
  };

  /* both tile widths of the fused kernel (AUTO takes the narrow one on
   * planes this small), every plane of a YUV frame in one launch; then
   * the planes one launch each (what a frame with an unaligned plane
   * takes) */
  g_setenv ("CF_STENCIL_MMA_TILE", "narrow", TRUE);
  tensor_core_cases (pairs, G_N_ELEMENTS (pairs), sizes,
      G_N_ELEMENTS (sizes), KERNEL_TENSOR_CORES);
  g_setenv ("CF_STENCIL_MMA_TILE", "wide", TRUE);
  tensor_core_cases (pairs, G_N_ELEMENTS (pairs), sizes,
      G_N_ELEMENTS (sizes), KERNEL_TENSOR_CORES);
  g_unsetenv ("CF_STENCIL_MMA_TILE");
  g_setenv ("CF_STENCIL_ONE_LAUNCH", "0", TRUE);
  tensor_core_cases (pairs, G_N_ELEMENTS (pairs), sizes,
      G_N_ELEMENTS (sizes), KERNEL_TENSOR_CORES);
  g_unsetenv ("CF_STENCIL_ONE_LAUNCH");
  one_launch_misaligned ();
}

/* The two passes: the larger radius 9 .. 64, with each count of k tiles
 * (9, 24: 2; 25, 40: 3; 57: 4; 64: 5) on either axis and 1 .. 12 on the
 * other; pictures smaller than the radius (borders reflected many times),
 * and across the rows kernel's tiles (256 samples, 32 rows) and the
 * columns kernel's (128 samples, 64 rows). */
static void
test_cuda_two_pass (void)
{
  static const int sizes[][2] = { {1, 1}, {7, 5}, {70, 33}, {131, 67},
  {300, 130}
  };
  static const int pairs[][2] = { {9, 9}, {64, 64}, {24, 25}, {3, 40},
  {57, 2}, {12, 64}, {1, 33}
  };

  tensor_core_cases (pairs, G_N_ELEMENTS (pairs), sizes,
      G_N_ELEMENTS (sizes), KERNEL_TWO_PASS);
}

/* Taps of radius @r that sharpen one axis within the sliding window's
 * int32 columns: 1.3 delta - 0.3 box (the centre tap above 1). */
static void
mild_sharpen (int r, double *t)
{
  for (int i = 0; i <= 2 * r; i++)
    t[i] = (i == r ? 1.3 : 0.0) - 0.3 / (2 * r + 1);
}

/* The sliding-window kernel (BOTH, 8-bit samples, radius 1) against
 * the CPU on 16-byte aligned planes and pitches: every format and border;
 * its sums as dp2a for blurs (an identity axis too), in int32 for a
 * sharpened axis and for rows of gain 3.3 (weights above 65535) with
 * columns of gain 0.3 (in range, no clamp); the other taps on the tensor
 * cores where they can split them, else in the window's saturating int32
 * (asserted for each kind);
 * widths inside one vector, across lanes, warps and blocks; heights below,
 * at and across the strips, whose height CF_STENCIL_WINDOW_ROWS also sets
 * to 1, 3 and 64; blurs (no saturation), a sharpened axis, signed taps and
 * gain 1.3 (saturating), a derivative; alpha copied or filtered; random
 * and constant pictures. Then the CUDA-core kernel on the same, and an
 * unaligned launch of a window plan (its fallback). The dp2a is taken
 * wherever its sums fit here (CF_STENCIL_WINDOW_DOT=1); then AUTO's own
 * choice for gaussian blurs: the dp2a on 640x480 and 4K RGBA (the latter
 * run against the CPU), the tensor cores on 4K NV12's planes. */
static void
test_cuda_window (void)
{
  static const int sizes[][2] = { {1, 1}, {3, 2}, {5, 70}, {129, 9},
  {300, 33}, {513, 17}
  };
  static const int pairs[][2] = { {1, 1}, {0, 1}, {1, 0} };
  static const char *const strips[] = { NULL, "1", "3", "64" };
  static const char *const names[] = { "gaussian x box", "random x "
        "gaussian", "sharpen x gaussian", "signed", "gain 1.3",
    "derivative x box", "gain 3.3 x gain 0.3"
  };
  double tx[CF_STENCIL_MAX_TAPS], ty[CF_STENCIL_MAX_TAPS];
  guint f, b, z, n = 0, want = 0;
  guint counts[N_KERNELS] = { 0 }, cuda[N_KERNELS] = { 0 };

  gpu_begin ();
  g_setenv ("CF_STENCIL_WINDOW_DOT", "1", TRUE);
  CF_FOR_EACH_FORMAT (f) {
    if (cf_format_info (f)->depth != 8)
      continue;
    for (b = 0; b < N_BORDERS; b++)
      for (z = 0; z < G_N_ELEMENTS (sizes); z++) {
        const int rx = pairs[n % G_N_ELEMENTS (pairs)][0];
        const int ry = pairs[n % G_N_ELEMENTS (pairs)][1];
        const guint kind = n % G_N_ELEMENTS (names);
        const char *strip = strips[(n / 3) % G_N_ELEMENTS (strips)];
        const guint planes = fast_planes (f);
        const guint before[3] = { counts[KERNEL_WINDOW],
          counts[KERNEL_WINDOW_DOT], counts[KERNEL_TENSOR_CORES]
        };
        gboolean nx = TRUE, ny = TRUE;
        guint runs;
        CfStencilParams s;
        char *what;

        switch (kind) {
          case 0:
          case 1:
            make_taps (kind ? TAPS_RANDOM : TAPS_GAUSSIAN, rx, tx, gpu_rand);
            make_taps (kind ? TAPS_GAUSSIAN : TAPS_BOX, ry, ty, gpu_rand);
            break;
          case 2:
            mild_sharpen (rx, tx);
            make_taps (TAPS_GAUSSIAN, ry, ty, gpu_rand);
            break;
          case 3:
          case 4:
            gain_taps (rx, tx, kind == 3);
            gain_taps (ry, ty, kind == 3);
            nx = ny = FALSE;
            break;
          case 5:
            nx = make_taps (TAPS_DERIVATIVE, rx, tx, gpu_rand);
            make_taps (TAPS_BOX, ry, ty, gpu_rand);
            break;
          default:
            /* 3.3 / 3 of 2^16 is above 65535; 255 x 3.3 x 0.3 < 255 */
            box_gain (rx, tx, 3.3);
            box_gain (ry, ty, 0.3);
            nx = ny = FALSE;
            break;
        }
        s = params_of (CF_STENCIL_BOTH, rx, tx, nx, ry, ty, ny, b);
        set_border_values (&s, f);
        s.filter_alpha = n % 2;
        n++;
        what = g_strdup_printf ("sliding window: %s %dx%d %s rx %d ry %d "
            "taps %s, strip %s", cf_format_info (f)->name, sizes[z][0],
            sizes[z][1], border_names[b], rx, ry, names[kind],
            strip ? strip : "default");
        if (strip)
          g_setenv ("CF_STENCIL_WINDOW_ROWS", strip, TRUE);
        runs = aligned_runs (f, sizes[z][0], sizes[z][1], &s, z % 2 == 0,
            z == 4, what, planes, counts, cuda) / MAX (planes, 1);
        want += runs * planes;
        g_unsetenv ("CF_STENCIL_WINDOW_ROWS");
        /* blurs (kinds 0 and 1: gaussian, box, random positive, an axis
         * of radius 0 the identity) in the window's dp2a, and so the
         * sharpening of radius 0 (the identity: kind 2 with rx 0); the
         * sharpened axis and the rows of gain 3.3 (each weight above
         * 65535) in its int32 sums; gain 1.3 and the derivative, which
         * leave 0 .. 255, not in the dp2a (but the derivative of radius
         * 0 is the identity, and the signed taps may all be positive) */
        const guint in_window = counts[KERNEL_WINDOW] - before[0];
        const guint in_dot = counts[KERNEL_WINDOW_DOT] - before[1];
        const guint in_tensor = counts[KERNEL_TENSOR_CORES] - before[2];
        g_assert_cmpuint (in_window + in_dot + in_tensor, ==, runs * planes);
        if (kind <= 1 || (kind == 2 && rx == 0))
          g_assert_cmpuint (in_dot, ==, runs * planes);
        else if (kind == 2 || kind == 6)
          g_assert_cmpuint (in_window, ==, runs * planes);
        else if (kind == 4 || (kind == 5 && rx > 0))
          g_assert_cmpuint (in_dot, ==, 0);
        g_free (what);
      }
  }
  g_test_message ("%u runs, %u planes in the sliding window (int32), %u in "
      "its dp2a, %u on the tensor cores", n, counts[KERNEL_WINDOW],
      counts[KERNEL_WINDOW_DOT], counts[KERNEL_TENSOR_CORES]);
  g_assert_cmpuint (counts[KERNEL_WINDOW] + counts[KERNEL_WINDOW_DOT] +
      counts[KERNEL_TENSOR_CORES], ==, want);
  g_assert_cmpuint (counts[KERNEL_WINDOW], >, 0);
  g_assert_cmpuint (counts[KERNEL_WINDOW_DOT], >, 0);
  g_assert_cmpuint (counts[KERNEL_TENSOR_CORES], >, 0);
  g_assert_cmpuint (cuda[KERNEL_TENSOR_CORES] + cuda[KERNEL_WINDOW] +
      cuda[KERNEL_WINDOW_DOT], ==, 0);

  /* CF_STENCIL_WINDOW_ROWS=0 turns it off: a sharpened axis, which the
   * tensor cores cannot take, goes to the CUDA-core kernel instead */
  {
    double t[3] = { 1, 2, 1 };
    mild_sharpen (1, tx);
    CfStencilParams s = params_of (CF_STENCIL_BOTH, 1, tx, TRUE, 1, t, TRUE,
        CF_STENCIL_CLAMP);
    guint on[N_KERNELS] = { 0 }, off[N_KERNELS] = { 0 };

    gpu_check_kernels (CF_FORMAT_RGBA, 67, 33, &s, CF_STENCIL_KERNELS_AUTO,
        TRUE, ALIGNED_PITCH, 0, "window on", on);
    g_assert_cmpuint (on[KERNEL_WINDOW], ==, 1);
    g_setenv ("CF_STENCIL_WINDOW_ROWS", "0", TRUE);
    gpu_check_kernels (CF_FORMAT_RGBA, 67, 33, &s, CF_STENCIL_KERNELS_AUTO,
        TRUE, ALIGNED_PITCH, 0, "window off", off);
    g_unsetenv ("CF_STENCIL_WINDOW_ROWS");
    g_assert_cmpuint (off[KERNEL_CUDA_CORES], ==, 1);
  }
  g_unsetenv ("CF_STENCIL_WINDOW_DOT");

  /* AUTO's choice for a gaussian of radius 1 (win_dot_wins ()) */
  {
    static const struct
    {
      CfFormat format;
      int width, height, kernel;
    } sizes_auto[] = {
      /* 4-byte pixels at any size, 1- and 2-byte ones never */
      {CF_FORMAT_RGBA, 640, 480, KERNEL_WINDOW_DOT},
      {CF_FORMAT_NV12, 3840, 2160, KERNEL_TENSOR_CORES},
      {CF_FORMAT_RGBA, 3840, 2160, KERNEL_WINDOW_DOT},
    };
    CfStencilParams s;

    make_taps (TAPS_GAUSSIAN, 1, tx, NULL);
    s = params_of (CF_STENCIL_BOTH, 1, tx, TRUE, 1, tx, TRUE,
        CF_STENCIL_CLAMP);
    for (guint k = 0; k < G_N_ELEMENTS (sizes_auto); k++) {
      const CfFormat af = sizes_auto[k].format;
      CfStencilDevicePlan *d_plan;
      CfStencilPlan plan;

      g_assert_cmpint (cf_stencil_plan_init (&plan, af,
              sizes_auto[k].width, sizes_auto[k].height, &s), ==, 0);
      CHECK_CUDA (cf_stencil_device_plan_new (&plan, CF_STENCIL_KERNELS_AUTO,
              &d_plan));
      for (int p = 0; p < cf_format_info (af)->n_planes; p++)
        g_assert_cmpstr (cf_stencil_device_plan_describe (d_plan, p), ==,
            kernel_names[sizes_auto[k].kernel]);
      cf_stencil_device_plan_free (d_plan);
    }
    guint got[N_KERNELS] = { 0 };
    gpu_check_kernels (CF_FORMAT_RGBA, 3840, 2160, &s,
        CF_STENCIL_KERNELS_AUTO, TRUE, ALIGNED_PITCH, 0,
        "dp2a window, 4K RGBA", got);
    g_assert_cmpuint (got[KERNEL_WINDOW_DOT], ==, 1);
  }
  gpu_end ();
}

static void
test_cuda_invalid (void)
{
  static const double box[3] = { 1, 1, 1 };
  const CfStencilParams s = params_of (CF_STENCIL_BOTH, 1, box, TRUE, 1, box,
      TRUE, CF_STENCIL_WRAP);
  CfStencilDevicePlan *d_plan = (CfStencilDevicePlan *) 1;
  CfStencilPlan plan, empty = { 0 };
  Device d_src, d_dst;
  Frame src, dst;
  guint i;
  int p;

  gpu_begin ();
  g_assert_cmpint (cf_stencil_device_plan_new (&empty,
          CF_STENCIL_KERNELS_AUTO, &d_plan), ==,
      cudaErrorInvalidValue);
  g_assert_null (d_plan);
  g_assert_cmpint (cf_stencil_device_plan_new (NULL,
          CF_STENCIL_KERNELS_AUTO, &d_plan), ==,
      cudaErrorInvalidValue);
  cf_stencil_device_plan_free (NULL);

  /* NV12 6x4: a chroma row is 6 bytes */
  frame_init (&src, CF_FORMAT_NV12, 6, 4, 0, 0);
  frame_init (&dst, CF_FORMAT_NV12, 6, 4, 0, 0);
  g_assert_cmpint (cf_stencil_plan_init (&plan, CF_FORMAT_NV12, 6, 4, &s),
      ==, 0);
  CHECK_CUDA (cf_stencil_device_plan_new (&plan, CF_STENCIL_KERNELS_AUTO,
          &d_plan));
  device_init (&src, &d_src, FALSE, gpu_stream);
  device_init (&dst, &d_dst, TRUE, gpu_stream);
  for (i = 0; i < 12; i++) {
    CfImage b = i < 6 ? d_src.img : d_dst.img;

    bad_image (&b, i % 6);
    g_assert_cmpint (cf_stencil_cuda (d_plan, i < 6 ? &b : &d_src.img,
            i < 6 ? &d_dst.img : &b, NULL, gpu_stream), ==,
        cudaErrorInvalidValue);
  }
  g_assert_cmpint (cf_stencil_cuda (NULL, &d_src.img, &d_dst.img, NULL,
          gpu_stream), ==, cudaErrorInvalidValue);
  g_assert_cmpint (cf_stencil_cuda (d_plan, NULL, &d_dst.img, NULL,
          gpu_stream), ==, cudaErrorInvalidValue);
  CHECK_CUDA (cudaGetLastError ());

  /* nothing was launched: the output is all poison */
  device_finish (&d_dst, &dst, gpu_stream);
  device_finish (&d_src, NULL, gpu_stream);
  for (p = 0; p < dst.n_planes; p++)
    for (i = 0; i < dst.img.pitch[p] * dst.h[p]; i++)
      g_assert_cmphex (((guint8 *) dst.img.data[p])[i], ==, POISON);
  cf_stencil_device_plan_free (d_plan);
  cf_stencil_plan_clear (&plan);
  frame_clear (&src);
  frame_clear (&dst);
  gpu_end ();
}
#endif /* HAVE_CUDA */

/* ---- CPU: threads ---- */

typedef struct
{
  const CfStencilPlan *plan;
  const Frame *src;
} StencilRun;

static int
stencil_run (int n_threads, Frame * out, gpointer data)
{
  const StencilRun *r = data;

  return cf_stencil_cpu_threads (r->plan, &r->src->img, &out->img,
      n_threads);
}

/* cf_stencil_cpu_threads () writes the same bytes for every thread count:
 * every direction and border, radius 1, 3 and 9 (bands of fewer rows than
 * the taps: BOTH's rings start on rows beyond the picture's edge),
 * subsampled planes, 1 to 8-byte pixels, random pictures with padded and
 * misaligned rows. */
static void
test_cpu_threads (void)
{
  static const CfFormat formats[] = { CF_FORMAT_GRAY8, CF_FORMAT_RGBA,
    CF_FORMAT_RGB, CF_FORMAT_NV12, CF_FORMAT_I420, CF_FORMAT_P010_10LE,
    CF_FORMAT_GRAY16_LE, CF_FORMAT_RGBA64_LE
  };
  static const int radii[] = { 1, 3, 9 };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  double tx[2 * R_MAX + 1], ty[2 * R_MAX + 1];
  guint f, s, d, b;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (cf_thread_sizes); s++)
      for (d = 0; d < N_DIRS; d++)
        for (b = 0; b < N_BORDERS; b++) {
          const int w = cf_thread_sizes[s][0], h = cf_thread_sizes[s][1];
          const int rx = radii[(s + b) % 3], ry = radii[(s + b + d) % 3];
          const TapsKind kind = (f + s + b) % TAPS_KIND_COUNT;
          const gboolean norm = make_taps (kind, rx, tx, rand);
          gchar *what = g_strdup_printf ("%s %dx%d %s %s %s radius %d, %d",
              cf_format_info (formats[f])->name, w, h, dir_names[d],
              border_names[b], kind_names[kind], rx, ry);
          CfStencilParams params;
          CfStencilPlan plan;
          StencilRun run = { &plan, NULL };
          Frame src, out;

          make_taps (kind, ry, ty, rand);
          params = params_of (d, rx, tx, norm, ry, ty, norm, b);
          set_border_values (&params, formats[f]);
          cf_thread_frame_init (&src, formats[f], w, h, s);
          frame_random (&src, rand);
          cf_thread_frame_init (&out, formats[f], w, h, s + 1);
          g_assert_cmpint (cf_stencil_plan_init (&plan, formats[f], w, h,
                  &params), ==, 0);
          run.src = &src;
          cf_check_thread_counts (&out, stencil_run, &run, rand, what);
          frame_clear (&src);
          frame_clear (&out);
          g_free (what);
        }
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  cf_test_require_backend ();
  g_test_init (&argc, &argv, NULL);
  cf_test_seed ();

  if (!cf_test_want_cuda ()) {
    g_test_add_func ("/stencil/cpu/border-index", test_cpu_border_index);
    g_test_add_func ("/stencil/cpu/weights", test_cpu_weights);
    g_test_add_func ("/stencil/cpu/float-limits", test_cpu_float_limits);
    g_test_add_func ("/stencil/cpu/plan-samples", test_cpu_plan_samples);
    g_test_add_func ("/stencil/cpu/impulse", test_cpu_impulse);
    g_test_add_func ("/stencil/cpu/constant", test_cpu_constant);
    g_test_add_func ("/stencil/cpu/ramp", test_cpu_ramp);
    g_test_add_func ("/stencil/cpu/borders", test_cpu_borders);
    g_test_add_func ("/stencil/cpu/shift", test_cpu_shift);
    g_test_add_func ("/stencil/cpu/alpha", test_cpu_alpha);
    g_test_add_func ("/stencil/cpu/values", test_cpu_values);
    g_test_add_func ("/stencil/cpu/10bit", test_cpu_10bit);
    g_test_add_func ("/stencil/cpu/model", test_cpu_model);
    g_test_add_func ("/stencil/cpu/invalid", test_cpu_invalid);
    g_test_add_func ("/stencil/cpu/threads", test_cpu_threads);
    g_test_add_func ("/stencil/cpu/simd", test_cpu_simd);
  }
#ifdef HAVE_CUDA
  if (cf_test_want_cuda ()) {
    g_test_add_func ("/stencil/cuda/matrix", test_cuda_matrix);
    g_test_add_func ("/stencil/cuda/large", test_cuda_large);
    g_test_add_func ("/stencil/cuda/tensor-cores", test_cuda_tensor_cores);
    g_test_add_func ("/stencil/cuda/two-pass", test_cuda_two_pass);
    g_test_add_func ("/stencil/cuda/window", test_cuda_window);
    g_test_add_func ("/stencil/cuda/invalid", test_cuda_invalid);
  }
#endif
  return g_test_run ();
}
