/* CPU reference for kernels/overlay.cu (see overlay.h for the contract). The
 * per-pixel functions here and in the .cu are written the same way on
 * purpose: the tests compare the two byte for byte. Each pixel is drawn on
 * its own, so threads simply take bands of rows. */
#include "../overlay.h"
#include "../threads.h"

#include <string.h>

/* 5x7 glyphs, rows top down, bit 4 the leftmost pixel; ASCII 32 .. 95. */
static const uint8_t font_5x7[CF_OVERLAY_GLYPHS][CF_OVERLAY_GLYPH_H] = {
  ['%' - 32] = {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03},
  ['-' - 32] = {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00},
  ['.' - 32] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C},
  ['0' - 32] = {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E},
  ['1' - 32] = {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E},
  ['2' - 32] = {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F},
  ['3' - 32] = {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E},
  ['4' - 32] = {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02},
  ['5' - 32] = {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E},
  ['6' - 32] = {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E},
  ['7' - 32] = {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},
  ['8' - 32] = {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E},
  ['9' - 32] = {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C},
  [':' - 32] = {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00},
  ['A' - 32] = {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11},
  ['B' - 32] = {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E},
  ['C' - 32] = {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E},
  ['D' - 32] = {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C},
  ['E' - 32] = {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F},
  ['F' - 32] = {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10},
  ['G' - 32] = {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F},
  ['H' - 32] = {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11},
  ['I' - 32] = {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E},
  ['J' - 32] = {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C},
  ['K' - 32] = {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11},
  ['L' - 32] = {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F},
  ['M' - 32] = {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11},
  ['N' - 32] = {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11},
  ['O' - 32] = {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E},
  ['P' - 32] = {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10},
  ['Q' - 32] = {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D},
  ['R' - 32] = {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11},
  ['S' - 32] = {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E},
  ['T' - 32] = {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04},
  ['U' - 32] = {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E},
  ['V' - 32] = {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04},
  ['W' - 32] = {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A},
  ['X' - 32] = {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11},
  ['Y' - 32] = {0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04},
  ['Z' - 32] = {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F},
};

/* Channel colours, 8-bit R, G, B, by family (see overlay.h). */
static const uint8_t rgb_colours[3][3] = {
  {255, 0, 0}, {0, 255, 0}, {0, 0, 255}
};

static const uint8_t yuv_colours[3][3] = {
  {192, 192, 192}, {0, 0, 255}, {255, 0, 0}
};

static const uint8_t white[3] = { 255, 255, 255 };

