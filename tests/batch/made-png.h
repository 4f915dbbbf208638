/* PNG files made byte by byte for the batch tests (test-png-io.c,
 * test-batch-cli.c): chunks with their CRCs, and gray pictures whose
 * IDAT inflates to a chosen number of bytes (valid, short, excess, bombs).
 */
#ifndef CF_MADE_PNG_H
#define CF_MADE_PNG_H

#include <glib.h>
#include <string.h>
#include <zlib.h>

/* Appends a chunk of @type with @len bytes of @data and its CRC. */
static inline void
put_chunk (GByteArray * png, const char *type, const void *data, guint32 len)
{
  guint32 be = GUINT32_TO_BE (len), crc;

  g_byte_array_append (png, (guint8 *) & be, 4);
  g_byte_array_append (png, (const guint8 *) type, 4);
  if (len)
    g_byte_array_append (png, data, len);
  crc = crc32 (0, (const Bytef *) type, 4);
  if (len)
    crc = crc32 (crc, data, len);
  be = GUINT32_TO_BE (crc);
  g_byte_array_append (png, (guint8 *) & be, 4);
}

/* Writes @path: a gray 8-bit PNG of @width x @height whose IDAT is the zlib
 * stream of @raw_len zero bytes (rows of filter type 0, all black): raw_len
 * = (width + 1) * height is a valid image, more is excess data, less too
 * little. Every CRC is right. */
static inline void
write_gray_png (const char *path, guint32 width, guint32 height,
    gsize raw_len)
{
  static const guint8 sig[8] = { 137, 'P', 'N', 'G', 13, 10, 26, 10 };
  GByteArray *png = g_byte_array_new ();
  guint8 ihdr[13] = { 0 };
  guint32 be;
  guint8 *raw = g_malloc0 (raw_len), *z;
  uLongf z_len = compressBound (raw_len);

  z = g_malloc (z_len);
  g_assert_cmpint (compress2 (z, &z_len, raw, raw_len, 9), ==, Z_OK);
  g_byte_array_append (png, sig, 8);
  be = GUINT32_TO_BE (width);
  memcpy (ihdr, &be, 4);
  be = GUINT32_TO_BE (height);
  memcpy (ihdr + 4, &be, 4);
  ihdr[8] = 8;                  /* depth; colour type 0, the rest 0 */
  put_chunk (png, "IHDR", ihdr, 13);
  put_chunk (png, "IDAT", z, z_len);
  put_chunk (png, "IEND", NULL, 0);
  g_assert_true (g_file_set_contents (path, (char *) png->data, png->len,
          NULL));
  g_byte_array_unref (png);
  g_free (raw);
  g_free (z);
}

#endif /* CF_MADE_PNG_H */
