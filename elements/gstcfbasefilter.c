/* GstCfBaseFilter: backend choice, frames in flight, pinned pools (see .h).
 *
 * Frames in flight form a ring of slots. submit_input_buffer () takes the
 * next free slot, queues the upload of the frame on the slot's stream
 * (straight from pinned memory, or through the slot's pinned staging copy),
 * lets the subclass queue its work, and records the slot's event.
 * generate_output () hands out the oldest frame once its event has
 * completed, waiting for it only when the ring is full; with N slots the GPU
 * uploads frame k+1 while it computes frame k and returns frame k-1, each on
 * its own stream. N = 1 is the synchronous mode. Everything runs on the
 * streaming thread, so buffers leave in order.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcfbasefilter.h"
#include "gstcfpinnedallocator.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cf_base_filter_debug);
#define GST_CAT_DEFAULT gst_cf_base_filter_debug

enum {
  PROP_0,
  PROP_BACKEND,
  PROP_CUDA_DEVICE_ID,
  PROP_FRAMES_IN_FLIGHT,
};

/* the smallest count that overlaps frames: for cudastats 1 to 4 measured
 * within 1% of each other (4K RGBA from pinned memory, H100: the upload is
 * the limit), docs/PERFORMANCE.md */
#define DEFAULT_FRAMES_IN_FLIGHT 2
#define MAX_FRAMES_IN_FLIGHT 16
/* rows of device planes start on this many bytes (the kernels' vector loads) */
#define DEVICE_ROW_ALIGN 16
#define DEVICE_PLANE_ALIGN 256

/* A frame in device memory (and in pinned staging memory, which has the
 * same layout): every plane's rows rounded up to 16 bytes, planes 256-byte
 * aligned. */
typedef struct {
  CfImage image;                /* data[p] holds plane p's offset */
  gsize bytes;
} FrameLayout;

typedef struct {
  /* properties, under the object lock */
  GstCfBackend backend;
  gint device_id;
  guint frames_in_flight;

  /* decided at start */
  gboolean use_cuda;
  gint device;

  /* negotiated */
  gboolean have_info;
  GstVideoInfo info, out_info;
  CfFormat format, out_format;
  FrameLayout in, out;          /* device (and staging) layouts */
  GstCfFrameSlot *slots;
  guint n_slots, head, count;
} GstCfBaseFilterPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCfBaseFilter, gst_cf_base_filter,
    GST_TYPE_BASE_TRANSFORM);

#define PRIV(self) \
  ((GstCfBaseFilterPrivate *) gst_cf_base_filter_get_instance_private (self))

CfFormat
gst_cf_format_from_video_format (GstVideoFormat format)
{
  return cf_format_from_name (gst_video_format_to_string (format));
}

#ifdef HAVE_CUDA
static gboolean
activate_device (GstCfBaseFilter * self)
{
  return GST_CF_CUDA_OK (self, cudaSetDevice (PRIV (self)->device));
}

#endif

static gboolean
gst_cf_base_filter_start (GstBaseTransform * trans)
{
  GstCfBaseFilterPrivate *priv = PRIV (GST_CF_BASE_FILTER (trans));
  GstCfBackend backend;
  gint wanted;

  GST_OBJECT_LOCK (trans);
  backend = priv->backend;
  wanted = priv->device_id;
  GST_OBJECT_UNLOCK (trans);

  return gst_cf_backend_choose (GST_ELEMENT (trans), backend, wanted,
      &priv->use_cuda, &priv->device);
}

