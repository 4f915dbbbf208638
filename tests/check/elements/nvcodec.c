/* The video elements between NVIDIA's GStreamer elements (nvcodec):
 * cudaupload and cudadownload around each element, and an H.264 clip
 * decoded by nvh264dec through cudastats ! cudaresize ! cudastatsoverlay
 * without leaving CUDA memory, against the CPU backend. The elements and
 * nvcodec's must share one CUDA context.
 *
 * The clip (tests/data/h264, made by make-clip.sh there) comes with the
 * SHA-1 of every plane of every frame as a CPU decoder (avdec_h264) decodes
 * it: NVDEC's frames are checked against those first, so the comparison
 * with the CPU backend starts from frames known to be the clip's.
 *
 * Only a CUDA run; it exits 77 where no GPU works or nvcodec's elements are
 * missing (nvcodec registers them only where CUDA and NVDEC work).
 */
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#include <string.h>

#include "cf-check.h"
#include "cf-pipeline.h"

#define CLIP "clip-320x180"
#define CLIP_FRAMES 30

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

static gchar *
data_path (const gchar * name)
{
  const gchar *dir = g_getenv ("CF_DATA_DIR");

  fail_unless (dir != NULL, "CF_DATA_DIR is not set");
  return g_build_filename (dir, "h264", name, NULL);
}

/* Every element named in @names (NULL-terminated) holds the same CUDA
 * context. */
static void
assert_one_context (GstElement * pipeline, const gchar * const *names)
{
  GstCudaContext *first = cf_element_cuda_context (pipeline, names[0]);
  guint i;

  fail_unless (first != NULL, "%s holds no CUDA context", names[0]);
  for (i = 1; names[i]; i++)
    fail_unless (cf_element_cuda_context (pipeline, names[i]) == first,
        "%s and %s hold different CUDA contexts", names[0], names[i]);
}

/* ---- cudaupload ! element ! cudadownload ------------------------------ */

static const gchar *elements[] = {
  "cudastats", "cudaresize", "cudastencil", "cudastatsoverlay"
};

static const gchar *formats[] = { "RGBA", "NV12" };

/* Element @__i__ / 2, format @__i__ % 2. */
GST_START_TEST (test_upload_download)
{
  const gchar *element = elements[__i__ / 2];
  const gboolean resize = g_str_equal (element, "cudaresize");
  static const gchar *const names[] = { "up", "el", "down", NULL };
  GstBuffer *in[6];
  GstVideoInfo info;
  GstCaps *caps;
  gchar *desc;
  CfRun got, want;
  guint i;

  cf_check_set_info (&info, formats[__i__ % 2], 174, 98);
  for (i = 0; i < G_N_ELEMENTS (in); i++)
    in[i] = cf_check_frame_new (&info, prng, i * GST_SECOND / 30,
        GST_SECOND / 30, TRUE);
  caps = gst_video_info_to_caps (&info);
  desc = g_strdup_printf ("%s backend=cpu ! " SYS "%s", element,
      resize ? ",width=100,height=60" : "");
  cf_run_pipeline (&want, desc, caps, in, G_N_ELEMENTS (in), NULL);
  g_free (desc);
  desc = g_strdup_printf ("cudaupload name=up ! %s name=el backend=cuda ! "
      CUDA "%s ! cudadownload name=down ! " SYS, element,
      resize ? ",width=100,height=60" : "");
  cf_run_pipeline (&got, desc, caps, in, G_N_ELEMENTS (in), NULL);
  cf_assert_same_frames (&got, &want, desc);
  fail_unless (cf_pad_in_cuda (got.pipeline, "el", "sink"));
  fail_unless (cf_pad_in_cuda (got.pipeline, "el", "src"));
  assert_one_context (got.pipeline, names);

  cf_run_clear (&got);
  cf_run_clear (&want);
  for (i = 0; i < G_N_ELEMENTS (in); i++)
    gst_buffer_unref (in[i]);
  gst_caps_unref (caps);
  g_free (desc);
}

GST_END_TEST;

/* ---- the H.264 clip --------------------------------------------------- */

/* The SHA-1 of @len bytes, every @step-th from @p, rows of @row of them
 * @stride apart. */
static gchar *
plane_sha1 (const guint8 * p, gint stride, gint row, gint rows, gint step)
{
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA1);
  guint8 *line = g_malloc (row);
  gchar *hex;
  gint x, y;

  for (y = 0; y < rows; y++) {
    for (x = 0; x < row; x++)
      line[x] = p[y * stride + x * step];
    g_checksum_update (sum, line, row);
  }
  hex = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  g_free (line);
  return hex;
}

/* Frames NVDEC decoded, downloaded, each checked against the CPU decoder's
 * SHA-1s; returned with their timestamps. */
