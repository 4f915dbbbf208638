/**
 * SECTION:element-cudaresize
 * @title: cudaresize
 *
 * Scales pictures on the GPU with one of five methods: nearest, bilinear,
 * bicubic (Catmull-Rom), lanczos (3 lobes) and area (exact box average when
 * downscaling). When downscaling, bilinear, bicubic and lanczos widen their
 * support with the scale factor, so fine detail does not alias;
 * `antialias=false` keeps their own support, as NPP and videoscale do. Weights and
 * sums are fixed-point with documented rounding (kernels/resize.h), so the
 * CUDA and CPU backends give identical bytes.
 *
 * Negotiation follows `videoscale`: any output size from 1x1 to 32767x32767,
 * the pixel and display aspect ratios fixated as `videoscale` does, black
 * borders (`add-borders`) when the display aspect ratio cannot be kept, and
 * passthrough when input and output caps are equal. A GstVideoCropMeta on
 * the input is honoured: the crop is scaled to the output. Subsampled chroma
 * is scaled at its own size with its siting.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! \
 *     video/x-raw,format=RGBA,width=3840,height=2160 ! \
 *     cudaresize method=bilinear ! video/x-raw,width=1920,height=1080 ! \
 *     fakesink
 * ]| scales 4K RGBA to 1080p.
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12,width=1280,height=720 ! \
 *     cudaresize method=lanczos ! video/x-raw,width=3840,height=2160 ! \
 *     autovideosink
 * ]| upscales NV12 with Lanczos-3.
 * |[
 * gst-launch-1.0 videotestsrc pattern=zone-plate ! \
 *     video/x-raw,format=I420,width=1920,height=1080 ! \
 *     cudaresize method=bicubic ! video/x-raw,width=1280,height=720 ! \
 *     autovideosink
 * ]| downscales I420 with Catmull-Rom, widened so the zone plate does not
 * alias.
 * |[
 * gst-launch-1.0 videotestsrc pattern=checkers-8 ! \
 *     video/x-raw,format=GRAY8,width=320,height=240 ! \
 *     cudaresize method=nearest ! video/x-raw,width=1280,height=960 ! \
 *     autovideosink
 * ]| enlarges 4 times with sharp pixel edges.
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,width=640,height=480 ! \
 *     cudaresize method=area add-borders=true ! \
 *     video/x-raw,width=1280,height=540,pixel-aspect-ratio=1/1 ! autovideosink
 * ]| keeps the 4:3 picture and pillarboxes it with black.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaresize.h"
#include "fill.h"
#include "resize.h"

GST_DEBUG_CATEGORY_STATIC (gst_cf_resize_debug);
#define GST_CAT_DEFAULT gst_cf_resize_debug

enum {
  PROP_0,
  PROP_METHOD,
  PROP_ADD_BORDERS,
  PROP_ANTIALIAS,
};

#define DEFAULT_METHOD CF_RESIZE_BILINEAR
#define DEFAULT_ADD_BORDERS TRUE
#define DEFAULT_ANTIALIAS TRUE

struct _GstCfResize {
  GstCfBaseFilter parent;

  /* properties, under the object lock */
  CfResizeMethod method;
  gboolean add_borders;
  gboolean antialias;

  /* negotiated */
  CfResizeMethod active_method;
  gboolean active_antialias;
  gboolean cosited_h, cosited_v;
  CfResizePlan plan;            /* for the input rectangle scaled last */
  gboolean have_plan;
  CfRect inner;                 /* where the picture goes in the output */
  CfRect borders[4];            /* the rest, filled with black */
  guint n_borders;
  uint16_t black[CF_MAX_CHANNELS];
#ifdef HAVE_CUDA
  CfResizeDevicePlan *d_plan;
#endif
};

G_DEFINE_TYPE (GstCfResize, gst_cf_resize, GST_TYPE_CF_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudaresize, "cudaresize", GST_RANK_NONE,
    GST_TYPE_CF_RESIZE);