static void
discard_frames (GstCfBaseFilter * self)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);

  while (priv->count > 0) {
    GstCfFrameSlot *slot = &priv->slots[priv->head];
#ifdef HAVE_CUDA
    /* the GPU may still read the buffer: let it finish first */
    if (priv->use_cuda)
      cudaEventSynchronize (slot->done);
#endif
    gst_clear_buffer (&slot->buffer);
    gst_clear_buffer (&slot->outbuf);
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
  guint i;

  discard_frames (self);
#ifdef HAVE_CUDA
  if (priv->use_cuda && priv->n_slots)
    cudaSetDevice (priv->device);
#endif
  for (i = 0; i < priv->n_slots; i++) {
    GstCfFrameSlot *slot = &priv->slots[i];
    if (slot->user && klass->slot_free)
      klass->slot_free (self, slot->user, priv->use_cuda);
#ifdef HAVE_CUDA
    if (slot->stream)
      cudaStreamDestroy (slot->stream);
    if (slot->done)
      cudaEventDestroy (slot->done);
    if (slot->d_frame)
      cudaFree (slot->d_frame);
    if (slot->h_staging)
      cudaFreeHost (slot->h_staging);
    if (slot->d_out_frame)
      cudaFree (slot->d_out_frame);
    if (slot->h_out_staging)
      cudaFreeHost (slot->h_out_staging);
#endif
  }
  g_free (priv->slots);
  priv->slots = NULL;
  priv->n_slots = 0;
}

static void
plan_layout (const GstVideoInfo * info, CfFormat format, FrameLayout * l)
{
  const CfFormatInfo *finfo = cf_format_info (format);
  gsize offset = 0;
  gint p;

  memset (l, 0, sizeof (*l));
  l->image.format = format;
  l->image.width = GST_VIDEO_INFO_WIDTH (info);
  l->image.height = GST_VIDEO_INFO_HEIGHT (info);
  for (p = 0; p < finfo->n_planes; p++) {
    gsize row = cf_plane_row_bytes (format, p, l->image.width);
    l->image.pitch[p] = GST_ROUND_UP_N (row, DEVICE_ROW_ALIGN);
    l->image.data[p] = GSIZE_TO_POINTER (offset);
    offset += GST_ROUND_UP_N (l->image.pitch[p] *
        cf_plane_height (format, p, l->image.height), DEVICE_PLANE_ALIGN);
  }
  l->bytes = offset;
}

#ifdef HAVE_CUDA
/* @l's image placed at @base */
static CfImage
layout_at (const FrameLayout * l, void *base)
{
  CfImage image = l->image;
  gint p;

  for (p = 0; p < CF_MAX_PLANES; p++)
    if (image.pitch[p])
      image.data[p] = (guint8 *) base + GPOINTER_TO_SIZE (l->image.data[p]);
  return image;
}
#endif

static gboolean
alloc_slots (GstCfBaseFilter * self)
{
  GstCfBaseFilterClass *klass = GST_CF_BASE_FILTER_GET_CLASS (self);
  GstCfBaseFilterPrivate *priv = PRIV (self);
  guint i, n;

  GST_OBJECT_LOCK (self);
  n = priv->use_cuda ? priv->frames_in_flight : 1;
  GST_OBJECT_UNLOCK (self);

  priv->slots = g_new0 (GstCfFrameSlot, n);
  priv->n_slots = n;
  priv->head = priv->count = 0;
  for (i = 0; i < n; i++) {
    GstCfFrameSlot *slot = &priv->slots[i];
#ifdef HAVE_CUDA
    if (priv->use_cuda) {
      if (!activate_device (self) ||
          !GST_CF_CUDA_OK (self, cudaStreamCreateWithFlags (&slot->stream,
                  cudaStreamNonBlocking)) ||
          !GST_CF_CUDA_OK (self, cudaEventCreateWithFlags (&slot->done,
                  cudaEventDisableTiming)) ||
          !GST_CF_CUDA_OK (self, cudaMalloc (&slot->d_frame,
                  priv->in.bytes)))
        return FALSE;
      slot->d_image = layout_at (&priv->in, slot->d_frame);
      if (klass->transform) {
        if (!GST_CF_CUDA_OK (self, cudaMalloc (&slot->d_out_frame,
                    priv->out.bytes)))
          return FALSE;
        slot->d_out = layout_at (&priv->out, slot->d_out_frame);
      }
    }
#endif
    if (klass->slot_alloc && !klass->slot_alloc (self, priv->use_cuda,
            &slot->user))
      return FALSE;
  }
  GST_DEBUG_OBJECT (self, "%u frame slot(s) of %" G_GSIZE_FORMAT " bytes", n,
      priv->in.bytes + (klass->transform ? priv->out.bytes : 0));
  return TRUE;
}

