/* Kernel-level tests of the statistics overlay (kernels/overlay.h).
 *
 * CF_TEST_BACKEND=cpu: the plan (text scale at 720p and 4K, corners,
 * colours at 8, 10 and 16 bits, bad arguments), the text lines, and known
 * answers for cf_overlay_cpu (): an opaque panel shows its colour, a
 * transparent one leaves the frame's values as they were, a blend by hand,
 * on values, the bits of a sample outside its value cleared where the
 * panel is; zebra marks exactly the pixels on a stripe whose luma value
 * >> (bits - 8) is at or above the level (and at 0), one full bin gives one
 * full-height bar at its column (linear and log, 8 and 16 bits), the text
 * draws its glyphs' pixels (GRAY8, P010, I420_10LE); on random frames of
 * every format nothing outside the panel changes (without zebra), nor
 * alpha, padding samples or the bytes past a row; P010 and I420_10LE
 * frames of the same values, with and without bits set outside them, give
 * the same values, and keep those bits exactly where nothing is drawn.
 * CF_TEST_BACKEND=cuda: cf_overlay_cuda () byte for byte against
 * cf_overlay_cpu () on random frames of every format (random bits outside
 * the values), sizes from 1x1 to 1280x720 with padded, unaligned pitches,
 * every channel mode, log, zebra and text on and off; aligned and
 * misaligned planes (each word path); cf_stats_cuda () then
 * cf_overlay_cuda () on one stream with no synchronisation in between; bad
 * arguments.
 */
#include "cf-frame.h"
#include "cf-threads.h"
#include "overlay.h"

static CfOverlayParams
params_default (int pw, int ph)
{
  CfOverlayParams s;

  memset (&s, 0, sizeof (s));
  s.corner = CF_OVERLAY_TOP_LEFT;
  s.panel_width = pw;
  s.panel_height = ph;
  s.opacity = 160;
  s.channels = CF_OVERLAY_CHANNELS_RGB;
  s.show_text = TRUE;
  s.zebra_level = 255;
  return s;
}

static CfStats
stats_of (const Frame * f)
{
  CfStats st;

  g_assert_cmpint (cf_stats_cpu (&f->img, &st), ==, 0);
  return st;
}

/* A copy of @f, same geometry: the same extra bytes on every row, or
 * (a frame of ALIGNED_PITCH, whose planes' extra bytes differ) aligned
 * pitches again. */
static void
frame_copy (const Frame * f, Frame * copy)
{
  int p;

  frame_init (copy, f->img.format, f->img.width, f->img.height,
      f->img.pitch[0] - f->row[0], 0);
  for (p = 0; p < f->n_planes; p++)
    if (copy->img.pitch[p] != f->img.pitch[p]) {
      frame_clear (copy);
      frame_init (copy, f->img.format, f->img.width, f->img.height,
          ALIGNED_PITCH, 0);
      break;
    }
  for (p = 0; p < f->n_planes; p++) {
    g_assert_cmpuint (copy->img.pitch[p], ==, f->img.pitch[p]);
    memcpy (copy->img.data[p], f->img.data[p], f->img.pitch[p] * f->h[p]);
  }
}

/* The bytes between each row's end and its pitch are @orig's. */
static void
check_padding_same (const Frame * f, const Frame * orig, const char *what)
{
  int p, y;

  for (p = 0; p < f->n_planes; p++)
    for (y = 0; y < f->h[p]; y++) {
      const size_t at = y * f->img.pitch[p] + f->row[p];

      if (memcmp ((guint8 *) f->img.data[p] + at,
              (guint8 *) orig->img.data[p] + at, f->img.pitch[p] -
              f->row[p]) != 0) {
        g_printerr ("%s: padding of plane %d row %d written\n", what, p, y);
        g_assert_not_reached ();
      }
    }
}

static void
draw_cpu (const CfOverlayParams * s, Frame * f, const CfStats * st,
    int fps_x10, CfOverlayPlan * plan_out)
{
  CfOverlayPlan plan;

  g_assert_cmpint (cf_overlay_plan_init (&plan, f->img.format, f->img.width,
          f->img.height, s), ==, 0);
  g_assert_cmpint (cf_overlay_cpu (&plan, &f->img, st, fps_x10), ==, 0);
  if (plan_out)
    *plan_out = plan;
}

/* Is luma pixel (@x, @y) of plane @p's sample in the panel? */
static gboolean
in_panel (const CfOverlayPlan * plan, const CfFormat format, int p, int x,
    int y)
{
  const CfPlaneLayout *l = &cf_format_info (format)->plane[p];

  x <<= l->shift_x;
  y <<= l->shift_y;
  return x >= plan->panel_x && x < plan->panel_x + plan->panel_width
      && y >= plan->panel_y && y < plan->panel_y + plan->panel_height;
}

/* The value sample (@p, @x, @y, @k) of @f holds (format.h). */
static guint
value_get (const Frame * f, int p, int x, int y, int k)
{
  const CfFormatInfo *info = cf_format_info (f->img.format);

  return sample_get (f, p, x, y, k) >> info->lsb &
      ((1u << info->bits) - 1);
}

/* The bits of a sample of @info outside its value: P010's low 6, the high
 * 6 of I420_10LE; none in 8 and 16 bits. */
static guint
outside_bits (const CfFormatInfo * info)
{
  const guint sample = info->depth == 16 ? 0xffff : 0xff;

  return sample & ~(((1u << info->bits) - 1) << info->lsb);
}

/* Sets the sample to value @v with random bits outside it. */
static void
value_set_dirty (Frame * f, int p, int x, int y, int k, guint v,
    GRand * rand)
{
  const CfFormatInfo *info = cf_format_info (f->img.format);

  sample_set (f, p, x, y, k, v << info->lsb |
      (g_rand_int (rand) & outside_bits (info)));
}

/* ---- CPU: the plan and the text ---- */

