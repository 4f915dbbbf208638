#ifndef __GST_CF_STATS_H__
#define __GST_CF_STATS_H__

#include "gstcfbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CF_STATS (gst_cf_stats_get_type ())
G_DECLARE_FINAL_TYPE (GstCfStats, gst_cf_stats, GST, CF_STATS,
    GstCfBaseFilter)

GST_ELEMENT_REGISTER_DECLARE (cudastats);

G_END_DECLS
#endif
