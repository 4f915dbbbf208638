/* cudastats-meta: reads the statistics cudastats attaches to each buffer
 * (GstCfStatsMeta) from an appsink and prints them, one line per frame;
 * the way an application gets the numbers with the frame itself rather
 * than from the bus. Built against the statistics library:
 *
 *   cc cudastats-meta.c $(pkg-config --cflags --libs \
 *       gstreamer-cudafilters-1.0 gstreamer-app-1.0)
 *
 *   cudastats-meta                      # a test pattern, 10 frames
 *   cudastats-meta 'filesrc location=x.png ! pngdec ! videoconvert ! cudastats'
 *
 * The argument is the pipeline up to the element whose buffers carry the
 * meta; an appsink named "sink" is added after it. Exit status: 0 when
 * every frame carried the meta, 1 on an error or a frame without it, 2 for
 * a bad pipeline.
 */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/cudafilters/cudafilters.h>

#define DEFAULT_PIPELINE "videotestsrc num-buffers=10 pattern=smpte ! " \
  "video/x-raw,format=RGBA,width=640,height=360,framerate=30/1 ! " \
  "cudastats post-messages=false"

/* One line: the frame's time, then min, max, mean and variance of each
 * channel and its fullest histogram bin. */
static void
print_meta (GstBuffer * buf, const GstCfStatsMeta * meta)
{
  g_print ("%" GST_TIME_FORMAT " %s", GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
      gst_video_format_to_string (meta->format));
  for (guint c = 0; c < gst_cf_stats_meta_get_n_channels (meta); c++) {
    const guint32 *hist = gst_cf_stats_meta_get_histogram (meta, c);
    guint peak = 0;

    for (guint b = 1; b < GST_CF_STATS_BINS; b++)
      if (hist[b] > hist[peak])
        peak = b;
    g_print ("  %s: min %u max %u mean %.2f var %.2f peak %u",
        gst_cf_stats_meta_get_channel_name (meta, c), meta->stats.min[c],
        meta->stats.max[c], gst_cf_stats_meta_get_mean (meta, c),
        gst_cf_stats_meta_get_variance (meta, c), peak);
  }
  g_print ("\n");
}

int
main (int argc, char **argv)
{
  gchar *description;
  GError *error = NULL;
  GstElement *pipeline, *sink;
  GstSample *sample;
  guint frames = 0, missing = 0;
  int status = 0;

  gst_init (&argc, &argv);
  description = g_strdup_printf ("%s ! appsink name=sink sync=false",
      argc > 1 ? argv[1] : DEFAULT_PIPELINE);
  pipeline = gst_parse_launch (description, &error);
  if (!pipeline) {
    g_printerr ("cudastats-meta: bad pipeline: %s\n", error->message);
    g_clear_error (&error);
    g_free (description);
    return 2;
  }
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_print ("pipeline: %s\n", description);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    const GstCfStatsMeta *meta = gst_buffer_get_cf_stats_meta (buf);

    frames++;
    if (meta && meta->version >= GST_CF_STATS_META_VERSION) {
      print_meta (buf, meta);
    } else {
      g_print ("%" GST_TIME_FORMAT " no statistics\n",
          GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
      missing++;
    }
    gst_sample_unref (sample);
  }
  /* the sink is done: end of stream, or an error on the bus */
  {
    GstBus *bus = gst_element_get_bus (pipeline);
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

    if (msg) {
      gchar *debug = NULL;

      gst_message_parse_error (msg, &error, &debug);
      g_printerr ("error from %s: %s\n%s\n", GST_OBJECT_NAME (msg->src),
          error->message, debug ? debug : "");
      g_clear_error (&error);
      g_free (debug);
      gst_message_unref (msg);
      status = 1;
    }
    gst_object_unref (bus);
  }
  if (missing || frames == 0) {
    g_printerr ("cudastats-meta: %u of %u frames had no statistics\n",
        missing, frames);
    status = 1;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (description);
  return status;
}
