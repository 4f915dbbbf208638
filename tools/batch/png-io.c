/* cudafilters-batch: PNG input and output (see png-io.h for the formats).
 *
 * libpng reports errors by calling our error function, which records the
 * message and longjmps back to the setjmp in decode () or encode (); those
 * two functions keep all their state in a context owned by the caller, so
 * nothing they touch after setjmp is a local that longjmp could clobber.
 * The limits are checked before any pixel memory is allocated: libpng's
 * user limits refuse a side over CF_MAX_SIDE while it parses IHDR, and
 * decode () refuses width x height over max_pixels right after. That also
 * stops decompression bombs: a small IDAT can only claim a large picture
 * through IHDR, and libpng stops inflating once the rows are full.
 */
#include "png-io.h"
#include "png-filter.h"
#include "png-inflate.h"

#include <errno.h>
#include <fcntl.h>
#include <png.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

typedef struct
{
  const char *path;             /* the file named in every message */
  char *err;
  size_t err_len;
  FILE *fp;
  png_structp png;
  png_infop info;
  char ihdr_warning[128];       /* why libpng found IHDR invalid */
  char msg[160];                /* our own messages, passed to png_error */
} IoCommon;

static void
set_error (char *err, size_t err_len, const char *path, const char *fmt, ...)
{
  char reason[256];
  va_list args;

  if (!err || err_len == 0)
    return;
  va_start (args, fmt);
  vsnprintf (reason, sizeof reason, fmt, args);
  va_end (args);
  snprintf (err, err_len, "%s: %s", path, reason);
}

/* Must not return: libpng would abort () if it did. */
static void
on_png_error (png_structp png, png_const_charp message)
{
  IoCommon *c = png_get_error_ptr (png);

  /* png_check_IHDR warns with the reason and then fails with a generic
   * "Invalid IHDR data": give the reason. */
  if (c->ihdr_warning[0] && strstr (message, "IHDR"))
    set_error (c->err, c->err_len, c->path, "%s (%s)", message,
        c->ihdr_warning);
  else
    set_error (c->err, c->err_len, c->path, "%s", message);
  png_longjmp (png, 1);
}

/* Warnings are not printed (a library must not write to stderr); the only
 * one kept is the reason for an IHDR error that follows it. */
static void
on_png_warning (png_structp png, png_const_charp message)
{
  IoCommon *c = png_get_error_ptr (png);

  if (!c->ihdr_warning[0] && strstr (message, "IHDR"))
    snprintf (c->ihdr_warning, sizeof c->ihdr_warning, "%s", message);
}

static void
on_png_read (png_structp png, png_bytep data, size_t length)
{
  IoCommon *c = png_get_io_ptr (png);

  if (fread (data, 1, length, c->fp) == length)
    return;
  if (ferror (c->fp))
    snprintf (c->msg, sizeof c->msg, "read error: %s", strerror (errno));
  else
    snprintf (c->msg, sizeof c->msg, "file is truncated");
  png_error (png, c->msg);
}

static void
on_png_write (png_structp png, png_bytep data, size_t length)
{
  IoCommon *c = png_get_io_ptr (png);

  if (fwrite (data, 1, length, c->fp) == length)
    return;
  snprintf (c->msg, sizeof c->msg, "write error: %s", strerror (errno));
  png_error (png, c->msg);
}

static void
on_png_flush (png_structp png)
{
}

static int
bytes_per_pixel (CfFormat format)
{
  switch (format) {
    case CF_FORMAT_GRAY8:
      return 1;
    case CF_FORMAT_GRAY16_LE:
      return 2;
    case CF_FORMAT_RGB:
      return 3;
    case CF_FORMAT_RGBA:
      return 4;
    case CF_FORMAT_RGBA64_LE:
      return 8;
    default:
      return 0;
  }
}

int
cf_png_image_alloc (CfPngImage * img, CfFormat format, int width, int height)
{
  int bpp = bytes_per_pixel (format);

  memset (img, 0, sizeof *img);
  if (bpp == 0 || width < 1 || height < 1 || width > CF_MAX_SIDE
      || height > CF_MAX_SIDE)
    return -1;
  img->image.data[0] = calloc ((size_t) width * height, bpp);
  if (!img->image.data[0])
    return -1;
  img->image.format = format;
  img->image.width = width;
  img->image.height = height;
  img->image.pitch[0] = (size_t) width *bpp;
  img->png_color_type = -1;
  return 0;
}

void
cf_png_image_clear (CfPngImage * img)
{
  if (!img)
    return;
  if (!img->borrowed)
    free (img->image.data[0]);
  memset (img, 0, sizeof *img);
}

