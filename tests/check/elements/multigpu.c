/* Element tests on a host with two or more CUDA devices; a CUDA run only,
 * which exits 77 (skipped) where fewer than two devices work.
 *
 * - Two pipelines in one process, all four video elements of one pinned to
 *   device 0 and of the other to device 1 (cuda-device-id), run at the
 *   same time from two threads: each gives the CPU backend's bytes, its
 *   elements share one context of the device asked for, and the two
 *   pipelines' contexts differ.
 * - CUDA memory crossing devices: a chain whose first two elements are on
 *   device 0 and last two on device 1, every link in CUDA memory; and
 *   frames in CUDA memory of device 0 fed to elements on device 1. The
 *   bytes are the CPU backend's (the memory is copied, never read through
 *   the wrong context), and each element holds its own device's context.
 *
 * CF_TEST_SEED=N repeats a run.
 */
#include <gst/check/gstcheck.h>
#include <gst/cuda/gstcudacontext.h>
#include <string.h>

#include "cf-check.h"
#include "cf-pipeline.h"
#include "device.h"

#define N_FRAMES 6
#define W 97
#define H 61
#define OUT_W 41
#define OUT_H 27

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

/* The four elements e0 .. e3, element k on device @dev[k] (the CPU backend
 * when @dev is NULL), the links between them in CUDA memory (system memory
 * on the CPU), system memory out. */
static gchar *
chain_desc (const int *dev)
{
  gchar *e[4];
  gchar *desc;
  const gchar *link = dev ? CUDA : SYS;
  int k;

  for (k = 0; k < 4; k++)
    e[k] = dev ? g_strdup_printf ("name=e%d backend=cuda cuda-device-id=%d",
        k, dev[k]) : g_strdup_printf ("name=e%d backend=cpu", k);
  desc = g_strdup_printf ("cudastats %s ! %s ! cudaresize %s ! %s,width=%d,"
      "height=%d ! cudastencil %s preset=sharpen ! %s ! cudastatsoverlay %s "
      "! " SYS, e[0], link, e[1], link, OUT_W, OUT_H, e[2], link, e[3]);
  for (k = 0; k < 4; k++)
    g_free (e[k]);
  return desc;
}

static int
context_device (GstCudaContext * ctx)
{
  guint device = 99;

  fail_unless (ctx != NULL);
  g_object_get (ctx, "cuda-device-id", &device, NULL);
  return (int) device;
}

typedef struct
{
  const gchar *desc;
  GstCaps *caps;
  GstBuffer **in;
  CfRun run;
} Job;

static gpointer
run_job (gpointer data)
{
  Job *j = data;

  cf_run_pipeline (&j->run, j->desc, j->caps, j->in, N_FRAMES, NULL);
  return NULL;
}

GST_START_TEST (test_two_pipelines)
{
  static const int on0[4] = { 0, 0, 0, 0 }, on1[4] = { 1, 1, 1, 1 };
  const int *on[2] = { on0, on1 };
  GstBuffer *in[N_FRAMES];
  GstVideoInfo info;
  GstCaps *caps;
  gchar *cpu, *desc[2];
  GThread *t[2];
  Job job[2];
  CfRun want;
  guint i, d, k;

  cf_check_set_info (&info, "NV12", W + 1, H + 1);
  cf_random_frames (&info, prng, in, N_FRAMES);
  caps = cf_caps_in_memory (&info, FALSE);
  cpu = chain_desc (NULL);
  cf_run_pipeline (&want, cpu, caps, in, N_FRAMES, NULL);

  for (d = 0; d < 2; d++) {
    desc[d] = chain_desc (on[d]);
    job[d].desc = desc[d];
    job[d].caps = caps;
    job[d].in = in;
    t[d] = g_thread_new ("pipeline", run_job, &job[d]);
  }
  for (d = 0; d < 2; d++)
    g_thread_join (t[d]);
  for (d = 0; d < 2; d++) {
    GstCudaContext *ctx = cf_element_cuda_context (job[d].run.pipeline, "e0");

    cf_assert_same_frames (&job[d].run, &want, desc[d]);
    fail_unless_equals_int (context_device (ctx), d);
    for (k = 1; k < 4; k++) {
      gchar *name = g_strdup_printf ("e%u", k);
      fail_unless (cf_element_cuda_context (job[d].run.pipeline, name) == ctx,
          "%s on device %u has a context of its own", name, d);
      g_free (name);
    }
  }
  fail_unless (cf_element_cuda_context (job[0].run.pipeline, "e0") !=
      cf_element_cuda_context (job[1].run.pipeline, "e0"));

  for (d = 0; d < 2; d++) {
    cf_run_clear (&job[d].run);
    g_free (desc[d]);
  }
  cf_run_clear (&want);
  for (i = 0; i < N_FRAMES; i++)
    gst_buffer_unref (in[i]);
  gst_caps_unref (caps);
  g_free (cpu);
}

