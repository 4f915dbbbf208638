/* GstCfBaseFilter: backend, memories, frames in flight, pools (see .h).
 *
 * Frames in flight form a ring of slots. submit_input_buffer () takes the
 * next free slot and, on CUDA, with the element's context current:
 *
 * 1. finds the frame on the device (slot->d_image): CUDA memory of the
 *    element's context is used where it is (mapped with GST_CF_MAP_CUDA, for
 *    writing too when a DRAW element may change it); anything else (system
 *    memory, CUDA memory of another context, read through its own host
 *    mapping) is uploaded, into the output buffer when that is CUDA memory
 *    anyway, else into the slot's device frame; a DRAW element copies a
 *    frame it may not change, once, on the device;
 * 2. for TRANSFORM elements, finds where the output goes (slot->d_out): an
 *    output buffer in CUDA memory, or the slot's device output frame;
 * 3. lets the subclass queue its work, queues the download into a system
 *    memory output buffer when one goes out, and marks the slot's stream.
 *
 * generate_output () hands out the oldest frame once its stream is done,
 * waiting for it only when the ring is full; with N slots the GPU uploads
 * frame k+1 while it computes frame k and returns frame k-1, each on its
 * own stream. N = 1 is the synchronous mode. A buffer in CUDA memory is
 * pushed only once the work on it is done: GStreamer 1.22's CUDA elements
 * have no stream to wait on and take the memory as ready. Everything runs
 * on the streaming thread, so buffers leave in order.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcfbasefilter.h"
#include "gstcfpinnedallocator.h"
#include "packed.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cf_base_filter_debug);
#define GST_CAT_DEFAULT gst_cf_base_filter_debug

enum {
  PROP_0,
  PROP_BACKEND,
  PROP_CUDA_DEVICE_ID,
  PROP_N_THREADS,
  PROP_FRAMES_IN_FLIGHT,
};

/* the smallest count that overlaps frames: for cudastats 1 to 4 measured
 * within 1% of each other (4K RGBA from pinned memory, H100: the upload is
 * the limit), docs/PERFORMANCE.md */
#define DEFAULT_FRAMES_IN_FLIGHT 2
#define MAX_FRAMES_IN_FLIGHT 16
/* rows of the slots' device frames: the kernels' vector loads */
#define DEVICE_ROW_ALIGN 16

typedef struct {
  /* properties under the object lock; the context from start to stop */
  GstCfGpu gpu;
  guint frames_in_flight;
  gboolean started;

  /* negotiated */
  gboolean have_info;
  GstVideoInfo info, out_info;
  CfFormat format, out_format;
  /* what the subclass works on: the planar twins of packed formats */
  CfFormat work_format, work_out_format;
  gboolean in_cuda, out_cuda;   /* the caps' memories */
  gboolean caps_error;          /* the refusal of the caps is posted */
  GstCfFrameSlot *slots;
  guint n_slots, head, count;
} GstCfBaseFilterPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCfBaseFilter, gst_cf_base_filter,
    GST_TYPE_BASE_TRANSFORM);

#define PRIV(self) \
  ((GstCfBaseFilterPrivate *) gst_cf_base_filter_get_instance_private (self))
#define KIND(self) (GST_CF_BASE_FILTER_GET_CLASS (self)->kind)

CfFormat
gst_cf_format_from_video_format (GstVideoFormat format)
{
  return cf_format_from_name (gst_video_format_to_string (format));
}

/* ---- caps ------------------------------------------------------------ */

static gboolean
caps_in_cuda_memory (GstCaps * caps)
{
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);

  return f && gst_caps_features_contains (f, GST_CF_CAPS_FEATURE_CUDA_MEMORY);
}

/* TRUE when the element would take and give CUDA memory: known from
 * start, guessed from the properties before. */
static gboolean
cuda_memory_possible (GstCfBaseFilter * self)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);
  gboolean possible;

  GST_OBJECT_LOCK (self);
  if (priv->started)
    possible = gst_cf_gpu_has_cuda_memory (&priv->gpu, NULL);
  else
#ifdef HAVE_GST_CUDA
    possible = priv->gpu.backend != GST_CF_BACKEND_CPU;
#else
    possible = FALSE;
#endif
  GST_OBJECT_UNLOCK (self);
  return possible;
}

/* @s in CUDA memory: its formats narrowed to those CUDA memory holds
 * (GStreamer 1.22 lays I420, YV12 and I420_10LE of an odd height out with
 * overlapping chroma planes: not those either), or NULL for none. */
static GstStructure *
in_cuda_memory (const GstStructure * s)
{
  static GstStaticCaps cuda_formats =
      GST_STATIC_CAPS ("video/x-raw, format = (string) " GST_CF_CUDA_FORMATS);
  static GstStaticCaps even_formats =
      GST_STATIC_CAPS ("video/x-raw, format = (string) { RGBA, BGRA, RGBx, "
      "BGRx, ARGB, ABGR, RGB, BGR, NV12, NV21, Y444, Y42B, P010_10LE, "
      "P016_LE, Y444_16LE, YUY2, UYVY }");
  GstCaps *allowed;
  GstStructure *ret;
  gint height;

  allowed = gst_static_caps_get (gst_structure_get_int (s, "height", &height)
      && (height & 1) ? &even_formats : &cuda_formats);
  ret = gst_structure_intersect (s, gst_caps_get_structure (allowed, 0));
  gst_caps_unref (allowed);
  return ret;
}