#define GST_TYPE_CF_RESIZE_METHOD (gst_cf_resize_method_get_type ())
static GType
gst_cf_resize_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CF_RESIZE_NEAREST, "Nearest neighbour", "nearest"},
    {CF_RESIZE_BILINEAR, "Bilinear (triangle)", "bilinear"},
    {CF_RESIZE_BICUBIC, "Bicubic (Catmull-Rom)", "bicubic"},
    {CF_RESIZE_LANCZOS, "Lanczos, 3 lobes", "lanczos"},
    {CF_RESIZE_AREA, "Area average (bilinear when upscaling)", "area"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCfResizeMethod", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_CF_VIDEO_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_CF_VIDEO_CAPS));

/* Any size, any pixel aspect ratio, either memory; the format stays. */
static GstCaps *
gst_cf_resize_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *ret = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_caps_get_structure (caps, i);
    GstCapsFeatures *f = gst_caps_get_features (caps, i);

    if (i > 0 && gst_caps_is_subset_structure_full (ret, s, f))
      continue;
    s = gst_structure_copy (s);
    gst_structure_set (s, "width", GST_TYPE_INT_RANGE, 1, CF_MAX_SIDE,
        "height", GST_TYPE_INT_RANGE, 1, CF_MAX_SIDE, NULL);
    if (gst_structure_has_field (s, "pixel-aspect-ratio"))
      gst_structure_set (s, "pixel-aspect-ratio", GST_TYPE_FRACTION_RANGE, 1,
          G_MAXINT, G_MAXINT, 1, NULL);
    gst_caps_append_structure_full (ret, s, gst_caps_features_copy (f));
  }
  /* either memory, as every element of the project */
  return gst_cf_base_filter_caps_in_memories (GST_CF_BASE_FILTER (trans),
      direction, ret, filter);
}

/* The value @field of @s would fixate to, nearest @target (on a copy). */
static gint
nearest_int (const GstStructure * s, const gchar * field, gint target)
{
  GstStructure *tmp = gst_structure_copy (s);
  gint v = 0;

  gst_structure_fixate_field_nearest_int (tmp, field, target);
  gst_structure_get_int (tmp, field, &v);
  gst_structure_free (tmp);
  return v;
}

/* The PAR @outs would fixate to, nearest @n/@d (free when it has none). */
static void
nearest_par (const GstStructure * outs, gint n, gint d, gint * par_n,
    gint * par_d)
{
  GstStructure *tmp = gst_structure_copy (outs);

  if (!gst_structure_has_field (tmp, "pixel-aspect-ratio"))
    gst_structure_set (tmp, "pixel-aspect-ratio", GST_TYPE_FRACTION_RANGE, 1,
        G_MAXINT, G_MAXINT, 1, NULL);
  gst_structure_fixate_field_nearest_fraction (tmp, "pixel-aspect-ratio", n, d);
  gst_structure_get_fraction (tmp, "pixel-aspect-ratio", par_n, par_d);
  gst_structure_free (tmp);
}

static void
set_size (GstStructure * outs, gint w, gint h, gint par_n, gint par_d)
{
  gst_structure_set (outs, "width", G_TYPE_INT, w, "height", G_TYPE_INT, h,
      NULL);
  /* a PAR only where the caps have one, or where it is not square */
  if (par_d && (gst_structure_has_field (outs, "pixel-aspect-ratio") ||
          par_n != par_d))
    gst_structure_set (outs, "pixel-aspect-ratio", GST_TYPE_FRACTION, par_n,
        par_d, NULL);
}

/* Fixates width, height and PAR of @outs to keep the display aspect ratio
 * (DAR) of @ins, in videoscale's order of preference: with a free PAR, keep
 * the input's size where the caps allow and adjust the PAR; with a fixed
 * PAR, keep the input height (interlacing), else the input width, else take
 * the size whose DAR comes nearest. When width and height are both given,
 * add-borders keeps the DAR instead. */
