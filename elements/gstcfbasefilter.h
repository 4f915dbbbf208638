/* GstCfBaseFilter: what every gst-cudafilters video element shares.
 *
 * Backend choice, the CUDA context and the CPU backend's threads
 * (GstCfGpu: the `backend`, `cuda-device-id` and `n-threads` properties);
 * negotiation of the formats of kernels/format.h in system memory and, on
 * CUDA, in CUDA memory (memory:CUDAMemory, offered first); a ring of
 * frames in flight, each with its own stream; moving frames between the
 * memories the caps name and the device (uploads from system memory,
 * downloads to it, CUDA memory used in place); pools (page-locked system
 * memory proposed upstream and used for system-memory output,
 * GstCudaBufferPool for CUDA memory); draining at EOS and before
 * serialized events, discarding at flush; the latency of the frames held
 * reported in the LATENCY query; CUDA errors posted as element errors.
 *
 * A subclass is of one kind (gst_cf_base_filter_class_set_kind ()) and
 * sees each frame twice: once to start its work (process_cuda, queued on
 * the frame's stream, or process_cpu, synchronous), and once in order when
 * that work is done (finish), with the buffer it may decorate before it is
 * pushed.
 */
#ifndef __GST_CF_BASE_FILTER_H__
#define __GST_CF_BASE_FILTER_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "device.h"
#include "format.h"
#include "gstcfgpu.h"

G_BEGIN_DECLS

#define GST_TYPE_CF_BASE_FILTER (gst_cf_base_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCfBaseFilter, gst_cf_base_filter, GST,
    CF_BASE_FILTER, GstBaseTransform)

/* The video formats every element of the project accepts in system memory
 * (the 8-bit ones first, so that negotiation prefers them as before), and
 * those GStreamer 1.22's CUDA memory can hold (its allocator has no layout
 * for GRAY8, GRAY16_LE, xRGB, xBGR, RGBA64_LE and BGRA64_LE: it would
 * abort). */
#define GST_CF_VIDEO_FORMATS "{ GRAY8, GRAY16_LE, RGBA, BGRA, RGBx, BGRx, " \
    "ARGB, ABGR, xRGB, xBGR, RGB, BGR, I420, YV12, NV12, NV21, Y444, " \
    "Y42B, I420_10LE, P010_10LE, P016_LE, Y444_16LE, RGBA64_LE, " \
    "BGRA64_LE, YUY2, UYVY }"
#define GST_CF_CUDA_FORMATS "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, RGB, " \
    "BGR, I420, YV12, NV12, NV21, Y444, Y42B, I420_10LE, P010_10LE, " \
    "P016_LE, Y444_16LE, YUY2, UYVY }"
#define GST_CF_VIDEO_SIZES \
    ", width = (int) [ 1, 32767 ], height = (int) [ 1, 32767 ]"
/* The pad templates: CUDA memory first (in builds with GStreamer's CUDA
 * library), then system memory. */
#define GST_CF_SYSTEM_MEMORY_CAPS \
    GST_VIDEO_CAPS_MAKE (GST_CF_VIDEO_FORMATS) GST_CF_VIDEO_SIZES
#ifdef HAVE_GST_CUDA
#define GST_CF_VIDEO_CAPS \
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CF_CAPS_FEATURE_CUDA_MEMORY, \
        GST_CF_CUDA_FORMATS) GST_CF_VIDEO_SIZES "; " GST_CF_SYSTEM_MEMORY_CAPS
#else
#define GST_CF_VIDEO_CAPS GST_CF_SYSTEM_MEMORY_CAPS
#endif

typedef enum {
  /* reads the frame, which goes on (cudastats) */
  GST_CF_FILTER_ANALYSE,
  /* changes the frame where it is (cudastatsoverlay) */
  GST_CF_FILTER_DRAW,
  /* writes a new frame of the output caps (cudaresize, cudastencil) */
  GST_CF_FILTER_TRANSFORM,
} GstCfFilterKind;

