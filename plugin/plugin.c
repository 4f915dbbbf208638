/* gst-cudafilters: registration only. The elements load and work (on the
 * CPU backend) where there is no GPU or driver; each says so when started. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "gstcudaaudiofir.h"
#include "gstcudaresize.h"
#include "gstcudastats.h"
#include "gstcudastatsoverlay.h"
#include "gstcudastencil.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (cudastats, plugin);
  ret |= GST_ELEMENT_REGISTER (cudastatsoverlay, plugin);
  ret |= GST_ELEMENT_REGISTER (cudaresize, plugin);
  ret |= GST_ELEMENT_REGISTER (cudastencil, plugin);
  ret |= GST_ELEMENT_REGISTER (cudaaudiofir, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudafilters,
    "CUDA kernels for video and signals, each with a bit-exact CPU backend",
    plugin_init, VERSION, "LGPL", GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
