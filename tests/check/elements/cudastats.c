/* Element tests of cudastats.
 *
 * Every buffer must leave unchanged (data, timestamps, flags) with a
 * GstCfStatsMeta whose numbers equal cf_stats_cpu () on the same frame
 * (the oracle), or hand-computed answers for known frames; the `cudastats`
 * messages must carry the documented fields and types. Also: frames in
 * flight (order, drain at EOS, flush), renegotiation, padded strides, the
 * backend property, latency and allocation.
 *
 * The program runs once per backend (CF_TEST_BACKEND, see ../meson.build):
 * every element made here gets backend=cf_test_backend_name () unless the
 * test is about the backend property. CF_TEST_SEED=N repeats a run.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <string.h>

#include "cf-check.h"
#include "cf-meta.h"
#include "stats.h"

#define FRAME_DURATION (40 * GST_MSECOND)
/* With CUDA, frames big enough for the GPU to be still at work when the
 * element next looks for finished frames, so that frames really wait in
 * flight; small ones on the CPU (where the tests also run under valgrind). */
#define BUSY_WIDTH (cf_test_want_cuda ()? 1920 : 24)
#define BUSY_HEIGHT (cf_test_want_cuda ()? 1080 : 16)
#define MAX_SENT 24

typedef struct
{
  const gchar *format;
  const gchar *names[CF_MAX_CHANNELS + 1];      /* NULL-terminated */
} FormatCase;

#define RGBA_CH { "R", "G", "B", "A" }
#define RGB_CH { "R", "G", "B" }
#define YUV_CH { "Y", "U", "V" }

static const FormatCase formats[] = {
  {"GRAY8", {"gray"}}, {"GRAY16_LE", {"gray"}}, {"RGBA", RGBA_CH},
  {"BGRA", RGBA_CH}, {"RGBx", RGB_CH}, {"BGRx", RGB_CH}, {"ARGB", RGBA_CH},
  {"ABGR", RGBA_CH}, {"xRGB", RGB_CH}, {"xBGR", RGB_CH}, {"RGB", RGB_CH},
  {"BGR", RGB_CH}, {"I420", YUV_CH}, {"YV12", YUV_CH}, {"NV12", YUV_CH},
  {"NV21", YUV_CH}, {"Y444", YUV_CH}, {"Y42B", YUV_CH},
  {"I420_10LE", YUV_CH}, {"P010_10LE", YUV_CH}, {"P016_LE", YUV_CH},
  {"Y444_16LE", YUV_CH}, {"RGBA64_LE", RGBA_CH}, {"BGRA64_LE", RGBA_CH},
  {"YUY2", YUV_CH}, {"UYVY", YUV_CH},
};

/* What the element must give back for one pushed buffer. */
typedef struct
{
  GstClockTime pts, dts, duration;
  guint flags;
  GBytes *data;
  GstVideoFormat format;
  CfStats stats;
} Sent;

/* Per test (see setup ()): the random source and what was pushed. */
static GRand *prng;
static Sent sent[MAX_SENT];

static void
setup (void)
{
  prng = g_rand_new_with_seed (cf_test_seed ());
  memset (sent, 0, sizeof (sent));
}

static void
teardown (void)
{
  guint i;

  for (i = 0; i < MAX_SENT; i++)
    g_clear_pointer (&sent[i].data, g_bytes_unref);
  g_rand_free (prng);
}

/* ---- elements and frames ---------------------------------------------- */

/* A harness around @e (the harness takes it over), system memory out. With
 * @bus, a bus is set on the element before it starts, so that the messages
 * of start are seen. */
static GstHarness *
harness_for (GstElement * e, GstBus ** bus, const GstVideoInfo * info)
{
  GstHarness *h;

  if (bus) {
    *bus = gst_bus_new ();
    gst_element_set_bus (e, *bus);
  }
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  /* the system memory path: the buffer passes untouched (CUDA memory out is
   * cudamemory.c's) */
  gst_harness_set_sink_caps_str (h, "video/x-raw");
  if (info)
    gst_harness_set_src_caps (h, gst_video_info_to_caps (info));
  return h;
}

/* Sets every sample of component c to a known value (GStreamer's component
 * order is the channel order: R G B A, Y U V, gray) and fills in the
 * statistics that follow, by hand. */
static void
fill_known (const GstVideoInfo * info, GstBuffer * buf, CfStats * want)
{
  static const guint value8[] = { 17, 77, 137, 197 };
  GstVideoFrame f;
  guint c, x, y;

  memset (want, 0, sizeof (*want));
  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  want->n_channels = GST_VIDEO_FRAME_N_COMPONENTS (&f);
  for (c = 0; c < want->n_channels; c++) {
    const GstVideoFormatInfo *fi = f.info.finfo;
    guint8 *data = GST_VIDEO_FRAME_COMP_DATA (&f, c);
    guint w = GST_VIDEO_FRAME_COMP_WIDTH (&f, c);
    guint h = GST_VIDEO_FRAME_COMP_HEIGHT (&f, c);
    /* GStreamer's component value: depth bits from bit shift of a sample
     * (P010: 10 bits from bit 6), the bits around it set to show they are
     * not counted */
    const guint depth = GST_VIDEO_FRAME_COMP_DEPTH (&f, c);
    const guint shift = GST_VIDEO_FORMAT_INFO_SHIFT (f.info.finfo, c);
    const gboolean deep = GST_VIDEO_FORMAT_INFO_BITS (f.info.finfo) > 8;
    const guint v = deep ? (0xa5c3 + c) & ((1u << depth) - 1) : value8[c];
    const guint sample = deep ? (v << shift) | (0xffffu &
        ~(((1u << depth) - 1) << shift)) : v;

    /* GStreamer 1.22 gives V of P010_10LE and P016_LE the offset of a byte
     * (1) in the UV pair of two 16-bit samples: it starts at byte 2 */
    if (deep && GST_VIDEO_FORMAT_INFO_N_PLANES (fi) == 2 && c == 2
        && GST_VIDEO_FORMAT_INFO_POFFSET (fi, c) == 1)
      data = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f,
          GST_VIDEO_FORMAT_INFO_PLANE (fi, c)) + 2;

    for (y = 0; y < h; y++) {
      for (x = 0; x < w; x++) {
        guint8 *p = data + y * GST_VIDEO_FRAME_COMP_STRIDE (&f, c) +
            x * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, c);
        p[0] = sample & 0xff;
        if (deep)
          p[1] = sample >> 8;
      }
    }
    want->min[c] = want->max[c] = v;
    want->count[c] = w * (guint64) h;
    want->sum[c] = want->count[c] * v;
    want->sum_sq[c] = want->count[c] * v * v;
    want->histogram[c][depth > 8 ? v >> (depth - 8) : v] = w * h;
  }
  gst_video_frame_unmap (&f);
}

