/* The per-frame statistics of the elements that compute them (cudastats,
 * cudastatsoverlay): where a frame in flight's CfStats lands, and the
 * workspace of the statistics kernel. Both functions fit GstCfBaseFilter's
 * slot_alloc and slot_free.
 */
#ifndef __GST_CF_STATS_SLOT_H__
#define __GST_CF_STATS_SLOT_H__

#include "gstcfbasefilter.h"
#include "stats.h"

G_BEGIN_DECLS

typedef struct {
  CfStats *h_result;            /* host; page-locked on CUDA */
  CfStats *d_result;            /* device, CUDA only */
  void *d_workspace;            /* cf_stats_cuda ()'s, cleared; CUDA only */
} GstCfStatsSlot;

gboolean gst_cf_stats_slot_alloc (GstCfBaseFilter * base, gboolean cuda,
    gpointer * user);
void gst_cf_stats_slot_free (GstCfBaseFilter * base, gpointer user,
    gboolean cuda);

G_END_DECLS
#endif /* __GST_CF_STATS_SLOT_H__ */
