/* Kernel-level tests of the statistics kernels (kernels/stats.h).
 *
 * CF_TEST_BACKEND=cpu: known answers for cf_stats_cpu () and the mean,
 * variance and CfStatsSum helpers, every expected number worked out here
 * from the picture the test draws, with a pixel layout table of its own.
 * CF_TEST_BACKEND=cuda: cf_stats_cuda () against cf_stats_cpu (), bit-exact
 * on every field, for every format, many sizes, fills and pitches.
 */
#include "cf-test.h"
#include "stats.h"

#include <stddef.h>

/* The bytes of one pixel of each plane, a letter a byte: R G B A and Y U V
 * are the channels 0..3 and 0..2, x a padding byte, L and H the low and high
 * byte of a 16-bit sample. sub420: the planes after the first are halved
 * both ways, rounded up (a 3x3 I420 frame has 2x2 chroma). Written from
 * GStreamer's format definitions, independently of format.c. */
static const struct
{
  const char *plane[CF_MAX_PLANES];
  gboolean sub420;
} layouts[CF_FORMAT_COUNT] = {
  [CF_FORMAT_GRAY8] = {{"Y"}},
  [CF_FORMAT_GRAY16_LE] = {{"LH"}},
  [CF_FORMAT_RGBA] = {{"RGBA"}},
  [CF_FORMAT_BGRA] = {{"BGRA"}},
  [CF_FORMAT_RGBX] = {{"RGBx"}},
  [CF_FORMAT_BGRX] = {{"BGRx"}},
  [CF_FORMAT_ARGB] = {{"ARGB"}},
  [CF_FORMAT_ABGR] = {{"ABGR"}},
  [CF_FORMAT_XRGB] = {{"xRGB"}},
  [CF_FORMAT_XBGR] = {{"xBGR"}},
  [CF_FORMAT_RGB] = {{"RGB"}},
  [CF_FORMAT_BGR] = {{"BGR"}},
  [CF_FORMAT_I420] = {{"Y", "U", "V"}, TRUE},
  [CF_FORMAT_YV12] = {{"Y", "V", "U"}, TRUE},
  [CF_FORMAT_NV12] = {{"Y", "UV"}, TRUE},
  [CF_FORMAT_NV21] = {{"Y", "VU"}, TRUE},
  [CF_FORMAT_Y444] = {{"Y", "U", "V"}},
};

#define MARKER 0xEE             /* in bytes that must never be counted */
#define IS_DEEP(format) ((format) == CF_FORMAT_GRAY16_LE)

/* channel of a layout letter, -1 for padding */
static int
letter_channel (char l)
{
  static const char *const channels[] = { "RYLH", "GU", "BV", "A" };
  int c;

  for (c = 0; c < CF_MAX_CHANNELS; c++)
    if (strchr (channels[c], l))
      return c;
  return -1;
}

/* A host frame and the plane geometry the test expects of it. */
typedef struct
{
  CfImage img;
  int n_planes;
  int w[CF_MAX_PLANES], h[CF_MAX_PLANES];       /* plane size in pixels */
  size_t row[CF_MAX_PLANES];    /* bytes of samples in a plane row */
} Frame;

/* Describes and allocates a @width x @height frame of @format whose pitch is
 * the row bytes rounded up to @align, plus @extra bytes. */
static void
frame_init (Frame * f, CfFormat format, int width, int height, size_t align,
    size_t extra)
{
  int p;

  memset (f, 0, sizeof (*f));
  f->img.format = format;
  f->img.width = width;
  f->img.height = height;
  for (p = 0; p < CF_MAX_PLANES && layouts[format].plane[p]; p++) {
    const gboolean sub = p > 0 && layouts[format].sub420;

    f->w[p] = sub ? (width + 1) / 2 : width;
    f->h[p] = sub ? (height + 1) / 2 : height;
    f->row[p] = (size_t) f->w[p] * strlen (layouts[format].plane[p]);
    f->img.pitch[p] = (f->row[p] + align - 1) / align * align + extra;
    f->img.data[p] = g_malloc (f->img.pitch[p] * f->h[p]);
  }
  f->n_planes = p;
}

static void
frame_clear (Frame * f)
{
  int p;

  for (p = 0; p < f->n_planes; p++)
    g_free (f->img.data[p]);
}

typedef enum
{
  FILL_CONSTANT,                /* channel c is value[c] */
  FILL_GRADIENT,                /* 8 bits: x + 16 c, 16 bits: 257 x (wrapping) */
  FILL_RANDOM
} FillKind;

static void
random_bytes (guint8 * d, size_t n, GRand * rand)
{
  guint32 r = 0;
  size_t i;

  for (i = 0; i < n; i++) {
    if (i % 4 == 0)
      r = g_rand_int (rand);
    d[i] = (guint8) (r >> (8 * (i % 4)));
  }
}

/* Fills every sample of @f (x: the pixel's column in its plane). The bytes
 * that are no sample, the x of RGBx and the pitch padding after a row's
 * end, get @pad, or random garbage when @pad < 0. */