GST_END_TEST;

/* __i__ 0: e0, e1 on device 0 and e2, e3 on device 1, CUDA memory between
 * them; 1: frames in CUDA memory of device 0 into all four on device 1. */
GST_START_TEST (test_cross_device)
{
  static const int split[4] = { 0, 0, 1, 1 }, all1[4] = { 1, 1, 1, 1 };
  const gboolean cuda_in = __i__ == 1;
  const int *dev = cuda_in ? all1 : split;
  GstCudaContext *ctx0 = NULL;
  GstBufferPool *pool = NULL;
  GstBuffer *in[N_FRAMES];
  GstVideoInfo info;
  GstCaps *caps;
  gchar *cpu, *desc;
  CfRun want, got;
  guint i, k;

  cf_check_set_info (&info, "RGBA", W, H);
  cf_random_frames (&info, prng, in, N_FRAMES);
  caps = cf_caps_in_memory (&info, FALSE);
  cpu = chain_desc (NULL);
  cf_run_pipeline (&want, cpu, caps, in, N_FRAMES, NULL);
  gst_caps_unref (caps);

  if (cuda_in) {
    ctx0 = cf_cuda_context_new (0);
    pool = cf_cuda_pool_new (ctx0, &info);
    cf_frames_to_cuda (pool, &info, in, N_FRAMES);
  }
  desc = chain_desc (dev);
  caps = cf_caps_in_memory (&info, cuda_in);
  cf_run_pipeline (&got, desc, caps, in, N_FRAMES, NULL);
  cf_assert_same_frames (&got, &want, desc);
  for (k = 0; k < 4; k++) {
    gchar *name = g_strdup_printf ("e%u", k);
    fail_unless_equals_int (context_device (cf_element_cuda_context
            (got.pipeline, name)), dev[k]);
    g_free (name);
  }
  fail_unless (cf_pad_in_cuda (got.pipeline, "e2", "sink"));

  cf_run_clear (&got);
  cf_run_clear (&want);
  for (i = 0; i < N_FRAMES; i++)
    gst_buffer_unref (in[i]);
  cf_pool_free (pool);
  if (ctx0)
    gst_object_unref (ctx0);
  gst_caps_unref (caps);
  g_free (desc);
  g_free (cpu);
}

GST_END_TEST;

static Suite *
multigpu_suite (void)
{
  Suite *s = suite_create ("multigpu");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_two_pipelines);
  tcase_add_loop_test (tc, test_cross_device, 0, 2);
  return s;
}

int
main (int argc, char **argv)
{
  int n;

  cf_test_require_backend ();
  if (!cf_test_want_cuda ()) {
    printf ("SKIP: a CUDA run only\n");
    return CF_TEST_SKIP;
  }
  /* counted in a child: check forks, and a CUDA context does not survive a
   * fork */
  n = cf_test_device_count ();
  if (n < 2) {
    printf ("SKIP: %d working CUDA device(s), two needed\n", n);
    return CF_TEST_SKIP;
  }
  gst_check_init (&argc, &argv);
  cf_test_seed ();
  return gst_check_run_suite (multigpu_suite (), "multigpu", __FILE__);
}
