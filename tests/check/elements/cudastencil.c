/* Element tests of cudastencil.
 *
 * The oracle is cf_stencil_cpu () (kernels/stencil.h) on the very input
 * frame the element got, with a plan made here from the same settings
 * (cf_stencil_preset_taps () for the presets). Every output byte of a row
 * must equal the oracle's; in the CUDA run this proves GPU == CPU through
 * the element. Also known answers worked out by hand (an impulse gives the
 * taps reversed, a box keeps a constant, the derivative of a ramp is
 * constant, every border mode at both edges of both axes), radius beyond
 * the picture, taps from launch lines (string and array), changes while
 * PLAYING, bad settings (an error at negotiation, a warning later), the
 * same settings taken and refused as by cudafilters-batch's --stencil, and
 * unsupported caps.
 *
 * The program runs once per backend (CF_TEST_BACKEND, see ../meson.build).
 * CF_TEST_SEED=N repeats a run.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <string.h>

#include "cf-check.h"
#include "cf-stencil-rules.h"
#include "stencil.h"

#define FRAME_DURATION (40 * GST_MSECOND)

static const gchar *all_formats[] = {
  "GRAY8", "GRAY16_LE", "RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR",
  "xRGB", "xBGR", "RGB", "BGR", "I420", "YV12", "NV12", "NV21", "Y444",
  "Y42B", "I420_10LE", "P010_10LE", "P016_LE", "Y444_16LE", "RGBA64_LE",
  "BGRA64_LE", "YUY2", "UYVY",
};

/* property nicks, in the kernel's enum orders */
static const gchar *directions[] = { "horizontal", "vertical", "both" };
static const gchar *borders[] = { "clamp", "mirror", "wrap", "constant" };

static const gchar *presets[] = {
  "box", "gaussian", "sharpen", "derivative", "laplacian"
};

G_STATIC_ASSERT (G_N_ELEMENTS (directions) == CF_STENCIL_DIRECTION_COUNT);
G_STATIC_ASSERT (G_N_ELEMENTS (borders) == CF_STENCIL_BORDER_COUNT);
G_STATIC_ASSERT (G_N_ELEMENTS (presets) == CF_STENCIL_PRESET_COUNT);

/* What the element is set to, as the test sees it. */
typedef struct
{
  CfStencilDirection direction;
  gint preset;                  /* CfStencilPreset, or -1: taps */
  gint radius;
  gdouble sigma, amount;
  const gchar *taps;            /* preset -1: as the property takes them */
  gboolean normalize;
  CfStencilBorder border;
  guint16 border_value[CF_MAX_CHANNELS];
  gboolean filter_alpha;
} Settings;

static GRand *prng;

static void
setup (void)
{
  prng = g_rand_new_with_seed (cf_test_seed ());
}

static void
teardown (void)
{
  g_rand_free (prng);
}

/* The properties for @s, on @e. */
static void
apply (GstElement * e, const Settings * s)
{
  gchar *bv = g_strdup_printf ("%u,%u,%u,%u", s->border_value[0],
      s->border_value[1], s->border_value[2], s->border_value[3]);

  gst_util_set_object_arg (G_OBJECT (e), "direction", directions[s->direction]);
  gst_util_set_object_arg (G_OBJECT (e), "border", borders[s->border]);
  g_object_set (e, "border-value", bv, "filter-alpha", s->filter_alpha,
      "normalize", s->normalize, "radius", s->radius, "sigma", s->sigma,
      "amount", s->amount, NULL);
  if (s->preset >= 0)
    gst_util_set_object_arg (G_OBJECT (e), "preset", presets[s->preset]);
  else
    g_object_set (e, "taps", s->taps, NULL);
  g_free (bv);
}

static GstElement *
element_new (const Settings * s)
{
  GstElement *e = cf_check_element_new ("cudastencil", NULL);

  apply (e, s);
  return e;
}

/* The plan for @s, made as the documentation says the element makes it. */
static void
plan_for (const Settings * s, CfFormat format, gint width, gint height,
    CfStencilPlan * plan)
{
  gdouble taps[CF_STENCIL_MAX_TAPS];
  CfStencilParams params = { 0, };
  CfStencilTaps axis = { 0, };

  if (s->preset >= 0) {
    fail_unless_equals_int (cf_stencil_preset_taps (s->preset, s->radius,
            s->sigma, s->amount, taps, &axis.radius, &axis.normalize), 0);
  } else {
    gchar **v = g_strsplit_set (s->taps, "<>, ", -1);
    guint i, n = 0;

    for (i = 0; v[i]; i++)
      if (v[i][0])
        taps[n++] = g_ascii_strtod (v[i], NULL);
    g_strfreev (v);
    fail_unless (n % 2 == 1);
    axis.radius = n / 2;
    axis.normalize = s->normalize;
  }
  axis.taps = taps;
  params.direction = s->direction;
  params.x = params.y = axis;
  params.border = s->border;
  memcpy (params.border_value, s->border_value, sizeof (s->border_value));
  params.filter_alpha = s->filter_alpha;
  fail_unless_equals_int (cf_stencil_plan_init (plan, format, width, height,
          &params), 0);
}