/* One frame in flight. The fields a subclass reads come first. */
typedef struct {
  GstBuffer *buffer;            /* the input buffer, held until finished */
  gpointer user;                /* the subclass's per-frame data (slot_alloc) */
  /* CUDA: the frame on the device, where process_cuda reads it (and, for
   * DRAW, writes it); for TRANSFORM the output frame on the device */
  CfImage d_image;
  CfImage d_out;
  CfStream *stream;             /* CUDA: the stream the frame's work goes on */
  /* CUDA: the subclass's device scratch for this frame (a kernel's
   * workspace), grown by its process_cuda (cf_grow_buffer_reserve ()) */
  CfGrowBuffer d_workspace;

  /* the base class's own */
  GstBuffer *outbuf;            /* pushed instead of @buffer, when set */
  gboolean passthrough;         /* @buffer goes on untouched */
  GstVideoFrame in_frame, out_frame;    /* maps held while in flight */
  gboolean in_mapped, out_mapped;
  gboolean download;            /* CUDA: the frame comes back to out_frame */
  gboolean out_pinned;
  CfGrowBuffer d_frame;         /* CUDA: device copy of the input frame */
  CfGrowBuffer d_out_frame;     /* CUDA: device output frame (TRANSFORM) */
  CfGrowBuffer staging;         /* CUDA: page-locked copy of the input */
  CfGrowBuffer out_staging;     /* CUDA: page-locked copy of the output */
  /* packed 4:2:2: the planar frames the subclass works on */
  CfGrowBuffer d_planar, d_planar_out;  /* CUDA */
  gpointer planar, planar_out;  /* CPU */
  gsize planar_size, planar_out_size;
} GstCfFrameSlot;

struct _GstCfBaseFilterClass {
  GstBaseTransformClass parent_class;

  GstCfFilterKind kind;

  /* Negotiated: called before the frame slots are allocated, with the
   * element's CUDA context current on the CUDA backend. */
  gboolean (*set_info) (GstCfBaseFilter * self, const GstVideoInfo * in_info,
      const GstVideoInfo * out_info);

  /* Per-frame resources (device scratch, pinned results), allocated at
   * negotiation for each frame in flight into *@user; @cuda tells the
   * backend (its context is current). FALSE (with an error posted) when
   * they cannot be had. */
  gboolean (*slot_alloc) (GstCfBaseFilter * self, gboolean cuda,
      gpointer * user);
  void (*slot_free) (GstCfBaseFilter * self, gpointer user, gboolean cuda);

  /* Queue the frame's work on slot->stream: read slot->d_image (DRAW: draw
   * on it; TRANSFORM: write slot->d_out). What comes before and after is
   * the base class's. Return a CUDA error, posted by the caller. */
  CfDeviceError (*process_cuda) (GstCfBaseFilter * self,
      GstCfFrameSlot * slot);
  /* Do the frame's work now on the mapped host frame @image (DRAW: a
   * writable one), writing @out (TRANSFORM; NULL otherwise). */
  gboolean (*process_cpu) (GstCfBaseFilter * self, GstCfFrameSlot * slot,
      const CfImage * image, const CfImage * out);
  /* The frame's work is done: called in order with the writable buffer that
   * will be pushed next. */
  GstFlowReturn (*finish) (GstCfBaseFilter * self, GstCfFrameSlot * slot,
      GstBuffer * buffer);
};

/* In class_init: what the element does with frames (default ANALYSE). */
void gst_cf_base_filter_class_set_kind (GstCfBaseFilterClass * klass,
    GstCfFilterKind kind);

/* Negotiated input and output, valid from set_caps on. */
const GstVideoInfo *gst_cf_base_filter_get_info (GstCfBaseFilter * self);
const GstVideoInfo *gst_cf_base_filter_get_out_info (GstCfBaseFilter * self);
/* The format the subclass's kernels work on: the negotiated one, except
 * for packed 4:2:2 (YUY2, UYVY), whose frames the subclass sees as their
 * planar twin (Y42B, cf_packed_planar ()): the base class unpacks them
 * before process_cuda/process_cpu and packs what was written after. */
CfFormat gst_cf_base_filter_get_format (GstCfBaseFilter * self);
/* TRUE when frames go through the CUDA backend (decided at start). */
gboolean gst_cf_base_filter_uses_cuda (GstCfBaseFilter * self);
/* The element's GPU: push it around CUDA calls made outside the vfuncs
 * above (which run with it current). */
GstCfGpu *gst_cf_base_filter_get_gpu (GstCfBaseFilter * self);
/* For process_cpu: the threads the frame's work may use, from the
 * `n-threads` property (0: all the cores), for the kernels' _threads
 * functions. */
gint gst_cf_base_filter_get_n_threads (GstCfBaseFilter * self);
/* Finishes and pushes every frame in flight, in order. */
GstFlowReturn gst_cf_base_filter_drain (GstCfBaseFilter * self);

/* For a subclass's transform_caps: @caps (fields already transformed) in
 * CUDA memory and in system memory, in the order this element prefers,
 * intersected with @filter. Takes @caps. */
GstCaps *gst_cf_base_filter_caps_in_memories (GstCfBaseFilter * self,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);

/* For a subclass's fixate_caps: @caps (taken) with CUDA memory first when
 * the element works in it, as the base class fixates. */
GstCaps *gst_cf_base_filter_prefer_memory (GstCfBaseFilter * self,
    GstCaps * caps);

CfFormat gst_cf_format_from_video_format (GstVideoFormat format);

G_END_DECLS
#endif /* __GST_CF_BASE_FILTER_H__ */
