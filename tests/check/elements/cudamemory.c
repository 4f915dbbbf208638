/* Frames in CUDA memory (memory:CUDAMemory) through the video elements.
 *
 * The oracle of every comparison is the same pipeline on the CPU backend,
 * all in system memory: the elements' output bytes must be the same whatever
 * memory each link negotiates.
 *
 * CUDA run:
 * - negotiation: each element, system or CUDA memory upstream, downstream
 *   free / system only / CUDA only: the memory chosen with nothing forced is
 *   CUDA where both sides allow it, else system memory;
 * - chains of the four video elements with every link in either memory, from
 *   either memory, RGBA and NV12 at odd sizes, against the CPU backend;
 * - CUDA memory of another CUDA context is copied, never read through the
 *   wrong context; GStreamer's CUDA memory has no layout for GRAY8 and
 *   I420 of an odd height: refused with a message;
 * - the context: set on the pipeline, every element uses it; cuda-device-id
 *   naming a device that does not exist fails with a message naming it;
 * - cudastatsoverlay in place: a writable buffer of CUDA memory is drawn on
 *   where it is, only the panel's pixels change; a buffer someone else holds
 *   is left alone and a copy drawn on; the same in system memory;
 * - EOS with frames in flight, a flushing seek and a renegotiation with CUDA
 *   memory on both sides, frames-in-flight 1, 2 and 4;
 * - a pipeline in CUDA memory restarted 100 times leaves the GPU's memory
 *   where it was.
 * Both runs: an element on the CPU backend asked for CUDA memory fails
 * negotiation with an error saying why.
 *
 * CF_TEST_SEED=N repeats a run.
 */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <string.h>

#include "cf-check.h"
#include "cf-pipeline.h"
#include "device.h"
#include "overlay.h"

#define N_FRAMES 4

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

static const gchar *elements[] = {
  "cudastats", "cudaresize", "cudastencil", "cudastatsoverlay"
};

/* ---- negotiation ------------------------------------------------------ */

/* Element @__i__ / 6: upstream system or CUDA memory; downstream free,
 * system only or CUDA only. */
