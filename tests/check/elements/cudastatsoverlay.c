/* Element tests of cudastatsoverlay.
 *
 * The oracle is a copy of the input frame with cf_overlay_cpu ()
 * (kernels/overlay.h) drawn on it, from cf_stats_cpu () of the very input
 * frame and a plan made here as the element documents it: width and height
 * fractions of the frame rounded half up (pixels above 1), inset
 * min (w, h) / 60, opacity * 255 rounded, the frame rate in tenths from the
 * timestamps of the last 16 frames (-1 for the first), measured again from
 * the first frame after a flush or a segment that breaks the timeline.
 * Every output byte of a row must equal the oracle's; in the CUDA run this
 * proves GPU == CPU through the element. Also: statistics from a cudastats
 * meta give the same picture (and a meta is really used), changes while
 * PLAYING, zebra checked by hand, unsupported caps, the frame rate across
 * seeks and new segments, and golden images (PNGs under tests/data/golden,
 * see its README) of synthetic frames.
 *
 * The program runs once per backend (CF_TEST_BACKEND, see ../meson.build).
 * CF_TEST_SEED=N repeats a run. CF_GOLDEN_WRITE=1 writes the golden images
 * into CF_GOLDEN_DIR instead of comparing with them.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <string.h>

#ifdef HAVE_PNG
#include <png.h>
#endif

#include "cf-check.h"
#include "cf-meta.h"
#include "overlay.h"
#include "stats.h"

#define FPS_WINDOW 16
#define MAX_FRAMES 24

static const gchar *all_formats[] = {
  "GRAY8", "GRAY16_LE", "RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR",
  "xRGB", "xBGR", "RGB", "BGR", "I420", "YV12", "NV12", "NV21", "Y444",
  "Y42B", "I420_10LE", "P010_10LE", "P016_LE", "Y444_16LE", "RGBA64_LE",
  "BGRA64_LE", "YUY2", "UYVY",
};

/* property nicks, in the kernel's enum orders */
static const gchar *positions[] = {
  "top-left", "top-right", "bottom-left", "bottom-right"
};
static const gchar *channel_modes[] = { "rgb", "luma", "each" };

G_STATIC_ASSERT (G_N_ELEMENTS (positions) == CF_OVERLAY_CORNER_COUNT);
G_STATIC_ASSERT (G_N_ELEMENTS (channel_modes) == CF_OVERLAY_CHANNELS_COUNT);

/* What the element is set to, as the test sees it. */
typedef struct
{
  CfOverlayCorner position;
  gdouble width, height, opacity;
  CfOverlayChannels channels;
  gboolean log_scale, show_text, zebra;
  guint zebra_level;
  gboolean zebra_zero;
} Settings;

static const Settings defaults = {
  CF_OVERLAY_TOP_LEFT, 0.3, 0.35, 0.6, CF_OVERLAY_CHANNELS_RGB, FALSE, TRUE,
  FALSE, 255, FALSE
};

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

/* The timestamp of frame @i at 30 frames/s. */
static GstClockTime
pts_of (guint i)
{
  return gst_util_uint64_scale (i, GST_SECOND, 30);
}

static void
apply (GstElement * e, const Settings * s)
{
  gst_util_set_object_arg (G_OBJECT (e), "position", positions[s->position]);
  gst_util_set_object_arg (G_OBJECT (e), "channels",
      channel_modes[s->channels]);
  g_object_set (e, "width", s->width, "height", s->height, "opacity",
      s->opacity, "log-scale", s->log_scale, "show-text", s->show_text,
      "zebra", s->zebra, "zebra-level", s->zebra_level, "zebra-zero",
      s->zebra_zero, NULL);
}

static GstElement *
element_new (const Settings * s)
{
  GstElement *e = cf_check_element_new ("cudastatsoverlay", NULL);

  apply (e, s);
  return e;
}

static GstHarness *
harness_for (GstElement * e, const GstVideoInfo * info)
{
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");

  gst_object_unref (e);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (info));
  return h;
}

/* A size property in pixels, as documented: a fraction up to 1, rounded
 * half up, pixels above; never beyond the frame. */
static gint
to_pixels (gdouble v, gint full)
{
  gint px = v <= 1.0 ? (gint) (v * full + 0.5) : (gint) (v + 0.5);

  return CLAMP (px, 0, full);
}

static void
plan_for (const Settings * s, CfFormat format, gint w, gint h,
    CfOverlayPlan * plan)
{
  CfOverlayParams p = { 0, };

  p.corner = s->position;
  p.panel_width = to_pixels (s->width, w);
  p.panel_height = to_pixels (s->height, h);
  p.inset = MIN (w, h) / 60;
  p.opacity = (gint) (s->opacity * 255 + 0.5);
  p.channels = s->channels;
  p.log_scale = s->log_scale;
  p.show_text = s->show_text;
  p.zebra = s->zebra;
  p.zebra_level = s->zebra_level;
  p.zebra_zero = s->zebra_zero;
  fail_unless_equals_int (cf_overlay_plan_init (plan, format, w, h, &p), 0);
}

/* Tenths of frames per second the element shows for frame @i of a stream
 * of frames at @pts (frames 0 .. @i): over the last FPS_WINDOW frames. */
static gint
fps_for (const GstClockTime * pts, guint i)
{
  guint n = MIN (i + 1, FPS_WINDOW);
  GstClockTime first = pts[i + 1 - n];

  if (n < 2 || pts[i] <= first)
    return -1;
  return (gint) gst_util_uint64_scale_round (10 * (n - 1), GST_SECOND,
      pts[i] - first);
}

