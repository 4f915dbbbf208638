/* Helpers shared by the element tests (GstCheck): elements on the run's
 * backend, video infos, frames of random content. */
#ifndef CF_CHECK_H
#define CF_CHECK_H

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <stdarg.h>
#include <string.h>

#include "cf-test.h"

/* An element of @factory on the run's backend, with the properties given as
 * pairs of strings (name, value), NULL-terminated. */
static inline GstElement *
cf_check_element_new (const gchar * factory, const gchar * prop, ...)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  va_list args;

  fail_unless (e != NULL, "no %s element (GST_PLUGIN_PATH_1_0?)", factory);
  gst_util_set_object_arg (G_OBJECT (e), "backend", cf_test_backend_name ());
  va_start (args, prop);
  for (; prop; prop = va_arg (args, const gchar *))
      gst_util_set_object_arg (G_OBJECT (e), prop, va_arg (args,
            const gchar *));
  va_end (args);
  return e;
}

/* @format at @width x @height, 30 frames/s. */
static inline void
cf_check_set_info (GstVideoInfo * info, const gchar * format, gint width,
    gint height)
{
  GstVideoFormat f = gst_video_format_from_string (format);

  fail_if (f == GST_VIDEO_FORMAT_UNKNOWN, "unknown format %s", format);
  fail_unless (gst_video_info_set_format (info, f, width, height));
  GST_VIDEO_INFO_FPS_N (info) = 30;
  GST_VIDEO_INFO_FPS_D (info) = 1;
}

static inline void
cf_check_fill_random (GstBuffer * buf, GRand * rand)
{
  GstMapInfo map;
  gsize i;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (i = 0; i < map.size; i += 4) {
    guint32 r = g_rand_int (rand);

    memcpy (map.data + i, &r, MIN (4, map.size - i));
  }
  gst_buffer_unmap (buf, &map);
}

/* A frame of @info with random content, its PTS and DTS @pts; with
 * @video_meta a GstVideoMeta describes its layout. */
static inline GstBuffer *
cf_check_frame_new (const GstVideoInfo * info, GRand * rand, GstClockTime pts,
    GstClockTime duration, gboolean video_meta)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);

  cf_check_fill_random (buf, rand);
  if (video_meta)
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
        (gsize *) info->offset, (gint *) info->stride);
  GST_BUFFER_PTS (buf) = GST_BUFFER_DTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = duration;
  return buf;
}

/* Sends EOS, then pulls @n buffers, calling @check (buffer, index) on each
 * in order, and fails if fewer or more come out. */
static inline void
cf_check_eos_and_pull (GstHarness * h, void (*check) (GstBuffer *, guint),
    guint n)
{
  GstBuffer *out;
  guint i;

  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < n; i++) {
    out = gst_harness_try_pull (h);
    fail_unless (out != NULL, "only %u of %u buffers came out", i, n);
    check (out, i);
    gst_buffer_unref (out);
  }
  out = gst_harness_try_pull (h);
  fail_unless (out == NULL, "more than %u buffers came out", n);
}

static inline GstPadProbeReturn
cf_check_log_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GString *log = user_data;

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER)
    g_string_append_c (log, 'B');
  else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_CAPS)
    g_string_append_c (log, 'C');
  else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS)
    g_string_append_c (log, 'E');
  return GST_PAD_PROBE_OK;
}

/* What reaches the harness @h from now on, in order: B a buffer, C caps,
 * E end of stream. Free it with g_string_free (). */
static inline GString *
cf_check_log_output (GstHarness * h)
{
  GString *log = g_string_new (NULL);

  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, cf_check_log_probe, log, NULL);
  return log;
}

#endif /* CF_CHECK_H */
