/* The statistics a GstCfStatsMeta carries, read through the statistics
 * library's public header as an application reads them, into the kernels'
 * CfStats to compare with cf_stats_cpu (). Field by field, by name: the
 * tests never assume the two layouts equal (the library asserts that for
 * the plugin's sake). */
#ifndef CF_META_H
#define CF_META_H

#include <gst/cudafilters/cudafilters.h>
#include <string.h>

#include "stats.h"

static inline CfStats
cf_meta_stats (const GstCfStatsMeta * meta)
{
  CfStats s;

  memset (&s, 0, sizeof (s));
  s.n_channels = meta->stats.n_channels;
  s.reserved = meta->stats.reserved;
  for (int c = 0; c < CF_MAX_CHANNELS; c++) {
    s.min[c] = meta->stats.min[c];
    s.max[c] = meta->stats.max[c];
    s.count[c] = meta->stats.count[c];
    s.sum[c] = meta->stats.sum[c];
    s.sum_sq[c] = meta->stats.sum_sq[c];
    for (int b = 0; b < CF_STATS_BINS; b++)
      s.histogram[c][b] = meta->stats.histogram[c][b];
  }
  return s;
}

#endif /* CF_META_H */
