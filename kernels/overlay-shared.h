/* The drawing rules of the overlay family that the CPU reference
 * (cpu/overlay.c) and the CUDA kernel (overlay.cu) share: the text lines,
 * the histogram's bars and what a pixel of the panel shows. Included by
 * both, once each; not a public header. On the device the statistics are
 * read through the read-only cache (ld ()).
 */
#ifndef CF_OVERLAY_SHARED_H
#define CF_OVERLAY_SHARED_H

#include "overlay.h"

#ifdef __CUDACC__
#define CF_OVL_FN static __device__ __forceinline__
#define CF_OVL_LD(p) ld (p)
#else
#define CF_OVL_FN static inline
#define CF_OVL_LD(p) (*(p))
#endif

/* ---- text ---- */

CF_OVL_FN int
put_uint (char *buf, int n, uint64_t v)
{
  char tmp[24];
  int len = 0;

  do {
    tmp[len++] = (char) ('0' + v % 10);
    v /= 10;
  } while (v);
  while (len)
    buf[n++] = tmp[--len];
  return n;
}

CF_OVL_FN int
put_str (char *buf, int n, const char *s)
{
  while (*s)
    buf[n++] = *s++;
  return n;
}

/* tenths as "I.F" */
CF_OVL_FN int
put_tenths (char *buf, int n, uint64_t v)
{
  n = put_uint (buf, n, v / 10);
  buf[n++] = '.';
  buf[n++] = (char) ('0' + v % 10);
  return n;
}

/* cf_overlay_text_line () of a valid line */
CF_OVL_FN int
cf_ovl_text_line (const CfOverlayPlan * plan, const CfStats * stats,
    int fps_x10, int line, char *buf)
{
  int n = 0;

  if (line == plan->text_lines - 1) {
    n = put_str (buf, n, "FPS ");
    if (fps_x10 < 0)
      buf[n++] = '-';
    else
      n = put_tenths (buf, n, (uint64_t) fps_x10);
  } else {
    const uint64_t count = CF_OVL_LD (&stats->count[line]);

    buf[n++] = plan->letter[line];
    if (count == 0) {
      n = put_str (buf, n, " -");
    } else {
      n = put_str (buf, n, " MIN ");
      n = put_uint (buf, n, CF_OVL_LD (&stats->min[line]));
      n = put_str (buf, n, " MAX ");
      n = put_uint (buf, n, CF_OVL_LD (&stats->max[line]));
      n = put_str (buf, n, " MEAN ");
      n = put_tenths (buf, n, (CF_OVL_LD (&stats->sum[line]) * 10 + count / 2) / count);
    }
  }
  buf[n] = '\0';
  return n;
}

/* ---- histogram ---- */

/* log2 (n + 1) with 4 fraction bits, linear between powers of two */
CF_OVL_FN uint32_t
log_level (uint64_t n)
{
  const uint64_t v = n + 1;
  uint32_t e = 0, f;

  while (e < 63 && v >> (e + 1))
    e++;
  f = (uint32_t) (e >= 4 ? v >> (e - 4) : v << (4 - e)) & 15;
  return 16 * e + f;
}

/* Value of bin @b of graph channel @c. */
CF_OVL_FN uint64_t
bin_value (const CfOverlayPlan * plan, const CfStats * stats, int c, int b)
{
  if (plan->luma_weighted)
    return (77 * (uint64_t) CF_OVL_LD (&stats->histogram[0][b]) +
        150 * (uint64_t) CF_OVL_LD (&stats->histogram[1][b]) +
        29 * (uint64_t) CF_OVL_LD (&stats->histogram[2][b]) + 128) >> 8;
  return CF_OVL_LD (&stats->histogram[c][b]);
}

CF_OVL_FN uint64_t
scaled (const CfOverlayPlan * plan, uint64_t v)
{
  return plan->log_scale ? log_level (v) : v;
}

/* Number of graph channels. */
CF_OVL_FN int
graph_channels (const CfOverlayPlan * plan)
{
  return plan->channels == CF_OVERLAY_CHANNELS_LUMA ? 1 : plan->n_colour;
}