/* What the element must write for @buf (an @info frame) under @s, packed;
 * the statistics are @stats, or those of @buf when NULL. */
static GBytes *
oracle (const GstVideoInfo * info, GstBuffer * buf, const Settings * s,
    gint fps, const CfStats * stats)
{
  GstBuffer *outbuf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame fi, fo;
  CfImage src, dst;
  CfCheckPlanar planar;
  CfOverlayPlan plan;
  CfStats own;
  GBytes *b;

  gst_buffer_memset (outbuf, 0, 0xaa, info->size);
  fail_unless (gst_video_frame_map (&fi, info, buf, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, info, outbuf, GST_MAP_WRITE));
  cf_check_image_of (&fi, &src);
  cf_check_image_of (&fo, &dst);
  fail_unless_equals_int (cf_image_copy (&src, &dst), 0);
  cf_check_planar_begin (&planar, &dst);
  if (!stats) {
    fail_unless_equals_int (cf_stats_cpu (&dst, &own), 0);
    stats = &own;
  }
  plan_for (s, dst.format, dst.width, dst.height, &plan);
  fail_unless_equals_int (cf_overlay_cpu (&plan, &dst, stats, fps), 0);
  cf_check_planar_end (&planar, &dst, TRUE);
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);
  b = cf_check_pack (info, outbuf);
  gst_buffer_unref (outbuf);
  return b;
}

/* Pushes @n frames (@frames, or random ones) at 30 frames/s, then EOS, and
 * checks each output against the oracle for @s (@s[i] per frame when
 * @per_frame, set on the element just before frame i is pushed). The
 * CUDA backend holds frames in flight, so every output is pulled after EOS. */
static void
run_frames (GstHarness * h, const GstVideoInfo * info, const Settings * s,
    gboolean per_frame, guint n, GstBuffer ** frames, const gchar * what)
{
  GstClockTime pts[MAX_FRAMES];
  GBytes *want[MAX_FRAMES];
  guint i;

  fail_unless (n <= MAX_FRAMES);
  for (i = 0; i < n; i++) {
    const Settings *si = per_frame ? &s[i] : s;
    GstBuffer *buf = frames && frames[i] ? frames[i] :
        cf_check_frame_new (info, prng, pts_of (i), pts_of (i + 1) -
        pts_of (i), FALSE);

    GST_BUFFER_PTS (buf) = pts[i] = pts_of (i);
    if (per_frame && i > 0)
      apply (h->element, si);
    want[i] = oracle (info, buf, si, fps_for (pts, i), NULL);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < n; i++) {
    GstBuffer *out = gst_harness_try_pull (h);
    gchar *ctx = g_strdup_printf ("%s, %s %dx%d, frame %u", what,
        GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), i);

    fail_unless (out != NULL, "%s: no output", ctx);
    fail_unless_equals_clocktime (GST_BUFFER_PTS (out), pts_of (i));
    cf_check_assert_frame (info, out, want[i], ctx);
    gst_buffer_unref (out);
    g_bytes_unref (want[i]);
    g_free (ctx);
  }
  fail_unless (gst_harness_try_pull (h) == NULL, "%s: too many outputs", what);
}

/* ---- against the oracle ----------------------------------------------- */

static const gint sizes[][2] = {
  {1, 1}, {33, 17}, {320, 240}, {64, 48}, {7, 129},
};

/* Settings number @k of a rotation over every property. */
static Settings
rotating (guint k)
{
  static const gdouble widths[] = { 0.3, 1.0, 50, 0, 0.75, 2000 };
  static const gdouble heights[] = { 0.35, 0.5, 1.0, 40, 0.2 };
  static const gdouble opacities[] = { 0.6, 0, 1, 0.25, 0.999 };
  static const guint levels[] = { 255, 200, 128, 0 };
  Settings s;

  s.position = k % CF_OVERLAY_CORNER_COUNT;
  s.width = widths[k % G_N_ELEMENTS (widths)];
  s.height = heights[k % G_N_ELEMENTS (heights)];
  s.opacity = opacities[k % G_N_ELEMENTS (opacities)];
  s.channels = (k / 2) % CF_OVERLAY_CHANNELS_COUNT;
  s.log_scale = (k / 3) % 2;
  s.show_text = k % 7 != 3;
  s.zebra = k % 2;
  s.zebra_level = levels[(k / 2) % G_N_ELEMENTS (levels)];
  s.zebra_zero = (k / 4) % 2;
  return s;
}

/* Every format at every size (one test per format), the settings rotating,
 * random frames; padded strides; once 20 frames, past the frame-rate
 * window. */
GST_START_TEST (test_formats)
{
  const gchar *format = all_formats[__i__];
  guint k;

  for (k = 0; k < G_N_ELEMENTS (sizes) + 2; k++) {
    const guint z = k % G_N_ELEMENTS (sizes);
    Settings s = rotating (k + __i__);
    GstVideoInfo info;
    GstHarness *h;
    gchar *what = g_strdup_printf ("%s %s w %g h %g opacity %g%s%s%s "
        "zebra %d/%u/%d", positions[s.position], channel_modes[s.channels],
        s.width, s.height, s.opacity, s.log_scale ? " log" : "",
        s.show_text ? " text" : "", k >= G_N_ELEMENTS (sizes) ? " padded" :
        "", s.zebra, s.zebra_level, s.zebra_zero);

    cf_check_set_info (&info, format, sizes[z][0], sizes[z][1]);
    h = harness_for (element_new (&s), &info);
    if (k >= G_N_ELEMENTS (sizes)) {
      GstBuffer *frames[3];
      guint i;

      for (i = 0; i < 3; i++)
        frames[i] = cf_check_padded_frame_new (&info, 13 + 51 * i, 40 * i,
            prng, 0, GST_SECOND / 30);
      run_frames (h, &info, &s, FALSE, 3, frames, what);
    } else {
      run_frames (h, &info, &s, FALSE, z == 3 ? 20 : 3, NULL, what);
    }
    gst_harness_teardown (h);
    g_free (what);
  }
}

