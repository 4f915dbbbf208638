/* GstCfStatsMeta: the statistics cudastats computed for a buffer.
 *
 * cudastats attaches one to every buffer it analyses, so that downstream
 * elements (cudastatsoverlay) and applications read the numbers without the
 * bus. It carries the frame's statistics in the layout of kernels/stats.h:
 * per channel (R, G, B, A / Y, U, V / gray, in that order for every format
 * of a family) the 256-bin histogram, min, max, sample count, and exact sum
 * and sum of squares; mean and variance come from
 * gst_cf_stats_meta_get_mean () / _get_variance ().
 *
 * The meta is tagged "video", "colorspace" and "size": elements that change
 * the picture's content, colours or size drop it, as its numbers would no
 * longer describe the buffer.
 *
 * From an application without this header the API type is
 * g_type_from_name ("GstCfStatsMetaAPI").
 */
#ifndef __GST_CF_STATS_META_H__
#define __GST_CF_STATS_META_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "stats.h"

G_BEGIN_DECLS

#define GST_CF_STATS_META_API_TYPE (gst_cf_stats_meta_api_get_type ())
#define GST_CF_STATS_META_INFO (gst_cf_stats_meta_get_info ())

typedef struct {
  GstMeta meta;
  GstVideoFormat format;        /* format of the analysed frame */
  CfStats stats;
} GstCfStatsMeta;

GType gst_cf_stats_meta_api_get_type (void);
const GstMetaInfo *gst_cf_stats_meta_get_info (void);

GstCfStatsMeta *gst_buffer_add_cf_stats_meta (GstBuffer * buffer,
    GstVideoFormat format, const CfStats * stats);
#define gst_buffer_get_cf_stats_meta(b) \
  ((GstCfStatsMeta *) gst_buffer_get_meta ((b), GST_CF_STATS_META_API_TYPE))

/* "R", "G", "B", "A", "Y", "U", "V" or "gray"; NULL past the last channel. */
const gchar *gst_cf_stats_meta_get_channel_name (const GstCfStatsMeta *
    meta, guint channel);
gdouble gst_cf_stats_meta_get_mean (const GstCfStatsMeta * meta,
    guint channel);
gdouble gst_cf_stats_meta_get_variance (const GstCfStatsMeta * meta,
    guint channel);

G_END_DECLS
#endif /* __GST_CF_STATS_META_H__ */