/* What the element must write for @buf (an @info frame) under @s, packed. */
static GBytes *
oracle (const GstVideoInfo * info, GstBuffer * buf, const Settings * s)
{
  GstBuffer *outbuf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame fi, fo;
  CfImage src, dst;
  CfCheckPlanar planar_src, planar_dst;
  CfStencilPlan plan;
  GBytes *b;

  gst_buffer_memset (outbuf, 0, 0xaa, info->size);
  fail_unless (gst_video_frame_map (&fi, info, buf, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, info, outbuf, GST_MAP_WRITE));
  cf_check_image_of (&fi, &src);
  cf_check_image_of (&fo, &dst);
  cf_check_planar_begin (&planar_src, &src);
  cf_check_planar_begin (&planar_dst, &dst);
  plan_for (s, src.format, src.width, src.height, &plan);
  fail_unless_equals_int (cf_stencil_cpu (&plan, &src, &dst), 0);
  cf_stencil_plan_clear (&plan);
  cf_check_planar_end (&planar_dst, &dst, TRUE);
  cf_check_planar_end (&planar_src, &src, FALSE);
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);
  b = cf_check_pack (info, outbuf);
  gst_buffer_unref (outbuf);
  return b;
}

static GstHarness *
harness_for (GstElement * e, const GstVideoInfo * info)
{
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");

  gst_object_unref (e);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (info));
  return h;
}

/* Pushes @n frames (@make_frame's, or random ones), each followed by its
 * output, which must be the oracle's for @s; the outputs keep the
 * timestamps. The CUDA backend holds frames in flight, so every output is
 * pulled after EOS. */
static void
run_frames (GstHarness * h, const GstVideoInfo * info, const Settings * s,
    guint n, GstBuffer ** frames, const gchar * what)
{
  GBytes *want[8];
  guint i;

  fail_unless (n <= G_N_ELEMENTS (want));
  for (i = 0; i < n; i++) {
    GstBuffer *buf = frames && frames[i] ? frames[i] :
        cf_check_frame_new (info, prng, i * FRAME_DURATION, FRAME_DURATION,
        FALSE);

    want[i] = oracle (info, buf, s);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < n; i++) {
    GstBuffer *out = gst_harness_try_pull (h);
    gchar *ctx = g_strdup_printf ("%s, %s %dx%d, frame %u", what,
        GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), i);

    fail_unless (out != NULL, "%s: no output", ctx);
    if (!frames || !frames[i])
      fail_unless_equals_clocktime (GST_BUFFER_PTS (out), i * FRAME_DURATION);
    cf_check_assert_frame (info, out, want[i], ctx);
    gst_buffer_unref (out);
    g_bytes_unref (want[i]);
    g_free (ctx);
  }
  fail_unless (gst_harness_try_pull (h) == NULL, "%s: too many outputs", what);
}

/* ---- against the oracle ----------------------------------------------- */

static const gint sizes[][2] = {
  {1, 1}, {33, 17}, {64, 48}, {3, 2}, {130, 5}, {7, 129},
};

/* Every format, size, direction, border and preset (each test a format;
 * the other choices rotate), random frames. */
GST_START_TEST (test_formats)
{
  const gchar *format = all_formats[__i__];
  guint k;

  for (k = 0; k < G_N_ELEMENTS (sizes) * 2; k++) {
    const guint z = k % G_N_ELEMENTS (sizes);
    Settings s = { k % CF_STENCIL_DIRECTION_COUNT, (k + __i__) %
          CF_STENCIL_PRESET_COUNT, k % 5 == 4 ? 64 : k % 3, 0.5 + k % 4, 1.5,
      NULL, TRUE, (k + __i__) % CF_STENCIL_BORDER_COUNT, {k * 37 % 256, 128,
          200, 7}, k % 2
    };
    GstVideoInfo info;
    gchar *what = g_strdup_printf ("%s %s %s radius %d",
        directions[s.direction], presets[s.preset], borders[s.border],
        s.radius);

    cf_check_set_info (&info, format, sizes[z][0], sizes[z][1]);
    if (k % 4 == 3) {
      GstBuffer *frames[2] = {
        cf_check_padded_frame_new (&info, 13, 40, prng, 0, FRAME_DURATION),
        cf_check_padded_frame_new (&info, 64, 0, prng, FRAME_DURATION,
            FRAME_DURATION),
      };
      GstHarness *h = harness_for (element_new (&s), &info);

      run_frames (h, &info, &s, 2, frames, what);
      gst_harness_teardown (h);
    } else {
      GstHarness *h = harness_for (element_new (&s), &info);

      run_frames (h, &info, &s, 3, NULL, what);
      gst_harness_teardown (h);
    }
    g_free (what);
  }
}