/* ---- expected results ------------------------------------------------- */

/* The oracle: cf_stats_cpu () on the frame mapped as the element maps it
 * (the caps' layout, or the buffer's GstVideoMeta). */
static void
frame_stats (const GstVideoInfo * info, GstBuffer * buf, CfStats * out)
{
  GstVideoFrame frame;
  CfCheckPlanar planar;
  CfImage img;

  fail_unless (gst_video_frame_map (&frame, info, buf, GST_MAP_READ));
  cf_check_image_of (&frame, &img);
  cf_check_planar_begin (&planar, &img);
  fail_unless_equals_int (cf_stats_cpu (&img, out), 0);
  cf_check_planar_end (&planar, &img, FALSE);
  gst_video_frame_unmap (&frame);
}

#define CHECK_FIELD(f, c) fail_unless (g.f == w.f, "%s (channel %u): got %" \
    G_GUINT64_FORMAT ", want %" G_GUINT64_FORMAT, #f, c, (guint64) g.f, \
    (guint64) w.f)

/* Bit-exact; on a difference, fails at the first differing field. */
static void
assert_stats_equal (const CfStats * got, const CfStats * want)
{
  CfStats g = *got, w = *want;
  guint c, b;

  if (memcmp (&g, &w, sizeof (CfStats)) == 0)
    return;
  CHECK_FIELD (n_channels, 0);
  for (c = 0; c < CF_MAX_CHANNELS; c++) {
    CHECK_FIELD (min[c], c);
    CHECK_FIELD (max[c], c);
    CHECK_FIELD (count[c], c);
    CHECK_FIELD (sum[c], c);
    CHECK_FIELD (sum_sq[c], c);
    for (b = 0; b < CF_STATS_BINS; b++)
      CHECK_FIELD (histogram[c][b], c);
  }
  fail ("CfStats differ");
}

/* The meta, through the statistics library's API (what applications
 * link), as a CfStats copied field by field by name: the public layout is
 * read as an application reads it, never assumed equal to the kernels'. */
static CfStats
stats_meta (GstBuffer * buf, GstVideoFormat format)
{
  const GstCfStatsMeta *m = gst_buffer_get_cf_stats_meta (buf);
  const CfFormatInfo *info;
  CfStats s;
  guint c;

  fail_unless (m != NULL, "no GstCfStatsMeta on %" GST_PTR_FORMAT, buf);
  fail_unless_equals_int (m->version, GST_CF_STATS_META_VERSION);
  fail_unless_equals_int (m->format, format);
  info = cf_format_info (cf_format_from_name (gst_video_format_to_string
          (format)));
  s = cf_meta_stats (m);
  fail_unless_equals_int (gst_cf_stats_meta_get_n_channels (m),
      s.n_channels);
  /* the accessors agree with the fields and with the kernels' helpers */
  for (c = 0; c < CF_MAX_CHANNELS + 1; c++) {
    const gchar *name = gst_cf_stats_meta_get_channel_name (m, c);

    if (c >= s.n_channels) {
      fail_unless (name == NULL);
      fail_unless (gst_cf_stats_meta_get_histogram (m, c) == NULL);
      continue;
    }
    fail_unless_equals_string (name, info->channel_names[c]);
    fail_unless (gst_cf_stats_meta_get_histogram (m, c) ==
        m->stats.histogram[c]);
    fail_unless_equals_float (gst_cf_stats_meta_get_mean (m, c),
        cf_stats_mean (&s, c));
    fail_unless_equals_float (gst_cf_stats_meta_get_variance (m, c),
        cf_stats_variance (&s, c));
  }
  return s;
}

/* Records @buf as sent[i] and pushes it. */
static void
push_frame (GstHarness * h, const GstVideoInfo * info, GstBuffer * buf, guint i)
{
  Sent *s = &sent[i];
  gpointer data;
  gsize size;

  fail_unless (i < MAX_SENT);
  s->pts = GST_BUFFER_PTS (buf);
  s->dts = GST_BUFFER_DTS (buf);
  s->duration = GST_BUFFER_DURATION (buf);
  s->flags = GST_BUFFER_FLAGS (buf);
  gst_buffer_extract_dup (buf, 0, gst_buffer_get_size (buf), &data, &size);
  g_clear_pointer (&s->data, g_bytes_unref);
  s->data = g_bytes_new_take (data, size);
  s->format = GST_VIDEO_INFO_FORMAT (info);
  frame_stats (info, buf, &s->stats);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
}

