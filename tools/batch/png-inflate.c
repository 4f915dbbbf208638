/* cudafilters-batch: a PNG's image data inflated and unfiltered ahead of
 * libpng (png-inflate.h).
 */
#include "png-inflate.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "format.h"
#include "png-filter.h"

#ifdef CF_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

/* The rewritten stream's stored blocks: the most a block holds */
#define BLOCK_MAX 65535u

static uint32_t
be32 (const uint8_t * p)
{
  return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8
      | p[3];
}

static void
put_be32 (uint8_t * p, uint32_t v)
{
  p[0] = v >> 24;
  p[1] = v >> 16;
  p[2] = v >> 8;
  p[3] = v;
}

/* Adam7: where each pass starts and its steps, in x and in y */
static const int pass_x0[7] = { 0, 4, 0, 2, 0, 1, 0 };
static const int pass_dx[7] = { 8, 8, 4, 4, 2, 2, 1 };
static const int pass_y0[7] = { 0, 0, 4, 0, 2, 0, 1 };
static const int pass_dy[7] = { 8, 8, 8, 4, 4, 2, 2 };

/* The image's geometry, from IHDR */
typedef struct
{
  uint32_t width, height;
  int bits;                     /* per pixel */
  int interlaced;
} Geometry;

static size_t
row_bytes (const Geometry * g, uint32_t width)
{
  return ((size_t) width * g->bits + 7) / 8;
}

/* The width and height of pass @p (the whole picture without interlace);
 * a pass with either 0 has no rows, not even filter bytes. */
static void
pass_size (const Geometry * g, int p, uint32_t * w, uint32_t * h)
{
  if (!g->interlaced) {
    *w = g->width;
    *h = g->height;
    return;
  }
  *w = g->width > (uint32_t) pass_x0[p] ?
      (g->width - pass_x0[p] + pass_dx[p] - 1) / pass_dx[p] : 0;
  *h = g->height > (uint32_t) pass_y0[p] ?
      (g->height - pass_y0[p] + pass_dy[p] - 1) / pass_dy[p] : 0;
}

/* IHDR's fields, checked as libpng checks them (anything else is libpng's
 * to refuse), and the limits. */
static int
parse_ihdr (const uint8_t * d, uint64_t max_pixels, Geometry * g)
{
  static const int channels[7] = { 1, 0, 3, 1, 2, 0, 4 };
  int depth = d[8], type = d[9];

  g->width = be32 (d);
  g->height = be32 (d + 4);
  if (g->width < 1 || g->height < 1 || g->width > CF_MAX_SIDE
      || g->height > CF_MAX_SIDE
      || (uint64_t) g->width * g->height > max_pixels)
    return -1;
  if (type > 6 || channels[type] == 0 || d[10] != 0 || d[11] != 0
      || d[12] > 1)
    return -1;
  switch (depth) {
    case 1:
    case 2:
    case 4:
      if (type != 0 && type != 3)
        return -1;
      break;
    case 8:
      break;
    case 16:
      if (type == 3)
        return -1;
      break;
    default:
      return -1;
  }
  g->bits = channels[type] * depth;
  g->interlaced = d[12];
  return 0;
}

/* The IDAT chunks' data, one piece at a time: *@pos is the offset of the
 * next chunk in the run [.., @end). Returns 0 at the end. */
static int
next_idat (const CfPngInflated * f, size_t * pos, const uint8_t ** data,
    size_t * len)
{
  if (*pos >= f->idat_end)
    return 0;
  *len = be32 (f->file + *pos);
  *data = f->file + *pos + 8;
  *pos += 12 + *len;
  return 1;
}

#ifdef CF_HAVE_ISAL
/* The zlib header (CMF, FLG), as zlib checks it: deflate, a window of at
 * most 32 KiB, the check bits, no preset dictionary. Returns the window's
 * log2, or -1. */
static int
zlib_window (uint8_t cmf, uint8_t flg)
{
  if ((cmf & 0x0f) != 8 || (cmf >> 4) > 7 || (cmf * 256 + flg) % 31 != 0
      || (flg & 0x20))
    return -1;
  return (cmf >> 4) + 8;
}

/* Inflates the IDAT run into f->data with ISA-L: 0 when the stream ends,
 * Adler-32 right, exactly at the end of the data and of the input. The
 * window is the header's (hist_bits), as zlib's, so that no stream with
 * references farther back than it declares gets through. */