GST_END_TEST;

/* Custom taps of every radius class, unnormalized sums that saturate at
 * both ends (16-bit too), radius beyond the picture on every border. */
GST_START_TEST (test_custom_taps)
{
  static const struct
  {
    const gchar *format;
    gint w, h;
    const gchar *taps;
    gboolean normalize;
  } c[] = {
    {"GRAY8", 40, 30, "<-1, 3, -1>", FALSE},
    {"GRAY16_LE", 40, 30, "-1 3 -1", FALSE},
    {"RGBA", 3, 2, "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", TRUE},
    {"I420", 5, 3, "1,2,3,4,5,6,7,8,9,10,11", TRUE},
    {"NV12", 66, 34, "0.25,0,0,0,-0.5,0,0,0,2,0,0,0,-0.5,0,0,0,0.25", FALSE},
    {"BGR", 2, 9, "<1, 4, 6, 4, 1>", TRUE},
  };
  guint k, b;

  for (k = 0; k < G_N_ELEMENTS (c); k++) {
    for (b = 0; b < CF_STENCIL_BORDER_COUNT; b++) {
      Settings s = { CF_STENCIL_BOTH, -1, 0, 1, 1, c[k].taps, c[k].normalize,
        b, {30, 60, 90, 120}, FALSE
      };
      GstVideoInfo info;
      GstHarness *h;

      cf_check_set_info (&info, c[k].format, c[k].w, c[k].h);
      h = harness_for (element_new (&s), &info);
      run_frames (h, &info, &s, 2, NULL, c[k].taps);
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

/* ---- known answers ---------------------------------------------------- */

/* A GRAY8 @w x @h frame of @values (row-major), in a buffer of its own. */
static GstBuffer *
gray_frame (const GstVideoInfo * info, const guint8 * values)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame f;
  gint y;

  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  for (y = 0; y < GST_VIDEO_INFO_HEIGHT (info); y++)
    memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0),
        values + y * GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_WIDTH (info));
  gst_video_frame_unmap (&f);
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = FRAME_DURATION;
  return buf;
}

/* Pushes @in (GRAY8 @w x @h) through an element set by @launch (a launch
 * line's properties) and checks the output against @want, by hand. */
static void
check_gray (gint w, gint hh, const guint8 * in, const gchar * launch,
    const guint8 * want)
{
  gchar *desc = g_strdup_printf ("cudastencil backend=%s %s",
      cf_test_backend_name (), launch);
  GstHarness *h = gst_harness_new_parse (desc);
  GstVideoInfo info;
  GstVideoFrame f;
  GstBuffer *out;
  gint x, y;

  cf_check_set_info (&info, "GRAY8", w, hh);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  fail_unless_equals_int (gst_harness_push (h, gray_frame (&info, in)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  out = gst_harness_try_pull (h);
  fail_unless (out != NULL, "%s: no output", desc);
  fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  for (y = 0; y < hh; y++)
    for (x = 0; x < w; x++) {
      guint got = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x];

      if (got != want[y * w + x])
        fail ("%s: (%d, %d) is %u, want %u", desc, x, y, got, want[y * w + x]);
    }
  gst_video_frame_unmap (&f);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (desc);
}

/* An impulse comes out as the taps in reverse order (a correlation). */
GST_START_TEST (test_impulse)
{
  static const guint8 row[9] = { 0, 0, 0, 0, 40, 0, 0, 0, 0 };
  static const guint8 row_out[9] = { 0, 0, 0, 120, 80, 40, 0, 0, 0 };
  static const guint8 col_out[9] = { 0, 0, 0, 0, 160, 80, 20, 0, 0 };

  check_gray (9, 1, row, "direction=horizontal normalize=false "
      "taps=\"1,2,3\"", row_out);
  /* along a column, and with taps in array form */
  check_gray (1, 9, row, "direction=vertical normalize=false "
      "taps=\"<0.5, 2, 4, 0, 0>\"", col_out);
}

GST_END_TEST;

/* @buf's samples as the format holds values: a 10-bit value's sample with
 * the bits around the value 0, as the element writes them. */
static void
clean_samples (const GstVideoInfo * info, GstBuffer * buf)
{
  const CfFormat cf = cf_format_from_name (GST_VIDEO_INFO_NAME (info));
  const CfFormatInfo *fi = cf_format_info (cf);
  GstMapInfo map;
  guint p;

  if (fi->depth != 16 || fi->bits == 16)
    return;
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    const gsize row = cf_plane_row_bytes (cf, p, GST_VIDEO_INFO_WIDTH (info));
    const gint rows = cf_plane_height (cf, p, GST_VIDEO_INFO_HEIGHT (info));

    for (gint y = 0; y < rows; y++) {
      guint8 *r = map.data + GST_VIDEO_INFO_PLANE_OFFSET (info, p) +
          (gsize) y * GST_VIDEO_INFO_PLANE_STRIDE (info, p);

      for (gsize x = 0; x + 1 < row; x += 2) {
        const guint v = CF_VALUE_SAMPLE (CF_SAMPLE_VALUE (r[x] | r[x + 1] << 8,
                fi->bits, fi->lsb), fi->lsb);

        r[x] = v & 0xff;
        r[x + 1] = v >> 8;
      }
    }
  }
  gst_buffer_unmap (buf, &map);
}

