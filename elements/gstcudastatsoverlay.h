#ifndef __GST_CF_STATS_OVERLAY_H__
#define __GST_CF_STATS_OVERLAY_H__

#include "gstcfbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CF_STATS_OVERLAY (gst_cf_stats_overlay_get_type ())
G_DECLARE_FINAL_TYPE (GstCfStatsOverlay, gst_cf_stats_overlay, GST,
    CF_STATS_OVERLAY, GstCfBaseFilter)

GST_ELEMENT_REGISTER_DECLARE (cudastatsoverlay);

G_END_DECLS
#endif
