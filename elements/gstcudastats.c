/**
 * SECTION:element-cudastats
 * @title: cudastats
 *
 * Measures every frame that passes, on the GPU, without changing it: per
 * channel (R, G, B, A / Y, U, V / gray) a 256-bin histogram (values of more
 * than 8 bits binned by their high 8 bits; P010's are 10-bit values), the
 * minimum, maximum and exact sum, and
 * the mean and variance derived from exact integer sums. The CUDA and CPU
 * backends give identical numbers.
 *
 * The numbers are attached to each buffer as a #GstCfStatsMeta and, like
 * `videoanalyse` and `level` do, posted as element messages named
 * `cudastats` with these fields:
 *
 * * `timestamp`, `stream-time`, `running-time`, `duration` (guint64): the
 *   frame, or the interval, measured
 * * `frames` (guint): frames in the interval
 * * `channels` (GstValueArray of strings): channel names, in order
 * * `min`, `max` (GstValueArray of guint), `sum` (of guint64), `mean`,
 *   `variance` (of gdouble, population variance): one entry per channel
 * * `histogram` (GstValueArray of GstValueArray of 256 guint), when the
 *   `histogram` property is set
 *
 * With `interval` set, frames are accumulated and one message is posted per
 * interval and at end of stream, as `level` does.
 *
 * Frames in CUDA memory (`video/x-raw(memory:CUDAMemory)`, from NVIDIA's
 * decoders, `cudaupload` or another element of this plugin) are read where
 * they are and pass through untouched. Frames in system memory are uploaded
 * while the previous ones are analysed (see `frames-in-flight`), from a
 * pool of page-locked memory offered upstream, so uploads run at full PCIe
 * speed; when downstream takes CUDA memory, the uploaded copy goes on, so
 * the elements after this one need not upload the frame again.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m videotestsrc num-buffers=30 ! \
 *     video/x-raw,format=NV12,width=1920,height=1080 ! \
 *     cudastats histogram=false ! fakesink
 * ]| prints one `cudastats` message per frame with the min, max, sum, mean
 * and variance of Y, U and V.
 * |[
 * gst-launch-1.0 -m videotestsrc pattern=ball is-live=true ! \
 *     video/x-raw,width=1280,height=720 ! cudastats interval=1000000000 ! \
 *     fakesink
 * ]| posts the statistics of each second of video, histograms included.
 * |[
 * gst-launch-1.0 -m filesrc location=clip.mp4 ! qtdemux ! h264parse ! \
 *     nvh264dec ! cudastats ! fakesink
 * ]| measures frames decoded on the GPU without copying them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudastats.h"
#include "gstcfstatsslot.h"
#include <gst/cudafilters/gstcfstatsmeta.h>
#include "stats.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cf_stats_debug);
#define GST_CAT_DEFAULT gst_cf_stats_debug

enum {
  PROP_0,
  PROP_POST_MESSAGES,
  PROP_INTERVAL,
  PROP_HISTOGRAM,
};

#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_INTERVAL 0
#define DEFAULT_HISTOGRAM TRUE

struct _GstCfStats {
  GstCfBaseFilter parent;

  /* properties, under the object lock */
  gboolean post_messages;
  guint64 interval;
  gboolean histogram;

  /* the interval being accumulated (streaming thread) */
  CfStatsSum acc;
  GstClockTime acc_start;
  GstClockTime acc_duration;
};

G_DEFINE_TYPE (GstCfStats, gst_cf_stats, GST_TYPE_CF_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudastats, "cudastats", GST_RANK_NONE,
    GST_TYPE_CF_STATS);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_CF_VIDEO_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_CF_VIDEO_CAPS));

#ifdef HAVE_CUDA
/* Reads the frame where it is: in the buffer's own CUDA memory, or in the
 * copy the base class uploaded. The kernel writes the statistics straight
 * into the slot's page-locked result: no copy that would queue on the copy
 * engine behind frames moving the same way. */
static CfDeviceError
gst_cf_stats_process_cuda (GstCfBaseFilter * base, GstCfFrameSlot * slot)
{
  GstCfStatsSlot *s = slot->user;

  return cf_stats_cuda (&slot->d_image, s->d_workspace, s->h_result,
      cf_stream_handle (slot->stream));
}
#endif

static gboolean
gst_cf_stats_process_cpu (GstCfBaseFilter * base, GstCfFrameSlot * slot,
    const CfImage * image, const CfImage * out)
{
  GstCfStatsSlot *s = slot->user;

  if (cf_stats_cpu_threads (image, s->h_result,
          gst_cf_base_filter_get_n_threads (base)) != 0) {
    GST_ELEMENT_ERROR (base, STREAM, FAILED, ("Invalid frame"), (NULL));
    return FALSE;
  }
  return TRUE;
}