static int
clampi (int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

/* An 8-bit RGB or gray level @c as a value of @bits bits: its bits
 * repeated, c * 257 at 16 bits (full range: 255 is the largest value). */
static uint16_t
widen (int c, int bits)
{
  return (uint16_t) ((unsigned) c * 257 >> (16 - bits));
}

/* @rgb as values of @info's channels, per format.h channel (overlay.h's
 * colour rule). */
static void
convert_colour (const CfFormatInfo * info, const int rgb[3], uint16_t * out)
{
  const int r = rgb[0], g = rgb[1], b = rgb[2];
  /* limited-range YUV keeps its levels: Y 16 .. 235 become 64 .. 940 at
   * 10 bits */
  const int up = info->bits - 8;

  memset (out, 0, CF_MAX_CHANNELS * sizeof (*out));
  switch (info->family) {
    case CF_FAMILY_GRAY:
      out[0] = widen ((77 * r + 150 * g + 29 * b + 128) >> 8, info->bits);
      break;
    case CF_FAMILY_YUV:
      out[0] = (uint16_t) ((((66 * r + 129 * g + 25 * b + 128) >> 8) + 16)
          << up);
      out[1] = (uint16_t) (((-38 * r - 74 * g + 112 * b + 32896) >> 8) << up);
      out[2] = (uint16_t) (((112 * r - 94 * g - 18 * b + 32896) >> 8) << up);
      break;
    case CF_FAMILY_RGB:
      out[0] = widen (r, info->bits);
      out[1] = widen (g, info->bits);
      out[2] = widen (b, info->bits);
      break;
  }
}

int
cf_overlay_plan_init (CfOverlayPlan * plan, CfFormat format, int width,
    int height, const CfOverlayParams * params)
{
  const CfFormatInfo *info = cf_format_info (format);
  const CfOverlayParams *s = params;
  const int is_rgb = info && info->family == CF_FAMILY_RGB;
  const int is_yuv = info && info->family == CF_FAMILY_YUV;
  int pw, ph, inset_x, inset_y, margin, text_h, mask, c;

  memset (plan, 0, sizeof (*plan));
  plan->format = CF_FORMAT_COUNT;
  if (!info || info->packed || !s || width < 1 || height < 1
      || width > CF_MAX_SIDE || height > CF_MAX_SIDE || (unsigned) s->corner >= CF_OVERLAY_CORNER_COUNT
      || (unsigned) s->channels >= CF_OVERLAY_CHANNELS_COUNT
      || s->panel_width < 0 || s->panel_height < 0 || s->inset < 0
      || s->opacity < 0 || s->opacity > 255 || s->zebra_level < 0
      || s->zebra_level > 255 || s->text_scale < 0)
    return -1;

  plan->format = format;
  plan->width = width;
  plan->height = height;
  plan->scale = s->text_scale ? s->text_scale :
      clampi (height / CF_OVERLAY_TEXT_SCALE_LINES, 1, height);
  plan->n_colour = info->n_channels >= 3 ? 3 : 1;
  plan->channels = s->channels;
  plan->luma_weighted = s->channels == CF_OVERLAY_CHANNELS_LUMA && is_rgb;
  plan->log_scale = !!s->log_scale;
  plan->alpha = s->opacity + (s->opacity >> 7);
  plan->zebra = !!s->zebra;
  plan->zebra_level = s->zebra_level;
  plan->zebra_zero = !!s->zebra_zero;
  plan->zebra_period = 4 * plan->scale;
  for (c = 0; c < 3; c++)
    plan->letter[c] = plan->n_colour == 1 ? 'Y' : info->channel_names[c][0];

  /* the panel in its corner; an inset the picture has no room for shrinks */
  pw = s->panel_width < width ? s->panel_width : width;
  ph = s->panel_height < height ? s->panel_height : height;
  inset_x = s->inset < width - pw ? s->inset : width - pw;
  inset_y = s->inset < height - ph ? s->inset : height - ph;
  plan->panel_width = pw;
  plan->panel_height = ph;
  plan->panel_x = s->corner == CF_OVERLAY_TOP_LEFT
      || s->corner == CF_OVERLAY_BOTTOM_LEFT ? inset_x : width - pw - inset_x;
  plan->panel_y = s->corner == CF_OVERLAY_TOP_LEFT
      || s->corner == CF_OVERLAY_TOP_RIGHT ? inset_y : height - ph - inset_y;

  margin = 2 * plan->scale;
  plan->text_lines = s->show_text && pw > 0 && ph > 0 ? plan->n_colour + 1 : 0;
  text_h = plan->text_lines * CF_OVERLAY_CELL_H * plan->scale;
  plan->text_x = plan->panel_x + margin;
  plan->text_y = plan->panel_y + ph - margin - text_h;
  plan->hist_x = plan->panel_x + margin;
  plan->hist_y = plan->panel_y + margin;
  plan->hist_width = pw - 2 * margin > 0 ? pw - 2 * margin : 0;
  plan->hist_height = ph - 2 * margin - (text_h ? text_h + margin : 0);
  if (plan->hist_height < 0)
    plan->hist_height = 0;

  /* bars: the sum of the lit channels' colours, clamped */
  for (mask = 1; mask < 8; mask++) {
    int rgb[3] = { 0, 0, 0 }, k;

    for (c = 0; c < 3; c++) {
      const uint8_t *col = plan->channels == CF_OVERLAY_CHANNELS_LUMA
          || plan->n_colour == 1 ? white : is_yuv ? yuv_colours[c] :
          rgb_colours[c];

      if (mask & 1 << c)
        for (k = 0; k < 3; k++)
          rgb[k] = clampi (rgb[k] + col[k], 0, 255);
    }
    convert_colour (info, rgb, plan->palette[mask]);
  }
  {
    const int black[3] = { 0, 0, 0 }, full[3] = { 255, 255, 255 };

    convert_colour (info, black, plan->palette[CF_OVERLAY_BACKGROUND]);
    convert_colour (info, full, plan->palette[CF_OVERLAY_TEXT]);
    convert_colour (info, black, plan->palette[CF_OVERLAY_ZEBRA_HIGH]);
    convert_colour (info, full, plan->palette[CF_OVERLAY_ZEBRA_ZERO]);
  }
  memcpy (plan->font, font_5x7, sizeof (font_5x7));
  return 0;
}

#include "../overlay-shared.h"

int
cf_overlay_text_line (const CfOverlayPlan * plan, const CfStats * stats,
    int fps_x10, int line, char *buf)
{
  if (!plan || !stats || !buf || line < 0 || line >= plan->text_lines)
    return -1;
  return cf_ovl_text_line (plan, stats, fps_x10, line, buf);
}

/* top[c]: the scaled largest value of the bins of channel c's graph. */
static void
graph_tops (const CfOverlayPlan * plan, const CfStats * stats,
    unsigned long long top[3])
{
  const int n = graph_channels (plan);
  uint64_t all = 0;
  int c, b;

  for (c = 0; c < 3; c++) {
    uint64_t m = 0;

    for (b = 0; c < n && b < CF_STATS_BINS; b++) {
      const uint64_t v = bin_value (plan, stats, c, b);

      m = v > m ? v : m;
    }
    top[c] = scaled (plan, m);
    all = top[c] > all ? top[c] : all;
  }
  if (plan->channels == CF_OVERLAY_CHANNELS_RGB)
    for (c = 0; c < 3; c++)
      top[c] = all;
}

static unsigned
get_sample (const uint8_t * s, int sb)
{
  return sb == 2 ? s[0] | (unsigned) s[1] << 8 : s[0];
}

static void
set_sample (uint8_t * s, int sb, unsigned v)
{
  s[0] = (uint8_t) v;
  if (sb == 2)
    s[1] = (uint8_t) (v >> 8);
}

/* Is sample @k of a pixel of @l a colour channel's (not alpha, not
 * padding)? Only those are drawn. */
static int
is_colour (const CfPlaneLayout * l, int k)
{
  return l->channel[k] >= 0 && l->channel[k] < 3;
}

/* Zebra, then the panel, on pixel (@x, @y) of plane @p, on the values of
 * its samples. A pixel neither draws keeps its bytes; one drawn has its
 * colour samples written as value << lsb. */
static void
draw_pixel (const CfOverlayPlan * plan, const CfFormatInfo * info, int p,
    uint8_t * px, const CfStats * stats, const unsigned long long *top,
    char text[][CF_OVERLAY_LINE_CHARS + 1], const int *text_len, int x, int y)
{
  const CfPlaneLayout *l = &info->plane[p];
  const int samples = l->pixel_bytes / l->sample_bytes;
  const int lx = x << l->shift_x, ly = y << l->shift_y;
  unsigned v[4];
  int k, idx, drawn = 0;

  for (k = 0; k < samples; k++)
    v[k] = CF_SAMPLE_VALUE (get_sample (px + k * l->sample_bytes,
            l->sample_bytes), info->bits, info->lsb);

  if (plan->zebra && p == 0 && (lx + ly) / plan->zebra_period % 2 == 0) {
    unsigned rgb[3] = { 0, 0, 0 }, luma;

    for (k = 0; k < samples; k++)
      if (is_colour (l, k))
        rgb[l->channel[k]] = v[k];
    luma = samples >= 3 ?
        (77 * rgb[0] + 150 * rgb[1] + 29 * rgb[2] + 128) >> 8 : rgb[0];
    idx = luma >> (info->bits - 8) >= (unsigned) plan->zebra_level ?
        CF_OVERLAY_ZEBRA_HIGH : plan->zebra_zero && luma == 0 ?
        CF_OVERLAY_ZEBRA_ZERO : -1;
    for (k = 0; idx >= 0 && k < samples; k++)
      if (is_colour (l, k))
        v[k] = plan->palette[idx][l->channel[k]];
    drawn = idx >= 0;
  }

  idx = panel_index (plan, stats, top, text, text_len, lx, ly);
  if (idx >= 0) {
    const unsigned a = idx == CF_OVERLAY_BACKGROUND ? plan->alpha : 256;

    for (k = 0; k < samples; k++)
      if (is_colour (l, k))
        v[k] = (v[k] * (256 - a) + plan->palette[idx][l->channel[k]] * a +
            128) >> 8;
    drawn = 1;
  }

  for (k = 0; drawn && k < samples; k++)
    if (is_colour (l, k))
      set_sample (px + k * l->sample_bytes, l->sample_bytes,
          CF_VALUE_SAMPLE (v[k], info->lsb));
}

/* One call: what every pixel's drawing reads, and the parts' bands. */
typedef struct
{
  const CfOverlayPlan *plan;
  const CfFormatInfo *info;
  const CfImage *image;
  const CfStats *stats;
  char text[CF_OVERLAY_MAX_LINES][CF_OVERLAY_LINE_CHARS + 1];
  int text_len[CF_OVERLAY_MAX_LINES];
  unsigned long long top[3];
  int n_parts;
} OverlayJob;

/* Part @part: its band of the rows each plane draws on. */
static void
overlay_part (void *data, int part)
{
  OverlayJob *job = data;
  const CfImage *image = job->image;
  int p, x, y;

  for (p = 0; p < job->info->n_planes; p++) {
    const int pb = job->info->plane[p].pixel_bytes;
    int x0, y0, x1, y1, b0, b1;

    cf_ovl_plane_rect (job->plan, image, p, &x0, &y0, &x1, &y1);
    if (y1 <= y0)
      continue;
    b0 = y0 + cf_parallel_split (y1 - y0, job->n_parts, part);
    b1 = y0 + cf_parallel_split (y1 - y0, job->n_parts, part + 1);
    for (y = b0; y < b1; y++) {
      uint8_t *row = (uint8_t *) image->data[p] + y * image->pitch[p];

      for (x = x0; x < x1; x++)
        draw_pixel (job->plan, job->info, p, row + x * pb, job->stats,
            job->top, job->text, job->text_len, x, y);
    }
  }
}

int
cf_overlay_cpu_threads (const CfOverlayPlan * plan, const CfImage * image,
    const CfStats * stats, int fps_x10, int n_threads)
{
  OverlayJob job;
  int i, x0, y0, x1, y1;

  if (!plan || !image || !stats || plan->format == CF_FORMAT_COUNT
      || cf_image_check (image) != 0 || image->format != plan->format
      || image->width != plan->width || image->height != plan->height)
    return -1;
  job.info = cf_format_info (image->format);
  if (stats->n_channels != (uint32_t) job.info->n_channels)
    return -1;
  job.plan = plan;
  job.image = image;
  job.stats = stats;
  for (i = 0; i < plan->text_lines; i++)
    job.text_len[i] = cf_overlay_text_line (plan, stats, fps_x10, i,
        job.text[i]);
  graph_tops (plan, stats, job.top);

  /* bands of the first plane's rows drawn on: it has the most */
  cf_ovl_plane_rect (plan, image, 0, &x0, &y0, &x1, &y1);
  job.n_parts = cf_parallel_parts (n_threads, y1 - y0);
  cf_parallel_for (n_threads, job.n_parts, overlay_part, &job);
  return 0;
}

int
cf_overlay_cpu (const CfOverlayPlan * plan, const CfImage * image,
    const CfStats * stats, int fps_x10)
{
  return cf_overlay_cpu_threads (plan, image, stats, fps_x10, 1);
}