static gboolean
gst_cf_base_filter_stop (GstBaseTransform * trans)
{
  GstCfBaseFilter *self = GST_CF_BASE_FILTER (trans);

  free_slots (self);
  PRIV (self)->have_info = FALSE;
  return TRUE;
}

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

static gboolean
gst_cf_base_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCfBaseFilter *self = GST_CF_BASE_FILTER (trans);
  GstCfBaseFilterClass *klass = GST_CF_BASE_FILTER_GET_CLASS (self);
  GstCfBaseFilterPrivate *priv = PRIV (self);
  GstVideoInfo info, out_info;
  CfFormat format, out_format;

  if (!parse_caps (self, incaps, &info, &format) ||
      !parse_caps (self, outcaps, &out_info, &out_format))
    return FALSE;
  /* a reconfigure with the same caps keeps the frames in flight */
  if (priv->have_info && priv->slots && gst_video_info_is_equal (&info,
          &priv->info) && gst_video_info_is_equal (&out_info, &priv->out_info))
    return TRUE;

  if (priv->count > 0)
    gst_cf_base_filter_drain (self);
  free_slots (self);
  priv->info = info;
  priv->out_info = out_info;
  priv->format = format;
  priv->out_format = out_format;
  plan_layout (&info, format, &priv->in);
  plan_layout (&out_info, out_format, &priv->out);
  priv->have_info = TRUE;
#ifdef HAVE_CUDA
  if (priv->use_cuda && !activate_device (self))
    return FALSE;
#endif
  if ((klass->set_info && !klass->set_info (self, &info, &out_info)) ||
      !alloc_slots (self)) {
    free_slots (self);
    priv->have_info = FALSE;
    return FALSE;
  }
  return TRUE;
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

#ifdef HAVE_CUDA
/* Queues the upload of @buf into slot->d_image on slot->stream. */
static gboolean
upload_frame (GstCfBaseFilter * self, GstCfFrameSlot * slot, GstBuffer * buf)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);
  const CfFormatInfo *finfo = cf_format_info (priv->format);
  gboolean pinned = gst_cf_buffer_is_pinned (buf);
  GstVideoFrame frame;
  gboolean ok = TRUE;
  gint p;

  if (!gst_video_frame_map (&frame, &priv->info, buf, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map input frame"),
        (NULL));
    return FALSE;
  }
  if (!pinned && !slot->h_staging) {
    /* first non-pinned frame of this slot: its staging copy, once */
    GST_INFO_OBJECT (self, "input is not pinned: staging through pinned "
        "memory (%" G_GSIZE_FORMAT " bytes per frame)", priv->in.bytes);
    ok = GST_CF_CUDA_OK (self, cudaHostAlloc (&slot->h_staging,
            priv->in.bytes, cudaHostAllocPortable));
  }
  for (p = 0; ok && p < finfo->n_planes; p++) {
    const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    gsize src_stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
    gsize row = cf_plane_row_bytes (priv->format, p, slot->d_image.width);
    gsize rows = cf_plane_height (priv->format, p, slot->d_image.height);
    gsize pitch = slot->d_image.pitch[p];

    if (GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p) < (gint) row) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Invalid input frame"),
          ("plane %d stride %d is shorter than a row (%" G_GSIZE_FORMAT
              " bytes)", p, GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p), row));
      ok = FALSE;
    } else if (pinned) {
      ok = GST_CF_CUDA_OK (self, cudaMemcpy2DAsync (slot->d_image.data[p],
              pitch, src, src_stride, row, rows, cudaMemcpyHostToDevice,
              slot->stream));
    } else {
      guint8 *dst = (guint8 *) slot->h_staging +
          GPOINTER_TO_SIZE (priv->in.image.data[p]);
      gsize y;
      for (y = 0; y < rows; y++)
        memcpy (dst + y * pitch, src + y * src_stride, row);
    }
  }
  if (ok && !pinned)
    ok = GST_CF_CUDA_OK (self, cudaMemcpyAsync (slot->d_frame,
            slot->h_staging, priv->in.bytes, cudaMemcpyHostToDevice,
            slot->stream));
  gst_video_frame_unmap (&frame);
  return ok;
}

