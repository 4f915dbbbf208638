/**
 * SECTION:element-cudastencil
 * @title: cudastencil
 *
 * Filters pictures on the GPU with a 1D stencil along the rows, the columns,
 * or both (separable 2D: the rows, then the columns, in one kernel launch
 * per plane; on 8-bit planes above radius 8, two launches on the tensor
 * cores through device scratch memory of about 2 bytes a sample of the
 * largest plane, per frame in flight): box and gaussian blurs, an
 * unsharp-mask sharpen, derivative
 * and laplacian edge filters, or any taps given on the command line, up to
 * radius 64 (129 taps). Each output sample is a weighted sum of the input
 * samples within the radius:
 * `out[i] = sum over t of taps[t] * in[i + t - radius]` (a correlation).
 *
 * Every plane is filtered at its own size (subsampled chroma too), each
 * sample with samples of its own channel. Alpha is copied unless
 * `filter-alpha` is set. Beyond the edges the picture is extended by
 * `border`. Weights and sums are fixed-point with documented rounding
 * (kernels/stencil.h), saturated at the format's range, so the CUDA and CPU
 * backends give identical bytes; negative results (edge filters) clip to 0.
 *
 * With direction `both` the same taps filter the rows and the columns: a
 * gaussian gives the 2D gaussian, a box the 2D box, and sharpen the product
 * of two 1D unsharp masks (a close, separable stand-in for the 2D one).
 *
 * Every filter property can change while PLAYING; the next frame uses it.
 * Settings that make no filter (taps summing to 0 with `normalize`, or to a
 * sum that overflows a double, an even number of taps, a gain above 64,
 * ...) fail negotiation with an error naming the cause; changed while
 * PLAYING, they post a warning and the previous filter stays. The names,
 * limits and rules are those of cudafilters-batch's --stencil too
 * (gstcfstencilsettings.h).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA,width=1280,height=720 ! \
 *     cudastencil preset=gaussian sigma=3 ! videoconvert ! autovideosink
 * ]| blurs with a 19x19 gaussian (radius 3 sigma, rounded up).
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball ! video/x-raw,format=I420 ! \
 *     cudastencil preset=sharpen amount=1.5 sigma=1 ! autovideosink
 * ]| sharpens with an unsharp mask.
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=GRAY8 ! \
 *     cudastencil direction=horizontal taps="<1, 2, 1>" ! autovideosink
 * ]| smooths along the rows with taps given as an array (normalized to
 * 1/4, 1/2, 1/4); `taps="1,2,1"` is the same.
 * |[
 * gst-launch-1.0 videotestsrc pattern=smpte ! video/x-raw,format=RGBx ! \
 *     cudastencil direction=vertical preset=derivative ! autovideosink
 * ]| shows where the picture brightens downwards.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudastencil.h"
#include "gstcfstencilsettings.h"

GST_DEBUG_CATEGORY_STATIC (gst_cf_stencil_debug);
#define GST_CAT_DEFAULT gst_cf_stencil_debug

enum
{
  PROP_0,
  PROP_DIRECTION,
  PROP_PRESET,
  PROP_RADIUS,
  PROP_SIGMA,
  PROP_AMOUNT,
  PROP_TAPS,
  PROP_NORMALIZE,
  PROP_BORDER,
  PROP_BORDER_VALUE,
  PROP_FILTER_ALPHA,
};

/* The names, defaults, limits and rules of the settings are
 * gstcfstencilsettings.h's, which cudafilters-batch's --stencil shares. */
struct _GstCfStencil
{
  GstCfBaseFilter parent;

  /* properties, under the object lock */
  GstCfStencilSettings settings;
  gboolean changed;             /* since the plan was made */
  gboolean settings_error;      /* the settings' error is posted */

  /* streaming thread */
  CfStencilPlan plan;
  gboolean have_plan;
#ifdef HAVE_CUDA
  CfStencilDevicePlan *d_plan;
#endif
};

G_DEFINE_TYPE (GstCfStencil, gst_cf_stencil, GST_TYPE_CF_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudastencil, "cudastencil", GST_RANK_NONE,
    GST_TYPE_CF_STENCIL);