static void
frame_fill (Frame * f, FillKind kind, const guint * value, int pad,
    GRand * rand)
{
  int p, x, y, k;

  for (p = 0; p < f->n_planes; p++) {
    const char *px = layouts[f->img.format].plane[p];
    const int pb = strlen (px);
    const size_t pitch = f->img.pitch[p];
    guint8 *d = f->img.data[p];

    if (pad < 0)
      random_bytes (d, pitch * f->h[p], rand);
    else
      memset (d, pad, pitch * f->h[p]);
    if (kind == FILL_RANDOM && pad < 0)
      continue;                 /* the samples are random already */
    for (y = 0; y < f->h[p]; y++)
      for (x = 0; x < f->w[p]; x++)
        for (k = 0; k < pb; k++) {
          const int c = letter_channel (px[k]);
          guint v;

          if (c < 0)
            continue;
          if (kind == FILL_CONSTANT)
            v = value[c];
          else if (kind == FILL_GRADIENT)
            v = IS_DEEP (f->img.format) ? 257u * x : x + 16u * c;
          else
            v = g_rand_int (rand);
          d[y * pitch + (size_t) x * pb + k] =
              (guint8) (px[k] == 'H' ? v >> 8 : v);
        }
  }
}

/* The expected result of FILL_CONSTANT with @value, or of FILL_GRADIENT when
 * @value is NULL, by closed forms: the sum over x < n of x + o is
 * n(n-1)/2 + o n, of (x + o)^2 n(n-1)(2n-1)/6 + o n(n-1) + o^2 n. Gradients
 * need planes up to 208 (8 bits) or 256 (16 bits) wide: nothing wraps. */
static void
expect_frame (const Frame * f, const guint * value, CfStats * e)
{
  const gboolean deep = IS_DEEP (f->img.format);
  guint64 x;
  int p, k;

  memset (e, 0, sizeof (*e));
  for (p = 0; p < f->n_planes; p++) {
    const char *px = layouts[f->img.format].plane[p];
    const guint64 n = f->w[p], rows = f->h[p];

    for (k = 0; px[k]; k++) {
      const int c = letter_channel (px[k]);
      const guint64 o = deep ? 0 : 16 * c, m = deep ? 257 : 1;

      if (c < 0 || px[k] == 'H')
        continue;
      e->n_channels = MAX (e->n_channels, (guint) c + 1);
      e->count[c] = n * rows;
      if (value) {
        e->min[c] = e->max[c] = value[c];
        e->sum[c] = value[c] * n * rows;
        e->sum_sq[c] = (guint64) value[c] * value[c] * n * rows;
        e->histogram[c][deep ? value[c] >> 8 : value[c]] = n * rows;
        continue;
      }
      e->min[c] = o;
      e->max[c] = m * (o + n - 1);
      e->sum[c] = m * rows * (n * (n - 1) / 2 + o * n);
      e->sum_sq[c] = m * m * rows * (n * (n - 1) * (2 * n - 1) / 6
          + o * n * (n - 1) + o * o * n);
      for (x = 0; x < n; x++)
        e->histogram[c][o + x] = rows;
    }
  }
}

/* CfStats has no padding (reserved fills the gap after max[]), so memcmp
 * compares fields only. */
G_STATIC_ASSERT (offsetof (CfStats, count) == offsetof (CfStats, reserved)
    + sizeof (uint32_t));
G_STATIC_ASSERT (sizeof (CfStats) == offsetof (CfStats, histogram)
    + sizeof (((CfStats *) 0)->histogram));

#define CHECK_FIELD(field, c, b) G_STMT_START {                         \
    if (got->field != want->field) {                                    \
      g_printerr ("%s: first difference: channel %d, bin %d\n", what,   \
          (c), (b));                                                    \
      g_assert_cmpuint (got->field, ==, want->field);                   \
    }                                                                   \
  } G_STMT_END

/* Bit-exact comparison; a mismatch fails at the first differing field. */
static void
check_stats (const CfStats * got_stats, const CfStats * want_stats,
    const char *what)
{
  CfStats g = *got_stats, w = *want_stats;
  const CfStats *got = &g, *want = &w;
  int c, b;

  if (memcmp (got, want, sizeof (CfStats)) == 0)
    return;
  CHECK_FIELD (n_channels, -1, -1);
  for (c = 0; c < CF_MAX_CHANNELS; c++) {
    CHECK_FIELD (min[c], c, -1);
    CHECK_FIELD (max[c], c, -1);
    CHECK_FIELD (count[c], c, -1);
    CHECK_FIELD (sum[c], c, -1);
    CHECK_FIELD (sum_sq[c], c, -1);
    for (b = 0; b < CF_STATS_BINS; b++)
      CHECK_FIELD (histogram[c][b], c, b);
  }
  g_assert_not_reached ();
}

static char *
describe (const Frame * f, const char *fill)
{
  return g_strdup_printf ("%s %dx%d pitch %zu (row %zu) %s",
      cf_format_info (f->img.format)->name, f->img.width, f->img.height,
      f->img.pitch[0], f->row[0], fill);
}

/* ---- CPU known answers ---- */

static const guint levels[] = { 0, 128, 255 };

