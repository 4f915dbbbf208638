/* Kernel-level tests of the statistics kernels (kernels/stats.h).
 *
 * CF_TEST_BACKEND=cpu: known answers for cf_stats_cpu () and the mean,
 * variance and CfStatsSum helpers, every expected number worked out here
 * from the picture the test draws, with a pixel layout table of its own.
 * cf_stats_cpu_threads () gives the same numbers for every thread count.
 * CF_TEST_BACKEND=cuda: cf_stats_cuda () against cf_stats_cpu (), bit-exact
 * on every field, for every format, many sizes, fills and pitches.
 */
#include "cf-test.h"
#include "stats.h"

#include <stddef.h>

/* The samples of one pixel of each plane, a letter a sample: R G B A and Y U
 * V are the channels 0..3 and 0..2, x a padding sample. The planes after the
 * first are halved across (sub_x) and down (sub_y), rounded up (a 3x3 I420
 * frame has 2x2 chroma). A sample is a byte when @bits is 8, otherwise a
 * little-endian 16-bit word whose bits lsb .. lsb + bits - 1 hold the value
 * (P010's 10 bits at the top, I420_10LE's at the bottom). Written from
 * GStreamer's format definitions, independently of format.c. */
static const struct
{
  const char *plane[CF_MAX_PLANES];
  int sub_x, sub_y;
  int bits, lsb;
} layouts[CF_FORMAT_COUNT] = {
  [CF_FORMAT_GRAY8] = {{"Y"}, 0, 0, 8, 0},
  [CF_FORMAT_GRAY16_LE] = {{"Y"}, 0, 0, 16, 0},
  [CF_FORMAT_RGBA] = {{"RGBA"}, 0, 0, 8, 0},
  [CF_FORMAT_BGRA] = {{"BGRA"}, 0, 0, 8, 0},
  [CF_FORMAT_RGBX] = {{"RGBx"}, 0, 0, 8, 0},
  [CF_FORMAT_BGRX] = {{"BGRx"}, 0, 0, 8, 0},
  [CF_FORMAT_ARGB] = {{"ARGB"}, 0, 0, 8, 0},
  [CF_FORMAT_ABGR] = {{"ABGR"}, 0, 0, 8, 0},
  [CF_FORMAT_XRGB] = {{"xRGB"}, 0, 0, 8, 0},
  [CF_FORMAT_XBGR] = {{"xBGR"}, 0, 0, 8, 0},
  [CF_FORMAT_RGB] = {{"RGB"}, 0, 0, 8, 0},
  [CF_FORMAT_BGR] = {{"BGR"}, 0, 0, 8, 0},
  [CF_FORMAT_I420] = {{"Y", "U", "V"}, 1, 1, 8, 0},
  [CF_FORMAT_YV12] = {{"Y", "V", "U"}, 1, 1, 8, 0},
  [CF_FORMAT_NV12] = {{"Y", "UV"}, 1, 1, 8, 0},
  [CF_FORMAT_NV21] = {{"Y", "VU"}, 1, 1, 8, 0},
  [CF_FORMAT_Y444] = {{"Y", "U", "V"}, 0, 0, 8, 0},
  [CF_FORMAT_Y42B] = {{"Y", "U", "V"}, 1, 0, 8, 0},
  [CF_FORMAT_I420_10LE] = {{"Y", "U", "V"}, 1, 1, 10, 0},
  [CF_FORMAT_P010_10LE] = {{"Y", "UV"}, 1, 1, 10, 6},
  [CF_FORMAT_P016_LE] = {{"Y", "UV"}, 1, 1, 16, 0},
  [CF_FORMAT_Y444_16LE] = {{"Y", "U", "V"}, 0, 0, 16, 0},
  [CF_FORMAT_RGBA64_LE] = {{"RGBA"}, 0, 0, 16, 0},
  [CF_FORMAT_BGRA64_LE] = {{"BGRA"}, 0, 0, 16, 0},
};