/* Queues the download of slot->d_out: straight into a pinned output
 * buffer, otherwise into the slot's pinned staging copy, which
 * copy_out_staged () moves into the buffer once the frame is done. */
static gboolean
download_frame (GstCfBaseFilter * self, GstCfFrameSlot * slot)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);
  const CfFormatInfo *finfo = cf_format_info (priv->out_format);
  GstVideoFrame frame;
  gboolean ok = TRUE;
  gint p;

  slot->out_staged = !gst_cf_buffer_is_pinned (slot->outbuf);
  if (slot->out_staged) {
    if (!slot->h_out_staging) {
      GST_INFO_OBJECT (self, "output is not pinned: staging through pinned "
          "memory (%" G_GSIZE_FORMAT " bytes per frame)", priv->out.bytes);
      if (!GST_CF_CUDA_OK (self, cudaHostAlloc (&slot->h_out_staging,
                  priv->out.bytes, cudaHostAllocPortable)))
        return FALSE;
    }
    return GST_CF_CUDA_OK (self, cudaMemcpyAsync (slot->h_out_staging,
            slot->d_out_frame, priv->out.bytes, cudaMemcpyDeviceToHost,
            slot->stream));
  }
  if (!gst_video_frame_map (&frame, &priv->out_info, slot->outbuf,
          GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map output frame"),
        (NULL));
    return FALSE;
  }
  for (p = 0; ok && p < finfo->n_planes; p++)
    ok = GST_CF_CUDA_OK (self, cudaMemcpy2DAsync (GST_VIDEO_FRAME_PLANE_DATA
            (&frame, p), GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p),
            slot->d_out.data[p], slot->d_out.pitch[p],
            cf_plane_row_bytes (priv->out_format, p, slot->d_out.width),
            cf_plane_height (priv->out_format, p, slot->d_out.height),
            cudaMemcpyDeviceToHost, slot->stream));
  gst_video_frame_unmap (&frame);
  return ok;
}

static gboolean
copy_out_staged (GstCfBaseFilter * self, GstCfFrameSlot * slot,
    GstBuffer * outbuf)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);
  const CfFormatInfo *finfo = cf_format_info (priv->out_format);
  CfImage staged = layout_at (&priv->out, slot->h_out_staging);
  GstVideoFrame frame;
  gint p;
  gsize y;

  if (!gst_video_frame_map (&frame, &priv->out_info, outbuf, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map output frame"),
        (NULL));
    return FALSE;
  }
  for (p = 0; p < finfo->n_planes; p++) {
    gsize row = cf_plane_row_bytes (priv->out_format, p, staged.width);
    gsize rows = cf_plane_height (priv->out_format, p, staged.height);
    guint8 *dst = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
    for (y = 0; y < rows; y++)
      memcpy (dst + y * stride, (guint8 *) staged.data[p] +
          y * staged.pitch[p], row);
  }
  gst_video_frame_unmap (&frame);
  return TRUE;
}
#endif

/* Maps @buf and describes it as a CfImage; FALSE (error posted) when it
 * cannot be mapped or a stride is shorter than a row. */
static gboolean
map_image (GstCfBaseFilter * self, GstVideoFrame * frame,
    const GstVideoInfo * info, CfFormat format, GstBuffer * buf,
    GstMapFlags flags, CfImage * image)
{
  const CfFormatInfo *finfo = cf_format_info (format);
  gint p;

  if (!gst_video_frame_map (frame, info, buf, flags)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map a frame"),
        (NULL));
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
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Invalid frame"),
        ("a plane stride is shorter than a row"));
    gst_video_frame_unmap (frame);
    return FALSE;
  }
  return TRUE;
}