/* A box filter keeps a constant frame constant, every format, however far
 * the radius reaches beyond the picture (border constant aside). */
GST_START_TEST (test_box_constant)
{
  const gchar *format = all_formats[__i__];
  static const gint size[][3] = { {33, 17, 5}, {4, 3, 64}, {1, 1, 8} };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (size); k++) {
    Settings s = { CF_STENCIL_BOTH, CF_STENCIL_PRESET_BOX, size[k][2], 1, 1,
      NULL, TRUE, k % 3, {0,}, FALSE
    };
    GstVideoInfo info;
    GstHarness *h;
    GstBuffer *buf;
    GstMapInfo map;
    GBytes *in;
    guint8 v = g_rand_int (prng);

    cf_check_set_info (&info, format, size[k][0], size[k][1]);
    buf = gst_buffer_new_allocate (NULL, info.size, NULL);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
    memset (map.data, v, map.size);
    gst_buffer_unmap (buf, &map);
    clean_samples (&info, buf);
    GST_BUFFER_PTS (buf) = 0;
    in = cf_check_pack (&info, buf);
    h = harness_for (element_new (&s), &info);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    buf = gst_harness_try_pull (h);
    fail_unless (buf != NULL);
    cf_check_assert_frame (&info, buf, in, "box on a constant");
    gst_buffer_unref (buf);
    g_bytes_unref (in);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* The derivative of a ramp rising by 2 per sample is 2 inside (half the
 * central difference over 2 samples), 1 at clamped edges and 0 at mirrored
 * ones, by hand. */
GST_START_TEST (test_derivative_ramp)
{
  guint8 in[16 * 3], want_h[16 * 3], want_v[3 * 16];
  gint x, y;

  for (y = 0; y < 3; y++)
    for (x = 0; x < 16; x++) {
      in[y * 16 + x] = 10 + 2 * x;
      /* inside (in[x+1] - in[x-1]) / 2 = 2; clamped edges: (2 - 0) / 2 = 1 */
      want_h[y * 16 + x] = x == 0 || x == 15 ? 1 : 2;
    }
  check_gray (16, 3, in, "direction=horizontal preset=derivative "
      "border=clamp", want_h);
  /* the same ramp down a column; mirror edges: in[-1] = in[1], so 0 */
  for (y = 0; y < 16; y++)
    for (x = 0; x < 3; x++) {
      in[y * 3 + x] = 10 + 2 * y;
      want_v[y * 3 + x] = y == 0 || y == 15 ? 0 : 2;
    }
  check_gray (3, 16, in, "direction=vertical preset=derivative border=mirror",
      want_v);
}

GST_END_TEST;

/* Every border mode at both edges of both axes, by hand: taps that pick
 * the sample two before (then two after) give the extension itself. */
GST_START_TEST (test_borders_by_hand)
{
  static const guint8 in[5] = { 10, 20, 30, 40, 50 };
  static const struct
  {
    const gchar *border;
    guint8 before[5], after[5];
  } c[] = {
    {"clamp", {10, 10, 10, 20, 30}, {30, 40, 50, 50, 50}},
    {"mirror", {30, 20, 10, 20, 30}, {30, 40, 50, 40, 30}},
    {"wrap", {40, 50, 10, 20, 30}, {30, 40, 50, 10, 20}},
    {"constant border-value=7", {7, 7, 10, 20, 30}, {30, 40, 50, 7, 7}},
  };
  guint k, axis;

  for (k = 0; k < G_N_ELEMENTS (c); k++)
    for (axis = 0; axis < 2; axis++) {
      gchar *before = g_strdup_printf ("direction=%s normalize=false "
          "taps=\"1,0,0,0,0\" border=%s", axis ? "vertical" : "horizontal",
          c[k].border);
      gchar *after = g_strdup_printf ("direction=%s normalize=false "
          "taps=\"0 0 0 0 1\" border=%s", axis ? "vertical" : "horizontal",
          c[k].border);

      check_gray (axis ? 1 : 5, axis ? 5 : 1, in, before, c[k].before);
      check_gray (axis ? 1 : 5, axis ? 5 : 1, in, after, c[k].after);
      g_free (before);
      g_free (after);
    }
}

GST_END_TEST;

/* Alpha is copied unless filter-alpha is set (by hand, not the oracle). */
GST_START_TEST (test_alpha)
{
  static const gchar *formats[] = { "RGBA", "ARGB", "BGRA", "ABGR" };
  guint k;

  for (k = 0; k < 2 * G_N_ELEMENTS (formats); k++) {
    Settings s = { CF_STENCIL_BOTH, CF_STENCIL_PRESET_GAUSSIAN, 3, 2, 1, NULL,
      TRUE, CF_STENCIL_MIRROR, {0,}, k % 2
    };
    GstVideoInfo info;
    GstVideoFrame fi, fo;
    GstHarness *h;
    GstBuffer *in, *out;
    gint x, y, changed = 0;

    cf_check_set_info (&info, formats[k / 2], 21, 11);
    in = cf_check_frame_new (&info, prng, 0, FRAME_DURATION, FALSE);
    h = harness_for (element_new (&s), &info);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    out = gst_harness_try_pull (h);
    fail_unless (out != NULL);
    fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_READ));
    for (y = 0; y < 11; y++)
      for (x = 0; x < 21; x++) {
        const guint8 *a = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (&fi,
            GST_VIDEO_COMP_A) + y * GST_VIDEO_FRAME_COMP_STRIDE (&fi,
            GST_VIDEO_COMP_A) + 4 * x;
        const guint8 *b = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (&fo,
            GST_VIDEO_COMP_A) + y * GST_VIDEO_FRAME_COMP_STRIDE (&fo,
            GST_VIDEO_COMP_A) + 4 * x;

        changed += *a != *b;
      }
    if (s.filter_alpha)
      fail_unless (changed > 21 * 11 / 2, "%s: alpha not filtered",
          formats[k / 2]);
    else
      fail_unless_equals_int (changed, 0);
    gst_video_frame_unmap (&fo);
    gst_video_frame_unmap (&fi);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* ---- properties and bad input ------------------------------------------ */

/* Taps from launch lines: string and array forms give the same filter, and
 * setting taps selects preset custom. */
GST_START_TEST (test_launch_taps)
{
  static const gchar *forms[] = {
    "taps=\"1,2,1\"", "taps=\"<1, 2, 1>\"", "taps=\"1 2 1\"",
    "preset=box taps=\"<1.0,2.0,1.0>\"",
  };
  Settings s = { CF_STENCIL_BOTH, -1, 0, 1, 1, "1,2,1", TRUE,
    CF_STENCIL_MIRROR, {0,}, FALSE
  };
  GstVideoInfo info;
  GstBuffer *in;
  GBytes *want;
  guint k;

  cf_check_set_info (&info, "RGB", 31, 9);
  in = cf_check_frame_new (&info, prng, 0, FRAME_DURATION, FALSE);
  want = oracle (&info, in, &s);
  for (k = 0; k < G_N_ELEMENTS (forms); k++) {
    gchar *desc = g_strdup_printf ("cudastencil backend=%s %s",
        cf_test_backend_name (), forms[k]);
    GstHarness *h = gst_harness_new_parse (desc);
    GstElement *e = gst_harness_find_element (h, "cudastencil");
    GstBuffer *out;
    gchar *taps;
    gint preset;

    g_object_get (e, "taps", &taps, "preset", &preset, NULL);
    fail_unless (taps != NULL && strchr (taps, '2') != NULL, "%s", desc);
    fail_unless_equals_int (preset, CF_STENCIL_PRESET_COUNT);   /* custom */
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    out = gst_harness_try_pull (h);
    fail_unless (out != NULL);
    cf_check_assert_frame (&info, out, want, desc);
    gst_buffer_unref (out);
    gst_object_unref (e);
    g_free (taps);
    g_free (desc);
    gst_harness_teardown (h);
  }
  g_bytes_unref (want);
  gst_buffer_unref (in);
}

GST_END_TEST;

/* A property changed while PLAYING takes effect from the next frame on
 * (frames already pushed keep the filter they were pushed under). */
GST_START_TEST (test_change_while_playing)
{
  Settings s[3] = {
    {CF_STENCIL_BOTH, CF_STENCIL_PRESET_GAUSSIAN, 0, 1, 1, NULL, TRUE,
        CF_STENCIL_MIRROR, {0,}, FALSE},
    {CF_STENCIL_HORIZONTAL, CF_STENCIL_PRESET_SHARPEN, 4, 2, 3, NULL, TRUE,
        CF_STENCIL_CLAMP, {0,}, FALSE},
    {CF_STENCIL_VERTICAL, -1, 0, 1, 1, "<1, -1, 3>", TRUE,
        CF_STENCIL_CONSTANT, {200, 200, 200, 200}, FALSE},
  };
  GstVideoInfo info;
  GstHarness *h;
  GBytes *want[6];
  guint i;

  cf_check_set_info (&info, "I420", 45, 27);
  h = harness_for (element_new (&s[0]), &info);
  for (i = 0; i < 6; i++) {
    GstBuffer *buf = cf_check_frame_new (&info, prng, i * FRAME_DURATION,
        FRAME_DURATION, FALSE);

    if (i % 2 == 0)
      apply (h->element, &s[i / 2]);
    want[i] = oracle (&info, buf, &s[i / 2]);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < 6; i++) {
    GstBuffer *out = gst_harness_try_pull (h);
    gchar *what = g_strdup_printf ("frame %u", i);

    fail_unless (out != NULL);
    cf_check_assert_frame (&info, out, want[i], what);
    g_bytes_unref (want[i]);
    gst_buffer_unref (out);
    g_free (what);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Radii above 8 (on CUDA: the two-pass tensor-core kernels, whose
 * workspace each frame slot grows when a plan needs more): gaussian blurs
 * of radius 9, 64, 24 and 40 (sigma a third of it) changed while PLAYING, frames in flight
 * across each change, on 8-bit formats of 1, 2 and 4-byte pixels. */
GST_START_TEST (test_long_radius)
{
  static const gchar *formats[] = { "RGBA", "NV12", "GRAY8" };
  static const gint radii[] = { 9, 64, 24, 40 };
  const gchar *format = formats[__i__];
  GstVideoInfo info;
  GstHarness *h;
  GBytes *want[8];
  Settings s = { CF_STENCIL_BOTH, CF_STENCIL_PRESET_GAUSSIAN, 9, 3, 1, NULL,
    TRUE, (CfStencilBorder) (__i__ % CF_STENCIL_BORDER_COUNT), {0,}, FALSE
  };
  guint i;

  cf_check_set_info (&info, format, 320, 180);
  h = harness_for (element_new (&s), &info);
  for (i = 0; i < 8; i++) {
    GstBuffer *buf = cf_check_frame_new (&info, prng, i * FRAME_DURATION,
        FRAME_DURATION, FALSE);

    if (i % 2 == 0) {
      s.radius = radii[i / 2];
      s.sigma = radii[i / 2] / 3.0;
      apply (h->element, &s);
    }
    want[i] = oracle (&info, buf, &s);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < 8; i++) {
    GstBuffer *out = gst_harness_try_pull (h);
    gchar *what = g_strdup_printf ("%s radius %d frame %u", format,
        radii[i / 2], i);

    fail_unless (out != NULL, "%s: no output", what);
    cf_check_assert_frame (&info, out, want[i], what);
    g_bytes_unref (want[i]);
    gst_buffer_unref (out);
    g_free (what);
  }
  fail_unless (gst_harness_try_pull (h) == NULL);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The first ERROR or WARNING message on @bus (NULL when none). */
static GstMessage *
pop_problem (GstBus * bus)
{
  return gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
}

/* Settings that make no filter: an error naming the cause at negotiation,
 * nothing pushed on; changed while PLAYING, a warning, and the previous
 * filter goes on. */
GST_START_TEST (test_bad_settings)
{
  static const struct
  {
    const gchar *prop, *value, *cause;
  } bad[] = {
    {"taps", "1,2", "odd number"},
    {"taps", "1,x,1", "not a number"},
    {"taps", "<1,-1,0>", "sum to 0"},
    /* divided by an infinite sum, these were the filter 0, 0, 1 */
    {"taps", "1e308,1e308,1e308", "overflows"},
    {"border-value", "300", "border-value"},
    {"border-value", "1,2,3,4,5", "border-value"},
  };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (bad); k++) {
    Settings good = { CF_STENCIL_BOTH, CF_STENCIL_PRESET_BOX, 2, 1, 1, NULL,
      TRUE, g_str_equal (bad[k].prop, "border-value") ? CF_STENCIL_CONSTANT :
          CF_STENCIL_MIRROR, {0,}, FALSE
    };
    GstBus *bus = gst_bus_new ();
    GstVideoInfo info;
    GstHarness *h;
    GstMessage *msg;
    GError *err = NULL;
    gchar *debug = NULL;
    GstBuffer *buf, *out;
    GBytes *want;

    cf_check_set_info (&info, "GRAY8", 16, 8);
    /* at negotiation */
    h = gst_harness_new_with_element (element_new (&good), "sink", "src");
    gst_object_unref (h->element);
    gst_element_set_bus (h->element, bus);
    gst_util_set_object_arg (G_OBJECT (h->element), bad[k].prop, bad[k].value);
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
    buf = cf_check_frame_new (&info, prng, 0, FRAME_DURATION, FALSE);
    fail_if (gst_harness_push (h, buf) == GST_FLOW_OK, "%s=%s accepted",
        bad[k].prop, bad[k].value);
    msg = pop_problem (bus);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR,
        "%s=%s: no error message", bad[k].prop, bad[k].value);
    gst_message_parse_error (msg, &err, &debug);
    fail_unless (g_error_matches (err, GST_LIBRARY_ERROR,
            GST_LIBRARY_ERROR_SETTINGS));
    fail_unless (strstr (debug, bad[k].cause) != NULL, "\"%s\" lacks \"%s\"",
        debug, bad[k].cause);
    g_clear_error (&err);
    g_clear_pointer (&debug, g_free);
    gst_message_unref (msg);
    /* once, however often upstream tries the caps again */
    fail_unless_equals_int (gst_harness_push (h, cf_check_frame_new (&info,
                prng, FRAME_DURATION, FRAME_DURATION, FALSE)),
        GST_FLOW_NOT_NEGOTIATED);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (msg == NULL, "%s=%s: the error came twice", bad[k].prop,
        bad[k].value);
    gst_element_set_bus (h->element, NULL);
    gst_harness_teardown (h);
    gst_object_unref (bus);

    /* while playing */
    bus = gst_bus_new ();
    h = gst_harness_new_with_element (element_new (&good), "sink", "src");
    gst_object_unref (h->element);
    gst_element_set_bus (h->element, bus);
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
    buf = cf_check_frame_new (&info, prng, 0, FRAME_DURATION, FALSE);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    gst_util_set_object_arg (G_OBJECT (h->element), bad[k].prop, bad[k].value);
    buf = cf_check_frame_new (&info, prng, FRAME_DURATION, FRAME_DURATION,
        FALSE);
    want = oracle (&info, buf, &good);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    msg = pop_problem (bus);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING,
        "%s=%s while playing: no warning", bad[k].prop, bad[k].value);
    gst_message_parse_warning (msg, &err, &debug);
    fail_unless (strstr (debug, bad[k].cause) != NULL);
    g_clear_error (&err);
    g_free (debug);
    gst_message_unref (msg);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    gst_buffer_unref (gst_harness_pull (h));
    out = gst_harness_pull (h);
    cf_check_assert_frame (&info, out, want, "after a bad change");
    gst_buffer_unref (out);
    g_bytes_unref (want);
    gst_element_set_bus (h->element, NULL);
    gst_harness_teardown (h);
    gst_object_unref (bus);
  }
}

GST_END_TEST;


/* Sets @e as --stencil @spec says: PRESET or taps=LIST, then ':' and
 * KEY=VALUE pairs separated by commas, an item without '=' continuing the
 * value before it (a list). A value the property refuses (as
 * gst_util_set_object_arg () would, with a warning) is not set: its name
 * is returned (free with g_free ()); NULL when every value was taken. */
static gchar *
apply_spec (GstElement * e, const gchar * spec)
{
  const gchar *colon = strchr (spec, ':');
  gchar *head = colon ? g_strndup (spec, colon - spec) : g_strdup (spec);
  gchar **items = g_strsplit (colon ? colon + 1 : "", ",", -1);
  GPtrArray *pairs = g_ptr_array_new_with_free_func (g_free);
  gchar *refused = NULL;
  guint i;

  g_ptr_array_add (pairs, strchr (head, '=') ? g_strdup (head) :
      g_strconcat ("preset=", head, NULL));
  for (i = 0; items[i]; i++) {
    GString *pair = g_string_new (items[i]);

    while (items[i + 1] && !strchr (items[i + 1], '='))
      g_string_append_printf (pair, ",%s", items[++i]);
    g_ptr_array_add (pairs, g_string_free (pair, FALSE));
  }
  for (i = 0; i < pairs->len && !refused; i++) {
    gchar **kv = g_strsplit (g_ptr_array_index (pairs, i), "=", 2);
    GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        kv[0]);
    GValue v = G_VALUE_INIT;

    fail_unless (pspec != NULL && kv[1] != NULL, "%s: %s", spec, kv[0]);
    g_value_init (&v, pspec->value_type);
    /* what gst-launch-1.0 does with a property's text: deserialize it,
     * and GObject keeps the old value when it is out of range */
    if (!gst_value_deserialize (&v, kv[1]) || g_param_value_validate (pspec,
            &v))
      refused = g_strdup (kv[0]);
    else
      g_object_set_property (G_OBJECT (e), kv[0], &v);
    g_value_unset (&v);
    g_strfreev (kv);
  }
  g_ptr_array_unref (pairs);
  g_strfreev (items);
  g_free (head);
  return refused;
}

