/* CPU reference for kernels/stats.cu, and the CPU backend.
 *
 * Same contract as cf_stats_cuda (): histogram per channel, min, max,
 * count, exact sum and sum of squares of the values. 8-bit planes only
 * count the histogram in the inner loop; the other numbers follow exactly
 * from it. The value of a 16-bit sample ((sample >> lsb) & (2^bits - 1))
 * is binned by its high 8 bits, so its moments are summed one by one.
 *
 * Threads: each part takes a band of the rows of every plane into a
 * CfStats of its own; the bands' numbers are integers (counts, sums,
 * extremes), merged exactly, so any split gives the same result.
 */
#include "../stats.h"
#include "../threads.h"

#include <stdlib.h>
#include <string.h>

/* Copies of a histogram that count_plane_8bit () increments in turn:
 * consecutive samples of equal value (flat areas, constant frames) would
 * otherwise wait on each other's increment of the same counter (a
 * store-to-load dependency of several cycles each); four independent
 * chains overlap. */
#define COPIES 4

/* Rows @y0 .. @y1 - 1 of plane @p into the histograms: four samples at a
 * time into the four copies of their channel's histogram, the row's last
 * width % 4 into the first; the copies summed at the end. */
static void
count_plane_8bit (const CfImage * image, int p, const CfPlaneLayout * layout,
    int y0, int y1, uint32_t (*histogram)[CF_STATS_BINS])
{
  const int width = cf_plane_width (image->format, p, image->width);
  const int bpp = layout->pixel_bytes;
  /* per byte of a pixel (at most 4): 16 KiB */
  uint32_t copies[4][COPIES][CF_STATS_BINS];
  int x, y, k, b, i;

  memset (copies, 0, sizeof (copies[0]) * bpp);
  for (y = y0; y < y1; y++) {
    const uint8_t *row = (const uint8_t *) image->data[p] +
        (size_t) y * image->pitch[p];
    for (k = 0; k < bpp; k++) {
      uint32_t (*h)[CF_STATS_BINS] = copies[k];
      const uint8_t *s = row + k;

      if (layout->channel[k] < 0)
        continue;
      for (x = 0; x + COPIES <= width; x += COPIES, s += COPIES * bpp) {
        h[0][s[0]]++;
        h[1][s[bpp]]++;
        h[2][s[2 * bpp]]++;
        h[3][s[3 * bpp]]++;
      }
      for (; x < width; x++, s += bpp)
        h[0][s[0]]++;
    }
  }
  for (k = 0; k < bpp; k++)
    if (layout->channel[k] >= 0)
      for (i = 0; i < COPIES; i++)
        for (b = 0; b < CF_STATS_BINS; b++)
          histogram[layout->channel[k]][b] += copies[k][i][b];
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

/* Rows @y0 .. @y1 - 1 of plane @p of 16-bit little-endian samples holding
 * values of @bits bits from bit @lsb: adds every value to its channel's
 * histogram and moments, a row at a time (a row stays in the cache for the
 * samples of its every channel, as in count_plane_8bit ()). */
static void
count_plane_16bit (const CfImage * image, int p, const CfPlaneLayout * layout,
    int bits, int lsb, int y0, int y1, CfStats * r)
{
  const int width = cf_plane_width (image->format, p, image->width);
  const int bpp = layout->pixel_bytes;
  int x, y, k;

  for (y = y0; y < y1; y++) {
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

/* One call: the image, and where each part counts. */
typedef struct
{
  const CfImage *image;
  const CfFormatInfo *info;
  int n_parts;
  CfStats *part;                /* [n_parts] */
} StatsJob;

/* Part @part: its band of the rows of each plane into job->part[@part]. */
static void
stats_part (void *data, int part)
{
  const StatsJob *job = data;
  const CfImage *image = job->image;
  const CfFormatInfo *info = job->info;
  CfStats *r = &job->part[part];
  int p, c;

  memset (r, 0, sizeof (*r));
  r->n_channels = info->n_channels;
  for (p = 0; p < info->n_planes; p++) {
    const int height = cf_plane_height (image->format, p, image->height);
    const int y0 = cf_parallel_split (height, job->n_parts, part);
    const int y1 = cf_parallel_split (height, job->n_parts, part + 1);

    if (info->depth == 16)
      count_plane_16bit (image, p, &info->plane[p], info->bits, info->lsb,
          y0, y1, r);
    else
      count_plane_8bit (image, p, &info->plane[p], y0, y1, r->histogram);
  }
  if (info->depth != 16)
    for (c = 0; c < info->n_channels; c++)
      moments_from_histogram (r, c);
}

/* Adds the numbers of band @from to those of band @into (of one frame). */
static void
merge (CfStats * into, const CfStats * from)
{
  uint32_t c;
  int b;

  for (c = 0; c < from->n_channels; c++) {
    if (from->count[c] == 0)    /* no sample of c in that band */
      continue;
    into->min[c] = into->count[c] == 0 || from->min[c] < into->min[c] ?
        from->min[c] : into->min[c];
    into->max[c] = from->max[c] > into->max[c] ? from->max[c] : into->max[c];
    into->count[c] += from->count[c];
    into->sum[c] += from->sum[c];
    into->sum_sq[c] += from->sum_sq[c];
    for (b = 0; b < CF_STATS_BINS; b++)
      into->histogram[c][b] += from->histogram[c][b];
  }
}

int
cf_stats_cpu_threads (const CfImage * image, CfStats * result, int n_threads)
{
  StatsJob job;
  int i;

  if (cf_image_check_planar (image) != 0 || !result)
    return -1;
  job.image = image;
  job.info = cf_format_info (image->format);
  /* bands of the tallest plane's rows, the first plane's */
  job.n_parts = cf_parallel_parts (n_threads, image->height);
  job.part = job.n_parts > 1 ? malloc (sizeof (CfStats) * job.n_parts) : NULL;
  if (!job.part) {
    /* one part, counted straight into the result */
    job.n_parts = 1;
    job.part = result;
  }
  cf_parallel_for (n_threads, job.n_parts, stats_part, &job);
  if (job.part != result) {
    for (i = 1; i < job.n_parts; i++)
      merge (&job.part[0], &job.part[i]);
    *result = job.part[0];
    free (job.part);
  }
  return 0;
}

int
cf_stats_cpu (const CfImage * image, CfStats * result)
{
  return cf_stats_cpu_threads (image, result, 1);
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
