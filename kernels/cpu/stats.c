/* CPU reference for kernels/stats.cu, and the CPU backend.
 *
 * Same contract as cf_stats_cuda (): histogram per channel, min, max,
 * count, exact sum and sum of squares of the values. 8-bit planes only
 * count the histogram in the inner loop; the other numbers follow exactly
 * from it. The value of a 16-bit sample ((sample >> lsb) & (2^bits - 1))
 * is binned by its high 8 bits, so its moments are summed one by one.
 */
#include "../stats.h"

#include <string.h>

static void
count_plane_8bit (const CfImage * image, int p, const CfPlaneLayout * layout,
    uint32_t (*histogram)[CF_STATS_BINS])
{
  const int width = cf_plane_width (image->format, p, image->width);
  const int height = cf_plane_height (image->format, p, image->height);
  const int bpp = layout->pixel_bytes;
  int x, y, k;

  for (y = 0; y < height; y++) {
    const uint8_t *row = (const uint8_t *) image->data[p] + y * image->pitch[p];
    for (k = 0; k < bpp; k++) {
      uint32_t *h;
      if (layout->channel[k] < 0)
        continue;
      h = histogram[layout->channel[k]];
      for (x = 0; x < width; x++)
        h[row[x * bpp + k]]++;
    }
  }
}

static void
moments_from_histogram (CfStats * r, int c)
{
  int b;
  int lo = -1, hi = -1;

  r->count[c] = r->sum[c] = r->sum_sq[c] = 0;
  for (b = 0; b < CF_STATS_BINS; b++) {
    uint64_t n = r->histogram[c][b];
    if (!n)
      continue;
    if (lo < 0)
      lo = b;
    hi = b;
    r->count[c] += n;
    r->sum[c] += n * b;
    r->sum_sq[c] += n * b * b;
  }
  r->min[c] = lo < 0 ? 0 : (uint32_t) lo;
  r->max[c] = hi < 0 ? 0 : (uint32_t) hi;
}

/* Plane @p of 16-bit little-endian samples holding values of @bits bits
 * from bit @lsb: adds every value to its channel's histogram and moments,
 * a row at a time (a row stays in the cache for the samples of its every
 * channel, as in count_plane_8bit ()). */
static void
count_plane_16bit (const CfImage * image, int p, const CfPlaneLayout * layout,
    int bits, int lsb, CfStats * r)
{
  const int width = cf_plane_width (image->format, p, image->width);
  const int height = cf_plane_height (image->format, p, image->height);
  const int bpp = layout->pixel_bytes;
  int x, y, k;

  for (y = 0; y < height; y++) {
    const uint8_t *row = (const uint8_t *) image->data[p] + y * image->pitch[p];
    for (k = 0; k < bpp / 2; k++) {
      const int c = layout->channel[k];
      const uint8_t *s = row + 2 * k;
      uint32_t lo, hi, *h;
      uint64_t sum, sum_sq;

      if (c < 0)
        continue;
      /* a channel with nothing counted yet has no minimum */
      lo = r->count[c] ? r->min[c] : UINT32_MAX;
      hi = r->max[c];
      sum = r->sum[c];
      sum_sq = r->sum_sq[c];
      h = r->histogram[c];
      for (x = 0; x < width; x++, s += bpp) {
        const uint32_t v = CF_SAMPLE_VALUE (s[0] | s[1] << 8, bits, lsb);
        h[v >> (bits - 8)]++;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += v;
        sum_sq += (uint64_t) v * v;
      }
      r->min[c] = lo;
      r->max[c] = hi;
      r->count[c] += width;
      r->sum[c] = sum;
      r->sum_sq[c] = sum_sq;
    }
  }
}

int
cf_stats_cpu (const CfImage * image, CfStats * result)
{
  const CfFormatInfo *info;
  int p, c;

  if (cf_image_check_planar (image) != 0 || !result)
    return -1;
  info = cf_format_info (image->format);
  memset (result, 0, sizeof (*result));
  result->n_channels = info->n_channels;

  if (info->depth == 16) {
    for (p = 0; p < info->n_planes; p++)
      count_plane_16bit (image, p, &info->plane[p], info->bits, info->lsb,
          result);
    return 0;
  }
  for (p = 0; p < info->n_planes; p++)
    count_plane_8bit (image, p, &info->plane[p], result->histogram);
  for (c = 0; c < info->n_channels; c++)
    moments_from_histogram (result, c);
  return 0;
}

void
cf_stats_sum_reset (CfStatsSum * sum, uint32_t n_channels)
{
  int c;

  memset (sum, 0, sizeof (*sum));
  sum->n_channels = n_channels;
  for (c = 0; c < CF_MAX_CHANNELS; c++)
    sum->min[c] = UINT32_MAX;
}

void
cf_stats_sum_add (CfStatsSum * sum, const CfStats * frame)
{
  uint32_t c;
  int b;

  if (sum->frames++ == 0)
    sum->n_channels = frame->n_channels;
  for (c = 0; c < frame->n_channels && c < CF_MAX_CHANNELS; c++) {
    if (frame->min[c] < sum->min[c])
      sum->min[c] = frame->min[c];
    if (frame->max[c] > sum->max[c])
      sum->max[c] = frame->max[c];
    sum->count[c] += frame->count[c];
    sum->sum[c] += frame->sum[c];
    sum->sum_sq[c] += frame->sum_sq[c];
    for (b = 0; b < CF_STATS_BINS; b++)
      sum->histogram[c][b] += frame->histogram[c][b];
  }
}

static double
mean_of (uint64_t n, uint64_t sum)
{
  return n ? (double) sum / (double) n : 0.0;
}

static double
variance_of (uint64_t n, uint64_t sum, unsigned __int128 sum_sq)
{
  unsigned __int128 s = sum;

  if (!n)
    return 0.0;
  /* n * sum_sq >= sum^2 always (Cauchy-Schwarz), so this cannot wrap */
  return (double) (n * sum_sq - s * s) / ((double) n * (double) n);
}

double
cf_stats_sum_mean (const CfStatsSum * sum, int c)
{
  return mean_of (sum->count[c], sum->sum[c]);
}

double
cf_stats_sum_variance (const CfStatsSum * sum, int c)
{
  return variance_of (sum->count[c], sum->sum[c], sum->sum_sq[c]);
}

double
cf_stats_mean (const CfStats * stats, int c)
{
  return mean_of (stats->count[c], stats->sum[c]);
}

double
cf_stats_variance (const CfStats * stats, int c)
{
  return variance_of (stats->count[c], stats->sum[c], stats->sum_sq[c]);
}