/* ------------------------------------------------------------------ read */

/* The fast path reads files up to this size whole into memory (see
 * cf_png_read_into ()); larger ones are read as a stream by libpng. */
#define FAST_MAX_FILE_BYTES ((size_t) 1 << 30)

typedef struct
{
  IoCommon c;
  uint64_t max_pixels;
  size_t max_chunk;
  CfPngImage *img;
  png_bytep *rows;
  CfPngAllocFunc alloc;         /* NULL: malloc */
  void *alloc_data;
  /* where libpng's bytes come from when not from c.fp: the file in memory
   * (from offset mem_pos), or the stream of the fast path */
  const uint8_t *mem;
  size_t mem_size, mem_pos;
  CfPngInflated *inflated;
} ReadCtx;

/* libpng's read function for a file in memory, as is or rewritten */
static void
on_png_read_memory (png_structp png, png_bytep data, size_t length)
{
  ReadCtx *r = png_get_io_ptr (png);
  size_t n;

  if (r->inflated) {
    n = cf_png_inflated_read (r->inflated, data, length);
  } else {
    n = r->mem_size - r->mem_pos < length ? r->mem_size - r->mem_pos : length;
    memcpy (data, r->mem + r->mem_pos, n);
    r->mem_pos += n;
  }
  if (n < length)
    png_error (png, "file is truncated");
}

static int
decode (ReadCtx * r)
{
  png_structp png = r->c.png;
  png_infop info = r->c.info;
  png_uint_32 width, height;
  int depth, color_type, interlace, has_trns, bpp;
  CfFormat format;
  CfPngImage *img = r->img;

  if (setjmp (png_jmpbuf (png)))
    return -1;

  png_read_info (png, info);
  png_get_IHDR (png, info, &width, &height, &depth, &color_type, &interlace,
      NULL, NULL);
  if ((uint64_t) width * height > r->max_pixels) {
    snprintf (r->c.msg, sizeof r->c.msg,
        "image is %ux%u, over the limit of %llu pixels", (unsigned) width,
        (unsigned) height, (unsigned long long) r->max_pixels);
    png_error (png, r->c.msg);
  }
  has_trns = png_get_valid (png, info, PNG_INFO_tRNS) != 0;

  if (color_type == PNG_COLOR_TYPE_PALETTE)
    png_set_palette_to_rgb (png);
  if (color_type == PNG_COLOR_TYPE_GRAY && depth < 8)
    png_set_expand_gray_1_2_4_to_8 (png);
  if (has_trns)
    png_set_tRNS_to_alpha (png);
  if ((color_type == PNG_COLOR_TYPE_GRAY && has_trns)
      || color_type == PNG_COLOR_TYPE_GRAY_ALPHA)
    png_set_gray_to_rgb (png);
  /* 16-bit colour stays 16-bit, as RGBA64_LE: the library has no 3-sample
   * 16-bit format, so RGB 16 gets an opaque alpha (65535), which the
   * writer leaves out again */
  if (depth == 16 && color_type == PNG_COLOR_TYPE_RGB && !has_trns)
    png_set_filler (png, 0xffff, PNG_FILLER_AFTER);
  if (depth == 16)
    png_set_swap (png);
  png_set_interlace_handling (png);
  png_read_update_info (png, info);

  switch (png_get_channels (png, info)) {
    case 1:
      format = png_get_bit_depth (png, info) == 16 ? CF_FORMAT_GRAY16_LE :
          CF_FORMAT_GRAY8;
      break;
    case 3:
      format = CF_FORMAT_RGB;
      break;
    default:
      format = png_get_bit_depth (png, info) == 16 ? CF_FORMAT_RGBA64_LE :
          CF_FORMAT_RGBA;
      break;
  }
  bpp = bytes_per_pixel (format);
  if (png_get_rowbytes (png, info) != (size_t) width * bpp)
    png_error (png, "unexpected row size after decoding (a bug)");

  /* width and height are at most CF_MAX_SIDE (user limits): no overflow */
  if (r->alloc) {
    img->borrowed = 1;
    img->image.data[0] = r->alloc ((size_t) width * height * bpp,
        r->alloc_data);
  } else {
    img->image.data[0] = malloc ((size_t) width * height * bpp);
  }
  r->rows = malloc (height * sizeof *r->rows);
  if (!img->image.data[0] || !r->rows)
    png_error (png, "out of memory");
  img->image.format = format;
  img->image.width = width;
  img->image.height = height;
  img->image.pitch[0] = (size_t) width *bpp;
  for (png_uint_32 y = 0; y < height; y++)
    r->rows[y] = (png_bytep) img->image.data[0] + y * img->image.pitch[0];

  png_read_image (png, r->rows);
  /* the chunks after the image, to IEND: CRC errors and truncation here
   * fail too */
  png_read_end (png, NULL);

  img->png_color_type = color_type;
  img->png_bit_depth = depth;
  img->interlaced = interlace != PNG_INTERLACE_NONE;
  return 0;
}

