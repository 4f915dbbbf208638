/* Pipelines for the element tests of frames in CUDA memory (cudamemory.c,
 * nvcodec.c): run one from an appsrc to an appsink and collect what comes
 * out, compare runs frame by frame, ask which memory a pad negotiated and
 * which CUDA context an element holds. */
#ifndef CF_PIPELINE_H
#define CF_PIPELINE_H

#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <string.h>

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

#endif /* CF_PIPELINE_H */