static void
test_cpu_plan (void)
{
  CfOverlayParams s = params_default (400, 200);
  CfOverlayPlan plan;
  const CfOverlayPlan zero = { 0 };

  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_RGBA, 1280, 720,
          &s), ==, 0);
  g_assert_cmpint (plan.scale, ==, 2);
  g_assert_cmpint (plan.panel_x, ==, 0);
  g_assert_cmpint (plan.panel_y, ==, 0);
  g_assert_cmpint (plan.text_lines, ==, 4);
  /* 4 lines of 16 rows at the bottom inside a 4-pixel margin */
  g_assert_cmpint (plan.text_y, ==, 200 - 4 - 64);
  g_assert_cmpint (plan.hist_height, ==, 200 - 12 - 64);
  g_assert_cmpint (plan.hist_width, ==, 392);
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_NV12, 3840, 2160,
          &s), ==, 0);
  g_assert_cmpint (plan.scale, ==, 6);
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_GRAY8, 1, 1, &s),
      ==, 0);
  g_assert_cmpint (plan.scale, ==, 1);
  g_assert_cmpint (plan.panel_width, ==, 1);
  g_assert_cmpint (plan.text_lines, ==, 2);

  /* corners, inset */
  s.inset = 10;
  s.corner = CF_OVERLAY_BOTTOM_RIGHT;
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_RGB, 640, 480, &s),
      ==, 0);
  g_assert_cmpint (plan.panel_x, ==, 640 - 400 - 10);
  g_assert_cmpint (plan.panel_y, ==, 480 - 200 - 10);
  s.corner = CF_OVERLAY_TOP_RIGHT;
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_RGB, 405, 480, &s),
      ==, 0);
  g_assert_cmpint (plan.panel_x, ==, 0);        /* room for an inset of 5 */
  g_assert_cmpint (plan.panel_y, ==, 10);

  /* colours: BT.601 limited range on YUV, luma on gray */
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_I420, 64, 64, &s),
      ==, 0);
  g_assert_cmpuint (plan.palette[CF_OVERLAY_BACKGROUND][0], ==, 16);
  g_assert_cmpuint (plan.palette[CF_OVERLAY_BACKGROUND][1], ==, 128);
  g_assert_cmpuint (plan.palette[CF_OVERLAY_BACKGROUND][2], ==, 128);
  g_assert_cmpuint (plan.palette[CF_OVERLAY_TEXT][0], ==, 235);
  g_assert_cmpuint (plan.palette[CF_OVERLAY_TEXT][1], ==, 128);
  g_assert_cmpuint (plan.palette[CF_OVERLAY_TEXT][2], ==, 128);
  /* V alone is red: (82, 90, 240) */
  g_assert_cmpuint (plan.palette[4][0], ==, 82);
  g_assert_cmpuint (plan.palette[4][1], ==, 90);
  g_assert_cmpuint (plan.palette[4][2], ==, 240);
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_GRAY16_LE, 64, 64,
          &s), ==, 0);
  g_assert_cmpuint (plan.palette[CF_OVERLAY_TEXT][0], ==, 65535);
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_BGRA, 64, 64, &s),
      ==, 0);
  g_assert_cmpuint (plan.palette[3][0], ==, 255);       /* R + G: yellow */
  g_assert_cmpuint (plan.palette[3][1], ==, 255);
  g_assert_cmpuint (plan.palette[3][2], ==, 0);
  g_assert_cmpint (plan.letter[2], ==, 'B');

  /* 10-bit YUV: the 8-bit values << 2, P010 as I420_10LE (values, not
   * samples); 16-bit YUV << 8; 16-bit RGB x 257 */
  {
    static const CfFormat ten[] = { CF_FORMAT_I420_10LE,
      CF_FORMAT_P010_10LE
    };
    static const CfFormat sixteen[] = { CF_FORMAT_P016_LE,
      CF_FORMAT_Y444_16LE
    };
    guint i;

    for (i = 0; i < G_N_ELEMENTS (ten); i++) {
      g_assert_cmpint (cf_overlay_plan_init (&plan, ten[i], 64, 64, &s), ==,
          0);
      g_assert_cmpuint (plan.palette[CF_OVERLAY_BACKGROUND][0], ==, 64);
      g_assert_cmpuint (plan.palette[CF_OVERLAY_BACKGROUND][1], ==, 512);
      g_assert_cmpuint (plan.palette[CF_OVERLAY_BACKGROUND][2], ==, 512);
      g_assert_cmpuint (plan.palette[CF_OVERLAY_TEXT][0], ==, 940);
      g_assert_cmpuint (plan.palette[CF_OVERLAY_ZEBRA_ZERO][0], ==, 940);
      g_assert_cmpuint (plan.palette[CF_OVERLAY_ZEBRA_HIGH][0], ==, 64);
      g_assert_cmpuint (plan.palette[4][0], ==, 328);   /* 82, 90, 240 */
      g_assert_cmpuint (plan.palette[4][1], ==, 360);
      g_assert_cmpuint (plan.palette[4][2], ==, 960);
      g_assert_cmpint (plan.letter[1], ==, 'U');
    }
    for (i = 0; i < G_N_ELEMENTS (sixteen); i++) {
      g_assert_cmpint (cf_overlay_plan_init (&plan, sixteen[i], 64, 64, &s),
          ==, 0);
      g_assert_cmpuint (plan.palette[CF_OVERLAY_BACKGROUND][0], ==, 4096);
      g_assert_cmpuint (plan.palette[CF_OVERLAY_BACKGROUND][1], ==, 32768);
      g_assert_cmpuint (plan.palette[CF_OVERLAY_TEXT][0], ==, 60160);
      g_assert_cmpuint (plan.palette[4][2], ==, 61440);
    }
    g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_Y42B, 64, 64,
            &s), ==, 0);
    g_assert_cmpuint (plan.palette[CF_OVERLAY_TEXT][0], ==, 235);
    g_assert_cmpuint (plan.palette[CF_OVERLAY_BACKGROUND][2], ==, 128);
    g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_BGRA64_LE, 64, 64,
            &s), ==, 0);
    g_assert_cmpuint (plan.palette[CF_OVERLAY_BACKGROUND][0], ==, 0);
    g_assert_cmpuint (plan.palette[CF_OVERLAY_TEXT][1], ==, 65535);
    g_assert_cmpuint (plan.palette[3][0], ==, 65535);   /* yellow */
    g_assert_cmpuint (plan.palette[3][1], ==, 65535);
    g_assert_cmpuint (plan.palette[3][2], ==, 0);
    g_assert_cmpuint (plan.palette[3][3], ==, 0);       /* alpha: none */
    g_assert_cmpint (plan.n_colour, ==, 3);
    g_assert_cmpint (plan.letter[0], ==, 'R');
  }

  /* bad arguments clear the plan */
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_COUNT, 64, 64, &s),
      ==, -1);
  g_assert_cmpint (plan.format, ==, CF_FORMAT_COUNT);
  plan.format = zero.format;
  g_assert_cmpmem (&plan, sizeof (plan), &zero, sizeof (zero));
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_RGBA, 0, 64, &s),
      ==, -1);
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_RGBA, 64, 64, NULL),
      ==, -1);
  s.opacity = 256;
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_RGBA, 64, 64, &s),
      ==, -1);
  s = params_default (10, 10);
  s.channels = CF_OVERLAY_CHANNELS_COUNT;
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_RGBA, 64, 64, &s),
      ==, -1);
  s = params_default (-1, 10);
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_RGBA, 64, 64, &s),
      ==, -1);
  s = params_default (10, 10);
  s.zebra_level = 300;
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_RGBA, 64, 64, &s),
      ==, -1);
  /* a failed plan is refused */
  {
    Frame f;
    CfStats st;

    frame_init (&f, CF_FORMAT_RGBA, 64, 64, 0, 0);
    st = stats_of (&f);
    g_assert_cmpint (cf_overlay_cpu (&plan, &f.img, &st, 0), ==, -1);
    s = params_default (10, 10);
    g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_RGBA, 64, 64, &s),
        ==, 0);
    st.n_channels = 3;
    g_assert_cmpint (cf_overlay_cpu (&plan, &f.img, &st, 0), ==, -1);
    st.n_channels = 4;
    f.img.width = 63;
    g_assert_cmpint (cf_overlay_cpu (&plan, &f.img, &st, 0), ==, -1);
    f.img.width = 64;
    g_assert_cmpint (cf_overlay_cpu (&plan, &f.img, &st, 0), ==, 0);
    frame_clear (&f);
  }
}

