/* GstCfStatsMeta: the statistics cudastats computed for a buffer.
 *
 * cudastats attaches one to every buffer it analyses, so that downstream
 * elements (cudastatsoverlay) and applications read the numbers from the
 * buffer in a pad probe or an appsink, without the bus:
 *
 *   GstCfStatsMeta *meta = gst_buffer_get_cf_stats_meta (buffer);
 *
 *   if (meta)
 *     for (guint c = 0; c < gst_cf_stats_meta_get_n_channels (meta); c++)
 *       g_print ("%s mean %.2f\n", gst_cf_stats_meta_get_channel_name (meta,
 *               c), gst_cf_stats_meta_get_mean (meta, c));
 *
 * Link with pkg-config's gstreamer-cudafilters-1.0. samples/cudastats-meta.c
 * is a whole program.
 *
 * The layout is a contract, versioned by GST_CF_STATS_META_VERSION: the
 * fields below never change meaning, size or place; a later version may
 * only add fields at the end of GstCfStatsMeta (and raise the number, which
 * the meta's version field carries). A reader built against version N
 * reads any meta whose version is N or more. Version 1: GstCfFrameStats as
 * below.
 *
 * The meta is tagged "video", "colorspace" and "size": elements that change
 * the picture's content, colours or size drop it, as its numbers would no
 * longer describe the buffer. A copy of the buffer keeps it.
 *
 * Python and other languages without this header: the same numbers come
 * with the "cudastats" element message on the bus (see the README).
 */
#ifndef __GST_CF_STATS_META_H__
#define __GST_CF_STATS_META_H__

#include <gst/cudafilters/cudafilters-prelude.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* the layout version this header describes */
#define GST_CF_STATS_META_VERSION 1

#define GST_CF_STATS_MAX_CHANNELS 4
#define GST_CF_STATS_BINS 256

/**
 * GstCfFrameStats:
 * @n_channels: the colour channels (and alpha) counted: 1 (gray) to 4
 * @min: the smallest value of each channel, in the format's range: 0 ..
 *     2^bits - 1 with bits GST_VIDEO_FORMAT_INFO_DEPTH of the format (255,
 *     1023 for 10-bit formats such as P010_10LE, whose values are counted
 *     without their low padding bits, 65535); 0 when nothing was counted
 * @max: the largest sample value of each channel
 * @reserved: 0
 * @count: the samples counted in each channel (subsampled chroma: its own
 *     samples)
 * @sum: the exact sum of the samples of each channel
 * @sum_sq: the exact sum of their squares
 * @histogram: 256 bins per channel: the value (8-bit formats) or its high
 *     8 bits, value >> (bits - 8)
 *
 * One frame's statistics. Channels are in the order R, G, B, A for RGB
 * formats (whatever the bytes' order in memory), Y, U, V for YUV formats,
 * and one gray channel; gst_cf_stats_meta_get_channel_name () names them.
 * Entries past n_channels are 0.
 */
typedef struct {
  guint32 n_channels;
  guint32 min[GST_CF_STATS_MAX_CHANNELS];
  guint32 max[GST_CF_STATS_MAX_CHANNELS];
  guint32 reserved;
  guint64 count[GST_CF_STATS_MAX_CHANNELS];
  guint64 sum[GST_CF_STATS_MAX_CHANNELS];
  guint64 sum_sq[GST_CF_STATS_MAX_CHANNELS];
  guint32 histogram[GST_CF_STATS_MAX_CHANNELS][GST_CF_STATS_BINS];
} GstCfFrameStats;

/**
 * GstCfStatsMeta:
 * @meta: the parent
 * @version: the GST_CF_STATS_META_VERSION the writer was built with
 * @format: the format of the analysed frame
 * @stats: its statistics
 */
typedef struct {
  GstMeta meta;
  guint version;
  GstVideoFormat format;
  GstCfFrameStats stats;
} GstCfStatsMeta;

#define GST_CF_STATS_META_API_TYPE (gst_cf_stats_meta_api_get_type ())
#define GST_CF_STATS_META_INFO (gst_cf_stats_meta_get_info ())

GST_CUDAFILTERS_API
GType gst_cf_stats_meta_api_get_type (void);

GST_CUDAFILTERS_API
const GstMetaInfo *gst_cf_stats_meta_get_info (void);

/* Attaches @stats of a frame of @format to @buffer (writable). */
GST_CUDAFILTERS_API
GstCfStatsMeta *gst_buffer_add_cf_stats_meta (GstBuffer * buffer,
    GstVideoFormat format, const GstCfFrameStats * stats);

/* The statistics attached to @buffer, or NULL. */
GST_CUDAFILTERS_API
GstCfStatsMeta *gst_buffer_get_cf_stats_meta (GstBuffer * buffer);

GST_CUDAFILTERS_API
guint gst_cf_stats_meta_get_n_channels (const GstCfStatsMeta * meta);

/* "R", "G", "B", "A", "Y", "U", "V" or "gray"; NULL past the last channel. */
GST_CUDAFILTERS_API
const gchar *gst_cf_stats_meta_get_channel_name (const GstCfStatsMeta *
    meta, guint channel);

/* Mean and population variance of @channel from the exact integer sums
 * (the variance's numerator in exact 128-bit arithmetic); 0 past the last
 * channel or when nothing was counted. */
GST_CUDAFILTERS_API
gdouble gst_cf_stats_meta_get_mean (const GstCfStatsMeta * meta,
    guint channel);

GST_CUDAFILTERS_API
gdouble gst_cf_stats_meta_get_variance (const GstCfStatsMeta * meta,
    guint channel);

/* The GST_CF_STATS_BINS bins of @channel, or NULL past the last channel. */
GST_CUDAFILTERS_API
const guint32 *gst_cf_stats_meta_get_histogram (const GstCfStatsMeta * meta,
    guint channel);

G_END_DECLS
#endif /* __GST_CF_STATS_META_H__ */