GST_END_TEST;

/* The timestamps set the frame rate shown: irregular ones, a jump back
 * (no rate until it is passed), none at all (no rate). */
GST_START_TEST (test_fps_text)
{
  static const GstClockTime pts[] = {
    0, 100 * GST_MSECOND, 150 * GST_MSECOND, 160 * GST_MSECOND,
    90 * GST_MSECOND, 200 * GST_MSECOND, 3 * GST_SECOND,
  };
  GstClockTime seen[G_N_ELEMENTS (pts)];
  GBytes *want[G_N_ELEMENTS (pts) + 1];
  Settings s = defaults;
  GstVideoInfo info;
  GstHarness *h;
  GstBuffer *buf, *out;
  guint i;

  cf_check_set_info (&info, "RGBA", 200, 120);
  s.width = s.height = 1.0;
  h = harness_for (element_new (&s), &info);
  for (i = 0; i < G_N_ELEMENTS (pts); i++) {
    buf = cf_check_frame_new (&info, prng, pts[i], GST_CLOCK_TIME_NONE, FALSE);
    seen[i] = pts[i];
    want[i] = oracle (&info, buf, &s, fps_for (seen, i), NULL);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  /* no timestamp: no rate, and the window starts again */
  buf = cf_check_frame_new (&info, prng, GST_CLOCK_TIME_NONE,
      GST_CLOCK_TIME_NONE, FALSE);
  want[i] = oracle (&info, buf, &s, -1, NULL);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < G_N_ELEMENTS (want); i++) {
    gchar *what = g_strdup_printf ("frame %u", i);

    out = gst_harness_try_pull (h);
    fail_unless (out != NULL);
    cf_check_assert_frame (&info, out, want[i], what);
    gst_buffer_unref (out);
    g_bytes_unref (want[i]);
    g_free (what);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- the frame rate across seeks and new segments --------------------- */

/* A stream into cudastatsoverlay (RGBA 200x120, the panel over the whole
 * frame so the rate's line is drawn), its frames handed out as they are
 * pushed (frames-in-flight 1 on CUDA), the segment upstream as a source
 * keeps it, and the timestamps the element must measure the rate over. */
typedef struct
{
  GstHarness *h;
  GstVideoInfo info;
  Settings s;
  GstSegment segment;
  GstClockTime seen[64];        /* since the timeline last broke */
  guint n_seen;
} FpsStream;

static void
fps_stream_init (FpsStream * f)
{
  GstElement *e;
  GstBuffer *buf;
  GBytes *with_rate, *without;

  memset (f, 0, sizeof (*f));
  cf_check_set_info (&f->info, "RGBA", 200, 120);
  f->s = defaults;
  f->s.width = f->s.height = 1.0;
  e = element_new (&f->s);
  g_object_set (e, "frames-in-flight", 1, NULL);
  f->h = harness_for (e, &f->info);
  gst_segment_init (&f->segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (f->h,
          gst_event_new_segment (&f->segment)));
  /* the rate is on the picture: "FPS 30.0" and "FPS -" differ */
  buf = cf_check_frame_new (&f->info, prng, 0, 0, FALSE);
  with_rate = oracle (&f->info, buf, &f->s, 300, NULL);
  without = oracle (&f->info, buf, &f->s, -1, NULL);
  fail_if (g_bytes_equal (with_rate, without), "no frame rate drawn");
  g_bytes_unref (with_rate);
  g_bytes_unref (without);
  gst_buffer_unref (buf);
}

/* Pushes a frame at @pts (1/30 s long) and checks that it comes out drawn
 * with the rate of the frames since the timeline last broke, this one
 * included, which it returns (tenths of frames/s, -1: none). */
static gint
fps_stream_push (FpsStream * f, GstClockTime pts, const gchar * what)
{
  GstBuffer *buf = cf_check_frame_new (&f->info, prng, pts, GST_SECOND / 30,
      FALSE);
  GstBuffer *out;
  GBytes *want;
  gchar *ctx;
  gint fps;

  fail_unless (f->n_seen < G_N_ELEMENTS (f->seen));
  f->seen[f->n_seen++] = pts;
  fps = fps_for (f->seen, f->n_seen - 1);
  want = oracle (&f->info, buf, &f->s, fps, NULL);
  ctx = g_strdup_printf ("%s: frame at %" GST_TIME_FORMAT ", want FPS %d "
      "tenths", what, GST_TIME_ARGS (pts), fps);
  fail_unless_equals_int (gst_harness_push (f->h, buf), GST_FLOW_OK);
  out = gst_harness_try_pull (f->h);
  fail_unless (out != NULL, "%s: no output", ctx);
  cf_check_assert_frame (&f->info, out, want, ctx);
  /* as a source's position goes on */
  f->segment.position = pts + GST_SECOND / 30;
  gst_buffer_unref (out);
  g_bytes_unref (want);
  g_free (ctx);
  return fps;
}

/* Pushes @n frames at 30 frames/s from @from and checks their rates: none
 * on the first after a break (@fresh), 30.0 on every other. */
static void
fps_stream_run (FpsStream * f, GstClockTime from, guint n, gboolean fresh,
    const gchar * what)
{
  guint i;

  for (i = 0; i < n; i++)
    fail_unless_equals_int (fps_stream_push (f, from + pts_of (i), what),
        fresh && i == 0 ? -1 : 300);
}

/* Seeks upstream's segment as gst_segment_do_seek () does for a source
 * (@flags GST_SEEK_FLAG_FLUSH: with the flush events) and sends the new
 * segment; @breaks: the frames after it start a new timeline. */
static void
fps_stream_seek (FpsStream * f, gdouble rate, GstSeekFlags flags,
    GstSeekType start_type, GstClockTime start, GstSeekType stop_type,
    GstClockTime stop, gboolean breaks)
{
  fail_unless (gst_segment_do_seek (&f->segment, rate, GST_FORMAT_TIME, flags,
          start_type, start, stop_type, stop, NULL));
  if (flags & GST_SEEK_FLAG_FLUSH) {
    fail_unless (gst_harness_push_event (f->h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (f->h,
            gst_event_new_flush_stop (TRUE)));
  }
  fail_unless (gst_harness_push_event (f->h,
          gst_event_new_segment (&f->segment)));
  if (breaks)
    f->n_seen = 0;
}

/* A flushing seek forward or back: the frame rate of the frames after it
 * is right from the second one, not the rate across the jump (a fraction
 * of a frame per second forward, none back) for a window of frames. */
GST_START_TEST (test_fps_after_flushing_seek)
{
  FpsStream f;

  fps_stream_init (&f);
  fps_stream_run (&f, 0, 20, TRUE, "from the start");
  fps_stream_seek (&f, 1.0, GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET,
      30 * GST_SECOND, GST_SEEK_TYPE_NONE, 0, TRUE);
  fps_stream_run (&f, 30 * GST_SECOND, 18, TRUE, "after a seek forward");
  fps_stream_seek (&f, 1.0, GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET,
      2 * GST_SECOND, GST_SEEK_TYPE_NONE, 0, TRUE);
  fps_stream_run (&f, 2 * GST_SECOND, 18, TRUE, "after a seek back");
  /* a flushing seek to where the frames are is a new start all the same */
  fps_stream_seek (&f, 1.0, GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE,
      GST_SEEK_TYPE_SET, f.segment.position, GST_SEEK_TYPE_NONE, 0, TRUE);
  fps_stream_run (&f, f.segment.start, 3, TRUE, "after a seek in place");
  gst_harness_teardown (f.h);
}

GST_END_TEST;

/* New segments without a flush: one that gives the frames seen the running
 * times they had goes on measuring over them (the same segment again, a
 * seek that moves only the stop, or to where the frames are); any other
 * starts a new timeline (a seek elsewhere, a segment seek looping back,
 * the next file of a concat, a new rate). */
GST_START_TEST (test_fps_new_segments)
{
  FpsStream f;
  GstSegment next;

  fps_stream_init (&f);
  fps_stream_run (&f, 0, 20, TRUE, "from the start");

  /* the same segment again (sticky events sent anew) */
  fail_unless (gst_harness_push_event (f.h,
          gst_event_new_segment (&f.segment)));
  fps_stream_run (&f, pts_of (20), 2, FALSE, "the same segment");
  /* a new stop: base and offset keep the running time going */
  fps_stream_seek (&f, 1.0, GST_SEEK_FLAG_NONE, GST_SEEK_TYPE_NONE, 0,
      GST_SEEK_TYPE_SET, 100 * GST_SECOND, FALSE);
  fps_stream_run (&f, pts_of (22), 2, FALSE, "a new stop");
  /* a seek to the position reached */
  fps_stream_seek (&f, 1.0, GST_SEEK_FLAG_NONE, GST_SEEK_TYPE_SET,
      f.segment.position, GST_SEEK_TYPE_NONE, 0, FALSE);
  fps_stream_run (&f, pts_of (24), 2, FALSE, "a seek in place");

  /* a seek forward, and back */
  fps_stream_seek (&f, 1.0, GST_SEEK_FLAG_NONE, GST_SEEK_TYPE_SET,
      40 * GST_SECOND, GST_SEEK_TYPE_NONE, 0, TRUE);
  fps_stream_run (&f, 40 * GST_SECOND, 17, TRUE, "a seek forward");
  fps_stream_seek (&f, 1.0, GST_SEEK_FLAG_NONE, GST_SEEK_TYPE_SET,
      5 * GST_SECOND, GST_SEEK_TYPE_NONE, 0, TRUE);
  fps_stream_run (&f, 5 * GST_SECOND, 17, TRUE, "a seek back");
  /* a segment seek looping: the same start, the base moved on */
  fps_stream_seek (&f, 1.0, GST_SEEK_FLAG_SEGMENT, GST_SEEK_TYPE_SET,
      5 * GST_SECOND, GST_SEEK_TYPE_NONE, 0, TRUE);
  fps_stream_run (&f, 5 * GST_SECOND, 17, TRUE, "a segment loop");
  /* the next file of a concat: timestamps from 0 again, base past the
   * first file */
  gst_segment_init (&next, GST_FORMAT_TIME);
  next.base = gst_segment_to_running_time (&f.segment, GST_FORMAT_TIME,
      f.segment.position);
  f.segment = next;
  fail_unless (gst_harness_push_event (f.h,
          gst_event_new_segment (&f.segment)));
  f.n_seen = 0;
  fps_stream_run (&f, 0, 17, TRUE, "the next file");
  /* twice the rate, the position kept (the timestamps go on, but they
   * are played at another pace) */
  fps_stream_seek (&f, 2.0, GST_SEEK_FLAG_NONE, GST_SEEK_TYPE_NONE, 0,
      GST_SEEK_TYPE_NONE, 0, TRUE);
  fps_stream_run (&f, pts_of (17), 17, TRUE, "twice the rate");
  /* at that rate, a new stop goes on (running times rounded alike) */
  fps_stream_seek (&f, 2.0, GST_SEEK_FLAG_NONE, GST_SEEK_TYPE_NONE, 0,
      GST_SEEK_TYPE_SET, 90 * GST_SECOND, FALSE);
  fps_stream_run (&f, pts_of (34), 2, FALSE, "a new stop at twice the rate");
  gst_harness_teardown (f.h);
}

GST_END_TEST;

/* ---- statistics from the cudastats meta ------------------------------- */

/* The same frames through cudastats ! cudastatsoverlay (statistics from
 * the meta) and through cudastatsoverlay alone give the same bytes, the
 * oracle's. */
GST_START_TEST (test_meta_path)
{
  const gchar *format = all_formats[__i__];
  Settings s = rotating (__i__);
  GstClockTime pts[4];
  GBytes *want[4];
  GstBuffer *in[4];
  GstVideoInfo info;
  GstHarness *alone, *chain;
  gchar *desc;
  guint i;

  cf_check_set_info (&info, format, 96, 54);
  s.width = 0.8;
  s.height = 0.9;
  alone = harness_for (element_new (&s), &info);
  desc = g_strdup_printf ("cudastats backend=%s post-messages=false ! "
      "cudastatsoverlay backend=%s name=overlay", cf_test_backend_name (),
      cf_test_backend_name ());
  chain = gst_harness_new_parse (desc);
  g_free (desc);
  {
    GstElement *overlay = gst_bin_get_by_name (GST_BIN (chain->element),
        "overlay");

    apply (overlay, &s);
    gst_object_unref (overlay);
  }
  gst_harness_set_src_caps (chain, gst_video_info_to_caps (&info));
  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    in[i] = cf_check_frame_new (&info, prng, pts_of (i), GST_SECOND / 30,
        FALSE);
    pts[i] = pts_of (i);
    want[i] = oracle (&info, in[i], &s, fps_for (pts, i), NULL);
    fail_unless_equals_int (gst_harness_push (alone, gst_buffer_copy (in[i])),
        GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (chain, in[i]), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (alone, gst_event_new_eos ()));
  fail_unless (gst_harness_push_event (chain, gst_event_new_eos ()));
  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    GstBuffer *a = gst_harness_pull (alone), *c = gst_harness_pull (chain);
    GBytes *pa = cf_check_pack (&info, a);
    gchar *what = g_strdup_printf ("%s frame %u", format, i);

    cf_check_assert_frame (&info, c, pa, what);
    cf_check_assert_frame (&info, a, want[i], what);
    g_bytes_unref (pa);
    g_bytes_unref (want[i]);
    gst_buffer_unref (a);
    gst_buffer_unref (c);
    g_free (what);
  }
  gst_harness_teardown (alone);
  gst_harness_teardown (chain);
}

GST_END_TEST;

/* The meta's statistics are drawn, not the frame's own: a frame carrying
 * the meta of another frame shows the other frame's numbers; a meta of
 * another format is not used. */
GST_START_TEST (test_meta_used)
{
  static const gchar *formats[] = { "RGBA", "I420", "GRAY16_LE" };
  const gchar *format = formats[__i__];
  GstHarness *stats_h, *h;
  GstVideoInfo info;
  GstBuffer *a, *b, *out;
  GstCfStatsMeta *meta;
  CfStats of_a;
  GBytes *want[2];
  GstClockTime pts[2] = { 0, GST_SECOND / 30 };
  Settings s = defaults;
  gchar *desc;
  guint i;

  cf_check_set_info (&info, format, 120, 90);
  s.width = s.height = 1.0;
  desc = g_strdup_printf ("cudastats backend=%s post-messages=false",
      cf_test_backend_name ());
  stats_h = gst_harness_new_parse (desc);
  g_free (desc);
  gst_harness_set_src_caps (stats_h, gst_video_info_to_caps (&info));
  fail_unless_equals_int (gst_harness_push (stats_h, cf_check_frame_new (&info,
              prng, 0, 0, FALSE)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (stats_h, gst_event_new_eos ()));
  a = gst_harness_pull (stats_h);
  gst_harness_teardown (stats_h);
  meta = gst_buffer_get_cf_stats_meta (a);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->format, GST_VIDEO_INFO_FORMAT (&info));
  of_a = cf_meta_stats (meta);

  h = harness_for (element_new (&s), &info);
  for (i = 0; i < 2; i++) {
    /* a's meta (a copy keeps it), b's pixels */
    b = gst_buffer_copy_deep (a);
    cf_check_fill_random (b, prng);
    GST_BUFFER_PTS (b) = pts[i];
    meta = gst_buffer_get_cf_stats_meta (b);
    fail_unless (meta != NULL);
    if (i == 1)
      meta->format = GST_VIDEO_FORMAT_Y41B;
    want[i] = oracle (&info, b, &s, fps_for (pts, i), i == 0 ? &of_a : NULL);
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < 2; i++) {
    out = gst_harness_pull (h);
    cf_check_assert_frame (&info, out, want[i], i == 0 ? "a's meta" :
        "a meta of another format");
    gst_buffer_unref (out);
    g_bytes_unref (want[i]);
  }
  gst_harness_teardown (h);
  gst_buffer_unref (a);
}

GST_END_TEST;

/* ---- changes while PLAYING -------------------------------------------- */

/* A property changed while PLAYING takes effect from the next frame on. */
GST_START_TEST (test_change_while_playing)
{
  static const gchar *formats[] = { "RGBA", "NV12", "GRAY16_LE" };
  Settings s[10];
  GstVideoInfo info;
  GstHarness *h;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (s); i++)
    s[i] = i == 0 ? defaults : s[i - 1];
  s[1].position = CF_OVERLAY_BOTTOM_RIGHT;
  s[2].channels = CF_OVERLAY_CHANNELS_EACH;
  s[3].zebra = TRUE;
  s[3].zebra_level = 150;
  s[4].log_scale = TRUE;
  s[4].zebra_zero = TRUE;
  s[5].show_text = FALSE;
  s[5].opacity = 1.0;
  s[6].width = 0.9;
  s[6].height = 20;
  s[7].channels = CF_OVERLAY_CHANNELS_LUMA;
  s[7].position = CF_OVERLAY_TOP_RIGHT;
  s[8].width = 0;
  s[9] = defaults;
  cf_check_set_info (&info, formats[__i__], 160, 120);
  h = harness_for (element_new (&s[0]), &info);
  run_frames (h, &info, s, TRUE, G_N_ELEMENTS (s), NULL, "while playing");
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- zebra by hand ---------------------------------------------------- */

/* With no panel, zebra on a ramp: a pixel at or above the level on a
 * stripe ((x + y) / (4 S) even, S = 1 here) turns black (GRAY8 0, Y 16),
 * one at 0 on a stripe white with zebra-zero (GRAY8 255, Y 235), every
 * other pixel and the chroma stay as they were. */
GST_START_TEST (test_zebra_by_hand)
{
  const gboolean yuv = __i__ / 2 == 1, zero = __i__ % 2;
  const gint w = 256, hh = 24, level = 200;
  const guint black = yuv ? 16 : 0, white = yuv ? 235 : 255;
  Settings s = defaults;
  GstVideoInfo info;
  GstVideoFrame f;
  GstBuffer *in, *out;
  GstHarness *h;
  guint8 *row;
  gint x, y, marked = 0, kept_high = 0;

  cf_check_set_info (&info, yuv ? "I420" : "GRAY8", w, hh);
  in = cf_check_frame_new (&info, prng, 0, 0, FALSE);
  fail_unless (gst_video_frame_map (&f, &info, in, GST_MAP_WRITE));
  for (y = 0; y < hh; y++) {
    row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
    for (x = 0; x < w; x++)
      row[x] = (x + 7 * y) % 256;
  }
  gst_video_frame_unmap (&f);
  s.width = 0;
  s.zebra = TRUE;
  s.zebra_level = level;
  s.zebra_zero = zero;
  h = harness_for (element_new (&s), &info);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  out = gst_harness_pull (h);
  {
    GstVideoFrame fi, fo;
    guint p;

    fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_READ));
    for (y = 0; y < hh; y++) {
      const guint8 *a = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fi, 0) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fi, 0);
      const guint8 *b = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, 0) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fo, 0);

      for (x = 0; x < w; x++) {
        const gboolean stripe = (x + y) / 4 % 2 == 0;
        guint want = a[x];

        if (stripe && a[x] >= level)
          want = black;
        else if (stripe && zero && a[x] == 0)
          want = white;
        fail_unless (b[x] == want, "pixel %d,%d (%u): got %u, want %u", x, y,
            a[x], b[x], want);
        marked += want != a[x];
        kept_high += !stripe && a[x] >= level;
      }
    }
    for (p = 1; p < GST_VIDEO_FRAME_N_PLANES (&fi); p++)
      for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fi, p); y++)
        fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fi, p) +
                y * GST_VIDEO_FRAME_PLANE_STRIDE (&fi, p),
                (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, p) +
                y * GST_VIDEO_FRAME_PLANE_STRIDE (&fo, p),
                GST_VIDEO_FRAME_COMP_WIDTH (&fi, p)) == 0,
            "chroma plane %u row %d changed", p, y);
    gst_video_frame_unmap (&fo);
    gst_video_frame_unmap (&fi);
  }
  /* the ramp has highlights on and off the stripes */
  fail_unless (marked > 100 && kept_high > 100, "%d %d", marked, kept_high);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- caps ------------------------------------------------------------- */

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
    cf_check_refuses_caps ("cudastatsoverlay", caps[k]);
}

