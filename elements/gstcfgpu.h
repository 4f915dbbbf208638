/* GstCfGpu: where an element's GPU work runs, for every gst-cudafilters
 * element, video or audio. The GStreamer side of kernels/device.h:
 *
 * - the `backend`, `cuda-device-id` and `n-threads` (the CPU backend's
 *   threads, kernels/threads.h) properties, and the choice at start:
 *   CUDA when a device works (`auto` falls back to the CPU with one
 *   warning, `cuda` fails with an error naming the cause);
 * - the CUDA context. In builds with GStreamer's CUDA library
 *   (HAVE_GST_CUDA) it is the GstCudaContext shared in the pipeline through
 *   GstContext, with nvcodec's elements and between ours: found in a
 *   neighbour or the application at start, or made and announced then.
 *   GStreamer 1.22 makes its own CUcontext (not the runtime's primary one),
 *   and the CUDA runtime works in whichever context is current on the
 *   thread, so every CUDA call of an element runs between
 *   gst_cf_gpu_push () and gst_cf_gpu_pop (); streams, events and device
 *   memory are made inside it. Without that library the context is the
 *   device's primary one, made current the same way;
 * - CUDA memory (memory:CUDAMemory): whether this run can take and give it,
 *   whether a memory belongs to the element's context, and pools of it;
 * - CUDA errors posted as element errors.
 */
#ifndef __GST_CF_GPU_H__
#define __GST_CF_GPU_H__

#include <gst/gst.h>

#include "device.h"

G_BEGIN_DECLS

#define GST_TYPE_CF_BACKEND (gst_cf_backend_get_type ())
typedef enum {
  GST_CF_BACKEND_AUTO,
  GST_CF_BACKEND_CUDA,
  GST_CF_BACKEND_CPU,
} GstCfBackend;
GType gst_cf_backend_get_type (void);

#define GST_CF_DEFAULT_BACKEND GST_CF_BACKEND_AUTO
#define GST_CF_DEFAULT_CUDA_DEVICE_ID -1
/* all the cores */
#define GST_CF_DEFAULT_N_THREADS 0

/* The caps feature of frames in CUDA memory, and the map flag that gives
 * their device pointers (GStreamer's GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY
 * and GST_MAP_CUDA, here in every build). */
#define GST_CF_CAPS_FEATURE_CUDA_MEMORY "memory:CUDAMemory"
#define GST_CF_MAP_CUDA (GST_MAP_FLAG_LAST << 1)

typedef struct {
  /* the properties, under the element's object lock */
  GstCfBackend backend;
  gint device_id;
  guint n_threads;              /* the CPU backend's; 0: all the cores */

  /* from start to stop */
  gboolean cuda;                /* CUDA chosen */
  gint device;                  /* its device */
  GstObject *context;           /* the shared GstCudaContext, or NULL */
  gchar *why_not;               /* why CUDA is not used */
} GstCfGpu;

/* Installs `backend` and `cuda-device-id` (both mutable in READY) and
 * `n-threads` (mutable in PLAYING) as properties @prop_backend,
 * @prop_device_id and @prop_n_threads of @klass. */
void gst_cf_gpu_install_properties (GObjectClass * klass, guint prop_backend,
    guint prop_device_id, guint prop_n_threads);
/* The threads the CPU backend's next frame (or buffer) runs on, from
 * `n-threads` (read under @element's object lock): 0 means all the
 * cores, as for the kernels' _threads functions. */
gint gst_cf_gpu_n_threads (const GstCfGpu * gpu, GstElement * element);
void gst_cf_gpu_init (GstCfGpu * gpu);
/* Drops the context and the state of a start. */
void gst_cf_gpu_clear (GstCfGpu * gpu);

/* At start: decides the backend for the properties (read under the
 * object lock) and on CUDA finds or makes the context. FALSE, with an
 * error posted, only for backend=cuda without a working device. */
gboolean gst_cf_gpu_start (GstCfGpu * gpu, GstElement * element);

/* GstElement::set_context and the CONTEXT query (TRUE when answered): the
 * element's share of the pipeline's GstCudaContext. */
void gst_cf_gpu_set_context (GstCfGpu * gpu, GstElement * element,
    GstContext * context);
gboolean gst_cf_gpu_query_context (GstCfGpu * gpu, GstElement * element,
    GstQuery * query);

/* Makes the element's CUDA context current on the calling thread (FALSE,
 * with an error posted when @element is not NULL, when it cannot), and
 * makes it no longer current. Pairs nest. */
gboolean gst_cf_gpu_push (GstCfGpu * gpu, GstElement * element);
void gst_cf_gpu_pop (GstCfGpu * gpu);

/* TRUE when this build and this start can take and give CUDA memory (the
 * CUDA backend, with GStreamer's CUDA library); otherwise *@why (when not
 * NULL) says why not, for messages. */
gboolean gst_cf_gpu_has_cuda_memory (const GstCfGpu * gpu, const gchar ** why);
/* TRUE when @mem is CUDA memory of the element's context: its device
 * pointer may be used as it is. */
gboolean gst_cf_gpu_owns_memory (const GstCfGpu * gpu, GstMemory * mem);
/* A GstCudaBufferPool of the element's context (NULL without CUDA memory),
 * or TRUE when @pool is one. */
GstBufferPool *gst_cf_gpu_cuda_pool_new (const GstCfGpu * gpu);
gboolean gst_cf_gpu_is_own_pool (const GstCfGpu * gpu, GstBufferPool * pool);

/* A copy for an object that allocates on other threads (the pinned
 * allocator): it pushes the same context. Free with gst_cf_gpu_clear () and
 * g_free (). */
GstCfGpu *gst_cf_gpu_copy (const GstCfGpu * gpu);

/* Posts a GST_ELEMENT_ERROR naming the CUDA error and returns FALSE when
 * @err is not CF_DEVICE_OK. */
gboolean gst_cf_gpu_ok (GstElement * element, CfDeviceError err,
    const gchar * what, const gchar * file, gint line);
#define GST_CF_OK(self, call) \
  gst_cf_gpu_ok (GST_ELEMENT (self), (call), #call, __FILE__, __LINE__)

G_END_DECLS
#endif /* __GST_CF_GPU_H__ */
