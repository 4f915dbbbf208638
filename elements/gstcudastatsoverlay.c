/**
 * SECTION:element-cudastatsoverlay
 * @title: cudastatsoverlay
 *
 * Draws exposure statistics onto the video, on the GPU: a semi-transparent
 * panel in a corner with the histogram of the frame (R, G and B overlaid in
 * their colours, luma, or one graph per channel) and, under it, a line per
 * channel with its min, max and mean and a line with the frame rate of the
 * statistics; optionally zebra stripes over the pixels at or above
 * `zebra-level` (clipped highlights) and over those at 0 (crushed shadows),
 * as the exposure aids of professional cameras do.
 *
 * The statistics are those of the frame itself: taken from the
 * GstCfStatsMeta a `cudastats` upstream attached, or computed here with
 * the same kernel (one pass) when the buffer carries none. Both give the
 * same picture. The text scales with the frame (5x7 glyphs drawn
 * height / 360 times as large: 2x at 720p, 6x at 4K). Colours are converted
 * to the format's colour space (BT.601 for YUV); drawing is integer
 * arithmetic (kernels/overlay.h), so the CUDA and CPU backends give
 * identical bytes. The frame rate is measured from the buffers' timestamps
 * over the last 16 frames, and starts again after a flush and at a new
 * segment that breaks the timeline (a seek without flush, a loop, the next
 * file of a concat, a new rate), so a seek never shows the rate across it.
 *
 * The frame is drawn on where it is: a writable buffer in CUDA memory is
 * changed in place, only the panel's pixels (and, with zebra, the luma
 * plane) touched; a buffer someone else holds is first copied once on the
 * device. Frames in system memory are uploaded, drawn on and, unless
 * downstream takes CUDA memory, downloaded.
 *
 * Every property can change while PLAYING; the next frame uses it.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! cudastats ! cudastatsoverlay ! \
 *     videoconvert ! autovideosink
 * ]| a camera with its histogram and statistics in the top-left corner.
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball ! video/x-raw,width=1280,height=720 ! \
 *     cudastatsoverlay position=bottom-right channels=each zebra=true \
 *     zebra-level=235 ! videoconvert ! autovideosink
 * ]| one graph per channel, and stripes over everything at 235 or above.
 * |[
 * gst-launch-1.0 filesrc location=clip.mp4 ! qtdemux ! h264parse ! \
 *     nvh264dec ! cudastats ! cudastatsoverlay ! cudadownload ! \
 *     videoconvert ! autovideosink
 * ]| decoded frames measured and drawn on without leaving the GPU.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudastatsoverlay.h"
#include "gstcfstatsslot.h"
#include <gst/cudafilters/gstcfstatsmeta.h>
#include "overlay.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cf_stats_overlay_debug);
#define GST_CAT_DEFAULT gst_cf_stats_overlay_debug

enum
{
  PROP_0,
  PROP_POSITION,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_OPACITY,
  PROP_CHANNELS,
  PROP_LOG_SCALE,
  PROP_SHOW_TEXT,
  PROP_ZEBRA,
  PROP_ZEBRA_LEVEL,
  PROP_ZEBRA_ZERO,
};

#define DEFAULT_POSITION CF_OVERLAY_TOP_LEFT
#define DEFAULT_WIDTH 0.3
#define DEFAULT_HEIGHT 0.35
#define DEFAULT_OPACITY 0.6
#define DEFAULT_CHANNELS CF_OVERLAY_CHANNELS_RGB
#define DEFAULT_LOG_SCALE FALSE
#define DEFAULT_SHOW_TEXT TRUE
#define DEFAULT_ZEBRA FALSE
#define DEFAULT_ZEBRA_LEVEL 255
#define DEFAULT_ZEBRA_ZERO FALSE
/* frames over which the rate of the statistics is measured */
#define FPS_WINDOW 16

struct _GstCfStatsOverlay
{
  GstCfBaseFilter parent;

  /* properties, under the object lock */
  CfOverlayCorner position;
  gdouble width, height, opacity;
  CfOverlayChannels channels;
  gboolean log_scale, show_text, zebra, zebra_zero;
  guint zebra_level;
  gboolean changed;             /* since the plan was made */

  /* streaming thread */
  CfOverlayPlan plan;
  GstClockTime pts[FPS_WINDOW]; /* of the last frames, a ring */
  guint n_pts, next_pts;
};

G_DEFINE_TYPE (GstCfStatsOverlay, gst_cf_stats_overlay,
    GST_TYPE_CF_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudastatsoverlay, "cudastatsoverlay",
    GST_RANK_NONE, GST_TYPE_CF_STATS_OVERLAY);