GST_END_TEST;

/* ---- golden images ---------------------------------------------------- */

#ifdef HAVE_PNG

/* The synthetic picture of the golden images at @x, @y of @w x @h, as
 * 8-bit R, G, B: a horizontal red and vertical green gradient, blue
 * checks of 64 pixels, a white block (clipped, for zebra), a black block
 * (crushed) and a mid-grey block; opaque (alpha, never drawn on, is 255
 * so the PNGs show the picture; the oracle tests use random alpha). */
static void
synthetic_rgb (gint x, gint y, gint w, gint h, guint8 rgb[3])
{
  const gint bx = x * 16 / w, by = y * 9 / h;

  rgb[0] = x * 255 / (w - 1);
  rgb[1] = y * 255 / (h - 1);
  rgb[2] = (x / 64 + y / 64) % 2 ? 192 : 32;
  if (by == 6 && bx >= 10 && bx <= 11)
    rgb[0] = rgb[1] = rgb[2] = 255;
  else if (by == 6 && bx == 13)
    rgb[0] = rgb[1] = rgb[2] = 0;
  else if (by == 7 && bx >= 6 && bx <= 8)
    rgb[0] = rgb[1] = rgb[2] = 128;
}

/* The synthetic picture as an @info frame (RGBA, or I420 by the overlay's
 * own BT.601 limited-range integer conversion, chroma from the top-left
 * pixel), at @pts. */