static int
inflate_run (CfPngInflated * f)
{
  struct inflate_state *st = malloc (sizeof *st);
  uint8_t header[2];
  size_t pos = f->idat_begin, len = 0, got = 0;
  const uint8_t *in = NULL;
  int window, ok = 0;

  if (!st)
    return -1;
  /* the header may lie across chunks (PngSuite's oi9 has 1-byte IDATs) */
  while (got < 2 && next_idat (f, &pos, &in, &len)) {
    while (got < 2 && len > 0) {
      header[got++] = *in++;
      len--;
    }
  }
  window = got == 2 ? zlib_window (header[0], header[1]) : -1;
  if (window < 0) {
    free (st);
    return -1;
  }
  isal_inflate_init (st);
  st->crc_flag = ISAL_ZLIB_NO_HDR_VER;
  st->hist_bits = window;
  st->next_out = f->data;
  st->avail_out = (uint32_t) f->data_len;
  for (;;) {
    st->next_in = (uint8_t *) in;
    st->avail_in = (uint32_t) len;
    while (st->avail_in > 0 && st->block_state != ISAL_BLOCK_FINISH) {
      uint32_t before_in = st->avail_in, before_out = st->avail_out;

      if (isal_inflate (st) != ISAL_DECOMP_OK)
        goto out;
      /* no progress: the output is full before the stream ends */
      if (st->avail_in == before_in && st->avail_out == before_out)
        goto out;
    }
    if (st->block_state == ISAL_BLOCK_FINISH)
      break;
    if (!next_idat (f, &pos, &in, &len)) {
      /* the input ended: the stream must have too (its last bytes may
       * still be inside ISA-L) */
      st->next_in = (uint8_t *) f->file;
      st->avail_in = 0;
      if (isal_inflate (st) != ISAL_DECOMP_OK)
        goto out;
      break;
    }
  }
  /* the end of the stream, all the data, and no input left over (another
   * chunk's worth of it, or bytes after the checksum) */
  ok = st->block_state == ISAL_BLOCK_FINISH && st->avail_out == 0
      && st->total_out == f->data_len && st->avail_in == 0
      && pos >= f->idat_end;
out:
  free (st);
  return ok ? 0 : -1;
}

const char *
cf_png_inflater_name (void)
{
  return "isa-l";
}
#else
/* The same with zlib, windowBits 0: the header's window, as libpng asks. */
static int
inflate_run (CfPngInflated * f)
{
  z_stream z;
  size_t pos = f->idat_begin, len;
  const uint8_t *in;
  int ret = Z_OK, ok;

  memset (&z, 0, sizeof z);
  if (inflateInit2 (&z, 0) != Z_OK)
    return -1;
  z.next_out = f->data;
  z.avail_out = 0;
  while (ret == Z_OK && next_idat (f, &pos, &in, &len)) {
    z.next_in = (Bytef *) in;
    z.avail_in = (uInt) len;
    while (ret == Z_OK && z.avail_in > 0) {
      size_t left = f->data_len - (size_t) (z.next_out - f->data);

      /* avail_out is 32 bits: a gigabyte at a time */
      z.avail_out = left > (1u << 30) ? 1u << 30 : (uInt) left;
      ret = inflate (&z, Z_NO_FLUSH);
      if (ret == Z_BUF_ERROR)   /* the output is full before the end */
        break;
    }
  }
  ok = ret == Z_STREAM_END && z.avail_in == 0 && pos >= f->idat_end
      && (size_t) (z.next_out - f->data) == f->data_len;
  inflateEnd (&z);
  return ok ? 0 : -1;
}

const char *
cf_png_inflater_name (void)
{
  return "zlib";
}
#endif

/* Walks the chunks from the signature to IEND: every critical chunk's CRC,
 * one run of IDATs, IHDR first. Fills f->idat_begin, f->idat_end and
 * @g. */
static int
walk_chunks (CfPngInflated * f, uint64_t max_pixels, Geometry * g)
{
  static const uint8_t signature[8] = { 137, 'P', 'N', 'G', 13, 10, 26, 10 };
  size_t pos = 8;
  int run = 0;                  /* 0 before the IDATs, 1 in them, 2 after */

  if (f->size < 8 || memcmp (f->file, signature, 8) != 0)
    return -1;
  for (;;) {
    const uint8_t *type;
    uint32_t len;

    if (f->size - pos < 12)
      return -1;
    len = be32 (f->file + pos);
    type = f->file + pos + 4;
    if (len > 0x7fffffffu || f->size - pos - 12 < len)
      return -1;
    if (pos == 8 && (memcmp (type, "IHDR", 4) != 0 || len != 13
            || parse_ihdr (type + 4, max_pixels, g) != 0))
      return -1;
    /* critical chunks (type's first letter upper case) */
    if (!(type[0] & 0x20)
        && crc32 (0, type, 4 + len) != be32 (type + 4 + len))
      return -1;
    if (memcmp (type, "IDAT", 4) == 0) {
      if (run == 2)
        return -1;
      if (run == 0)
        f->idat_begin = pos;
      run = 1;
      f->idat_end = pos + 12 + len;
    } else if (run == 1) {
      run = 2;
    }
    pos += 12 + (size_t) len;
    if (memcmp (type, "IEND", 4) == 0)
      return run == 2 ? 0 : -1;
  }
}

uint8_t *
cf_png_buffer_reserve (CfPngBuffer * buf, size_t bytes)
{
  if (bytes > buf->capacity) {
    free (buf->data);
    buf->data = malloc (bytes ? bytes : 1);
    buf->capacity = buf->data ? bytes : 0;
  }
  return buf->data;
}

