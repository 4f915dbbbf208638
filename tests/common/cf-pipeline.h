/* Pipelines for the element tests of frames in CUDA memory (cudamemory.c,
 * nvcodec.c, multigpu.c): CUDA memory made by the test (a context on a
 * device, a pool, frames copied into it); run a pipeline from an appsrc to
 * an appsink and collect what comes out, compare runs frame by frame, ask
 * which memory a pad negotiated and which CUDA context an element holds. */
#ifndef CF_PIPELINE_H
#define CF_PIPELINE_H

#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <string.h>

#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudaloader.h>

#include "cf-check.h"

#define SYS "video/x-raw"
#define CUDA "video/x-raw(memory:CUDAMemory)"

typedef struct
{
  GstElement *pipeline;
  GPtrArray *frames;            /* GBytes, packed */
  GstVideoInfo info;            /* of the last frame */
  gchar *error;                 /* the first error message and debug, or NULL */
} CfRun;

static inline void
cf_run_clear (CfRun * r)
{
  if (r->pipeline) {
    gst_element_set_state (r->pipeline, GST_STATE_NULL);
    gst_object_unref (r->pipeline);
  }
  if (r->frames)
    g_ptr_array_unref (r->frames);
  g_free (r->error);
  memset (r, 0, sizeof (*r));
}

/* Pops what came out of appsink "sink" until EOS, or an error (kept). */
static inline void
cf_run_collect (CfRun * r)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (r->pipeline), "sink");
  GstBus *bus = gst_element_get_bus (r->pipeline);
  GstSample *sample;
  GstMessage *msg;

  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              10 * GST_SECOND))) {
    fail_unless (gst_video_info_from_caps (&r->info,
            gst_sample_get_caps (sample)));
    g_ptr_array_add (r->frames, cf_check_pack (&r->info,
            gst_sample_get_buffer (sample)));
    gst_sample_unref (sample);
  }
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg) {
    GError *err = NULL;
    gchar *debug = NULL;

    gst_message_parse_error (msg, &err, &debug);
    r->error = g_strdup_printf ("%s: %s (%s)", GST_OBJECT_NAME (msg->src),
        err->message, debug);
    g_error_free (err);
    g_free (debug);
    gst_message_unref (msg);
  } else {
    fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)),
        "no EOS within 10 s");
  }
  gst_object_unref (bus);
  gst_object_unref (sink);
}

/* "appsrc name=src ! @desc ! appsink name=sink", @n buffers of @in pushed
 * with caps @caps; @ctx (may be NULL) set on the pipeline first. The
 * pipeline stays (stopped at EOS) for the caller to look at. */