static GstBuffer *
synthetic_frame (const GstVideoInfo * info, GstClockTime pts)
{
  const gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  const gboolean rgba = GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_RGBA;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame f;
  guint8 rgb[3];
  gint x, y;

  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  for (y = 0; y < h; y++) {
    for (x = 0; x < w; x++) {
      gint r, g, b;

      synthetic_rgb (x, y, w, h, rgb);
      r = rgb[0];
      g = rgb[1];
      b = rgb[2];
      if (rgba) {
        guint8 *p = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
            y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + 4 * x;

        p[0] = r;
        p[1] = g;
        p[2] = b;
        p[3] = 255;
        continue;
      }
      ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x] =
          ((66 * r + 129 * g + 25 * b + 128) >> 8) + 16;
      if (x % 2 == 0 && y % 2 == 0) {
        ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 1))[y / 2 *
            GST_VIDEO_FRAME_PLANE_STRIDE (&f, 1) + x / 2] =
            (-38 * r - 74 * g + 112 * b + 32896) >> 8;
        ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 2))[y / 2 *
            GST_VIDEO_FRAME_PLANE_STRIDE (&f, 2) + x / 2] =
            (112 * r - 94 * g - 18 * b + 32896) >> 8;
      }
    }
  }
  gst_video_frame_unmap (&f);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

