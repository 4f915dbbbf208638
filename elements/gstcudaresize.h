#ifndef __GST_CF_RESIZE_H__
#define __GST_CF_RESIZE_H__

#include "gstcfbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CF_RESIZE (gst_cf_resize_get_type ())
G_DECLARE_FINAL_TYPE (GstCfResize, gst_cf_resize, GST, CF_RESIZE,
    GstCfBaseFilter)

GST_ELEMENT_REGISTER_DECLARE (cudaresize);

G_END_DECLS
#endif
