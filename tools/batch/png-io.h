/* cudafilters-batch: PNG input and output.
 *
 * Decodes every PNG colour type and depth into one of the kernel library's
 * formats, and writes those formats back as PNG. Plain C, no shared state:
 * each call is independent, so a thread pool may decode many files at once
 * (the reader keeps its large buffers per thread, from file to file).
 *
 * Reading: libpng reads every file. Ahead of it, png-inflate.h's fast path
 * inflates (ISA-L where built with it) and unfilters (SSE2) the image data
 * of the files it takes, checking their CRCs and checksum; libpng then
 * reads the file with that data in place of the IDATs. What libpng alone
 * refuses, the fast path gives back to it: the answers are libpng's.
 * Writing: libpng writes every file, its adaptive filters chosen row by
 * row with SIMD by libpng's own rule (png-filter.h): the same bytes.
 *
 * What a PNG decodes to (one plane, host memory; 8-bit data stays 8-bit,
 * 16-bit data 16-bit):
 *
 *   PNG                                 CfFormat     samples
 *   gray 1/2/4 bits                     GRAY8        scaled to 0..255: 1-bit
 *                                                    0/1 -> 0/255, 2-bit x85,
 *                                                    4-bit x17
 *   gray 8 bits                         GRAY8        as stored
 *   gray 16 bits                        GRAY16_LE    as stored (PNG is big-
 *                                                    endian; swapped)
 *   gray + alpha 8, gray + tRNS 8       RGBA         gray copied to R, G, B
 *   palette 1/2/4/8                     RGB          palette expanded
 *   palette + tRNS                      RGBA         alpha from tRNS
 *   RGB 8                               RGB          as stored
 *   RGB + tRNS                          RGBA         the tRNS colour gets
 *                                                    alpha 0, others 255
 *   RGBA 8                              RGBA         as stored
 *   RGB 16                              RGBA64_LE    as stored, alpha 65535
 *                                                    (the library has no
 *                                                    3-sample 16-bit format)
 *   RGBA 16, gray + alpha 16,           RGBA64_LE    as stored, gray copied
 *   gray 16 + tRNS, RGB 16 + tRNS                    to R, G, B; the tRNS
 *                                                    colour alpha 0, others
 *                                                    65535
 *   Adam7 interlaced                    as above     deinterlaced
 *
 * Ancillary chunks (gAMA, bKGD, text, ...) are not applied and not kept.
 *
 * The writer stores the pixels losslessly: decoding what it wrote gives the
 * same samples, bit for bit. It uses the PNG type the image was read from
 * (png_color_type, png_bit_depth) when the pixels still fit it (a palette of
 * at most 256 colours, gray values on the 1/2/4-bit scale, R = G = B for
 * gray + alpha), otherwise the plain type of the format: GRAY8 -> gray 8,
 * GRAY16_LE -> gray 16, RGB -> RGB 8, RGBA -> RGBA 8, RGBA64_LE -> RGBA
 * 16 (RGB 16 when the file was RGB 16 and every alpha is still 65535, gray
 * + alpha 16 when it was gray and R = G = B). Outputs are never
 * interlaced.
 */
#ifndef CF_PNG_IO_H
#define CF_PNG_IO_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* --max-pixels: 100 Mpixel */
#define CF_PNG_DEFAULT_MAX_PIXELS 100000000u
/* Largest ancillary chunk or decompressed text kept in memory while
 * reading; larger ones are skipped (libpng's own default is 8 MB). */
#define CF_PNG_DEFAULT_MAX_CHUNK_BYTES (8u << 20)
/* --compression: zlib level 0..9 */
#define CF_PNG_DEFAULT_COMPRESSION 6

  typedef struct
  {
    uint64_t max_pixels;        /* width x height above this is refused; 0 = default */
    size_t max_chunk_bytes;     /* 0 = default */
    /* 1: libpng inflates and unfilters the image itself, as before the
     * fast path (png-inflate.h): the reference that tests compare with */
    int libpng_inflate;
  } CfPngLimits;

  typedef struct
  {
    CfImage image;              /* GRAY8, GRAY16_LE, RGB, RGBA or RGBA64_LE;
                                 * owns data[0] */
    /* What the file held, as libpng names it (PNG_COLOR_TYPE_*, 1..16): the
     * writer's first choice. -1 when the image comes from elsewhere. */
    int png_color_type;
    int png_bit_depth;
    int interlaced;             /* the file was Adam7 interlaced */
    int borrowed;               /* data[0] is the caller's (cf_png_read_into ()):
                                 * cf_png_image_clear () does not free it */
  } CfPngImage;