/* A packed frame as the picture of its PNG: RGBA as is; I420 as GRAY8
 * w x (h + h / 2), Y on top, under it U (left) and V (right) side by
 * side, row r of both on picture row h + r. */
static guint8 *
png_picture (const GstVideoInfo * info, GBytes * packed, gint * pw, gint * ph,
    gint * bpp)
{
  const gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  gsize n;
  const guint8 *d = g_bytes_get_data (packed, &n);
  guint8 *pic;
  gint r;

  if (GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_RGBA) {
    *pw = w;
    *ph = h;
    *bpp = 4;
    return g_memdup2 (d, n);
  }
  fail_unless (w % 2 == 0 && h % 2 == 0);
  *pw = w;
  *ph = h + h / 2;
  *bpp = 1;
  pic = g_malloc ((gsize) w * *ph);
  memcpy (pic, d, (gsize) w * h);
  for (r = 0; r < h / 2; r++) {
    memcpy (pic + (gsize) (h + r) * w, d + (gsize) w * h + r * (w / 2), w / 2);
    memcpy (pic + (gsize) (h + r) * w + w / 2, d + (gsize) w * h +
        (gsize) (w / 2) * (h / 2) + r * (w / 2), w / 2);
  }
  return pic;
}

static void
png_write (const gchar * path, const guint8 * pic, gint w, gint h, gint bpp)
{
  FILE *fp = fopen (path, "wb");
  png_structp png;
  png_infop pi;
  gint y;

  fail_unless (fp != NULL, "cannot write %s", path);
  png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  pi = png_create_info_struct (png);
  fail_if (setjmp (png_jmpbuf (png)), "libpng failed on %s", path);
  png_init_io (png, fp);
  png_set_compression_level (png, 9);
  png_set_IHDR (png, pi, w, h, 8, bpp == 4 ? PNG_COLOR_TYPE_RGBA :
      PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
      PNG_FILTER_TYPE_DEFAULT);
  png_write_info (png, pi);
  for (y = 0; y < h; y++)
    png_write_row (png, pic + (gsize) y * w * bpp);
  png_write_end (png, NULL);
  png_destroy_write_struct (&png, &pi);
  fail_unless (fclose (fp) == 0);
}