GST_START_TEST (test_negotiation)
{
  const gchar *element = elements[__i__ / 6];
  const gboolean up_cuda = __i__ % 2;
  const gint down = (__i__ / 2) % 3;    /* 0 free, 1 system, 2 CUDA */
  const gchar *down_caps[] = { "identity", SYS, CUDA };
  GstCudaContext *ctx = cf_cuda_context_new (0);
  GstBufferPool *pool = NULL;
  GstBuffer *in[N_FRAMES];
  GstCaps *caps;
  GstVideoInfo info;
  gchar *desc, *cpu;
  CfRun got, want;
  guint i;

  cf_check_set_info (&info, "RGBA", 67, 45);
  cf_random_frames (&info, prng, in, N_FRAMES);
  cpu = g_strdup_printf ("%s backend=cpu ! " SYS, element);
  caps = cf_caps_in_memory (&info, FALSE);
  cf_run_pipeline (&want, cpu, caps, in, N_FRAMES, NULL);
  gst_caps_unref (caps);

  if (up_cuda) {
    pool = cf_cuda_pool_new (ctx, &info);
    cf_frames_to_cuda (pool, &info, in, N_FRAMES);
  }
  desc = g_strdup_printf ("%s name=el backend=cuda ! %s", element,
      down_caps[down]);
  caps = cf_caps_in_memory (&info, up_cuda);
  cf_run_pipeline (&got, desc, caps, in, N_FRAMES, ctx);
  cf_assert_same_frames (&got, &want, desc);
  fail_unless_equals_int (cf_pad_in_cuda (got.pipeline, "el", "sink"), up_cuda);
  /* CUDA memory where downstream takes it, with nothing forced */
  fail_unless (cf_pad_in_cuda (got.pipeline, "el", "src") == (down != 1),
      "%s from %s memory", desc, up_cuda ? "CUDA" : "system");

  cf_run_clear (&got);
  cf_run_clear (&want);
  for (i = 0; i < N_FRAMES; i++)
    gst_buffer_unref (in[i]);
  cf_pool_free (pool);
  gst_caps_unref (caps);
  g_free (desc);
  g_free (cpu);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* ---- chains ----------------------------------------------------------- */

typedef struct
{
  const gchar *format;
  gint width, height, out_width, out_height;
} ChainCase;

static const ChainCase chains[] = {
  {"RGBA", 97, 61, 41, 27},
  {"NV12", 66, 38, 40, 22},
  {"I420", 64, 48, 33, 20},
  /* packed 4:2:2 through its planar twin; 10 bits in the high bits */
  {"YUY2", 65, 37, 41, 21},
  {"P010_10LE", 64, 36, 34, 18},
};

/* The four elements with link k in CUDA memory when bit k of @links is set
 * (link 0: into cudastats, from appsrc; link 4: out of cudastatsoverlay). */
static gchar *
chain_desc (const ChainCase * c, const gchar * backend, guint links)
{
#define LINK(k) ((links >> (k)) & 1 ? CUDA : SYS)
  return g_strdup_printf ("cudastats backend=%s ! %s ! cudaresize backend=%s "
      "! %s,width=%d,height=%d ! cudastencil backend=%s preset=sharpen ! %s ! "
      "cudastatsoverlay backend=%s ! %s", backend, LINK (1), backend,
      LINK (2), c->out_width, c->out_height, backend, LINK (3), backend,
      LINK (4));
#undef LINK
}

/* Chain case @__i__ / 32, links @__i__ % 32. */
GST_START_TEST (test_chains)
{
  const ChainCase *c = &chains[__i__ / 32];
  const guint links = __i__ % 32;
  GstCudaContext *ctx = cf_cuda_context_new (0);
  GstBufferPool *pool = NULL;
  GstBuffer *in[N_FRAMES];
  GstVideoInfo info;
  GstCaps *caps;
  gchar *desc;
  CfRun got, want;
  guint i;

  cf_check_set_info (&info, c->format, c->width, c->height);
  cf_random_frames (&info, prng, in, N_FRAMES);
  desc = chain_desc (c, "cpu", 0);
  caps = cf_caps_in_memory (&info, FALSE);
  cf_run_pipeline (&want, desc, caps, in, N_FRAMES, NULL);
  gst_caps_unref (caps);
  g_free (desc);

  if (links & 1) {
    pool = cf_cuda_pool_new (ctx, &info);
    cf_frames_to_cuda (pool, &info, in, N_FRAMES);
  }
  desc = chain_desc (c, "cuda", links);
  caps = cf_caps_in_memory (&info, links & 1);
  cf_run_pipeline (&got, desc, caps, in, N_FRAMES, ctx);
  cf_assert_same_frames (&got, &want, desc);

  cf_run_clear (&got);
  cf_run_clear (&want);
  for (i = 0; i < N_FRAMES; i++)
    gst_buffer_unref (in[i]);
  cf_pool_free (pool);
  gst_caps_unref (caps);
  g_free (desc);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* ---- contexts --------------------------------------------------------- */

/* Buffers of another context than the elements': copied, right bytes. The
 * context set on the pipeline is the one every element takes. */
GST_START_TEST (test_foreign_context)
{
  GstCudaContext *ctx = cf_cuda_context_new (0), *other = cf_cuda_context_new (0);
  GstBufferPool *pool;
  GstBuffer *in[N_FRAMES];
  GstVideoInfo info;
  GstCaps *caps;
  CfRun got, want;
  guint i, e;

  fail_unless (gst_cuda_context_get_handle (ctx) !=
      gst_cuda_context_get_handle (other));
  cf_check_set_info (&info, "NV12", 96, 54);
  pool = cf_cuda_pool_new (other, &info);
  cf_random_frames (&info, prng, in, N_FRAMES);
  caps = cf_caps_in_memory (&info, FALSE);
  cf_run_pipeline (&want, "cudastats backend=cpu ! cudastatsoverlay backend=cpu"
      " ! " SYS, caps, in, N_FRAMES, NULL);
  gst_caps_unref (caps);
  cf_frames_to_cuda (pool, &info, in, N_FRAMES);
  caps = cf_caps_in_memory (&info, TRUE);
  cf_run_pipeline (&got, "cudastats name=e0 backend=cuda ! " CUDA
      " ! cudastatsoverlay name=e1 backend=cuda ! " SYS, caps, in, N_FRAMES,
      ctx);
  cf_assert_same_frames (&got, &want, "buffers of another context");
  for (e = 0; e < 2; e++) {
    gchar *name = g_strdup_printf ("e%u", e);
    fail_unless (cf_element_cuda_context (got.pipeline, name) == ctx,
        "%s does not use the pipeline's context", name);
    g_free (name);
  }

  cf_run_clear (&got);
  cf_run_clear (&want);
  for (i = 0; i < N_FRAMES; i++)
    gst_buffer_unref (in[i]);
  cf_pool_free (pool);
  gst_caps_unref (caps);
  gst_object_unref (other);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* Elements started one after the other share the context the first made;
 * cuda-device-id 0 is honoured; a device that does not exist fails with a
 * message that names it. */
GST_START_TEST (test_shared_context)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=NV12,width=64,height=48 ! cudastats name=e0 "
      "cuda-device-id=0 ! " CUDA " ! cudaresize name=e1 ! " CUDA
      ",width=32,height=24 ! cudastencil name=e2 ! cudastatsoverlay name=e3 ! "
      SYS " ! fakesink", NULL);
  GstCudaContext *first;
  GstMessage *msg;
  GstBus *bus;
  gchar *desc, *debug = NULL;
  GError *err = NULL;
  guint e, device = 99;
  int n = cf_device_count (NULL);

  fail_unless (pipeline != NULL);
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  first = cf_element_cuda_context (pipeline, "e0");
  fail_unless (first != NULL);
  g_object_get (first, "cuda-device-id", &device, NULL);
  fail_unless_equals_int (device, 0);
  for (e = 1; e < 4; e++) {
    gchar *name = g_strdup_printf ("e%u", e);
    fail_unless (cf_element_cuda_context (pipeline, name) == first,
        "%s has a context of its own", name);
    g_free (name);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);

  desc = g_strdup_printf ("videotestsrc num-buffers=1 ! cudastats "
      "backend=cuda cuda-device-id=%d ! fakesink", n);
  pipeline = gst_parse_launch (desc, NULL);
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s started", desc);
  gst_message_parse_error (msg, &err, &debug);
  fail_unless (strstr (debug, "cuda-device-id") != NULL, "%s", debug);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (desc);
}

GST_END_TEST;

/* Formats CUDA memory has no layout for are refused with a message; a
 * pipeline that does not ask for CUDA memory still runs them. */
GST_START_TEST (test_unholdable_formats)
{
  static const gchar *cases[] = {
    "video/x-raw,format=GRAY8,width=33,height=17",
    "video/x-raw,format=I420,width=33,height=17",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *bad = g_strdup_printf ("videotestsrc num-buffers=2 ! %s ! "
        "cudastats ! " CUDA " ! fakesink", cases[i]);
    gchar *good = g_strdup_printf ("videotestsrc num-buffers=2 ! %s ! "
        "cudastats ! cudastatsoverlay ! fakesink", cases[i]);
    GstElement *p = gst_parse_launch (bad, NULL);
    GstBus *bus = gst_element_get_bus (p);
    GstMessage *msg;

    gst_element_set_state (p, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "%s", bad);
    gst_message_unref (msg);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (p);

    p = gst_parse_launch (good, NULL);
    bus = gst_element_get_bus (p);
    gst_element_set_state (p, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s", good);
    gst_message_unref (msg);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (p);
    g_free (bad);
    g_free (good);
  }
}

GST_END_TEST;

/* ---- the overlay in place --------------------------------------------- */

/* The panel cudastatsoverlay width=0.5 height=0.4 draws at top-left, as the
 * element documents its plan. */
static void
panel_rect (const GstVideoInfo * info, gint * x, gint * y, gint * w, gint * h)
{
  const gint fw = GST_VIDEO_INFO_WIDTH (info), fh = GST_VIDEO_INFO_HEIGHT (info);
  CfOverlayParams p = { 0, };
  CfOverlayPlan plan;

  p.corner = CF_OVERLAY_TOP_LEFT;
  p.panel_width = (gint) (0.5 * fw + 0.5);
  p.panel_height = (gint) (0.4 * fh + 0.5);
  p.inset = MIN (fw, fh) / 60;
  p.opacity = 153;
  p.show_text = TRUE;
  fail_unless (cf_overlay_plan_init (&plan, cf_check_format (info), fw, fh,
          &p) == 0);
  *x = plan.panel_x;
  *y = plan.panel_y;
  *w = plan.panel_width;
  *h = plan.panel_height;
}

/* @before and @after (packed RGBA frames of @info) differ, and only inside
 * the panel. */
static void
assert_only_panel_changed (const GstVideoInfo * info, GBytes * before,
    GBytes * after)
{
  const guint8 *b = g_bytes_get_data (before, NULL);
  const guint8 *a = g_bytes_get_data (after, NULL);
  const gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  gint px, py, pw, ph, x, y, changed = 0;

  panel_rect (info, &px, &py, &pw, &ph);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      const gboolean in = x >= px && x < px + pw && y >= py && y < py + ph;
      const gboolean same = memcmp (b + 4 * (y * w + x), a + 4 * (y * w + x),
          4) == 0;

      fail_unless (in || same, "pixel %d,%d outside the panel changed", x, y);
      changed += !same;
    }
  fail_unless (changed > 0, "nothing was drawn");
}

/* @__i__: 0 CUDA memory writable, 1 CUDA memory held by another, 2 system
 * memory writable, 3 system memory held. */
GST_START_TEST (test_overlay_in_place)
{
  const gboolean cuda = __i__ < 2, held = __i__ % 2;
  GstCudaContext *ctx = cf_cuda_context_new (0);
  GstBufferPool *pool = NULL;
  GstHarness *h;
  GstBuffer *in, *out, *keep = NULL, *oracle;
  GstMemory *in_mem;
  GstVideoInfo info;
  GBytes *before, *after, *want;
  GstContext *c = gst_context_new_cuda_context (ctx);
  CfRun cpu;

  cf_check_set_info (&info, "RGBA", 320, 180);
  in = cf_check_frame_new (&info, prng, 0, GST_SECOND / 30, TRUE);
  before = cf_check_pack (&info, in);
  oracle = gst_buffer_ref (in);
  if (cuda) {
    GstBuffer *b;
    pool = cf_cuda_pool_new (ctx, &info);
    b = cf_to_cuda (pool, &info, in);
    gst_buffer_unref (in);
    in = b;
  }
  {
    GstCaps *caps = cf_caps_in_memory (&info, FALSE);
    cf_run_pipeline (&cpu, "cudastatsoverlay backend=cpu width=0.5 height=0.4 "
        "! " SYS, caps, &oracle, 1, NULL);
    gst_caps_unref (caps);
    fail_unless (cpu.error == NULL && cpu.frames->len == 1);
    want = g_bytes_ref (cpu.frames->pdata[0]);
    cf_run_clear (&cpu);
  }

  {
    /* the context before the harness starts it */
    GstElement *e = cf_check_element_new ("cudastatsoverlay", "width", "0.5",
        "height", "0.4", NULL);
    gst_element_set_context (e, c);
    h = gst_harness_new_with_element (e, "sink", "src");
    gst_object_unref (e);
  }
  gst_harness_set_src_caps (h, cf_caps_in_memory (&info, cuda));
  gst_harness_set_sink_caps (h, cf_caps_in_memory (&info, cuda));
  in_mem = gst_buffer_peek_memory (in, 0);
  if (held)
    keep = gst_buffer_ref (in);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  out = gst_harness_pull (h);
  after = cf_check_pack (&info, out);
  fail_unless (g_bytes_equal (after, want), "GPU and CPU drew differently");
  assert_only_panel_changed (&info, before, after);
  if (cuda)
    fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)));
  if (held) {
    GBytes *kept = cf_check_pack (&info, keep);
    fail_unless (gst_buffer_peek_memory (out, 0) != in_mem,
        "drew on a buffer someone else holds");
    fail_unless (g_bytes_equal (kept, before), "the held buffer changed");
    g_bytes_unref (kept);
    gst_buffer_unref (keep);
  } else if (cuda) {
    fail_unless (gst_buffer_peek_memory (out, 0) == in_mem,
        "a writable buffer was copied");
  }

  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_bytes_unref (before);
  g_bytes_unref (after);
  g_bytes_unref (want);
  gst_buffer_unref (oracle);
  gst_context_unref (c);
  cf_pool_free (pool);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* ---- events with frames in flight ------------------------------------- */

