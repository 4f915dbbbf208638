/* Packed 4:2:2 to planar and back: the C reference (see packed.h). */
#include "packed.h"
#include "threads.h"

#include <stdint.h>

CfFormat
cf_packed_planar (CfFormat format)
{
  const CfFormatInfo *info = cf_format_info (format);

  return info && info->packed ? CF_FORMAT_Y42B : format;
}

int
cf_packed_check (const CfImage * packed, const CfImage * planar,
    CfPackedOffsets * offsets)
{
  const CfFormatInfo *info;
  int k, luma = 0;

  if (cf_image_check (packed) != 0 || cf_image_check (planar) != 0)
    return -1;
  info = cf_format_info (packed->format);
  if (!info->packed || planar->format != cf_packed_planar (packed->format)
      || planar->width != packed->width || planar->height != packed->height)
    return -1;
  /* from the table: the macropixel's luma samples are channel 0 */
  for (k = 0; k < 4; k++) {
    const int c = info->plane[0].channel[k];
    if (c == 0)
      *(luma++ ? &offsets->y1 : &offsets->y0) = k;
    else if (c == 1)
      offsets->u = k;
    else if (c == 2)
      offsets->v = k;
  }
  return 0;
}

/* Rows @y0 .. @y1 - 1 of packed @src into planar @dst. */
static void
unpack_rows (const CfImage * src, const CfImage * dst,
    const CfPackedOffsets * o, int y0, int y1)
{
  int x, y;

  for (y = y0; y < y1; y++) {
    const uint8_t *in = (const uint8_t *) src->data[0] + y * src->pitch[0];
    uint8_t *luma = (uint8_t *) dst->data[0] + y * dst->pitch[0];
    uint8_t *u = (uint8_t *) dst->data[1] + y * dst->pitch[1];
    uint8_t *v = (uint8_t *) dst->data[2] + y * dst->pitch[2];

    for (x = 0; x < src->width; x += 2, in += 4) {
      luma[x] = in[o->y0];
      if (x + 1 < src->width)
        luma[x + 1] = in[o->y1];
      u[x / 2] = in[o->u];
      v[x / 2] = in[o->v];
    }
  }
}

/* Rows @y0 .. @y1 - 1 of planar @src into packed @dst. */
static void
pack_rows (const CfImage * src, const CfImage * dst,
    const CfPackedOffsets * o, int y0, int y1)
{
  int x, y;

  for (y = y0; y < y1; y++) {
    const uint8_t *luma = (const uint8_t *) src->data[0] + y * src->pitch[0];
    const uint8_t *u = (const uint8_t *) src->data[1] + y * src->pitch[1];
    const uint8_t *v = (const uint8_t *) src->data[2] + y * src->pitch[2];
    uint8_t *out = (uint8_t *) dst->data[0] + y * dst->pitch[0];

    for (x = 0; x < src->width; x += 2, out += 4) {
      out[o->y0] = luma[x];
      out[o->y1] = luma[x + 1 < src->width ? x + 1 : x];
      out[o->u] = u[x / 2];
      out[o->v] = v[x / 2];
    }
  }
}

/* One conversion, in bands of rows. */
typedef struct
{
  const CfImage *src, *dst;
  CfPackedOffsets offsets;
  int pack, n_parts;
} PackedJob;

static void
packed_part (void *data, int part)
{
  const PackedJob *job = data;
  const int y0 = cf_parallel_split (job->src->height, job->n_parts, part);
  const int y1 = cf_parallel_split (job->src->height, job->n_parts, part + 1);

  if (job->pack)
    pack_rows (job->src, job->dst, &job->offsets, y0, y1);
  else
    unpack_rows (job->src, job->dst, &job->offsets, y0, y1);
}

static int
convert (const CfImage * src, const CfImage * dst, int pack, int n_threads)
{
  PackedJob job = { src, dst, {0, 0, 0, 0}, pack, 1 };

  if (cf_packed_check (pack ? dst : src, pack ? src : dst, &job.offsets) != 0)
    return -1;
  job.n_parts = cf_parallel_parts (n_threads, src->height);
  cf_parallel_for (n_threads, job.n_parts, packed_part, &job);
  return 0;
}

int
cf_packed_unpack_cpu_threads (const CfImage * src, const CfImage * dst,
    int n_threads)
{
  return convert (src, dst, 0, n_threads);
}

int
cf_packed_pack_cpu_threads (const CfImage * src, const CfImage * dst,
    int n_threads)
{
  return convert (src, dst, 1, n_threads);
}

int
cf_packed_unpack_cpu (const CfImage * src, const CfImage * dst)
{
  return convert (src, dst, 0, 1);
}

int
cf_packed_pack_cpu (const CfImage * src, const CfImage * dst)
{
  return convert (src, dst, 1, 1);
}