/* One read of the file by libpng, from r->c.fp, r->mem or r->inflated,
 * the signature already read. Returns 0, or -1 with the error set. */
static int
read_png (ReadCtx * r)
{
  /* chunks decoded for nothing (we keep no metadata), and the ones that
   * decompress (zTXt, iTXt, iCCP), which could hide bombs of their own */
  static const png_byte ignored[] =
      "tEXt\0zTXt\0iTXt\0iCCP\0sPLT\0eXIf\0hIST\0tIME\0pCAL\0sCAL\0sTER";
  int ret = -1;

  r->c.png = png_create_read_struct (PNG_LIBPNG_VER_STRING, &r->c,
      on_png_error, on_png_warning);
  if (r->c.png)
    r->c.info = png_create_info_struct (r->c.png);
  if (!r->c.png || !r->c.info) {
    set_error (r->c.err, r->c.err_len, r->c.path, "out of memory");
    goto done;
  }
  if (r->c.fp)
    png_set_read_fn (r->c.png, &r->c, on_png_read);
  else
    png_set_read_fn (r->c.png, r, on_png_read_memory);
  png_set_sig_bytes (r->c.png, 8);
  png_set_user_limits (r->c.png, CF_MAX_SIDE, CF_MAX_SIDE);
  png_set_chunk_malloc_max (r->c.png, r->max_chunk);
  png_set_chunk_cache_max (r->c.png, 1000);
  png_set_keep_unknown_chunks (r->c.png, PNG_HANDLE_CHUNK_NEVER, ignored,
      (sizeof ignored) / 5);
  if (r->inflated) {
    /* the rewritten IDATs' CRCs and Adler-32 mean nothing: the file's own
     * were checked by cf_png_inflate_image (), with the CRCs of every
     * other critical chunk (the ancillary ones are still libpng's) */
    png_set_crc_action (r->c.png, PNG_CRC_QUIET_USE, PNG_CRC_DEFAULT);
    if (png_set_option (r->c.png, PNG_IGNORE_ADLER32, PNG_OPTION_ON)
        == PNG_OPTION_INVALID)
      cf_png_inflated_checksum (r->inflated);
  }
  ret = decode (r);

done:
  if (r->c.png)
    png_destroy_read_struct (&r->c.png, r->c.info ? &r->c.info : NULL, NULL);
  r->c.info = NULL;
  free (r->rows);
  r->rows = NULL;
  if (ret != 0)
    cf_png_image_clear (r->img);
  return ret;
}

/* Each thread's memory for the fast path: the file and its inflated data,
 * kept from picture to picture (tens of megabytes, which fresh from the
 * system each time cost a third of the benchmark's system time in page
 * faults), freed when the thread ends. Per thread, so calls stay
 * independent. */
typedef struct
{
  CfPngBuffer file, data;
} ThreadBuffers;

static pthread_key_t buffers_key;
static pthread_once_t buffers_once = PTHREAD_ONCE_INIT;

static void
free_thread_buffers (void *data)
{
  ThreadBuffers *b = data;

  cf_png_buffer_free (&b->file);
  cf_png_buffer_free (&b->data);
  free (b);
}

static void
make_buffers_key (void)
{
  pthread_key_create (&buffers_key, free_thread_buffers);
}

/* This thread's buffers, or NULL when there is no memory for them */
static ThreadBuffers *
thread_buffers (void)
{
  ThreadBuffers *b;

  pthread_once (&buffers_once, make_buffers_key);
  b = pthread_getspecific (buffers_key);
  if (!b && (b = calloc (1, sizeof *b))
      && pthread_setspecific (buffers_key, b) != 0) {
    free (b);
    b = NULL;
  }
  return b;
}

/* The whole of @fd's @size bytes (fewer if it shrank) in @mem, or NULL with
 * the error set. */
static uint8_t *
read_whole (int fd, size_t * size, CfPngBuffer * mem, ReadCtx * r)
{
  uint8_t *buf = cf_png_buffer_reserve (mem, *size);
  size_t got = 0;

  if (!buf) {
    set_error (r->c.err, r->c.err_len, r->c.path, "out of memory");
    return NULL;
  }
  while (got < *size) {
    ssize_t n = read (fd, buf + got, *size - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      set_error (r->c.err, r->c.err_len, r->c.path, "read error: %s",
          strerror (errno));
      return NULL;
    }
    if (n == 0)
      break;
    got += n;
  }
  *size = got;
  return buf;
}

