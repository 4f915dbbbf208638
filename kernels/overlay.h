/* gst-cudafilters kernel library: a statistics overlay drawn into a frame.
 *
 * Draws, in place, onto a picture of any format.h format, on the VALUES of
 * its samples (format.h: (sample >> lsb) & (2^bits - 1)):
 * - a panel: a rectangle blended with the background colour (black) at the
 *   plan's opacity, holding the histogram of the frame's statistics (bars,
 *   opaque) above text lines (opaque white) with min, max and mean per
 *   colour channel and the frame rate;
 * - zebra: diagonal stripes over the pixels whose luma is at or above a
 *   level, and optionally over those at 0, anywhere in the frame.
 * Everything is integer arithmetic on the plan's numbers and the CfStats,
 * so cf_overlay_cuda () and cf_overlay_cpu () write the same bytes.
 *
 * What is written: a pixel the overlay draws (any pixel of the panel, and
 * a pixel zebra marks) has its colour samples written as value << lsb, the
 * bits of a sample outside its value 0 (P010's low 6 bits cleared, even
 * where the value stays, as under a background of opacity 0); every other
 * pixel keeps its bytes, bits outside the values included.
 *
 * Geometry (luma pixels; S = the text scale, CF_OVERLAY_TEXT_SCALE_LINES
 * rows of picture per font pixel, at least 1: 2 at 720p, 6 at 2160p):
 * - the panel is panel_width x panel_height (clamped to the picture), in
 *   the chosen corner, inset pixels from its two edges (less where the
 *   picture is too small); margin m = 2 S all round;
 * - text: 1 line per colour channel (alpha is no colour channel) plus one
 *   of frame rate, each 8 S rows high and 6 S columns per character (a 5x7
 *   glyph and its spacing), at the bottom of the panel inside the margin;
 * - the histogram fills the rest inside the margin (a margin more between
 *   it and the text); nothing is drawn where it has no room.
 * Text is cut off at the panel's edge.
 *
 * Subsampled chroma is drawn at its own resolution: a chroma sample shows
 * what its top-left luma pixel shows (x << shift_x, y << shift_y), so the
 * chroma samples touched are those whose top-left luma pixel lies in the
 * panel. Alpha samples (RGBA, ...) and padding samples (the x of RGBx) and
 * the bytes past a row's end are never written.
 *
 * Histogram, of the statistics' bins (value >> (bits - 8), CfStats).
 * Histogram column i of w covers bins b0 = 256 i / w up to
 * b1 = 256 (i + 1) / w (at least one bin) and shows the largest value of
 * those bins. A value v of a bar of height H (rows) is drawn from the
 * bottom up to h rows:
 *   linear: h = v H / top,   log: h = L(v) H / L(top)   (integer division)
 * with top the largest value of the bins shown (all channels together in
 * CF_OVERLAY_CHANNELS_RGB, each channel its own in _EACH) and
 * L(n) = 16 e + f, e = floor (log2 (n + 1)), f the 4 bits of n + 1 after its
 * leading one: log2 (n + 1) with 4 fraction bits, linear between powers of
 * two (L(0) = 0, L(1) = 16); no libm. top = 0 draws no bar.
 * - _RGB: every colour channel in one graph; a pixel lit by a set of
 *   channels gets the sum of their colours, clamped (R+G yellow, all white).
 *   Channel colours: R, G, B (255, 0, 0), (0, 255, 0), (0, 0, 255); Y, U, V
 *   (192, 192, 192), (0, 0, 255), (255, 0, 0); gray (255, 255, 255).
 * - _LUMA: one white graph of channel 0 (Y, gray); for the RGB family, of
 *   the weighted histogram (77 R[b] + 150 G[b] + 29 B[b] + 128) >> 8 (bin
 *   by bin: an approximation, the statistics hold no luma histogram).
 * - _EACH: one graph per colour channel, stacked from the top, band k of n
 *   taking rows H k / n .. H (k + 1) / n - 1, in the channel's colour.
 *
 * Text, formatted from the CfStats by the kernel itself (so the self-computed
 * statistics need no copy to the host): "R MIN 3 MAX 250 MEAN 127.4" per
 * colour channel (the channel's letter, R G B, Y U V, or Y for gray), with
 * mean = (10 sum + count / 2) / count printed as tenths, min and max as
 * the statistics hold them, values (0 .. 1023 for 10-bit formats, 0 ..
 * 65535 for 16-bit ones); "R -" when count is 0. The last line is
 * "FPS 29.9" from fps_x10 (tenths of frames per second), "FPS -" when
 * fps_x10 < 0. cf_overlay_text_line () gives the strings.
 *
 * Colours. A colour is given as 8-bit R, G, B and converted once, in the
 * plan, to values of the format's channels (by its family):
 *   RGB: each level c as (c * 257) >> (16 - bits): c itself at 8 bits,
 *   c * 257 at 16 (255 is the largest value);  gray: the same of
 *   (77 R + 150 G + 29 B + 128) >> 8;  YUV: BT.601 limited range, the
 *   8-bit values << (bits - 8) (Y 16 .. 235 are 64 .. 940 at 10 bits),
 *   Y = ((66 R + 129 G + 25 B + 128) >> 8) + 16,
 *   U = ((-38 R - 74 G + 112 B + 32896) >> 8), V = ((112 R - 94 G - 18 B +
 *   32896) >> 8).
 * Blending, per colour sample, on values: out = (in (256 - a) + c a + 128)
 * >> 8 with in and c values (so out is one too), written as out << lsb;
 * a = 256 for bars and text and a = opacity + (opacity >> 7) for the
 * background (so opacity 255 replaces, 0 keeps the value).
 *
 * Zebra, on the plane of channel 0 only (the RGB pixel, Y, gray), before the
 * panel is drawn: pixel (x, y) is on a stripe when ((x + y) / (4 S)) is
 * even. A pixel on a stripe whose luma L has L >> (bits - 8) >= zebra_level
 * (an 8-bit level whatever the depth) has its colour samples set to black
 * ((0, 0, 0) converted: Y 16, 64 at 10 bits); otherwise, with zebra_zero,
 * one whose L is 0 is set to white (Y 235). L, a value: for R, G, B
 * (77 R + 150 G + 29 B + 128) >> 8 of their values; for Y and gray the
 * value. A YUV frame's chroma is left alone.
 */