/* Pushes random frames as sent[first .. first + n - 1], 40 ms apart. */
static void
push_frames (GstHarness * h, const GstVideoInfo * info, guint first,
    guint n, GstClockTime pts)
{
  guint i;

  for (i = 0; i < n; i++)
    push_frame (h, info, cf_check_frame_new (info, prng,
            pts + i * FRAME_DURATION, FRAME_DURATION, FALSE), first + i);
}

/* @out is sent[i], unchanged, with the right meta (kept by copies). */
static void
check_output (GstBuffer * out, guint i)
{
  const Sent *s = &sent[i];
  GstBuffer *copy;
  GstMapInfo map;
  CfStats got;

  fail_unless_equals_clocktime (GST_BUFFER_PTS (out), s->pts);
  fail_unless_equals_clocktime (GST_BUFFER_DTS (out), s->dts);
  fail_unless_equals_clocktime (GST_BUFFER_DURATION (out), s->duration);
  fail_unless (GST_BUFFER_FLAGS (out) == s->flags, "buffer %u: flags 0x%x, "
      "want 0x%x", i, GST_BUFFER_FLAGS (out), s->flags);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, g_bytes_get_size (s->data));
  fail_unless (memcmp (map.data, g_bytes_get_data (s->data, NULL),
          map.size) == 0, "the data of buffer %u changed", i);
  gst_buffer_unmap (out, &map);
  got = stats_meta (out, s->format);
  assert_stats_equal (&got, &s->stats);
  /* a copy keeps the meta */
  copy = gst_buffer_copy (out);
  got = stats_meta (copy, s->format);
  assert_stats_equal (&got, &s->stats);
  gst_buffer_unref (copy);
}

/* ---- messages --------------------------------------------------------- */

/* Pops the cudastats messages posted so far (other messages are dropped). */
static GList *
pop_stats_messages (GstBus * bus)
{
  GList *list = NULL;
  GstMessage *msg;

  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    if (gst_message_has_name (msg, "cudastats"))
      list = g_list_append (list, msg);
    else
      gst_message_unref (msg);
  }
  return list;
}

/* Pops every message posted so far, counting warnings and errors. */
static void
count_messages (GstBus * bus, guint * warnings, guint * errors)
{
  GstMessage *msg;

  *warnings = *errors = 0;
  while ((msg = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING)
      (*warnings)++;
    else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
      (*errors)++;
    gst_message_unref (msg);
  }
}

/* Item @i of the GstValueArray field @name (of @n items) of @s, which must
 * hold a @type. */
static const GValue *
array_item (const GstStructure * s, const gchar * name, guint n, guint i,
    GType type)
{
  const GValue *a = gst_structure_get_value (s, name), *v;

  fail_unless (a != NULL, "no field %s", name);
  fail_unless (GST_VALUE_HOLDS_ARRAY (a), "%s: not a GstValueArray", name);
  fail_unless_equals_int (gst_value_array_get_size (a), n);
  v = gst_value_array_get_value (a, i);
  fail_unless (G_VALUE_TYPE (v) == type, "%s[%u] is a %s, not a %s", name, i,
      G_VALUE_TYPE_NAME (v), g_type_name (type));
  return v;
}

static void
check_times (GstMessage * msg, GstClockTime ts, GstClockTime stream,
    GstClockTime running, GstClockTime duration)
{
  const gchar *fields[] = { "timestamp", "stream-time", "running-time",
    "duration"
  };
  const GstClockTime want[] = { ts, stream, running, duration };
  guint k;
  guint64 v;

  for (k = 0; k < G_N_ELEMENTS (fields); k++) {
    fail_unless (gst_structure_get_uint64 (gst_message_get_structure (msg),
            fields[k], &v), "no guint64 %s", fields[k]);
    fail_unless_equals_clocktime (v, want[k]);
  }
}

/* The statistics fields of a cudastats message against @want. */
static void
check_stats_message (GstMessage * msg, const CfStatsSum * want,
    const gchar * const *names, gboolean with_histogram)
{
  const GstStructure *s = gst_message_get_structure (msg);
  const guint n = want->n_channels;
  guint c, b, frames;

  fail_unless (gst_structure_has_name (s, "cudastats"));
  fail_unless (gst_structure_get_uint (s, "frames", &frames));
  fail_unless_equals_int (frames, want->frames);
  for (c = 0; c < n; c++) {
    gdouble m, v;

    fail_unless_equals_string (g_value_get_string (array_item (s, "channels",
                n, c, G_TYPE_STRING)), names[c]);
    fail_unless_equals_int (g_value_get_uint (array_item (s, "min", n, c,
                G_TYPE_UINT)), want->min[c]);
    fail_unless_equals_int (g_value_get_uint (array_item (s, "max", n, c,
                G_TYPE_UINT)), want->max[c]);
    fail_unless_equals_uint64 (g_value_get_uint64 (array_item (s, "sum", n, c,
                G_TYPE_UINT64)), want->sum[c]);
    m = g_value_get_double (array_item (s, "mean", n, c, G_TYPE_DOUBLE));
    v = g_value_get_double (array_item (s, "variance", n, c, G_TYPE_DOUBLE));
    fail_unless (m == cf_stats_sum_mean (want, c), "mean[%u] %.17g", c, m);
    fail_unless (v == cf_stats_sum_variance (want, c), "variance[%u] %.17g",
        c, v);
  }
  if (!with_histogram) {
    fail_if (gst_structure_has_field (s, "histogram"));
    return;
  }
  for (c = 0; c < n; c++) {
    const GValue *bins = array_item (s, "histogram", n, c, GST_TYPE_ARRAY);

    fail_unless_equals_int (gst_value_array_get_size (bins), CF_STATS_BINS);
    for (b = 0; b < CF_STATS_BINS; b++) {
      const GValue *bin = gst_value_array_get_value (bins, b);

      if (!G_VALUE_HOLDS_UINT (bin) ||
          g_value_get_uint (bin) != MIN (want->histogram[c][b], G_MAXUINT))
        fail ("histogram[%u][%u]: want %" G_GUINT64_FORMAT " (guint)", c, b,
            want->histogram[c][b]);
    }
  }
}