#define GST_TYPE_CF_STATS_OVERLAY_POSITION \
  (gst_cf_stats_overlay_position_get_type ())
static GType
gst_cf_stats_overlay_position_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CF_OVERLAY_TOP_LEFT, "Top left", "top-left"},
    {CF_OVERLAY_TOP_RIGHT, "Top right", "top-right"},
    {CF_OVERLAY_BOTTOM_LEFT, "Bottom left", "bottom-left"},
    {CF_OVERLAY_BOTTOM_RIGHT, "Bottom right", "bottom-right"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCfStatsOverlayPosition", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_CF_STATS_OVERLAY_CHANNELS \
  (gst_cf_stats_overlay_channels_get_type ())
static GType
gst_cf_stats_overlay_channels_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CF_OVERLAY_CHANNELS_RGB, "The colour channels in one graph, each in "
          "its colour", "rgb"},
    {CF_OVERLAY_CHANNELS_LUMA, "Luma only (on RGB, a weighted sum of the "
          "channels' histograms)", "luma"},
    {CF_OVERLAY_CHANNELS_EACH, "One graph per channel", "each"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCfStatsOverlayChannels", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_CF_VIDEO_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_CF_VIDEO_CAPS));

/* A size property: a fraction of @full up to 1, pixels above. */
static gint
to_pixels (gdouble v, gint full)
{
  gint px = v <= 1.0 ? (gint) (v * full + 0.5) : (gint) (v + 0.5);

  return CLAMP (px, 0, full);
}

/* The plan for the negotiated size and the properties. */
static gboolean
make_plan (GstCfStatsOverlay * self)
{
  GstCfBaseFilter *base = GST_CF_BASE_FILTER (self);
  const GstVideoInfo *info = gst_cf_base_filter_get_info (base);
  const gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  CfOverlayParams p = { 0, };

  GST_OBJECT_LOCK (self);
  self->changed = FALSE;
  p.corner = self->position;
  p.panel_width = to_pixels (self->width, w);
  p.panel_height = to_pixels (self->height, h);
  p.inset = MIN (w, h) / 60;
  p.opacity = (gint) (self->opacity * 255 + 0.5);
  p.channels = self->channels;
  p.log_scale = self->log_scale;
  p.show_text = self->show_text;
  p.zebra = self->zebra;
  p.zebra_level = self->zebra_level;
  p.zebra_zero = self->zebra_zero;
  GST_OBJECT_UNLOCK (self);

  if (cf_overlay_plan_init (&self->plan, gst_cf_base_filter_get_format (base),
          w, h, &p) != 0) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Could not lay out the "
            "overlay"), ("%dx%d panel on a %dx%d frame", p.panel_width,
            p.panel_height, w, h));
    return FALSE;
  }
  return TRUE;
}

/* The next frame starts a new measurement of the rate. */
static void
forget_frames (GstCfStatsOverlay * self)
{
  self->n_pts = self->next_pts = 0;
}

static gboolean
gst_cf_stats_overlay_set_info (GstCfBaseFilter * base,
    const GstVideoInfo * in, const GstVideoInfo * out)
{
  GstCfStatsOverlay *self = GST_CF_STATS_OVERLAY (base);

  forget_frames (self);
  return make_plan (self);
}

/* Takes up property changes for the next frame. */
static gboolean
ensure_plan (GstCfStatsOverlay * self)
{
  gboolean changed;

  GST_OBJECT_LOCK (self);
  changed = self->changed;
  GST_OBJECT_UNLOCK (self);
  return !changed || make_plan (self);
}

/* Ten times the rate of the statistics, from the timestamps of the last
 * FPS_WINDOW frames this one included; -1 until two are known. */
static gint
fps_x10 (GstCfStatsOverlay * self, GstClockTime pts)
{
  GstClockTime first;
  guint n;

  if (!GST_CLOCK_TIME_IS_VALID (pts)) {
    forget_frames (self);
    return -1;
  }
  self->pts[self->next_pts] = pts;
  self->next_pts = (self->next_pts + 1) % FPS_WINDOW;
  self->n_pts = MIN (self->n_pts + 1, FPS_WINDOW);
  n = self->n_pts;
  first = self->pts[(self->next_pts + FPS_WINDOW - n) % FPS_WINDOW];
  if (n < 2 || pts <= first)
    return -1;
  return (gint) gst_util_uint64_scale_round (10 * (n - 1), GST_SECOND,
      pts - first);
}

