/* Element tests of cudaresize.
 *
 * The oracle is cf_resize_cpu () (kernels/resize.h) on the very input frame
 * the element got, with a plan made by cf_resize_plan_init () for the same
 * format, method, sizes and chroma siting (the input caps' chroma-site),
 * written into the picture rectangle of an output frame whose borders are
 * the format's black, set here by hand. Every output byte of a row must
 * equal the oracle's (padding bytes inside a pixel, such as the x of RGBx,
 * too); in the CUDA run this proves GPU == CPU through the element. Also:
 * known answers (constant frames, nearest and area at 2x), passthrough,
 * borders, caps fixation, renegotiation, state cycles, unsupported caps,
 * frames in flight and allocation.
 *
 * The program runs once per backend (CF_TEST_BACKEND, see ../meson.build):
 * every element made here gets backend=cf_test_backend_name ().
 * CF_TEST_SEED=N repeats a run.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <string.h>

#include "cf-check.h"
#include "fill.h"
#include "resize.h"

#define FRAME_DURATION (40 * GST_MSECOND)
#define MAX_SENT 24

/* nicks of the method property, in CfResizeMethod order */
static const gchar *methods[] = {
  "nearest", "bilinear", "bicubic", "lanczos", "area"
};

G_STATIC_ASSERT (G_N_ELEMENTS (methods) == CF_RESIZE_METHOD_COUNT);

static const gchar *all_formats[] = {
  "GRAY8", "GRAY16_LE", "RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR",
  "xRGB", "xBGR", "RGB", "BGR", "I420", "YV12", "NV12", "NV21", "Y444",
  /* one of each new layout (the kernel tests have every format) */
  "Y42B", "I420_10LE", "P010_10LE", "RGBA64_LE", "YUY2", "UYVY",
};

/* What the element must give back for one pushed buffer. */
typedef struct
{
  GstClockTime pts, dts, duration;
  GstVideoInfo out;
  GBytes *want;                 /* the oracle's rows, packed (see cf_check_pack ()) */
} Sent;

/* Per test (see setup ()): the random source and what was pushed. */
static GRand *prng;
static Sent sent[MAX_SENT];
static gchar context[128];      /* named by failures of check_output () */

static void
setup (void)
{
  prng = g_rand_new_with_seed (cf_test_seed ());
  memset (sent, 0, sizeof (sent));
  context[0] = 0;
}

static void
teardown (void)
{
  guint i;

  for (i = 0; i < MAX_SENT; i++)
    g_clear_pointer (&sent[i].want, g_bytes_unref);
  g_rand_free (prng);
}

/* ---- elements and frames ---------------------------------------------- */

/* The CUDA context of the first element that made one in this process
 * (GStreamer's "gst.cuda.context", which the element keeps on itself), set
 * on every later element of harness_for (): the size matrix starts 11
 * harnesses a loop iteration, which would otherwise make a context each, as
 * a pipeline's elements share one. NULL on the CPU backend. Held until the
 * process ends: with check's default fork, one loop iteration; with
 * CK_FORK=no, the later tests' elements get it too. */
static GstContext *shared_cuda;

static void
keep_context (GstHarness * h)
{
  if (!shared_cuda)
    shared_cuda = gst_element_get_context (h->element, "gst.cuda.context");
}

/* A harness around @e (the harness takes it over): downstream answers caps
 * queries with @sink_caps (printf-style; NULL: any system memory caps),
 * then upstream
 * sends @in's caps (when given). */
static GstHarness *
harness_for (GstElement * e, const GstVideoInfo * in, const gchar * sink_caps,
    ...)
{
  GstHarness *h;
  va_list args;

  if (shared_cuda)
    gst_element_set_context (e, shared_cuda);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  if (sink_caps) {
    gchar *str;

    va_start (args, sink_caps);
    str = g_strdup_vprintf (sink_caps, args);
    va_end (args);
    gst_harness_set_sink_caps_str (h, str);
    g_free (str);
  } else {
    /* the system memory path (CUDA memory out is cudamemory.c's) */
    gst_harness_set_sink_caps_str (h, "video/x-raw");
  }
  if (in)
    gst_harness_set_src_caps (h, gst_video_info_to_caps (in));
  return h;
}

/* for harness_for (): format, width, height, PAR n and d fixed */
#define FIXED "video/x-raw,format=%s,width=%d,height=%d," \
    "pixel-aspect-ratio=%d/%d"

static gboolean
is_420 (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_N_COMPONENTS (info) > 1 &&
      GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, 1) > 0;
}

/* Chroma siting @k (of 4: centred, h-cosited, v-cosited, both) on 4:2:0
 * formats; others keep theirs. */
static void
set_site (GstVideoInfo * info, guint k)
{
  static const GstVideoChromaSite site[] = { GST_VIDEO_CHROMA_SITE_JPEG,
    GST_VIDEO_CHROMA_SITE_MPEG2, GST_VIDEO_CHROMA_SITE_V_COSITED,
    GST_VIDEO_CHROMA_SITE_COSITED
  };

  if (is_420 (info))
    GST_VIDEO_INFO_CHROMA_SITE (info) = site[k % G_N_ELEMENTS (site)];
}

/* Every pixel of @f the format's black, by hand: R G B and gray 0, alpha
 * 255, Y 16, U V 128; bytes of no component (the x of RGBx) are left as
 * they are (0xff, see oracle ()). */
static void
fill_black (GstVideoFrame * f)
{
  const gboolean yuv = GST_VIDEO_INFO_IS_YUV (&f->info);
  guint c;
  gint x, y;

  for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (f); c++) {
    guint v = yuv ? (c == 0 ? 16 : 128) : (c == GST_VIDEO_COMP_A ? 255 : 0);
    gboolean deep = GST_VIDEO_FRAME_COMP_DEPTH (f, c) > 8;

    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (f, c); y++) {
      guint8 *row = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, c) +
          y * GST_VIDEO_FRAME_COMP_STRIDE (f, c);

      for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (f, c); x++) {
        guint8 *s = row + x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);

        s[0] = v & 0xff;
        if (deep)
          s[1] = v >> 8;
      }
    }
  }
}