static void
fixate_size (GstStructure * ins, GstStructure * outs)
{
  gint from_w = 0, from_h = 0, from_par_n = 1, from_par_d = 1;
  gint dar_n, dar_d, w = 0, h = 0, n, d, par_n = 0, par_d = 0;
  const GValue *to_par = gst_structure_get_value (outs, "pixel-aspect-ratio");
  const gboolean par_fixed = !to_par || gst_value_is_fixed (to_par);
  const gboolean w_fixed = gst_structure_get_int (outs, "width", &w);
  const gboolean h_fixed = gst_structure_get_int (outs, "height", &h);

  gst_structure_get_int (ins, "width", &from_w);
  gst_structure_get_int (ins, "height", &from_h);
  gst_structure_get_fraction (ins, "pixel-aspect-ratio", &from_par_n,
      &from_par_d);
  if (!from_w || !from_h || !gst_util_fraction_multiply (from_w, from_h,
          from_par_n, from_par_d, &dar_n, &dar_d))
    return;
  if (par_fixed && !gst_structure_get_fraction (outs, "pixel-aspect-ratio",
          &par_n, &par_d))
    par_n = par_d = 1;          /* no PAR in the caps: square pixels */

  if (w_fixed && h_fixed) {
    if (!par_fixed && gst_util_fraction_multiply (dar_n, dar_d, h, w, &n, &d)) {
      nearest_par (outs, n, d, &par_n, &par_d);
      set_size (outs, w, h, par_n, par_d);
    }
    return;
  }

  if (w_fixed || h_fixed) {
    /* the free side: b, from the given side a */
    const gchar *b_field = w_fixed ? "height" : "width";
    const gint a = w_fixed ? w : h, from_b = w_fixed ? from_h : from_w;
    gint b;

    if (!par_fixed) {
      /* keep the input's other side, adjusting the PAR */
      gint want_n, want_d;
      b = nearest_int (outs, b_field, from_b);
      if (gst_util_fraction_multiply (dar_n, dar_d, w_fixed ? b : a,
              w_fixed ? a : b, &want_n, &want_d)) {
        nearest_par (outs, want_n, want_d, &par_n, &par_d);
        if (par_n == want_n && par_d == want_d) {
          set_size (outs, w_fixed ? a : b, w_fixed ? b : a, par_n, par_d);
          return;
        }
      }
    }
    /* the PAR is what it is: the other side follows from the DAR */
    if (!gst_util_fraction_multiply (dar_n, dar_d, par_d, par_n, &n, &d))
      return;
    b = nearest_int (outs, b_field, w_fixed ?
        (gint) gst_util_uint64_scale_int_round (a, d, n) :
        (gint) gst_util_uint64_scale_int_round (a, n, d));
    set_size (outs, w_fixed ? a : b, w_fixed ? b : a, par_n, par_d);
    return;
  }

  if (!par_fixed) {
    /* keep the input size, adjusting the PAR */
    gint want_n, want_d;
    w = nearest_int (outs, "width", from_w);
    h = nearest_int (outs, "height", from_h);
    if (gst_util_fraction_multiply (dar_n, dar_d, h, w, &want_n, &want_d)) {
      nearest_par (outs, want_n, want_d, &par_n, &par_d);
      if (par_n == want_n && par_d == want_d) {
        set_size (outs, w, h, par_n, par_d);
        return;
      }
    } else {
      nearest_par (outs, from_par_n, from_par_d, &par_n, &par_d);
    }
  }
  /* a fixed PAR: n / d = output width / height that keeps the DAR */
  if (!gst_util_fraction_multiply (dar_n, dar_d, par_d, par_n, &n, &d))
    return;
  {
    /* keep the input height, else the input width, else the nearer DAR */
    const gint h1 = nearest_int (outs, "height", from_h);
    const gint want_w = (gint) gst_util_uint64_scale_int_round (h1, n, d);
    const gint w1 = nearest_int (outs, "width", want_w);
    gint w2, h2, want_h;

    if (w1 == want_w) {
      set_size (outs, w1, h1, par_n, par_d);
      return;
    }
    w2 = nearest_int (outs, "width", from_w);
    want_h = (gint) gst_util_uint64_scale_int_round (w2, d, n);
    h2 = nearest_int (outs, "height", want_h);
    if (h2 == want_h || (gint64) w2 * ABS (h2 - want_h) <
        (gint64) ABS (w1 - want_w) * h1)
      set_size (outs, w2, h2, par_n, par_d);
    else
      set_size (outs, w1, h1, par_n, par_d);
  }
}