static gboolean
process_on_cpu (GstCfBaseFilter * self, GstCfFrameSlot * slot)
{
  GstCfBaseFilterClass *klass = GST_CF_BASE_FILTER_GET_CLASS (self);
  GstCfBaseFilterPrivate *priv = PRIV (self);
  GstVideoFrame in_frame, out_frame;
  CfImage in, out;
  gboolean ok;

  if (!map_image (self, &in_frame, &priv->info, priv->format, slot->buffer,
          GST_MAP_READ, &in))
    return FALSE;
  if (!slot->outbuf) {
    ok = klass->process_cpu (self, slot, &in, NULL);
  } else if ((ok = map_image (self, &out_frame, &priv->out_info,
              priv->out_format, slot->outbuf, GST_MAP_WRITE, &out))) {
    ok = klass->process_cpu (self, slot, &in, &out);
    gst_video_frame_unmap (&out_frame);
  }
  gst_video_frame_unmap (&in_frame);
  return ok;
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
  if (slot->outbuf) {
    gst_clear_buffer (&slot->buffer);
    buf = slot->outbuf;
    slot->outbuf = NULL;
#ifdef HAVE_CUDA
    if (priv->use_cuda && slot->out_staged && !copy_out_staged (self, slot,
            buf))
      ret = GST_FLOW_ERROR;
#endif
  } else {
    buf = gst_buffer_make_writable (slot->buffer);
    slot->buffer = NULL;
  }
  if (ret == GST_FLOW_OK && klass->finish && !slot->passthrough)
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

  *outbuf = NULL;
  if (priv->count == 0)
    return GST_FLOW_OK;
#ifdef HAVE_CUDA
  if (priv->use_cuda) {
    cudaEvent_t done = priv->slots[priv->head].done;
    cudaError_t err;

    GST_LOG_OBJECT (self, "%s slot %u", wait ? "waiting for" : "polling",
        priv->head);
    err = wait ? cudaEventSynchronize (done) : cudaEventQuery (done);
    GST_LOG_OBJECT (self, "slot %u: %s", priv->head, cudaGetErrorName (err));
    if (err == cudaErrorNotReady)
      return GST_FLOW_OK;
    if (!GST_CF_CUDA_OK (self, err))
      return GST_FLOW_ERROR;
  }
#endif
  return finish_oldest (self, outbuf);
}

GstFlowReturn
gst_cf_base_filter_drain (GstCfBaseFilter * self)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);
  GstFlowReturn ret = GST_FLOW_OK;

  while (priv->count > 0 && ret == GST_FLOW_OK) {
    GstBuffer *buf = NULL;
#ifdef HAVE_CUDA
    if (priv->use_cuda && !activate_device (self)) {
      ret = GST_FLOW_ERROR;
      break;
    }
#endif
    ret = take_oldest (self, TRUE, &buf);
    if (buf)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
  }
  if (ret != GST_FLOW_OK) {
    GST_DEBUG_OBJECT (self, "drain stopped: %s", gst_flow_get_name (ret));
    discard_frames (self);
  }
  return ret;
}

static GstFlowReturn
gst_cf_base_filter_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstCfBaseFilter *self = GST_CF_BASE_FILTER (trans);
  GstCfBaseFilterClass *klass = GST_CF_BASE_FILTER_GET_CLASS (self);
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
  slot->passthrough = klass->transform && gst_base_transform_is_passthrough
      (trans);
  if (slot->passthrough) {
    priv->count++;
    return GST_FLOW_OK;
  }
  if (klass->transform) {
    /* the parent takes it from the decided pool and copies the metadata */
    ret = GST_BASE_TRANSFORM_CLASS (gst_cf_base_filter_parent_class)->
        prepare_output_buffer (trans, buf, &slot->outbuf);
    if (ret != GST_FLOW_OK || !slot->outbuf) {
      gst_clear_buffer (&slot->buffer);
      return ret != GST_FLOW_OK ? ret : GST_FLOW_ERROR;
    }
  }
