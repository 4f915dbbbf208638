/* Pixel format table and image checks shared by every kernel family. */
#include "format.h"

#include <limits.h>
#include <string.h>

#define RGB_NAMES { "R", "G", "B", "A" }
#define YUV_NAMES { "Y", "U", "V", NULL }
#define GRAY_NAMES { "gray" }
/* the tail of an entry: family, value bits, value's lowest bit */
#define BITS8(family) CF_FAMILY_##family, 8, 0
/* one plane of packed pixels, 8-bit samples */
#define PACKED(bytes, c0, c1, c2, c3) \
  { { bytes, 1, 0, 0, { c0, c1, c2, c3 } } }
/* the same of 16-bit samples */
#define PACKED16(bytes, c0, c1, c2, c3) \
  { { bytes, 2, 0, 0, { c0, c1, c2, c3 } } }
#define LUMA { 1, 1, 0, 0, { 0, -1, -1, -1 } }
#define CHROMA(sub, c) { 1, 1, sub, sub, { c, -1, -1, -1 } }
#define CHROMA_422(c) { 1, 1, 1, 0, { c, -1, -1, -1 } }
#define CHROMA_PAIR(c0, c1) { 2, 1, 1, 1, { c0, c1, -1, -1 } }
/* 16-bit samples */
#define LUMA16 { 2, 2, 0, 0, { 0, -1, -1, -1 } }
#define CHROMA16(sub, c) { 2, 2, sub, sub, { c, -1, -1, -1 } }
#define CHROMA16_PAIR(c0, c1) { 4, 2, 1, 1, { c0, c1, -1, -1 } }
/* packed 4:2:2: a macropixel of two pixels as one pixel of half the
 * width (packed = 1) */
#define MACROPIXEL(c0, c1, c2, c3) \
  { { 4, 1, 1, 0, { c0, c1, c2, c3 } } }, BITS8 (YUV), 1