int
cf_png_read (const char *path, const CfPngLimits * limits, CfPngImage * img,
    char *err, size_t err_len)
{
  return cf_png_read_into (path, limits, NULL, NULL, img, err, err_len);
}

int
cf_png_read_into (const char *path, const CfPngLimits * limits,
    CfPngAllocFunc alloc, void *user_data, CfPngImage * img, char *err,
    size_t err_len)
{
  ReadCtx r;
  png_byte sig[8];
  struct stat st;
  ThreadBuffers *buffers;
  int fd, ret = -1;

  memset (&r, 0, sizeof r);
  memset (img, 0, sizeof *img);
  if (err && err_len)
    err[0] = '\0';
  r.c.path = path;
  r.c.err = err;
  r.c.err_len = err_len;
  r.img = img;
  r.alloc = alloc;
  r.alloc_data = user_data;
  r.max_pixels = limits && limits->max_pixels ? limits->max_pixels :
      CF_PNG_DEFAULT_MAX_PIXELS;
  r.max_chunk = limits && limits->max_chunk_bytes ? limits->max_chunk_bytes :
      CF_PNG_DEFAULT_MAX_CHUNK_BYTES;

  /* O_NONBLOCK: a FIFO or a device named .png must not block the open;
   * only regular files are read */
  fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    set_error (err, err_len, path, "cannot open: %s", strerror (errno));
    return -1;
  }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)) {
    set_error (err, err_len, path, "not a regular file");
    close (fd);
    return -1;
  }
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);

  if (!(limits && limits->libpng_inflate)
      && (uint64_t) st.st_size <= FAST_MAX_FILE_BYTES
      && (buffers = thread_buffers ())) {
    /* the fast path: the file in memory, inflated and unfiltered by
     * png-inflate.c, then read by libpng; a file it does not take (or, not
     * expected, that libpng fails to read that way) is read by libpng from
     * the same memory as it always was, and its answer is the one given */
    CfPngInflated inflated;
    size_t size = st.st_size;
    uint8_t *file = read_whole (fd, &size, &buffers->file, &r);

    close (fd);
    if (!file)
      return -1;
    if (size < 8 || png_sig_cmp (file, 0, 8) != 0) {
      set_error (err, err_len, path, "not a PNG file");
      return -1;
    }
    if (cf_png_inflate_image (&inflated, file, size, r.max_pixels,
            &buffers->data) == 0) {
      r.inflated = &inflated;
      ret = read_png (&r);
      r.inflated = NULL;
      cf_png_inflated_clear (&inflated);
      if (ret != 0 && err && err_len)
        err[0] = '\0';
    }
    if (ret != 0) {
      r.mem = file;
      r.mem_size = size;
      r.mem_pos = 8;
      ret = read_png (&r);
    }
    return ret;
  }

  r.c.fp = fdopen (fd, "rb");
  if (!r.c.fp) {
    set_error (err, err_len, path, "cannot open: %s", strerror (errno));
    close (fd);
    return -1;
  }
  if (fread (sig, 1, sizeof sig, r.c.fp) != sizeof sig
      || png_sig_cmp (sig, 0, sizeof sig) != 0) {
    if (ferror (r.c.fp))
      set_error (err, err_len, path, "read error: %s", strerror (errno));
    else
      set_error (err, err_len, path, "not a PNG file");
  } else {
    ret = read_png (&r);
  }
  fclose (r.c.fp);
  return ret;
}

/* ----------------------------------------------------------------- write */

/* How the pixels go into the file. */
typedef struct
{
  int color_type;
  int bit_depth;
  int gray_scale;               /* GRAY8 to 1/2/4 bits: divide by this */
  int n_palette;
  png_color palette[256];
  png_byte trans[256];
  int has_trans;
  uint32_t key[512];            /* open-addressed set of RGBA colours */
  int16_t index[512];           /* their palette index, -1 = empty slot */
} Encoding;

typedef struct
{
  IoCommon c;
  const CfPngImage *img;
  int compression;
  CfPngStrategy strategy;
  Encoding *enc;
  /* rows in the file's sample layout, used in turn: the previous row must
   * stay whole while the next is made (cf_png_choose_filter () reads both) */
  png_bytep rows[2];
} WriteCtx;

static const uint8_t *
pixel_row (const CfImage * image, int y)
{
  return (const uint8_t *) image->data[0] + (size_t) y *image->pitch[0];
}