#ifdef HAVE_CUDA
  if (priv->use_cuda) {
    ok = activate_device (self) && upload_frame (self, slot, buf) &&
        GST_CF_CUDA_OK (self, klass->process_cuda (self, slot)) &&
        (!slot->outbuf || download_frame (self, slot)) &&
        GST_CF_CUDA_OK (self, cudaEventRecord (slot->done, slot->stream));
  } else
#endif
    ok = process_on_cpu (self, slot);
  if (!ok) {
    gst_clear_buffer (&slot->buffer);
    gst_clear_buffer (&slot->outbuf);
    return GST_FLOW_ERROR;
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

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_STOP:
      discard_frames (self);
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

/* The latency added by holding frames: up to N - 1 frames wait in the ring
 * for the frame after them. */
static gboolean
gst_cf_base_filter_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstCfBaseFilter *self = GST_CF_BASE_FILTER (trans);
  GstCfBaseFilterPrivate *priv = PRIV (self);

  if (!GST_BASE_TRANSFORM_CLASS (gst_cf_base_filter_parent_class)->query
      (trans, direction, query))
    return FALSE;

  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    GstClockTime min, max, ours = 0;
    gboolean live;
    guint held;

    GST_OBJECT_LOCK (self);
    held = priv->use_cuda ? priv->frames_in_flight - 1 : 0;
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

/* Adds to @query a video pool for @caps, keeping at least @min buffers,
 * and its allocator: pinned memory with @pinned (CUDA builds only), else
 * the default allocator's. */
static gboolean
add_pool (GstCfBaseFilter * self, GstQuery * query, GstCaps * caps,
    guint min, gboolean video_meta, gboolean pinned)
{
  GstAllocationParams params;
  GstStructure *config;
  GstAllocator *allocator = NULL;
  GstBufferPool *pool;
  GstVideoInfo info;
  gboolean ok;

  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
#ifdef HAVE_CUDA
  if (pinned)
    allocator = gst_cf_pinned_allocator_new (PRIV (self)->device);
#endif
  gst_allocation_params_init (&params);
  params.align = DEVICE_ROW_ALIGN - 1;
  pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, min, 0);
  gst_buffer_pool_config_set_allocator (config, allocator, &params);
  if (video_meta)
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  ok = gst_buffer_pool_set_config (pool, config);
  if (ok) {
    gst_query_add_allocation_pool (query, pool, info.size, min, 0);
    gst_query_add_allocation_param (query, allocator, &params);
  } else {
    GST_WARNING_OBJECT (self, "pool rejected its configuration");
  }
  gst_object_unref (pool);
  gst_clear_object (&allocator);
  return ok;
}

static gboolean
gst_cf_base_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  /* the parent copies downstream's metas; what it answers does not decide
   * what we offer (a sink without an allocation answer must still get the
   * pinned pool) */
  GST_BASE_TRANSFORM_CLASS (gst_cf_base_filter_parent_class)->
      propose_allocation (trans, decide_query, query);
  if (!gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);

#ifdef HAVE_CUDA
  GstCfBaseFilter *self = GST_CF_BASE_FILTER (trans);

  if (PRIV (self)->use_cuda && gst_query_get_n_allocation_pools (query) == 0) {
    GstCaps *caps;
    guint min;

    gst_query_parse_allocation (query, &caps, NULL);
    GST_OBJECT_LOCK (self);
    min = PRIV (self)->frames_in_flight;
    GST_OBJECT_UNLOCK (self);
    if (!caps || !add_pool (self, query, caps, min, TRUE, TRUE))
      return FALSE;
    GST_DEBUG_OBJECT (self, "proposing a pool of pinned memory");
  }
#endif
  return TRUE;
}

/* When downstream offers no pool, transforms take output buffers from a
 * pool of their own, so nothing is allocated per frame: of pinned memory on
 * CUDA, so downloads run at full speed too. */