/* The sum of sent[first .. first + n - 1]. */
static void
sum_of (CfStatsSum * sum, guint first, guint n)
{
  guint i;

  cf_stats_sum_reset (sum, 0);
  for (i = first; i < first + n; i++)
    cf_stats_sum_add (sum, &sent[i].stats);
}

/* ---- tests ------------------------------------------------------------ */

/* Every format at an odd size: a random frame (against the oracle) and a
 * frame of known values (against hand-computed numbers) come back
 * unchanged, with their meta and message; in the CUDA run also a full-HD
 * frame of RGBA and NV12. */
GST_START_TEST (test_formats)
{
  const FormatCase *fc = &formats[__i__];
  gboolean full_hd = cf_test_want_cuda () && (!strcmp (fc->format, "RGBA") ||
      !strcmp (fc->format, "NV12"));
  GstVideoInfo info, hd;
  GstHarness *h;
  GstBus *bus;
  GstBuffer *buf;
  GList *msgs, *l;
  CfStatsSum want;
  CfStats known;
  guint i, n = full_hd ? 3 : 2;

  cf_check_set_info (&info, fc->format, 33, 17);
  h = harness_for (cf_check_element_new ("cudastats", NULL), &bus, &info);
  buf = cf_check_frame_new (&info, prng, 0, FRAME_DURATION, FALSE);
  GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  push_frame (h, &info, buf, 0);
  buf = cf_check_frame_new (&info, prng, FRAME_DURATION, FRAME_DURATION, FALSE);
  GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT);
  fill_known (&info, buf, &known);
  push_frame (h, &info, buf, 1);
  assert_stats_equal (&sent[1].stats, &known);  /* the oracle agrees */
  if (full_hd) {
    cf_check_set_info (&hd, fc->format, 1920, 1080);
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&hd));
    push_frame (h, &hd, cf_check_frame_new (&hd, prng, 2 * FRAME_DURATION,
            FRAME_DURATION, FALSE), 2);
  }
  cf_check_eos_and_pull (h, check_output, n);

  msgs = pop_stats_messages (bus);
  fail_unless_equals_int (g_list_length (msgs), n);
  for (i = 0, l = msgs; i < n; i++, l = l->next) {
    sum_of (&want, i, 1);
    fail_unless_equals_int (want.n_channels,
        g_strv_length ((gchar **) fc->names));
    check_stats_message (l->data, &want, fc->names, TRUE);
  }
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  cf_check_harness_free (h, bus);
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
        harness_for (cf_check_element_new ("cudastats", NULL), NULL, NULL);

    gst_harness_set_src_caps_str (h, caps[k]);
    fail_unless_equals_int (gst_harness_push (h,
            gst_buffer_new_allocate (NULL, 32 * 24 * 2, NULL)),
        GST_FLOW_NOT_NEGOTIATED);
    fail_unless_equals_int (gst_harness_buffers_received (h), 0);
    cf_check_harness_free (h, NULL);
  }
}

GST_END_TEST;

/* RGBA 4x2 with R = 10, G = 0..7, B = 255, A = 128, by hand. */
GST_START_TEST (test_message_fields)
{
  static const gchar *names[] = { "R", "G", "B", "A" };
  static const guint value[] = { 10, 0, 255, 128 };     /* G: 0..7 */
  static const gdouble mean[] = { 10, 3.5, 255, 128 };
  static const gdouble var[] = { 0, 5.25, 0, 0 };
  GstVideoInfo info;
  GstHarness *h;
  GstBus *bus;
  GstSegment seg;
  GstBuffer *buf, *out;
  GstMapInfo map;
  GstMessage *msg;
  const GstStructure *s;
  CfStatsSum want = { 0 };
  guint i, c, k;

  /* one frame in flight: each message is posted before the next push */
  cf_check_set_info (&info, "RGBA", 4, 2);
  h = harness_for (cf_check_element_new ("cudastats", "frames-in-flight", "1",
          NULL), &bus, &info);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = 500 * GST_MSECOND;
  seg.time = 10 * GST_SECOND;
  seg.base = 2 * GST_SECOND;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));

  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  want.n_channels = 4;
  want.frames = 1;
  for (c = 0; c < 4; c++) {
    for (i = 0; i < 8; i++) {
      guint v = c == 1 ? i : value[c];

      map.data[4 * i + c] = v;
      want.count[c]++;
      want.sum[c] += v;
      want.sum_sq[c] += v * v;
      want.histogram[c][v]++;
    }
    want.min[c] = c == 1 ? 0 : value[c];
    want.max[c] = c == 1 ? 7 : value[c];
  }
  gst_buffer_unmap (buf, &map);
  fail_unless_equals_uint64 (want.sum[1], 28);
  GST_BUFFER_PTS (buf) = GST_SECOND;
  GST_BUFFER_DURATION (buf) = FRAME_DURATION;

  /* as is; with histogram=false (no such field); with post-messages=false
   * (no message, the meta still) */
  for (k = 0; k < 3; k++) {
    if (k > 0)
      g_object_set (h->element, k == 1 ? "histogram" : "post-messages",
          FALSE, NULL);
    buf = gst_buffer_make_writable (buf);
    GST_BUFFER_PTS (buf) = GST_SECOND + k * FRAME_DURATION;
    push_frame (h, &info, gst_buffer_ref (buf), k);
    out = gst_harness_pull (h);
    check_output (out, k);
    gst_buffer_unref (out);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
    if (k == 2) {
      fail_unless (msg == NULL, "a message with post-messages=false");
      break;
    }
    fail_unless (msg != NULL, "no message");
    fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (h->element));
    check_times (msg, GST_BUFFER_PTS (buf), 9500 * GST_MSECOND +
        GST_BUFFER_PTS (buf), 1500 * GST_MSECOND + GST_BUFFER_PTS (buf),
        FRAME_DURATION);
    check_stats_message (msg, &want, names, k == 0);
    s = gst_message_get_structure (msg);
    for (c = 0; c < 4; c++) {
      fail_unless (g_value_get_double (array_item (s, "mean", 4, c,
                  G_TYPE_DOUBLE)) == mean[c]);
      fail_unless (g_value_get_double (array_item (s, "variance", 4, c,
                  G_TYPE_DOUBLE)) == var[c]);
    }
    gst_message_unref (msg);
  }
  gst_buffer_unref (buf);
  cf_check_harness_free (h, bus);
}