#ifndef CF_OVERLAY_H
#define CF_OVERLAY_H

#include "format.h"
#include "stats.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* rows of picture per font pixel: S = max (1, height / this) */
#define CF_OVERLAY_TEXT_SCALE_LINES 360
#define CF_OVERLAY_GLYPH_W 5
#define CF_OVERLAY_GLYPH_H 7
#define CF_OVERLAY_CELL_W 6
#define CF_OVERLAY_CELL_H 8
/* glyphs of ASCII 32 (' ') .. 95 ('_'); lower case is drawn as upper case,
 * anything else as a blank */
#define CF_OVERLAY_FIRST_CHAR 32
#define CF_OVERLAY_GLYPHS 64
#define CF_OVERLAY_MAX_LINES 4
#define CF_OVERLAY_LINE_CHARS 40

typedef enum {
  CF_OVERLAY_TOP_LEFT,
  CF_OVERLAY_TOP_RIGHT,
  CF_OVERLAY_BOTTOM_LEFT,
  CF_OVERLAY_BOTTOM_RIGHT,
  CF_OVERLAY_CORNER_COUNT
} CfOverlayCorner;

typedef enum {
  CF_OVERLAY_CHANNELS_RGB,      /* the colour channels in one graph */
  CF_OVERLAY_CHANNELS_LUMA,     /* one graph of luma */
  CF_OVERLAY_CHANNELS_EACH,     /* one graph per colour channel */
  CF_OVERLAY_CHANNELS_COUNT
} CfOverlayChannels;

/* Palette entries of a plan. */
enum {
  CF_OVERLAY_BACKGROUND = 0,    /* 1 .. 7: bars, by the set of lit channels */
  CF_OVERLAY_TEXT = 8,
  CF_OVERLAY_ZEBRA_HIGH = 9,
  CF_OVERLAY_ZEBRA_ZERO = 10,
  CF_OVERLAY_COLOURS = 11
};

typedef struct {
  CfOverlayCorner corner;
  int panel_width, panel_height;        /* pixels; 0: no panel */
  int inset;                    /* pixels from the corner's edges, >= 0 */
  int opacity;                  /* of the background, 0 .. 255 */
  CfOverlayChannels channels;
  int log_scale;
  int show_text;
  int text_scale;               /* 0: from the height (see above) */
  int zebra;
  int zebra_level;              /* 0 .. 255 */
  int zebra_zero;               /* mark pixels at 0 too */
} CfOverlayParams;