static void
test_cpu_text (void)
{
  CfOverlayParams s = params_default (100, 100);
  CfOverlayPlan plan;
  CfStats st;
  char buf[CF_OVERLAY_LINE_CHARS + 1];

  memset (&st, 0, sizeof (st));
  st.n_channels = 3;
  st.min[0] = 3;
  st.max[0] = 250;
  st.count[0] = 4;
  st.sum[0] = 3 + 250 + 100 + 157;      /* 127.5 */
  st.min[1] = 0;
  st.max[1] = 65535;
  st.count[1] = 3;
  st.sum[1] = 1;                /* 0.33 -> 0.3 */
  st.count[2] = 0;
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_Y444, 64, 64, &s),
      ==, 0);
  g_assert_cmpint (cf_overlay_text_line (&plan, &st, 299, 0, buf), ==, 26);
  g_assert_cmpstr (buf, ==, "Y MIN 3 MAX 250 MEAN 127.5");
  cf_overlay_text_line (&plan, &st, 299, 1, buf);
  g_assert_cmpstr (buf, ==, "U MIN 0 MAX 65535 MEAN 0.3");
  cf_overlay_text_line (&plan, &st, 299, 2, buf);
  g_assert_cmpstr (buf, ==, "V -");
  cf_overlay_text_line (&plan, &st, 299, 3, buf);
  g_assert_cmpstr (buf, ==, "FPS 29.9");
  cf_overlay_text_line (&plan, &st, 5, 3, buf);
  g_assert_cmpstr (buf, ==, "FPS 0.5");
  cf_overlay_text_line (&plan, &st, -1, 3, buf);
  g_assert_cmpstr (buf, ==, "FPS -");
  g_assert_cmpint (cf_overlay_text_line (&plan, &st, 0, 4, buf), ==, -1);
  /* rounding of the mean: 2/3 -> 0.7, the longest line fits */
  st.sum[1] = 2;
  cf_overlay_text_line (&plan, &st, 0, 1, buf);
  g_assert_cmpstr (buf, ==, "U MIN 0 MAX 65535 MEAN 0.7");
  st.min[1] = 65535;
  st.sum[1] = 65535ull * 3;
  g_assert_cmpint (cf_overlay_text_line (&plan, &st, 0, 1, buf), <=,
      CF_OVERLAY_LINE_CHARS);
  g_assert_cmpstr (buf, ==, "U MIN 65535 MAX 65535 MEAN 65535.0");
  s.show_text = FALSE;
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_Y444, 64, 64, &s),
      ==, 0);
  g_assert_cmpint (plan.text_lines, ==, 0);
}

/* ---- CPU: known answers ---- */

/* Statistics whose histograms are empty: no bars. */
static CfStats
stats_empty (int n_channels)
{
  CfStats st;

  memset (&st, 0, sizeof (st));
  st.n_channels = n_channels;
  return st;
}

/* Opacity 255 shows the background colour over the whole panel, 0 leaves
 * the frame's values as they were; outside the panel nothing changes
 * either way; and a blend by hand, on values. In the panel the colour
 * samples are written as value << lsb: the random bits outside the values
 * are gone there. Every format, random frames, odd panel positions. */