/* An enum type whose values are @names (a table of the shared settings);
 * the values live as long as the type. */
static GType
register_enum (const gchar * type_name, const GstCfStencilName * names)
{
  guint n = 0, i;
  GEnumValue *values;

  while (names[n].nick)
    n++;
  values = g_new0 (GEnumValue, n + 1);
  for (i = 0; i < n; i++) {
    values[i].value = names[i].value;
    values[i].value_name = names[i].description;
    values[i].value_nick = names[i].nick;
  }
  return g_enum_register_static (type_name, values);
}

#define GST_TYPE_CF_STENCIL_DIRECTION (gst_cf_stencil_direction_get_type ())
static GType
gst_cf_stencil_direction_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = register_enum ("GstCfStencilDirection",
        gst_cf_stencil_direction_names);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_CF_STENCIL_PRESET (gst_cf_stencil_preset_get_type ())
static GType
gst_cf_stencil_preset_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = register_enum ("GstCfStencilPreset",
        gst_cf_stencil_preset_names);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_CF_STENCIL_BORDER (gst_cf_stencil_border_get_type ())
static GType
gst_cf_stencil_border_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = register_enum ("GstCfStencilBorder",
        gst_cf_stencil_border_names);
    g_once_init_leave (&type, t);
  }
  return type;
}

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_CF_VIDEO_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_CF_VIDEO_CAPS));

static void
clear_plan (GstCfStencil * self)
{
#ifdef HAVE_CUDA
  g_clear_pointer (&self->d_plan, cf_stencil_device_plan_free);
#endif
  cf_stencil_plan_clear (&self->plan);
  self->have_plan = FALSE;
}

/* The filter the properties describe, for @format at @width x @height, into
 * @plan; FALSE with *@why set when they describe none. Takes the object
 * lock. */
static gboolean
plan_from_properties (GstCfStencil * self, CfFormat format, gint width,
    gint height, CfStencilPlan * plan, gchar ** why)
{
  GError *error = NULL;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  self->changed = FALSE;
  ok = gst_cf_stencil_settings_plan (&self->settings, format, width, height,
      plan, &error);
  GST_OBJECT_UNLOCK (self);
  if (!ok) {
    *why = g_strdup (error->message);
    g_error_free (error);
  }
  return ok;
}

typedef enum
{
  PLAN_NEW,                     /* made from the properties */
  PLAN_KEPT,                    /* bad settings while playing: the old one */
  PLAN_FAILED,                  /* bad settings at negotiation */
} PlanResult;

/* Makes the plan from the properties. At negotiation (@negotiating)
 * settings that make no filter are an error (posted once while they stay
 * wrong, however often upstream retries); later, changed while playing, a
 * warning that keeps the previous filter. */
static PlanResult
make_plan (GstCfStencil * self, gboolean negotiating)
{
  GstCfBaseFilter *base = GST_CF_BASE_FILTER (self);
  const GstVideoInfo *info = gst_cf_base_filter_get_info (base);
  CfStencilPlan plan;
  gchar *why = NULL;

  if (!plan_from_properties (self, gst_cf_base_filter_get_format (base),
          GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), &plan,
          &why)) {
    if (negotiating && !self->settings_error)
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Invalid filter settings"),
          ("%s", why));
    else if (!negotiating)
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("Invalid filter "
              "settings, keeping the previous filter"), ("%s", why));
    self->settings_error = negotiating;
    g_free (why);
    return negotiating ? PLAN_FAILED : PLAN_KEPT;
  }
  self->settings_error = FALSE;
  clear_plan (self);
  self->plan = plan;
  self->have_plan = TRUE;
  GST_DEBUG_OBJECT (self, "direction %d, radius %d x %d, border %d",
      plan.direction, plan.radius_x, plan.radius_y, plan.border);
  return PLAN_NEW;
}

/* TRUE when a property changed since the plan was made. */
static gboolean
plan_changed (GstCfStencil * self)
{
  gboolean changed;

  GST_OBJECT_LOCK (self);
  changed = self->changed;
  GST_OBJECT_UNLOCK (self);
  return changed;
}