GST_END_TEST;

/* interval = 100 ms over frames of 40 ms: 3 + 3 frames, then 1 at EOS. */
GST_START_TEST (test_interval)
{
  static const gchar *names[] = { "R", "G", "B" };
  const guint first[] = { 0, 3, 6 }, n[] = { 3, 3, 1 };
  GstVideoInfo info;
  GstHarness *h;
  GstBus *bus;
  GList *msgs, *l;
  CfStatsSum want;
  guint i;

  cf_check_set_info (&info, "BGR", 11, 7);
  h = harness_for (cf_check_element_new ("cudastats", "interval", "100000000",
          NULL), &bus, &info);
  push_frames (h, &info, 0, 7, 0);
  cf_check_eos_and_pull (h, check_output, 7);

  msgs = pop_stats_messages (bus);
  fail_unless_equals_int (g_list_length (msgs), 3);
  for (i = 0, l = msgs; i < 3; i++, l = l->next) {
    GstClockTime ts = first[i] * FRAME_DURATION;

    check_times (l->data, ts, ts, ts, n[i] * FRAME_DURATION);
    sum_of (&want, first[i], n[i]);
    check_stats_message (l->data, &want, names, TRUE);
  }
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  cf_check_harness_free (h, bus);
}

GST_END_TEST;

/* Distinct frames come out in order, each with its own numbers and flags,
 * all before EOS (those held in flight are drained). */
static const struct
{
  const gchar *frames_in_flight;
  guint frames;
} in_flight[] = { {"1", 20}, {"2", 20}, {"3", 20}, {"8", 20}, {"8", 5} };

GST_START_TEST (test_frames_in_flight)
{
  const guint n = in_flight[__i__].frames;
  GstVideoInfo info;
  GstHarness *h;
  GString *log, *want = g_string_new (NULL);
  GstEvent *ev;
  guint i;

  cf_check_set_info (&info, "RGBA", BUSY_WIDTH, BUSY_HEIGHT);
  h = harness_for (cf_check_element_new ("cudastats", "frames-in-flight",
          in_flight[__i__].frames_in_flight, NULL), NULL, &info);
  log = cf_check_log_output (h);
  for (i = 0; i < n; i++) {
    GstBuffer *buf =
        cf_check_frame_new (&info, prng, i * FRAME_DURATION, FRAME_DURATION,
        FALSE);

    GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
    if (i == 0 || i == 10)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    if (i % 5)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT);
    push_frame (h, &info, buf, i);
    g_string_append_c (want, 'B');
  }
  cf_check_eos_and_pull (h, check_output, n);
  g_string_append_c (want, 'E');
  fail_unless_equals_string (log->str, want->str);
  while ((ev = gst_harness_try_pull_event (h)) &&
      GST_EVENT_TYPE (ev) != GST_EVENT_EOS)
    gst_event_unref (ev);
  fail_unless (ev != NULL, "no EOS came out");
  gst_event_unref (ev);
  g_string_free (log, TRUE);
  g_string_free (want, TRUE);
  cf_check_harness_free (h, NULL);
}

GST_END_TEST;

/* Frames after a flush come out, none twice; those before it may be
 * dropped. */
