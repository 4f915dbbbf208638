/* cudastats-print: runs a pipeline with a cudastats element and prints one
 * line per `cudastats` message: the main job of the README.
 *
 *   cudastats-print                     # the default: a test pattern
 *   cudastats-print 'filesrc location=x.png ! pngdec ! videoconvert ! cudastats ! fakesink'
 *
 * It shows how an application reads the element's messages.
 */
#include <gst/gst.h>
#include <stdio.h>

#define DEFAULT_PIPELINE "videotestsrc num-buffers=10 pattern=smpte ! " \
  "video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1 ! " \
  "cudastats histogram=false ! fakesink"

static void
print_stats (const GstStructure * s)
{
  const GValue *names = gst_structure_get_value (s, "channels");
  guint64 ts = GST_CLOCK_TIME_NONE;
  guint c;

  gst_structure_get_uint64 (s, "timestamp", &ts);
  g_print ("%" GST_TIME_FORMAT, GST_TIME_ARGS (ts));
  for (c = 0; names && c < gst_value_array_get_size (names); c++) {
#define AT(field) gst_value_array_get_value (gst_structure_get_value (s, field), c)
    g_print ("  %s: min %3u max %3u mean %7.2f var %8.2f",
        g_value_get_string (gst_value_array_get_value (names, c)),
        g_value_get_uint (AT ("min")), g_value_get_uint (AT ("max")),
        g_value_get_double (AT ("mean")), g_value_get_double (AT ("variance")));
#undef AT
  }
  g_print ("\n");
}

int
main (int argc, char **argv)
{
  const gchar *description = argc > 1 ? argv[1] : DEFAULT_PIPELINE;
  GError *error = NULL;
  GstElement *pipeline;
  GstBus *bus;
  gboolean done = FALSE;
  int status = 0;

  gst_init (&argc, &argv);
  pipeline = gst_parse_launch (description, &error);
  if (!pipeline) {
    g_printerr ("cudastats-print: bad pipeline: %s\n", error->message);
    g_clear_error (&error);
    return 2;
  }
  g_print ("pipeline: %s\n", description);
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING |
        GST_MESSAGE_EOS);
    const GstStructure *s = gst_message_get_structure (msg);
    gchar *debug = NULL;

    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ELEMENT:
        if (gst_structure_has_name (s, "cudastats"))
          print_stats (s);
        break;
      case GST_MESSAGE_WARNING:
        gst_message_parse_warning (msg, &error, &debug);
        g_printerr ("warning from %s: %s\n", GST_OBJECT_NAME (msg->src),
            error->message);
        break;
      case GST_MESSAGE_ERROR:
        gst_message_parse_error (msg, &error, &debug);
        g_printerr ("error from %s: %s\n%s\n", GST_OBJECT_NAME (msg->src),
            error->message, debug ? debug : "");
        status = 1;
        done = TRUE;
        break;
      default:
        done = TRUE;
        break;
    }
    g_clear_error (&error);
    g_free (debug);
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return status;
}