GstCaps *
gst_cf_base_filter_caps_in_memories (GstCfBaseFilter * self,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  const gboolean cuda = cuda_memory_possible (self);
  GstCaps *ret = gst_caps_new_empty ();
  guint pass, i;

  /* On CUDA both memories, CUDA first, either way. Otherwise system
   * memory, and on the source side CUDA memory after it, so that a
   * downstream that wants nothing else gets a clear refusal in set_caps
   * rather than a silent failure to negotiate. */
  for (pass = 0; pass < 2; pass++) {
    const gboolean want_cuda = (pass == 0) == cuda;

    if (want_cuda && !cuda && direction != GST_PAD_SINK)
      continue;
#ifndef HAVE_GST_CUDA
    if (want_cuda)
      continue;
#endif
    for (i = 0; i < gst_caps_get_size (caps); i++) {
      GstStructure *s = gst_caps_get_structure (caps, i);

      s = want_cuda ? in_cuda_memory (s) : gst_structure_copy (s);
      if (s)
        ret = gst_caps_merge_structure_full (ret, s, want_cuda ?
            gst_caps_features_new (GST_CF_CAPS_FEATURE_CUDA_MEMORY, NULL) :
            gst_caps_features_new_empty ());
    }
  }
  gst_caps_unref (caps);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  GST_DEBUG_OBJECT (self, "%s side: %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "source" : "sink", ret);
  return ret;
}

/* @caps with its structures in CUDA memory first, the order kept within
 * each memory (a new reference). */
static GstCaps *
cuda_memory_first (GstCaps * caps)
{
  GstCaps *ret = gst_caps_new_empty ();
  guint pass, i;

  if (gst_caps_is_any (caps))
    return gst_caps_ref (caps);
  for (pass = 0; pass < 2; pass++)
    for (i = 0; i < gst_caps_get_size (caps); i++) {
      GstCapsFeatures *f = gst_caps_get_features (caps, i);
      gboolean cuda = f && !gst_caps_features_is_any (f) &&
          gst_caps_features_contains (f, GST_CF_CAPS_FEATURE_CUDA_MEMORY);

      if (cuda == (pass == 0))
        ret = gst_caps_merge_structure_full (ret,
            gst_structure_copy (gst_caps_get_structure (caps, i)),
            f ? gst_caps_features_copy (f) : NULL);
    }
  return ret;
}

GstCaps *
gst_cf_base_filter_prefer_memory (GstCfBaseFilter * self, GstCaps * caps)
{
  GstCaps *ret;

  if (!cuda_memory_possible (self))
    return caps;
  ret = cuda_memory_first (caps);
  gst_caps_unref (caps);
  return ret;
}

/* What a peer that takes both memories answers comes in its order (a
 * basetransform such as cudadownload puts system memory first, to favour
 * its passthrough): CUDA memory first, so that the frames stay on the GPU
 * up to the element that wants them elsewhere. */
static GstCaps *
gst_cf_base_filter_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  othercaps = gst_cf_base_filter_prefer_memory (GST_CF_BASE_FILTER (trans),
      othercaps);
  return GST_BASE_TRANSFORM_CLASS (gst_cf_base_filter_parent_class)->
      fixate_caps (trans, direction, caps, othercaps);
}

/* The same frames in either memory. */
static GstCaps *
gst_cf_base_filter_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  return gst_cf_base_filter_caps_in_memories (GST_CF_BASE_FILTER (trans),
      direction, gst_caps_ref (caps), filter);
}

/* ---- state ----------------------------------------------------------- */

static gboolean
gst_cf_base_filter_start (GstBaseTransform * trans)
{
  GstCfBaseFilterPrivate *priv = PRIV (GST_CF_BASE_FILTER (trans));
  gboolean ok = gst_cf_gpu_start (&priv->gpu, GST_ELEMENT (trans));

  GST_OBJECT_LOCK (trans);
  priv->started = ok;
  GST_OBJECT_UNLOCK (trans);
  return ok;
}

static void
unmap_frames (GstCfFrameSlot * slot)
{
  if (slot->in_mapped)
    gst_video_frame_unmap (&slot->in_frame);
  if (slot->out_mapped)
    gst_video_frame_unmap (&slot->out_frame);
  slot->in_mapped = slot->out_mapped = FALSE;
}

static void
release_frame (GstCfFrameSlot * slot)
{
  unmap_frames (slot);
  gst_clear_buffer (&slot->buffer);
  gst_clear_buffer (&slot->outbuf);
  slot->download = FALSE;
}

static void
discard_frames (GstCfBaseFilter * self)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);

  while (priv->count > 0) {
    GstCfFrameSlot *slot = &priv->slots[priv->head];
    /* the GPU may still use the buffers: let it finish first */
    if (slot->stream)
      cf_stream_wait (slot->stream);
    release_frame (slot);
    priv->head = (priv->head + 1) % priv->n_slots;
    priv->count--;
  }
  priv->head = 0;
}

static void
free_slots (GstCfBaseFilter * self)
{
  GstCfBaseFilterClass *klass = GST_CF_BASE_FILTER_GET_CLASS (self);
  GstCfBaseFilterPrivate *priv = PRIV (self);
  const gboolean cuda = priv->gpu.cuda;
  guint i;

  if (!priv->slots)
    return;
  if (cuda && !gst_cf_gpu_push (&priv->gpu, NULL))
    GST_ERROR_OBJECT (self, "no CUDA context: device memory leaks");
  discard_frames (self);
  for (i = 0; i < priv->n_slots; i++) {
    GstCfFrameSlot *slot = &priv->slots[i];
    if (slot->user && klass->slot_free)
      klass->slot_free (self, slot->user, cuda);
    cf_stream_free (slot->stream);
    cf_grow_buffer_clear (&slot->d_workspace);
    cf_grow_buffer_clear (&slot->d_frame);
    cf_grow_buffer_clear (&slot->d_out_frame);
    cf_grow_buffer_clear (&slot->staging);
    cf_grow_buffer_clear (&slot->out_staging);
    cf_grow_buffer_clear (&slot->d_planar);
    cf_grow_buffer_clear (&slot->d_planar_out);
    g_free (slot->planar);
    g_free (slot->planar_out);
  }
  if (cuda)
    gst_cf_gpu_pop (&priv->gpu);
  g_free (priv->slots);
  priv->slots = NULL;
  priv->n_slots = 0;
}

static gboolean
alloc_slots (GstCfBaseFilter * self)
{
  GstCfBaseFilterClass *klass = GST_CF_BASE_FILTER_GET_CLASS (self);
  GstCfBaseFilterPrivate *priv = PRIV (self);
  const gboolean cuda = priv->gpu.cuda;
  guint i, n;

  GST_OBJECT_LOCK (self);
  n = cuda ? priv->frames_in_flight : 1;
  GST_OBJECT_UNLOCK (self);

  priv->slots = g_new0 (GstCfFrameSlot, n);
  priv->n_slots = n;
  priv->head = priv->count = 0;
  for (i = 0; i < n; i++) {
    GstCfFrameSlot *slot = &priv->slots[i];

    slot->staging.host = slot->out_staging.host = TRUE;
    if (cuda && !GST_CF_OK (self, cf_stream_new (&slot->stream)))
      return FALSE;
    if (klass->slot_alloc && !klass->slot_alloc (self, cuda, &slot->user))
      return FALSE;
  }
  GST_DEBUG_OBJECT (self, "%u frame slot(s), %s in, %s out", n,
      priv->in_cuda ? "CUDA" : "system", priv->out_cuda ? "CUDA" : "system");
  return TRUE;
}

static gboolean
gst_cf_base_filter_stop (GstBaseTransform * trans)
{
  GstCfBaseFilter *self = GST_CF_BASE_FILTER (trans);
  GstCfBaseFilterPrivate *priv = PRIV (self);

  free_slots (self);
  priv->have_info = FALSE;
  priv->caps_error = FALSE;
  GST_OBJECT_LOCK (self);
  priv->started = FALSE;
  GST_OBJECT_UNLOCK (self);
  gst_cf_gpu_clear (&priv->gpu);
  return TRUE;
}

