#ifndef __GST_CUDA_RESIZE_H__
#define __GST_CUDA_RESIZE_H__

#include "gstcfbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_RESIZE (gst_cuda_resize_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaResize, gst_cuda_resize, GST, CUDA_RESIZE,
    GstCfBaseFilter)

GST_ELEMENT_REGISTER_DECLARE (cudaresize);

G_END_DECLS
#endif
