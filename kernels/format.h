/* gst-cudafilters kernel library: pixel formats and image descriptors.
 *
 * Plain C, no GStreamer: the elements, the batch tool and the benchmarks all
 * describe frames with these types. A CfImage points at host memory for the
 * CPU reference functions and at device memory for the CUDA launchers.
 *
 * Channel order is the same for every member of a family, whatever the byte
 * order in memory: R, G, B, A for the RGB family (padding bytes such as the
 * x of RGBx are not a channel), Y, U, V for the YUV formats, one channel for
 * gray. So a picture gives the same per-channel numbers as RGBA and as BGRA.
 */
#ifndef CF_FORMAT_H
#define CF_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CF_MAX_PLANES 3
#define CF_MAX_CHANNELS 4
/* Largest picture side any element accepts, as videoscale does. */
#define CF_MAX_SIDE 32767

typedef enum {
  CF_FORMAT_GRAY8,
  CF_FORMAT_GRAY16_LE,
  CF_FORMAT_RGBA,
  CF_FORMAT_BGRA,
  CF_FORMAT_RGBX,
  CF_FORMAT_BGRX,
  CF_FORMAT_ARGB,
  CF_FORMAT_ABGR,
  CF_FORMAT_XRGB,
  CF_FORMAT_XBGR,
  CF_FORMAT_RGB,
  CF_FORMAT_BGR,
  CF_FORMAT_I420,
  CF_FORMAT_YV12,
  CF_FORMAT_NV12,
  CF_FORMAT_NV21,
  CF_FORMAT_Y444,
  CF_FORMAT_Y42B,               /* planar 4:2:2 */
  CF_FORMAT_I420_10LE,          /* 10-bit values in the low bits of 16 */
  CF_FORMAT_P010_10LE,          /* NV12 of 10-bit values in the high bits */
  CF_FORMAT_P016_LE,            /* NV12 of 16-bit values */
  CF_FORMAT_Y444_16LE,
  CF_FORMAT_RGBA64_LE,          /* 16-bit R, G, B, A */
  CF_FORMAT_BGRA64_LE,
  CF_FORMAT_YUY2,               /* packed 4:2:2: Y0 U Y1 V */
  CF_FORMAT_UYVY,               /* packed 4:2:2: U Y0 V Y1 */
  CF_FORMAT_COUNT               /* also "no such format" */
} CfFormat;

/* What the channels are: the channel names, the colours an overlay draws,
 * the format's black. */
typedef enum {
  CF_FAMILY_GRAY,
  CF_FAMILY_RGB,
  CF_FAMILY_YUV
} CfFamily;

/* How the samples of one plane are laid out. */
typedef struct {
  uint8_t pixel_bytes;          /* bytes per pixel in this plane: 1, 2, 3, 4
                                 * or 8 */
  uint8_t sample_bytes;         /* 1, or 2 for 16-bit little-endian samples */
  uint8_t shift_x, shift_y;     /* log2 of the horizontal/vertical subsampling */
  int8_t channel[4];            /* channel of each sample of a pixel, -1 = padding */
} CfPlaneLayout;

/* A sample of a 16-bit format (depth 16) holds a value of @bits bits
 * (10 or 16) from bit @lsb up: P010's 10-bit values sit in the high bits
 * (lsb 6), I420_10LE's in the low ones. The kernels work on the values,
 * (sample >> lsb) & (2^bits - 1), as GStreamer's component values are:
 * statistics count them, filters write them back clamped to 2^bits - 1 and
 * shifted into place (the bits outside the value 0). 8-bit formats: bits
 * 8, lsb 0. */
typedef struct {
  const char *name;             /* GStreamer's name of the format, e.g. "NV12" */
  int n_planes;
  int n_channels;
  int depth;                    /* bits per sample: 8 or 16 */
  const char *channel_names[CF_MAX_CHANNELS];
  CfPlaneLayout plane[CF_MAX_PLANES];
  CfFamily family;
  int bits;                     /* of the value in a sample: 8, 10 or 16 */
  int lsb;                      /* the value's lowest bit in the sample */
  /* 1 for packed 4:2:2 (YUY2, UYVY): one plane of macropixels, described
   * as 4-byte pixels of half the width whose samples are Y, U, Y, V in
   * some order. The kernel families work on its planar twin and refuse
   * it; packed.h converts between the two. */
  int packed;
} CfFormatInfo;

/* The largest value of a sample of @info: 2^bits - 1. */
#define CF_FORMAT_MAX_VALUE(info) ((1u << (info)->bits) - 1u)
/* The value a @sample holds, and the sample that holds @value (0 outside
 * it); macros, so that CUDA code uses them too. */
#define CF_SAMPLE_VALUE(sample, bits, lsb) \
  (((unsigned) (sample) >> (lsb)) & ((1u << (bits)) - 1u))
#define CF_VALUE_SAMPLE(value, lsb) ((unsigned) (value) << (lsb))

typedef struct {
  CfFormat format;
  int width, height;            /* of the picture, in pixels (1 .. CF_MAX_SIDE) */
  void *data[CF_MAX_PLANES];    /* first byte of each plane */
  size_t pitch[CF_MAX_PLANES];  /* bytes from one row to the next */
} CfImage;

/* NULL for an unknown format. */
const CfFormatInfo *cf_format_info (CfFormat format);

/* CF_FORMAT_COUNT when the name is unknown. */
CfFormat cf_format_from_name (const char *name);

/* Size of plane @plane of a @width x @height picture: subsampled planes are
 * rounded up, as GStreamer rounds them (a 3x3 I420 picture has 2x2 chroma). */
int cf_plane_width (CfFormat format, int plane, int width);
int cf_plane_height (CfFormat format, int plane, int height);
size_t cf_plane_row_bytes (CfFormat format, int plane, int width);

/* Checks what every function of the library expects of an image: a known
 * format, a size within 1..CF_MAX_SIDE, a non-NULL pointer per plane and a
 * pitch of at least one row. Returns 0 when it is valid, -1 otherwise. */
int cf_image_check (const CfImage * image);
/* The same for the kernel families that take no packed format (all but
 * packed.h's): -1 for a packed one too. */
int cf_image_check_planar (const CfImage * image);

/* @view = the @width x @height pixels of @image from (@x, @y): same
 * memory, plane pointers moved. On subsampled planes x and y must be even.
 * Returns 0, or -1 when the rectangle leaves the picture or is misaligned. */
int cf_image_view (const CfImage * image, int x, int y, int width, int height,
    CfImage * view);

/* Copies the samples of every row of @src into @dst (host memory, same
 * format and size, any pitches; the bytes past a row's end untouched).
 * Returns 0, or -1 when the images do not match. */
int cf_image_copy (const CfImage * src, const CfImage * dst);
/* The same for rows [@r0, @r1) only, counted over the planes one after
 * another (plane 0's rows, then plane 1's, ...), images already checked:
 * the parts of cf_image_copy_threads () (device.h). */
void cf_image_copy_rows (const CfImage * src, const CfImage * dst, int r0,
    int r1);

/* Lays a @width x @height picture of @format out as one allocation: every
 * plane's rows rounded up to @row_align bytes (a power of two), planes on
 * 256-byte boundaries. @layout gets the format, size and pitches, and in
 * data[] each plane's offset from the start; returns the bytes of the
 * whole. cf_image_at () places it. */
size_t cf_image_layout (CfFormat format, int width, int height,
    size_t row_align, CfImage * layout);
CfImage cf_image_at (const CfImage * layout, void *base);

#ifdef __cplusplus
}
#endif
#endif /* CF_FORMAT_H */