static void
gst_cf_base_filter_set_context (GstElement * element, GstContext * context)
{
  gst_cf_gpu_set_context (&PRIV (GST_CF_BASE_FILTER (element))->gpu,
      element, context);
  GST_ELEMENT_CLASS (gst_cf_base_filter_parent_class)->set_context (element,
      context);
}

/* ---- negotiation ----------------------------------------------------- */

static gboolean
parse_caps (GstCfBaseFilter * self, GstCaps * caps, GstVideoInfo * info,
    CfFormat * format)
{
  if (!gst_video_info_from_caps (info, caps)) {
    GST_WARNING_OBJECT (self, "invalid caps %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
  *format = gst_cf_format_from_video_format (GST_VIDEO_INFO_FORMAT (info));
  if (*format == CF_FORMAT_COUNT) {
    GST_WARNING_OBJECT (self, "unsupported format %s",
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)));
    return FALSE;
  }
  return TRUE;
}

/* Why the caps' memories cannot be: CUDA memory without CUDA. An error
 * posted once, however often upstream retries. */
static gboolean
check_memories (GstCfBaseFilter * self, GstCaps * incaps, GstCaps * outcaps)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);
  const gboolean in_cuda = caps_in_cuda_memory (incaps);
  const gboolean out_cuda = caps_in_cuda_memory (outcaps);
  const gchar *why = NULL;
  gchar *odd = NULL;
  guint i;

  if ((in_cuda || out_cuda) &&
      !gst_cf_gpu_has_cuda_memory (&priv->gpu, &why)) {
    if (!priv->caps_error)
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("memory:CUDAMemory %s needs the CUDA backend", in_cuda ?
              "input" : "output"), ("%s; caps %" GST_PTR_FORMAT, why,
              in_cuda ? incaps : outcaps));
    priv->caps_error = TRUE;
    return FALSE;
  }
  for (i = 0; i < 2; i++) {
    GstCaps *caps = i ? outcaps : incaps;
    GstStructure *s;

    if (!caps_in_cuda_memory (caps))
      continue;
    s = in_cuda_memory (gst_caps_get_structure (caps, 0));
    if (!s && !odd)
      odd = gst_caps_to_string (caps);
    if (s)
      gst_structure_free (s);
  }
  if (odd) {
    if (!priv->caps_error)
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("This format and size cannot be in CUDA memory"),
          ("GStreamer 1.22's CUDA memory has no layout for %s (GRAY8, "
              "GRAY16_LE, xRGB, xBGR, RGBA64_LE, BGRA64_LE, and I420, YV12 "
              "and I420_10LE of an odd height)", odd));
    g_free (odd);
    priv->caps_error = TRUE;
    return FALSE;
  }
  priv->in_cuda = in_cuda;
  priv->out_cuda = out_cuda;
  return TRUE;
}

static gboolean
gst_cf_base_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCfBaseFilter *self = GST_CF_BASE_FILTER (trans);
  GstCfBaseFilterClass *klass = GST_CF_BASE_FILTER_GET_CLASS (self);
  GstCfBaseFilterPrivate *priv = PRIV (self);
  const gboolean cuda = priv->gpu.cuda;
  gboolean was_in_cuda = priv->in_cuda, was_out_cuda = priv->out_cuda;
  GstVideoInfo info, out_info;
  CfFormat format, out_format;
  gboolean ok;

  if (!parse_caps (self, incaps, &info, &format) ||
      !parse_caps (self, outcaps, &out_info, &out_format) ||
      !check_memories (self, incaps, outcaps))
    return FALSE;
  /* a reconfigure with the same caps keeps the frames in flight */
  if (priv->have_info && priv->slots && gst_video_info_is_equal (&info,
          &priv->info) && gst_video_info_is_equal (&out_info, &priv->out_info)
      && was_in_cuda == priv->in_cuda && was_out_cuda == priv->out_cuda)
    return TRUE;

  if (priv->count > 0)
    gst_cf_base_filter_drain (self);
  free_slots (self);
  priv->info = info;
  priv->out_info = out_info;
  priv->format = format;
  priv->out_format = out_format;
  priv->work_format = cf_packed_planar (format);
  priv->work_out_format = cf_packed_planar (out_format);
  priv->have_info = TRUE;
  if (cuda && !gst_cf_gpu_push (&priv->gpu, GST_ELEMENT (self)))
    return FALSE;
  ok = (!klass->set_info || klass->set_info (self, &info, &out_info)) &&
      alloc_slots (self);
  if (cuda)
    gst_cf_gpu_pop (&priv->gpu);
  if (!ok) {
    free_slots (self);
    priv->have_info = FALSE;
  }
  return ok;
}

/* An output buffer holds one frame of the output caps, whatever the input
 * buffer's size (padded strides, extra bytes), as GstVideoFilter says. */
static gboolean
gst_cf_base_filter_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, othercaps))
    return FALSE;
  *othersize = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}

/* Size of a frame of @caps, for basetransform's buffer allocation. */
static gboolean
gst_cf_base_filter_get_unit_size (GstBaseTransform * trans, GstCaps * caps,
    gsize * size)
{
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
  *size = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}

/* ---- frames ---------------------------------------------------------- */

/* Maps @buf (GST_CF_MAP_CUDA in @flags: its device memory) and describes it
 * as a CfImage; FALSE when it cannot be mapped, or a stride is shorter than
 * a row (an error is posted then, unless @quiet). */
static gboolean
map_image (GstCfBaseFilter * self, GstVideoFrame * frame,
    const GstVideoInfo * info, CfFormat format, GstBuffer * buf,
    GstMapFlags flags, gboolean quiet, CfImage * image)
{
  const CfFormatInfo *finfo = cf_format_info (format);
  gint p;

  if (!gst_video_frame_map (frame, info, buf, flags)) {
    if (!quiet)
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map a frame"),
          ("%s%s", flags & GST_MAP_WRITE ? "for writing" : "for reading",
              flags & GST_CF_MAP_CUDA ? " in CUDA memory" : ""));
    return FALSE;
  }
  memset (image, 0, sizeof (*image));
  image->format = format;
  image->width = GST_VIDEO_INFO_WIDTH (info);
  image->height = GST_VIDEO_INFO_HEIGHT (info);
  for (p = 0; p < finfo->n_planes; p++) {
    image->data[p] = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
    image->pitch[p] = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
  }
  if (cf_image_check (image) != 0) {
    if (!quiet)
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Invalid frame"),
          ("a plane stride is shorter than a row"));
    gst_video_frame_unmap (frame);
    return FALSE;
  }
  return TRUE;
}

/* The kernels read 16-byte vectors: planes and pitches of device frames
 * must be multiples of 16. */
static gboolean
image_aligned (const CfImage * image)
{
  gint p;

  for (p = 0; p < cf_format_info (image->format)->n_planes; p++)
    if ((GPOINTER_TO_SIZE (image->data[p]) | image->pitch[p]) % 16)
      return FALSE;
  return TRUE;
}