static gint
round_div (gint64 a, gint64 b)
{
  return (gint) ((2 * a + b) / (2 * b));        /* half up */
}

/* Where the picture goes, by the documented rules: all of the output; with
 * add-borders and a display aspect ratio that the output does not keep, the
 * largest centred rectangle that keeps it (rounded half up), with whole
 * chroma samples on 4:2:0 (even sizes and offsets), within the frame. */
static CfRect
inner_rect (const GstVideoInfo * in, const GstVideoInfo * out,
    gboolean add_borders)
{
  const gint64 ow = GST_VIDEO_INFO_WIDTH (out), oh =
      GST_VIDEO_INFO_HEIGHT (out);
  /* the picture is n / d as wide as high, in output pixels */
  const gint64 n = (gint64) GST_VIDEO_INFO_WIDTH (in) * GST_VIDEO_INFO_PAR_N
      (in) * GST_VIDEO_INFO_PAR_D (out);
  const gint64 d = (gint64) GST_VIDEO_INFO_HEIGHT (in) * GST_VIDEO_INFO_PAR_D
      (in) * GST_VIDEO_INFO_PAR_N (out);
  const gint a = is_420 (out) ? 1 : 0;
  CfRect r = { 0, 0, ow, oh };

  if (!add_borders || n * oh == d * ow)
    return r;
  if (n * oh > d * ow)
    r.height = round_div (ow * d, n);
  else
    r.width = round_div (oh * n, d);
  r.width = MIN (ow, MAX (a + 1, r.width & ~a));
  r.height = MIN (oh, MAX (a + 1, r.height & ~a));
  r.x = ((ow - r.width) / 2) & ~a;
  r.y = ((oh - r.height) / 2) & ~a;
  return r;
}

/* The oracle: what the element must write into an @out frame for @inbuf
 * (an @in frame), packed. */
static gboolean oracle_antialias = TRUE;        /* the element's antialias */

static GBytes *
oracle (const GstVideoInfo * in, GstBuffer * inbuf, const GstVideoInfo * out,
    CfResizeMethod method, gboolean add_borders)
{
  const CfRect r = inner_rect (in, out, add_borders);
  const GstVideoChromaSite site = GST_VIDEO_INFO_CHROMA_SITE (in);
  GstBuffer *outbuf = gst_buffer_new_allocate (NULL, out->size, NULL);
  GstVideoFrame fi, fo;
  CfImage src, dst, view;
  CfCheckPlanar planar_src, planar_dst;
  GstVideoCropMeta *crop;
  CfResizePlan plan;
  GBytes *b;

  /* the same caps and no crop: the element passes the buffer through
   * untouched, every bit of it, even those around a P010 value that a
   * resize would clear */
  if (!gst_buffer_get_video_crop_meta (inbuf)
      && gst_video_info_is_equal (in, out)) {
    gst_buffer_unref (outbuf);
    return cf_check_pack (in, inbuf);
  }
  gst_buffer_memset (outbuf, 0, 0xff, out->size);
  fail_unless (gst_video_frame_map (&fi, in, inbuf, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, out, outbuf, GST_MAP_WRITE));
  fill_black (&fo);
  cf_check_image_of (&fi, &src);
  cf_check_image_of (&fo, &dst);
  cf_check_planar_begin (&planar_src, &src);
  cf_check_planar_begin (&planar_dst, &dst);
  /* the element scales the crop (the tests crop on whole chroma samples) */
  crop = gst_buffer_get_video_crop_meta (inbuf);
  if (crop)
    fail_unless_equals_int (cf_image_view (&src, crop->x, crop->y,
            crop->width, crop->height, &src), 0);
  fail_unless_equals_int (cf_image_view (&dst, r.x, r.y, r.width, r.height,
          &view), 0);
  fail_unless_equals_int (cf_resize_plan_init (&plan, src.format, method,
          oracle_antialias, src.width, src.height, r.width, r.height,
          (site & GST_VIDEO_CHROMA_SITE_H_COSITED) != 0,
          (site & GST_VIDEO_CHROMA_SITE_V_COSITED) != 0), 0);
  fail_unless_equals_int (cf_resize_cpu (&plan, &src, &view), 0);
  cf_resize_plan_clear (&plan);
  cf_check_planar_end (&planar_dst, &dst, TRUE);
  cf_check_planar_end (&planar_src, &src, FALSE);
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);
  b = cf_check_pack (out, outbuf);
  gst_buffer_unref (outbuf);
  return b;
}

/* The negotiated caps of the element's src pad, which must be @format at
 * @w x @h, PAR @par_n/@par_d. */
static void
check_src_caps (GstHarness * h, GstVideoInfo * out, const gchar * format,
    gint w, gint hh, gint par_n, gint par_d)
{
  GstPad *pad = gst_element_get_static_pad (h->element, "src");
  GstCaps *caps = gst_pad_get_current_caps (pad);

  fail_unless (caps != NULL, "not negotiated");
  fail_unless (gst_video_info_from_caps (out, caps));
  fail_unless_equals_string (GST_VIDEO_INFO_NAME (out), format);
  if (GST_VIDEO_INFO_WIDTH (out) != w || GST_VIDEO_INFO_HEIGHT (out) != hh ||
      GST_VIDEO_INFO_PAR_N (out) != par_n
      || GST_VIDEO_INFO_PAR_D (out) != par_d)
    fail ("got %s, want %dx%d PAR %d/%d", gst_caps_to_string (caps), w, hh,
        par_n, par_d);
  gst_caps_unref (caps);
  gst_object_unref (pad);
}

/* Records @buf as sent[i], with the oracle's answer for an @out frame, and
 * pushes it. */
static void
push_frame (GstHarness * h, const GstVideoInfo * in, GstBuffer * buf,
    const GstVideoInfo * out, CfResizeMethod method, gboolean add_borders,
    guint i)
{
  Sent *s = &sent[i];

  fail_unless (i < MAX_SENT);
  s->pts = GST_BUFFER_PTS (buf);
  s->dts = GST_BUFFER_DTS (buf);
  s->duration = GST_BUFFER_DURATION (buf);
  s->out = *out;
  g_clear_pointer (&s->want, g_bytes_unref);
  s->want = oracle (in, buf, out, method, add_borders);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
}

