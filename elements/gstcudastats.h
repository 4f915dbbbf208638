#ifndef __GST_CUDA_STATS_H__
#define __GST_CUDA_STATS_H__

#include "gstcfbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_STATS (gst_cuda_stats_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaStats, gst_cuda_stats, GST, CUDA_STATS,
    GstCfBaseFilter)

GST_ELEMENT_REGISTER_DECLARE (cudastats);

G_END_DECLS
#endif