static const CfFormatInfo formats[CF_FORMAT_COUNT] = {
  [CF_FORMAT_GRAY8] = { "GRAY8", 1, 1, 8, GRAY_NAMES, { LUMA },
      BITS8 (GRAY) },
  [CF_FORMAT_GRAY16_LE] = { "GRAY16_LE", 1, 1, 16, GRAY_NAMES, { LUMA16 },
      CF_FAMILY_GRAY, 16, 0 },
  [CF_FORMAT_RGBA] = { "RGBA", 1, 4, 8, RGB_NAMES, PACKED (4, 0, 1, 2, 3),
      BITS8 (RGB) },
  [CF_FORMAT_BGRA] = { "BGRA", 1, 4, 8, RGB_NAMES, PACKED (4, 2, 1, 0, 3),
      BITS8 (RGB) },
  [CF_FORMAT_RGBX] = { "RGBx", 1, 3, 8, RGB_NAMES, PACKED (4, 0, 1, 2, -1),
      BITS8 (RGB) },
  [CF_FORMAT_BGRX] = { "BGRx", 1, 3, 8, RGB_NAMES, PACKED (4, 2, 1, 0, -1),
      BITS8 (RGB) },
  [CF_FORMAT_ARGB] = { "ARGB", 1, 4, 8, RGB_NAMES, PACKED (4, 3, 0, 1, 2),
      BITS8 (RGB) },
  [CF_FORMAT_ABGR] = { "ABGR", 1, 4, 8, RGB_NAMES, PACKED (4, 3, 2, 1, 0),
      BITS8 (RGB) },
  [CF_FORMAT_XRGB] = { "xRGB", 1, 3, 8, RGB_NAMES, PACKED (4, -1, 0, 1, 2),
      BITS8 (RGB) },
  [CF_FORMAT_XBGR] = { "xBGR", 1, 3, 8, RGB_NAMES, PACKED (4, -1, 2, 1, 0),
      BITS8 (RGB) },
  [CF_FORMAT_RGB] = { "RGB", 1, 3, 8, RGB_NAMES, PACKED (3, 0, 1, 2, -1),
      BITS8 (RGB) },
  [CF_FORMAT_BGR] = { "BGR", 1, 3, 8, RGB_NAMES, PACKED (3, 2, 1, 0, -1),
      BITS8 (RGB) },
  [CF_FORMAT_I420] = { "I420", 3, 3, 8, YUV_NAMES,
      { LUMA, CHROMA (1, 1), CHROMA (1, 2) }, BITS8 (YUV) },
  [CF_FORMAT_YV12] = { "YV12", 3, 3, 8, YUV_NAMES,
      { LUMA, CHROMA (1, 2), CHROMA (1, 1) }, BITS8 (YUV) },
  [CF_FORMAT_NV12] = { "NV12", 2, 3, 8, YUV_NAMES,
      { LUMA, CHROMA_PAIR (1, 2) }, BITS8 (YUV) },
  [CF_FORMAT_NV21] = { "NV21", 2, 3, 8, YUV_NAMES,
      { LUMA, CHROMA_PAIR (2, 1) }, BITS8 (YUV) },
  [CF_FORMAT_Y444] = { "Y444", 3, 3, 8, YUV_NAMES,
      { LUMA, CHROMA (0, 1), CHROMA (0, 2) }, BITS8 (YUV) },
  [CF_FORMAT_Y42B] = { "Y42B", 3, 3, 8, YUV_NAMES,
      { LUMA, CHROMA_422 (1), CHROMA_422 (2) }, BITS8 (YUV) },
  [CF_FORMAT_I420_10LE] = { "I420_10LE", 3, 3, 16, YUV_NAMES,
      { LUMA16, CHROMA16 (1, 1), CHROMA16 (1, 2) }, CF_FAMILY_YUV, 10, 0 },
  [CF_FORMAT_P010_10LE] = { "P010_10LE", 2, 3, 16, YUV_NAMES,
      { LUMA16, CHROMA16_PAIR (1, 2) }, CF_FAMILY_YUV, 10, 6 },
  [CF_FORMAT_P016_LE] = { "P016_LE", 2, 3, 16, YUV_NAMES,
      { LUMA16, CHROMA16_PAIR (1, 2) }, CF_FAMILY_YUV, 16, 0 },
  [CF_FORMAT_Y444_16LE] = { "Y444_16LE", 3, 3, 16, YUV_NAMES,
      { LUMA16, CHROMA16 (0, 1), CHROMA16 (0, 2) }, CF_FAMILY_YUV, 16, 0 },
  [CF_FORMAT_RGBA64_LE] = { "RGBA64_LE", 1, 4, 16, RGB_NAMES,
      PACKED16 (8, 0, 1, 2, 3), CF_FAMILY_RGB, 16, 0 },
  [CF_FORMAT_BGRA64_LE] = { "BGRA64_LE", 1, 4, 16, RGB_NAMES,
      PACKED16 (8, 2, 1, 0, 3), CF_FAMILY_RGB, 16, 0 },
  [CF_FORMAT_YUY2] = { "YUY2", 1, 3, 8, YUV_NAMES,
      MACROPIXEL (0, 1, 0, 2) },
  [CF_FORMAT_UYVY] = { "UYVY", 1, 3, 8, YUV_NAMES,
      MACROPIXEL (1, 0, 2, 0) },
};

const CfFormatInfo *
cf_format_info (CfFormat format)
{
  if ((unsigned) format >= CF_FORMAT_COUNT)
    return NULL;
  return &formats[format];
}

CfFormat
cf_format_from_name (const char *name)
{
  int f;

  for (f = 0; name && f < CF_FORMAT_COUNT; f++)
    if (strcmp (formats[f].name, name) == 0)
      return (CfFormat) f;
  return CF_FORMAT_COUNT;
}

/* rounded up, as GST_VIDEO_SUB_SCALE does */
static int
sub_scale (int shift, int size)
{
  return (size + (1 << shift) - 1) >> shift;
}

int
cf_plane_width (CfFormat format, int plane, int width)
{
  return sub_scale (formats[format].plane[plane].shift_x, width);
}

int
cf_plane_height (CfFormat format, int plane, int height)
{
  return sub_scale (formats[format].plane[plane].shift_y, height);
}