#ifdef HAVE_CUDA
/* The launch-ready copy of the plan. It holds no device memory and
 * launches copy its weights, so frames in flight need not finish first. */
static cudaError_t
make_device_plan (GstCfStencil * self)
{
  g_clear_pointer (&self->d_plan, cf_stencil_device_plan_free);
  return cf_stencil_device_plan_new (&self->plan,
      CF_STENCIL_KERNELS_AUTO, &self->d_plan);
}
#endif

static gboolean
gst_cf_stencil_set_info (GstCfBaseFilter * base, const GstVideoInfo * in,
    const GstVideoInfo * out)
{
  GstCfStencil *self = GST_CF_STENCIL (base);

  if (make_plan (self, TRUE) != PLAN_NEW)
    return FALSE;
#ifdef HAVE_CUDA
  if (gst_cf_base_filter_uses_cuda (base) &&
      !GST_CF_OK (self, make_device_plan (self)))
    return FALSE;
#endif
  return TRUE;
}

#ifdef HAVE_CUDA
static CfDeviceError
gst_cf_stencil_process_cuda (GstCfBaseFilter * base, GstCfFrameSlot * slot)
{
  GstCfStencil *self = GST_CF_STENCIL (base);
  cudaError_t err;

  /* the base class posts a CUDA error */
  if (plan_changed (self) && make_plan (self, FALSE) == PLAN_NEW &&
      (err = make_device_plan (self)) != cudaSuccess)
    return err;
  /* the two-pass kernels' intermediate (radii above 8): the slot's own,
   * grown on the first frame of a plan that needs more */
  err = cf_grow_buffer_reserve (&slot->d_workspace,
      cf_stencil_device_plan_workspace_bytes (self->d_plan));
  if (err != cudaSuccess)
    return err;
  return cf_stencil_cuda (self->d_plan, &slot->d_image, &slot->d_out,
      slot->d_workspace.data, cf_stream_handle (slot->stream));
}
#endif

static gboolean
gst_cf_stencil_process_cpu (GstCfBaseFilter * base, GstCfFrameSlot * slot,
    const CfImage * image, const CfImage * out)
{
  GstCfStencil *self = GST_CF_STENCIL (base);

  if (plan_changed (self))
    make_plan (self, FALSE);    /* bad settings: the previous filter */
  if (cf_stencil_cpu_threads (&self->plan, image, out,
          gst_cf_base_filter_get_n_threads (base)) != 0) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not filter a frame"),
        ("out of memory, or a frame that does not match the caps"));
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_cf_stencil_stop (GstBaseTransform * trans)
{
  gboolean ok =
      GST_BASE_TRANSFORM_CLASS (gst_cf_stencil_parent_class)->stop (trans);

  clear_plan (GST_CF_STENCIL (trans));
  GST_CF_STENCIL (trans)->settings_error = FALSE;
  return ok;
}

static void
gst_cf_stencil_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCfStencil *self = GST_CF_STENCIL (object);
  GstCfStencilSettings *s = &self->settings;
  gboolean custom = FALSE;

  /* lists are read when the plan is made, which reports what is wrong */
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DIRECTION:
      s->direction = g_value_get_enum (value);
      break;
    case PROP_PRESET:
      s->preset = g_value_get_enum (value);
      break;
    case PROP_RADIUS:
      s->radius = g_value_get_int (value);
      break;
    case PROP_SIGMA:
      s->sigma = g_value_get_double (value);
      break;
    case PROP_AMOUNT:
      s->amount = g_value_get_double (value);
      break;
    case PROP_TAPS:
      custom = gst_cf_stencil_settings_set_taps (s,
          g_value_get_string (value));
      break;
    case PROP_NORMALIZE:
      s->normalize = g_value_get_boolean (value);
      break;
    case PROP_BORDER:
      s->border = g_value_get_enum (value);
      break;
    case PROP_BORDER_VALUE:
      gst_cf_stencil_settings_set_border_value (s,
          g_value_get_string (value));
      break;
    case PROP_FILTER_ALPHA:
      s->filter_alpha = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  self->changed = TRUE;
  GST_OBJECT_UNLOCK (self);
  if (custom)
    g_object_notify (object, "preset");
}