/* A device frame of the slot, laid out for @format at @info's size. */
static gboolean
slot_frame (GstCfBaseFilter * self, CfGrowBuffer * buf,
    const GstVideoInfo * info, CfFormat format, CfImage * image)
{
  CfImage layout;
  const gsize bytes = cf_image_layout (format, GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), DEVICE_ROW_ALIGN, &layout);

  if (!GST_CF_OK (self, cf_grow_buffer_reserve (buf, bytes)))
    return FALSE;
  *image = cf_image_at (&layout, buf->data);
  return TRUE;
}

/* A host frame of @format at @info's size in *@mem, grown (contents
 * dropped) to *@size bytes when it is too small. */
static CfImage
host_frame (gpointer * mem, gsize * size, const GstVideoInfo * info,
    CfFormat format)
{
  CfImage layout;
  const gsize bytes = cf_image_layout (format, GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), 16, &layout);

  if (bytes > *size) {
    g_free (*mem);
    *mem = g_malloc (bytes);
    *size = bytes;
  }
  return cf_image_at (&layout, *mem);
}

/* Maps the input on the device, into @image, when it is CUDA memory of the
 * element's context that the kernels can read (@write: and change). */
static gboolean
map_input_on_device (GstCfBaseFilter * self, GstCfFrameSlot * slot,
    gboolean write, CfImage * image)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);
  GstBuffer *buf = slot->buffer;
  GstMemory *mem;

  if (gst_buffer_n_memory (buf) != 1)
    return FALSE;
  mem = gst_buffer_peek_memory (buf, 0);
  if (!gst_cf_gpu_owns_memory (&priv->gpu, mem))
    return FALSE;
  if (write && !(gst_buffer_is_writable (buf) &&
          gst_memory_is_writable (mem)))
    return FALSE;
  if (!map_image (self, &slot->in_frame, &priv->info, priv->format, buf,
          GST_MAP_READ | (write ? GST_MAP_WRITE : 0) | GST_CF_MAP_CUDA, TRUE,
          image))
    return FALSE;
  if (!image_aligned (image)) {
    GST_DEBUG_OBJECT (self, "CUDA memory not 16-byte aligned: copying it");
    gst_video_frame_unmap (&slot->in_frame);
    return FALSE;
  }
  slot->in_mapped = TRUE;
  return TRUE;
}

/* Takes an output buffer (from the decided pool, metadata copied) and maps
 * it for writing into @image, on the device when the output caps are CUDA
 * memory. FALSE with an error posted, or quietly when flushing. */
static gboolean
map_output (GstCfBaseFilter * self, GstCfFrameSlot * slot, CfImage * image)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);
  GstFlowReturn ret;

  ret = GST_BASE_TRANSFORM_CLASS (gst_cf_base_filter_parent_class)->
      prepare_output_buffer (GST_BASE_TRANSFORM (self), slot->buffer,
      &slot->outbuf);
  if (ret != GST_FLOW_OK || !slot->outbuf) {
    if (ret != GST_FLOW_FLUSHING)
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Could not get an output buffer"), ("%s", gst_flow_get_name (ret)));
    return FALSE;
  }
  if (priv->out_cuda && !(gst_buffer_n_memory (slot->outbuf) == 1 &&
          gst_cf_gpu_owns_memory (&priv->gpu,
              gst_buffer_peek_memory (slot->outbuf, 0)))) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Unusable output buffer"),
        ("not CUDA memory of the element's context"));
    return FALSE;
  }
  if (!map_image (self, &slot->out_frame, &priv->out_info, priv->out_format,
          slot->outbuf, GST_MAP_WRITE | (priv->out_cuda ? GST_CF_MAP_CUDA : 0),
          FALSE, image))
    return FALSE;
  slot->out_mapped = TRUE;
  slot->out_pinned = gst_cf_buffer_is_pinned (slot->outbuf);
  if (priv->out_cuda && !image_aligned (image)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Unusable output buffer"),
        ("CUDA memory rows not 16-byte aligned"));
    return FALSE;
  }
  return TRUE;
}

/* Queues the copy of the input frame into @dst on the device: from
 * @on_device where it is mapped there, else an upload of its host mapping
 * (for CUDA memory of another context, that mapping downloads it in its
 * own context). */
static gboolean
copy_input_to (GstCfBaseFilter * self, GstCfFrameSlot * slot,
    const CfImage * on_device, const CfImage * dst)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);
  CfImage host;

  if (on_device)
    return GST_CF_OK (self, cf_image_copy_async (on_device, dst,
            slot->stream));
  if (!map_image (self, &slot->in_frame, &priv->info, priv->format,
          slot->buffer, GST_MAP_READ, FALSE, &host))
    return FALSE;
  slot->in_mapped = TRUE;
  return GST_CF_OK (self, cf_image_upload (&host,
          gst_cf_buffer_is_pinned (slot->buffer), &slot->staging, dst,
          slot->stream));
}

/* Steps 1 and 2 for ANALYSE and DRAW: slot->d_image, and the output buffer
 * when the frame leaves in another buffer than it came in. */
static gboolean
prepare_frame (GstCfBaseFilter * self, GstCfFrameSlot * slot)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);
  const gboolean draw = KIND (self) == GST_CF_FILTER_DRAW;
  gboolean on_device;
  CfImage in, host;

  /* worked on where it is; to system memory it comes back */
  if (map_input_on_device (self, slot, draw, &slot->d_image)) {
    if (priv->out_cuda)
      return TRUE;
    slot->download = TRUE;
    return map_output (self, slot, &host);
  }
  /* a copy: CUDA memory a DRAW element may not change, or an upload */
  on_device = draw && map_input_on_device (self, slot, FALSE, &in);
  if (priv->out_cuda) {
    if (!map_output (self, slot, &slot->d_image))
      return FALSE;
  } else {
    if (!slot_frame (self, &slot->d_frame, &priv->info, priv->format,
            &slot->d_image))
      return FALSE;
    /* ANALYSE sends its system memory input on as it came */
    if (draw) {
      slot->download = TRUE;
      if (!map_output (self, slot, &host))
        return FALSE;
    }
  }
  return copy_input_to (self, slot, on_device ? &in : NULL, &slot->d_image);
}

/* Steps 1 and 2 for TRANSFORM: slot->d_image and slot->d_out. */
static gboolean
prepare_transform (GstCfBaseFilter * self, GstCfFrameSlot * slot)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);
  CfImage host;

  if (!map_input_on_device (self, slot, FALSE, &slot->d_image) &&
      (!slot_frame (self, &slot->d_frame, &priv->info, priv->format,
              &slot->d_image) || !copy_input_to (self, slot, NULL,
              &slot->d_image)))
    return FALSE;
  if (priv->out_cuda)
    return map_output (self, slot, &slot->d_out);
  slot->download = TRUE;
  return slot_frame (self, &slot->d_out_frame, &priv->out_info,
      priv->out_format, &slot->d_out) && map_output (self, slot, &host);
}