static GstCaps *
gst_cf_resize_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  othercaps = gst_cf_base_filter_prefer_memory (GST_CF_BASE_FILTER (trans),
      othercaps);
  othercaps = gst_caps_make_writable (gst_caps_truncate (othercaps));
  fixate_size (gst_caps_get_structure (caps, 0),
      gst_caps_get_structure (othercaps, 0));
  othercaps = gst_caps_fixate (othercaps);
  GST_DEBUG_OBJECT (trans, "fixated to %" GST_PTR_FORMAT, othercaps);
  return othercaps;
}

/* Where the picture goes in the output: all of it, or, with add-borders
 * and a display aspect ratio that the output size does not keep, the
 * largest centred rectangle that does (even-aligned for subsampled
 * chroma). */
static void
place_picture (GstCfResize * self, const GstVideoInfo * in,
    const GstVideoInfo * out, gboolean add_borders)
{
  const CfFormatInfo *finfo =
      cf_format_info (gst_cf_format_from_video_format (GST_VIDEO_INFO_FORMAT
          (out)));
  const gint ow = GST_VIDEO_INFO_WIDTH (out), oh = GST_VIDEO_INFO_HEIGHT (out);
  const gint ax = (1 << finfo->plane[finfo->n_planes - 1].shift_x) - 1;
  const gint ay = (1 << finfo->plane[finfo->n_planes - 1].shift_y) - 1;
  CfRect r = { 0, 0, ow, oh };
  gint dar_n, dar_d, n, d;

  self->n_borders = 0;
  if (add_borders && gst_util_fraction_multiply (GST_VIDEO_INFO_WIDTH (in),
          GST_VIDEO_INFO_HEIGHT (in), GST_VIDEO_INFO_PAR_N (in),
          GST_VIDEO_INFO_PAR_D (in), &dar_n, &dar_d) &&
      gst_util_fraction_multiply (dar_n, dar_d, GST_VIDEO_INFO_PAR_D (out),
          GST_VIDEO_INFO_PAR_N (out), &n, &d) &&
      (gint64) n * oh != (gint64) d * ow) {
    /* the picture should be n / d as wide as high, in output pixels */
    if ((gint64) n * oh > (gint64) d * ow)
      r.height = (gint) gst_util_uint64_scale_int_round (ow, d, n);
    else
      r.width = (gint) gst_util_uint64_scale_int_round (oh, n, d);
    /* whole chroma samples, so borders and picture share none */
    r.width = MIN (ow, MAX (ax + 1, r.width & ~ax));
    r.height = MIN (oh, MAX (ay + 1, r.height & ~ay));
    r.x = ((ow - r.width) / 2) & ~ax;
    r.y = ((oh - r.height) / 2) & ~ay;
  }
  self->inner = r;
  /* top, bottom, left, right */
  if (r.y > 0)
    self->borders[self->n_borders++] = (CfRect) { 0, 0, ow, r.y };
  if (r.y + r.height < oh)
    self->borders[self->n_borders++] =
        (CfRect) { 0, r.y + r.height, ow, oh - r.y - r.height };
  if (r.x > 0)
    self->borders[self->n_borders++] = (CfRect) { 0, r.y, r.x, r.height };
  if (r.x + r.width < ow)
    self->borders[self->n_borders++] =
        (CfRect) { r.x + r.width, r.y, ow - r.x - r.width, r.height };
  GST_DEBUG_OBJECT (self, "picture at %d,%d %dx%d in %dx%d, %u border(s)",
      r.x, r.y, r.width, r.height, ow, oh, self->n_borders);
}

