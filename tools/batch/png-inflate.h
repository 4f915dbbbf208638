/* cudafilters-batch: the image data of a PNG file inflated and unfiltered
 * ahead of libpng, which then reads the file with that data in place of
 * its IDAT chunks (png-io.c's fast path).
 *
 * libpng 1.6 inflates IDAT with zlib and unfilters rows in plain C, and has
 * no way to plug in another inflater (PNG_INFLATE is zlib's inflate ()).
 * So this module does both first, from the whole file in memory: Intel's
 * ISA-L inflate where the build has it (about 2.5 times as fast as zlib's
 * on photographs), zlib's otherwise, and png-filter.c's SIMD unfiltering.
 * libpng then reads a rewritten stream: the file's own bytes up to its
 * first IDAT and after its last, and between them IDAT chunks holding one
 * stored (uncompressed) deflate stream of the unfiltered rows, all of
 * filter type 0. libpng still parses every chunk, checks the ancillary
 * chunks' CRCs, applies its transforms (palette, gray, tRNS, 16-bit
 * swapping), deinterlaces and writes the rows into the caller's memory;
 * inflating a stored stream and unfiltering type 0 are copies.
 *
 * It is an accelerator, never a judge: cf_png_inflate_image () takes a file
 * only when everything it checks is right, and otherwise says no, so that
 * png-io.c lets libpng read the file as it always did (which then decodes
 * it or gives libpng's error). It checks: the signature; IHDR first, with a
 * valid type, depth and size within the limits; the CRC of every critical
 * chunk (IHDR, PLTE, IDAT, IEND, and unknown critical ones) up to IEND; one
 * run of consecutive IDAT chunks; a zlib header that zlib accepts; a
 * deflate stream that ends exactly after the image's bytes, with its
 * Adler-32 right and nothing after it; every row's filter type 0..4. The
 * rewritten stream's own IDAT CRCs and Adler-32 are not meaningful, so the
 * reader tells libpng not to check them (png_set_crc_action () for critical
 * chunks, PNG_IGNORE_ADLER32): the file's were checked here.
 */
#ifndef CF_PNG_INFLATE_H
#define CF_PNG_INFLATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* Memory kept from picture to picture: tens of megabytes, which fresh
 * from the system each time cost a page fault per 4 KiB. */
  typedef struct
  {
    uint8_t *data;
    size_t capacity;
  } CfPngBuffer;

/* @buf's memory grown to at least @bytes (contents not kept); NULL when
 * there is none. */
  uint8_t *cf_png_buffer_reserve (CfPngBuffer * buf, size_t bytes);
  void cf_png_buffer_free (CfPngBuffer * buf);

  typedef struct
  {
    const uint8_t *file;        /* the whole file, the caller's */
    size_t size;
    size_t idat_begin, idat_end;        /* the IDAT run, chunk headers to CRCs */
    uint8_t *data;              /* every pass's rows, filter type 0: the
                                 * memory of the caller's CfPngBuffer */
    size_t data_len;
    uint32_t adler;             /* of data: see cf_png_inflated_checksum () */
    /* where cf_png_inflated_read () is: a piece of the stream at a time */
    size_t step;
    const uint8_t *piece;
    size_t piece_len, piece_pos;
    uint8_t frame[16];          /* a chunk's framing bytes */
  } CfPngInflated;

/* Inflates and unfilters the image data of the PNG file @file (@size
 * bytes, signature included) into @buf, described by @f, checking what
 * png-inflate.h lists. Pictures of more than @max_pixels pixels or a side
 * over CF_MAX_SIDE are refused before anything is allocated. Returns 0, or
 * -1 when libpng must read the file itself (@f then holds nothing). */
  int cf_png_inflate_image (CfPngInflated * f, const uint8_t * file,
      size_t size, uint64_t max_pixels, CfPngBuffer * buf);

/* Sets the Adler-32 that the rewritten stream carries to the true one of
 * the unfiltered rows, for a libpng that cannot be told to skip it. */
  void cf_png_inflated_checksum (CfPngInflated * f);

/* The next @n bytes (or fewer at the end) of the rewritten file, after the
 * 8-byte signature: libpng's read function. Returns how many. */
  size_t cf_png_inflated_read (CfPngInflated * f, uint8_t * dst, size_t n);

/* Which inflater cf_png_inflate_image () uses: "isa-l" or "zlib". */
  const char *cf_png_inflater_name (void);

/* Zeroes @f (its data stays in the CfPngBuffer); safe on a zeroed one. */
  void cf_png_inflated_clear (CfPngInflated * f);

#ifdef __cplusplus
}
#endif
#endif                          /* CF_PNG_INFLATE_H */
