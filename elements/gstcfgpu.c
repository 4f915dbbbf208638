/* Where an element's GPU work runs (see .h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcfgpu.h"
#include "threads.h"

#include <string.h>

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

G_STATIC_ASSERT (GST_CF_MAP_CUDA == GST_MAP_CUDA);
#endif

GST_DEBUG_CATEGORY_STATIC (gst_cf_gpu_debug);
#define GST_CAT_DEFAULT gst_cf_gpu_debug

GType
gst_cf_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CF_BACKEND_AUTO, "CUDA when a device works, otherwise CPU", "auto"},
    {GST_CF_BACKEND_CUDA, "CUDA (error when no device works)", "cuda"},
    {GST_CF_BACKEND_CPU, "CPU reference code", "cpu"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCfBackend", values);
    gst_type_mark_as_plugin_api (t, 0);
    GST_DEBUG_CATEGORY_INIT (gst_cf_gpu_debug, "cfgpu", 0,
        "gst-cudafilters backend and CUDA context");
    g_once_init_leave (&type, t);
  }
  return type;
}

void
gst_cf_gpu_install_properties (GObjectClass * klass, guint prop_backend,
    guint prop_device_id, guint prop_n_threads)
{
  GType backend_type = GST_TYPE_CF_BACKEND;     /* and the debug category */

  /* backend (on every element of the project, video or audio):
   *
   * Where frames are processed: `auto` uses CUDA when a device works and
   * otherwise the CPU (posting one warning message); `cuda` fails to start
   * without a device; `cpu` always uses the CPU reference code, with frames
   * in system memory. Both backends give identical results.
   */
  g_object_class_install_property (klass, prop_backend,
      g_param_spec_enum ("backend", "Backend",
          "Where frames are processed (both give identical results)",
          backend_type, GST_CF_DEFAULT_BACKEND,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /* cuda-device-id:
   *
   * The CUDA device to use, as nvcodec's elements name it; -1 takes the
   * device of the CUDA context already shared in the pipeline, else the
   * first device. An element asked for a device shares contexts of that
   * device only.
   */
  g_object_class_install_property (klass, prop_device_id,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1 = any)", -1, G_MAXINT,
          GST_CF_DEFAULT_CUDA_DEVICE_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /* n-threads:
   *
   * Threads the CPU backend works on, as videoscale's n-threads: each
   * frame (or audio buffer) is split into bands of rows (ranges of frames)
   * that run at once on threads of a pool the whole process shares, the
   * streaming thread one of them. 0 uses all the cores the process may run
   * on. The output is the same, bit for bit, for every count. The CUDA
   * backend ignores it. Takes effect from the next frame.
   */
  g_object_class_install_property (klass, prop_n_threads,
      g_param_spec_uint ("n-threads", "Threads",
          "Threads of the CPU backend (0 = all cores; the CUDA backend "
          "ignores it)", 0, CF_PARALLEL_MAX_THREADS, GST_CF_DEFAULT_N_THREADS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
}

gint
gst_cf_gpu_n_threads (const GstCfGpu * gpu, GstElement * element)
{
  gint n;

  GST_OBJECT_LOCK (element);
  n = (gint) gpu->n_threads;
  GST_OBJECT_UNLOCK (element);
  return n;
}

void
gst_cf_gpu_init (GstCfGpu * gpu)
{
  memset (gpu, 0, sizeof (*gpu));
  gpu->backend = GST_CF_DEFAULT_BACKEND;
  gpu->device_id = GST_CF_DEFAULT_CUDA_DEVICE_ID;
  gpu->n_threads = GST_CF_DEFAULT_N_THREADS;
}

void
gst_cf_gpu_clear (GstCfGpu * gpu)
{
  gst_clear_object (&gpu->context);
  g_clear_pointer (&gpu->why_not, g_free);
  gpu->cuda = FALSE;
  gpu->device = 0;
}

gboolean
gst_cf_gpu_ok (GstElement * element, CfDeviceError err, const gchar * what,
    const gchar * file, gint line)
{
  if (G_LIKELY (err == CF_DEVICE_OK))
    return TRUE;
  GST_ELEMENT_ERROR_WITH_DETAILS (element, RESOURCE, FAILED,
      ("CUDA error: %s (%s)", cf_device_error_string (err),
          cf_device_error_name (err)), ("%s failed at %s:%d", what, file,
          line), ("cuda-error", G_TYPE_STRING, cf_device_error_name (err),
          NULL));
  return FALSE;
}

#ifdef HAVE_GST_CUDA
static GstCudaContext *
cuda_context (const GstCfGpu * gpu)
{
  return (GstCudaContext *) gpu->context;
}

/* Finds or makes the pipeline's context on @wanted (-1: any device). The
 * neighbours' and the application's answers arrive through set_context,
 * into gpu->context, which gst_cuda_ensure_element_context () watches. */
static gboolean
ensure_context (GstCfGpu * gpu, GstElement * element, gint wanted,
    gchar ** why)
{
  guint device = 0;

  /* GStreamer's CUDA library finds the driver only when asked to */
  if (!gst_cuda_load_library ()) {
    *why = g_strdup ("GStreamer's CUDA library could not load the CUDA "
        "driver (libcuda)");
    return FALSE;
  }
  gst_cuda_memory_init_once ();
  if (!gst_cuda_ensure_element_context (element, wanted,
          (GstCudaContext **) & gpu->context)) {
    *why = g_strdup_printf ("could not make a CUDA context on device %d",
        MAX (wanted, 0));
    return FALSE;
  }
  g_object_get (gpu->context, "cuda-device-id", &device, NULL);
  gpu->device = device;
  GST_INFO_OBJECT (element, "CUDA context %" GST_PTR_FORMAT " on device %u",
      gpu->context, device);
  return TRUE;
}
#else
static gboolean
ensure_context (GstCfGpu * gpu, GstElement * element, gint wanted,
    gchar ** why)
{
  CfDeviceError err;

  gpu->device = MAX (wanted, 0);
  if ((err = cf_device_use (gpu->device)) != CF_DEVICE_OK) {
    *why = g_strdup_printf ("CUDA device %d does not work: %s", gpu->device,
        cf_device_error_string (err));
    return FALSE;
  }
  return TRUE;
}
#endif

gboolean
gst_cf_gpu_start (GstCfGpu * gpu, GstElement * element)
{
  GstCfBackend backend;
  CfDeviceError err = CF_DEVICE_OK;
  gchar *why = NULL;
  gint wanted, n;

  GST_OBJECT_LOCK (element);
  backend = gpu->backend;
  wanted = gpu->device_id;
  GST_OBJECT_UNLOCK (element);

  g_clear_pointer (&gpu->why_not, g_free);
  gpu->cuda = FALSE;
  if (backend == GST_CF_BACKEND_CPU) {
    gst_clear_object (&gpu->context);
    gpu->why_not = g_strdup ("backend=cpu");
    return TRUE;
  }
  n = cf_device_count (&err);
  if (n == 0)
    why = g_strdup_printf ("no CUDA device: %s", cf_device_error_string (err));
  else if (wanted >= n)
    why = g_strdup_printf ("cuda-device-id %d, but only %d device(s)",
        wanted, n);
  if (!why && ensure_context (gpu, element, wanted, &why)) {
    gpu->cuda = TRUE;
    GST_INFO_OBJECT (element, "CUDA backend on device %d", gpu->device);
    return TRUE;
  }

  gpu->why_not = why;
  if (backend == GST_CF_BACKEND_CUDA) {
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("No usable CUDA device for backend=cuda"), ("%s", why));
    return FALSE;
  }
  GST_ELEMENT_WARNING (element, RESOURCE, NOT_FOUND,
      ("No usable CUDA device, using the CPU backend"), ("%s", why));
  return TRUE;
}

void
gst_cf_gpu_set_context (GstCfGpu * gpu, GstElement * element,
    GstContext * context)
{
#ifdef HAVE_GST_CUDA
  gint device_id;

  GST_OBJECT_LOCK (element);
  device_id = gpu->device_id;
  GST_OBJECT_UNLOCK (element);
  /* keeps a context it has; takes one of the wanted device. As nvcodec's
   * elements, unlocked: the state change that starts the element (and
   * gst_cuda_ensure_element_context ()) is the one to look at it. */
  gst_cuda_handle_set_context (element, context, device_id,
      (GstCudaContext **) & gpu->context);
#endif
}

gboolean
gst_cf_gpu_query_context (GstCfGpu * gpu, GstElement * element,
    GstQuery * query)
{
#ifdef HAVE_GST_CUDA
  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT || !gpu->cuda)
    return FALSE;
  return gst_cuda_handle_context_query (element, query, cuda_context (gpu));
#else
  return FALSE;
#endif
}

gboolean
gst_cf_gpu_push (GstCfGpu * gpu, GstElement * element)
{
#ifdef HAVE_GST_CUDA
  if (gpu->context && gst_cuda_context_push (cuda_context (gpu)))
    return TRUE;
  if (element)
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED,
        ("Could not make the CUDA context current"), ("device %d",
            gpu->device));
  return FALSE;
#else
  CfDeviceError err = cf_device_use (gpu->device);

  return !element ? err == CF_DEVICE_OK : GST_CF_OK (element, err);
#endif
}