GST_START_TEST (test_flush)
{
  GstVideoInfo info;
  GstHarness *h;
  GstSegment seg;
  GstBuffer *out;
  gboolean seen[3] = { FALSE };
  guint after = 0;

  cf_check_set_info (&info, "Y444", BUSY_WIDTH, BUSY_HEIGHT);
  h = harness_for (cf_check_element_new ("cudastats", "frames-in-flight", "3",
          NULL), NULL, &info);
  push_frames (h, &info, 0, 3, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  push_frames (h, &info, 3, 3, GST_SECOND);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  while ((out = gst_harness_try_pull (h))) {
    if (GST_BUFFER_PTS (out) < GST_SECOND) {
      guint k = GST_BUFFER_PTS (out) / FRAME_DURATION;

      fail_unless (after == 0 && k < 3 && !seen[k], "frame %u again", k);
      seen[k] = TRUE;
      check_output (out, k);
    } else {
      fail_unless (after < 3, "a frame after the flush came out twice");
      check_output (out, 3 + after++);
    }
    gst_buffer_unref (out);
  }
  fail_unless_equals_int (after, 3);
  cf_check_harness_free (h, NULL);
}

GST_END_TEST;

/* videotestsrc ! cudastats ! fakesink: 100 cycles NULL -> PLAYING -> NULL,
 * then a flushing seek while playing, and on to EOS; no error. */
GST_START_TEST (test_pipeline)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=20 ! "
      "video/x-raw,width=32,height=24,framerate=30/1 ! "
      "cudastats backend=%s ! fakesink sync=true", cf_test_backend_name ());
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstBus *bus;
  GstMessage *msg;
  guint i, warnings, errors;

  fail_unless (pipeline != NULL, "%s", desc);
  bus = gst_element_get_bus (pipeline);
  for (i = 0; i <= 100; i++) {
    fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE, "cycle %u", i);
    fail_unless_equals_int (gst_element_get_state (pipeline, NULL, NULL,
            GST_CLOCK_TIME_NONE), GST_STATE_CHANGE_SUCCESS);
    if (i == 100)
      break;
    fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
    count_messages (bus, &warnings, &errors);
    fail_unless_equals_int (errors + warnings, 0);
  }
  fail_unless (gst_element_seek_simple (pipeline, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, 0));
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS");
  fail_unless_equals_string (GST_MESSAGE_TYPE_NAME (msg), "eos");
  gst_message_unref (msg);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (desc);
}

GST_END_TEST;

/* A camera's packed 4:2:2 (videotestsrc in YUY2, then UYVY, as v4l2src
 * gives it) through every video element, no videoconvert: the bytes that
 * come out are those of the same frames unpacked to Y42B
 * (cf_packed_unpack_cpu ()), sent through the same chain and packed again.
 * Odd sizes in and out. */
#define PACKED_CHAIN "cudastats backend=%s ! cudastatsoverlay backend=%s ! " \
    "cudastencil backend=%s preset=sharpen ! cudaresize backend=%s"
#define PACKED_FRAMES 3

/* @frames[i] (of @caps) converted by @convert into @format, keeping the
 * caps' other fields and each buffer's timestamps. */
static GstBuffer *
convert_frame (GstBuffer * buf, const GstVideoInfo * from,
    const GstVideoInfo * to, int (*convert) (const CfImage *,
        const CfImage *))
{
  GstBuffer *out = gst_buffer_new_allocate (NULL, to->size, NULL);

  gst_buffer_copy_into (out, buf, GST_BUFFER_COPY_METADATA, 0, -1);
  cf_check_frames_apply (from, buf, to, out, convert);
  return out;
}

static GstCaps *
caps_with_format (GstCaps * caps, const gchar * format)
{
  caps = gst_caps_copy (caps);
  gst_caps_set_simple (caps, "format", G_TYPE_STRING, format, NULL);
  return caps;
}

GST_START_TEST (test_packed_chain)
{
  const gchar *format = __i__ ? "UYVY" : "YUY2";
  const gchar *b = cf_test_backend_name ();
  gchar *chain = g_strdup_printf (PACKED_CHAIN, b, b, b, b);
  gchar *src_caps = g_strdup_printf ("video/x-raw,format=%s,width=161,"
      "height=91,framerate=30/1", format);
  const gchar *out_caps = "video/x-raw,width=81,height=45";
  GstHarness *camera, *got, *want;
  GstCaps *caps, *planar_caps;
  GstVideoInfo in, in_planar, out, out_planar;
  guint i;

  /* what the camera sends: videotestsrc straight into the chain */
  got = gst_harness_new_parse (chain);
  gst_harness_add_src_parse (got, "videotestsrc pattern=ball", FALSE);
  gst_harness_set_sink_caps_str (got->src_harness, src_caps);
  gst_harness_set_sink_caps_str (got, out_caps);
  for (i = 0; i < PACKED_FRAMES; i++)
    fail_unless_equals_int (gst_harness_push_from_src (got), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (got, gst_event_new_eos ()));

  /* the same frames from another videotestsrc, unpacked, through the same
   * chain in Y42B */
  camera = gst_harness_new_parse ("videotestsrc pattern=ball");
  gst_harness_set_sink_caps_str (camera, src_caps);
  gst_harness_play (camera);
  want = gst_harness_new_parse (chain);
  gst_harness_set_sink_caps_str (want, out_caps);
  for (i = 0; i < PACKED_FRAMES; i++) {
    GstBuffer *frame = gst_harness_pull (camera);

    if (i == 0) {
      caps = gst_pad_get_current_caps (camera->sinkpad);
      fail_unless (gst_video_info_from_caps (&in, caps));
      planar_caps = caps_with_format (caps, "Y42B");
      fail_unless (gst_video_info_from_caps (&in_planar, planar_caps));
      gst_harness_set_src_caps (want, planar_caps);
      gst_caps_unref (caps);
    }
    fail_unless_equals_int (gst_harness_push (want, convert_frame (frame, &in,
                &in_planar, cf_packed_unpack_cpu)), GST_FLOW_OK);
    gst_buffer_unref (frame);
  }
  fail_unless (gst_harness_push_event (want, gst_event_new_eos ()));

  for (i = 0; i < PACKED_FRAMES; i++) {
    GstBuffer *g = gst_harness_pull (got), *w = gst_harness_pull (want);
    GstBuffer *packed;
    GBytes *expect;

    fail_unless (g != NULL && w != NULL, "frame %u missing", i);
    if (i == 0) {
      caps = gst_pad_get_current_caps (got->sinkpad);
      fail_unless (gst_video_info_from_caps (&out, caps));
      fail_unless_equals_string (GST_VIDEO_INFO_NAME (&out), format);
      fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&out), 81);
      gst_caps_unref (caps);
      caps = gst_pad_get_current_caps (want->sinkpad);
      fail_unless (gst_video_info_from_caps (&out_planar, caps));
      gst_caps_unref (caps);
    }
    packed = convert_frame (w, &out_planar, &out, cf_packed_pack_cpu);
    expect = cf_check_pack (&out, packed);
    cf_check_assert_frame (&out, g, expect, format);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (g), GST_BUFFER_PTS (w));
    g_bytes_unref (expect);
    gst_buffer_unref (packed);
    gst_buffer_unref (g);
    gst_buffer_unref (w);
  }
  gst_harness_teardown (camera);
  gst_harness_teardown (got);
  gst_harness_teardown (want);
  g_free (chain);
  g_free (src_caps);
}

