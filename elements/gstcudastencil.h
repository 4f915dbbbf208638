#ifndef __GST_CF_STENCIL_H__
#define __GST_CF_STENCIL_H__

#include "gstcfbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CF_STENCIL (gst_cf_stencil_get_type ())
G_DECLARE_FINAL_TYPE (GstCfStencil, gst_cf_stencil, GST, CF_STENCIL,
    GstCfBaseFilter)

GST_ELEMENT_REGISTER_DECLARE (cudastencil);

G_END_DECLS
#endif