size_t
cf_plane_row_bytes (CfFormat format, int plane, int width)
{
  return (size_t) cf_plane_width (format, plane, width) *
      formats[format].plane[plane].pixel_bytes;
}

int
cf_image_check (const CfImage * image)
{
  const CfFormatInfo *info;
  int p;

  if (!image || !(info = cf_format_info (image->format)))
    return -1;
  if (image->width < 1 || image->height < 1 || image->width > CF_MAX_SIDE
      || image->height > CF_MAX_SIDE)
    return -1;
  for (p = 0; p < info->n_planes; p++) {
    if (!image->data[p] ||
        image->pitch[p] < cf_plane_row_bytes (image->format, p, image->width))
      return -1;
  }
  return 0;
}

int
cf_image_check_planar (const CfImage * image)
{
  return cf_image_check (image) == 0 && !formats[image->format].packed ?
      0 : -1;
}

int
cf_image_view (const CfImage * image, int x, int y, int width, int height,
    CfImage * view)
{
  const CfFormatInfo *info;
  int p;

  if (cf_image_check (image) != 0 || x < 0 || y < 0 || width < 1 ||
      height < 1 || x + width > image->width || y + height > image->height)
    return -1;
  info = cf_format_info (image->format);
  *view = *image;
  view->width = width;
  view->height = height;
  for (p = 0; p < info->n_planes; p++) {
    const CfPlaneLayout *l = &info->plane[p];
    if ((x & ((1 << l->shift_x) - 1)) || (y & ((1 << l->shift_y) - 1)))
      return -1;
    view->data[p] = (uint8_t *) image->data[p] +
        (size_t) (y >> l->shift_y) * image->pitch[p] +
        (size_t) (x >> l->shift_x) * l->pixel_bytes;
  }
  return 0;
}

int
cf_image_copy (const CfImage * src, const CfImage * dst)
{
  if (cf_image_check (src) != 0 || cf_image_check (dst) != 0 ||
      src->format != dst->format || src->width != dst->width ||
      src->height != dst->height)
    return -1;
  cf_image_copy_rows (src, dst, 0, INT_MAX);
  return 0;
}

void
cf_image_copy_rows (const CfImage * src, const CfImage * dst, int r0, int r1)
{
  int p, base = 0;

  for (p = 0; p < cf_format_info (src->format)->n_planes; p++) {
    const int rows = cf_plane_height (src->format, p, src->height);
    const size_t row = cf_plane_row_bytes (src->format, p, src->width);
    const int end = r1 - base < rows ? r1 - base : rows;
    int y;

    for (y = r0 > base ? r0 - base : 0; y < end; y++)
      memcpy ((uint8_t *) dst->data[p] + (size_t) y * dst->pitch[p],
          (const uint8_t *) src->data[p] + (size_t) y * src->pitch[p], row);
    base += rows;
  }
}

#define PLANE_ALIGN 256

static size_t
round_up (size_t n, size_t align)
{
  return (n + align - 1) & ~(align - 1);
}

size_t
cf_image_layout (CfFormat format, int width, int height, size_t row_align,
    CfImage * layout)
{
  const CfFormatInfo *info = cf_format_info (format);
  size_t offset = 0;
  int p;

  memset (layout, 0, sizeof (*layout));
  layout->format = format;
  layout->width = width;
  layout->height = height;
  for (p = 0; info && p < info->n_planes; p++) {
    layout->pitch[p] = round_up (cf_plane_row_bytes (format, p, width),
        row_align);
    layout->data[p] = (void *) (uintptr_t) offset;
    offset += round_up (layout->pitch[p] *
        cf_plane_height (format, p, height), PLANE_ALIGN);
  }
  return offset;
}

CfImage
cf_image_at (const CfImage * layout, void *base)
{
  CfImage image = *layout;
  int p;

  for (p = 0; p < CF_MAX_PLANES; p++)
    if (image.pitch[p])
      image.data[p] = (uint8_t *) base + (uintptr_t) layout->data[p];
  return image;
}