static uint32_t
pixel_key (const uint8_t * p, int channels)
{
  return p[0] | p[1] << 8 | (uint32_t) p[2] << 16 |
      (uint32_t) (channels == 4 ? p[3] : 255) << 24;
}

static int
palette_slot (const Encoding * e, uint32_t key)
{
  unsigned h = (key * 2654435761u) >> 23;       /* 9 bits */

  while (e->index[h] >= 0 && e->key[h] != key)
    h = (h + 1) & 511;
  return h;
}

/* Builds the palette; 0 when there are more than 256 colours. */
static int
plan_palette (const CfImage * image, Encoding * e)
{
  int channels = bytes_per_pixel (image->format);

  memset (e->index, 0xff, sizeof e->index);
  e->n_palette = 0;
  e->has_trans = 0;
  for (int y = 0; y < image->height; y++) {
    const uint8_t *p = pixel_row (image, y);
    for (int x = 0; x < image->width; x++, p += channels) {
      uint32_t key = pixel_key (p, channels);
      int s = palette_slot (e, key);
      if (e->index[s] >= 0)
        continue;
      if (e->n_palette == 256)
        return 0;
      e->key[s] = key;
      e->index[s] = e->n_palette;
      e->palette[e->n_palette].red = p[0];
      e->palette[e->n_palette].green = p[1];
      e->palette[e->n_palette].blue = p[2];
      e->trans[e->n_palette] = key >> 24;
      e->has_trans |= (key >> 24) != 255;
      e->n_palette++;
    }
  }
  return 1;
}

static int
all_gray (const CfImage * image)
{
  int channels = bytes_per_pixel (image->format);

  for (int y = 0; y < image->height; y++) {
    const uint8_t *p = pixel_row (image, y);
    for (int x = 0; x < image->width; x++, p += channels)
      if (p[0] != p[1] || p[0] != p[2])
        return 0;
  }
  return 1;
}

/* RGBA64_LE: every pixel's R = G = B; every alpha 65535 */
static int
all_gray16 (const CfImage * image)
{
  for (int y = 0; y < image->height; y++) {
    const uint16_t *p = (const uint16_t *) pixel_row (image, y);
    for (int x = 0; x < image->width; x++, p += 4)
      if (p[0] != p[1] || p[0] != p[2])
        return 0;
  }
  return 1;
}

static int
all_opaque16 (const CfImage * image)
{
  for (int y = 0; y < image->height; y++) {
    const uint16_t *p = (const uint16_t *) pixel_row (image, y);
    for (int x = 0; x < image->width; x++, p += 4)
      if (p[3] != 0xffff)
        return 0;
  }
  return 1;
}

static int
gray_fits_scale (const CfImage * image, int scale)
{
  for (int y = 0; y < image->height; y++) {
    const uint8_t *p = pixel_row (image, y);
    for (int x = 0; x < image->width; x++)
      if (p[x] % scale)
        return 0;
  }
  return 1;
}

/* The PNG type the image was read from where its pixels still fit it, the
 * plain type of its format otherwise. */
static void
plan_encoding (const CfPngImage * img, Encoding * e)
{
  const CfImage *image = &img->image;
  int hint = img->png_color_type;

  e->bit_depth = 8;
  e->gray_scale = 1;
  switch (image->format) {
    case CF_FORMAT_GRAY8:
      e->color_type = PNG_COLOR_TYPE_GRAY;
      if (hint == PNG_COLOR_TYPE_GRAY && img->png_bit_depth < 8) {
        int scale = 255 / ((1 << img->png_bit_depth) - 1);
        if (gray_fits_scale (image, scale)) {
          e->bit_depth = img->png_bit_depth;
          e->gray_scale = scale;
        }
      }
      return;
    case CF_FORMAT_GRAY16_LE:
      e->color_type = PNG_COLOR_TYPE_GRAY;
      e->bit_depth = 16;
      return;
    case CF_FORMAT_RGBA64_LE:
      /* the file's type where the pixels fit it: gray + alpha when
       * R = G = B (read from gray + alpha or gray + tRNS), RGB when every
       * alpha is opaque and the file had none, else RGBA */
      e->bit_depth = 16;
      e->color_type = PNG_COLOR_TYPE_RGB_ALPHA;
      if ((hint == PNG_COLOR_TYPE_GRAY || hint == PNG_COLOR_TYPE_GRAY_ALPHA)
          && all_gray16 (image))
        e->color_type = PNG_COLOR_TYPE_GRAY_ALPHA;
      else if (hint == PNG_COLOR_TYPE_RGB && all_opaque16 (image))
        e->color_type = PNG_COLOR_TYPE_RGB;
      return;
    default:
      break;
  }
  e->color_type = image->format == CF_FORMAT_RGB ? PNG_COLOR_TYPE_RGB :
      PNG_COLOR_TYPE_RGB_ALPHA;
  if (hint == PNG_COLOR_TYPE_PALETTE && plan_palette (image, e)) {
    e->color_type = PNG_COLOR_TYPE_PALETTE;
    e->bit_depth = e->n_palette <= 2 ? 1 : e->n_palette <= 4 ? 2 :
        e->n_palette <= 16 ? 4 : 8;
  } else if ((hint == PNG_COLOR_TYPE_GRAY || hint == PNG_COLOR_TYPE_GRAY_ALPHA)
      && all_gray (image)) {
    e->color_type = image->format == CF_FORMAT_RGB ? PNG_COLOR_TYPE_GRAY :
        PNG_COLOR_TYPE_GRAY_ALPHA;
  }
}