static const guint in_flight[] = { 1, 2, 4 };

static GstElement *
events_pipeline (guint fif, const gchar * extra_src)
{
  gchar *desc = g_strdup_printf ("videotestsrc %s ! capsfilter name=cf "
      "caps=video/x-raw,format=NV12,width=64,height=48,framerate=30/1 ! "
      "cudastats frames-in-flight=%u ! " CUDA " ! cudaresize "
      "frames-in-flight=%u ! " CUDA ",width=48,height=36 ! cudastatsoverlay "
      "frames-in-flight=%u ! " CUDA " ! appsink name=sink sync=false",
      extra_src, fif, fif, fif);
  GstElement *p = gst_parse_launch (desc, NULL);

  fail_unless (p != NULL, "%s", desc);
  g_free (desc);
  return p;
}

static GstSample *
pull (GstElement * p)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
      10 * GST_SECOND);

  gst_object_unref (sink);
  return s;
}

static void
assert_no_error (GstElement * p)
{
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  if (msg) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    fail ("error: %s", err->message);
  }
  gst_object_unref (bus);
}

GST_START_TEST (test_eos_in_flight)
{
  GstElement *p = events_pipeline (in_flight[__i__], "num-buffers=7");
  GstClockTime last = GST_CLOCK_TIME_NONE;
  GstSample *s;
  guint n = 0;

  gst_element_set_state (p, GST_STATE_PLAYING);
  while ((s = pull (p))) {
    GstBuffer *b = gst_sample_get_buffer (s);
    fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (b, 0)));
    fail_unless (!GST_CLOCK_TIME_IS_VALID (last) || GST_BUFFER_PTS (b) > last);
    last = GST_BUFFER_PTS (b);
    n++;
    gst_sample_unref (s);
  }
  assert_no_error (p);
  fail_unless_equals_int (n, 7);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* Frames 10 .. 29 after a flushing seek to 1/3 s with a stop at 1 s,
 * whatever was in flight before. */