/* Whether the frames under @next, a new segment, go on from those measured
 * under @cur, the last of them at @last: whether @next gives that frame the
 * running time @cur gave it, at the same rate, so that the two map every
 * timestamp alike. So do the same segment sent again (sticky events after a
 * relink) and a non-flushing seek that keeps the position (a new stop, or a
 * start where the frames are: gst_segment_do_seek () sets base and offset
 * to carry the running time on). Any other new segment breaks the
 * timeline, and a rate measured across it would be wrong for a window of
 * frames: a non-flushing seek elsewhere (the timestamps jump), a segment
 * seek looping back (the same start, the base moved on), the next file of
 * a concat (timestamps from 0 again), a new rate (another pace). */
static gboolean
continues_timeline (const GstSegment * cur, const GstSegment * next,
    GstClockTime last)
{
  guint64 rt_cur, rt_next;
  gint sign;

  if (cur->format != GST_FORMAT_TIME || next->format != GST_FORMAT_TIME ||
      cur->rate != next->rate)
    return FALSE;
  sign = gst_segment_to_running_time_full (cur, GST_FORMAT_TIME, last,
      &rt_cur);
  if (sign == 0 || gst_segment_to_running_time_full (next, GST_FORMAT_TIME,
          last, &rt_next) != sign)
    return FALSE;
  /* at a rate other than 1 the base a seek computes and the running time
   * of @last are rounded apart by up to a nanosecond */
  return MAX (rt_cur, rt_next) - MIN (rt_cur, rt_next) <= 1;
}

static gboolean
gst_cf_stats_overlay_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCfStatsOverlay *self = GST_CF_STATS_OVERLAY (trans);
  const GstSegment *segment;
  GstClockTime last;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_STOP:
      /* the frames after a flush come from wherever the seek went */
      forget_frames (self);
      break;
    case GST_EVENT_SEGMENT:
      if (self->n_pts == 0)
        break;
      /* trans->segment is still the one the frames came under */
      gst_event_parse_segment (event, &segment);
      last = self->pts[(self->next_pts + FPS_WINDOW - 1) % FPS_WINDOW];
      if (!continues_timeline (&trans->segment, segment, last)) {
        GST_DEBUG_OBJECT (self, "new timeline, the rate starts again: %"
            GST_SEGMENT_FORMAT, segment);
        forget_frames (self);
      }
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cf_stats_overlay_parent_class)->
      sink_event (trans, event);
}

/* The statistics cudastats attached, when they describe this format. */
static const CfStats *
meta_stats (GstCfStatsOverlay * self, GstBuffer * buf)
{
  const GstCfStatsMeta *meta = gst_buffer_get_cf_stats_meta (buf);
  const GstVideoInfo *info =
      gst_cf_base_filter_get_info (GST_CF_BASE_FILTER (self));

  if (!meta || meta->format != GST_VIDEO_INFO_FORMAT (info))
    return NULL;
  /* GstCfFrameStats is CfStats' public spelling (the library asserts it) */
  return (const CfStats *) &meta->stats;
}

#ifdef HAVE_CUDA
/* Draws on the frame where it is: in place in a writable buffer of CUDA
 * memory, else on the copy the base class made (once) on the device. */
static CfDeviceError
gst_cf_stats_overlay_process_cuda (GstCfBaseFilter * base,
    GstCfFrameSlot * slot)
{
  GstCfStatsOverlay *self = GST_CF_STATS_OVERLAY (base);
  GstCfStatsSlot *s = slot->user;
  const CfStats *meta = meta_stats (self, slot->buffer);
  const gint fps = fps_x10 (self, GST_BUFFER_PTS (slot->buffer));
  cudaStream_t stream = cf_stream_handle (slot->stream);
  cudaError_t err;

  if (!ensure_plan (self))
    return cudaErrorInvalidValue;       /* (the error is posted) */
  if (meta) {
    /* the pinned copy stays until the frame is finished; copied by a
     * kernel, not behind frames on the copy engine */
    *s->h_result = *meta;
    err = cf_stats_copy_cuda (s->d_result, s->h_result, stream);
  } else {
    err = cf_stats_cuda (&slot->d_image, s->d_workspace, s->d_result, stream);
  }
  if (err == cudaSuccess)
    err = cf_overlay_cuda (&self->plan, &slot->d_image, s->d_result, fps,
        stream);
  return err;
}
#endif