static gboolean
gst_cf_base_filter_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstCfBaseFilter *self = GST_CF_BASE_FILTER (trans);
  GstCfBaseFilterPrivate *priv = PRIV (self);
  GstBufferPool *pool = NULL;

  if (GST_CF_BASE_FILTER_GET_CLASS (self)->transform) {
    if (gst_query_get_n_allocation_pools (query) > 0)
      gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
    if (!pool) {
      GstCaps *caps;
      guint min;

      gst_query_parse_allocation (query, &caps, NULL);
      GST_OBJECT_LOCK (self);
      min = priv->frames_in_flight + 1;
      GST_OBJECT_UNLOCK (self);
      GST_DEBUG_OBJECT (self, "downstream offers no pool: using a pool of "
          "%s memory", priv->use_cuda ? "pinned" : "system");
      /* configured here: the parent would replace our allocator */
      while (gst_query_get_n_allocation_pools (query) > 0)
        gst_query_remove_nth_allocation_pool (query, 0);
      while (gst_query_get_n_allocation_params (query) > 0)
        gst_query_remove_nth_allocation_param (query, 0);
      return caps && add_pool (self, query, caps, min,
          gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE,
              NULL), priv->use_cuda);
    }
    gst_object_unref (pool);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cf_base_filter_parent_class)->
      decide_allocation (trans, query);
}

static void
gst_cf_base_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCfBaseFilterPrivate *priv = PRIV (GST_CF_BASE_FILTER (object));

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_BACKEND:
      priv->backend = g_value_get_enum (value);
      break;
    case PROP_CUDA_DEVICE_ID:
      priv->device_id = g_value_get_int (value);
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
      g_value_set_enum (value, priv->backend);
      break;
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, priv->device_id);
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
  free_slots (GST_CF_BASE_FILTER (object));
  G_OBJECT_CLASS (gst_cf_base_filter_parent_class)->finalize (object);
}

/* Never called: basetransform calls transform () only from its own
 * generate_output (), which this class replaces. Installing it is what
 * makes basetransform treat a transform as not always in place, so that
 * it queries downstream for a pool and prepare_output_buffer () takes
 * buffers from the decided pool; without it every output buffer would be a
 * fresh allocation of ordinary memory. */
static GstFlowReturn
gst_cf_base_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GST_ELEMENT_ERROR (trans, CORE, NOT_IMPLEMENTED, (NULL),
      ("frames go through submit_input_buffer () and generate_output ()"));
  return GST_FLOW_NOT_SUPPORTED;
}

void
gst_cf_base_filter_class_set_transform (GstCfBaseFilterClass * klass)
{
  klass->transform = TRUE;
  GST_BASE_TRANSFORM_CLASS (klass)->transform =
      GST_DEBUG_FUNCPTR (gst_cf_base_filter_transform);
}

static void
gst_cf_base_filter_class_init (GstCfBaseFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cf_base_filter_set_property;
  gobject_class->get_property = gst_cf_base_filter_get_property;
  gobject_class->finalize = gst_cf_base_filter_finalize;

  gst_cf_backend_install_properties (gobject_class, PROP_BACKEND,
      PROP_CUDA_DEVICE_ID);
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

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cf_base_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cf_base_filter_stop);
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

  GST_DEBUG_CATEGORY_INIT (gst_cf_base_filter_debug, "cfbasefilter", 0,
      "gst-cudafilters base class");
  gst_type_mark_as_plugin_api (GST_TYPE_CF_BASE_FILTER, 0);
}

static void
gst_cf_base_filter_init (GstCfBaseFilter * self)
{
  GstCfBaseFilterPrivate *priv = PRIV (self);

  priv->backend = GST_CF_DEFAULT_BACKEND;
  priv->device_id = GST_CF_DEFAULT_CUDA_DEVICE_ID;
  priv->frames_in_flight = DEFAULT_FRAMES_IN_FLIGHT;
  priv->format = CF_FORMAT_COUNT;
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
  return PRIV (self)->format;
}

gboolean
gst_cf_base_filter_uses_cuda (GstCfBaseFilter * self)
{
  return PRIV (self)->use_cuda;
}
