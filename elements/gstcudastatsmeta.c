/* GstCfStatsMeta: see gstcudastatsmeta.h. */
#include "gstcudastatsmeta.h"
#include "gstcfbasefilter.h"

#include <string.h>

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
    const CfStats * stats)
{
  GstCfStatsMeta *m;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  m = (GstCfStatsMeta *) gst_buffer_add_meta (buffer,
      GST_CF_STATS_META_INFO, NULL);
  if (m) {
    m->format = format;
    m->stats = *stats;
  }
  return m;
}

const gchar *
gst_cf_stats_meta_get_channel_name (const GstCfStatsMeta * meta,
    guint channel)
{
  const CfFormatInfo *info =
      cf_format_info (gst_cf_format_from_video_format (meta->format));

  if (!info || channel >= (guint) info->n_channels)
    return NULL;
  return info->channel_names[channel];
}

gdouble
gst_cf_stats_meta_get_mean (const GstCfStatsMeta * meta, guint channel)
{
  if (channel >= meta->stats.n_channels)
    return 0.0;
  return cf_stats_mean (&meta->stats, channel);
}

gdouble
gst_cf_stats_meta_get_variance (const GstCfStatsMeta * meta,
    guint channel)
{
  if (channel >= meta->stats.n_channels)
    return 0.0;
  return cf_stats_variance (&meta->stats, channel);
}
