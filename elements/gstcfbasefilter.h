/* GstCfBaseFilter: what every gst-cudafilters video element shares.
 *
 * Backend choice (auto, cuda, cpu) and the CUDA device; negotiation of the
 * formats of kernels/format.h; a ring of frames in flight, each with its own
 * stream, event, device copy of the frame and pinned staging memory, all
 * allocated at negotiation; a pool of pinned host memory proposed upstream;
 * draining at EOS and before serialized events, discarding at flush; the
 * latency of the frames held reported in the LATENCY query; CUDA errors
 * posted as element errors.
 *
 * A subclass fills in the vfuncs below and sees each frame twice: once to
 * start its work (process_cuda, queued on the frame's stream, or
 * process_cpu, synchronous), and once in order when that work is done
 * (finish), with the buffer it may decorate before it is pushed.
 */
#ifndef __GST_CF_BASE_FILTER_H__
#define __GST_CF_BASE_FILTER_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "format.h"
#include "gstcfbackend.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

G_BEGIN_DECLS


#define GST_TYPE_CF_BASE_FILTER (gst_cf_base_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCfBaseFilter, gst_cf_base_filter, GST,
    CF_BASE_FILTER, GstBaseTransform)

/* The video formats every element of the project accepts, for caps. */
#define GST_CF_VIDEO_FORMATS "{ GRAY8, GRAY16_LE, RGBA, BGRA, RGBx, BGRx, " \
    "ARGB, ABGR, xRGB, xBGR, RGB, BGR, I420, YV12, NV12, NV21, Y444 }"
#define GST_CF_VIDEO_CAPS GST_VIDEO_CAPS_MAKE (GST_CF_VIDEO_FORMATS) \
    ", width = (int) [ 1, 32767 ], height = (int) [ 1, 32767 ]"

/* One frame in flight. */
typedef struct {
  GstBuffer *buffer;            /* the input buffer, held until finished */
  GstBuffer *outbuf;            /* transforms: the output buffer, else NULL */
  gboolean passthrough;         /* the input goes on untouched */
  CfImage d_image;              /* the frame in device memory (CUDA backend) */
  CfImage d_out;                /* transforms: the output frame on the device */
  gpointer user;                /* the subclass's per-frame data (slot_alloc) */
#ifdef HAVE_CUDA
  cudaStream_t stream;
  cudaEvent_t done;             /* recorded after the last copy of the frame */
  void *d_frame;                /* device planes, 16-byte-aligned rows */
  void *h_staging;              /* pinned copy of a non-pinned input */
  void *d_out_frame;            /* transforms: device output planes */
  void *h_out_staging;          /* pinned copy for a non-pinned output */
  gboolean out_staged;          /* the output waits in h_out_staging */
#endif
} GstCfFrameSlot;

struct _GstCfBaseFilterClass {
  GstBaseTransformClass parent_class;

  /* TRUE for elements that write new output buffers (set in class_init
   * with gst_cf_base_filter_class_set_transform ()); FALSE for analysis
   * elements, which push their input buffers. */
  gboolean transform;

  /* Negotiated: called before the frame slots are allocated. */
  gboolean (*set_info) (GstCfBaseFilter * self, const GstVideoInfo * in_info,
      const GstVideoInfo * out_info);

  /* Per-frame resources (device scratch, pinned results), allocated at
   * negotiation for each frame in flight into *@user; @cuda tells the
   * backend. FALSE (with an error posted) when they cannot be had. */
  gboolean (*slot_alloc) (GstCfBaseFilter * self, gboolean cuda,
      gpointer * user);
  void (*slot_free) (GstCfBaseFilter * self, gpointer user, gboolean cuda);

#ifdef HAVE_CUDA
  /* Queue the frame's work on slot->stream; slot->d_image is uploaded (in
   * stream order) and, for transforms, slot->d_out is downloaded after it.
   * Return a CUDA error, posted by the caller. */
  cudaError_t (*process_cuda) (GstCfBaseFilter * self, GstCfFrameSlot * slot);
#endif
  /* Do the frame's work now on the mapped host frame @image, writing @out
   * (transforms; NULL otherwise). */
  gboolean (*process_cpu) (GstCfBaseFilter * self, GstCfFrameSlot * slot,
      const CfImage * image, const CfImage * out);
  /* The frame's work is done: called in order with the writable buffer that
   * will be pushed next (the output buffer of a transform). */
  GstFlowReturn (*finish) (GstCfBaseFilter * self, GstCfFrameSlot * slot,
      GstBuffer * buffer);
};

/* Negotiated input and output, valid from set_caps on. */
/* In a transform's class_init: the element writes new output buffers,
 * taken from downstream's pool or from a pool of its own. */
void gst_cf_base_filter_class_set_transform (GstCfBaseFilterClass * klass);

const GstVideoInfo *gst_cf_base_filter_get_info (GstCfBaseFilter * self);
const GstVideoInfo *gst_cf_base_filter_get_out_info (GstCfBaseFilter * self);
CfFormat gst_cf_base_filter_get_format (GstCfBaseFilter * self);
/* TRUE when frames go through the CUDA backend (decided at start). */
gboolean gst_cf_base_filter_uses_cuda (GstCfBaseFilter * self);
/* Finishes and pushes every frame in flight, in order. */
GstFlowReturn gst_cf_base_filter_drain (GstCfBaseFilter * self);


CfFormat gst_cf_format_from_video_format (GstVideoFormat format);

G_END_DECLS
#endif /* __GST_CF_BASE_FILTER_H__ */