/* Row @y of the image in the file's sample layout, as libpng filters it:
 * 16-bit samples big-endian (swapped here rather than by png_set_swap (),
 * so that cf_png_choose_filter () sees the bytes libpng filters). Either a
 * row of the image itself or w->rows[@y % 2]. */
static png_bytep
encode_row (WriteCtx * w, int y)
{
  const CfImage *image = &w->img->image;
  const Encoding *e = w->enc;
  const uint8_t *p = pixel_row (image, y);
  int channels = bytes_per_pixel (image->format);
  png_bytep out = w->rows[y % 2];

  if (e->bit_depth == 16) {
    /* the picture's 16-bit samples (GRAY16_LE, RGBA64_LE), little-endian,
     * to the file's: all of them, RGB or gray + alpha, big-endian */
    const uint16_t *q = (const uint16_t *) p;
    const int n = image->format == CF_FORMAT_RGBA64_LE ? 4 : 1;
    const int keep = e->color_type == PNG_COLOR_TYPE_RGB ? 0x7 :
        e->color_type == PNG_COLOR_TYPE_GRAY_ALPHA ? 0x9 : 0xf;
    png_bytep o = out;

    for (int x = 0; x < image->width; x++, q += n)
      for (int k = 0; k < n; k++)
        if (n == 1 || (keep >> k & 1)) {
          *o++ = q[k] >> 8;
          *o++ = q[k] & 0xff;
        }
  } else if (e->color_type == PNG_COLOR_TYPE_PALETTE) {
    for (int x = 0; x < image->width; x++, p += channels)
      out[x] = e->index[palette_slot (e, pixel_key (p, channels))];
  } else if (e->color_type == PNG_COLOR_TYPE_GRAY && channels == 3) {
    for (int x = 0; x < image->width; x++, p += 3)
      out[x] = p[0];
  } else if (e->color_type == PNG_COLOR_TYPE_GRAY_ALPHA) {
    for (int x = 0; x < image->width; x++, p += 4) {
      out[2 * x] = p[0];
      out[2 * x + 1] = p[3];
    }
  } else if (e->gray_scale > 1) {
    for (int x = 0; x < image->width; x++)
      out[x] = p[x] / e->gray_scale;
  } else {
    return (png_bytep) p;
  }
  return out;
}

/* CF_PNG_STRATEGY_AUTO: deflates a sample of the picture (4 bands of up
 * to 4 rows, at most 64 KiB, each byte replaced by its difference to the
 * same sample of the previous pixel, as PNG's Sub filter does) with libpng's
 * default strategy (Z_FILTERED) and with Z_RLE, and takes Z_RLE when its
 * output is at most 3% larger. Photographs have few long matches, so run
 * lengths compress them as well at a third of the time; drawings and
 * screenshots repeat whole runs of pixels and keep the default. */