static void
test_cpu_opacity (void)
{
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  int f, o, p, x, y, k;

  CF_FOR_EACH_FORMAT (f)
    for (o = 0; o < 3; o++) {
      const CfFormatInfo *info = cf_format_info (f);
      const int opacity = o == 0 ? 255 : o == 1 ? 0 : 128;
      CfOverlayParams s = params_default (13, 9);
      CfOverlayPlan plan;
      CfStats st = stats_empty (info->n_channels);
      Frame fr, orig;

      s.show_text = FALSE;
      s.opacity = opacity;
      s.corner = CF_OVERLAY_BOTTOM_RIGHT;
      s.inset = 3;
      frame_init (&fr, f, 31, 21, 7, 1);
      frame_random (&fr, rand);
      frame_copy (&fr, &orig);
      draw_cpu (&s, &fr, &st, 0, &plan);
      g_assert_cmpint (plan.panel_x, ==, 31 - 13 - 3);
      for (p = 0; p < fr.n_planes; p++)
        for (y = 0; y < fr.h[p]; y++)
          for (x = 0; x < fr.w[p]; x++)
            for (k = 0; k < samples_per_pixel (&fr, p); k++) {
              const int c = info->plane[p].channel[k];
              const guint in = value_get (&orig, p, x, y, k);
              const guint bg = c >= 0 ? plan.palette[0][c] : 0;
              guint want = sample_get (&orig, p, x, y, k);

              if (in_panel (&plan, f, p, x, y) && c >= 0 && c < 3)
                want = (opacity == 255 ? bg : opacity == 0 ? in :
                    (in * 127 + bg * 129 + 128) >> 8) << info->lsb;
              g_assert_cmpuint (sample_get (&fr, p, x, y, k), ==, want);
            }
      check_padding_same (&fr, &orig, "opacity");
      frame_clear (&fr);
      frame_clear (&orig);
    }
  g_rand_free (rand);
}

/* The luma value of pixel (@x, @y): Y or gray, or weighted R, G, B. */
static guint
luma_of (const Frame * f, int x, int y)
{
  const CfFormatInfo *info = cf_format_info (f->img.format);
  guint rgb[3] = { 0, 0, 0 };
  int k;

  for (k = 0; k < samples_per_pixel (f, 0); k++)
    if (info->plane[0].channel[k] >= 0 && info->plane[0].channel[k] < 3)
      rgb[info->plane[0].channel[k]] = value_get (f, 0, x, y, k);
  if (samples_per_pixel (f, 0) >= 3)
    return (77 * rgb[0] + 150 * rgb[1] + 29 * rgb[2] + 128) >> 8;
  return rgb[0];
}

/* Zebra marks exactly the pixels on a stripe whose luma value >>
 * (bits - 8) is at or above the level (black) and, with zebra_zero, those
 * of luma 0 (white), also where bits outside the value are set; nothing
 * else changes, not a bit: no panel, chroma untouched. */
static void
test_cpu_zebra (void)
{
  GRand *rand = g_rand_new_with_seed (cf_test_seed () + 1);
  int f, z, p, x, y, k;

  CF_FOR_EACH_FORMAT (f)
    for (z = 0; z < 2; z++) {
      const CfFormatInfo *info = cf_format_info (f);
      CfOverlayParams s = params_default (0, 0);
      CfOverlayPlan plan;
      CfStats st = stats_empty (info->n_channels);
      Frame fr, orig;
      int high = 0, zero = 0;

      s.zebra = TRUE;
      s.zebra_level = 200;
      s.zebra_zero = z;
      s.text_scale = 1;         /* stripes 4 pixels wide */
      frame_init (&fr, f, 37, 19, 3, 0);
      frame_random (&fr, rand);
      /* some pixels at 0 */
      for (y = 0; y < fr.h[0]; y += 3)
        for (x = 0; x < fr.w[0]; x += 2)
          for (k = 0; k < samples_per_pixel (&fr, 0); k++)
            value_set_dirty (&fr, 0, x, y, k, 0, rand);
      frame_copy (&fr, &orig);
      draw_cpu (&s, &fr, &st, 0, &plan);
      for (p = 0; p < fr.n_planes; p++)
        for (y = 0; y < fr.h[p]; y++)
          for (x = 0; x < fr.w[p]; x++) {
            const guint luma = p == 0 ? luma_of (&orig, x, y) : 0;
            const gboolean stripe = (x + y) / 4 % 2 == 0;
            int mark = -1;

            if (p == 0 && stripe && luma >> (info->bits - 8) >= 200)
              mark = CF_OVERLAY_ZEBRA_HIGH;
            else if (p == 0 && stripe && z && luma == 0)
              mark = CF_OVERLAY_ZEBRA_ZERO;
            high += mark == CF_OVERLAY_ZEBRA_HIGH;
            zero += mark == CF_OVERLAY_ZEBRA_ZERO;
            for (k = 0; k < samples_per_pixel (&fr, p); k++) {
              const int c = info->plane[p].channel[k];
              const guint want = mark >= 0 && c >= 0 && c < 3 ?
                  (guint) plan.palette[mark][c] << info->lsb :
                  sample_get (&orig, p, x, y, k);

              g_assert_cmpuint (sample_get (&fr, p, x, y, k), ==, want);
            }
          }
      g_assert_cmpint (high, >, 0);
      if (z)
        g_assert_cmpint (zero, >, 0);
      else
        g_assert_cmpint (zero, ==, 0);
      check_padding_same (&fr, &orig, "zebra");
      frame_clear (&fr);
      frame_clear (&orig);
    }
  g_rand_free (rand);
}

/* One full bin: one full-height bar at its column, the rest background,
 * every mode, linear and log, on GRAY8, RGBx and RGBA64 (the bar in its
 * colours, 255 as 65535 at 16 bits); a bin of 10 beside it: no row in
 * linear, L(10) H / L(1000) = 54 * 56 / 159 = 19 rows in log (GRAY8). */