static void
check_output (GstBuffer * out, guint i)
{
  const Sent *s = &sent[i];
  gchar *what = g_strdup_printf ("%s buffer %u", context, i);

  fail_unless_equals_clocktime (GST_BUFFER_PTS (out), s->pts);
  fail_unless_equals_clocktime (GST_BUFFER_DTS (out), s->dts);
  fail_unless_equals_clocktime (GST_BUFFER_DURATION (out), s->duration);
  cf_check_assert_frame (&s->out, out, s->want, what);
  g_free (what);
}

/* ---- tests ------------------------------------------------------------ */

/* videoscale's size matrix, both ways, and 1x1 to 1x1 (passthrough). */
static const struct
{
  gint iw, ih, ow, oh;
} sizes[] = {
  {640, 480, 1, 1}, {1, 1, 640, 480}, {641, 481, 111, 30},
  {111, 30, 641, 481}, {641, 481, 30, 111}, {30, 111, 641, 481},
  {640, 480, 320, 1}, {320, 1, 640, 480}, {640, 480, 1, 240},
  {1, 240, 640, 480}, {1, 1, 1, 1},
};

/* Every format with every method: one random frame per size through fixed
 * caps (PAR 1/1 on both sides, add-borders=false): the output caps, and
 * the bytes against the oracle; 4:2:0 chroma sited each way in turn. */