/* Draws on the (writable) host frame. */
static gboolean
gst_cf_stats_overlay_process_cpu (GstCfBaseFilter * base,
    GstCfFrameSlot * slot, const CfImage * image, const CfImage * out)
{
  GstCfStatsOverlay *self = GST_CF_STATS_OVERLAY (base);
  GstCfStatsSlot *s = slot->user;
  const CfStats *stats = meta_stats (self, slot->buffer);
  const gint fps = fps_x10 (self, GST_BUFFER_PTS (slot->buffer));
  const gint n_threads = gst_cf_base_filter_get_n_threads (base);

  if (!ensure_plan (self))
    return FALSE;
  if (!stats) {
    if (cf_stats_cpu_threads (image, s->h_result, n_threads) != 0)
      goto bad_frame;
    stats = s->h_result;
  }
  if (cf_overlay_cpu_threads (&self->plan, image, stats, fps, n_threads) != 0)
    goto bad_frame;
  return TRUE;

bad_frame:
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not draw the overlay"),
      ("a frame that does not match the caps"));
  return FALSE;
}

static void
gst_cf_stats_overlay_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCfStatsOverlay *self = GST_CF_STATS_OVERLAY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_POSITION:
      self->position = g_value_get_enum (value);
      break;
    case PROP_WIDTH:
      self->width = g_value_get_double (value);
      break;
    case PROP_HEIGHT:
      self->height = g_value_get_double (value);
      break;
    case PROP_OPACITY:
      self->opacity = g_value_get_double (value);
      break;
    case PROP_CHANNELS:
      self->channels = g_value_get_enum (value);
      break;
    case PROP_LOG_SCALE:
      self->log_scale = g_value_get_boolean (value);
      break;
    case PROP_SHOW_TEXT:
      self->show_text = g_value_get_boolean (value);
      break;
    case PROP_ZEBRA:
      self->zebra = g_value_get_boolean (value);
      break;
    case PROP_ZEBRA_LEVEL:
      self->zebra_level = g_value_get_uint (value);
      break;
    case PROP_ZEBRA_ZERO:
      self->zebra_zero = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  self->changed = TRUE;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cf_stats_overlay_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCfStatsOverlay *self = GST_CF_STATS_OVERLAY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_POSITION:
      g_value_set_enum (value, self->position);
      break;
    case PROP_WIDTH:
      g_value_set_double (value, self->width);
      break;
    case PROP_HEIGHT:
      g_value_set_double (value, self->height);
      break;
    case PROP_OPACITY:
      g_value_set_double (value, self->opacity);
      break;
    case PROP_CHANNELS:
      g_value_set_enum (value, self->channels);
      break;
    case PROP_LOG_SCALE:
      g_value_set_boolean (value, self->log_scale);
      break;
    case PROP_SHOW_TEXT:
      g_value_set_boolean (value, self->show_text);
      break;
    case PROP_ZEBRA:
      g_value_set_boolean (value, self->zebra);
      break;
    case PROP_ZEBRA_LEVEL:
      g_value_set_uint (value, self->zebra_level);
      break;
    case PROP_ZEBRA_ZERO:
      g_value_set_boolean (value, self->zebra_zero);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

#define PARAM_FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_PLAYING)