static inline void
cf_run_pipeline (CfRun * r, const gchar * desc, GstCaps * caps, GstBuffer ** in,
    guint n, GstCudaContext * ctx)
{
  gchar *full = g_strdup_printf ("appsrc name=src format=time ! %s ! "
      "appsink name=sink sync=false", desc);
  GError *err = NULL;
  GstElement *src;
  guint i;

  memset (r, 0, sizeof (*r));
  r->frames = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  r->pipeline = gst_parse_launch (full, &err);
  fail_unless (r->pipeline && !err, "%s: %s", full, err ? err->message : "");
  if (ctx) {
    GstContext *c = gst_context_new_cuda_context (ctx);
    gst_element_set_context (r->pipeline, c);
    gst_context_unref (c);
  }
  src = gst_bin_get_by_name (GST_BIN (r->pipeline), "src");
  g_object_set (src, "caps", caps, NULL);
  fail_if (gst_element_set_state (r->pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE, "%s", full);
  for (i = 0; i < n; i++)
    gst_app_src_push_buffer (GST_APP_SRC (src), gst_buffer_ref (in[i]));
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  gst_object_unref (src);
  cf_run_collect (r);
  g_free (full);
}

static inline GstCaps *
cf_caps_in_memory (const GstVideoInfo * info, gboolean cuda)
{
  GstCaps *caps = gst_video_info_to_caps (info);

  if (cuda)
    gst_caps_set_features (caps, 0,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  return caps;
}

/* Every frame of @got equals @want's; both ran to the end. */
static inline void
cf_assert_same_frames (CfRun * got, CfRun * want, const gchar * what)
{
  guint i;

  fail_unless (got->error == NULL, "%s: %s", what, got->error);
  fail_unless (want->error == NULL, "CPU: %s", want->error);
  fail_unless_equals_int (got->frames->len, want->frames->len);
  fail_unless (want->frames->len > 0);
  for (i = 0; i < got->frames->len; i++) {
    if (!g_bytes_equal (got->frames->pdata[i], want->frames->pdata[i]))
      fail ("%s: frame %u differs from the CPU backend's", what, i);
  }
}

/* TRUE when pad @pad of element @name negotiated CUDA memory. */
static inline gboolean
cf_pad_in_cuda (GstElement * pipeline, const gchar * name, const gchar * pad)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *p = gst_element_get_static_pad (e, pad);
  GstCaps *caps = gst_pad_get_current_caps (p);
  gboolean cuda;

  fail_unless (caps != NULL, "%s:%s negotiated nothing", name, pad);
  cuda = gst_caps_features_contains (gst_caps_get_features (caps, 0),
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
  gst_caps_unref (caps);
  gst_object_unref (p);
  gst_object_unref (e);
  return cuda;
}

/* The GstCudaContext element @name holds (through GstContext), or NULL. */
static inline GstCudaContext *
cf_element_cuda_context (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstContext *c;
  GstCudaContext *ctx = NULL;

  fail_unless (e != NULL, "no element %s", name);
  c = gst_element_get_context (e, GST_CUDA_CONTEXT_TYPE);
  if (c) {
    gst_structure_get (gst_context_get_structure (c), GST_CUDA_CONTEXT_TYPE,
        GST_TYPE_CUDA_CONTEXT, &ctx, NULL);
    gst_context_unref (c);
  }
  gst_object_unref (e);
  if (ctx)
    g_object_unref (ctx);       /* the pipeline's elements keep it */
  return ctx;
}

/* ---- CUDA memory made by the test ------------------------------------ */

/* A context of its own on @device. */
static inline GstCudaContext *
cf_cuda_context_new (int device)
{
  GstCudaContext *ctx;

  fail_unless (gst_cuda_load_library ());
  gst_cuda_memory_init_once ();
  ctx = gst_cuda_context_new (device);
  fail_unless (ctx != NULL, "no CUDA context on device %d", device);
  return ctx;
}

static inline GstBufferPool *
cf_cuda_pool_new (GstCudaContext * ctx, const GstVideoInfo * info)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new (ctx);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = gst_video_info_to_caps (info);

  gst_caps_set_features (caps, 0,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  gst_buffer_pool_config_set_params (config, caps, info->size, 0, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  gst_caps_unref (caps);
  return pool;
}

/* A buffer of @pool holding the frame of system memory buffer @src. The
 * rows are copied whole (cf_image_copy ()): gst_video_frame_copy () of 1.22
 * copies width x pixel stride bytes, which leaves out the last V (YUY2) or
 * Y (UYVY) sample of a packed 4:2:2 row of an odd width. */
static inline GstBuffer *
cf_to_cuda (GstBufferPool * pool, const GstVideoInfo * info, GstBuffer * src)
{
  GstBuffer *buf = NULL;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  cf_check_frames_apply (info, src, info, buf, cf_image_copy);
  gst_buffer_copy_into (buf, src, GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  return buf;
}

/* The frames of @in, moved into buffers of @pool (the same timestamps). */
static inline void
cf_frames_to_cuda (GstBufferPool * pool, const GstVideoInfo * info,
    GstBuffer ** in, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    GstBuffer *b = cf_to_cuda (pool, info, in[i]);
    gst_buffer_unref (in[i]);
    in[i] = b;
  }
}

/* @n random frames of @info in system memory, 30 frames/s. */
static inline void
cf_random_frames (const GstVideoInfo * info, GRand * rand, GstBuffer ** out,
    guint n)
{
  guint i;

  for (i = 0; i < n; i++)
    out[i] = cf_check_frame_new (info, rand, i * GST_SECOND / 30,
        GST_SECOND / 30, TRUE);
}

static inline void
cf_pool_free (GstBufferPool * pool)
{
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
}

#endif /* CF_PIPELINE_H */