GST_END_TEST;

/* RGBA 32x24, then NV12 65x33: frames before the new caps come out before
 * them, every frame with the numbers of its own format. */
GST_START_TEST (test_renegotiation)
{
  GstVideoInfo rgba, nv12;
  GstHarness *h;
  GString *log;

  cf_check_set_info (&rgba, "RGBA", 32, 24);
  cf_check_set_info (&nv12, "NV12", 65, 33);
  h = harness_for (cf_check_element_new ("cudastats", NULL), NULL, &rgba);
  log = cf_check_log_output (h);
  push_frames (h, &rgba, 0, 3, 0);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&nv12));
  push_frames (h, &nv12, 3, 3, 3 * FRAME_DURATION);
  cf_check_eos_and_pull (h, check_output, 6);
  fail_unless_equals_string (log->str, "BBBCBBBE");
  fail_unless_equals_int (sent[0].stats.n_channels, 4);
  fail_unless_equals_int (sent[5].stats.n_channels, 3);
  g_string_free (log, TRUE);
  cf_check_harness_free (h, NULL);
}

GST_END_TEST;

/* backend=cpu works in every run, without a message; backend=auto posts
 * one warning where no CUDA device works, none where one does; there,
 * backend=cuda fails to start, with an error. */
GST_START_TEST (test_backends)
{
  const gchar *backend[] = { "cpu", "auto" };
  GstElement *e;
  GstBus *bus;
  guint k, warnings, errors;

  for (k = 0; k < G_N_ELEMENTS (backend); k++) {
    GstVideoInfo info;
    GstHarness *h;

    cf_check_set_info (&info, "GRAY8", 15, 7);
    h = harness_for (cf_check_element_new ("cudastats", "backend", backend[k],
            NULL), &bus, &info);
    push_frames (h, &info, 0, 3, 0);
    cf_check_eos_and_pull (h, check_output, 3);
    count_messages (bus, &warnings, &errors);
    fail_unless_equals_int (warnings, k == 1 && !cf_test_cuda_works ());
    fail_unless_equals_int (errors, 0);
    cf_check_harness_free (h, bus);
  }

  if (cf_test_cuda_works ())
    return;
  e = cf_check_element_new ("cudastats", "backend", "cuda", NULL);
  bus = gst_bus_new ();
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  count_messages (bus, &warnings, &errors);
  fail_unless_equals_int (errors, 1);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (e);
  gst_object_unref (bus);
}

GST_END_TEST;

/* CUDA: (N - 1) frames of 1/30 s added to upstream's latency; CPU: none. */
GST_START_TEST (test_latency)
{
  const gchar *fif[] = { "3", "1" };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (fif); k++) {
    GstVideoInfo info;
    GstHarness *h;
    GstQuery *q = gst_query_new_latency ();
    GstClockTime min, max, ours = 0;
    gboolean live;

    cf_check_set_info (&info, "NV12", 32, 24);
    h = harness_for (cf_check_element_new ("cudastats", "frames-in-flight",
            fif[k], NULL), NULL, &info);
    gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
    fail_unless (gst_pad_peer_query (h->sinkpad, q));
    gst_query_parse_latency (q, &live, &min, &max);
    if (cf_test_want_cuda ())
      ours = gst_util_uint64_scale (atoi (fif[k]) - 1, GST_SECOND, 30);
    fail_unless (live);
    fail_unless_equals_clocktime (min, 10 * GST_MSECOND + ours);
    fail_unless_equals_clocktime (max, GST_CLOCK_TIME_NONE);
    gst_query_unref (q);
    cf_check_harness_free (h, NULL);
  }
}

GST_END_TEST;

/* Strides longer than a row (odd ones too), planes at gaps and odd
 * offsets, described by a GstVideoMeta; 33x17 pictures. */
static const struct
{
  const gchar *format;
  gint extra_stride;
  gsize gap;
} padded[] = {
  {"RGB", 12, 0} /* stride 112 */ , {"RGB", 13, 0}, {"I420", 16, 48},
  {"NV12", 7, 5}, {"GRAY16_LE", 6, 64}, {"BGRx", 4, 16}, {"YV12", 3, 1},
  {"ARGB", 20, 3},
};