static void
clear_plan (GstCfResize * self)
{
#ifdef HAVE_CUDA
  g_clear_pointer (&self->d_plan, cf_resize_device_plan_free);
#endif
  if (self->have_plan)
    cf_resize_plan_clear (&self->plan);
  self->have_plan = FALSE;
}

/* Tables for scaling an @in_width x @in_height input (the frame, or its
 * crop) into the picture's rectangle. */
static gboolean
make_plan (GstCfResize * self, gint in_width, gint in_height)
{
  GstCfBaseFilter *base = GST_CF_BASE_FILTER (self);

  clear_plan (self);
  if (cf_resize_plan_init (&self->plan, gst_cf_base_filter_get_format (base),
          self->active_method, self->active_antialias, in_width, in_height, self->inner.width,
          self->inner.height, self->cosited_h, self->cosited_v) != 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not make the scaling tables"), ("%dx%d to %dx%d", in_width,
            in_height, self->inner.width, self->inner.height));
    return FALSE;
  }
  self->have_plan = TRUE;
#ifdef HAVE_CUDA
  if (gst_cf_base_filter_uses_cuda (base) &&
      !GST_CF_OK (self, cf_resize_device_plan_new (&self->plan,
              CF_RESIZE_KERNELS_AUTO, &self->d_plan)))
    return FALSE;
#endif
  return TRUE;
}

static gboolean
gst_cf_resize_set_info (GstCfBaseFilter * base, const GstVideoInfo * in,
    const GstVideoInfo * out)
{
  GstCfResize *self = GST_CF_RESIZE (base);
  GstVideoChromaSite site = GST_VIDEO_INFO_CHROMA_SITE (in);
  gboolean add_borders;

  GST_OBJECT_LOCK (self);
  self->active_method = self->method;
  self->active_antialias = self->antialias;
  add_borders = self->add_borders;
  GST_OBJECT_UNLOCK (self);

  if (GST_VIDEO_INFO_FORMAT (in) != GST_VIDEO_INFO_FORMAT (out)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("cudaresize does not "
            "convert formats"), ("%s in, %s out",
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in)),
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (out))));
    return FALSE;
  }
  self->cosited_h = (site & GST_VIDEO_CHROMA_SITE_H_COSITED) != 0;
  self->cosited_v = (site & GST_VIDEO_CHROMA_SITE_V_COSITED) != 0;
  place_picture (self, in, out, add_borders);
  cf_fill_black (gst_cf_base_filter_get_format (base), self->black);
  /* the whole frame: its workspace also holds any crop's */
  return make_plan (self, GST_VIDEO_INFO_WIDTH (in),
      GST_VIDEO_INFO_HEIGHT (in));
}

/* The part of @buf to scale: its GstVideoCropMeta, clipped to the frame and
 * moved to whole chroma samples, else the whole frame. */
static CfRect
input_rect (GstCfResize * self, GstBuffer * buf)
{
  const GstVideoInfo *in = gst_cf_base_filter_get_info (GST_CF_BASE_FILTER
      (self));
  const gint w = GST_VIDEO_INFO_WIDTH (in), h = GST_VIDEO_INFO_HEIGHT (in);
  GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta (buf);
  const gint ax = GST_VIDEO_FORMAT_INFO_W_SUB (in->finfo, 1) ? 1 : 0;
  const gint ay = GST_VIDEO_FORMAT_INFO_H_SUB (in->finfo, 1) ? 1 : 0;
  CfRect r = { 0, 0, w, h };

  if (crop && crop->width > 0 && crop->height > 0) {
    r.x = MIN ((gint) crop->x, w - 1) & ~ax;
    r.y = MIN ((gint) crop->y, h - 1) & ~ay;
    r.width = MIN ((gint) crop->width + ((gint) crop->x - r.x), w - r.x);
    r.height = MIN ((gint) crop->height + ((gint) crop->y - r.y), h - r.y);
  }
  return r;
}

/* The tables for @r's size; made anew only when the crop's size changes.
 * On CUDA the frames in flight use the old tables: they finish first. */