/* The rules cudastencil shares with cudafilters-batch's --stencil
 * (cf-stencil-rules.h), each row set as properties and negotiated as
 * GRAY16_LE: @cause is the property that refuses its value, or words of
 * the reason negotiation gives. */
GST_START_TEST (test_stencil_rules)
{
  const gchar *spec = cf_stencil_rules[__i__].spec;
  const gchar *cause = cf_stencil_rules[__i__].cause;
  GstElement *e = cf_check_element_new ("cudastencil", NULL);
  gchar *refused = apply_spec (e, spec);
  GstBus *bus;
  GstVideoInfo info;
  GstHarness *h;
  GstMessage *msg;
  GError *err = NULL;
  gchar *debug = NULL;
  GstFlowReturn ret;

  if (refused) {
    fail_unless (cause != NULL, "%s: %s refused", spec, refused);
    fail_unless_equals_string (refused, cause);
    g_free (refused);
    gst_object_unref (e);
    return;
  }
  bus = gst_bus_new ();
  cf_check_set_info (&info, "GRAY16_LE", 16, 8);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  ret = gst_harness_push (h, cf_check_frame_new (&info, prng, 0,
          FRAME_DURATION, FALSE));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (!cause) {
    fail_unless_equals_int (ret, GST_FLOW_OK);
    fail_unless (msg == NULL, "%s: an error", spec);
  } else {
    fail_if (ret == GST_FLOW_OK, "%s accepted", spec);
    fail_unless (msg != NULL, "%s: no error message", spec);
    gst_message_parse_error (msg, &err, &debug);
    fail_unless (strstr (debug, cause) != NULL, "%s: \"%s\" lacks \"%s\"",
        spec, debug, cause);
    g_clear_error (&err);
    g_free (debug);
  }
  g_clear_pointer (&msg, gst_message_unref);
  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
  gst_object_unref (bus);
}