void
cf_png_buffer_free (CfPngBuffer * buf)
{
  free (buf->data);
  buf->data = NULL;
  buf->capacity = 0;
}

int
cf_png_inflate_image (CfPngInflated * f, const uint8_t * file, size_t size,
    uint64_t max_pixels, CfPngBuffer * buf)
{
  Geometry g;
  size_t total = 0;
  int bpp;

  memset (f, 0, sizeof *f);
  f->file = file;
  f->size = size;
  if (walk_chunks (f, max_pixels, &g) != 0)
    goto fail;
  for (int p = 0; p < (g.interlaced ? 7 : 1); p++) {
    uint32_t w, h;

    pass_size (&g, p, &w, &h);
    if (w && h)
      total += (size_t) h *(1 + row_bytes (&g, w));
  }
  /* ISA-L counts its output in 32 bits */
  if (total > 0xffffffffu)
    goto fail;
  f->data = cf_png_buffer_reserve (buf, total);
  f->data_len = total;
  if (!f->data || inflate_run (f) != 0)
    goto fail;

  bpp = g.bits < 8 ? 1 : g.bits / 8;
  total = 0;
  for (int p = 0; p < (g.interlaced ? 7 : 1); p++) {
    uint32_t w, h;

    pass_size (&g, p, &w, &h);
    if (!w || !h)
      continue;
    if (cf_png_unfilter_rows (f->data + total, h, row_bytes (&g, w), bpp)
        != 0)
      goto fail;
    total += (size_t) h *(1 + row_bytes (&g, w));
  }
  return 0;

fail:
  cf_png_inflated_clear (f);
  return -1;
}

void
cf_png_inflated_checksum (CfPngInflated * f)
{
  uLong a = adler32 (0, NULL, 0);

  for (size_t i = 0; i < f->data_len; i += 1u << 30)
    a = adler32 (a, f->data + i, (uInt) (f->data_len - i < (1u << 30) ?
            f->data_len - i : 1u << 30));
  f->adler = (uint32_t) a;
}

/* The stream's pieces, in order: step 0 the file from after the signature
 * to the first IDAT; then three steps for each stored block: its chunk's
 * header (with the zlib header before the first block) and the block's
 * header, its data, its chunk's CRC (with the Adler-32 before the last);
 * then the file from after the last IDAT to its end. Sets f->piece;
 * returns 0, or -1 after the end. */
static int
next_piece (CfPngInflated * f)
{
  const size_t blocks = (f->data_len + BLOCK_MAX - 1) / BLOCK_MAX;
  size_t s = f->step++;

  f->piece_pos = 0;
  if (s == 0) {
    f->piece = f->file + 8;
    f->piece_len = f->idat_begin - 8;
  } else if (s <= 3 * blocks) {
    const size_t b = (s - 1) / 3, at = b * BLOCK_MAX;
    const size_t len = f->data_len - at < BLOCK_MAX ? f->data_len - at :
        BLOCK_MAX;
    const int first = b == 0, last = b + 1 == blocks;
    uint8_t *p = f->frame;

    switch ((s - 1) % 3) {
      case 0:
        /* the chunk: [zlib header] block header, data, [Adler-32] */
        put_be32 (p, (first ? 2 : 0) + 5 + len + (last ? 4 : 0));
        memcpy (p + 4, "IDAT", 4);
        p += 8;
        if (first) {
          /* deflate, 32 KiB window, no dictionary: 0x7801 % 31 == 0 */
          *p++ = 0x78;
          *p++ = 0x01;
        }
        *p++ = last;            /* BFINAL, BTYPE 00: stored */
        *p++ = len & 0xff;
        *p++ = len >> 8;
        *p++ = ~len & 0xff;
        *p++ = (~len >> 8) & 0xff;
        f->piece = f->frame;
        f->piece_len = p - f->frame;
        break;
      case 1:
        f->piece = f->data + at;
        f->piece_len = len;
        break;
      default:
        if (last) {
          put_be32 (p, f->adler);
          p += 4;
        }
        /* the chunk's CRC: not checked (png_set_crc_action ()) */
        put_be32 (p, 0);
        p += 4;
        f->piece = f->frame;
        f->piece_len = p - f->frame;
        break;
    }
  } else if (s == 3 * blocks + 1) {
    f->piece = f->file + f->idat_end;
    f->piece_len = f->size - f->idat_end;
  } else {
    f->piece_len = 0;
    return -1;
  }
  return 0;
}

size_t
cf_png_inflated_read (CfPngInflated * f, uint8_t * dst, size_t n)
{
  size_t done = 0;

  while (done < n) {
    size_t k;

    if (f->piece_pos == f->piece_len && next_piece (f) != 0)
      break;
    k = f->piece_len - f->piece_pos;
    if (k > n - done)
      k = n - done;
    memcpy (dst + done, f->piece + f->piece_pos, k);
    f->piece_pos += k;
    done += k;
  }
  return done;
}

void
cf_png_inflated_clear (CfPngInflated * f)
{
  memset (f, 0, sizeof *f);
}