static void
test_cpu_one_bin (void)
{
  static const CfFormat formats[] = { CF_FORMAT_GRAY8, CF_FORMAT_RGBX,
    CF_FORMAT_RGBA64_LE
  };
  int f, lg, mode, x, y, k;

  for (f = 0; f < (int) G_N_ELEMENTS (formats); f++)
    for (lg = 0; lg < 2; lg++)
      for (mode = 0; mode < CF_OVERLAY_CHANNELS_COUNT; mode++) {
        const CfFormatInfo *info = cf_format_info (formats[f]);
        const int bin = 37 + 50 * mode + lg, n = info->n_channels;
        const gboolean gray = n == 1;
        const guint unit = info->bits == 16 ? 257 : 1;
        CfOverlayParams s = params_default (256 + 4, 60);
        CfOverlayPlan plan;
        CfStats st = stats_empty (n);
        Frame fr;

        s.show_text = FALSE;
        s.opacity = 255;
        s.channels = mode;
        s.log_scale = lg;
        s.text_scale = 1;       /* margin 2 */
        s.inset = 1;
        for (k = 0; k < n; k++)
          st.histogram[k][bin] = 1000;
        if (gray)
          st.histogram[0][bin + 2] = 10;
        frame_init (&fr, formats[f], 300, 70, 0, 0);
        draw_cpu (&s, &fr, &st, 0, &plan);
        g_assert_cmpint (plan.hist_width, ==, 256);
        g_assert_cmpint (plan.hist_height, ==, 56);
        g_assert_cmpint (plan.hist_x, ==, 3);
        for (y = 0; y < plan.hist_height; y++)
          for (x = 0; x < plan.hist_width; x++) {
            const int fx = plan.hist_x + x, fy = plan.hist_y + y;
            /* lit: R, G, B of the expected colour */
            int rgb[3] = { 0, 0, 0 };

            if (x == bin) {
              if (gray || mode != CF_OVERLAY_CHANNELS_EACH)
                rgb[0] = rgb[1] = rgb[2] = 255;
              else              /* band c of rows 56 c / 3 .. */
                rgb[y < 18 ? 0 : y < 37 ? 1 : 2] = 255;
            } else if (x == bin + 2 && gray && lg && y >= 56 - 19) {
              rgb[0] = rgb[1] = rgb[2] = 255;
            }
            for (k = 0; k < (gray ? 1 : 3); k++)
              g_assert_cmpuint (sample_get (&fr, 0, fx, fy, k), ==,
                  (gray ? (guint) rgb[0] : (guint) rgb[k]) * unit);
          }
        frame_clear (&fr);
      }
}

/* The text draws its glyphs: a black frame (random bits outside the
 * values of 10-bit ones), transparent panel, no bars: every lit pixel of
 * the luma plane is a glyph pixel of "Y -" (and "U -", "V -") / "FPS 12.5"
 * at scale 3, white (Y 235: 940 at 10
 * bits, in P010's high bits), and the '-' is its middle row; the rest of
 * the panel keeps its value 0, now with no bits outside it, and outside the
 * panel the samples are as they were. GRAY8, P010 and I420_10LE. */
static void
test_cpu_glyphs (void)
{
  static const struct {
    CfFormat format;
    guint white;                /* the sample of a lit pixel */
  } cases[] = {
    {CF_FORMAT_GRAY8, 255}, {CF_FORMAT_P010_10LE, 940 << 6},
    {CF_FORMAT_I420_10LE, 940},
  };
  const char *gray_lines[] = { "Y -", "FPS 12.5" };
  const char *yuv_lines[] = { "Y -", "U -", "V -", "FPS 12.5" };
  GRand *rand = g_rand_new_with_seed (cf_test_seed () + 4);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const CfFormatInfo *info = cf_format_info (cases[i].format);
    const int n_lines = info->n_channels + 1;
    const char **lines = n_lines == 2 ? gray_lines : yuv_lines;
    CfOverlayParams s = params_default (200, 120);
    CfOverlayPlan plan;
    CfStats st = stats_empty (info->n_channels);
    Frame fr, orig;
    int x, y, lit = 0;

    s.opacity = 0;
    s.text_scale = 3;
    frame_init (&fr, cases[i].format, 220, 140, 0, 0);
    for (y = 0; y < fr.h[0]; y++)
      for (x = 0; x < fr.w[0]; x++)
        value_set_dirty (&fr, 0, x, y, 0, 0, rand);
    frame_copy (&fr, &orig);
    draw_cpu (&s, &fr, &st, 125, &plan);
    g_assert_cmpint (plan.text_lines, ==, n_lines);
    for (y = 0; y < fr.h[0]; y++)
      for (x = 0; x < fr.w[0]; x++) {
        const int row = (y - plan.text_y) / 3, col = (x - plan.text_x) / 3;
        guint want = x < 200 && y < 120 ? 0 : sample_get (&orig, 0, x, y, 0);

        if (y >= plan.text_y && x >= plan.text_x && row < 8 * n_lines
            && x < 200 && y < 120) {
          const char *line = lines[row / 8];
          const int ci = col / 6, gx = col % 6, gy = row % 8;

          if (ci < (int) strlen (line) && gx < 5 && gy < 7) {
            const int ch = line[ci] - 32;
            const gboolean on = plan.font[ch][gy] >> (4 - gx) & 1;

            want = on ? cases[i].white : 0;
            if (line[ci] == '-')        /* by hand: the middle row only */
              g_assert_cmpint (on, ==, gy == 3);
            if (line[ci] == '1' && gy == 0)     /* ..#.. */
              g_assert_cmpint (on, ==, gx == 2);
          }
        }
        lit += want == cases[i].white;
        g_assert_cmpuint (sample_get (&fr, 0, x, y, 0), ==, want);
      }
    g_assert_cmpint (lit, >, 100);
    frame_clear (&fr);
    frame_clear (&orig);
  }
  g_rand_free (rand);
}

/* Random frames, every format and mode: without zebra nothing outside the
 * panel changes, nor alpha or padding samples. */
static void
test_cpu_outside (void)
{
  GRand *rand = g_rand_new_with_seed (cf_test_seed () + 2);
  int f, mode, p, x, y, k;

  CF_FOR_EACH_FORMAT (f)
    for (mode = 0; mode < CF_OVERLAY_CHANNELS_COUNT; mode++) {
      const CfFormatInfo *info = cf_format_info (f);
      CfOverlayParams s = params_default (45, 41);
      CfOverlayPlan plan;
      CfStats st;
      Frame fr, orig;
      int changed = 0;

      s.channels = mode;
      s.corner = mode;
      s.inset = 5;
      s.text_scale = 1;
      frame_init (&fr, f, 67, 53, 5, 3);
      frame_random (&fr, rand);
      st = stats_of (&fr);
      frame_copy (&fr, &orig);
      draw_cpu (&s, &fr, &st, 250, &plan);
      for (p = 0; p < fr.n_planes; p++)
        for (y = 0; y < fr.h[p]; y++)
          for (x = 0; x < fr.w[p]; x++)
            for (k = 0; k < samples_per_pixel (&fr, p); k++) {
              const int c = info->plane[p].channel[k];
              const guint v = sample_get (&fr, p, x, y, k);

              if (!in_panel (&plan, f, p, x, y) || c < 0 || c == 3) {
                g_assert_cmpuint (v, ==, sample_get (&orig, p, x, y, k));
              } else {
                changed += v != sample_get (&orig, p, x, y, k);
                g_assert_cmphex (v & outside_bits (info), ==, 0);
              }
            }
      g_assert_cmpint (changed, >, 0);
      check_padding_same (&fr, &orig, "outside");
      frame_clear (&fr);
      frame_clear (&orig);
    }
  g_rand_free (rand);
}