/* Memory for @bytes of decoded pixels, or NULL when there is none (the read
 * then fails with "out of memory"). */
  typedef void *(*CfPngAllocFunc) (size_t bytes, void *user_data);

/* Decodes the PNG file @path into @img (which cf_png_image_clear () frees
 * after success; after an error there is nothing to free). @limits may be
 * NULL for the defaults. Returns 0, or -1 with a one-line message in @err
 * naming the file ("PATH: not a PNG file", "PATH: image is 20000x20000, over
 * the limit of 100000000 pixels", ...). Never prints and never aborts. */
  int cf_png_read (const char *path, const CfPngLimits * limits,
      CfPngImage * img, char *err, size_t err_len);

/* cf_png_read () that decodes into memory from @alloc (tightly packed rows)
 * instead of its own: the batch tool decodes straight into pinned buffers
 * it reuses. @img->borrowed is set. @alloc is called after the header
 * passed the limits, once, or twice in the rare case where the fast path
 * gives the file back to libpng after allocating (the second call's memory
 * then holds the picture). */
  int cf_png_read_into (const char *path, const CfPngLimits * limits,
      CfPngAllocFunc alloc, void *user_data, CfPngImage * img, char *err,
      size_t err_len);

/* How the deflate stream of a written file looks for matches. */
  typedef enum
  {
    /* per picture: Z_RLE where a sample of the picture says it compresses
     * within 3% of the default (photographs), else the default (drawings,
     * screenshots); see choose_strategy () in png-io.c */
    CF_PNG_STRATEGY_AUTO,
    CF_PNG_STRATEGY_DEFAULT,    /* libpng's: Z_FILTERED */
    CF_PNG_STRATEGY_RLE         /* Z_RLE: runs only, several times faster */
  } CfPngStrategy;

/* What cf_png_write () adds to a path for its temporary file: PATH.tmp-
 * and six letters or digits (mkstemp ()'s XXXXXX). */
#define CF_PNG_TEMP_SUFFIX ".tmp-XXXXXX"

/* Whether @name (a file name, no folder) is one of cf_png_write ()'s
 * temporary files for the file @target (a name in the same folder), as a
 * killed writer leaves them: @target, ".tmp-", six characters of
 * [A-Za-z0-9]. Returns 1 or 0. */
  int cf_png_is_temp_name (const char *name, const char *target);

/* Encodes @img into the PNG file @path at zlib level @compression (0..9),
 * CF_PNG_STRATEGY_AUTO.
 * The data goes to a temporary file PATH.tmp-XXXXXX in the same directory,
 * is flushed to disk, then renamed over @path; on any error the temporary
 * file is removed and @path is untouched. Returns 0, or -1 with a one-line
 * message in @err naming the file. */
  int cf_png_write (const char *path, const CfPngImage * img, int compression,
      char *err, size_t err_len);
/* cf_png_write () with a chosen @strategy. The pixels are the same whatever
 * the strategy; only the file's size and the time to write it change. */
  int cf_png_write_with (const char *path, const CfPngImage * img,
      int compression, CfPngStrategy strategy, char *err, size_t err_len);

/* Allocates @img for a @width x @height picture of @format (GRAY8,
 * GRAY16_LE, RGB or RGBA), tightly packed, zero-filled, with no PNG type
 * hint. Returns 0, or -1 when the format or size is not supported or
 * memory runs out. */
  int cf_png_image_alloc (CfPngImage * img, CfFormat format, int width,
      int height);

/* Frees the pixels of @img and zeroes it; safe on a zeroed image. */
  void cf_png_image_clear (CfPngImage * img);

#ifdef __cplusplus
}
#endif
#endif                          /* CF_PNG_IO_H */
