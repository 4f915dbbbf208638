/* CPU reference for kernels/fill.cu. */
#include "../fill.h"
#include "../threads.h"

void
cf_fill_black (CfFormat format, uint16_t value[CF_MAX_CHANNELS])
{
  const CfFormatInfo *info = cf_format_info (format);
  int c;

  for (c = 0; c < CF_MAX_CHANNELS; c++)
    value[c] = 0;
  if (!info)
    return;
  if (info->family == CF_FAMILY_YUV) {
    value[0] = (uint16_t) (16 << (info->bits - 8));
    value[1] = value[2] = (uint16_t) (128 << (info->bits - 8));
  } else if (info->n_channels == 4) {
    value[3] = (uint16_t) CF_FORMAT_MAX_VALUE (info);
  }
}

int
cf_fill_plane_rect (const CfImage * image, int p, CfRect rect, CfRect * out)
{
  const CfPlaneLayout *l = &cf_format_info (image->format)->plane[p];
  int x0 = rect.x < 0 ? 0 : rect.x, y0 = rect.y < 0 ? 0 : rect.y;
  int x1 = rect.x + rect.width, y1 = rect.y + rect.height;

  x1 = x1 > image->width ? image->width : x1;
  y1 = y1 > image->height ? image->height : y1;
  if (x1 <= x0 || y1 <= y0)
    return 0;
  out->x = x0 >> l->shift_x;
  out->y = y0 >> l->shift_y;
  out->width = ((x1 + (1 << l->shift_x) - 1) >> l->shift_x) - out->x;
  out->height = ((y1 + (1 << l->shift_y) - 1) >> l->shift_y) - out->y;
  return 1;
}

void
cf_fill_plane_samples (CfFormat format, int p,
    const uint16_t value[CF_MAX_CHANNELS], uint16_t sample[4])
{
  const CfFormatInfo *info = cf_format_info (format);
  const CfPlaneLayout *l = &info->plane[p];
  const int samples = l->pixel_bytes / l->sample_bytes;
  int k;

  for (k = 0; k < 4; k++) {
    if (k >= samples)
      sample[k] = 0;
    else if (l->channel[k] < 0)
      sample[k] = 0xffff;
    else
      sample[k] = (uint16_t) CF_VALUE_SAMPLE (value[l->channel[k]] &
          CF_FORMAT_MAX_VALUE (info), info->lsb);
  }
}

/* One call: the rectangle, its samples, and the parts' bands. */
typedef struct
{
  const CfImage *image;
  CfRect rect;
  const uint16_t *value;
  int n_parts;
} FillJob;

/* Part @part: its band of the rows of the rectangle in each plane. */
static void
fill_part (void *data, int part)
{
  const FillJob *job = data;
  const CfImage *image = job->image;
  const CfFormatInfo *info = cf_format_info (image->format);
  int p, x, y, k;

  for (p = 0; p < info->n_planes; p++) {
    const CfPlaneLayout *l = &info->plane[p];
    const int samples = l->pixel_bytes / l->sample_bytes;
    uint16_t sample[4];
    CfRect r;
    int y0, y1;

    if (!cf_fill_plane_rect (image, p, job->rect, &r))
      continue;
    cf_fill_plane_samples (image->format, p, job->value, sample);
    y0 = r.y + cf_parallel_split (r.height, job->n_parts, part);
    y1 = r.y + cf_parallel_split (r.height, job->n_parts, part + 1);
    for (y = y0; y < y1; y++) {
      uint8_t *row = (uint8_t *) image->data[p] + y * image->pitch[p];
      for (x = r.x; x < r.x + r.width; x++) {
        for (k = 0; k < samples; k++) {
          const uint16_t v = sample[k];
          uint8_t *s = row + x * l->pixel_bytes + k * l->sample_bytes;
          s[0] = (uint8_t) v;
          if (l->sample_bytes == 2)
            s[1] = (uint8_t) (v >> 8);
        }
      }
    }
  }
}

int
cf_fill_cpu_threads (const CfImage * image, CfRect rect,
    const uint16_t value[CF_MAX_CHANNELS], int n_threads)
{
  FillJob job = { image, rect, value, 1 };
  CfRect r;

  if (cf_image_check_planar (image) != 0 || !value)
    return -1;
  /* bands of the first plane's rows: it has the most */
  if (cf_fill_plane_rect (image, 0, rect, &r))
    job.n_parts = cf_parallel_parts (n_threads, r.height);
  cf_parallel_for (n_threads, job.n_parts, fill_part, &job);
  return 0;
}

int
cf_fill_cpu (const CfImage * image, CfRect rect,
    const uint16_t value[CF_MAX_CHANNELS])
{
  return cf_fill_cpu_threads (image, rect, value, 1);
}