/* The plane and sample of channel @c in a pixel of @info. */
static void
channel_at (const CfFormatInfo * info, int c, int *p, int *k)
{
  for (*p = 0; *p < info->n_planes; (*p)++)
    for (*k = 0; *k < 4; (*k)++)
      if (info->plane[*p].channel[*k] == c)
        return;
  g_assert_not_reached ();
}

/* P010 and I420_10LE frames of the same 10-bit values, each with clean
 * samples and with bits set outside every value (P010's low 6, I420_10LE's
 * high 6: never none), drawn with zebra (level and 0) and a panel of
 * background, bars and text: all four end with the same values; the clean
 * ones hold value << lsb; zebra marked exactly the pixels on a stripe of
 * value >> 2 >= the level or of value 0; the dirty ones equal the clean
 * ones where the overlay drew (the panel, the zebra marks) and keep their
 * own samples, outside bits included, everywhere else. */
static void
test_cpu_ten_bits (void)
{
  static const CfFormat formats[2] = { CF_FORMAT_P010_10LE,
    CF_FORMAT_I420_10LE
  };
  enum { W = 45, H = 31 };
  GRand *rand = g_rand_new_with_seed (cf_test_seed () + 5);
  CfOverlayParams s = params_default (29, 21);
  CfOverlayPlan plan;
  CfStats st = stats_empty (3);
  Frame fr[2][2], orig[2][2];   /* [format][dirty] */
  guint value[3][H][W];
  int f, d, c, p, k, x, y, b, marks[3] = { 0, 0, 0 };

  s.corner = CF_OVERLAY_BOTTOM_RIGHT;
  s.inset = 3;
  s.text_scale = 1;
  s.opacity = 200;
  s.channels = CF_OVERLAY_CHANNELS_EACH;
  s.zebra = TRUE;
  s.zebra_level = 150;
  s.zebra_zero = TRUE;
  for (c = 0; c < 3; c++) {
    for (b = 0; b < CF_STATS_BINS; b++)
      st.histogram[c][b] = g_rand_int_range (rand, 0, 1000);
    st.count[c] = W * H;
    st.sum[c] = 500 * W * H;
    st.min[c] = 3;
    st.max[c] = 1020;
    for (y = 0; y < H; y++)
      for (x = 0; x < W; x++)    /* a value 0 in 16 */
        value[c][y][x] = g_rand_int_range (rand, 0, 16) ?
            (guint) g_rand_int_range (rand, 1, 1024) : 0;
  }
  for (f = 0; f < 2; f++)
    for (d = 0; d < 2; d++) {
      const CfFormatInfo *info = cf_format_info (formats[f]);

      frame_init (&fr[f][d], formats[f], W, H, 5, 0);
      for (c = 0; c < 3; c++) {
        channel_at (info, c, &p, &k);
        for (y = 0; y < fr[f][d].h[p]; y++)
          for (x = 0; x < fr[f][d].w[p]; x++) {
            guint outside = 0;

            while (d && !outside)
              outside = g_rand_int (rand) & outside_bits (info);
            sample_set (&fr[f][d], p, x, y, k,
                value[c][y][x] << info->lsb | outside);
          }
      }
      frame_copy (&fr[f][d], &orig[f][d]);
      draw_cpu (&s, &fr[f][d], &st, 300, &plan);
    }

  for (f = 0; f < 2; f++) {
    const CfFormatInfo *info = cf_format_info (formats[f]);

    for (c = 0; c < 3; c++) {
      channel_at (info, c, &p, &k);
      for (y = 0; y < fr[f][0].h[p]; y++)
        for (x = 0; x < fr[f][0].w[p]; x++) {
          const guint v = value_get (&fr[0][0], p == 0 ? 0 : 1, x, y,
              p == 0 ? 0 : c - 1);
          const gboolean panel = in_panel (&plan, formats[f], p, x, y);
          const gboolean stripe = (x + y) / 4 % 2 == 0;
          const guint in = value[c][y][x];
          int mark = -1;

          if (c == 0 && stripe && in >> 2 >= 150)
            mark = CF_OVERLAY_ZEBRA_HIGH;
          else if (c == 0 && stripe && in == 0)
            mark = CF_OVERLAY_ZEBRA_ZERO;
          /* the same values in both formats, both frames */
          g_assert_cmpuint (value_get (&fr[f][0], p, x, y, k), ==, v);
          g_assert_cmpuint (value_get (&fr[f][1], p, x, y, k), ==, v);
          g_assert_cmphex (sample_get (&fr[f][0], p, x, y, k), ==,
              v << info->lsb);
          if (!panel)
            g_assert_cmpuint (v, ==, mark < 0 ? in : plan.palette[mark][0]);
          if (panel || mark >= 0)
            g_assert_cmphex (sample_get (&fr[f][1], p, x, y, k), ==,
                v << info->lsb);
          else
            g_assert_cmphex (sample_get (&fr[f][1], p, x, y, k), ==,
                sample_get (&orig[f][1], p, x, y, k));
          marks[mark < 0 ? 2 : mark - CF_OVERLAY_ZEBRA_HIGH] += f == 0
              && !panel;
        }
    }
  }
  /* both kinds of mark, and pixels left alone */
  g_assert_cmpint (marks[0], >, 0);
  g_assert_cmpint (marks[1], >, 0);
  g_assert_cmpint (marks[2], >, 0);
  for (f = 0; f < 2; f++)
    for (d = 0; d < 2; d++) {
      check_padding_same (&fr[f][d], &orig[f][d], "ten bits");
      frame_clear (&fr[f][d]);
      frame_clear (&orig[f][d]);
    }
  g_rand_free (rand);
}

