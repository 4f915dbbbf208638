/* cudafilters-batch: PNG's row filters, for png-io.c's reader and writer.
 *
 * libpng stays the PNG reader and writer; these two functions do the part
 * of its work that costs the most on big pictures, with SSE2 where the
 * machine has it (every x86-64 does) and in plain C elsewhere:
 *
 * - cf_png_unfilter_rows () undoes the filters of inflated image data, so
 *   that libpng gets rows of filter type 0 (None) to copy;
 * - cf_png_choose_filter () picks a row's filter by libpng 1.6's own
 *   adaptive rule, so that the writer can tell libpng which filter to use
 *   (png_set_filter () before each row) instead of letting it try all five
 *   in plain C: the same filter, so the same bytes.
 *
 * bpp is PNG's "bytes per complete pixel, rounded up to one": the distance
 * to the byte on the left that the filters use (1 for depths below 8).
 */
#ifndef CF_PNG_FILTER_H
#define CF_PNG_FILTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* Undoes the filters of @rows rows of @row_bytes bytes each, stored as PNG
 * stores them: a filter-type byte, then the row (so @data holds @rows x
 * (1 + @row_bytes) bytes). The row above the first is zeros. Each row is
 * unfiltered in place and its type byte set to 0. Returns 0, or -1 when a
 * type byte is not 0..4 (the data is then partly unfiltered). */
  int cf_png_unfilter_rows (uint8_t * data, size_t rows, size_t row_bytes,
      int bpp);

/* The filter type (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth) that libpng
 * 1.6's adaptive filtering gives @row (@row_bytes bytes, as written, after
 * libpng's transforms) below @prev (the previous row as written; zeros
 * above the first row): the least sum of the filtered bytes
 * taken as signed magnitudes, the first type of the smallest in a tie. */
  int cf_png_choose_filter (const uint8_t * row, const uint8_t * prev,
      size_t row_bytes, int bpp);

#ifdef __cplusplus
}
#endif
#endif                          /* CF_PNG_FILTER_H */
