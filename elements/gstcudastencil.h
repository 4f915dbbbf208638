#ifndef __GST_CUDA_STENCIL_H__
#define __GST_CUDA_STENCIL_H__

#include "gstcfbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_STENCIL (gst_cuda_stencil_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaStencil, gst_cuda_stencil, GST, CUDA_STENCIL,
    GstCfBaseFilter)

GST_ELEMENT_REGISTER_DECLARE (cudastencil);

G_END_DECLS
#endif