#ifdef HAVE_CUDA
/* ---- CUDA against the CPU ---- */

static void
compare_one (CfFormat format, int w, int h, size_t extra, int misalign,
    const CfOverlayParams * s, int fps_x10, GRand * rand, cudaStream_t stream)
{
  CfOverlayPlan plan;
  Frame fr, want;
  Device d;
  CfStats st, *d_stats;
  char what[160];

  frame_init (&fr, format, w, h, extra, misalign);
  frame_random (&fr, rand);
  st = stats_of (&fr);
  frame_copy (&fr, &want);
  g_assert_cmpint (cf_overlay_plan_init (&plan, format, w, h, s), ==, 0);
  g_assert_cmpint (cf_overlay_cpu (&plan, &want.img, &st, fps_x10), ==, 0);
  CHECK_CUDA (cudaMalloc ((void **) &d_stats, sizeof (st)));
  CHECK_CUDA (cudaMemcpyAsync (d_stats, &st, sizeof (st),
          cudaMemcpyHostToDevice, stream));
  device_init (&fr, &d, FALSE, stream);
  CHECK_CUDA (cf_overlay_cuda (&plan, &d.img, d_stats, fps_x10, stream));
  device_finish (&d, &fr, stream);
  CHECK_CUDA (cudaFree (d_stats));
  g_snprintf (what, sizeof (what), "%s %dx%d mode %d log %d zebra %d text %d",
      cf_format_info (format)->name, w, h, s->channels, s->log_scale,
      s->zebra, s->show_text);
  check_samples (&fr, &want, what);
  /* the device copy came back whole, padding included */
  check_padding_same (&fr, &want, what);
  frame_clear (&fr);
  frame_clear (&want);
}