/* The output buffer's host mapping, for a download. */
static CfImage
host_output (GstCfBaseFilter * self, GstCfFrameSlot * slot)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);
  const CfFormatInfo *finfo = cf_format_info (priv->out_format);
  CfImage image = { priv->out_format, GST_VIDEO_INFO_WIDTH (&priv->out_info),
    GST_VIDEO_INFO_HEIGHT (&priv->out_info), {NULL,}, {0,}
  };
  gint p;

  for (p = 0; p < finfo->n_planes; p++) {
    image.data[p] = GST_VIDEO_FRAME_PLANE_DATA (&slot->out_frame, p);
    image.pitch[p] = GST_VIDEO_FRAME_PLANE_STRIDE (&slot->out_frame, p);
  }
  return image;
}

/* cf_packed_unpack_cuda () or cf_packed_pack_cuda () on @stream;
 * CF_DEVICE_NO_CUDA in a build without CUDA, which never gets here. */
static CfDeviceError
packed_cuda (gboolean unpack, const CfImage * src, const CfImage * dst,
    CfStream * stream)
{
#ifdef HAVE_CUDA
  return unpack ? cf_packed_unpack_cuda (src, dst, cf_stream_handle (stream))
      : cf_packed_pack_cuda (src, dst, cf_stream_handle (stream));
#else
  return CF_DEVICE_NO_CUDA;
#endif
}

/* The subclass's work on the device, packed 4:2:2 frames unpacked before
 * it into their planar twins (kept in the slot) and packed after it. */
static gboolean
work_on_cuda (GstCfBaseFilter * self, GstCfFrameSlot * slot)
{
  GstCfBaseFilterClass *klass = GST_CF_BASE_FILTER_GET_CLASS (self);
  GstCfBaseFilterPrivate *priv = PRIV (self);
  const gboolean in_packed = priv->work_format != priv->format;
  const gboolean out_packed = klass->kind == GST_CF_FILTER_TRANSFORM &&
      priv->work_out_format != priv->out_format;
  const CfImage packed = slot->d_image, packed_out = slot->d_out;
  gboolean ok;

  if (in_packed && !(slot_frame (self, &slot->d_planar, &priv->info,
              priv->work_format, &slot->d_image) &&
          GST_CF_OK (self, packed_cuda (TRUE, &packed, &slot->d_image,
                  slot->stream))))
    return FALSE;
  if (out_packed && !slot_frame (self, &slot->d_planar_out, &priv->out_info,
          priv->work_out_format, &slot->d_out))
    return FALSE;
  ok = GST_CF_OK (self, klass->process_cuda (self, slot));
  if (ok && out_packed)
    ok = GST_CF_OK (self, packed_cuda (FALSE, &slot->d_out, &packed_out,
            slot->stream));
  else if (ok && in_packed && klass->kind == GST_CF_FILTER_DRAW)
    ok = GST_CF_OK (self, packed_cuda (FALSE, &slot->d_image, &packed,
            slot->stream));
  slot->d_image = packed;
  slot->d_out = packed_out;
  return ok;
}

/* The same on the host: the subclass gets @in and @out (TRANSFORM), or
 * their planar twins. */
static gboolean
work_on_cpu (GstCfBaseFilter * self, GstCfFrameSlot * slot,
    const CfImage * in, const CfImage * out)
{
  GstCfBaseFilterClass *klass = GST_CF_BASE_FILTER_GET_CLASS (self);
  GstCfBaseFilterPrivate *priv = PRIV (self);
  const gint n_threads = gst_cf_base_filter_get_n_threads (self);
  CfImage planar, planar_out;
  gboolean ok;

  if (priv->work_format == priv->format)
    return klass->process_cpu (self, slot, in, out);
  planar = host_frame (&slot->planar, &slot->planar_size, &priv->info,
      priv->work_format);
  if (out)
    planar_out = host_frame (&slot->planar_out, &slot->planar_out_size,
        &priv->out_info, priv->work_out_format);
  ok = cf_packed_unpack_cpu_threads (in, &planar, n_threads) == 0;
  if (ok && !klass->process_cpu (self, slot, &planar, out ? &planar_out :
          NULL))
    return FALSE;
  if (ok && out)
    ok = cf_packed_pack_cpu_threads (&planar_out, out, n_threads) == 0;
  else if (ok && klass->kind == GST_CF_FILTER_DRAW)
    ok = cf_packed_pack_cpu_threads (&planar, in, n_threads) == 0;
  if (!ok)
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not convert a frame"),
        ("packed %s to or from %s", cf_format_info (priv->format)->name,
            cf_format_info (priv->work_format)->name));
  return ok;
}

/* Queues everything the frame needs on its stream (context current). */
static gboolean
process_on_cuda (GstCfBaseFilter * self, GstCfFrameSlot * slot)
{
  GstCfBaseFilterClass *klass = GST_CF_BASE_FILTER_GET_CLASS (self);
  const gboolean transform = klass->kind == GST_CF_FILTER_TRANSFORM;
  CfImage out;

  if (!(transform ? prepare_transform (self, slot) :
          prepare_frame (self, slot)))
    return FALSE;
  if (!work_on_cuda (self, slot))
    return FALSE;
  if (slot->download) {
    out = host_output (self, slot);
    if (!GST_CF_OK (self, cf_image_download (transform ? &slot->d_out :
                &slot->d_image, &out, slot->out_pinned, &slot->out_staging,
                slot->stream)))
      return FALSE;
  }
  return GST_CF_OK (self, cf_stream_mark (slot->stream));
}

static gboolean
process_on_cpu (GstCfBaseFilter * self, GstCfFrameSlot * slot)
{
  GstCfBaseFilterClass *klass = GST_CF_BASE_FILTER_GET_CLASS (self);
  GstCfBaseFilterPrivate *priv = PRIV (self);
  GstMapFlags flags = GST_MAP_READ;
  CfImage in, out;

  if (klass->kind == GST_CF_FILTER_DRAW) {
    /* a copy when someone else holds the buffer or its memory */
    slot->buffer = gst_buffer_make_writable (slot->buffer);
    flags = GST_MAP_READWRITE;
  }
  if (!map_image (self, &slot->in_frame, &priv->info, priv->format,
          slot->buffer, flags, FALSE, &in))
    return FALSE;
  slot->in_mapped = TRUE;
  if (klass->kind != GST_CF_FILTER_TRANSFORM)
    return work_on_cpu (self, slot, &in, NULL);
  return map_output (self, slot, &out) && work_on_cpu (self, slot, &in, &out);
}