static gboolean
ensure_plan (GstCfResize * self, CfRect r)
{
  if (self->have_plan && self->plan.in_width == r.width &&
      self->plan.in_height == r.height)
    return TRUE;
  GST_DEBUG_OBJECT (self, "input rectangle now %dx%d", r.width, r.height);
#ifdef HAVE_CUDA
  if (gst_cf_base_filter_uses_cuda (GST_CF_BASE_FILTER (self)) &&
      gst_cf_base_filter_drain (GST_CF_BASE_FILTER (self)) != GST_FLOW_OK)
    return FALSE;
#endif
  return make_plan (self, r.width, r.height);
}

#ifdef HAVE_CUDA
static CfDeviceError
gst_cf_resize_process_cuda (GstCfBaseFilter * base, GstCfFrameSlot * slot)
{
  GstCfResize *self = GST_CF_RESIZE (base);
  const CfRect r = input_rect (self, slot->buffer);
  cudaStream_t stream = cf_stream_handle (slot->stream);
  CfGrowBuffer *ws = &slot->d_workspace;
  CfImage src, inner;
  cudaError_t err;
  guint i;

  if (!ensure_plan (self, r))
    return cudaErrorMemoryAllocation;
  if (cf_image_view (&slot->d_image, r.x, r.y, r.width, r.height, &src) != 0
      || cf_image_view (&slot->d_out, self->inner.x, self->inner.y,
          self->inner.width, self->inner.height, &inner) != 0)
    return cudaErrorInvalidValue;
  /* device scratch of the frame (the two-pass kernels' rows; most plans
   * need none): the slot's workspace, grown to what the plan needs. Plans
   * change only at negotiation and when a crop's size changes, after the
   * frames in flight are done, so it grows only then. */
  err = cf_grow_buffer_reserve (ws,
      cf_resize_device_plan_workspace_bytes (self->d_plan));
  if (err == cudaSuccess)
    err = cf_resize_cuda (self->d_plan, &src, &inner, ws->data, stream);
  for (i = 0; err == cudaSuccess && i < self->n_borders; i++)
    err = cf_fill_cuda (&slot->d_out, self->borders[i], self->black, stream);
  return err;
}
#endif

static gboolean
gst_cf_resize_process_cpu (GstCfBaseFilter * base, GstCfFrameSlot * slot,
    const CfImage * image, const CfImage * out)
{
  GstCfResize *self = GST_CF_RESIZE (base);
  const CfRect r = input_rect (self, slot->buffer);
  const gint n_threads = gst_cf_base_filter_get_n_threads (base);
  CfImage src, inner;
  gboolean ok;
  guint i;

  if (!ensure_plan (self, r))
    return FALSE;
  ok = cf_image_view (image, r.x, r.y, r.width, r.height, &src) == 0 &&
      cf_image_view (out, self->inner.x, self->inner.y, self->inner.width,
      self->inner.height, &inner) == 0 &&
      cf_resize_cpu_threads (&self->plan, &src, &inner, n_threads) == 0;
  for (i = 0; ok && i < self->n_borders; i++)
    ok = cf_fill_cpu_threads (out, self->borders[i], self->black,
        n_threads) == 0;
  if (!ok)
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not scale a frame"),
        (NULL));
  return ok;
}

/* Upstream may leave the cropping to us (not in passthrough, where the
 * buffer and its meta go on as they are). */
static gboolean
gst_cf_resize_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  if (!GST_BASE_TRANSFORM_CLASS (gst_cf_resize_parent_class)->
      propose_allocation (trans, decide_query, query))
    return FALSE;
  if (decide_query)
    gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, NULL);
  return TRUE;
}

static gboolean
gst_cf_resize_stop (GstBaseTransform * trans)
{
  GstCfResize *self = GST_CF_RESIZE (trans);
  GstCfGpu *gpu = gst_cf_base_filter_get_gpu (GST_CF_BASE_FILTER (self));

  /* the device tables, in the context they were made in */
  if (gpu->cuda && gst_cf_gpu_push (gpu, NULL)) {
    clear_plan (self);
    gst_cf_gpu_pop (gpu);
  }
  clear_plan (self);
  return GST_BASE_TRANSFORM_CLASS (gst_cf_resize_parent_class)->stop (trans);
}