static void
reset_interval (GstCfStats * self)
{
  cf_stats_sum_reset (&self->acc, 0);
  self->acc_start = GST_CLOCK_TIME_NONE;
  self->acc_duration = 0;
}

#define APPEND(array, gtype, setter, v) G_STMT_START { \
    GValue item = G_VALUE_INIT;                        \
    g_value_init (&item, gtype);                       \
    setter (&item, v);                                 \
    gst_value_array_append_and_take_value (array, &item); \
  } G_STMT_END

static GstMessage *
interval_message (GstCfStats * self, gboolean with_histogram)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  const CfFormatInfo *info =
      cf_format_info (gst_cf_base_filter_get_format (GST_CF_BASE_FILTER (self)));
  const CfStatsSum *acc = &self->acc;
  GValue names = G_VALUE_INIT, mins = G_VALUE_INIT, maxs = G_VALUE_INIT,
      sums = G_VALUE_INIT, means = G_VALUE_INIT, variances = G_VALUE_INIT,
      hists = G_VALUE_INIT;
  GstClockTime ts = self->acc_start;
  GstStructure *s;
  guint c, b;

  s = gst_structure_new ("cudastats",
      "timestamp", G_TYPE_UINT64, ts,
      "stream-time", G_TYPE_UINT64, gst_segment_to_stream_time (&trans->segment,
          GST_FORMAT_TIME, ts),
      "running-time", G_TYPE_UINT64,
      gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME, ts),
      "duration", G_TYPE_UINT64, self->acc_duration,
      "frames", G_TYPE_UINT, acc->frames, NULL);

  g_value_init (&names, GST_TYPE_ARRAY);
  g_value_init (&mins, GST_TYPE_ARRAY);
  g_value_init (&maxs, GST_TYPE_ARRAY);
  g_value_init (&sums, GST_TYPE_ARRAY);
  g_value_init (&means, GST_TYPE_ARRAY);
  g_value_init (&variances, GST_TYPE_ARRAY);
  g_value_init (&hists, GST_TYPE_ARRAY);
  for (c = 0; c < acc->n_channels; c++) {
    APPEND (&names, G_TYPE_STRING, g_value_set_static_string,
        info->channel_names[c]);
    APPEND (&mins, G_TYPE_UINT, g_value_set_uint, acc->min[c]);
    APPEND (&maxs, G_TYPE_UINT, g_value_set_uint, acc->max[c]);
    APPEND (&sums, G_TYPE_UINT64, g_value_set_uint64, acc->sum[c]);
    APPEND (&means, G_TYPE_DOUBLE, g_value_set_double,
        cf_stats_sum_mean (acc, c));
    APPEND (&variances, G_TYPE_DOUBLE, g_value_set_double,
        cf_stats_sum_variance (acc, c));
    if (with_histogram) {
      GValue bins = G_VALUE_INIT;
      g_value_init (&bins, GST_TYPE_ARRAY);
      for (b = 0; b < CF_STATS_BINS; b++) {
        /* a bin of a very long interval saturates rather than wraps */
        APPEND (&bins, G_TYPE_UINT, g_value_set_uint,
            (guint) MIN (acc->histogram[c][b], G_MAXUINT));
      }
      gst_value_array_append_and_take_value (&hists, &bins);
    }
  }
  gst_structure_take_value (s, "channels", &names);
  gst_structure_take_value (s, "min", &mins);
  gst_structure_take_value (s, "max", &maxs);
  gst_structure_take_value (s, "sum", &sums);
  gst_structure_take_value (s, "mean", &means);
  gst_structure_take_value (s, "variance", &variances);
  if (with_histogram)
    gst_structure_take_value (s, "histogram", &hists);
  else
    g_value_unset (&hists);

  return gst_message_new_element (GST_OBJECT (self), s);
}

/* Posts the interval accumulated so far, if any, and starts a new one. */
static void
post_interval (GstCfStats * self)
{
  gboolean post, histogram;

  GST_OBJECT_LOCK (self);
  post = self->post_messages;
  histogram = self->histogram;
  GST_OBJECT_UNLOCK (self);

  if (post && self->acc.frames > 0)
    gst_element_post_message (GST_ELEMENT (self),
        interval_message (self, histogram));
  reset_interval (self);
}