/* Hands out the oldest frame in flight; its work must be complete. */
static GstFlowReturn
finish_oldest (GstCfBaseFilter * self, GstBuffer ** outbuf)
{
  GstCfBaseFilterClass *klass = GST_CF_BASE_FILTER_GET_CLASS (self);
  GstCfBaseFilterPrivate *priv = PRIV (self);
  GstCfFrameSlot *slot = &priv->slots[priv->head];
  GstBuffer *buf;
  GstFlowReturn ret = GST_FLOW_OK;

  priv->head = (priv->head + 1) % priv->n_slots;
  priv->count--;
  if (slot->download) {
    CfImage out = host_output (self, slot);
    cf_image_download_finish (&out, slot->out_pinned, &slot->out_staging);
  }
  unmap_frames (slot);
  slot->download = FALSE;
  if (slot->outbuf) {
    gst_clear_buffer (&slot->buffer);
    buf = slot->outbuf;
    slot->outbuf = NULL;
  } else {
    buf = gst_buffer_make_writable (slot->buffer);
    slot->buffer = NULL;
  }
  if (klass->finish && !slot->passthrough)
    ret = klass->finish (self, slot, buf);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (buf);
    return ret;
  }
  *outbuf = buf;
  return GST_FLOW_OK;
}

/* Waits for the oldest frame (when @wait) and hands it out; *outbuf stays
 * NULL when it is not done yet. */
static GstFlowReturn
take_oldest (GstCfBaseFilter * self, gboolean wait, GstBuffer ** outbuf)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);
  GstCfFrameSlot *slot;

  *outbuf = NULL;
  if (priv->count == 0)
    return GST_FLOW_OK;
  slot = &priv->slots[priv->head];
  if (priv->gpu.cuda && !slot->passthrough) {
    CfDeviceError err;

    if (!gst_cf_gpu_push (&priv->gpu, GST_ELEMENT (self)))
      return GST_FLOW_ERROR;
    GST_LOG_OBJECT (self, "%s slot %u", wait ? "waiting for" : "polling",
        priv->head);
    err = wait ? cf_stream_wait (slot->stream) : cf_stream_poll (slot->stream);
    gst_cf_gpu_pop (&priv->gpu);
    GST_LOG_OBJECT (self, "slot %u: %s", priv->head,
        cf_device_error_name (err));
    if (err == CF_DEVICE_NOT_READY)
      return GST_FLOW_OK;
    if (!GST_CF_OK (self, err))
      return GST_FLOW_ERROR;
  }
  return finish_oldest (self, outbuf);
}

GstFlowReturn
gst_cf_base_filter_drain (GstCfBaseFilter * self)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);
  GstFlowReturn ret = GST_FLOW_OK;

  while (priv->count > 0 && ret == GST_FLOW_OK) {
    GstBuffer *buf = NULL;

    ret = take_oldest (self, TRUE, &buf);
    if (buf)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
  }
  if (ret != GST_FLOW_OK) {
    GST_DEBUG_OBJECT (self, "drain stopped: %s", gst_flow_get_name (ret));
    if (priv->gpu.cuda && gst_cf_gpu_push (&priv->gpu, NULL)) {
      discard_frames (self);
      gst_cf_gpu_pop (&priv->gpu);
    } else {
      discard_frames (self);
    }
  }
  return ret;
}

static GstFlowReturn
gst_cf_base_filter_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstCfBaseFilter *self = GST_CF_BASE_FILTER (trans);
  GstCfBaseFilterPrivate *priv = PRIV (self);
  GstCfFrameSlot *slot;
  GstFlowReturn ret;
  GstBuffer *buf;
  gboolean ok;

  /* the parent checks negotiation and QoS, and stashes the buffer */
  ret = GST_BASE_TRANSFORM_CLASS (gst_cf_base_filter_parent_class)->
      submit_input_buffer (trans, is_discont, input);
  if (ret != GST_FLOW_OK || !trans->queued_buf)
    return ret;
  buf = trans->queued_buf;
  trans->queued_buf = NULL;

  if (!priv->slots) {
    gst_buffer_unref (buf);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  /* only after a failed push can the ring still be full: push the oldest */
  if (priv->count == priv->n_slots) {
    GstBuffer *out = NULL;
    ret = take_oldest (self, TRUE, &out);
    if (out)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref (buf);
      return ret;
    }
  }

  /* the parent marks the first buffer handed out after a discontinuity:
   * that must be this one, not an older frame still in flight. The
   * buffer's flag, not @is_discont: the parent keeps passing TRUE until a
   * buffer leaves through generate_output (), and frames in flight mean
   * that is a later call, so draining on it would drain every frame. */
  if (GST_BUFFER_IS_DISCONT (buf) && priv->count > 0) {
    ret = gst_cf_base_filter_drain (self);
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref (buf);
      return ret;
    }
  }

  slot = &priv->slots[(priv->head + priv->count) % priv->n_slots];
  GST_LOG_OBJECT (self, "frame %" GST_TIME_FORMAT " into slot %u",
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)), (guint) (slot - priv->slots));
  slot->buffer = buf;
  /* equal caps on a transform: the frame goes on untouched, in its turn */
  slot->passthrough = KIND (self) == GST_CF_FILTER_TRANSFORM &&
      gst_base_transform_is_passthrough (trans);
  if (slot->passthrough) {
    priv->count++;
    return GST_FLOW_OK;
  }
  if (priv->gpu.cuda) {
    if (!gst_cf_gpu_push (&priv->gpu, GST_ELEMENT (self)))
      ok = FALSE;
    else {
      ok = process_on_cuda (self, slot);
      if (!ok)
        cf_stream_wait (slot->stream);  /* before the buffers go */
      gst_cf_gpu_pop (&priv->gpu);
    }
  } else {
    ok = process_on_cpu (self, slot);
  }
  if (!ok) {
    release_frame (slot);
    /* flushing while waiting for an output buffer is not an error */
    return GST_PAD_IS_FLUSHING (GST_BASE_TRANSFORM_SRC_PAD (self)) ?
        GST_FLOW_FLUSHING : GST_FLOW_ERROR;
  }
  GST_LOG_OBJECT (self, "queued slot %u", (guint) (slot - priv->slots));
  priv->count++;
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_cf_base_filter_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstCfBaseFilter *self = GST_CF_BASE_FILTER (trans);
  GstCfBaseFilterPrivate *priv = PRIV (self);

  /* wait only when the ring is full, so the next frame has a slot */
  return take_oldest (self, priv->count == priv->n_slots, outbuf);
}

static gboolean
gst_cf_base_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCfBaseFilter *self = GST_CF_BASE_FILTER (trans);
  GstCfBaseFilterPrivate *priv = PRIV (self);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_STOP:
      if (priv->gpu.cuda && gst_cf_gpu_push (&priv->gpu, NULL)) {
        discard_frames (self);
        gst_cf_gpu_pop (&priv->gpu);
      } else {
        discard_frames (self);
      }
      break;
    default:
      /* keep events in order with the frames before them */
      if (GST_EVENT_IS_SERIALIZED (event))
        gst_cf_base_filter_drain (self);
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cf_base_filter_parent_class)->
      sink_event (trans, event);
}