static void
gst_cf_resize_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCfResize *self = GST_CF_RESIZE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_METHOD:
      self->method = g_value_get_enum (value);
      break;
    case PROP_ADD_BORDERS:
      self->add_borders = g_value_get_boolean (value);
      break;
    case PROP_ANTIALIAS:
      self->antialias = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cf_resize_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCfResize *self = GST_CF_RESIZE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_METHOD:
      g_value_set_enum (value, self->method);
      break;
    case PROP_ADD_BORDERS:
      g_value_set_boolean (value, self->add_borders);
      break;
    case PROP_ANTIALIAS:
      g_value_set_boolean (value, self->antialias);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cf_resize_finalize (GObject * object)
{
  clear_plan (GST_CF_RESIZE (object));
  G_OBJECT_CLASS (gst_cf_resize_parent_class)->finalize (object);
}

static void
gst_cf_resize_class_init (GstCfResizeClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCfBaseFilterClass *filter_class = GST_CF_BASE_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cf_resize_set_property;
  gobject_class->get_property = gst_cf_resize_get_property;
  gobject_class->finalize = gst_cf_resize_finalize;

  /**
   * GstCfResize:method:
   *
   * The resampling filter. Changes take effect at the next negotiation.
   */
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method", "Resampling filter",
          GST_TYPE_CF_RESIZE_METHOD, DEFAULT_METHOD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstCfResize:add-borders:
   *
   * Keep the display aspect ratio when the output size does not, by adding
   * black borders (letterbox or pillarbox), as videoscale does.
   */
  g_object_class_install_property (gobject_class, PROP_ADD_BORDERS,
      g_param_spec_boolean ("add-borders", "Add borders",
          "Add black borders if necessary to keep the display aspect ratio",
          DEFAULT_ADD_BORDERS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstCfResize:antialias:
   *
   * Whether bilinear, bicubic and lanczos widen their support with the scale
   * factor when downscaling, so that detail finer than the output can hold
   * does not alias (moire, jagged edges). Off, they keep their own support
   * (2, 4 and 6 input samples) at any scale, as NPP's filters and
   * videoscale's do: fewer taps, faster, and aliasing on strong downscales.
   * Nearest and area are the same either way (area always averages its
   * box). Upscaling is the same either way. Changes take effect at the next
   * negotiation.
   */
  g_object_class_install_property (gobject_class, PROP_ANTIALIAS,
      g_param_spec_boolean ("antialias", "Antialias",
          "Widen the filter when downscaling so that detail does not alias",
          DEFAULT_ANTIALIAS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "CUDA video scaler", "Filter/Converter/Video/Scaler",
      "Scales video on the GPU: nearest, bilinear, bicubic, lanczos, area",
      "gst-cudafilters developers");

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cf_resize_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_cf_resize_fixate_caps);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cf_resize_stop);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cf_resize_propose_allocation);
  trans_class->passthrough_on_same_caps = TRUE;

  gst_cf_base_filter_class_set_kind (filter_class, GST_CF_FILTER_TRANSFORM);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_cf_resize_set_info);
#ifdef HAVE_CUDA
  filter_class->process_cuda =
      GST_DEBUG_FUNCPTR (gst_cf_resize_process_cuda);
#endif
  filter_class->process_cpu = GST_DEBUG_FUNCPTR (gst_cf_resize_process_cpu);

  gst_type_mark_as_plugin_api (GST_TYPE_CF_RESIZE_METHOD, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cf_resize_debug, "cudaresize", 0,
      "CUDA video scaler");
}

static void
gst_cf_resize_init (GstCfResize * self)
{
  self->method = DEFAULT_METHOD;
  self->add_borders = DEFAULT_ADD_BORDERS;
  self->antialias = DEFAULT_ANTIALIAS;
}
