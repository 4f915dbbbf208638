/* The backend choice every gst-cudafilters element shares, video or audio:
 * the `backend` and `cuda-device-id` properties, picking a working CUDA
 * device at start (or falling back to the CPU with one warning), and CUDA
 * errors posted as element errors.
 */
#ifndef __GST_CF_BACKEND_H__
#define __GST_CF_BACKEND_H__

#include <gst/gst.h>

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

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

/* Installs `backend` and `cuda-device-id` (both mutable in READY) as
 * properties @prop_backend and @prop_device_id of @klass. */
void gst_cf_backend_install_properties (GObjectClass * klass,
    guint prop_backend, guint prop_device_id);

/* At start: decides whether @element runs on CUDA (*@use_cuda, on device
 * *@device) for @backend and @device_id (-1: the first device). `auto`
 * without a working device posts a warning and picks the CPU; `cuda`
 * without one posts an error and returns FALSE. */
gboolean gst_cf_backend_choose (GstElement * element, GstCfBackend backend,
    gint device_id, gboolean * use_cuda, gint * device);

#ifdef HAVE_CUDA
/* Posts a GST_ELEMENT_ERROR naming the CUDA error and returns FALSE when
 * @err is not cudaSuccess. */
gboolean gst_cf_cuda_ok (GstElement * element, cudaError_t err,
    const gchar * what, const gchar * file, gint line);
#define GST_CF_CUDA_OK(self, call) \
  gst_cf_cuda_ok (GST_ELEMENT (self), (call), #call, __FILE__, __LINE__)
#endif

G_END_DECLS
#endif /* __GST_CF_BACKEND_H__ */