GST_START_TEST (test_flushing_seek)
{
  GstElement *p = events_pipeline (in_flight[__i__], "");
  GstClockTime first_pts = GST_CLOCK_TIME_NONE;
  GstSample *s;
  guint i, n = 0;

  gst_element_set_state (p, GST_STATE_PLAYING);
  for (i = 0; i < 10; i++) {
    s = pull (p);
    fail_unless (s != NULL);
    gst_sample_unref (s);
  }
  fail_unless (gst_element_seek (p, 1.0, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET,
          10 * GST_SECOND / 30, GST_SEEK_TYPE_SET, GST_SECOND));
  while ((s = pull (p))) {
    if (n++ == 0)
      first_pts = GST_BUFFER_PTS (gst_sample_get_buffer (s));
    gst_sample_unref (s);
  }
  assert_no_error (p);
  fail_unless_equals_uint64 (first_pts, 10 * GST_SECOND / 30);
  fail_unless_equals_int (n, 20);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

GST_START_TEST (test_renegotiation)
{
  GstElement *p = events_pipeline (in_flight[__i__], "num-buffers=12");
  GstElement *cf = gst_bin_get_by_name (GST_BIN (p), "cf");
  GstSample *s;
  guint n = 0, widths = 0;
  gint last_width = 0;

  gst_element_set_state (p, GST_STATE_PLAYING);
  while ((s = pull (p))) {
    GstVideoInfo info;
    fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (s)));
    fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory
            (gst_sample_get_buffer (s), 0)));
    if (GST_VIDEO_INFO_WIDTH (&info) != last_width)
      widths++;
    last_width = GST_VIDEO_INFO_WIDTH (&info);
    if (++n == 5) {
      /* the input changes size and format: the output keeps its size */
      GstCaps *caps = gst_caps_from_string ("video/x-raw,format=RGBA,"
          "width=80,height=60,framerate=30/1");
      g_object_set (cf, "caps", caps, NULL);
      gst_caps_unref (caps);
    }
    gst_sample_unref (s);
  }
  assert_no_error (p);
  fail_unless_equals_int (n, 12);
  fail_unless_equals_int (widths, 1);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (cf);
  gst_object_unref (p);
}