/* The context query, and the latency added by holding frames: up to N - 1
 * frames wait in the ring for the frame after them. */
static gboolean
gst_cf_base_filter_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstCfBaseFilter *self = GST_CF_BASE_FILTER (trans);
  GstCfBaseFilterPrivate *priv = PRIV (self);

  if (gst_cf_gpu_query_context (&priv->gpu, GST_ELEMENT (self), query))
    return TRUE;
  if (!GST_BASE_TRANSFORM_CLASS (gst_cf_base_filter_parent_class)->query
      (trans, direction, query))
    return FALSE;

  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS && cuda_memory_possible (self)) {
    GstCaps *caps;

    /* basetransform puts the peer's own caps first, to favour passthrough:
     * a system memory sink downstream would then pull system memory into
     * every link of a chain of ours. CUDA memory first, as the templates
     * say. */
    gst_query_parse_caps_result (query, &caps);
    if (caps) {
      caps = cuda_memory_first (caps);
      gst_query_set_caps_result (query, caps);
      gst_caps_unref (caps);
    }
  }

  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    GstClockTime min, max, ours = 0;
    gboolean live;
    guint held;

    GST_OBJECT_LOCK (self);
    held = priv->gpu.cuda ? priv->frames_in_flight - 1 : 0;
    GST_OBJECT_UNLOCK (self);
    if (held && priv->have_info && GST_VIDEO_INFO_FPS_N (&priv->info) > 0)
      ours = gst_util_uint64_scale (held * GST_SECOND,
          GST_VIDEO_INFO_FPS_D (&priv->info), GST_VIDEO_INFO_FPS_N (&priv->info));
    gst_query_parse_latency (query, &live, &min, &max);
    GST_DEBUG_OBJECT (self, "adding %" GST_TIME_FORMAT " of latency",
        GST_TIME_ARGS (ours));
    gst_query_set_latency (query, live, min + ours,
        GST_CLOCK_TIME_IS_VALID (max) ? max + ours : max);
  }
  return TRUE;
}

/* ---- allocation ------------------------------------------------------ */

/* Configures @pool for @caps with at least @min buffers, adds it to
 * @query and takes it. System memory pools get @allocator (NULL: the
 * default one) and 16-byte alignment. */
static gboolean
add_pool (GstCfBaseFilter * self, GstQuery * query, GstBufferPool * pool,
    GstCaps * caps, guint min, GstAllocator * allocator)
{
  GstAllocationParams params;
  GstStructure *config;
  GstVideoInfo info;
  guint size;
  gboolean ok;

  if (!pool || !gst_video_info_from_caps (&info, caps)) {
    gst_clear_object (&pool);
    return FALSE;
  }
  gst_allocation_params_init (&params);
  params.align = DEVICE_ROW_ALIGN - 1;
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, min, 0);
  if (!caps_in_cuda_memory (caps))
    gst_buffer_pool_config_set_allocator (config, allocator, &params);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  ok = gst_buffer_pool_set_config (pool, config);
  if (ok) {
    /* what the pool made of it (CUDA memory: its pitched size) */
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
    gst_structure_free (config);
    gst_query_add_allocation_pool (query, pool, size, min, 0);
    if (!caps_in_cuda_memory (caps))
      gst_query_add_allocation_param (query, allocator, &params);
  } else {
    GST_WARNING_OBJECT (self, "pool rejected its configuration");
  }
  gst_object_unref (pool);
  return ok;
}

/* A pool for frames of @caps: CUDA memory of the element's context, or
 * page-locked system memory. */
static gboolean
add_own_pool (GstCfBaseFilter * self, GstQuery * query, GstCaps * caps,
    guint min)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);
  GstAllocator *allocator;
  gboolean ok;

  if (caps_in_cuda_memory (caps))
    return add_pool (self, query, gst_cf_gpu_cuda_pool_new (&priv->gpu), caps,
        min, NULL);
  allocator = priv->gpu.cuda ? gst_cf_pinned_allocator_new (&priv->gpu) :
      NULL;
  ok = add_pool (self, query, gst_video_buffer_pool_new (), caps, min,
      allocator);
  gst_clear_object (&allocator);
  return ok;
}

static guint
frames_in_flight (GstCfBaseFilter * self)
{
  guint n;

  GST_OBJECT_LOCK (self);
  n = PRIV (self)->frames_in_flight;
  GST_OBJECT_UNLOCK (self);
  return n;
}

/* Upstream gets a pool of what the element reads fastest: CUDA memory of
 * its context for CUDA caps, page-locked memory for system memory caps on
 * the CUDA backend. */
static gboolean
gst_cf_base_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCfBaseFilter *self = GST_CF_BASE_FILTER (trans);
  GstCaps *caps;

  /* the parent copies downstream's metas; what it answers does not decide
   * what we offer (a sink without an allocation answer must still get the
   * pinned pool) */
  GST_BASE_TRANSFORM_CLASS (gst_cf_base_filter_parent_class)->
      propose_allocation (trans, decide_query, query);
  if (!gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);

  gst_query_parse_allocation (query, &caps, NULL);
  if (!PRIV (self)->gpu.cuda || gst_query_get_n_allocation_pools (query) > 0)
    return TRUE;
  if (!caps || !add_own_pool (self, query, caps, frames_in_flight (self)))
    return FALSE;
  GST_DEBUG_OBJECT (self, "proposing a pool for %" GST_PTR_FORMAT, caps);
  return TRUE;
}

/* Output buffers, when the element makes them: from downstream's pool when
 * it is of the right memory (a GstCudaBufferPool only of the element's own
 * context), else from a pool of its own, so nothing is allocated per frame;
 * system memory is page-locked on CUDA, so downloads run at full speed. An
 * ANALYSE element that passes its input on needs none. */