void
gst_cf_gpu_pop (GstCfGpu * gpu)
{
#ifdef HAVE_GST_CUDA
  gst_cuda_context_pop (NULL);
#endif
}

gboolean
gst_cf_gpu_has_cuda_memory (const GstCfGpu * gpu, const gchar ** why)
{
#ifdef HAVE_GST_CUDA
  if (gpu->cuda)
    return TRUE;
  if (why)
    *why = gpu->why_not ? gpu->why_not : "the element has not started";
#else
  if (why)
    *why = "this build has no GStreamer CUDA library (gstreamer-cuda-1.0)";
#endif
  return FALSE;
}

#ifdef HAVE_GST_CUDA
static gboolean
same_context (const GstCfGpu * gpu, GstCudaContext * other)
{
  return gpu->cuda && gpu->context && other &&
      gst_cuda_context_get_handle (other) ==
      gst_cuda_context_get_handle (cuda_context (gpu));
}
#endif

gboolean
gst_cf_gpu_owns_memory (const GstCfGpu * gpu, GstMemory * mem)
{
#ifdef HAVE_GST_CUDA
  return gst_is_cuda_memory (mem) &&
      same_context (gpu, GST_CUDA_MEMORY_CAST (mem)->context);
#else
  return FALSE;
#endif
}

GstBufferPool *
gst_cf_gpu_cuda_pool_new (const GstCfGpu * gpu)
{
#ifdef HAVE_GST_CUDA
  if (gpu->cuda && gpu->context)
    return gst_cuda_buffer_pool_new (cuda_context (gpu));
#endif
  return NULL;
}

gboolean
gst_cf_gpu_is_own_pool (const GstCfGpu * gpu, GstBufferPool * pool)
{
#ifdef HAVE_GST_CUDA
  return GST_IS_CUDA_BUFFER_POOL (pool) &&
      same_context (gpu, GST_CUDA_BUFFER_POOL (pool)->context);
#else
  return FALSE;
#endif
}

GstCfGpu *
gst_cf_gpu_copy (const GstCfGpu * gpu)
{
  GstCfGpu *copy = g_new0 (GstCfGpu, 1);

  copy->backend = gpu->backend;
  copy->device_id = gpu->device_id;
  copy->cuda = gpu->cuda;
  copy->device = gpu->device;
  if (gpu->context)
    copy->context = gst_object_ref (gpu->context);
  return copy;
}