GST_END_TEST;

/* ---- restarts --------------------------------------------------------- */

GST_START_TEST (test_restarts)
{
  GstElement *p = gst_parse_launch ("videotestsrc num-buffers=4 ! "
      "video/x-raw,format=NV12,width=320,height=240 ! cudastats ! " CUDA
      " ! cudaresize ! " CUDA ",width=160,height=120 ! cudastencil ! "
      "cudastatsoverlay ! " CUDA " ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (p);
  size_t free0 = 0, free1 = 0, total;
  guint i;

  fail_unless (cf_device_use (0) == CF_DEVICE_OK);
  for (i = 0; i <= 100; i++) {
    GstMessage *msg;

    if (i == 1)
      fail_unless (cf_device_memory (&free0, &total) == CF_DEVICE_OK);
    fail_if (gst_element_set_state (p, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE);
    msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
        "run %u did not end", i);
    gst_message_unref (msg);
    fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
  }
  fail_unless (cf_device_memory (&free1, &total) == CF_DEVICE_OK);
  printf ("free GPU memory after run 1: %zu bytes, after run 100: %zu bytes\n",
      free0, free1);
  /* the driver allocates in 2 MiB pages */
  fail_unless (free1 + (2 << 20) >= free0, "%zu bytes gone in 99 restarts",
      free0 - free1);
  gst_object_unref (bus);
  gst_object_unref (p);
}

GST_END_TEST;

/* ---- the CPU backend -------------------------------------------------- */

/* Asked for CUDA memory, an element on the CPU backend says why not. */
GST_START_TEST (test_cpu_refuses_cuda_memory)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGBA ! %s name=el backend=cpu ! " CUDA
      " ! fakesink", elements[__i__]);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  GError *err = NULL;
  gchar *debug = NULL;

  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "%s", desc);
  gst_message_parse_error (msg, &err, &debug);
  fail_unless_equals_string (GST_OBJECT_NAME (msg->src), "el");
  fail_unless (strstr (err->message, "needs the CUDA backend") != NULL, "%s",
      err->message);
  fail_unless (strstr (debug, "backend=cpu") != NULL, "%s", debug);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (desc);
}