static gboolean
gst_cf_base_filter_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstCfBaseFilter *self = GST_CF_BASE_FILTER (trans);
  GstCfBaseFilterPrivate *priv = PRIV (self);
  const gboolean cuda = priv->gpu.cuda;
  GstBufferPool *pool = NULL;
  GstCaps *caps;
  gboolean needed;
  guint min = frames_in_flight (self) + 1;

  /* An ANALYSE element whose frames come in the memory they leave in
   * passes them on, but a buffer of another context or of system memory
   * under CUDA caps still needs a CUDA buffer to go on in: a pool that
   * allocates only then (no minimum). */
  switch (KIND (self)) {
    case GST_CF_FILTER_ANALYSE:
      needed = priv->out_cuda || priv->in_cuda != priv->out_cuda;
      min = priv->in_cuda == priv->out_cuda ? 0 : frames_in_flight (self) + 1;
      break;
    case GST_CF_FILTER_DRAW:
      needed = cuda;            /* the CPU draws on the input itself */
      break;
    default:
      needed = TRUE;
      break;
  }
  gst_query_parse_allocation (query, &caps, NULL);
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  if (needed && pool && !priv->out_cuda) {
    /* downstream's system memory pool: the parent configures it */
    gst_object_unref (pool);
    return GST_BASE_TRANSFORM_CLASS (gst_cf_base_filter_parent_class)->
        decide_allocation (trans, query);
  }
  while (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_remove_nth_allocation_pool (query, 0);
  while (gst_query_get_n_allocation_params (query) > 0)
    gst_query_remove_nth_allocation_param (query, 0);
  if (!needed || !caps) {
    gst_clear_object (&pool);
    return !needed;
  }
  if (pool && gst_cf_gpu_is_own_pool (&priv->gpu, pool)) {
    GST_DEBUG_OBJECT (self, "downstream's CUDA pool, of our context");
    return add_pool (self, query, pool, caps, min, NULL);
  }
  gst_clear_object (&pool);
  GST_DEBUG_OBJECT (self, "using a pool of %s memory of its own",
      priv->out_cuda ? "CUDA" : cuda ? "page-locked" : "system");
  return add_own_pool (self, query, caps, min);
}

/* ---- properties and type --------------------------------------------- */

static void
gst_cf_base_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCfBaseFilterPrivate *priv = PRIV (GST_CF_BASE_FILTER (object));

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_BACKEND:
      priv->gpu.backend = g_value_get_enum (value);
      break;
    case PROP_CUDA_DEVICE_ID:
      priv->gpu.device_id = g_value_get_int (value);
      break;
    case PROP_N_THREADS:
      priv->gpu.n_threads = g_value_get_uint (value);
      break;
    case PROP_FRAMES_IN_FLIGHT:
      priv->frames_in_flight = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_cf_base_filter_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCfBaseFilterPrivate *priv = PRIV (GST_CF_BASE_FILTER (object));

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_BACKEND:
      g_value_set_enum (value, priv->gpu.backend);
      break;
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, priv->gpu.device_id);
      break;
    case PROP_N_THREADS:
      g_value_set_uint (value, priv->gpu.n_threads);
      break;
    case PROP_FRAMES_IN_FLIGHT:
      g_value_set_uint (value, priv->frames_in_flight);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_cf_base_filter_finalize (GObject * object)
{
  GstCfBaseFilter *self = GST_CF_BASE_FILTER (object);

  free_slots (self);
  gst_cf_gpu_clear (&PRIV (self)->gpu);
  G_OBJECT_CLASS (gst_cf_base_filter_parent_class)->finalize (object);
}

/* Never called: basetransform calls transform () only from its own
 * generate_output (), which this class replaces. Installing it is what
 * makes basetransform treat the element as not always in place, so that
 * it queries downstream for a pool and prepare_output_buffer () takes
 * buffers from the decided pool. */
static GstFlowReturn
gst_cf_base_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GST_ELEMENT_ERROR (trans, CORE, NOT_IMPLEMENTED, (NULL),
      ("frames go through submit_input_buffer () and generate_output ()"));
  return GST_FLOW_NOT_SUPPORTED;
}

void
gst_cf_base_filter_class_set_kind (GstCfBaseFilterClass * klass,
    GstCfFilterKind kind)
{
  klass->kind = kind;
}

static void
gst_cf_base_filter_class_init (GstCfBaseFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cf_base_filter_set_property;
  gobject_class->get_property = gst_cf_base_filter_get_property;
  gobject_class->finalize = gst_cf_base_filter_finalize;

  gst_cf_gpu_install_properties (gobject_class, PROP_BACKEND,
      PROP_CUDA_DEVICE_ID, PROP_N_THREADS);
  /**
   * GstCfBaseFilter:frames-in-flight:
   *
   * Frames processed concurrently on the GPU, each on its own stream: the
   * upload of one frame overlaps the compute of the one before and the
   * download of the one before that. Up to N - 1 frames are held, which the
   * element reports as latency; 1 is the synchronous mode (no added latency,
   * the choice for live low-latency pipelines). Ignored by the CPU backend.
   */
  g_object_class_install_property (gobject_class, PROP_FRAMES_IN_FLIGHT,
      g_param_spec_uint ("frames-in-flight", "Frames in flight",
          "Frames processed concurrently on the GPU (1 = synchronous)", 1,
          MAX_FRAMES_IN_FLIGHT, DEFAULT_FRAMES_IN_FLIGHT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cf_base_filter_set_context);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cf_base_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cf_base_filter_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cf_base_filter_transform_caps);
  trans_class->fixate_caps =
      GST_DEBUG_FUNCPTR (gst_cf_base_filter_fixate_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cf_base_filter_set_caps);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_cf_base_filter_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_cf_base_filter_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cf_base_filter_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cf_base_filter_query);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cf_base_filter_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cf_base_filter_decide_allocation);
  trans_class->get_unit_size =
      GST_DEBUG_FUNCPTR (gst_cf_base_filter_get_unit_size);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_cf_base_filter_transform_size);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cf_base_filter_transform);

  klass->kind = GST_CF_FILTER_ANALYSE;

  GST_DEBUG_CATEGORY_INIT (gst_cf_base_filter_debug, "cfbasefilter", 0,
      "gst-cudafilters base class");
  gst_type_mark_as_plugin_api (GST_TYPE_CF_BASE_FILTER, 0);
}

static void
gst_cf_base_filter_init (GstCfBaseFilter * self)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);

  gst_cf_gpu_init (&priv->gpu);
  priv->frames_in_flight = DEFAULT_FRAMES_IN_FLIGHT;
  priv->format = priv->work_format = CF_FORMAT_COUNT;
  /* frames are handed out by generate_output (): never passthrough, which
   * basetransform assumes for a subclass without transform functions */
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), FALSE);
}

const GstVideoInfo *
gst_cf_base_filter_get_info (GstCfBaseFilter * self)
{
  return &PRIV (self)->info;
}

const GstVideoInfo *
gst_cf_base_filter_get_out_info (GstCfBaseFilter * self)
{
  return &PRIV (self)->out_info;
}

CfFormat
gst_cf_base_filter_get_format (GstCfBaseFilter * self)
{
  return PRIV (self)->work_format;
}

gboolean
gst_cf_base_filter_uses_cuda (GstCfBaseFilter * self)
{
  return PRIV (self)->gpu.cuda;
}

GstCfGpu *
gst_cf_base_filter_get_gpu (GstCfBaseFilter * self)
{
  return &PRIV (self)->gpu;
}

gint
gst_cf_base_filter_get_n_threads (GstCfBaseFilter * self)
{
  return gst_cf_gpu_n_threads (&PRIV (self)->gpu, GST_ELEMENT (self));
}