GST_START_TEST (test_padded_strides)
{
  GstVideoInfo info, layout;
  GstHarness *h;
  CfFormat cf = cf_format_from_name (padded[__i__].format);
  gsize offset = padded[__i__].gap;
  guint p;

  cf_check_set_info (&info, padded[__i__].format, 33, 17);
  layout = info;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    layout.stride[p] += padded[__i__].extra_stride;
    layout.offset[p] = offset;
    offset += layout.stride[p] * cf_plane_height (cf, p, 17) +
        padded[__i__].gap;
  }
  layout.size = offset;
  h = harness_for (cf_check_element_new ("cudastats", NULL), NULL, &info);
  push_frame (h, &info, cf_check_frame_new (&layout, prng, 0, FRAME_DURATION,
          TRUE), 0);
  cf_check_eos_and_pull (h, check_output, 1);
  cf_check_harness_free (h, NULL);
}

GST_END_TEST;

/* Upstream's ALLOCATION query, with the harness downstream, then with a
 * sink that answers none (fakesink, as most sinks): video meta, and with
 * CUDA a pool (of pinned memory) whose buffers are analysed like others. */
GST_START_TEST (test_allocation)
{
  gchar *desc = g_strdup_printf ("cudastats backend=%s ! fakesink",
      cf_test_backend_name ());
  GstVideoInfo info;
  GstCaps *caps;
  guint i, k, size, min, max;

  cf_check_set_info (&info, "I420", 33, 17);
  caps = gst_video_info_to_caps (&info);
  for (k = 0; k < 2; k++) {
    GstHarness *h =
        k == 0 ? harness_for (cf_check_element_new ("cudastats", NULL), NULL,
        &info) : gst_harness_new_parse (desc);
    GstQuery *q = gst_query_new_allocation (caps, TRUE);
    GstBufferPool *pool = NULL;

    if (k == 1)
      gst_harness_set_src_caps (h, gst_caps_ref (caps));
    fail_unless (gst_pad_peer_query (h->srcpad, q), "ALLOCATION query "
        "failed with %s downstream", k ? "fakesink" : "the harness");
    fail_unless (gst_query_find_allocation_meta (q, GST_VIDEO_META_API_TYPE,
            NULL));
    if (cf_test_want_cuda ()) {
      fail_unless (gst_query_get_n_allocation_pools (q) >= 1);
      gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
      fail_unless (pool != NULL);
      fail_unless (size >= info.size);
    }
    if (pool && k == 0) {
      fail_unless (gst_buffer_pool_set_active (pool, TRUE));
      for (i = 0; i < 3; i++) {
        GstBuffer *buf = NULL;

        fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf,
                NULL), GST_FLOW_OK);
        cf_check_fill_random (buf, prng);
        GST_BUFFER_PTS (buf) = i * FRAME_DURATION;
        GST_BUFFER_DURATION (buf) = FRAME_DURATION;
        push_frame (h, &info, buf, i);
      }
      cf_check_eos_and_pull (h, check_output, 3);
      fail_unless (gst_buffer_pool_set_active (pool, FALSE));
    }
    if (pool)
      gst_object_unref (pool);
    gst_query_unref (q);
    gst_harness_teardown (h);
  }
  gst_caps_unref (caps);
  g_free (desc);
}

GST_END_TEST;

/* The statistics a buffer carries, as bytes to compare. */
static GBytes *
meta_bytes (const GstVideoInfo * out, GstBuffer * buf)
{
  const GstCfStatsMeta *m = gst_buffer_get_cf_stats_meta (buf);
  CfStats stats;

  fail_unless (m != NULL);
  stats = cf_meta_stats (m);
  return g_bytes_new (&stats, sizeof (stats));
}

/* The CPU backend gives the same statistics for every n-threads: 8-bit,
 * 16-bit and packed frames of odd sizes, padded rows. */
static const gchar *n_threads_caps[] = {
  "video/x-raw,format=RGBA,width=321,height=243,framerate=30/1",
  "video/x-raw,format=I420,width=99,height=37,framerate=30/1",
  "video/x-raw,format=P010_10LE,width=130,height=66,framerate=30/1",
  "video/x-raw,format=YUY2,width=77,height=31,framerate=30/1",
};

GST_START_TEST (test_n_threads)
{
  static const gchar *const props[] = { "post-messages", "false", NULL };

  cf_check_n_threads ("cudastats", props, n_threads_caps[__i__], NULL, 3,
      meta_bytes, prng);
}

GST_END_TEST;

static Suite *
cudastats_suite (void)
{
  Suite *s = suite_create ("cudastats");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_loop_test (tc, test_formats, 0, G_N_ELEMENTS (formats));
  tcase_add_test (tc, test_unsupported_caps);
  tcase_add_test (tc, test_message_fields);
  tcase_add_test (tc, test_interval);
  tcase_add_loop_test (tc, test_frames_in_flight, 0, G_N_ELEMENTS (in_flight));
  tcase_add_test (tc, test_flush);
  tcase_add_test (tc, test_pipeline);
  tcase_add_loop_test (tc, test_packed_chain, 0, 2);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_backends);
  tcase_add_test (tc, test_latency);
  tcase_add_loop_test (tc, test_padded_strides, 0, G_N_ELEMENTS (padded));
  tcase_add_test (tc, test_allocation);
  if (!cf_test_want_cuda ())
    tcase_add_loop_test (tc, test_n_threads, 0, G_N_ELEMENTS (n_threads_caps));
  return s;
}

int
main (int argc, char **argv)
{
  cf_test_require_backend ();
  gst_check_init (&argc, &argv);
  cf_test_seed ();
  return gst_check_run_suite (cudastats_suite (), "cudastats", __FILE__);
}