#define MARKER 0xEE             /* in bytes that must never be counted */
#define BITS(format) (layouts[format].bits)
#define SAMPLE_BYTES(format) (BITS (format) > 8 ? 2 : 1)
#define VALUE_MASK(format) ((1u << BITS (format)) - 1)
/* the bits of a sample outside its value */
#define JUNK_MASK(format) \
  ((SAMPLE_BYTES (format) == 2 ? 0xffffu : 0xffu) & \
      ~(VALUE_MASK (format) << layouts[format].lsb))

/* The value that stands for the 8-bit level @level (0 .. 255) in @format:
 * 255 is the largest 16-bit value, 1020 at 10 bits. Histogram bin
 * value >> (bits - 8) is @level again. */
static guint
level_value (CfFormat format, guint level)
{
  return BITS (format) == 16 ? level * 257 : level << (BITS (format) - 8);
}

/* channel of a layout letter, -1 for padding */
static int
letter_channel (char l)
{
  static const char *const channels[] = { "RY", "GU", "BV", "A" };
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
    const int sub_x = p > 0 ? layouts[format].sub_x : 0;
    const int sub_y = p > 0 ? layouts[format].sub_y : 0;

    f->w[p] = (width + sub_x) >> sub_x;
    f->h[p] = (height + sub_y) >> sub_y;
    f->row[p] = (size_t) f->w[p] * strlen (layouts[format].plane[p]) *
        SAMPLE_BYTES (format);
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
  FILL_GRADIENT,                /* level_value (x + 16 c), wrapping */
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

/* Writes the sample of @format holding @value (cut to its bits), with
 * @junk in the sample's bits outside the value. */
static void
put_sample (guint8 * d, CfFormat format, guint value, guint junk)
{
  const guint s = (value & VALUE_MASK (format)) << layouts[format].lsb |
      (junk & JUNK_MASK (format));

  d[0] = (guint8) s;
  if (SAMPLE_BYTES (format) == 2)
    d[1] = (guint8) (s >> 8);
}

/* Fills every sample of @f (x: the pixel's column in its plane). What is no
 * value, the x of RGBx, the pitch padding after a row's end and the bits of
 * a 16-bit sample around its value, gets @pad (repeated in every byte), or
 * random garbage when @pad < 0. */
static void
frame_fill (Frame * f, FillKind kind, const guint * value, int pad,
    GRand * rand)
{
  const CfFormat format = f->img.format;
  const int sb = SAMPLE_BYTES (format);
  int p, x, y, k;

  for (p = 0; p < f->n_planes; p++) {
    const char *px = layouts[format].plane[p];
    const int spp = strlen (px);
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
        for (k = 0; k < spp; k++) {
          const int c = letter_channel (px[k]);
          guint v;

          if (c < 0)
            continue;
          if (kind == FILL_CONSTANT)
            v = value[c];
          else if (kind == FILL_GRADIENT)
            v = level_value (format, x + 16u * c);
          else
            v = g_rand_int (rand);
          put_sample (d + y * pitch + ((size_t) x * spp + k) * sb, format, v,
              pad < 0 ? g_rand_int (rand) : (guint) pad * 0x101u);
        }
  }
}

/* The expected result of FILL_CONSTANT with @value, or of FILL_GRADIENT when
 * @value is NULL, by closed forms: the gradient's values are m (x + o),
 * m = level_value (1), o = 16 c; the sum over x < n of x + o is
 * n(n-1)/2 + o n, of (x + o)^2 n(n-1)(2n-1)/6 + o n(n-1) + o^2 n; bin
 * x + o. Gradients need planes up to 208 wide: nothing wraps. */
static void
expect_frame (const Frame * f, const guint * value, CfStats * e)
{
  const CfFormat format = f->img.format;
  const guint64 m = level_value (format, 1);
  guint64 x;
  int p, k;

  memset (e, 0, sizeof (*e));
  for (p = 0; p < f->n_planes; p++) {
    const char *px = layouts[format].plane[p];
    const guint64 n = f->w[p], rows = f->h[p];

    for (k = 0; px[k]; k++) {
      const int c = letter_channel (px[k]);
      const guint64 o = 16 * c;

      if (c < 0)
        continue;
      e->n_channels = MAX (e->n_channels, (guint) c + 1);
      e->count[c] = n * rows;
      if (value) {
        e->min[c] = e->max[c] = value[c];
        e->sum[c] = value[c] * n * rows;
        e->sum_sq[c] = (guint64) value[c] * value[c] * n * rows;
        e->histogram[c][value[c] >> (BITS (format) - 8)] = n * rows;
        continue;
      }
      e->min[c] = m * o;
      e->max[c] = m * (o + n - 1);
      e->sum[c] = m * rows * (n * (n - 1) / 2 + o * n);
      e->sum_sq[c] = m * m * rows * (n * (n - 1) * (2 * n - 1) / 6
          + o * n * (n - 1) + o * o * n);
      for (x = 0; x < n; x++)
        e->histogram[c][o + x] = rows;
    }
  }
}

/* The expected result of any frame, counted here value by value: each
 * sample read through the test's own layout, bits and lsb. */
static void
expect_decoded (const Frame * f, CfStats * e)
{
  const CfFormat format = f->img.format;
  const int sb = SAMPLE_BYTES (format);
  int p, x, y, k, c;

  memset (e, 0, sizeof (*e));
  for (c = 0; c < CF_MAX_CHANNELS; c++)
    e->min[c] = G_MAXUINT32;
  for (p = 0; p < f->n_planes; p++) {
    const char *px = layouts[format].plane[p];
    const int spp = strlen (px);

    for (y = 0; y < f->h[p]; y++)
      for (x = 0; x < f->w[p]; x++)
        for (k = 0; k < spp; k++) {
          const guint8 *d = (const guint8 *) f->img.data[p] +
              y * f->img.pitch[p] + ((size_t) x * spp + k) * sb;
          guint v = sb == 2 ? d[0] | d[1] << 8 : d[0];

          if ((c = letter_channel (px[k])) < 0)
            continue;
          v = v >> layouts[format].lsb & VALUE_MASK (format);
          e->n_channels = MAX (e->n_channels, (guint) c + 1);
          e->min[c] = MIN (e->min[c], v);
          e->max[c] = MAX (e->max[c], v);
          e->count[c]++;
          e->sum[c] += v;
          e->sum_sq[c] += (guint64) v * v;
          e->histogram[c][v >> (BITS (format) - 8)]++;
        }
  }
  for (c = 0; c < CF_MAX_CHANNELS; c++)
    if (!e->count[c])
      e->min[c] = 0;
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
    const guint v = level_value (format, levels[l]);

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

  CF_FOR_EACH_FORMAT (f)
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
  static const struct
  {
    CfFormat format;
    guint16 want[4];
  } px16[] = {
    {CF_FORMAT_RGBA64_LE, {0x0201, 0x0403, 0x0605, 0x0807}},
    {CF_FORMAT_BGRA64_LE, {0x0605, 0x0403, 0x0201, 0x0807}},
  };
  guint8 bytes[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
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
  /* 16-bit samples, little-endian: bytes 1 .. 8 are 0x0201 .. 0x0807 */
  for (i = 0; i < G_N_ELEMENTS (px16); i++) {
    img.format = px16[i].format;
    img.pitch[0] = 8;
    g_assert_cmpint (cf_stats_cpu (&img, &got), ==, 0);
    g_assert_cmpuint (got.n_channels, ==, 4);
    for (c = 0; c < 4; c++) {
      g_assert_cmpuint (got.min[c], ==, px16[i].want[c]);
      g_assert_cmpuint (got.max[c], ==, px16[i].want[c]);
      g_assert_cmpuint (got.histogram[c][px16[i].want[c] >> 8], ==, 1);
    }
  }
  /* every format, each channel constant at its own value */
  CF_FOR_EACH_FORMAT (i)
    check_known (i, 5, 3, 3, (const guint[]) { 11, 22, 33, 44 });
}

/* pitch padding after each row, the x bytes and the bits around 16-bit
 * values hold MARKER; every format */
static void
test_cpu_padding (void)
{
  static const int sizes[][2] = { {1, 1}, {7, 5}, {2, 3} };
  static const size_t extras[] = { 1, 13, 64 };
  guint f, s, e;

  CF_FOR_EACH_FORMAT (f)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (e = 0; e < G_N_ELEMENTS (extras); e++)
        check_levels (f, sizes[s][0], sizes[s][1], extras[e]);
}

static void
test_cpu_gradient (void)
{
  static const int sizes[][2] = { {1, 1}, {1, 9}, {9, 1}, {7, 5}, {200, 3},
  {199, 7}
  };
  guint8 d[8] = { 0, 1, 2, 3, 0, 1, 2, 3 };
  CfImage img = { CF_FORMAT_GRAY8, 4, 2, {d}, {4} };
  CfStats got;
  guint f, s;

  CF_FOR_EACH_FORMAT (f)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      check_known (f, sizes[s][0], sizes[s][1], 0, NULL);
      check_known (f, sizes[s][0], sizes[s][1], 5, NULL);
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

/* Writes 16-bit sample @v little-endian at @d. */
static void
put16 (guint8 * d, guint16 v)
{
  d[0] = v & 0xff;
  d[1] = v >> 8;
}

/* 10-bit values in 16-bit samples: P010_10LE holds them in the high bits,
 * I420_10LE in the low ones, and neither counts the bits around them. */
static void
test_cpu_ten_bit (void)
{
  /* 2x2, Y values 1023 1 / 0 512, U 256, V 1023, with the bits around each
   * value set in some samples; Y rows padded to 6 bytes with MARKER */
  static const guint16 p010_y[4] = { 0xffff, 0x0040, 0x003f, 0x8000 };
  static const guint16 p010_uv[2] = { 0x4015, 0xffc0 };
  static const guint16 i420_y[4] = { 0xffff, 0xfc01, 0x0400, 0x0200 };
  static const guint16 i420_u = 0xfd00, i420_v = 0x03ff;
  guint8 y[12], uv[4], u[2], v[2];
  CfImage p010 = { CF_FORMAT_P010_10LE, 2, 2, {y, uv}, {6, 4} };
  CfImage i420 = { CF_FORMAT_I420_10LE, 2, 2, {y, u, v}, {6, 2, 2} };
  CfStats got, want = { 0 };
  int i;

  want.n_channels = 3;
  want.min[0] = 0;
  want.max[0] = 1023;
  want.count[0] = 4;
  want.sum[0] = 1536;
  want.sum_sq[0] = 1023 * 1023 + 1 + 512 * 512;
  want.histogram[0][255] = 1;   /* 1023 */
  want.histogram[0][0] = 2;     /* 1, 0 */
  want.histogram[0][128] = 1;   /* 512 */
  want.min[1] = want.max[1] = want.sum[1] = 256;
  want.count[1] = 1;
  want.sum_sq[1] = 65536;
  want.histogram[1][64] = 1;
  want.min[2] = want.max[2] = want.sum[2] = 1023;
  want.count[2] = 1;
  want.sum_sq[2] = 1023 * 1023;
  want.histogram[2][255] = 1;

  memset (y, MARKER, sizeof (y));
  for (i = 0; i < 4; i++)
    put16 (y + (i / 2) * 6 + (i % 2) * 2, p010_y[i]);
  put16 (uv, p010_uv[0]);
  put16 (uv + 2, p010_uv[1]);
  g_assert_cmpint (cf_stats_cpu (&p010, &got), ==, 0);
  check_stats (&got, &want, "P010_10LE 2x2 known values");

  for (i = 0; i < 4; i++)
    put16 (y + (i / 2) * 6 + (i % 2) * 2, i420_y[i]);
  put16 (u, i420_u);
  put16 (v, i420_v);
  g_assert_cmpint (cf_stats_cpu (&i420, &got), ==, 0);
  check_stats (&got, &want, "I420_10LE 2x2 known values");
}

/* 16-bit values fill their samples: P016_LE and RGBA64_LE of large and
 * distinct values per channel, sums of squares far above 2^32 */
static void
test_cpu_sixteen_bit (void)
{
  static const guint16 p016_y[4] = { 0xffff, 0x0001, 0x8000, 0x00ff };
  guint8 y[8], uv[4];
  CfImage p016 = { CF_FORMAT_P016_LE, 2, 2, {y, uv}, {4, 4} };
  CfStats got, want = { 0 };
  int i;

  for (i = 0; i < 4; i++)
    put16 (y + 2 * i, p016_y[i]);
  put16 (uv, 0x1234);
  put16 (uv + 2, 0xfedc);
  want.n_channels = 3;
  want.min[0] = 1;
  want.max[0] = 0xffff;
  want.count[0] = 4;
  want.sum[0] = 0xffff + 1 + 0x8000 + 0xff;
  want.sum_sq[0] = G_GUINT64_CONSTANT (0xffff) * 0xffff + 1 +
      0x8000 * 0x8000 + 0xff * 0xff;
  want.histogram[0][255] = 1;
  want.histogram[0][0] = 2;
  want.histogram[0][128] = 1;
  want.min[1] = want.max[1] = want.sum[1] = 0x1234;
  want.count[1] = 1;
  want.sum_sq[1] = 0x1234 * 0x1234;
  want.histogram[1][0x12] = 1;
  want.min[2] = want.max[2] = want.sum[2] = 0xfedc;
  want.count[2] = 1;
  want.sum_sq[2] = G_GUINT64_CONSTANT (0xfedc) * 0xfedc;
  want.histogram[2][0xfe] = 1;
  g_assert_cmpint (cf_stats_cpu (&p016, &got), ==, 0);
  check_stats (&got, &want, "P016_LE 2x2 known values");

  check_known (CF_FORMAT_RGBA64_LE, 1000, 999, 8,
      (const guint[]) { 65535, 1, 32768, 1023 });
  check_known (CF_FORMAT_Y444_16LE, 999, 1000, 2,
      (const guint[]) { 65535, 256, 40000 });
}

/* The value of sample @k of pixel (@x, @y) of plane @p, and its writing,
 * through the test's layouts. */
static guint
get_value (const Frame * f, int p, int x, int y, int k)
{
  const CfFormat format = f->img.format;
  const int sb = SAMPLE_BYTES (format);
  const guint8 *d = (const guint8 *) f->img.data[p] + y * f->img.pitch[p] +
      ((size_t) x * strlen (layouts[format].plane[p]) + k) * sb;

  return (sb == 2 ? d[0] | d[1] << 8 : d[0]) >> layouts[format].lsb &
      VALUE_MASK (format);
}

static void
set_value (Frame * f, int p, int x, int y, int k, guint v, guint junk)
{
  const CfFormat format = f->img.format;

  put_sample ((guint8 *) f->img.data[p] + y * f->img.pitch[p] +
      ((size_t) x * strlen (layouts[format].plane[p]) + k) *
      SAMPLE_BYTES (format), format, v, junk);
}

/* Draws the picture of @src into @dst, a format of the same value bits and
 * subsampling; the bits around each value random, or 0 when @clean. */
static void
frame_convert (const Frame * src, Frame * dst, gboolean clean, GRand * rand)
{
  int p, q, x, y, k, j;

  for (p = 0; p < dst->n_planes; p++) {
    const char *px = layouts[dst->img.format].plane[p];

    for (k = 0; px[k]; k++) {
      const int c = letter_channel (px[k]);

      if (c < 0)
        continue;
      /* where src has channel c */
      for (q = 0; q < src->n_planes; q++)
        for (j = 0; layouts[src->img.format].plane[q][j]; j++)
          if (letter_channel (layouts[src->img.format].plane[q][j]) == c)
            goto found;
      g_assert_not_reached ();
    found:
      g_assert_cmpint (src->w[q], ==, dst->w[p]);
      g_assert_cmpint (src->h[q], ==, dst->h[p]);
      for (y = 0; y < dst->h[p]; y++)
        for (x = 0; x < dst->w[p]; x++)
          set_value (dst, p, x, y, k, get_value (src, q, x, y, j),
              clean ? 0 : g_rand_int (rand));
    }
  }
}

/* One random picture in two formats, or twice in one with and without
 * the bits around the values: the same numbers, the values' (P010 ==
 * I420_10LE: the plan's cross-check). */
static void
test_cpu_same_picture (void)
{
  static const CfFormat pairs[][2] = {
    {CF_FORMAT_P010_10LE, CF_FORMAT_I420_10LE},
    {CF_FORMAT_I420_10LE, CF_FORMAT_P010_10LE},
    {CF_FORMAT_P010_10LE, CF_FORMAT_P010_10LE},
    {CF_FORMAT_I420_10LE, CF_FORMAT_I420_10LE},
    {CF_FORMAT_P016_LE, CF_FORMAT_P016_LE},
    {CF_FORMAT_RGBA64_LE, CF_FORMAT_BGRA64_LE},
    {CF_FORMAT_NV12, CF_FORMAT_I420},
    {CF_FORMAT_Y444_16LE, CF_FORMAT_Y444_16LE},
  };
  static const int sizes[][2] = { {1, 1}, {37, 23}, {64, 2} };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  CfStats want, got;
  Frame src, dst;
  guint i, s, clean;

  for (i = 0; i < G_N_ELEMENTS (pairs); i++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (clean = 0; clean < 2; clean++) {
        char *what;

        frame_init (&src, pairs[i][0], sizes[s][0], sizes[s][1], 1, 3);
        frame_init (&dst, pairs[i][1], sizes[s][0], sizes[s][1], 1, 5);
        frame_fill (&src, FILL_RANDOM, NULL, -1, rand);
        frame_fill (&dst, FILL_RANDOM, NULL, -1, rand);
        frame_convert (&src, &dst, clean, rand);
        expect_decoded (&src, &want);
        what = describe (&src, "random, as is");
        g_assert_cmpint (cf_stats_cpu (&src.img, &got), ==, 0);
        check_stats (&got, &want, what);
        g_free (what);
        what = describe (&dst, clean ? "converted, clean" : "converted");
        g_assert_cmpint (cf_stats_cpu (&dst.img, &got), ==, 0);
        check_stats (&got, &want, what);
        g_free (what);
        frame_clear (&src);
        frame_clear (&dst);
      }
  g_rand_free (rand);
}

/* Random bytes everywhere, every format: what the test decodes itself. */
static void
test_cpu_random (void)
{
  static const int sizes[][2] = { {1, 1}, {3, 3}, {17, 5}, {33, 8} };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  CfStats want, got;
  guint f, s, e;
  Frame fr;

  CF_FOR_EACH_FORMAT (f)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (e = 0; e < 2; e++) {
        char *what;

        frame_init (&fr, f, sizes[s][0], sizes[s][1], 1, 7 * e);
        frame_fill (&fr, FILL_RANDOM, NULL, -1, rand);
        expect_decoded (&fr, &want);
        what = describe (&fr, "random");
        g_assert_cmpint (cf_stats_cpu (&fr.img, &got), ==, 0);
        check_stats (&got, &want, what);
        g_free (what);
        frame_clear (&fr);
      }
  g_rand_free (rand);
}

/* cf_stats_cpu_threads () gives the numbers worked out here for every
 * thread count: 1, 2, 3, all the cores (0), and more threads than rows;
 * every format, odd sizes, padded rows. Small random frames give each band
 * its own extremes, so that the merge of the bands' minima and maxima is
 * checked, not only their sums. */
static void
test_cpu_threads (void)
{
  static const int sizes[][2] = { {1, 1}, {3, 3}, {5, 2}, {33, 17},
  {101, 63}, {257, 131}
  };
  static const int counts[] = { 1, 2, 3, 0, 64 };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  CfStats want, got;
  guint f, s, i;
  Frame fr;

  CF_FOR_EACH_FORMAT (f)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      char *frame, *what;

      frame_init (&fr, f, sizes[s][0], sizes[s][1], 1 + s % 2, 3 * (s % 3));
      frame_fill (&fr, FILL_RANDOM, NULL, -1, rand);
      expect_decoded (&fr, &want);
      frame = describe (&fr, "random");
      for (i = 0; i < G_N_ELEMENTS (counts); i++) {
        what = g_strdup_printf ("%s, %d threads", frame, counts[i]);
        memset (&got, 0xEE, sizeof (got));
        g_assert_cmpint (cf_stats_cpu_threads (&fr.img, &got, counts[i]), ==,
            0);
        check_stats (&got, &want, what);
        g_free (what);
      }
      g_free (frame);
      frame_clear (&fr);
    }
  g_rand_free (rand);
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
  const guint v = level_value (f->img.format, i == 1 ? 0 : i == 2 ? 128 : 255);
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
 * rows are) and 64 bytes more; then 4K RGBA, NV12, P010_10LE and RGBA64_LE.
 * One workspace. */
static void
test_cuda_formats (void)
{
  static const CfFormat big[] = { CF_FORMAT_RGBA, CF_FORMAT_NV12,
    CF_FORMAT_P010_10LE, CF_FORMAT_RGBA64_LE
  };
  guint fmt, s, e, i;
  Frame f;
  Gpu g;

  gpu_begin (&g);
  CF_FOR_EACH_FORMAT (fmt)
    for (s = 0; s < G_N_ELEMENTS (gpu_sizes); s++)
      for (e = 0; e < 2; e++) {
        frame_init (&f, fmt, gpu_sizes[s][0], gpu_sizes[s][1], 16, e * 64);
        for (i = 0; i < N_GPU_FILLS; i++)
          gpu_check (&g, &f, i);
        frame_clear (&f);
      }
  for (i = 0; i < G_N_ELEMENTS (big); i++) {
    frame_init (&f, big[i], 3840, 2160, 16, 64 * (i % 2));
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
    /* every format meets every size, whatever the two counts' divisors */
    const guint s = (i + i / CF_FORMAT_COUNT) % n_sizes;

    if (cf_format_info (i % CF_FORMAT_COUNT)->packed)
      continue;
    frame_init (&f, i % CF_FORMAT_COUNT, gpu_sizes[s][0], gpu_sizes[s][1],
        16, (i / 2) % 2 * 64);
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
    {CF_FORMAT_P010_10LE, 641, 481}, {CF_FORMAT_BGRA64_LE, 333, 3},
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
    g_test_add_func ("/stats/cpu/ten-bit", test_cpu_ten_bit);
    g_test_add_func ("/stats/cpu/sixteen-bit", test_cpu_sixteen_bit);
    g_test_add_func ("/stats/cpu/same-picture", test_cpu_same_picture);
    g_test_add_func ("/stats/cpu/random", test_cpu_random);
    g_test_add_func ("/stats/cpu/gradient", test_cpu_gradient);
    g_test_add_func ("/stats/cpu/invalid", test_cpu_invalid);
    g_test_add_func ("/stats/cpu/sum", test_cpu_sum);
    g_test_add_func ("/stats/cpu/threads", test_cpu_threads);
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