static void
gst_cf_stencil_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCfStencil *self = GST_CF_STENCIL (object);
  const GstCfStencilSettings *s = &self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DIRECTION:
      g_value_set_enum (value, s->direction);
      break;
    case PROP_PRESET:
      g_value_set_enum (value, s->preset);
      break;
    case PROP_RADIUS:
      g_value_set_int (value, s->radius);
      break;
    case PROP_SIGMA:
      g_value_set_double (value, s->sigma);
      break;
    case PROP_AMOUNT:
      g_value_set_double (value, s->amount);
      break;
    case PROP_TAPS:
      g_value_set_string (value, s->taps);
      break;
    case PROP_NORMALIZE:
      g_value_set_boolean (value, s->normalize);
      break;
    case PROP_BORDER:
      g_value_set_enum (value, s->border);
      break;
    case PROP_BORDER_VALUE:
      g_value_set_string (value, s->border_value);
      break;
    case PROP_FILTER_ALPHA:
      g_value_set_boolean (value, s->filter_alpha);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cf_stencil_finalize (GObject * object)
{
  GstCfStencil *self = GST_CF_STENCIL (object);

  clear_plan (self);
  gst_cf_stencil_settings_clear (&self->settings);
  G_OBJECT_CLASS (gst_cf_stencil_parent_class)->finalize (object);
}

#define PARAM_FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_PLAYING)