static GPtrArray *
decoded_frames (GstCaps ** caps)
{
  gchar *clip = data_path (CLIP ".mp4"), *sums = data_path (CLIP ".sha1");
  gchar *contents = NULL, **lines;
  gchar *desc = g_strdup_printf ("filesrc location=%s ! qtdemux ! h264parse "
      "! nvh264dec ! cudadownload ! video/x-raw,format=NV12 ! "
      "appsink name=sink sync=false", clip);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstSample *s;

  fail_unless (g_file_get_contents (sums, &contents, NULL, NULL), "%s", sums);
  lines = g_strsplit (contents, "\n", -1);
  gst_element_set_state (p, GST_STATE_PLAYING);
  while ((s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              10 * GST_SECOND))) {
    GstVideoInfo info;
    GstVideoFrame f;
    gchar *y, *u, *v, *line;

    fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (s)));
    fail_unless (gst_video_frame_map (&f, &info, gst_sample_get_buffer (s),
            GST_MAP_READ));
    y = plane_sha1 (GST_VIDEO_FRAME_PLANE_DATA (&f, 0),
        GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0), 320, 180, 1);
    u = plane_sha1 (GST_VIDEO_FRAME_PLANE_DATA (&f, 1),
        GST_VIDEO_FRAME_PLANE_STRIDE (&f, 1), 160, 90, 2);
    v = plane_sha1 ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 1) + 1,
        GST_VIDEO_FRAME_PLANE_STRIDE (&f, 1), 160, 90, 2);
    gst_video_frame_unmap (&f);
    line = g_strdup_printf ("%s %s %s", y, u, v);
    fail_unless (frames->len < g_strv_length (lines));
    fail_unless_equals_string (line, lines[frames->len]);
    if (!*caps)
      *caps = gst_caps_ref (gst_sample_get_caps (s));
    g_ptr_array_add (frames, gst_buffer_ref (gst_sample_get_buffer (s)));
    g_free (y);
    g_free (u);
    g_free (v);
    g_free (line);
    gst_sample_unref (s);
  }
  fail_unless_equals_int (frames->len, CLIP_FRAMES);

  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_strfreev (lines);
  g_free (contents);
  g_free (desc);
  g_free (clip);
  g_free (sums);
  return frames;
}

#define CHAIN "cudastats name=stats backend=%s ! cudaresize name=resize " \
    "backend=%s ! %s,width=160,height=90 ! cudastatsoverlay name=overlay " \
    "backend=%s"

/* nvh264dec ! cudastats ! cudaresize ! cudastatsoverlay ! cudadownload, all
 * in CUDA memory and one context, gives what the CPU backend gives from
 * the same frames. */
GST_START_TEST (test_nvdec_chain)
{
  static const gchar *const names[] = { "dec", "stats", "resize", "overlay",
    "down", NULL
  };
  static const gchar *const in_cuda[] = { "dec", "stats", "resize", "overlay",
    NULL
  };
  GstCaps *caps = NULL;
  GPtrArray *frames = decoded_frames (&caps);
  gchar *clip = data_path (CLIP ".mp4"), *desc, *chain;
  CfRun got, want;
  GstElement *src;
  guint i;

  chain = g_strdup_printf (CHAIN, "cpu", "cpu", SYS, "cpu");
  desc = g_strdup_printf ("%s ! " SYS, chain);
  cf_run_pipeline (&want, desc, caps, (GstBuffer **) frames->pdata,
      frames->len, NULL);
  g_free (desc);
  g_free (chain);

  /* a filesrc instead of cf_run_pipeline ()'s appsrc: its element is unused */
  chain = g_strdup_printf (CHAIN, "cuda", "cuda", CUDA, "cuda");
  desc = g_strdup_printf ("filesrc location=%s ! qtdemux ! h264parse ! "
      "nvh264dec name=dec ! %s ! cudadownload name=down ! " SYS " ! "
      "appsink name=sink sync=false", clip, chain);
  memset (&got, 0, sizeof (got));
  got.frames = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  got.pipeline = gst_parse_launch (desc, NULL);
  fail_unless (got.pipeline != NULL, "%s", desc);
  src = gst_bin_get_by_name (GST_BIN (got.pipeline), "src");
  fail_unless (src == NULL);
  gst_element_set_state (got.pipeline, GST_STATE_PLAYING);
  cf_run_collect (&got);
  cf_assert_same_frames (&got, &want, desc);
  for (i = 0; in_cuda[i]; i++)
    fail_unless (cf_pad_in_cuda (got.pipeline, in_cuda[i], "src"),
        "%s's output is not in CUDA memory", in_cuda[i]);
  assert_one_context (got.pipeline, names);

  cf_run_clear (&got);
  cf_run_clear (&want);
  g_ptr_array_unref (frames);
  gst_caps_unref (caps);
  g_free (desc);
  g_free (chain);
  g_free (clip);
}

GST_END_TEST;

static Suite *
nvcodec_suite (void)
{
  Suite *s = suite_create ("nvcodec");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_loop_test (tc, test_upload_download, 0,
      2 * G_N_ELEMENTS (elements));
  tcase_add_test (tc, test_nvdec_chain);
  return s;
}

int
main (int argc, char **argv)
{
  static const gchar *needed[] = { "cudaupload", "cudadownload", "nvh264dec",
    "h264parse", "qtdemux"
  };
  guint i;

  cf_test_require_backend ();
  gst_check_init (&argc, &argv);
  for (i = 0; i < G_N_ELEMENTS (needed); i++) {
    GstElementFactory *f = gst_element_factory_find (needed[i]);
    if (!f) {
      printf ("SKIP: no %s element (nvcodec needs a GPU with NVDEC)\n",
          needed[i]);
      return CF_TEST_SKIP;
    }
    gst_object_unref (f);
  }
  cf_test_seed ();
  return gst_check_run_suite (nvcodec_suite (), "nvcodec", __FILE__);
}