GST_END_TEST;

/* border-value is read by border constant only: a value out of range (or
 * no list at all) with another border filters as if it were not set. */
GST_START_TEST (test_border_value_unused)
{
  static const gchar *values[] = { "300", "1,x" };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (values); k++) {
    Settings s = { CF_STENCIL_BOTH, CF_STENCIL_PRESET_GAUSSIAN, 2, 1, 1, NULL,
      TRUE, CF_STENCIL_WRAP, {0,}, FALSE
    };
    GstVideoInfo info;
    GstHarness *h;

    cf_check_set_info (&info, "GRAY8", 19, 7);
    h = harness_for (element_new (&s), &info);
    g_object_set (h->element, "border-value", values[k], NULL);
    run_frames (h, &info, &s, 2, NULL, values[k]);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Formats the kernels do not have fail negotiation cleanly. */
GST_START_TEST (test_unsupported_caps)
{
  static const gchar *caps[] = {
    "video/x-raw,format=v210,width=16,height=8,framerate=30/1",
    "video/x-raw,format=v210,width=48,height=8,framerate=30/1",
    "video/x-raw(memory:GLMemory),format=RGBA,width=16,height=8",
  };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (caps); k++)
    cf_check_refuses_caps ("cudastencil", caps[k]);
}

GST_END_TEST;