/* Everything fixed for one picture size, format and settings; made on the
 * host, read by both backends (the CUDA launcher passes it by value: no
 * device memory). Rectangles in luma pixels. */
typedef struct {
  CfFormat format;
  int width, height;
  int scale;                    /* S */
  int panel_x, panel_y, panel_width, panel_height;      /* may be empty */
  int hist_x, hist_y, hist_width, hist_height;  /* may be empty */
  int text_x, text_y, text_lines;       /* 0 lines: no text */
  int n_colour;                 /* colour channels: 1 or 3 */
  int channels;                 /* CfOverlayChannels */
  int luma_weighted;            /* LUMA of an RGB format */
  int log_scale;
  int alpha;                    /* background a: 0 .. 256 */
  int zebra, zebra_level, zebra_zero, zebra_period;
  char letter[3];               /* of the colour channels */
  /* values (not samples: no lsb shift) per format.h channel (R, G, B, A;
   * Y, U, V; gray), by the colour rule above */
  uint16_t palette[CF_OVERLAY_COLOURS][CF_MAX_CHANNELS];
  /* row r of a glyph: bit 4 the leftmost pixel */
  uint8_t font[CF_OVERLAY_GLYPHS][CF_OVERLAY_GLYPH_H];
} CfOverlayPlan;

/* Makes @plan for @width x @height (1 .. CF_MAX_SIDE) pictures of @format.
 * Returns 0, or -1 (and @plan cleared) on a bad argument: unknown format,
 * corner or channel mode, negative sizes or inset, opacity or zebra_level
 * beyond 0 .. 255, negative text_scale. */
int cf_overlay_plan_init (CfOverlayPlan * plan, CfFormat format, int width,
    int height, const CfOverlayParams * params);

/* Line @line (0 .. plan->text_lines - 1) of the text, NUL-terminated, into
 * @buf (CF_OVERLAY_LINE_CHARS + 1 bytes). Returns its length, or -1 for a
 * line the plan does not have. */
int cf_overlay_text_line (const CfOverlayPlan * plan, const CfStats * stats,
    int fps_x10, int line, char *buf);

/* CPU reference and CPU backend: draws onto @image (host memory, the plan's
 * size and format, any pitch and alignment) from @stats (host memory, the
 * statistics of a frame of the plan's format: n_channels must match).
 * Returns 0, or -1 when the image does not match the plan or the stats'
 * channel count is wrong. */
int cf_overlay_cpu (const CfOverlayPlan * plan, const CfImage * image,
    const CfStats * stats, int fps_x10);
/* The same over @n_threads threads (threads.h: 0 = all the cores), each
 * drawing a band of rows: the same bytes for any count. cf_overlay_cpu ()
 * is this with 1. */
int cf_overlay_cpu_threads (const CfOverlayPlan * plan, const CfImage * image,
    const CfStats * stats, int fps_x10, int n_threads);

#ifdef HAVE_CUDA
/* Threads per block of the kernel, CF_OVERLAY_BLOCK_W x CF_OVERLAY_BLOCK_H,
 * each drawing CF_OVERLAY_THREAD_ROWS pixels of one column: a block draws
 * a tile of 32 x 64 samples of a plane (overlay.cu says why). */
#define CF_OVERLAY_BLOCK_W 32
#define CF_OVERLAY_BLOCK_H 8
#define CF_OVERLAY_THREAD_ROWS 8

/* GPU launcher: draws onto @d_image (device, any pitch and alignment) on
 * @stream from @d_stats, DEVICE memory (as cf_stats_cuda () writes it: no
 * synchronisation between the two); @plan is host memory, copied into the
 * launch. One launch for all the planes, none when there is nothing to
 * draw; the panel's rectangle only, or every pixel of the plane of channel
 * 0 with zebra. No device scratch memory. The stats' channel count is not
 * checked (it is on the device). Returns cudaErrorInvalidValue when an
 * argument is missing or the image does not match the plan, otherwise the
 * launch's error. */
cudaError_t cf_overlay_cuda (const CfOverlayPlan * plan,
    const CfImage * d_image, const CfStats * d_stats, int fps_x10,
    cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif
#endif /* CF_OVERLAY_H */