static int
choose_strategy (const CfImage * image, int level)
{
  const int bpp = cf_format_info (image->format)->plane[0].pixel_bytes;
  const size_t row = cf_plane_row_bytes (image->format, 0, image->width);
  const size_t band_max = 16 << 10;
  const int strategies[2] = { Z_FILTERED, Z_RLE };
  unsigned char *sample, *packed;
  size_t n = 0, bound;
  uLong sizes[2] = { 0, 0 };
  int choice = Z_FILTERED;

  if (level == 0)
    return Z_FILTERED;
  sample = malloc (4 * band_max);
  if (!sample)
    return Z_FILTERED;
  for (int b = 0; b < 4; b++) {
    size_t band = 0;
    for (int y = image->height * (2 * b + 1) / 8, k = 0;
        k < 4 && y < image->height && band < band_max; y++, k++) {
      const unsigned char *src =
          (const unsigned char *) image->data[0] + (size_t) y * image->pitch[0];
      size_t len = row < band_max - band ? row : band_max - band;
      for (size_t i = 0; i < len; i++)
        sample[n + i] = (unsigned char) (src[i] - (i >= (size_t) bpp ?
                src[i - bpp] : 0));
      n += len;
      band += len;
    }
  }
  bound = compressBound (n);
  packed = malloc (bound);
  for (int i = 0; packed && i < 2; i++) {
    z_stream z;
    memset (&z, 0, sizeof z);
    if (deflateInit2 (&z, level, Z_DEFLATED, 15, 8, strategies[i]) != Z_OK)
      break;
    z.next_in = sample;
    z.avail_in = (uInt) n;
    z.next_out = packed;
    z.avail_out = (uInt) bound;
    if (deflate (&z, Z_FINISH) == Z_STREAM_END)
      sizes[i] = z.total_out;
    deflateEnd (&z);
  }
  if (sizes[0] && sizes[1] && sizes[1] * 100 <= sizes[0] * 103)
    choice = Z_RLE;
  free (packed);
  free (sample);
  return choice;
}

/* The rows, after png_write_info (). A function of its own so that its
 * locals are not encode ()'s, which a longjmp could clobber. */
static void
write_rows (WriteCtx * w)
{
  png_structp png = w->c.png;
  const CfImage *image = &w->img->image;
  const Encoding *e = w->enc;
  const int channels = e->color_type == PNG_COLOR_TYPE_GRAY ? 1 :
      e->color_type == PNG_COLOR_TYPE_GRAY_ALPHA ? 2 :
      e->color_type == PNG_COLOR_TYPE_RGB ? 3 : 4;
  /* bytes a pixel and a row in the file (8 and 16 bits: the adaptive case) */
  const int bpp = channels * e->bit_depth / 8;
  const size_t row_bytes = (size_t) image->width * bpp;
  /* where libpng filters adaptively (png_write_start_row ()'s default);
   * 1-pixel-wide or -high pictures are left to it, as it narrows the
   * filters for them */
  const int adaptive = e->color_type != PNG_COLOR_TYPE_PALETTE
      && e->bit_depth >= 8 && image->width > 1 && image->height > 1;
  /* png_set_filter () takes these flags: given a type number (0..4) past
   * the start of the image, it stores the number as flags (libpng 1.6.39) */
  static const int filter_flags[5] = { PNG_FILTER_NONE, PNG_FILTER_SUB,
    PNG_FILTER_UP, PNG_FILTER_AVG, PNG_FILTER_PAETH
  };
  png_bytep prev = NULL;

  if (e->bit_depth < 8)
    png_set_packing (png);
  for (int y = 0; y < image->height; y++) {
    png_bytep row = encode_row (w, y);

    /* libpng's adaptive filtering (its default for 8- and 16-bit colour
     * and gray) tries the five filters on every row in plain C. The same
     * rule's answer, found with SIMD, set for the row instead: libpng then
     * runs only that filter, and writes the same bytes. The first row is
     * libpng's own, so that it sets up the buffers of every filter. */
    if (adaptive && y > 0)
      png_set_filter (png, PNG_FILTER_TYPE_BASE, filter_flags[
          cf_png_choose_filter (row, prev, row_bytes, bpp)]);
    png_write_row (png, row);
    prev = row;
  }
}

static int
encode (WriteCtx * w)
{
  png_structp png = w->c.png;
  png_infop info = w->c.info;
  const CfImage *image = &w->img->image;
  const Encoding *e = w->enc;

  if (setjmp (png_jmpbuf (png)))
    return -1;

  png_set_write_fn (png, &w->c, on_png_write, on_png_flush);
  png_set_compression_level (png, w->compression);
  if (w->strategy == CF_PNG_STRATEGY_RLE || (w->strategy ==
          CF_PNG_STRATEGY_AUTO && choose_strategy (image,
              w->compression) == Z_RLE))
    png_set_compression_strategy (png, Z_RLE);
  png_set_IHDR (png, info, image->width, image->height, e->bit_depth,
      e->color_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
      PNG_FILTER_TYPE_DEFAULT);
  if (e->color_type == PNG_COLOR_TYPE_PALETTE) {
    png_set_PLTE (png, info, e->palette, e->n_palette);
    if (e->has_trans)
      png_set_tRNS (png, info, e->trans, e->n_palette, NULL);
  }
  png_write_info (png, info);
  write_rows (w);
  png_write_end (png, NULL);
  return 0;
}

/* The mode a new file gets from open (0666 & ~umask). umask () itself
 * would change the process' mask, which other threads may be using. */