static void
gst_cf_stats_overlay_class_init (GstCfStatsOverlayClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCfBaseFilterClass *filter_class = GST_CF_BASE_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cf_stats_overlay_set_property;
  gobject_class->get_property = gst_cf_stats_overlay_get_property;

  /**
   * GstCfStatsOverlay:position:
   *
   * The corner the panel sits in.
   */
  g_object_class_install_property (gobject_class, PROP_POSITION,
      g_param_spec_enum ("position", "Position", "Corner of the panel",
          GST_TYPE_CF_STATS_OVERLAY_POSITION, DEFAULT_POSITION, PARAM_FLAGS));
  /**
   * GstCfStatsOverlay:width:
   *
   * Width of the panel: a fraction of the frame's width up to 1, pixels
   * above (0: no panel, zebra only).
   */
  g_object_class_install_property (gobject_class, PROP_WIDTH,
      g_param_spec_double ("width", "Width",
          "Panel width: fraction of the frame (<= 1) or pixels (> 1)", 0,
          32767, DEFAULT_WIDTH, PARAM_FLAGS));
  /**
   * GstCfStatsOverlay:height:
   *
   * Height of the panel: a fraction of the frame's height up to 1, pixels
   * above.
   */
  g_object_class_install_property (gobject_class, PROP_HEIGHT,
      g_param_spec_double ("height", "Height",
          "Panel height: fraction of the frame (<= 1) or pixels (> 1)", 0,
          32767, DEFAULT_HEIGHT, PARAM_FLAGS));
  /**
   * GstCfStatsOverlay:opacity:
   *
   * Opacity of the panel's background (the bars and text are opaque).
   */
  g_object_class_install_property (gobject_class, PROP_OPACITY,
      g_param_spec_double ("opacity", "Opacity",
          "Opacity of the panel's background", 0, 1, DEFAULT_OPACITY,
          PARAM_FLAGS));
  /**
   * GstCfStatsOverlay:channels:
   *
   * What the histogram shows.
   */
  g_object_class_install_property (gobject_class, PROP_CHANNELS,
      g_param_spec_enum ("channels", "Channels", "What the histogram shows",
          GST_TYPE_CF_STATS_OVERLAY_CHANNELS, DEFAULT_CHANNELS, PARAM_FLAGS));
  /**
   * GstCfStatsOverlay:log-scale:
   *
   * Bar heights on a logarithmic scale of the counts.
   */
  g_object_class_install_property (gobject_class, PROP_LOG_SCALE,
      g_param_spec_boolean ("log-scale", "Log scale",
          "Logarithmic bar heights", DEFAULT_LOG_SCALE, PARAM_FLAGS));
  /**
   * GstCfStatsOverlay:show-text:
   *
   * The lines of min, max and mean per channel and the frame rate.
   */
  g_object_class_install_property (gobject_class, PROP_SHOW_TEXT,
      g_param_spec_boolean ("show-text", "Show text",
          "Min, max, mean per channel and the frame rate", DEFAULT_SHOW_TEXT,
          PARAM_FLAGS));
  /**
   * GstCfStatsOverlay:zebra:
   *
   * Diagonal stripes over the pixels whose luma is at or above
   * `zebra-level` (on RGB formats an integer BT.601 luma).
   */
  g_object_class_install_property (gobject_class, PROP_ZEBRA,
      g_param_spec_boolean ("zebra", "Zebra",
          "Stripes over pixels at or above zebra-level", DEFAULT_ZEBRA,
          PARAM_FLAGS));
  /**
   * GstCfStatsOverlay:zebra-level:
   *
   * The luma (0 .. 255; the high 8 bits of values of more than 8 bits)
   * from which zebra marks a pixel.
   */
  g_object_class_install_property (gobject_class, PROP_ZEBRA_LEVEL,
      g_param_spec_uint ("zebra-level", "Zebra level",
          "Luma at or above which zebra marks a pixel", 0, 255,
          DEFAULT_ZEBRA_LEVEL, PARAM_FLAGS));
  /**
   * GstCfStatsOverlay:zebra-zero:
   *
   * With zebra, mark the pixels at 0 too (in white).
   */
  g_object_class_install_property (gobject_class, PROP_ZEBRA_ZERO,
      g_param_spec_boolean ("zebra-zero", "Zebra zero",
          "With zebra, mark pixels at 0 too", DEFAULT_ZEBRA_ZERO, PARAM_FLAGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "CUDA statistics overlay", "Filter/Effect/Video",
      "Draws the histogram, min, max and mean of each frame and zebra "
      "stripes onto the video on the GPU", "gst-cudafilters developers");

  trans_class->sink_event =
      GST_DEBUG_FUNCPTR (gst_cf_stats_overlay_sink_event);

  gst_cf_base_filter_class_set_kind (filter_class, GST_CF_FILTER_DRAW);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_cf_stats_overlay_set_info);
  filter_class->slot_alloc = GST_DEBUG_FUNCPTR (gst_cf_stats_slot_alloc);
  filter_class->slot_free = GST_DEBUG_FUNCPTR (gst_cf_stats_slot_free);
#ifdef HAVE_CUDA
  filter_class->process_cuda =
      GST_DEBUG_FUNCPTR (gst_cf_stats_overlay_process_cuda);
#endif
  filter_class->process_cpu =
      GST_DEBUG_FUNCPTR (gst_cf_stats_overlay_process_cpu);

  gst_type_mark_as_plugin_api (GST_TYPE_CF_STATS_OVERLAY_POSITION, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CF_STATS_OVERLAY_CHANNELS, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cf_stats_overlay_debug, "cudastatsoverlay",
      0, "CUDA statistics overlay");
}

static void
gst_cf_stats_overlay_init (GstCfStatsOverlay * self)
{
  self->position = DEFAULT_POSITION;
  self->width = DEFAULT_WIDTH;
  self->height = DEFAULT_HEIGHT;
  self->opacity = DEFAULT_OPACITY;
  self->channels = DEFAULT_CHANNELS;
  self->log_scale = DEFAULT_LOG_SCALE;
  self->show_text = DEFAULT_SHOW_TEXT;
  self->zebra = DEFAULT_ZEBRA;
  self->zebra_level = DEFAULT_ZEBRA_LEVEL;
  self->zebra_zero = DEFAULT_ZEBRA_ZERO;
  self->changed = TRUE;
}