static void
gst_cf_stencil_class_init (GstCfStencilClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCfBaseFilterClass *filter_class = GST_CF_BASE_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cf_stencil_set_property;
  gobject_class->get_property = gst_cf_stencil_get_property;
  gobject_class->finalize = gst_cf_stencil_finalize;

  /**
   * GstCfStencil:direction:
   *
   * Along the rows (`horizontal`), the columns (`vertical`), or both
   * (separable 2D, the same taps on each axis).
   */
  g_object_class_install_property (gobject_class, PROP_DIRECTION,
      g_param_spec_enum ("direction", "Direction", "Axes to filter along",
          GST_TYPE_CF_STENCIL_DIRECTION, GST_CF_STENCIL_DEFAULT_DIRECTION,
          PARAM_FLAGS));
  /**
   * GstCfStencil:preset:
   *
   * The taps: `custom` takes them from the taps property (setting taps
   * selects it); the others make them from radius, sigma and amount.
   * `derivative` and `laplacian` have radius 1 and are not normalized.
   */
  g_object_class_install_property (gobject_class, PROP_PRESET,
      g_param_spec_enum ("preset", "Preset", "Named filter, or custom taps",
          GST_TYPE_CF_STENCIL_PRESET, GST_CF_STENCIL_DEFAULT_PRESET,
          PARAM_FLAGS));
  /**
   * GstCfStencil:radius:
   *
   * Taps on each side of the centre for box, gaussian and sharpen (2 radius
   * + 1 taps); 0 picks 3 sigma (rounded up, at most 64) for gaussian and
   * sharpen, 1 for box.
   */
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_int ("radius", "Radius",
          "Taps each side of the centre (0 = from sigma)", 0,
          CF_STENCIL_MAX_RADIUS, GST_CF_STENCIL_DEFAULT_RADIUS, PARAM_FLAGS));
  /**
   * GstCfStencil:sigma:
   *
   * Standard deviation of the gaussian (gaussian and sharpen), in samples.
   */
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("sigma", "Sigma",
          "Standard deviation of the gaussian, in samples",
          GST_CF_STENCIL_MIN_SIGMA, GST_CF_STENCIL_MAX_SIGMA,
          GST_CF_STENCIL_DEFAULT_SIGMA, PARAM_FLAGS));
  /**
   * GstCfStencil:amount:
   *
   * Strength of sharpen: out = in + amount * (in - gaussian blur of in).
   */
  g_object_class_install_property (gobject_class, PROP_AMOUNT,
      g_param_spec_double ("amount", "Amount", "Strength of sharpen",
          GST_CF_STENCIL_MIN_AMOUNT, GST_CF_STENCIL_MAX_AMOUNT,
          GST_CF_STENCIL_DEFAULT_AMOUNT, PARAM_FLAGS));
  /**
   * GstCfStencil:taps:
   *
   * The taps of preset `custom`, an odd number of them (2 radius + 1, at
   * most 129): a comma- or space-separated list ("1,2,1") or an array as
   * GStreamer writes it ("<1, 2, 1>"). Tap t weighs in[i + t - radius].
   * Setting them selects preset `custom`.
   */
  g_object_class_install_property (gobject_class, PROP_TAPS,
      g_param_spec_string ("taps", "Taps",
          "Taps of preset custom: \"1,2,1\" or \"<1, 2, 1>\"", NULL,
          PARAM_FLAGS));
  /**
   * GstCfStencil:normalize:
   *
   * Divide the custom taps by their sum (which must not be 0), so that a
   * flat picture stays as it is.
   */
  g_object_class_install_property (gobject_class, PROP_NORMALIZE,
      g_param_spec_boolean ("normalize", "Normalize",
          "Divide custom taps by their sum", GST_CF_STENCIL_DEFAULT_NORMALIZE,
          PARAM_FLAGS));
  /**
   * GstCfStencil:border:
   *
   * How the picture extends beyond its edges.
   */
  g_object_class_install_property (gobject_class, PROP_BORDER,
      g_param_spec_enum ("border", "Border", "Samples beyond the edges",
          GST_TYPE_CF_STENCIL_BORDER, GST_CF_STENCIL_DEFAULT_BORDER,
          PARAM_FLAGS));
  /**
   * GstCfStencil:border-value:
   *
   * The samples beyond the edges for border `constant`, per channel in the
   * order R, G, B, A (or Y, U, V; or gray), as values of the format (0 ..
   * 255; 0 .. 1023 for the 10-bit formats, P010's included; 0 .. 65535 for
   * the 16-bit ones): "16,128,128" is black in 8-bit YUV; a
   * shorter list gives its last value to the channels after it (one value:
   * every channel); empty is 0. Only border `constant` reads it.
   */
  g_object_class_install_property (gobject_class, PROP_BORDER_VALUE,
      g_param_spec_string ("border-value", "Border value",
          "Per-channel samples for border=constant (\"16,128,128\")", NULL,
          PARAM_FLAGS));
  /**
   * GstCfStencil:filter-alpha:
   *
   * Filter the alpha channel too, instead of copying it.
   */
  g_object_class_install_property (gobject_class, PROP_FILTER_ALPHA,
      g_param_spec_boolean ("filter-alpha", "Filter alpha",
          "Filter the alpha channel too", GST_CF_STENCIL_DEFAULT_FILTER_ALPHA,
          PARAM_FLAGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "CUDA 1D stencil filter", "Filter/Effect/Video",
      "Blurs, sharpens and edge-filters video along rows and columns on the "
      "GPU", "gst-cudafilters developers");

  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cf_stencil_stop);

  gst_cf_base_filter_class_set_kind (filter_class, GST_CF_FILTER_TRANSFORM);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_cf_stencil_set_info);
#ifdef HAVE_CUDA
  filter_class->process_cuda =
      GST_DEBUG_FUNCPTR (gst_cf_stencil_process_cuda);
#endif
  filter_class->process_cpu = GST_DEBUG_FUNCPTR (gst_cf_stencil_process_cpu);

  gst_type_mark_as_plugin_api (GST_TYPE_CF_STENCIL_DIRECTION, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CF_STENCIL_PRESET, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CF_STENCIL_BORDER, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cf_stencil_debug, "cudastencil", 0,
      "CUDA 1D stencil filter");
}

static void
gst_cf_stencil_init (GstCfStencil * self)
{
  gst_cf_stencil_settings_init (&self->settings);
  self->changed = TRUE;
}
