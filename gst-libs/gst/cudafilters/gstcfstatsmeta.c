/* GstCfStatsMeta: see gstcfstatsmeta.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcfstatsmeta.h"

/* the kernel library's CfStats (kernels/stats.h): the same layout, and its
 * exact mean and variance */
#include "stats.h"

#include <stddef.h>
#include <string.h>

/* GstCfFrameStats is the public spelling of the kernels' CfStats: the plugin
 * copies one into the other, so every field must be where the other has
 * it. */
#define SAME_FIELD(f) G_STATIC_ASSERT (offsetof (GstCfFrameStats, f) == \
    offsetof (CfStats, f) && sizeof (((GstCfFrameStats *) 0)->f) == \
    sizeof (((CfStats *) 0)->f))
G_STATIC_ASSERT (sizeof (GstCfFrameStats) == sizeof (CfStats));
G_STATIC_ASSERT (GST_CF_STATS_MAX_CHANNELS == CF_MAX_CHANNELS);
G_STATIC_ASSERT (GST_CF_STATS_BINS == CF_STATS_BINS);
SAME_FIELD (n_channels);
SAME_FIELD (min);
SAME_FIELD (max);
SAME_FIELD (reserved);
SAME_FIELD (count);
SAME_FIELD (sum);
SAME_FIELD (sum_sq);
SAME_FIELD (histogram);

GType
gst_cf_stats_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_COLORSPACE_STR, GST_META_TAG_VIDEO_SIZE_STR, NULL
  };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstCfStatsMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstCfStatsMeta *m = (GstCfStatsMeta *) meta;

  m->version = GST_CF_STATS_META_VERSION;
  m->format = GST_VIDEO_FORMAT_UNKNOWN;
  memset (&m->stats, 0, sizeof (m->stats));
  return TRUE;
}

static gboolean
meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  GstCfStatsMeta *m = (GstCfStatsMeta *) meta;

  /* a copy of the buffer describes the same picture; anything else
   * (scaling, conversion) would make the numbers wrong */
  if (GST_META_TRANSFORM_IS_COPY (type))
    return gst_buffer_add_cf_stats_meta (dest, m->format, &m->stats) != NULL;
  return FALSE;
}

const GstMetaInfo *
gst_cf_stats_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_CF_STATS_META_API_TYPE,
        "GstCfStatsMeta", sizeof (GstCfStatsMeta), meta_init, NULL,
        meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

GstCfStatsMeta *
gst_buffer_add_cf_stats_meta (GstBuffer * buffer, GstVideoFormat format,
    const GstCfFrameStats * stats)
{
  GstCfStatsMeta *m;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (stats != NULL, NULL);
  g_return_val_if_fail (stats->n_channels >= 1
      && stats->n_channels <= GST_CF_STATS_MAX_CHANNELS, NULL);
  m = (GstCfStatsMeta *) gst_buffer_add_meta (buffer,
      GST_CF_STATS_META_INFO, NULL);
  if (m) {
    m->format = format;
    m->stats = *stats;
  }
  return m;
}

GstCfStatsMeta *
gst_buffer_get_cf_stats_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  return (GstCfStatsMeta *) gst_buffer_get_meta (buffer,
      GST_CF_STATS_META_API_TYPE);
}

guint
gst_cf_stats_meta_get_n_channels (const GstCfStatsMeta * meta)
{
  g_return_val_if_fail (meta != NULL, 0);
  return meta->stats.n_channels;
}

/* The channels are named from GStreamer's description of the format: the
 * kernels count R, G, B (and A when the format has it) for the RGB family,
 * Y, U, V for YUV, one channel for gray (format.h), the same order. */
const gchar *
gst_cf_stats_meta_get_channel_name (const GstCfStatsMeta * meta,
    guint channel)
{
  static const gchar *const rgb[] = { "R", "G", "B", "A" };
  static const gchar *const yuv[] = { "Y", "U", "V", "A" };
  const GstVideoFormatInfo *finfo;

  g_return_val_if_fail (meta != NULL, NULL);
  finfo = gst_video_format_get_info (meta->format);
  if (!finfo || channel >= meta->stats.n_channels)
    return NULL;
  if (GST_VIDEO_FORMAT_INFO_IS_GRAY (finfo))
    return channel == 0 ? "gray" : NULL;
  if (GST_VIDEO_FORMAT_INFO_IS_YUV (finfo))
    return yuv[channel];
  if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo))
    return rgb[channel];
  return NULL;
}

gdouble
gst_cf_stats_meta_get_mean (const GstCfStatsMeta * meta, guint channel)
{
  g_return_val_if_fail (meta != NULL, 0.0);
  if (channel >= meta->stats.n_channels)
    return 0.0;
  return cf_stats_mean ((const CfStats *) &meta->stats, channel);
}

gdouble
gst_cf_stats_meta_get_variance (const GstCfStatsMeta * meta,
    guint channel)
{
  g_return_val_if_fail (meta != NULL, 0.0);
  if (channel >= meta->stats.n_channels)
    return 0.0;
  return cf_stats_variance ((const CfStats *) &meta->stats, channel);
}

const guint32 *
gst_cf_stats_meta_get_histogram (const GstCfStatsMeta * meta,
    guint channel)
{
  g_return_val_if_fail (meta != NULL, NULL);
  if (channel >= meta->stats.n_channels)
    return NULL;
  return meta->stats.histogram[channel];
}