GST_START_TEST (test_size_matrix)
{
  const gchar *format = all_formats[__i__ % G_N_ELEMENTS (all_formats)];
  const CfResizeMethod method = __i__ / G_N_ELEMENTS (all_formats);
  guint k;

  for (k = 0; k < G_N_ELEMENTS (sizes); k++) {
    GstVideoInfo in, out;
    GstHarness *h;

    g_snprintf (context, sizeof (context), "%s %s %dx%d -> %dx%d", format,
        methods[method], sizes[k].iw, sizes[k].ih, sizes[k].ow, sizes[k].oh);
    cf_check_set_info (&in, format, sizes[k].iw, sizes[k].ih);
    set_site (&in, k + __i__);
    h = harness_for (cf_check_element_new ("cudaresize", "method",
            methods[method], "add-borders", "false", NULL), &in, FIXED, format,
        sizes[k].ow, sizes[k].oh, 1, 1);
    check_src_caps (h, &out, format, sizes[k].ow, sizes[k].oh, 1, 1);
    push_frame (h, &in, cf_check_frame_new (&in, prng, 0, FRAME_DURATION,
            FALSE), &out, method, FALSE, 0);
    cf_check_eos_and_pull (h, check_output, 1);
    keep_context (h);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* antialias=false: the filters' own support. Bilinear, bicubic and lanczos
 * in three formats, a downscale (whose bytes must differ from the
 * antialiased ones) and an upscale (whose must not), against the oracle
 * with the same setting. */
GST_START_TEST (test_antialias)
{
  static const gchar *const formats[] = { "RGBA", "NV12", "I420_10LE" };
  static const struct
  {
    gint iw, ih, ow, oh;
  } scale[] = { {641, 481, 111, 30}, {111, 30, 641, 481} };
  const gchar *format = formats[__i__ % G_N_ELEMENTS (formats)];
  const CfResizeMethod method = CF_RESIZE_BILINEAR +
      __i__ / G_N_ELEMENTS (formats);
  guint k;

  for (k = 0; k < G_N_ELEMENTS (scale); k++) {
    GstVideoInfo in, out;
    GstHarness *h;
    GstBuffer *buf;
    GBytes *widened;

    g_snprintf (context, sizeof (context), "%s %s antialias=false %dx%d -> "
        "%dx%d", format, methods[method], scale[k].iw, scale[k].ih,
        scale[k].ow, scale[k].oh);
    cf_check_set_info (&in, format, scale[k].iw, scale[k].ih);
    h = harness_for (cf_check_element_new ("cudaresize", "method",
            methods[method], "add-borders", "false", "antialias", "false",
            NULL), &in, FIXED, format, scale[k].ow, scale[k].oh, 1, 1);
    check_src_caps (h, &out, format, scale[k].ow, scale[k].oh, 1, 1);
    buf = cf_check_frame_new (&in, prng, 0, FRAME_DURATION, FALSE);
    widened = oracle (&in, buf, &out, method, FALSE);
    oracle_antialias = FALSE;
    push_frame (h, &in, buf, &out, method, FALSE, 0);
    oracle_antialias = TRUE;
    if (k == 0)
      fail_if (g_bytes_equal (widened, sent[0].want),
          "%s: the same bytes as with antialiasing", context);
    else
      fail_unless (g_bytes_equal (widened, sent[0].want),
          "%s: an upscale differs from the antialiased one", context);
    g_bytes_unref (widened);
    cf_check_eos_and_pull (h, check_output, 1);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* GstVideoCropMeta: the crop is scaled to the output; the crop changes
 * from frame to frame (and goes away), and frames before a change are
 * still scaled with the tables of their own crop. */
static const struct
{
  guint x, y, width, height;    /* width 0: no meta */
} crops[] = {
  {8, 4, 32, 24}, {8, 4, 32, 24}, {0, 0, 0, 0}, {2, 2, 20, 10},
  {0, 0, 64, 48}, {62, 46, 2, 2},
};

GST_START_TEST (test_crop)
{
  const gchar *format = __i__ ? "I420" : "RGBA";
  GstVideoInfo in, out;
  GstHarness *h;
  guint k;

  g_snprintf (context, sizeof (context), "%s crop", format);
  cf_check_set_info (&in, format, 64, 48);
  h = harness_for (cf_check_element_new ("cudaresize", "method", "bicubic",
          "add-borders", "false", NULL), &in, FIXED, format, 40, 30, 1, 1);
  check_src_caps (h, &out, format, 40, 30, 1, 1);
  for (k = 0; k < G_N_ELEMENTS (crops); k++) {
    GstBuffer *buf = cf_check_frame_new (&in, prng, k * FRAME_DURATION,
        FRAME_DURATION, FALSE);
    if (crops[k].width) {
      GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta (buf);
      crop->x = crops[k].x;
      crop->y = crops[k].y;
      crop->width = crops[k].width;
      crop->height = crops[k].height;
    }
    push_frame (h, &in, buf, &out, CF_RESIZE_BICUBIC, FALSE, k);
  }
  cf_check_eos_and_pull (h, check_output, G_N_ELEMENTS (crops));
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Sets every pixel of every plane of @buf to the same bytes, pattern[p]. */
static void
fill_constant (const GstVideoInfo * info, GstBuffer * buf,
    guint8 pattern[CF_MAX_PLANES][4])
{
  const CfFormat cf = cf_check_format (info);
  const CfFormatInfo *fi = cf_format_info (cf);
  GstVideoFrame f;
  gint p, x, y;

  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  for (p = 0; p < fi->n_planes; p++) {
    const guint pb = fi->plane[p].pixel_bytes;
    guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&f, p);

    for (y = 0; y < cf_plane_height (cf, p, GST_VIDEO_INFO_HEIGHT (info)); y++)
      for (x = 0; x < cf_plane_width (cf, p, GST_VIDEO_INFO_WIDTH (info)); x++)
        memcpy (d + y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, p) + x * pb,
            pattern[p], pb);
  }
  gst_video_frame_unmap (&f);
}

/* A constant frame stays constant, bit for bit, whatever the method (the
 * weights of every output sample sum to exactly 1): a random constant,
 * then one of bytes 0x00 and 0xff only (no overflow at the extremes). */
GST_START_TEST (test_constant)
{
  static const gchar *formats[] = { "RGBA", "GRAY16_LE", "NV12", "BGR",
    "YV12", "xRGB"
  };
  static const gint size[][4] = { {33, 17, 70, 40}, {70, 40, 33, 17},
  {64, 48, 5, 3}, {5, 3, 64, 48}
  };
  guint f, j, p, b;

  for (f = 0; f < G_N_ELEMENTS (formats) * G_N_ELEMENTS (size); f++) {
    const gint *sz = size[f % G_N_ELEMENTS (size)];
    GstVideoInfo in, out;
    GstHarness *h;

    cf_check_set_info (&in, formats[f / G_N_ELEMENTS (size)], sz[0], sz[1]);
    set_site (&in, f);
    h = harness_for (cf_check_element_new ("cudaresize", "method",
            methods[__i__], "add-borders", "false", NULL), &in, FIXED,
        GST_VIDEO_INFO_NAME (&in), sz[2], sz[3], 1, 1);
    check_src_caps (h, &out, GST_VIDEO_INFO_NAME (&in), sz[2], sz[3], 1, 1);
    for (j = 0; j < 2; j++) {
      guint8 pattern[CF_MAX_PLANES][4];
      GstBuffer *buf =
          cf_check_frame_new (&in, prng, j * FRAME_DURATION, FRAME_DURATION,
          FALSE);
      GstBuffer *want = gst_buffer_new_allocate (NULL, out.size, NULL);

      for (p = 0; p < CF_MAX_PLANES; p++)
        for (b = 0; b < 4; b++)
          pattern[p][b] = j == 0 ? g_rand_int (prng) :
              g_rand_boolean (prng) ? 0xff : 0x00;
      fill_constant (&in, buf, pattern);
      fill_constant (&out, want, pattern);
      sent[j].pts = sent[j].dts = j * FRAME_DURATION;
      sent[j].duration = FRAME_DURATION;
      sent[j].out = out;
      g_clear_pointer (&sent[j].want, g_bytes_unref);
      sent[j].want = cf_check_pack (&out, want);
      gst_buffer_unref (want);
      fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    }
    g_snprintf (context, sizeof (context), "%s %dx%d -> %dx%d, constant",
        GST_VIDEO_INFO_NAME (&in), sz[0], sz[1], sz[2], sz[3]);
    cf_check_eos_and_pull (h, check_output, 2);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Sample @x of row @y of plane @p (1 or 2 bytes, little-endian). */
static guint
sample (GstVideoFrame * f, guint p, gint x, gint y, guint bytes)
{
  const guint8 *s = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (f, p) +
      y * GST_VIDEO_FRAME_PLANE_STRIDE (f, p) + x * bytes;

  return bytes == 2 ? s[0] | (s[1] << 8) : s[0];
}

/* Nearest at exactly 2x up duplicates every sample into 2x2, and area at
 * exactly 2x down gives each 2x2 block's mean, rounded half up (4:2:0 with
 * centred chroma, whose chroma blocks are 2x2 too), by hand. */
static const struct
{
  const gchar *format;
  CfResizeMethod method;
  gint iw, ih, ow, oh;
} two_x[] = {
  {"RGBA", CF_RESIZE_NEAREST, 18, 14, 36, 28},
  {"GRAY16_LE", CF_RESIZE_NEAREST, 19, 7, 38, 14},
  {"I420", CF_RESIZE_NEAREST, 18, 14, 36, 28},
  {"NV21", CF_RESIZE_NEAREST, 18, 14, 36, 28},
  {"RGB", CF_RESIZE_NEAREST, 17, 9, 34, 18},
  {"RGBA", CF_RESIZE_AREA, 36, 22, 18, 11},
  {"GRAY16_LE", CF_RESIZE_AREA, 38, 14, 19, 7},
  {"I420", CF_RESIZE_AREA, 68, 44, 34, 22},
  {"NV12", CF_RESIZE_AREA, 68, 44, 34, 22},
  {"xBGR", CF_RESIZE_AREA, 34, 18, 17, 9},
};

GST_START_TEST (test_two_x)
{
  GstVideoInfo in, out;
  GstVideoFrame fi, fo;
  GstHarness *h;
  GstBuffer *buf, *outbuf;
  const CfFormatInfo *cfi;
  CfFormat cf;
  guint p, c;
  gint x, y;

  cf_check_set_info (&in, two_x[__i__].format, two_x[__i__].iw,
      two_x[__i__].ih);
  set_site (&in, 0);            /* centred */
  h = harness_for (cf_check_element_new ("cudaresize", "method",
          methods[two_x[__i__].method], NULL), &in, FIXED, two_x[__i__].format,
      two_x[__i__].ow, two_x[__i__].oh, 1, 1);
  buf = cf_check_frame_new (&in, prng, 0, FRAME_DURATION, FALSE);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (buf)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  outbuf = gst_harness_pull (h);
  check_src_caps (h, &out, two_x[__i__].format, two_x[__i__].ow,
      two_x[__i__].oh, 1, 1);

  cf = cf_check_format (&in);
  cfi = cf_format_info (cf);
  fail_unless (gst_video_frame_map (&fi, &in, buf, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, &out, outbuf, GST_MAP_READ));
  for (p = 0; p < (guint) cfi->n_planes; p++) {
    const guint sb = cfi->plane[p].sample_bytes;
    const guint spp = cfi->plane[p].pixel_bytes / sb;

    for (y = 0; y < cf_plane_height (cf, p, two_x[__i__].oh); y++)
      for (x = 0; x < cf_plane_width (cf, p, two_x[__i__].ow); x++)
        for (c = 0; c < spp; c++) {
          guint got = sample (&fo, p, x * spp + c, y, sb), want;

          if (two_x[__i__].method == CF_RESIZE_NEAREST)
            want = sample (&fi, p, (x / 2) * spp + c, y / 2, sb);
          else
            want = (sample (&fi, p, 2 * x * spp + c, 2 * y, sb) +
                sample (&fi, p, (2 * x + 1) * spp + c, 2 * y, sb) +
                sample (&fi, p, 2 * x * spp + c, 2 * y + 1, sb) +
                sample (&fi, p, (2 * x + 1) * spp + c, 2 * y + 1, sb) + 2) / 4;
          fail_unless (got == want, "%s %s: plane %u (%d, %d) sample %u: "
              "got %u, want %u", two_x[__i__].format,
              methods[two_x[__i__].method], p, x, y, c, got, want);
        }
  }
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);
  gst_buffer_unref (outbuf);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Equal caps: passthrough, the very buffer comes out, untouched; a buffer
 * far too small for its caps goes through as well, which proves that no
 * frame is mapped (no work is done). */
GST_START_TEST (test_passthrough)
{
  GstVideoInfo in, out;
  GstHarness *h;
  GstBuffer *buf, *outbuf;
  GstMemory *mem;
  GBytes *data;
  guint k;

  for (k = 0; k < 2; k++) {
    cf_check_set_info (&in, k ? "NV12" : "RGBA", 33, 17);
    h = harness_for (cf_check_element_new ("cudaresize", "method",
            methods[k ? 3 : 0], NULL), &in,
        k ? "video/x-raw,width=33,height=17" : NULL);
    buf = cf_check_frame_new (&in, prng, 0, FRAME_DURATION, FALSE);
    mem = gst_memory_ref (gst_buffer_peek_memory (buf, 0));
    data = cf_check_pack (&in, buf);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    fail_unless (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM
            (h->element)));
    check_src_caps (h, &out, GST_VIDEO_INFO_NAME (&in), 33, 17, 1, 1);
    outbuf = gst_harness_pull (h);
    fail_unless (outbuf == buf, "another buffer came out");
    fail_unless (gst_buffer_peek_memory (outbuf, 0) == mem);
    cf_check_assert_frame (&in, outbuf, data, "passthrough");
    gst_buffer_unref (outbuf);

    buf = gst_buffer_new_allocate (NULL, 1, NULL);
    gst_buffer_memset (buf, 0, 0x5a, 1);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    outbuf = gst_harness_pull (h);
    fail_unless (outbuf == buf);
    fail_unless_equals_int (gst_buffer_get_size (outbuf), 1);
    gst_buffer_unref (outbuf);
    gst_memory_unref (mem);
    g_bytes_unref (data);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* 640x480 PAR 1/1 into fixed output sizes and PARs (picture rectangle as
 * the element must place it, by hand), with add-borders=true (black around
 * the picture) and false (the picture is the whole frame). */
static const struct
{
  const gchar *format;
  gint ow, oh, par_n, par_d;
  CfRect inner;
} borders[] = {
  {"RGBA", 1280, 540, 1, 1, {280, 0, 720, 540}},        /* pillarbox */
  {"I420", 1280, 540, 1, 1, {280, 0, 720, 540}},
  {"RGBA", 320, 480, 1, 1, {0, 120, 320, 240}}, /* letterbox */
  {"I420", 320, 480, 1, 1, {0, 120, 320, 240}},
  {"RGBA", 642, 300, 1, 1, {121, 0, 400, 300}}, /* odd offset */
  {"I420", 642, 300, 1, 1, {120, 0, 400, 300}}, /* even for 4:2:0 */
  {"xBGR", 300, 301, 1, 1, {0, 38, 300, 225}},  /* odd height */
  {"NV21", 300, 301, 1, 1, {0, 38, 300, 224}},
  {"RGBA", 640, 480, 2, 1, {160, 0, 320, 480}}, /* wide pixels */
  {"RGBA", 320, 1, 1, 1, {159, 0, 1, 1}},       /* thin */
  /* test_borders_thin: */
  {"I420", 320, 1, 1, 1, {158, 0, 2, 1}},
  {"NV12", 1, 240, 1, 1, {0, 118, 1, 2}},
  {"I420", 1, 1, 1, 1, {0, 0, 1, 1}},
};

#define N_BORDERS_OK 10

static void
check_borders (guint k, gboolean add)
{
  GstVideoInfo in, out;
  GstHarness *h;
  CfRect r;

  cf_check_set_info (&in, borders[k].format, 640, 480);
  h = harness_for (cf_check_element_new ("cudaresize", "add-borders",
          add ? "true" : "false", NULL), &in, FIXED, borders[k].format,
      borders[k].ow, borders[k].oh, borders[k].par_n, borders[k].par_d);
  check_src_caps (h, &out, borders[k].format, borders[k].ow, borders[k].oh,
      borders[k].par_n, borders[k].par_d);
  /* the rules of inner_rect () give the rectangle worked out by hand */
  r = inner_rect (&in, &out, add);
  if (!add)
    fail_unless (r.x == 0 && r.y == 0 && r.width == borders[k].ow &&
        r.height == borders[k].oh);
  else
    fail_unless (!memcmp (&r, &borders[k].inner, sizeof (r)), "%d,%d %dx%d",
        r.x, r.y, r.width, r.height);
  g_snprintf (context, sizeof (context), "%s %dx%d add-borders=%d",
      borders[k].format, borders[k].ow, borders[k].oh, add);
  push_frame (h, &in, cf_check_frame_new (&in, prng, 0, FRAME_DURATION, FALSE),
      &out, CF_RESIZE_BILINEAR, add, 0);
  cf_check_eos_and_pull (h, check_output, 1);

  /* and the oracle's black is the documented one */
  if (add && (!strcmp (borders[k].format, "RGBA") ||
          !strcmp (borders[k].format, "I420")) && r.x + r.y > 0) {
    const guint8 *b = g_bytes_get_data (sent[0].want, NULL);
    const gsize luma = (gsize) borders[k].ow * borders[k].oh;

    if (borders[k].format[0] == 'R')
      fail_unless (b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 255);
    else
      fail_unless (b[0] == 16 && b[luma] == 128 && b[luma + luma / 4] == 128);
  }
  gst_harness_teardown (h);
}

GST_START_TEST (test_borders)
{
  check_borders (__i__ / 2, __i__ % 2 == 0);
}

GST_END_TEST;

/* 4:2:0 output with a side of 1 pixel, a display aspect ratio it does not
 * keep and add-borders=true (the default): the picture's rectangle stays
 * within the frame (inner_rect ()). */
GST_START_TEST (test_borders_thin)
{
  guint k;

  for (k = N_BORDERS_OK; k < G_N_ELEMENTS (borders); k++)
    check_borders (k, TRUE);
}

GST_END_TEST;

/* Fixation: the expected caps are what videoscale (1.22) negotiates in
 * the same pipeline, checked by hand: the display aspect ratio is kept; a
 * free PAR is adjusted to keep the input's other side; with a fixed PAR the
 * input height is kept if the output allows it, else the input width, else
 * the size nearest the DAR. */
static const struct
{
  gint par_n, par_d;
  const gchar *sink;
  gint w, h, out_par_n, out_par_d;
} fixation[] = {
  {1, 1, "video/x-raw,width=640", 640, 240, 1, 2},
  {1, 1, "video/x-raw,height=120", 320, 120, 1, 2},
  {1, 1, "video/x-raw,width=640,height=240", 640, 240, 1, 2},
  {4, 3, "video/x-raw,width=640", 640, 240, 2, 3},
  {1, 1, "video/x-raw,width=640,pixel-aspect-ratio=1/1", 640, 480, 1, 1},
  {1, 1, "video/x-raw,height=120,pixel-aspect-ratio=1/1", 160, 120, 1, 1},
  {1, 1, "video/x-raw", 320, 240, 1, 1},
  {4, 3, "video/x-raw", 320, 240, 4, 3},
  {4, 3, "video/x-raw,pixel-aspect-ratio=1/1", 427, 240, 1, 1},
  {4, 3, "video/x-raw,width=640,pixel-aspect-ratio=1/1", 640, 360, 1, 1},
  {4, 3, "video/x-raw,height=120,pixel-aspect-ratio=1/1", 213, 120, 1, 1},
  {4, 3, "video/x-raw,width=[1,400],pixel-aspect-ratio=1/1", 320, 180, 1, 1},
  {1, 1, "video/x-raw,width=[1,300],height=[1,200],pixel-aspect-ratio=1/1",
      267, 200, 1, 1},
  {1, 1, "video/x-raw,width=[1,400],height=[1,200],pixel-aspect-ratio=1/1",
      267, 200, 1, 1},
  {4, 3, "video/x-raw,width=[1,300],height=[1,200],pixel-aspect-ratio=1/1",
      300, 169, 1, 1},
};

/* 320x240 with fixation[k]'s PAR against what downstream allows: the
 * element's src caps, then one frame (the default add-borders=true). */
static void
check_fixation (guint k)
{
  GstVideoInfo in, out;
  GstHarness *h;

  cf_check_set_info (&in, "RGBA", 320, 240);
  GST_VIDEO_INFO_PAR_N (&in) = fixation[k].par_n;
  GST_VIDEO_INFO_PAR_D (&in) = fixation[k].par_d;
  h = harness_for (cf_check_element_new ("cudaresize", NULL), &in,
      fixation[k].sink);
  check_src_caps (h, &out, "RGBA", fixation[k].w, fixation[k].h,
      fixation[k].out_par_n, fixation[k].out_par_d);
  push_frame (h, &in, cf_check_frame_new (&in, prng, 0, FRAME_DURATION, FALSE),
      &out, CF_RESIZE_BILINEAR, TRUE, 0);
  cf_check_eos_and_pull (h, check_output, 1);
  gst_harness_teardown (h);
}

GST_START_TEST (test_fixation)
{
  check_fixation (__i__);
}

GST_END_TEST;

/* Mid-stream, the input size changes (into passthrough: equal caps), then
 * the format: downstream fixes the height only, so the output width
 * follows; the frames before new caps come out before them, each scaled as
 * its own caps say. */
GST_START_TEST (test_renegotiation)
{
  static const struct
  {
    const gchar *format;
    gint iw, ih, ow;
  } steps[] = {
    {"RGBA", 64, 48, 32}, {"RGBA", 48, 24, 48}, {"NV12", 50, 30, 40},
  };
  GstHarness *h;
  GString *log;
  guint s, j;

  h = harness_for (cf_check_element_new ("cudaresize", "method", "bicubic",
          NULL), NULL, "video/x-raw,height=24,pixel-aspect-ratio=1/1");
  log = cf_check_log_output (h);
  for (s = 0; s < G_N_ELEMENTS (steps); s++) {
    GstVideoInfo in, out;

    cf_check_set_info (&in, steps[s].format, steps[s].iw, steps[s].ih);
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&in));
    check_src_caps (h, &out, steps[s].format, steps[s].ow, 24, 1, 1);
    for (j = 0; j < 2; j++)
      push_frame (h, &in, cf_check_frame_new (&in, prng,
              (2 * s + j) * FRAME_DURATION, FRAME_DURATION, FALSE), &out,
          CF_RESIZE_BICUBIC, TRUE, 2 * s + j);
  }
  cf_check_eos_and_pull (h, check_output, 6);
  fail_unless_equals_string (log->str, "CBBCBBCBBE");
  g_string_free (log, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* videotestsrc ! cudaresize ! 50x40 ! fakesink: 20 cycles NULL -> PLAYING
 * -> NULL, every other one to EOS, the others stopped at once; no error,
 * no warning, also on the way down. */
GST_START_TEST (test_state_cycles)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=3 ! "
      "cudaresize backend=%s ! video/x-raw,width=50,height=40 ! "
      "fakesink", cf_test_backend_name ());
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstBus *bus;
  GstMessage *msg;
  guint i;

  fail_unless (pipeline != NULL, "%s", desc);
  /* keep the messages of going to NULL */
  gst_pipeline_set_auto_flush_bus (GST_PIPELINE (pipeline), FALSE);
  bus = gst_element_get_bus (pipeline);
  for (i = 0; i < 20; i++) {
    fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE, "cycle %u", i);
    if (i % 2 == 0) {
      msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
          GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
      fail_unless (msg != NULL, "cycle %u: no EOS", i);
      fail_unless_equals_string (GST_MESSAGE_TYPE_NAME (msg), "eos");
      gst_message_unref (msg);
    } else {
      fail_if (gst_element_get_state (pipeline, NULL, NULL,
              GST_CLOCK_TIME_NONE) == GST_STATE_CHANGE_FAILURE);
    }
    fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING | GST_MESSAGE_ERROR);
    fail_unless (msg == NULL, "cycle %u: a %s message", i,
        msg ? GST_MESSAGE_TYPE_NAME (msg) : "");
  }
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (desc);
}

GST_END_TEST;

GST_START_TEST (test_unsupported_caps)
{
  const gchar *caps[] = {
    "video/x-raw,format=v210,width=32,height=24,framerate=30/1",
    "video/x-bayer,format=bggr,width=32,height=24,framerate=30/1",
  };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (caps); k++) {
    GstHarness *h =
        harness_for (cf_check_element_new ("cudaresize", NULL), NULL,
        "video/x-raw,width=16,height=12");

    gst_harness_set_src_caps_str (h, caps[k]);
    fail_unless_equals_int (gst_harness_push (h,
            gst_buffer_new_allocate (NULL, 32 * 24 * 2, NULL)),
        GST_FLOW_NOT_NEGOTIATED);
    fail_unless_equals_int (gst_harness_buffers_received (h), 0);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* 20 distinct frames come out in order, each scaled right, timestamps
 * kept, all before EOS (those still in flight are drained); with CUDA, big
 * enough for the GPU to be still at work when the next one comes. */
static const gchar *in_flight[] = { "1", "2", "4" };

GST_START_TEST (test_frames_in_flight)
{
  const gboolean big = cf_test_want_cuda ();
  GstVideoInfo in, out;
  GstHarness *h;
  GString *log, *want = g_string_new (NULL);
  guint i;

  cf_check_set_info (&in, "NV12", big ? 1920 : 64, big ? 1080 : 48);
  h = harness_for (cf_check_element_new ("cudaresize", "frames-in-flight",
          in_flight[__i__], "method", "lanczos", NULL), &in, FIXED, "NV12",
      big ? 1280 : 40, big ? 720 : 30, 1, 1);
  check_src_caps (h, &out, "NV12", big ? 1280 : 40, big ? 720 : 30, 1, 1);
  log = cf_check_log_output (h);
  for (i = 0; i < 20; i++) {
    GstBuffer *buf =
        cf_check_frame_new (&in, prng, i * FRAME_DURATION, FRAME_DURATION,
        FALSE);

    if (i % 3 == 1)
      GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
    push_frame (h, &in, buf, &out, CF_RESIZE_LANCZOS, TRUE, i);
    g_string_append_c (want, 'B');
  }
  cf_check_eos_and_pull (h, check_output, 20);
  g_string_append_c (want, 'E');
  fail_unless_equals_string (log->str, want->str);
  g_string_free (log, TRUE);
  g_string_free (want, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Input strides longer than a row and planes at gaps, described by a
 * GstVideoMeta: an input buffer of another size than the caps' frame (the
 * output is sized from the output caps, as GstVideoFilter does). */
static const struct
{
  const gchar *format;
  gint extra_stride;
  gsize gap;
} padded[] = {
  {"RGB", 13, 0}, {"I420", 16, 48}, {"NV12", 7, 5}, {"GRAY16_LE", 6, 64},
};

GST_START_TEST (test_padded_strides)
{
  guint k;

  for (k = 0; k < G_N_ELEMENTS (padded); k++) {
    GstVideoInfo in, out;
    GstHarness *h;
    GstBuffer *buf;

    cf_check_set_info (&in, padded[k].format, 33, 17);
    h = harness_for (cf_check_element_new ("cudaresize", NULL), &in, FIXED,
        padded[k].format, 51, 23, 1, 1);
    check_src_caps (h, &out, padded[k].format, 51, 23, 1, 1);
    buf = cf_check_padded_frame_new (&in, padded[k].extra_stride,
        padded[k].gap, prng, 0, FRAME_DURATION);
    push_frame (h, &in, buf, &out, CF_RESIZE_BILINEAR, TRUE, 0);
    cf_check_eos_and_pull (h, check_output, 1);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Upstream's ALLOCATION query: video meta, and with CUDA a pool (of pinned
 * memory) whose buffers are scaled like others; the harness downstream
 * offers no pool, and the output is right all the same. */
GST_START_TEST (test_allocation)
{
  GstVideoInfo in, out;
  GstHarness *h;
  GstCaps *caps;
  GstQuery *q;
  GstBufferPool *pool = NULL;
  guint i, size, min, max;

  cf_check_set_info (&in, "I420", 66, 34);
  caps = gst_video_info_to_caps (&in);
  h = harness_for (cf_check_element_new ("cudaresize", NULL), &in, FIXED,
      "I420", 33, 17, 1, 1);
  check_src_caps (h, &out, "I420", 33, 17, 1, 1);
  q = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, q), "ALLOCATION query failed");
  fail_unless (gst_query_find_allocation_meta (q, GST_VIDEO_META_API_TYPE,
          NULL));
  if (cf_test_want_cuda ()) {
    fail_unless (gst_query_get_n_allocation_pools (q) >= 1, "no pool");
    gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
    fail_unless (pool != NULL);
    fail_unless (size >= in.size);
    fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  }
  for (i = 0; i < 3; i++) {
    GstBuffer *buf = NULL;

    if (pool) {
      fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf,
              NULL), GST_FLOW_OK);
      cf_check_fill_random (buf, prng);
      GST_BUFFER_PTS (buf) = GST_BUFFER_DTS (buf) = i * FRAME_DURATION;
      GST_BUFFER_DURATION (buf) = FRAME_DURATION;
    } else {
      buf =
          cf_check_frame_new (&in, prng, i * FRAME_DURATION, FRAME_DURATION,
          FALSE);
    }
    push_frame (h, &in, buf, &out, CF_RESIZE_BILINEAR, TRUE, i);
  }
  cf_check_eos_and_pull (h, check_output, 3);
  if (pool) {
    fail_unless (gst_buffer_pool_set_active (pool, FALSE));
    gst_object_unref (pool);
  }
  gst_query_unref (q);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Downstream (the harness) offers no pool: the output buffers still come
 * from a pool (nothing is allocated per frame), of pinned memory on CUDA
 * (downloads at full speed), and are right. */
GST_START_TEST (test_output_pool)
{
  GstVideoInfo in, out;
  GstHarness *h;
  guint i;

  cf_check_set_info (&in, "RGBA", 64, 48);
  h = harness_for (cf_check_element_new ("cudaresize", NULL), &in, FIXED,
      "RGBA", 32, 24, 1, 1);
  check_src_caps (h, &out, "RGBA", 32, 24, 1, 1);
  for (i = 0; i < 4; i++)
    push_frame (h, &in, cf_check_frame_new (&in, prng, i * FRAME_DURATION,
            FRAME_DURATION, FALSE), &out, CF_RESIZE_BILINEAR, TRUE, i);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < 4; i++) {
    GstBuffer *buf = gst_harness_try_pull (h);
    guint m;

    fail_unless (buf != NULL, "buffer %u did not come out", i);
    fail_unless (buf->pool != NULL, "buffer %u is not from a pool", i);
    for (m = 0; cf_test_want_cuda () && m < gst_buffer_n_memory (buf); m++)
      fail_unless (gst_memory_is_type (gst_buffer_peek_memory (buf, m),
              "CfPinnedMemory"), "buffer %u is not pinned", i);
    check_output (buf, i);
    gst_buffer_unref (buf);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The CPU backend writes the same bytes for every n-threads: lanczos and
 * bicubic down, bilinear up with borders (add-borders: a 4:3 picture into a
 * wider square-pixel frame), area, packed 4:2:2 and 16-bit formats, odd
 * sizes, padded rows. */
static const struct
{
  const gchar *in, *out, *method;
} n_threads_cases[] = {
  {"video/x-raw,format=RGBA,width=643,height=363,framerate=30/1",
      "video/x-raw,width=321,height=181", "lanczos"},
  {"video/x-raw,format=NV12,width=200,height=150,framerate=30/1,"
        "pixel-aspect-ratio=1/1",
      "video/x-raw,width=402,height=226,pixel-aspect-ratio=1/1", "bilinear"},
  {"video/x-raw,format=I420,width=99,height=37,framerate=30/1",
      "video/x-raw,width=40,height=19", "area"},
  {"video/x-raw,format=YUY2,width=161,height=91,framerate=30/1",
      "video/x-raw,width=99,height=77", "bicubic"},
  {"video/x-raw,format=RGBA64_LE,width=67,height=45,framerate=30/1",
      "video/x-raw,width=101,height=13", "lanczos"},
};

GST_START_TEST (test_n_threads)
{
  const gchar *const props[] = { "method", n_threads_cases[__i__].method,
    NULL
  };

  cf_check_n_threads ("cudaresize", props, n_threads_cases[__i__].in,
      n_threads_cases[__i__].out, 3, NULL, prng);
}

GST_END_TEST;

static Suite *
cudaresize_suite (void)
{
  Suite *s = suite_create ("cudaresize");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_loop_test (tc, test_size_matrix, 0,
      G_N_ELEMENTS (all_formats) * CF_RESIZE_METHOD_COUNT);
  tcase_add_loop_test (tc, test_constant, 0, CF_RESIZE_METHOD_COUNT);
  tcase_add_loop_test (tc, test_two_x, 0, G_N_ELEMENTS (two_x));
  tcase_add_test (tc, test_passthrough);
  tcase_add_loop_test (tc, test_antialias, 0, 3 * 3);
  tcase_add_loop_test (tc, test_borders, 0, 2 * N_BORDERS_OK);
  tcase_add_loop_test (tc, test_fixation, 0, G_N_ELEMENTS (fixation));
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_test (tc, test_unsupported_caps);
  tcase_add_loop_test (tc, test_frames_in_flight, 0, G_N_ELEMENTS (in_flight));
  tcase_add_test (tc, test_borders_thin);
  tcase_add_loop_test (tc, test_crop, 0, 2);
  tcase_add_test (tc, test_padded_strides);
  tcase_add_test (tc, test_allocation);
  tcase_add_test (tc, test_output_pool);
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
  return gst_check_run_suite (cudaresize_suite (), "cudaresize", __FILE__);
}
