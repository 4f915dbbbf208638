/* The backend choice every gst-cudafilters element shares (see .h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcfbackend.h"

GST_DEBUG_CATEGORY_STATIC (gst_cf_backend_debug);
#define GST_CAT_DEFAULT gst_cf_backend_debug

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
    GST_DEBUG_CATEGORY_INIT (gst_cf_backend_debug, "cfbackend", 0,
        "gst-cudafilters backend choice");
    g_once_init_leave (&type, t);
  }
  return type;
}

void
gst_cf_backend_install_properties (GObjectClass * klass, guint prop_backend,
    guint prop_device_id)
{
  GType backend_type = GST_TYPE_CF_BACKEND;     /* and the debug category */

  /* backend (on every element of the project, video or audio):
   *
   * Where frames are processed: `auto` uses CUDA when a device works and
   * otherwise the CPU (posting one warning message); `cuda` fails to start
   * without a device; `cpu` always uses the CPU reference code. Both
   * backends give identical results.
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
   * first device.
   */
  g_object_class_install_property (klass, prop_device_id,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1 = any)", -1, G_MAXINT,
          GST_CF_DEFAULT_CUDA_DEVICE_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
}

#ifdef HAVE_CUDA
gboolean
gst_cf_cuda_ok (GstElement * element, cudaError_t err, const gchar * what,
    const gchar * file, gint line)
{
  if (G_LIKELY (err == cudaSuccess))
    return TRUE;
  GST_ELEMENT_ERROR_WITH_DETAILS (element, RESOURCE, FAILED,
      ("CUDA error: %s (%s)", cudaGetErrorString (err),
          cudaGetErrorName (err)), ("%s failed at %s:%d", what, file, line),
      ("cuda-error", G_TYPE_STRING, cudaGetErrorName (err), NULL));
  return FALSE;
}

/* Picks the device for backend auto/cuda. FALSE with *why set when none
 * works. */
static gboolean
find_device (gint wanted, gint * device, gchar ** why)
{
  int n = 0;
  cudaError_t err = cudaGetDeviceCount (&n);

  if (err != cudaSuccess || n < 1) {
    *why = g_strdup_printf ("no CUDA device: %s", err != cudaSuccess ?
        cudaGetErrorString (err) : "none found");
    return FALSE;
  }
  if (wanted >= n) {
    *why = g_strdup_printf ("cuda-device-id %d, but only %d device(s)",
        wanted, n);
    return FALSE;
  }
  *device = MAX (wanted, 0);
  /* a context must really come up, not just a device be listed */
  if ((err = cudaSetDevice (*device)) != cudaSuccess ||
      (err = cudaFree (NULL)) != cudaSuccess) {
    *why = g_strdup_printf ("CUDA device %d does not work: %s", *device,
        cudaGetErrorString (err));
    return FALSE;
  }
  return TRUE;
}
#endif

gboolean
gst_cf_backend_choose (GstElement * element, GstCfBackend backend,
    gint device_id, gboolean * use_cuda, gint * device)
{
  gchar *why = NULL;

  *use_cuda = FALSE;
  *device = 0;
  if (backend == GST_CF_BACKEND_CPU)
    return TRUE;
#ifdef HAVE_CUDA
  if (find_device (device_id, device, &why)) {
    *use_cuda = TRUE;
    GST_INFO_OBJECT (element, "CUDA backend on device %d", *device);
    return TRUE;
  }
#else
  (void) device_id;
  why = g_strdup ("this build has no CUDA backend");
#endif
  if (backend == GST_CF_BACKEND_CUDA) {
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("No usable CUDA device for backend=cuda"), ("%s", why));
    g_free (why);
    return FALSE;
  }
  GST_ELEMENT_WARNING (element, RESOURCE, NOT_FOUND,
      ("No usable CUDA device, using the CPU backend"), ("%s", why));
  g_free (why);
  return TRUE;
}