/* The picture of the PNG at @path, which must be @w x @h 8-bit RGBA
 * (@bpp 4) or GRAY (@bpp 1); NULL when there is no such file. */
static guint8 *
png_read (const gchar * path, gint w, gint h, gint bpp)
{
  FILE *fp = fopen (path, "rb");
  png_structp png;
  png_infop pi;
  guint8 *pic;
  gint y;

  if (!fp)
    return NULL;
  png = png_create_read_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  pi = png_create_info_struct (png);
  fail_if (setjmp (png_jmpbuf (png)), "libpng failed on %s", path);
  png_init_io (png, fp);
  png_read_info (png, pi);
  fail_unless_equals_int (png_get_image_width (png, pi), w);
  fail_unless_equals_int (png_get_image_height (png, pi), h);
  fail_unless_equals_int (png_get_bit_depth (png, pi), 8);
  fail_unless_equals_int (png_get_color_type (png, pi), bpp == 4 ?
      PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_GRAY);
  pic = g_malloc ((gsize) w * h * bpp);
  for (y = 0; y < h; y++)
    png_read_row (png, pic + (gsize) y * w * bpp, NULL);
  png_read_end (png, NULL);
  png_destroy_read_struct (&png, &pi, NULL);
  fclose (fp);
  return pic;
}