/* Height in rows (of @rows) of channel @c's bar at histogram column @col. */
CF_OVL_FN int
bar_height (const CfOverlayPlan * plan, const CfStats * stats,
    const unsigned long long *top, int c, int col, int rows)
{
  const int b0 = col * CF_STATS_BINS / plan->hist_width;
  int b1 = (col + 1) * CF_STATS_BINS / plan->hist_width, b;
  uint64_t v = 0;

  if (top[c] == 0)
    return 0;
  b1 = b1 > b0 ? b1 : b0 + 1;
  for (b = b0; b < b1; b++) {
    const uint64_t x = bin_value (plan, stats, c, b);

    v = x > v ? x : v;
  }
  return (int) (scaled (plan, v) * (uint64_t) rows / top[c]);
}

/* ---- a pixel ---- */

/* What luma pixel (@x, @y) of the panel shows: a palette index, or -1
 * outside the panel. @text: the plan's lines. */
CF_OVL_FN int
panel_index (const CfOverlayPlan * plan, const CfStats * stats,
    const unsigned long long *top, char (*text)[CF_OVERLAY_LINE_CHARS + 1],
    const int *text_len, int x, int y)
{
  if (x < plan->panel_x || x >= plan->panel_x + plan->panel_width
      || y < plan->panel_y || y >= plan->panel_y + plan->panel_height)
    return -1;
  if (plan->text_lines && x >= plan->text_x && y >= plan->text_y) {
    const int row = (y - plan->text_y) / plan->scale;
    const int col = (x - plan->text_x) / plan->scale;
    const int line = row / CF_OVERLAY_CELL_H, gy = row % CF_OVERLAY_CELL_H;
    const int ci = col / CF_OVERLAY_CELL_W, gx = col % CF_OVERLAY_CELL_W;

    if (line < plan->text_lines && ci < text_len[line]
        && gy < CF_OVERLAY_GLYPH_H && gx < CF_OVERLAY_GLYPH_W) {
      int ch = (unsigned char) text[line][ci];

      ch = ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch;
      ch -= CF_OVERLAY_FIRST_CHAR;
      if (ch >= 0 && ch < CF_OVERLAY_GLYPHS
          && plan->font[ch][gy] >> (CF_OVERLAY_GLYPH_W - 1 - gx) & 1)
        return CF_OVERLAY_TEXT;
    }
  }
  if (x >= plan->hist_x && x < plan->hist_x + plan->hist_width
      && y >= plan->hist_y && y < plan->hist_y + plan->hist_height) {
    const int col = x - plan->hist_x, row = y - plan->hist_y;
    const int h = plan->hist_height;
    int mask = 0, c;

    if (plan->channels == CF_OVERLAY_CHANNELS_EACH) {
      const int n = plan->n_colour;
      int band0, band1;

      /* band c holds rows h c / n .. h (c + 1) / n - 1 */
      for (c = 0; c < n - 1 && row >= h * (c + 1) / n; c++);
      band0 = h * c / n;
      band1 = h * (c + 1) / n;
      if (band1 - 1 - row < bar_height (plan, stats, top, c, col,
              band1 - band0))
        mask = 1 << c;
    } else {
      for (c = 0; c < graph_channels (plan); c++)
        if (h - 1 - row < bar_height (plan, stats, top, c, col, h))
          mask |= 1 << c;
    }
    if (mask)
      return mask;
  }
  return CF_OVERLAY_BACKGROUND;
}

/* ---- where to draw (host code of both) ---- */

/* The samples of plane @p of @image that the overlay visits, as
 * [*x0, *x1) x [*y0, *y1) (empty when x1 <= x0 or y1 <= y0): those whose
 * top-left luma pixel is in the panel, or the whole first plane with zebra. */
static inline void
cf_ovl_plane_rect (const CfOverlayPlan * plan, const CfImage * image, int p,
    int *x0, int *y0, int *x1, int *y1)
{
  const CfPlaneLayout *l = &cf_format_info (image->format)->plane[p];
  const int sx = l->shift_x, sy = l->shift_y;
  const int pw = cf_plane_width (image->format, p, image->width);
  const int ph = cf_plane_height (image->format, p, image->height);

  if (plan->zebra && p == 0) {
    *x0 = *y0 = 0;
    *x1 = pw;
    *y1 = ph;
    return;
  }
  *x0 = (plan->panel_x + (1 << sx) - 1) >> sx;
  *y0 = (plan->panel_y + (1 << sy) - 1) >> sy;
  *x1 = (plan->panel_x + plan->panel_width + (1 << sx) - 1) >> sx;
  *y1 = (plan->panel_y + plan->panel_height + (1 << sy) - 1) >> sy;
  *x1 = *x1 < pw ? *x1 : pw;
  *y1 = *y1 < ph ? *y1 : ph;
}

#endif /* CF_OVERLAY_SHARED_H */