/* The CPU backend writes the same bytes for every n-threads: each
 * direction, radius 5 and 1, every border mode on the way, packed 4:2:2
 * and 10-bit formats, odd sizes, padded rows. */
static const struct
{
  const gchar *caps;
  const gchar *const props[9];
} n_threads_cases[] = {
  {"video/x-raw,format=RGBA,width=321,height=243,framerate=30/1",
      {"preset", "gaussian", "radius", "5", "direction", "both", "border",
          "mirror", NULL}},
  {"video/x-raw,format=I420,width=99,height=37,framerate=30/1",
      {"preset", "sharpen", "direction", "vertical", "border", "wrap", NULL}},
  {"video/x-raw,format=YUY2,width=77,height=31,framerate=30/1",
      {"preset", "box", "radius", "5", "direction", "horizontal", NULL}},
  {"video/x-raw,format=P010_10LE,width=64,height=50,framerate=30/1",
      {"preset", "laplacian", "direction", "both", "border", "constant",
          NULL}},
};

GST_START_TEST (test_n_threads)
{
  cf_check_n_threads ("cudastencil", n_threads_cases[__i__].props,
      n_threads_cases[__i__].caps, NULL, 3, NULL, prng);
}

GST_END_TEST;

static Suite *
cudastencil_suite (void)
{
  Suite *s = suite_create ("cudastencil");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_loop_test (tc, test_formats, 0, G_N_ELEMENTS (all_formats));
  tcase_add_test (tc, test_custom_taps);
  tcase_add_test (tc, test_impulse);
  tcase_add_loop_test (tc, test_box_constant, 0, G_N_ELEMENTS (all_formats));
  tcase_add_test (tc, test_derivative_ramp);
  tcase_add_test (tc, test_borders_by_hand);
  tcase_add_test (tc, test_alpha);
  tcase_add_test (tc, test_launch_taps);
  tcase_add_test (tc, test_change_while_playing);
  tcase_add_loop_test (tc, test_long_radius, 0, 3);
  tcase_add_test (tc, test_bad_settings);
  tcase_add_loop_test (tc, test_stencil_rules, 0,
      G_N_ELEMENTS (cf_stencil_rules));
  tcase_add_test (tc, test_border_value_unused);
  tcase_add_test (tc, test_unsupported_caps);
  if (!cf_test_want_cuda ())
    tcase_add_loop_test (tc, test_n_threads, 0,
        G_N_ELEMENTS (n_threads_cases));
  return s;
}

int
main (int argc, char **argv)
{
  cf_test_require_backend ();
  gst_check_init (&argc, &argv);
  cf_test_seed ();
  return gst_check_run_suite (cudastencil_suite (), "cudastencil", __FILE__);
}