static const struct
{
  const gchar *format;
  gint w, h;
  gboolean zebra;
} goldens[] = {
  {"RGBA", 1280, 720, FALSE}, {"RGBA", 1280, 720, TRUE},
  {"RGBA", 3840, 2160, FALSE}, {"RGBA", 3840, 2160, TRUE},
  {"I420", 1280, 720, FALSE}, {"I420", 1280, 720, TRUE},
  {"I420", 3840, 2160, FALSE}, {"I420", 3840, 2160, TRUE},
};

/* The overlay with the default properties (and with zebra-level 235 and
 * zebra-zero too) on the second of two synthetic frames at 30 frames/s
 * (so "FPS 30.0" shows) is the golden image, byte for byte. */
GST_START_TEST (test_golden)
{
  const gchar *dir = g_getenv ("CF_GOLDEN_DIR");
  const gboolean write = g_strcmp0 (g_getenv ("CF_GOLDEN_WRITE"), "1") == 0;
  Settings s = defaults;
  GstVideoInfo info;
  GstHarness *h;
  GstBuffer *out;
  GBytes *got;
  guint8 *pic, *want;
  gint pw, ph, bpp;
  gchar *name, *path;

  fail_unless (dir != NULL, "CF_GOLDEN_DIR is not set");
  name = g_strdup_printf ("cudastatsoverlay-%s-%dx%d%s.png",
      goldens[__i__].format, goldens[__i__].w, goldens[__i__].h,
      goldens[__i__].zebra ? "-zebra" : "");
  path = g_build_filename (dir, name, NULL);
  if (goldens[__i__].zebra) {
    s.zebra = s.zebra_zero = TRUE;
    s.zebra_level = 235;
  }
  cf_check_set_info (&info, goldens[__i__].format, goldens[__i__].w,
      goldens[__i__].h);
  h = harness_for (element_new (&s), &info);
  fail_unless_equals_int (gst_harness_push (h, synthetic_frame (&info, 0)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, synthetic_frame (&info,
              pts_of (1))), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_buffer_unref (gst_harness_pull (h));
  out = gst_harness_pull (h);
  got = cf_check_pack (&info, out);
  pic = png_picture (&info, got, &pw, &ph, &bpp);
  if (write) {
    png_write (path, pic, pw, ph, bpp);
    GST_INFO ("wrote %s", path);
  } else {
    gint y, x;

    want = png_read (path, pw, ph, bpp);
    fail_unless (want != NULL, "no golden image %s (CF_GOLDEN_WRITE=1 "
        "makes it)", path);
    for (y = 0; y < ph; y++) {
      const gsize row = (gsize) pw * bpp;

      if (memcmp (pic + y * row, want + y * row, row) == 0)
        continue;
      for (x = 0; pic[y * row + x] == want[y * row + x]; x++);
      fail ("%s: picture row %d, byte %d: got %u, want %u", name, y, x,
          pic[y * row + x], want[y * row + x]);
    }
    g_free (want);
  }
  /* the picture is not the synthetic frame itself */
  {
    GstBuffer *plain = synthetic_frame (&info, 0);
    GBytes *pb = cf_check_pack (&info, plain);

    fail_if (g_bytes_equal (pb, got), "no overlay drawn");
    g_bytes_unref (pb);
    gst_buffer_unref (plain);
  }
  g_free (pic);
  g_bytes_unref (got);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (path);
  g_free (name);
}

GST_END_TEST;
#endif /* HAVE_PNG */

/* The CPU backend draws the same bytes for every n-threads: the panel
 * (its own statistics: no meta upstream) with zebra over the whole frame,
 * 8-bit, 10-bit and packed formats, odd sizes, padded rows. */
static const gchar *n_threads_caps[] = {
  "video/x-raw,format=RGBA,width=321,height=243,framerate=30/1",
  "video/x-raw,format=I420_10LE,width=99,height=71,framerate=30/1",
  "video/x-raw,format=UYVY,width=161,height=91,framerate=30/1",
};

GST_START_TEST (test_n_threads)
{
  static const gchar *const props[] = { "zebra", "true", "zebra-level",
    "120", "width", "0.7", "height", "0.8", NULL
  };

  cf_check_n_threads ("cudastatsoverlay", props, n_threads_caps[__i__], NULL,
      3, NULL, prng);
}

GST_END_TEST;

static Suite *
cudastatsoverlay_suite (void)
{
  Suite *s = suite_create ("cudastatsoverlay");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_loop_test (tc, test_formats, 0, G_N_ELEMENTS (all_formats));
  tcase_add_test (tc, test_fps_text);
  tcase_add_test (tc, test_fps_after_flushing_seek);
  tcase_add_test (tc, test_fps_new_segments);
  tcase_add_loop_test (tc, test_meta_path, 0, G_N_ELEMENTS (all_formats));
  tcase_add_loop_test (tc, test_meta_used, 0, 3);
  tcase_add_loop_test (tc, test_change_while_playing, 0, 3);
  tcase_add_loop_test (tc, test_zebra_by_hand, 0, 4);
  tcase_add_test (tc, test_unsupported_caps);
  if (!cf_test_want_cuda ())
    tcase_add_loop_test (tc, test_n_threads, 0, G_N_ELEMENTS (n_threads_caps));
#ifdef HAVE_PNG
  tcase_add_loop_test (tc, test_golden, 0, G_N_ELEMENTS (goldens));
#else
  printf ("no libpng at build time: the golden images are not compared\n");
#endif
  return s;
}

int
main (int argc, char **argv)
{
  cf_test_require_backend ();
  gst_check_init (&argc, &argv);
  cf_test_seed ();
  return gst_check_run_suite (cudastatsoverlay_suite (), "cudastatsoverlay",
      __FILE__);
}