GST_END_TEST;

static Suite *
cudamemory_suite (void)
{
  Suite *s = suite_create ("cudamemory");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_loop_test (tc, test_cpu_refuses_cuda_memory, 0,
      G_N_ELEMENTS (elements));
  if (cf_test_want_cuda ()) {
    tcase_add_loop_test (tc, test_negotiation, 0, 6 * G_N_ELEMENTS (elements));
    tcase_add_loop_test (tc, test_chains, 0, 32 * G_N_ELEMENTS (chains));
    tcase_add_test (tc, test_foreign_context);
    tcase_add_test (tc, test_shared_context);
    tcase_add_test (tc, test_unholdable_formats);
    tcase_add_loop_test (tc, test_overlay_in_place, 0, 4);
    tcase_add_loop_test (tc, test_eos_in_flight, 0, G_N_ELEMENTS (in_flight));
    tcase_add_loop_test (tc, test_flushing_seek, 0, G_N_ELEMENTS (in_flight));
    tcase_add_loop_test (tc, test_renegotiation, 0, G_N_ELEMENTS (in_flight));
    tcase_add_test (tc, test_restarts);
  }
  return s;
}

int
main (int argc, char **argv)
{
  cf_test_require_backend ();
  gst_check_init (&argc, &argv);
  cf_test_seed ();
  return gst_check_run_suite (cudamemory_suite (), "cudamemory", __FILE__);
}