/* Draws a frame of constant @value, or the gradient when @value is NULL,
 * with MARKER in every byte that is no sample, and checks cf_stats_cpu (). */
static void
check_known (CfFormat format, int width, int height, size_t extra,
    const guint * value)
{
  CfStats got, want;
  char *what;
  Frame f;

  frame_init (&f, format, width, height, 1, extra);
  frame_fill (&f, value ? FILL_CONSTANT : FILL_GRADIENT, value, MARKER, NULL);
  expect_frame (&f, value, &want);
  what = describe (&f, value ? "constant" : "gradient");
  g_assert_cmpint (cf_stats_cpu (&f.img, &got), ==, 0);
  check_stats (&got, &want, what);
  g_free (what);
  frame_clear (&f);
}

static void
check_levels (CfFormat format, int width, int height, size_t extra)
{
  guint l;

  for (l = 0; l < G_N_ELEMENTS (levels); l++) {
    const guint v = levels[l] * (IS_DEEP (format) ? 257 : 1);

    check_known (format, width, height, extra, (const guint[]) { v, v, v, v });
  }
}

static void
test_cpu_constant (void)
{
  /* 320x240 of 255: an 8-bit sum_sq above 2^32 */
  static const int sizes[][2] = { {1, 1}, {3, 3}, {1, 9}, {9, 1}, {5, 7},
  {320, 240}
  };
  CfStats got;
  guint8 y[9], uv[8];
  CfImage img = { CF_FORMAT_I420, 3, 3, {y, uv, uv + 4}, {3, 2, 2} };
  guint f, s;

  for (f = 0; f < CF_FORMAT_COUNT; f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      check_levels (f, sizes[s][0], sizes[s][1], 0);

  /* written out: a 3x3 I420 frame of 128 has 2x2 chroma */
  memset (y, 128, sizeof (y));
  memset (uv, 128, sizeof (uv));
  g_assert_cmpint (cf_stats_cpu (&img, &got), ==, 0);
  g_assert_cmpuint (got.n_channels, ==, 3);
  g_assert_cmpuint (got.count[0], ==, 9);
  g_assert_cmpuint (got.count[1], ==, 4);
  g_assert_cmpuint (got.count[2], ==, 4);
  g_assert_cmpuint (got.sum[1], ==, 512);
  g_assert_cmpuint (got.sum_sq[2], ==, 65536);
  g_assert_cmpuint (got.histogram[1][128], ==, 4);
}

static void
test_cpu_channel_order (void)
{
  /* one pixel, bytes 1 2 3 4 in memory: the value of each channel */
  static const struct
  {
    CfFormat format;
    const char *want;
  } px[] = {
    {CF_FORMAT_RGBA, "\1\2\3\4"}, {CF_FORMAT_BGRA, "\3\2\1\4"},
    {CF_FORMAT_ARGB, "\2\3\4\1"}, {CF_FORMAT_ABGR, "\4\3\2\1"},
    {CF_FORMAT_RGBX, "\1\2\3"}, {CF_FORMAT_BGRX, "\3\2\1"},
    {CF_FORMAT_XRGB, "\2\3\4"}, {CF_FORMAT_XBGR, "\4\3\2"},
    {CF_FORMAT_RGB, "\1\2\3"}, {CF_FORMAT_BGR, "\3\2\1"},
  };
  guint8 bytes[4] = { 1, 2, 3, 4 };
  CfImage img = { CF_FORMAT_RGBA, 1, 1, {bytes}, {4} };
  CfStats got;
  guint i, c;

  for (i = 0; i < G_N_ELEMENTS (px); i++) {
    img.format = px[i].format;
    g_assert_cmpint (cf_stats_cpu (&img, &got), ==, 0);
    g_assert_cmpuint (got.n_channels, ==, strlen (px[i].want));
    for (c = 0; c < got.n_channels; c++) {
      g_assert_cmpuint (got.min[c], ==, px[i].want[c]);
      g_assert_cmpuint (got.max[c], ==, px[i].want[c]);
    }
  }
  /* every format, each channel constant at its own value */
  for (i = 0; i < CF_FORMAT_COUNT; i++)
    check_known (i, 5, 3, 3, (const guint[]) { 11, 22, 33, 44 });
}

/* pitch padding after each row (and the x bytes) hold MARKER */
static void
test_cpu_padding (void)
{
  static const CfFormat formats[] = { CF_FORMAT_RGBX, CF_FORMAT_BGRX,
    CF_FORMAT_XRGB, CF_FORMAT_XBGR, CF_FORMAT_RGBA, CF_FORMAT_RGB,
    CF_FORMAT_GRAY8, CF_FORMAT_GRAY16_LE, CF_FORMAT_I420, CF_FORMAT_NV12,
    CF_FORMAT_Y444
  };
  static const int sizes[][2] = { {1, 1}, {7, 5}, {2, 3} };
  static const size_t extras[] = { 1, 13, 64 };
  guint i, s, e;

  for (i = 0; i < G_N_ELEMENTS (formats); i++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (e = 0; e < G_N_ELEMENTS (extras); e++)
        check_levels (formats[i], sizes[s][0], sizes[s][1], extras[e]);
}

static void
test_cpu_gradient (void)
{
  static const CfFormat formats[] = { CF_FORMAT_GRAY8, CF_FORMAT_GRAY16_LE,
    CF_FORMAT_RGBA, CF_FORMAT_BGR, CF_FORMAT_XRGB, CF_FORMAT_I420,
    CF_FORMAT_NV21, CF_FORMAT_Y444
  };
  static const int sizes[][2] = { {1, 1}, {1, 9}, {9, 1}, {7, 5}, {200, 3},
  {199, 7}
  };
  guint8 d[8] = { 0, 1, 2, 3, 0, 1, 2, 3 };
  CfImage img = { CF_FORMAT_GRAY8, 4, 2, {d}, {4} };
  CfStats got;
  guint i, s;

  for (i = 0; i < G_N_ELEMENTS (formats); i++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      check_known (formats[i], sizes[s][0], sizes[s][1], 0, NULL);
      check_known (formats[i], sizes[s][0], sizes[s][1], 5, NULL);
    }
  /* written out: GRAY8 4x2, rows 0 1 2 3 */
  g_assert_cmpint (cf_stats_cpu (&img, &got), ==, 0);
  g_assert_cmpuint (got.count[0], ==, 8);
  g_assert_cmpuint (got.sum[0], ==, 12);
  g_assert_cmpuint (got.sum_sq[0], ==, 28);
  g_assert_cmpuint (got.max[0], ==, 3);
  g_assert_cmpuint (got.histogram[0][3], ==, 2);
}

/* GRAY16_LE 2048x1100 of 65535, 65534, 65535, ... */
static void
gray16_pairs (Frame * f)
{
  guint8 *d;
  int x, y;

  frame_init (f, CF_FORMAT_GRAY16_LE, 2048, 1100, 1, 0);
  for (y = 0; y < 1100; y++)
    for (x = 0; x < 2048; x++) {
      d = (guint8 *) f->img.data[0] + y * f->img.pitch[0] + 2 * x;
      d[0] = 0xff - x % 2;
      d[1] = 0xff;
    }
}

static void
test_cpu_gray16 (void)
{
  static const guint16 v[8] = { 65535, 65535, 65280, 65279, 0, 255, 256,
    0x1234
  };
  guint8 d[2 * 14];
  CfImage img = { CF_FORMAT_GRAY16_LE, 4, 2, {d}, {14} };
  CfStats got, want = { 0 };
  Frame f;
  int i;

  /* 4x2, pitch 14: rows of four little-endian samples and 6 marker bytes */
  memset (d, MARKER, sizeof (d));
  for (i = 0; i < 8; i++) {
    d[(i / 4) * 14 + (i % 4) * 2] = v[i] & 0xff;
    d[(i / 4) * 14 + (i % 4) * 2 + 1] = v[i] >> 8;
  }
  want.n_channels = 1;
  want.max[0] = 65535;
  want.count[0] = 8;
  want.sum[0] = 266800;
  want.sum_sq[0] = G_GUINT64_CONSTANT (17134344852);
  want.histogram[0][255] = 3;   /* 65535, 65535, 65280 */
  want.histogram[0][254] = 1;   /* 65279 */
  want.histogram[0][0] = 2;     /* 0, 255 */
  want.histogram[0][1] = 1;     /* 256 */
  want.histogram[0][0x12] = 1;  /* 0x1234 */
  g_assert_cmpint (cf_stats_cpu (&img, &got), ==, 0);
  check_stats (&got, &want, "GRAY16_LE 4x2 known values");

  /* 2048x1100 of 65535, 65534, ...: sum_sq 9675259411558400 > 2^53 */
  gray16_pairs (&f);
  memset (&want, 0, sizeof (want));
  want.n_channels = 1;
  want.min[0] = 65534;
  want.max[0] = 65535;
  want.count[0] = 2252800;
  want.sum[0] = 1126400ull * 65535 + 1126400ull * 65534;
  want.sum_sq[0] = G_GUINT64_CONSTANT (9675259411558400);
  want.histogram[0][255] = 2252800;
  g_assert_cmpint (cf_stats_cpu (&f.img, &got), ==, 0);
  check_stats (&got, &want, "GRAY16_LE 2048x1100 65535/65534");
  frame_clear (&f);
}

static void
test_cpu_invalid (void)
{
  CfImage bad[7];
  CfStats got;
  Frame f;
  guint i;

  frame_init (&f, CF_FORMAT_I420, 4, 4, 1, 0);
  frame_fill (&f, FILL_CONSTANT, (const guint[]) { 1, 2, 3, 0 }, 0, NULL);
  g_assert_cmpint (cf_stats_cpu (&f.img, &got), ==, 0);
  for (i = 0; i < G_N_ELEMENTS (bad); i++)
    bad[i] = f.img;
  bad[0].width = 0;
  bad[1].height = 0;
  bad[2].width = CF_MAX_SIDE + 1;
  bad[3].data[2] = NULL;
  bad[4].pitch[0] = 3;          /* a row is 4 bytes */
  bad[5].pitch[1] = 1;          /* a chroma row is 2 */
  bad[6].format = CF_FORMAT_COUNT;
  for (i = 0; i < G_N_ELEMENTS (bad); i++)
    g_assert_cmpint (cf_stats_cpu (&bad[i], &got), ==, -1);
  g_assert_cmpint (cf_stats_cpu (NULL, &got), ==, -1);
  frame_clear (&f);
}

static void
add_frame (CfStatsSum * sum, const CfImage * img, int times, CfStats * s)
{
  g_assert_cmpint (cf_stats_cpu (img, s), ==, 0);
  while (times--)
    cf_stats_sum_add (sum, s);
}

/* Checks channel @c of @sum against numbers worked out by hand. */
static void
check_sum (const CfStatsSum * sum, int c, guint32 min, guint32 max,
    guint64 count, guint64 total, double mean, double variance)
{
  g_assert_cmpuint (sum->min[c], ==, min);
  g_assert_cmpuint (sum->max[c], ==, max);
  g_assert_cmpuint (sum->count[c], ==, count);
  g_assert_cmpuint (sum->sum[c], ==, total);
  g_assert_cmpfloat (cf_stats_sum_mean (sum, c), ==, mean);
  g_assert_cmpfloat (cf_stats_sum_variance (sum, c), ==, variance);
}

static void
test_cpu_sum (void)
{
  guint8 half[8] = { 0, 0, 255, 255, 0, 0, 255, 255 }, ten[36], twenty[36];
  CfImage gray = { CF_FORMAT_GRAY8, 4, 2, {half}, {4} };
  CfImage a = { CF_FORMAT_RGBA, 3, 3, {ten}, {12} };
  CfImage b = { CF_FORMAT_RGBA, 3, 3, {twenty}, {12} };
  unsigned __int128 want_sq;
  CfStatsSum sum;
  CfStats s;
  Frame f;
  int c;

  /* GRAY8 4x2 half 0, half 255, twice: mean 127.5, variance 127.5^2 */
  cf_stats_sum_reset (&sum, 1);
  add_frame (&sum, &gray, 2, &s);
  g_assert_cmpfloat (cf_stats_mean (&s, 0), ==, 127.5);
  g_assert_cmpfloat (cf_stats_variance (&s, 0), ==, 16256.25);
  g_assert_cmpuint (sum.frames, ==, 2);
  g_assert_cmpuint (sum.histogram[0][0], ==, 8);
  g_assert_cmpuint (sum.histogram[0][255], ==, 8);
  check_sum (&sum, 0, 0, 255, 16, 2040, 127.5, 16256.25);

  /* RGBA 3x3 of 10, then of 20: mean 15, variance 25 */
  memset (ten, 10, sizeof (ten));
  memset (twenty, 20, sizeof (twenty));
  cf_stats_sum_reset (&sum, 0);
  add_frame (&sum, &a, 1, &s);
  add_frame (&sum, &b, 1, &s);
  g_assert_cmpuint (sum.n_channels, ==, 4);     /* from the first frame */
  for (c = 0; c < 4; c++)
    check_sum (&sum, c, 10, 20, 18, 270, 15.0, 25.0);
  /* a constant: variance exactly 0; nothing counted: 0 */
  cf_stats_sum_reset (&sum, 4);
  add_frame (&sum, &b, 3, &s);
  for (c = 0; c < 4; c++) {
    check_sum (&sum, c, 20, 20, 27, 540, 20.0, 0.0);
    g_assert_cmpfloat (cf_stats_variance (&s, c), ==, 0.0);
  }
  cf_stats_sum_reset (&sum, 3);
  g_assert_cmpuint (sum.frames, ==, 0);
  g_assert_cmpfloat (cf_stats_sum_mean (&sum, 0), ==, 0.0);
  g_assert_cmpfloat (cf_stats_sum_variance (&sum, 0), ==, 0.0);

  /* 8192 x gray16_pairs (): n = 2^26 275, mean 65534.5, variance 0.25, exact
   * in doubles; sum_sq and n sum_sq - sum^2 = n^2 / 4 are above 2^64 */
  gray16_pairs (&f);
  cf_stats_sum_reset (&sum, 1);
  add_frame (&sum, &f.img, 8192, &s);
  g_assert_cmpfloat (cf_stats_mean (&s, 0), ==, 65534.5);
  g_assert_cmpfloat (cf_stats_variance (&s, 0), ==, 0.25);
  want_sq = G_GUINT64_CONSTANT (9675259411558400);
  want_sq *= 8192;
  check_sum (&sum, 0, 65534, 65535, 8192ull * 2252800,
      8192ull * 1126400 * (65535 + 65534), 65534.5, 0.25);
  g_assert_cmpuint ((guint64) (sum.sum_sq[0] >> 64), ==,
      (guint64) (want_sq >> 64));
  g_assert_cmpuint ((guint64) sum.sum_sq[0], ==, (guint64) want_sq);
  frame_clear (&f);
}

/* ---- CUDA against the CPU reference ---- */
#ifdef HAVE_CUDA

static const int gpu_sizes[][2] = { {1, 1}, {1, 7}, {7, 1}, {3, 3}, {17, 5},
{641, 481}, {4095, 3}, {1920, 1080}
};

/* The fills of a GPU frame: random, constant 0, 128, 255 (x257 for 16-bit
 * samples), gradient. Bytes that are no sample always hold random garbage. */
#define N_GPU_FILLS 5
static const char *const gpu_fill_names[N_GPU_FILLS] = { "random",
  "constant 0", "constant 128", "constant 255", "gradient"
};

/* What a GPU test holds: random numbers, a stream with its workspace, and a
 * result in device memory. */
typedef struct
{
  GRand *rand;
  cudaStream_t stream;
  void *ws;
  CfStats *d_result;
} Gpu;

static void
gpu_begin (Gpu * g)
{
  g->rand = g_rand_new_with_seed (cf_test_seed ());
  g->ws = g->d_result = NULL;
  CHECK_CUDA (cudaStreamCreateWithFlags (&g->stream, cudaStreamNonBlocking));
  CHECK_CUDA (cudaMalloc (&g->ws, cf_stats_workspace_bytes ()));
  CHECK_CUDA (cf_stats_workspace_init (g->ws, g->stream));
  CHECK_CUDA (cudaMalloc ((void **) &g->d_result, sizeof (CfStats)));
}

static void
gpu_end (Gpu * g)
{
  CHECK_CUDA (cudaFree (g->d_result));
  CHECK_CUDA (cudaFree (g->ws));
  CHECK_CUDA (cudaStreamDestroy (g->stream));
  g_rand_free (g->rand);
}

/* Device copy of a host frame, same pitch, planes from cudaMalloc. */
static void
device_upload (const Frame * f, CfImage * d)
{
  int p;

  *d = f->img;
  for (p = 0; p < f->n_planes; p++) {
    const size_t size = f->img.pitch[p] * f->h[p];

    d->data[p] = NULL;
    CHECK_CUDA (cudaMalloc (&d->data[p], size));
    CHECK_CUDA (cudaMemcpy (d->data[p], f->img.data[p], size,
            cudaMemcpyHostToDevice));
  }
  /* a copy from pageable memory may still be in flight, and the test's
   * streams do not wait for the legacy default stream */
  CHECK_CUDA (cudaDeviceSynchronize ());
}

static void
device_free (CfImage * d)
{
  int p;

  for (p = 0; p < CF_MAX_PLANES; p++)
    if (d->data[p])
      CHECK_CUDA (cudaFree (d->data[p]));
}

/* Poisons the result and launches cf_stats_cuda () on @d. */
static void
gpu_launch (Gpu * g, const CfImage * d)
{
  CHECK_CUDA (cudaMemsetAsync (g->d_result, 0xA5, sizeof (CfStats), g->stream));
  CHECK_CUDA (cf_stats_cuda (d, g->ws, g->d_result, g->stream));
}

/* Waits for the launch and compares its result with @want. */
static void
gpu_compare (Gpu * g, const CfStats * want, const char *what)
{
  CfStats got;

  CHECK_CUDA (cudaMemcpyAsync (&got, g->d_result, sizeof (got),
          cudaMemcpyDeviceToHost, g->stream));
  CHECK_CUDA (cudaStreamSynchronize (g->stream));
  check_stats (&got, want, what);
}

/* Fills @f with fill @i and checks cf_stats_cuda () against cf_stats_cpu ()
 * of the same buffer and pitch. */
static void
gpu_check (Gpu * g, Frame * f, int i)
{
  const guint v = (i == 1 ? 0 : i == 2 ? 128 : 255) *
      (IS_DEEP (f->img.format) ? 257 : 1);
  CfStats want;
  char *what;
  CfImage d;

  frame_fill (f, i == 0 ? FILL_RANDOM : i == 4 ? FILL_GRADIENT : FILL_CONSTANT,
      (const guint[]) { v, v, v, v }, -1, g->rand);
  g_assert_cmpint (cf_stats_cpu (&f->img, &want), ==, 0);
  device_upload (f, &d);
  gpu_launch (g, &d);
  what = describe (f, gpu_fill_names[i]);
  gpu_compare (g, &want, what);
  g_free (what);
  device_free (&d);
}

/* Every format, size and fill, pitches rounded up to 16 (dense where the
 * rows are) and 64 bytes more; then 4K RGBA and NV12. One workspace. */
static void
test_cuda_formats (void)
{
  static const CfFormat big[] = { CF_FORMAT_RGBA, CF_FORMAT_NV12 };
  guint fmt, s, e, i;
  Frame f;
  Gpu g;

  gpu_begin (&g);
  for (fmt = 0; fmt < CF_FORMAT_COUNT; fmt++)
    for (s = 0; s < G_N_ELEMENTS (gpu_sizes); s++)
      for (e = 0; e < 2; e++) {
        frame_init (&f, fmt, gpu_sizes[s][0], gpu_sizes[s][1], 16, e * 64);
        for (i = 0; i < N_GPU_FILLS; i++)
          gpu_check (&g, &f, i);
        frame_clear (&f);
      }
  for (i = 0; i < G_N_ELEMENTS (big); i++) {
    frame_init (&f, big[i], 3840, 2160, 16, 64 * i);
    gpu_check (&g, &f, 0);
    frame_clear (&f);
  }
  gpu_end (&g);
}

/* One workspace for frames of changing formats and sizes, never cleared by
 * the test: each launch must leave it clear for the next. */
static void
test_cuda_reuse (void)
{
  const guint n_sizes = G_N_ELEMENTS (gpu_sizes);
  Frame f;
  Gpu g;
  guint i;

  gpu_begin (&g);
  for (i = 0; i < CF_FORMAT_COUNT * n_sizes; i++) {
    frame_init (&f, i % CF_FORMAT_COUNT, gpu_sizes[i % n_sizes][0],
        gpu_sizes[i % n_sizes][1], 16, (i / 2) % 2 * 64);
    gpu_check (&g, &f, i % N_GPU_FILLS);
    frame_clear (&f);
  }
  gpu_end (&g);
}

/* Two streams with a workspace each, both launched before either is waited
 * for; stream s analyses frames 2s and 2s+1 by turns. */
static void
test_cuda_streams (void)
{
  static const int frames[4][3] = {
    {CF_FORMAT_RGBA, 1920, 1080}, {CF_FORMAT_GRAY16_LE, 641, 481},
    {CF_FORMAT_NV12, 1920, 1080}, {CF_FORMAT_BGR, 4095, 3},
  };
  CfStats want[4];
  CfImage d[4];
  Frame f[4];
  Gpu g[2];
  int i, r, s;

  for (s = 0; s < 2; s++)
    gpu_begin (&g[s]);
  for (i = 0; i < 4; i++) {
    frame_init (&f[i], frames[i][0], frames[i][1], frames[i][2], 16, 64);
    frame_fill (&f[i], FILL_RANDOM, NULL, -1, g[0].rand);
    g_assert_cmpint (cf_stats_cpu (&f[i].img, &want[i]), ==, 0);
    device_upload (&f[i], &d[i]);
  }
  for (r = 0; r < 8; r++) {
    for (s = 0; s < 2; s++)
      gpu_launch (&g[s], &d[2 * s + r % 2]);
    for (s = 0; s < 2; s++) {
      char *what = describe (&f[2 * s + r % 2], s ? "stream 1" : "stream 0");

      gpu_compare (&g[s], &want[2 * s + r % 2], what);
      g_free (what);
    }
  }
  for (i = 0; i < 4; i++) {
    device_free (&d[i]);
    frame_clear (&f[i]);
  }
  for (s = 0; s < 2; s++)
    gpu_end (&g[s]);
}

static void
test_cuda_invalid (void)
{
  CfImage d, d420, bad[8];
  Frame f, i420;
  guint i;
  Gpu g;

  gpu_begin (&g);
  /* RGBA 5x4: rows of 20 bytes, pitch 32; I420 8x2: chroma pitch 16 */
  frame_init (&f, CF_FORMAT_RGBA, 5, 4, 16, 0);
  frame_init (&i420, CF_FORMAT_I420, 8, 2, 16, 0);
  frame_fill (&f, FILL_RANDOM, NULL, -1, g.rand);
  frame_fill (&i420, FILL_RANDOM, NULL, -1, g.rand);
  device_upload (&f, &d);
  device_upload (&i420, &d420);
  for (i = 0; i < 8; i++)
    bad[i] = i < 6 ? d : d420;
  bad[0].data[0] = (guint8 *) d.data[0] + 4;
  bad[1].data[0] = (guint8 *) d.data[0] + 8;
  bad[2].pitch[0] = 24;         /* >= 20, not a multiple of 16 */
  bad[3].width = 0;
  bad[6].data[2] = (guint8 *) d420.data[2] + 1;
  bad[7].pitch[1] = 8;
  for (i = 0; i < 8; i++)       /* bad[4]: no workspace, bad[5]: no result */
    g_assert_cmpint (cf_stats_cuda (&bad[i], i == 4 ? NULL : g.ws,
            i == 5 ? NULL : g.d_result, g.stream), ==, cudaErrorInvalidValue);
  CHECK_CUDA (cudaGetLastError ());
  device_free (&d420);
  device_free (&d);

  /* nothing was launched or left behind: good frames still pass */
  gpu_check (&g, &f, 0);
  gpu_check (&g, &i420, 0);
  frame_clear (&f);
  frame_clear (&i420);
  gpu_end (&g);
}

/* The result written straight into page-locked host memory (what cudastats
 * does): the same numbers as into device memory, for random, constant and
 * odd-sized frames, with nothing but the stream's end to wait for. */
static void
test_cuda_host_result (void)
{
  static const int frames[][3] = {
    {CF_FORMAT_RGBA, 1920, 1080}, {CF_FORMAT_NV12, 1, 1},
    {CF_FORMAT_GRAY16_LE, 641, 481}, {CF_FORMAT_BGR, 333, 3},
  };
  CfStats *h_result, want;
  CfImage d;
  Frame f;
  Gpu g;

  gpu_begin (&g);
  CHECK_CUDA (cudaHostAlloc ((void **) &h_result, sizeof (CfStats),
          cudaHostAllocPortable | cudaHostAllocMapped));
  for (guint i = 0; i < 2 * G_N_ELEMENTS (frames); i++) {
    const guint k = i % G_N_ELEMENTS (frames);
    const guint v = i % 2 ? 0 : 77;
    char *what;

    frame_init (&f, frames[k][0], frames[k][1], frames[k][2], 16, 64 * (i % 2));
    frame_fill (&f, i < G_N_ELEMENTS (frames) ? FILL_RANDOM : FILL_CONSTANT,
        (const guint[]) { v, v, v, v }, -1, g.rand);
    g_assert_cmpint (cf_stats_cpu (&f.img, &want), ==, 0);
    device_upload (&f, &d);
    memset (h_result, 0xA5, sizeof (CfStats));
    CHECK_CUDA (cf_stats_cuda (&d, g.ws, h_result, g.stream));
    CHECK_CUDA (cudaStreamSynchronize (g.stream));
    what = describe (&f, "into host memory");
    check_stats (h_result, &want, what);
    g_free (what);
    device_free (&d);
    frame_clear (&f);
  }
  CHECK_CUDA (cudaFreeHost (h_result));
  gpu_end (&g);
}

/* cf_stats_copy_cuda () both ways between host and device and within the
 * device, each copy checked byte for byte against what was written, the
 * destination poisoned first; misaligned and missing pointers refused. */
static void
test_cuda_copy (void)
{
  CfStats *h_src, *h_dst, *d_a, *d_b;
  Gpu g;

  gpu_begin (&g);
  CHECK_CUDA (cudaHostAlloc ((void **) &h_src, sizeof (CfStats),
          cudaHostAllocPortable | cudaHostAllocMapped));
  CHECK_CUDA (cudaHostAlloc ((void **) &h_dst, sizeof (CfStats),
          cudaHostAllocPortable | cudaHostAllocMapped));
  CHECK_CUDA (cudaMalloc ((void **) &d_a, sizeof (CfStats)));
  CHECK_CUDA (cudaMalloc ((void **) &d_b, sizeof (CfStats)));
  for (int r = 0; r < 3; r++) {
    guint8 *p = (guint8 *) h_src;

    for (size_t i = 0; i < sizeof (CfStats); i++)
      p[i] = (guint8) g_rand_int (g.rand);
    memset (h_dst, 0x5A, sizeof (CfStats));
    CHECK_CUDA (cudaMemsetAsync (d_a, 0xA5, sizeof (CfStats), g.stream));
    CHECK_CUDA (cudaMemsetAsync (d_b, 0xA5, sizeof (CfStats), g.stream));
    CHECK_CUDA (cf_stats_copy_cuda (d_a, h_src, g.stream));
    CHECK_CUDA (cf_stats_copy_cuda (d_b, d_a, g.stream));
    CHECK_CUDA (cf_stats_copy_cuda (h_dst, d_b, g.stream));
    CHECK_CUDA (cudaStreamSynchronize (g.stream));
    g_assert_cmpint (memcmp (h_dst, h_src, sizeof (CfStats)), ==, 0);
  }
  g_assert_cmpint (cf_stats_copy_cuda (NULL, d_a, g.stream), ==,
      cudaErrorInvalidValue);
  g_assert_cmpint (cf_stats_copy_cuda (d_a, NULL, g.stream), ==,
      cudaErrorInvalidValue);
  g_assert_cmpint (cf_stats_copy_cuda ((CfStats *) ((guint8 *) d_a + 2), d_b,
          g.stream), ==, cudaErrorInvalidValue);
  CHECK_CUDA (cudaGetLastError ());
  CHECK_CUDA (cudaFree (d_a));
  CHECK_CUDA (cudaFree (d_b));
  CHECK_CUDA (cudaFreeHost (h_src));
  CHECK_CUDA (cudaFreeHost (h_dst));
  gpu_end (&g);
}
#endif /* HAVE_CUDA */

int
main (int argc, char **argv)
{
  cf_test_require_backend ();
  g_test_init (&argc, &argv, NULL);
  cf_test_seed ();

  if (!cf_test_want_cuda ()) {
    g_test_add_func ("/stats/cpu/constant", test_cpu_constant);
    g_test_add_func ("/stats/cpu/channel-order", test_cpu_channel_order);
    g_test_add_func ("/stats/cpu/padding", test_cpu_padding);
    g_test_add_func ("/stats/cpu/gray16", test_cpu_gray16);
    g_test_add_func ("/stats/cpu/gradient", test_cpu_gradient);
    g_test_add_func ("/stats/cpu/invalid", test_cpu_invalid);
    g_test_add_func ("/stats/cpu/sum", test_cpu_sum);
  }
#ifdef HAVE_CUDA
  if (cf_test_want_cuda ()) {
    g_test_add_func ("/stats/cuda/formats", test_cuda_formats);
    g_test_add_func ("/stats/cuda/reuse", test_cuda_reuse);
    g_test_add_func ("/stats/cuda/streams", test_cuda_streams);
    g_test_add_func ("/stats/cuda/invalid", test_cuda_invalid);
    g_test_add_func ("/stats/cuda/host-result", test_cuda_host_result);
    g_test_add_func ("/stats/cuda/copy", test_cuda_copy);
  }
#endif
  return g_test_run ();
}