static void
test_cuda_matrix (void)
{
  static const int sizes[][2] = { {1, 1}, {3, 5}, {17, 9}, {64, 48},
  {333, 211}, {1280, 720}
  };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  cudaStream_t stream;
  guint z, f, mode, bits, n = 0;

  CHECK_CUDA (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  for (z = 0; z < G_N_ELEMENTS (sizes); z++)
    CF_FOR_EACH_FORMAT (f)
      for (mode = 0; mode < CF_OVERLAY_CHANNELS_COUNT; mode++)
        for (bits = 0; bits < 8; bits++) {
          const int w = sizes[z][0], h = sizes[z][1];
          CfOverlayParams s = params_default (w * 2 / 3 + 1, h * 3 / 4 + 1);

          if (w >= 1280 && bits % 3)
            continue;           /* time */
          s.channels = mode;
          s.log_scale = bits & 1;
          s.zebra = bits >> 1 & 1;
          s.show_text = bits >> 2 & 1;
          s.corner = (z + f + bits) % CF_OVERLAY_CORNER_COUNT;
          s.inset = z;
          s.opacity = (37 * (f + bits)) % 256;
          s.zebra_level = 128 + (int) bits *16;
          s.zebra_zero = f & 1;
          s.text_scale = w < 1280 ? 1 : 0;
          compare_one (f, w, h, 3 + z, (int) (f + bits) % 4, &s,
              (int) (f * 31), rand, stream);
          n++;
        }
  CHECK_CUDA (cudaStreamDestroy (stream));
  g_assert_cmpuint (n, >, 0);
  g_rand_free (rand);
}

/* Planes whose pixels are aligned words (pitches of a multiple of 64 bytes,
 * no misalignment: the 8-bit words of 1, 2 and 4 bytes, RGBA64's of 8)
 * and the same misaligned by 4 bytes (RGBA64 byte by byte into 64-bit
 * words, RGBA byte by byte), every format, zebra, text and panel on. */
static void
test_cuda_aligned (void)
{
  static const int sizes[][2] = { {1, 1}, {33, 17}, {333, 211} };
  GRand *rand = g_rand_new_with_seed (cf_test_seed () + 4);
  cudaStream_t stream;
  guint z, f, m;

  CHECK_CUDA (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  for (z = 0; z < G_N_ELEMENTS (sizes); z++)
    CF_FOR_EACH_FORMAT (f)
      for (m = 0; m < 2; m++) {
        const int w = sizes[z][0], h = sizes[z][1];
        CfOverlayParams s = params_default (w * 3 / 4 + 1, h * 2 / 3 + 1);

        s.channels = (f + z) % CF_OVERLAY_CHANNELS_COUNT;
        s.corner = (f + m) % CF_OVERLAY_CORNER_COUNT;
        s.inset = 1;
        s.opacity = 200;
        s.text_scale = 1;
        s.zebra = TRUE;
        s.zebra_level = 100 + 40 * z;
        s.zebra_zero = TRUE;
        compare_one (f, w, h, ALIGNED_PITCH, 4 * m, &s, 123, rand, stream);
      }
  CHECK_CUDA (cudaStreamDestroy (stream));
  g_rand_free (rand);
}

/* cf_stats_cuda () writes the statistics and cf_overlay_cuda () reads them
 * on the same stream, no host copy: the same as the CPU pair. */
static void
test_cuda_chain (void)
{
  GRand *rand = g_rand_new_with_seed (cf_test_seed () + 3);
  CfFormat formats[] = { CF_FORMAT_NV12, CF_FORMAT_RGBA, CF_FORMAT_GRAY16_LE,
    CF_FORMAT_P010_10LE, CF_FORMAT_RGBA64_LE
  };
  cudaStream_t stream;
  guint f;

  CHECK_CUDA (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    CfOverlayParams s = params_default (600, 300);
    CfOverlayPlan plan;
    CfStats st, *d_stats;
    Frame fr, want;
    Device d;
    void *d_ws;

    s.log_scale = f & 1;
    frame_init (&fr, formats[f], 1280, 720, ALIGNED_PITCH, 0);
    frame_random (&fr, rand);
    frame_copy (&fr, &want);
    st = stats_of (&want);
    g_assert_cmpint (cf_overlay_plan_init (&plan, formats[f], 1280, 720, &s),
        ==, 0);
    g_assert_cmpint (cf_overlay_cpu (&plan, &want.img, &st, 300), ==, 0);
    CHECK_CUDA (cudaMalloc (&d_ws, cf_stats_workspace_bytes ()));
    CHECK_CUDA (cf_stats_workspace_init (d_ws, stream));
    CHECK_CUDA (cudaMalloc ((void **) &d_stats, sizeof (CfStats)));
    device_init (&fr, &d, FALSE, stream);
    CHECK_CUDA (cf_stats_cuda (&d.img, d_ws, d_stats, stream));
    CHECK_CUDA (cf_overlay_cuda (&plan, &d.img, d_stats, 300, stream));
    device_finish (&d, &fr, stream);
    check_samples (&fr, &want, "chain");
    CHECK_CUDA (cudaFree (d_stats));
    CHECK_CUDA (cudaFree (d_ws));
    frame_clear (&fr);
    frame_clear (&want);
  }
  CHECK_CUDA (cudaStreamDestroy (stream));
  g_rand_free (rand);
}

static void
test_cuda_invalid (void)
{
  CfOverlayParams s = params_default (10, 10);
  CfOverlayPlan plan, bad;
  CfStats *d_stats;
  Frame fr;
  Device d;
  int i;

  frame_init (&fr, CF_FORMAT_I420, 32, 32, 0, 0);
  g_assert_cmpint (cf_overlay_plan_init (&plan, CF_FORMAT_I420, 32, 32, &s),
      ==, 0);
  CHECK_CUDA (cudaMalloc ((void **) &d_stats, sizeof (CfStats)));
  device_init (&fr, &d, TRUE, 0);
  for (i = 0; i < 6; i++) {
    CfImage b = d.img;

    bad_image (&b, i);
    g_assert_cmpint (cf_overlay_cuda (&plan, &b, d_stats, 0, 0), ==,
        cudaErrorInvalidValue);
  }
  g_assert_cmpint (cf_overlay_cuda (NULL, &d.img, d_stats, 0, 0), ==,
      cudaErrorInvalidValue);
  g_assert_cmpint (cf_overlay_cuda (&plan, NULL, d_stats, 0, 0), ==,
      cudaErrorInvalidValue);
  g_assert_cmpint (cf_overlay_cuda (&plan, &d.img, NULL, 0, 0), ==,
      cudaErrorInvalidValue);
  g_assert_cmpint (cf_overlay_plan_init (&bad, CF_FORMAT_COUNT, 32, 32, &s),
      ==, -1);
  g_assert_cmpint (cf_overlay_cuda (&bad, &d.img, d_stats, 0, 0), ==,
      cudaErrorInvalidValue);
  CHECK_CUDA (cudaGetLastError ());
  device_finish (&d, &fr, 0);
  for (i = 0; i < (int) (fr.img.pitch[0] * fr.h[0]); i++)
    g_assert_cmphex (((guint8 *) fr.img.data[0])[i], ==, POISON);
  CHECK_CUDA (cudaFree (d_stats));
  frame_clear (&fr);
}
#endif /* HAVE_CUDA */

/* ---- CPU: threads ---- */

typedef struct
{
  const CfOverlayPlan *plan;
  const Frame *src;
  const CfStats *stats;
} OverlayRun;

/* Draws on a copy of the source in @out. */
static int
overlay_run (int n_threads, Frame * out, gpointer data)
{
  const OverlayRun *r = data;

  g_assert_cmpint (cf_image_copy (&r->src->img, &out->img), ==, 0);
  return cf_overlay_cpu_threads (r->plan, &out->img, r->stats, 300,
      n_threads);
}

/* cf_overlay_cpu_threads () draws the same bytes for every thread count:
 * a panel over most of the picture (text, graphs, background) with and
 * without zebra over all of it, every format, odd sizes, padded and
 * misaligned rows. */
static void
test_cpu_threads (void)
{
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  guint f, s, z;

  CF_FOR_EACH_FORMAT (f)
    for (s = 0; s < G_N_ELEMENTS (cf_thread_sizes); s++)
      for (z = 0; z < 2; z++) {
        const int w = cf_thread_sizes[s][0], h = cf_thread_sizes[s][1];
        CfOverlayParams params = params_default (w - w / 4, h - h / 5);
        gchar *what = g_strdup_printf ("%s %dx%d%s", cf_format_info (f)->name,
            w, h, z ? " zebra" : "");
        CfOverlayPlan plan;
        CfStats stats;
        OverlayRun run = { &plan, NULL, &stats };
        Frame src, out;

        params.corner = s % CF_OVERLAY_CORNER_COUNT;
        params.inset = 1;
        params.text_scale = 1;
        params.zebra = z;
        params.zebra_level = 128;
        params.zebra_zero = TRUE;
        cf_thread_frame_init (&src, f, w, h, s);
        frame_random (&src, rand);
        stats = stats_of (&src);
        cf_thread_frame_init (&out, f, w, h, s + 1);
        g_assert_cmpint (cf_overlay_plan_init (&plan, f, w, h, &params), ==,
            0);
        run.src = &src;
        cf_check_thread_counts (&out, overlay_run, &run, rand, what);
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
    g_test_add_func ("/overlay/cpu/plan", test_cpu_plan);
    g_test_add_func ("/overlay/cpu/text", test_cpu_text);
    g_test_add_func ("/overlay/cpu/opacity", test_cpu_opacity);
    g_test_add_func ("/overlay/cpu/zebra", test_cpu_zebra);
    g_test_add_func ("/overlay/cpu/one-bin", test_cpu_one_bin);
    g_test_add_func ("/overlay/cpu/glyphs", test_cpu_glyphs);
    g_test_add_func ("/overlay/cpu/outside", test_cpu_outside);
    g_test_add_func ("/overlay/cpu/ten-bits", test_cpu_ten_bits);
    g_test_add_func ("/overlay/cpu/threads", test_cpu_threads);
  }
#ifdef HAVE_CUDA
  if (cf_test_want_cuda ()) {
    g_test_add_func ("/overlay/cuda/matrix", test_cuda_matrix);
    g_test_add_func ("/overlay/cuda/aligned", test_cuda_aligned);
    g_test_add_func ("/overlay/cuda/chain", test_cuda_chain);
    g_test_add_func ("/overlay/cuda/invalid", test_cuda_invalid);
  }
#endif
  return g_test_run ();
}