static GstFlowReturn
gst_cf_stats_finish (GstCfBaseFilter * base, GstCfFrameSlot * slot,
    GstBuffer * buffer)
{
  GstCfStats *self = GST_CF_STATS (base);
  const GstVideoInfo *info = gst_cf_base_filter_get_info (base);
  const CfStats *stats = ((GstCfStatsSlot *) slot->user)->h_result;
  GstClockTime duration = GST_BUFFER_DURATION (buffer);
  guint64 interval;
  gboolean post;

  /* GstCfFrameStats is CfStats' public spelling, field for field (the
   * library asserts it) */
  gst_buffer_add_cf_stats_meta (buffer, GST_VIDEO_INFO_FORMAT (info),
      (const GstCfFrameStats *) stats);

  GST_OBJECT_LOCK (self);
  post = self->post_messages;
  interval = self->interval;
  GST_OBJECT_UNLOCK (self);
  if (!post)
    return GST_FLOW_OK;

  if (self->acc.frames == 0)
    self->acc_start = GST_BUFFER_PTS (buffer);
  cf_stats_sum_add (&self->acc, stats);
  if (!GST_CLOCK_TIME_IS_VALID (duration) && GST_VIDEO_INFO_FPS_N (info) > 0)
    duration = gst_util_uint64_scale (GST_SECOND, GST_VIDEO_INFO_FPS_D (info),
        GST_VIDEO_INFO_FPS_N (info));
  if (GST_CLOCK_TIME_IS_VALID (duration))
    self->acc_duration += duration;
  if (interval == 0 || self->acc_duration >= interval)
    post_interval (self);
  return GST_FLOW_OK;
}

static gboolean
gst_cf_stats_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCfStats *self = GST_CF_STATS (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
    case GST_EVENT_CAPS:
      /* the last, partial interval is posted before EOS goes on, as level
       * does; a new format starts a new interval */
      gst_cf_base_filter_drain (GST_CF_BASE_FILTER (self));
      post_interval (self);
      break;
    case GST_EVENT_FLUSH_STOP:
      reset_interval (self);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cf_stats_parent_class)->sink_event
      (trans, event);
}

static gboolean
gst_cf_stats_start (GstBaseTransform * trans)
{
  GstCfStats *self = GST_CF_STATS (trans);

  reset_interval (self);
  return GST_BASE_TRANSFORM_CLASS (gst_cf_stats_parent_class)->start (trans);
}

static void
gst_cf_stats_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCfStats *self = GST_CF_STATS (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    case PROP_INTERVAL:
      self->interval = g_value_get_uint64 (value);
      break;
    case PROP_HISTOGRAM:
      self->histogram = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cf_stats_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCfStats *self = GST_CF_STATS (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, self->interval);
      break;
    case PROP_HISTOGRAM:
      g_value_set_boolean (value, self->histogram);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cf_stats_class_init (GstCfStatsClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCfBaseFilterClass *filter_class = GST_CF_BASE_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cf_stats_set_property;
  gobject_class->get_property = gst_cf_stats_get_property;

  /**
   * GstCfStats:post-messages:
   *
   * Post a `cudastats` element message per frame, or per interval.
   */
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post a cudastats element message per frame or per interval",
          DEFAULT_POST_MESSAGES, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstCfStats:interval:
   *
   * Length of the interval over which statistics are accumulated before a
   * message is posted, in nanoseconds of buffer duration (or of the caps'
   * frame rate when buffers have none); 0 posts every frame. The partial
   * last interval is posted at end of stream.
   */
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Interval of time between messages, in ns (0 = every frame)", 0,
          G_MAXUINT64, DEFAULT_INTERVAL, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstCfStats:histogram:
   *
   * Include the 256-bin histograms in the messages (the meta always has
   * them).
   */
  g_object_class_install_property (gobject_class, PROP_HISTOGRAM,
      g_param_spec_boolean ("histogram", "Histogram",
          "Include the 256-bin histograms in the messages", DEFAULT_HISTOGRAM,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_cf_base_filter_class_set_kind (filter_class, GST_CF_FILTER_ANALYSE);
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "CUDA video statistics", "Filter/Analyzer/Video",
      "Per-channel histogram, min, max, sum, mean and variance of every "
      "frame, on the GPU", "gst-cudafilters developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cf_stats_start);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cf_stats_sink_event);

  filter_class->slot_alloc = GST_DEBUG_FUNCPTR (gst_cf_stats_slot_alloc);
  filter_class->slot_free = GST_DEBUG_FUNCPTR (gst_cf_stats_slot_free);
#ifdef HAVE_CUDA
  filter_class->process_cuda = GST_DEBUG_FUNCPTR (gst_cf_stats_process_cuda);
#endif
  filter_class->process_cpu = GST_DEBUG_FUNCPTR (gst_cf_stats_process_cpu);
  filter_class->finish = GST_DEBUG_FUNCPTR (gst_cf_stats_finish);

  GST_DEBUG_CATEGORY_INIT (gst_cf_stats_debug, "cudastats", 0,
      "CUDA video statistics");
}

static void
gst_cf_stats_init (GstCfStats * self)
{
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->interval = DEFAULT_INTERVAL;
  self->histogram = DEFAULT_HISTOGRAM;
  reset_interval (self);
}