static mode_t
new_file_mode (void)
{
  unsigned mask = 022;
  char line[128];
  FILE *f = fopen ("/proc/self/status", "r");

  if (f) {
    while (fgets (line, sizeof line, f))
      if (sscanf (line, "Umask: %o", &mask) == 1)
        break;
    fclose (f);
  }
  return 0666 & ~mask;
}

int
cf_png_is_temp_name (const char *name, const char *target)
{
  /* ".tmp-": the suffix without its six X */
  const size_t fixed = sizeof CF_PNG_TEMP_SUFFIX - 1 - 6;
  const size_t n = strlen (target);
  const char *x;

  if (strncmp (name, target, n) != 0
      || strncmp (name + n, CF_PNG_TEMP_SUFFIX, fixed) != 0)
    return 0;
  x = name + n + fixed;
  if (strlen (x) != 6)
    return 0;
  /* mkstemp ()'s letters (glibc, musl and the BSDs alike) */
  for (int i = 0; i < 6; i++)
    if (!((x[i] >= 'a' && x[i] <= 'z') || (x[i] >= 'A' && x[i] <= 'Z')
            || (x[i] >= '0' && x[i] <= '9')))
      return 0;
  return 1;
}

int
cf_png_write (const char *path, const CfPngImage * img, int compression,
    char *err, size_t err_len)
{
  return cf_png_write_with (path, img, compression, CF_PNG_STRATEGY_AUTO, err,
      err_len);
}

int
cf_png_write_with (const char *path, const CfPngImage * img, int compression,
    CfPngStrategy strategy, char *err, size_t err_len)
{
  WriteCtx w;
  char *tmp;
  int fd, ret = -1;

  if (err && err_len)
    err[0] = '\0';
  if (compression < 0 || compression > 9) {
    set_error (err, err_len, path, "compression level %d is not in 0..9",
        compression);
    return -1;
  }
  if (cf_image_check (&img->image) != 0
      || bytes_per_pixel (img->image.format) == 0) {
    const CfFormatInfo *fi = cf_format_info (img->image.format);
    set_error (err, err_len, path, "cannot write a %s image as PNG",
        fi ? fi->name : "invalid");
    return -1;
  }

  memset (&w, 0, sizeof w);
  w.c.path = path;
  w.c.err = err;
  w.c.err_len = err_len;
  w.img = img;
  w.compression = compression;
  w.strategy = strategy;
  w.enc = malloc (sizeof *w.enc);
  /* the widest encoded row: RGBA 16, 8 bytes a pixel */
  w.rows[0] = malloc ((size_t) img->image.width * 8);
  w.rows[1] = malloc ((size_t) img->image.width * 8);
  tmp = malloc (strlen (path) + sizeof CF_PNG_TEMP_SUFFIX);
  if (!w.enc || !w.rows[0] || !w.rows[1] || !tmp) {
    set_error (err, err_len, path, "out of memory");
    goto out;
  }
  plan_encoding (img, w.enc);

  strcpy (tmp, path);
  strcat (tmp, CF_PNG_TEMP_SUFFIX);
  fd = mkstemp (tmp);
  if (fd < 0) {
    set_error (err, err_len, path, "cannot create a temporary file: %s",
        strerror (errno));
    goto out;
  }
  if (fchmod (fd, new_file_mode ()) != 0 || !(w.c.fp = fdopen (fd, "wb"))) {
    set_error (err, err_len, path, "cannot write %s: %s", tmp,
        strerror (errno));
    close (fd);
    goto remove;
  }

  w.c.png = png_create_write_struct (PNG_LIBPNG_VER_STRING, &w.c,
      on_png_error, on_png_warning);
  if (w.c.png)
    w.c.info = png_create_info_struct (w.c.png);
  if (!w.c.png || !w.c.info)
    set_error (err, err_len, path, "out of memory");
  else
    ret = encode (&w);
  if (w.c.png)
    png_destroy_write_struct (&w.c.png, w.c.info ? &w.c.info : NULL);

  if (ret == 0 && (fflush (w.c.fp) != 0 || fsync (fileno (w.c.fp)) != 0)) {
    set_error (err, err_len, path, "write error: %s", strerror (errno));
    ret = -1;
  }
  if (fclose (w.c.fp) != 0 && ret == 0) {
    set_error (err, err_len, path, "write error: %s", strerror (errno));
    ret = -1;
  }
  if (ret == 0 && rename (tmp, path) != 0) {
    set_error (err, err_len, path, "cannot rename %s: %s", tmp,
        strerror (errno));
    ret = -1;
  }

remove:
  if (ret != 0)
    unlink (tmp);
out:
  free (tmp);
  free (w.rows[0]);
  free (w.rows[1]);
  free (w.enc);
  return ret;
}
