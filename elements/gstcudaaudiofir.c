/**
 * SECTION:element-cudaaudiofir
 * @title: cudaaudiofir
 *
 * Filters interleaved audio (F32, F64 or S16 in native byte order, 1 to
 * 256 channels, any rate) with a FIR filter, every channel on its own with
 * the same taps: arbitrary `taps`, written as a list of numbers, or a
 * windowed-sinc low-pass, high-pass or band-pass designed for the
 * negotiated rate (`mode`, `cutoff`, `lower-frequency`, `upper-frequency`,
 * `length` and `window`, named as in `audiowsinclimit` and
 * `audiowsincband`). The CUDA and CPU backends give the same samples, bit
 * for bit.
 *
 * The filter's history goes from buffer to buffer: a stream cut into
 * buffers of any sizes comes out exactly as the whole signal filtered at
 * once. A DISCONT buffer (or a timestamp more than 5 ms away from where the
 * stream should be, as `audiofirfilter` judges it) and a flush start a new
 * stream from silence.
 *
 * Latency compensation works as in `audiofirfilter`: with a `latency` of L
 * frames, the first L output frames of a stream are dropped and the
 * timestamps of the others shifted by L frames, so that the output lines up
 * with the input (L = (length - 1) / 2, the default for the presets, takes
 * the delay of a linear-phase filter out). At EOS, at a DISCONT and before
 * new caps, the L frames still owed are computed from silence and pushed:
 * as many frames come out as went in. Past the end, only T - 1 output
 * frames (T taps) still see the stream, and only those are filtered: the
 * rest is silence, so a latency beyond the taps costs no more than the
 * taps' own. A flush stops a drain. The LATENCY query adds L frames.
 *
 * Changes to the filter while playing (taps, mode, cutoff, ...) take effect
 * at the next buffer: the old filter's tail is drained as at a DISCONT and
 * the new filter starts from silence. A preset that cannot be designed for
 * the rate (a cutoff at or above half the rate, say) fails negotiation with
 * an error; set while playing, it posts a warning and the old filter goes
 * on.
 *
 * On CUDA, each buffer takes one kernel launch for all its channels and
 * frames, through page-locked staging memory that grows to the largest
 * buffer seen (input already in page-locked memory is uploaded directly).
 * The call completes before the buffer is pushed, so the element adds no
 * latency beyond L frames. On the CPU, a buffer of enough work (some
 * 65000 multiply-adds per thread) is split into ranges of frames filtered
 * at once on `n-threads` threads; small buffers stay on the streaming
 * thread.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 audiotestsrc wave=white-noise ! audioconvert ! \
 *     cudaaudiofir mode=low-pass cutoff=1000 length=201 window=blackman ! \
 *     audioconvert ! autoaudiosink
 * ]| low-passes white noise at 1 kHz with a 201-tap Blackman windowed sinc,
 * its delay of 100 frames compensated.
 * |[
 * gst-launch-1.0 audiotestsrc ! audioconvert ! \
 *     cudaaudiofir taps=0.25,0.5,0.25 latency=1 ! audioconvert ! autoaudiosink
 * gst-launch-1.0 audiotestsrc ! audioconvert ! \
 *     cudaaudiofir taps="<0.25, 0.5, 0.25>" latency=1 ! audioconvert ! \
 *     autoaudiosink
 * ]| the same three taps from the command line, as a list and in
 * GstValueArray's form.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaaudiofir.h"
#include "gstcfgpu.h"
#include "gstcfpinnedallocator.h"
#include "gstcftaps.h"
#include "fir.h"

#include <stdint.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cf_audio_fir_debug);
#define GST_CAT_DEFAULT gst_cf_audio_fir_debug

typedef enum
{
  MODE_CUSTOM,
  MODE_LOW_PASS,
  MODE_HIGH_PASS,
  MODE_BAND_PASS,
} GstCfAudioFirMode;

enum
{
  PROP_0,
  PROP_BACKEND,
  PROP_CUDA_DEVICE_ID,
  PROP_N_THREADS,
  PROP_TAPS,
  PROP_MODE,
  PROP_CUTOFF,
  PROP_LOWER_FREQUENCY,
  PROP_UPPER_FREQUENCY,
  PROP_LENGTH,
  PROP_WINDOW,
  PROP_LATENCY,
};

#define DEFAULT_MODE MODE_CUSTOM
#define DEFAULT_CUTOFF 1000.0
#define DEFAULT_LOWER_FREQUENCY 300.0
#define DEFAULT_UPPER_FREQUENCY 3400.0
#define DEFAULT_LENGTH 101
#define DEFAULT_WINDOW CF_FIR_WINDOW_HAMMING
#define DEFAULT_LATENCY -1
/* the longest odd length: the presets' lengths are odd */
#define MAX_LENGTH (CF_FIR_MAX_TAPS - 1 + CF_FIR_MAX_TAPS % 2)
/* audiofirfilter's tolerance before a timestamp counts as a discontinuity */
#define DISCONT_TOLERANCE (5 * GST_MSECOND)
/* zero frames filtered per call when draining, between looks for a flush:
 * a fraction of a second of work with the longest filters on the CPU */
#define DRAIN_CHUNK 1024

/* What the properties ask for, copied out of the object lock. */
typedef struct
{
  GstCfAudioFirMode mode;
  GArray *taps;                 /* of gdouble, never modified once set */
  gchar *taps_error;            /* why the last taps set were refused */
  gdouble cutoff, lower_frequency, upper_frequency;
  gint length;
  CfFirWindow window;
  gint64 latency;
} FirConfig;

struct _GstCfAudioFir
{
  GstAudioFilter parent;

  /* properties, under the object lock; changed is set whenever one of the
   * filter's is, and cleared by the streaming thread taking them */
  GstCfGpu gpu;                 /* backend and device-id, the context */
  FirConfig config;
  gboolean changed;
  /* what the LATENCY query reports, under the object lock */
  guint64 latency;
  gint rate;

  /* streaming thread */
  CfFir fir;                    /* taps and history (the CPU backend's) */
  gboolean have_fir;
  GArray *taps;                 /* the filter's taps */
  gsize bpf, sample_bytes;
  GstClockTime start_ts;        /* PTS of the stream's first frame */
  guint64 start_off;
  guint64 frames_in;            /* frames filtered since the stream started */
  gboolean discont;             /* mark the next output DISCONT */
  gboolean setup_failed;        /* and said so: once, not at every retry */
  guint8 *cpu_in, *cpu_out;     /* aligned copies of misaligned buffers */
  gsize cpu_in_bytes, cpu_out_bytes;
  /* CUDA: the filter's device state (a CfFirDevice), the stream, staging
   * (page-locked) and device copies of a buffer */
  gpointer d_fir;
  CfStream *stream;
  CfGrowBuffer h_in, h_out, d_in, d_out;
};

G_DEFINE_TYPE (GstCfAudioFir, gst_cf_audio_fir, GST_TYPE_AUDIO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudaaudiofir, "cudaaudiofir", GST_RANK_NONE,
    GST_TYPE_CF_AUDIO_FIR);

#define ALLOWED_CAPS                                                    \
  "audio/x-raw, format = (string) { " GST_AUDIO_NE (F32) ", "           \
  GST_AUDIO_NE (F64) ", " GST_AUDIO_NE (S16) " }, "                     \
  "rate = (int) [ 1, MAX ], "                                           \
  "channels = (int) [ 1, " G_STRINGIFY (CF_FIR_MAX_CHANNELS) " ], "     \
  "layout = (string) interleaved"

#define GST_TYPE_CF_AUDIO_FIR_MODE (gst_cf_audio_fir_mode_get_type ())
static GType
gst_cf_audio_fir_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {MODE_CUSTOM, "The taps property (default)", "custom"},
    {MODE_LOW_PASS, "Windowed-sinc low-pass at cutoff", "low-pass"},
    {MODE_HIGH_PASS, "Windowed-sinc high-pass at cutoff", "high-pass"},
    {MODE_BAND_PASS, "Windowed-sinc band-pass from lower-frequency to "
          "upper-frequency", "band-pass"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstCfAudioFirMode", values));
  return type;
}

#define GST_TYPE_CF_AUDIO_FIR_WINDOW (gst_cf_audio_fir_window_get_type ())
static GType
gst_cf_audio_fir_window_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CF_FIR_WINDOW_RECTANGULAR, "Rectangular window (no window)",
        "rectangular"},
    {CF_FIR_WINDOW_HANN, "Hann window", "hann"},
    {CF_FIR_WINDOW_HAMMING, "Hamming window (default)", "hamming"},
    {CF_FIR_WINDOW_BLACKMAN, "Blackman window", "blackman"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstCfAudioFirWindow", values));
  return type;
}

static CfFirFormat
fir_format (GstAudioFormat format)
{
  switch (format) {
    case GST_AUDIO_FORMAT_F32:
      return CF_FIR_F32;
    case GST_AUDIO_FORMAT_F64:
      return CF_FIR_F64;
    case GST_AUDIO_FORMAT_S16:
      return CF_FIR_S16;
    default:
      return CF_FIR_FORMAT_COUNT;
  }
}

/* ---- the filter ------------------------------------------------------ */

static void
config_copy (FirConfig * dst, const FirConfig * src)
{
  *dst = *src;
  if (dst->taps)
    g_array_ref (dst->taps);
  dst->taps_error = g_strdup (src->taps_error);
}

static void
config_clear (FirConfig * config)
{
  g_clear_pointer (&config->taps, g_array_unref);
  g_clear_pointer (&config->taps_error, g_free);
}

/* The taps and latency that @config gives at @rate Hz, or FALSE with *@why
 * saying what is wrong. */
static gboolean
make_taps (const FirConfig * config, gint rate, GArray ** taps,
    guint64 * latency, gchar ** why)
{
  static const gchar *band_names[] = { "low-pass", "high-pass", "band-pass" };
  const CfFirBand band = config->mode == MODE_LOW_PASS ? CF_FIR_LOWPASS :
      config->mode == MODE_HIGH_PASS ? CF_FIR_HIGHPASS : CF_FIR_BANDPASS;
  const gint n = config->length;
  GArray *t;

  if (config->mode == MODE_CUSTOM) {
    if (!config->taps || config->taps->len == 0) {
      /* the refusal's warning reaches no one when it came before the
       * element had a bus, as on a gst-launch line */
      if (config->taps_error)
        *why = g_strdup_printf ("invalid taps %s", config->taps_error);
      else
        *why = g_strdup ("no taps: set taps, or mode to a preset");
      return FALSE;
    }
    *taps = g_array_copy (config->taps);
    *latency = config->latency >= 0 ? (guint64) config->latency : 0;
    return TRUE;
  }

  t = g_array_sized_new (FALSE, FALSE, sizeof (gdouble), n);
  g_array_set_size (t, n);
  if (band == CF_FIR_BANDPASS ?
      cf_fir_design ((gdouble *) t->data, n, band, config->lower_frequency,
          config->upper_frequency, rate, config->window) :
      cf_fir_design ((gdouble *) t->data, n, band, config->cutoff, 0.0, rate,
          config->window)) {
    if (band == CF_FIR_BANDPASS)
      *why = g_strdup_printf ("cannot design a band-pass of %d taps from "
          "%g Hz to %g Hz for %d Hz audio: lower-frequency must be above 0 "
          "and below upper-frequency, upper-frequency below %g Hz (half the "
          "rate), and the band wide enough for the length", n,
          config->lower_frequency, config->upper_frequency, rate, rate / 2.0);
    else
      *why = g_strdup_printf ("cannot design a %s of %d taps at %g Hz for "
          "%d Hz audio: the cutoff must be above 0 and below %g Hz (half the "
          "rate), and the length enough to pass the band", band_names[band],
          n, config->cutoff, rate, rate / 2.0);
    g_array_unref (t);
    return FALSE;
  }
  *taps = t;
  /* linear phase: the delay is the middle tap's */
  *latency = config->latency >= 0 ? (guint64) config->latency :
      (guint64) (n - 1) / 2;
  return TRUE;
}

/* ---- the filter on the GPU ---------------------------------------------
 * Every call with the element's CUDA context current. */

#ifdef HAVE_CUDA
static CfDeviceError
device_filter_new (const CfFir * fir, gpointer * d_fir)
{
  return cf_fir_device_new (fir, (CfFirDevice **) d_fir);
}

static void
device_filter_free (gpointer d_fir)
{
  cf_fir_device_free (d_fir);
}

static CfDeviceError
device_filter_reset (gpointer d_fir, CfStream * stream)
{
  return cf_fir_device_reset (d_fir, cf_stream_handle (stream));
}

static CfDeviceError
device_filter_run (gpointer d_fir, const void *d_in, void *d_out,
    guint n_frames, CfStream * stream)
{
  return cf_fir_cuda (d_fir, d_in, d_out, n_frames, cf_stream_handle (stream));
}
#else
static CfDeviceError
device_filter_new (const CfFir * fir, gpointer * d_fir)
{
  return CF_DEVICE_NO_CUDA;
}

static void
device_filter_free (gpointer d_fir)
{
}

static CfDeviceError
device_filter_reset (gpointer d_fir, CfStream * stream)
{
  return CF_DEVICE_NO_CUDA;
}

static CfDeviceError
device_filter_run (gpointer d_fir, const void *d_in, void *d_out,
    guint n_frames, CfStream * stream)
{
  return CF_DEVICE_NO_CUDA;
}
#endif

static void
free_staging (GstCfAudioFir * self)
{
  cf_grow_buffer_clear (&self->h_in);
  cf_grow_buffer_clear (&self->h_out);
  cf_grow_buffer_clear (&self->d_in);
  cf_grow_buffer_clear (&self->d_out);
}

/* One buffer on the GPU: upload (from the buffer itself when it is
 * page-locked, else through staging), one launch for every channel and
 * frame, download, then wait, so that the buffers may be released. Staging
 * grows only for a bigger buffer than any before. */
static gboolean
filter_cuda (GstCfAudioFir * self, const guint8 * in, gboolean in_pinned,
    guint8 * out, gboolean out_pinned, guint n_frames)
{
  const gsize bytes = n_frames * self->bpf;
  gboolean ok;
  void *dst;

  if (!gst_cf_gpu_push (&self->gpu, GST_ELEMENT (self)))
    return FALSE;
  ok = GST_CF_OK (self, cf_grow_buffer_reserve (&self->d_in, bytes)) &&
      GST_CF_OK (self, cf_grow_buffer_reserve (&self->d_out, bytes)) &&
      (in_pinned || !in || GST_CF_OK (self,
              cf_grow_buffer_reserve (&self->h_in, bytes))) &&
      (out_pinned || GST_CF_OK (self,
              cf_grow_buffer_reserve (&self->h_out, bytes)));
  if (ok && in) {
    const void *src = in;

    if (!in_pinned) {
      memcpy (self->h_in.data, in, bytes);
      src = self->h_in.data;
    }
    ok = GST_CF_OK (self, cf_copy_async (self->d_in.data, src, bytes,
            self->stream));
  }
  dst = out_pinned ? (void *) out : self->h_out.data;
  ok = ok && GST_CF_OK (self, device_filter_run (self->d_fir,
          in ? self->d_in.data : NULL, self->d_out.data, n_frames,
          self->stream)) &&
      GST_CF_OK (self, cf_copy_async (dst, self->d_out.data, bytes,
          self->stream)) &&
      GST_CF_OK (self, cf_stream_finish (self->stream));
  gst_cf_gpu_pop (&self->gpu);
  if (ok && dst != out)
    memcpy (out, dst, bytes);
  return ok;
}

static guint8 *
grow (guint8 ** p, gsize * size, gsize bytes)
{
  if (bytes > *size) {
    g_free (*p);
    *p = g_malloc (bytes);
    *size = bytes;
  }
  return *p;
}

/* Filters @n_frames frames of host memory @in (NULL: zero frames) into
 * @out with the backend in use; @in_pinned and @out_pinned say whether the
 * GPU may copy from and to them directly. */
static gboolean
filter_frames (GstCfAudioFir * self, const guint8 * in, gboolean in_pinned,
    guint8 * out, gboolean out_pinned, guint n_frames)
{
  const gsize bytes = n_frames * self->bpf;
  const guint8 *src = in;
  guint8 *dst = out;

  if (n_frames == 0)
    return TRUE;
  if (self->gpu.cuda)
    return filter_cuda (self, in, in_pinned, out, out_pinned, n_frames);
  /* cf_fir_cpu_threads () reads and writes whole samples: sub-buffers may
   * start anywhere */
  if (in && (uintptr_t) in % self->sample_bytes) {
    src = grow (&self->cpu_in, &self->cpu_in_bytes, bytes);
    memcpy (self->cpu_in, in, bytes);
  }
  if ((uintptr_t) out % self->sample_bytes)
    dst = grow (&self->cpu_out, &self->cpu_out_bytes, bytes);
  if (cf_fir_cpu_threads (&self->fir, src, dst, n_frames,
          gst_cf_gpu_n_threads (&self->gpu, GST_ELEMENT (self))) != 0) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not filter a buffer"),
        (NULL));
    return FALSE;
  }
  if (dst != out)
    memcpy (out, dst, bytes);
  return TRUE;
}

/* Starts a new stream: silence before it, timestamps from its first
 * buffer. */
static gboolean
reset_stream (GstCfAudioFir * self)
{
  self->start_ts = GST_CLOCK_TIME_NONE;
  self->start_off = GST_BUFFER_OFFSET_NONE;
  self->frames_in = 0;
  if (!self->have_fir)
    return TRUE;
  cf_fir_reset (&self->fir);
  if (self->gpu.cuda) {
    gboolean ok;

    if (!gst_cf_gpu_push (&self->gpu, GST_ELEMENT (self)))
      return FALSE;
    ok = GST_CF_OK (self, device_filter_reset (self->d_fir, self->stream));
    gst_cf_gpu_pop (&self->gpu);
    return ok;
  }
  return TRUE;
}

static void
free_filter (GstCfAudioFir * self)
{
  if (self->d_fir && gst_cf_gpu_push (&self->gpu, NULL)) {
    device_filter_free (self->d_fir);
    gst_cf_gpu_pop (&self->gpu);
  }
  self->d_fir = NULL;
  cf_fir_clear (&self->fir);
  g_clear_pointer (&self->taps, g_array_unref);
  self->have_fir = FALSE;
}

/* Makes @taps (taken) the filter for @info, with @latency, starting a new
 * stream; posts a latency message when what the LATENCY query answers
 * changes. */
static gboolean
install_filter (GstCfAudioFir * self, const GstAudioInfo * info,
    GArray * taps, guint64 latency)
{
  const CfFirFormat format = fir_format (GST_AUDIO_INFO_FORMAT (info));
  const gint rate = GST_AUDIO_INFO_RATE (info);
  gboolean latency_changed;
  CfFir fir;

  if (cf_fir_init (&fir, format, GST_AUDIO_INFO_CHANNELS (info),
          (const gdouble *) taps->data, taps->len) != 0) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Could not make a filter"),
        ("%u taps, %d channels of %s", taps->len,
            GST_AUDIO_INFO_CHANNELS (info), GST_AUDIO_INFO_NAME (info)));
    g_array_unref (taps);
    return FALSE;
  }
  free_filter (self);
  self->fir = fir;
  self->taps = taps;
  self->have_fir = TRUE;
  if (self->gpu.cuda) {
    gboolean ok;

    if (!gst_cf_gpu_push (&self->gpu, GST_ELEMENT (self))) {
      free_filter (self);
      return FALSE;
    }
    ok = GST_CF_OK (self, device_filter_new (&self->fir, &self->d_fir));
    gst_cf_gpu_pop (&self->gpu);
    if (!ok) {
      free_filter (self);
      return FALSE;
    }
  }
  self->bpf = GST_AUDIO_INFO_BPF (info);
  self->sample_bytes = cf_fir_sample_bytes (format);
  GST_INFO_OBJECT (self, "%u taps, latency %" G_GUINT64_FORMAT " frames, "
      "%d channels of %s at %d Hz on the %s backend", taps->len, latency,
      GST_AUDIO_INFO_CHANNELS (info), GST_AUDIO_INFO_NAME (info), rate,
      self->gpu.cuda ? "CUDA" : "CPU");

  GST_OBJECT_LOCK (self);
  latency_changed = self->latency != latency || self->rate != rate;
  self->latency = latency;
  self->rate = rate;
  GST_OBJECT_UNLOCK (self);
  if (latency_changed)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
  return reset_stream (self);
}

static gboolean
same_filter (GstCfAudioFir * self, GArray * taps, guint64 latency)
{
  gboolean same;

  GST_OBJECT_LOCK (self);
  same = self->latency == latency;
  GST_OBJECT_UNLOCK (self);
  return same && self->have_fir && self->taps->len == taps->len &&
      memcmp (self->taps->data, taps->data, taps->len * sizeof (gdouble)) == 0;
}

/* Gives output frames first .. first + n - 1 (counted from the stream's
 * first, L of them before the first kept) their times and offsets. */
static void
stamp (GstCfAudioFir * self, GstBuffer * buf, guint64 first, guint64 n)
{
  const guint64 shown = first - self->latency;
  const gint rate = GST_AUDIO_FILTER_RATE (self);
  const GstClockTime t0 = gst_util_uint64_scale_int (shown, GST_SECOND, rate);
  const GstClockTime t1 = gst_util_uint64_scale_int (shown + n, GST_SECOND,
      rate);

  if (GST_CLOCK_TIME_IS_VALID (self->start_ts)) {
    GST_BUFFER_PTS (buf) = self->start_ts + t0;
    if (GST_BUFFER_DTS_IS_VALID (buf))
      GST_BUFFER_DTS (buf) = GST_BUFFER_PTS (buf);
  } else {
    GST_BUFFER_PTS (buf) = GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  }
  GST_BUFFER_DURATION (buf) = t1 - t0;
  if (self->start_off != GST_BUFFER_OFFSET_NONE) {
    GST_BUFFER_OFFSET (buf) = self->start_off + shown;
    GST_BUFFER_OFFSET_END (buf) = self->start_off + shown + n;
  } else {
    GST_BUFFER_OFFSET (buf) = GST_BUFFER_OFFSET_END (buf) =
        GST_BUFFER_OFFSET_NONE;
  }
  if (self->discont) {
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    self->discont = FALSE;
  }
}

/* TRUE while a flush or a state change down to READY goes on: what a
 * drain would push then is dropped at the pad, and a new stream follows. */
static gboolean
flushing (GstCfAudioFir * self)
{
  GstPad *pads[] = { GST_BASE_TRANSFORM_SINK_PAD (self),
    GST_BASE_TRANSFORM_SRC_PAD (self)
  };
  gboolean any = FALSE;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (pads); i++) {
    GST_OBJECT_LOCK (pads[i]);
    any |= GST_PAD_IS_FLUSHING (pads[i]);
    GST_OBJECT_UNLOCK (pads[i]);
  }
  return any;
}

/* Pushes what the stream still owes, as audiofirfilter does: the last L
 * output frames, which need the L input frames after the end, taken as
 * silence (fewer when the stream was shorter than L: the output never has
 * more frames than the input). Then starts a new stream.
 *
 * Only the T - 1 output frames after the end (T taps) still see the
 * stream; every later one is a sum over silence alone, +0.0 in every
 * format (fir.h: a sum starts at +0.0, and fma (h, +0.0, +0.0) is +0.0 for
 * any finite h). So at most T - 1 frames of silence are filtered and the
 * rest of what is owed is zeros: the same bytes as filtering all L, at the
 * cost of one buffer of T - 1 frames however large L is. A flush stops
 * the drain and drops what it owes, as it drops the filter's history. */
static GstFlowReturn
drain (GstCfAudioFir * self)
{
  guint64 latency, first, owed, feed, reach, fed, n;
  GstBuffer *outbuf;
  GstMapInfo map;
  guint8 *tmp = NULL;
  gboolean ok = TRUE, stopped = FALSE;

  if (!self->have_fir || self->frames_in == 0)
    return reset_stream (self) ? GST_FLOW_OK : GST_FLOW_ERROR;
  latency = self->latency;
  /* output frames frames_in .. frames_in + L - 1 come from the silence;
   * those before L were never to be shown */
  first = MAX (self->frames_in, latency);
  owed = self->frames_in + latency - first;
  if (owed == 0)
    return reset_stream (self) ? GST_FLOW_OK : GST_FLOW_ERROR;
  if (flushing (self))
    goto flushed;
  /* output frames before reach see the stream; the silence fed goes
   * through the filter from frames_in on, those before first dropped */
  reach = self->frames_in + self->taps->len - 1;
  feed = first < reach ? MIN (latency, self->taps->len - 1) : 0;

  GST_DEBUG_OBJECT (self, "draining %" G_GUINT64_FORMAT " frames, filtering "
      "%" G_GUINT64_FORMAT " frames of silence", owed, feed);
  outbuf = gst_buffer_new_allocate (NULL, owed * self->bpf, NULL);
  if (!outbuf || !gst_buffer_map (outbuf, &map, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("Could not allocate "
            "the tail of the stream"), ("%" G_GUINT64_FORMAT " frames of %"
            G_GSIZE_FORMAT " bytes (latency %" G_GUINT64_FORMAT ")", owed,
            self->bpf, latency));
    gst_clear_buffer (&outbuf);
    return GST_FLOW_ERROR;
  }
  if (feed)
    tmp = g_malloc (MIN (feed, DRAIN_CHUNK) * self->bpf);
  for (fed = 0; ok && fed < feed; fed += n) {
    const guint64 k = self->frames_in + fed;    /* output frame of tmp[0] */
    const guint64 from = MAX (k, first);

    if ((stopped = flushing (self)))
      break;
    n = MIN (feed - fed, DRAIN_CHUNK);
    ok = filter_frames (self, NULL, FALSE, tmp, FALSE, n);
    if (ok && from < k + n)
      memcpy (map.data + (from - first) * self->bpf,
          tmp + (from - k) * self->bpf, (k + n - from) * self->bpf);
  }
  g_free (tmp);
  /* past the taps' reach */
  n = MAX (first, self->frames_in + feed) - first;
  memset (map.data + n * self->bpf, 0, (owed - n) * self->bpf);
  gst_buffer_unmap (outbuf, &map);
  if (!ok || stopped) {
    gst_buffer_unref (outbuf);
    if (!ok)
      return GST_FLOW_ERROR;
    goto flushed;
  }
  stamp (self, outbuf, first, owed);
  if (!reset_stream (self)) {
    gst_buffer_unref (outbuf);
    return GST_FLOW_ERROR;
  }
  return gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), outbuf);

flushed:
  GST_DEBUG_OBJECT (self, "flushing: %" G_GUINT64_FORMAT " frames not "
      "drained", owed);
  return reset_stream (self) ? GST_FLOW_FLUSHING : GST_FLOW_ERROR;
}

/* Takes up property changes made since the last buffer. */
static GstFlowReturn
apply_changes (GstCfAudioFir * self)
{
  const GstAudioInfo *info = GST_AUDIO_FILTER_INFO (self);
  FirConfig config;
  GArray *taps = NULL;
  guint64 latency = 0;
  gchar *why = NULL;
  GstFlowReturn ret;

  GST_OBJECT_LOCK (self);
  if (!self->changed) {
    GST_OBJECT_UNLOCK (self);
    return GST_FLOW_OK;
  }
  self->changed = FALSE;
  config_copy (&config, &self->config);
  GST_OBJECT_UNLOCK (self);

  if (!make_taps (&config, GST_AUDIO_INFO_RATE (info), &taps, &latency, &why)) {
    /* a half-made change (mode set, cutoff not yet): keep filtering */
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("Filter not changed: %s", why), (NULL));
    g_free (why);
    config_clear (&config);
    return GST_FLOW_OK;
  }
  config_clear (&config);
  if (same_filter (self, taps, latency)) {
    g_array_unref (taps);
    return GST_FLOW_OK;
  }
  GST_DEBUG_OBJECT (self, "new filter: draining the old one");
  ret = drain (self);
  if (ret != GST_FLOW_OK) {
    /* not taken up yet: the next buffer tries again */
    GST_OBJECT_LOCK (self);
    self->changed = TRUE;
    GST_OBJECT_UNLOCK (self);
    g_array_unref (taps);
    return ret;
  }
  return install_filter (self, info, taps, latency) ? GST_FLOW_OK :
      GST_FLOW_ERROR;
}

/* ---- GstAudioFilter and GstBaseTransform ------------------------------ */

static gboolean
gst_cf_audio_fir_setup (GstAudioFilter * filter, const GstAudioInfo * info)
{
  GstCfAudioFir *self = GST_CF_AUDIO_FIR (filter);
  FirConfig config;
  GArray *taps = NULL;
  guint64 latency = 0;
  gchar *why = NULL;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  self->changed = FALSE;
  config_copy (&config, &self->config);
  GST_OBJECT_UNLOCK (self);
  ok = make_taps (&config, GST_AUDIO_INFO_RATE (info), &taps, &latency, &why);
  config_clear (&config);
  if (!ok) {
    /* upstream retries negotiation: one error message is enough */
    if (!self->setup_failed)
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("No filter: %s", why),
          (NULL));
    else
      GST_DEBUG_OBJECT (self, "no filter: %s", why);
    self->setup_failed = TRUE;
    g_free (why);
    return FALSE;
  }
  self->setup_failed = FALSE;
  /* the same caps again: the stream goes on */
  if (self->have_fir && gst_audio_info_is_equal (info,
          GST_AUDIO_FILTER_INFO (self)) && same_filter (self, taps, latency)) {
    g_array_unref (taps);
    return TRUE;
  }
  return install_filter (self, info, taps, latency);
}

static gboolean
gst_cf_audio_fir_start (GstBaseTransform * trans)
{
  GstCfAudioFir *self = GST_CF_AUDIO_FIR (trans);

  if (!gst_cf_gpu_start (&self->gpu, GST_ELEMENT (self)))
    return FALSE;
  if (self->gpu.cuda) {
    gboolean ok;

    if (!gst_cf_gpu_push (&self->gpu, GST_ELEMENT (self)))
      return FALSE;
    ok = GST_CF_OK (self, cf_stream_new (&self->stream));
    gst_cf_gpu_pop (&self->gpu);
    if (!ok)
      return FALSE;
  }
  self->discont = FALSE;
  self->setup_failed = FALSE;
  return reset_stream (self);
}

static gboolean
gst_cf_audio_fir_stop (GstBaseTransform * trans)
{
  GstCfAudioFir *self = GST_CF_AUDIO_FIR (trans);

  free_filter (self);
  if (self->gpu.cuda && gst_cf_gpu_push (&self->gpu, NULL)) {
    free_staging (self);
    cf_stream_free (self->stream);
    gst_cf_gpu_pop (&self->gpu);
  }
  self->stream = NULL;
  gst_cf_gpu_clear (&self->gpu);
  g_clear_pointer (&self->cpu_in, g_free);
  g_clear_pointer (&self->cpu_out, g_free);
  self->cpu_in_bytes = self->cpu_out_bytes = 0;
  GST_OBJECT_LOCK (self);
  self->latency = 0;
  self->rate = 0;
  /* a restart designs the filter again, at its negotiation */
  self->changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static void
gst_cf_audio_fir_set_context (GstElement * element, GstContext * context)
{
  gst_cf_gpu_set_context (&GST_CF_AUDIO_FIR (element)->gpu, element, context);
  GST_ELEMENT_CLASS (gst_cf_audio_fir_parent_class)->set_context (element,
      context);
}

static GstFlowReturn
gst_cf_audio_fir_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCfAudioFir *self = GST_CF_AUDIO_FIR (trans);
  const GstClockTime ts = GST_BUFFER_PTS (inbuf);
  GstClockTime expected = GST_CLOCK_TIME_NONE;
  GstMapInfo in, out;
  guint64 first, keep_from, n;
  gboolean ok, in_pinned = FALSE, out_pinned = FALSE;
  GstFlowReturn ret;

  if ((ret = apply_changes (self)) != GST_FLOW_OK)
    return ret;
  if (G_UNLIKELY (!self->have_fir)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("No filter"),
        ("a buffer before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }

  if (GST_CLOCK_TIME_IS_VALID (self->start_ts))
    expected = self->start_ts + gst_util_uint64_scale_int (self->frames_in,
        GST_SECOND, GST_AUDIO_FILTER_RATE (self));
  if (GST_BUFFER_IS_DISCONT (inbuf) || (GST_CLOCK_TIME_IS_VALID (expected) &&
          GST_CLOCK_TIME_IS_VALID (ts) &&
          ABS (GST_CLOCK_DIFF (ts, expected)) > DISCONT_TOLERANCE)) {
    GST_DEBUG_OBJECT (self, "discontinuity at %" GST_TIME_FORMAT
        " (expected %" GST_TIME_FORMAT ")", GST_TIME_ARGS (ts),
        GST_TIME_ARGS (expected));
    if ((ret = drain (self)) != GST_FLOW_OK)
      return ret;
    self->discont = TRUE;
  }
  if (self->frames_in == 0) {
    self->start_ts = ts;
    self->start_off = GST_BUFFER_OFFSET (inbuf);
  }

  if (!gst_buffer_map (inbuf, &in, GST_MAP_READ))
    return GST_FLOW_ERROR;
  if (!gst_buffer_map (outbuf, &out, GST_MAP_WRITE)) {
    gst_buffer_unmap (inbuf, &in);
    return GST_FLOW_ERROR;
  }
  n = in.size / self->bpf;
  if (G_UNLIKELY (out.size < n * self->bpf)) {
    gst_buffer_unmap (outbuf, &out);
    gst_buffer_unmap (inbuf, &in);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Output buffer too small"),
        ("%" G_GSIZE_FORMAT " bytes for %" G_GUINT64_FORMAT " frames",
            out.size, n));
    return GST_FLOW_ERROR;
  }
  if (self->gpu.cuda) {
    in_pinned = gst_cf_buffer_is_pinned (inbuf);
    out_pinned = gst_cf_buffer_is_pinned (outbuf);
  }
  ok = filter_frames (self, in.data, in_pinned, out.data, out_pinned, n);
  gst_buffer_unmap (outbuf, &out);
  gst_buffer_unmap (inbuf, &in);
  if (!ok)
    return GST_FLOW_ERROR;

  /* output frames first .. first + n - 1: those before L are dropped */
  first = self->frames_in;
  self->frames_in += n;
  keep_from = MAX (first, self->latency);
  if (keep_from >= self->frames_in) {
    self->discont |= GST_BUFFER_IS_DISCONT (inbuf);
    return GST_BASE_TRANSFORM_FLOW_DROPPED;
  }
  gst_buffer_resize (outbuf, (keep_from - first) * self->bpf,
      (self->frames_in - keep_from) * self->bpf);
  stamp (self, outbuf, keep_from, self->frames_in - keep_from);
  return GST_FLOW_OK;
}

static gboolean
gst_cf_audio_fir_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCfAudioFir *self = GST_CF_AUDIO_FIR (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      /* the tail goes out in the old format, before the new caps */
      GstCaps *caps, *current = gst_pad_get_current_caps (trans->sinkpad);

      gst_event_parse_caps (event, &caps);
      if (current && !gst_caps_is_equal (caps, current))
        drain (self);
      gst_clear_caps (&current);
      break;
    }
    case GST_EVENT_EOS:
      drain (self);
      break;
    case GST_EVENT_FLUSH_STOP:
      reset_stream (self);
      self->discont = FALSE;
      break;
    default:
      break;
  }
  return
      GST_BASE_TRANSFORM_CLASS (gst_cf_audio_fir_parent_class)->sink_event
      (trans, event);
}

/* The first L frames of a stream come out only once L more have come in:
 * that is the element's latency (the launches are synchronous and add
 * none). */
static gboolean
gst_cf_audio_fir_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstCfAudioFir *self = GST_CF_AUDIO_FIR (trans);

  if (gst_cf_gpu_query_context (&self->gpu, GST_ELEMENT (self), query))
    return TRUE;
  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    GstClockTime min, max, ours;
    gboolean live;
    guint64 latency;
    gint rate;

    GST_OBJECT_LOCK (self);
    latency = self->latency;
    rate = self->rate;
    GST_OBJECT_UNLOCK (self);
    /* as audiofirfilter: no answer before the rate is known */
    if (rate == 0 || !gst_pad_peer_query (trans->sinkpad, query))
      return FALSE;
    gst_query_parse_latency (query, &live, &min, &max);
    ours = gst_util_uint64_scale_round (latency, GST_SECOND, rate);
    GST_DEBUG_OBJECT (self, "latency %" G_GUINT64_FORMAT " frames, %"
        GST_TIME_FORMAT, latency, GST_TIME_ARGS (ours));
    gst_query_set_latency (query, live, min + ours,
        GST_CLOCK_TIME_IS_VALID (max) ? max + ours : max);
    return TRUE;
  }
  return
      GST_BASE_TRANSFORM_CLASS (gst_cf_audio_fir_parent_class)->query (trans,
      direction, query);
}

/* ---- GObject ---------------------------------------------------------- */

static void
gst_cf_audio_fir_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCfAudioFir *self = GST_CF_AUDIO_FIR (object);
  FirConfig *config = &self->config;
  GArray *taps = NULL;

  if (prop_id == PROP_TAPS) {
    GError *err = NULL;

    /* parsed outside the lock; bad taps leave the old ones */
    taps = gst_cf_taps_parse (g_value_get_string (value), CF_FIR_MAX_TAPS,
        &err);
    if (!taps) {
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("Invalid taps, keeping "
              "the previous ones"), ("taps %s", err->message));
      /* for the negotiation error, when that leaves no taps */
      GST_OBJECT_LOCK (self);
      g_free (config->taps_error);
      config->taps_error = g_strdup (err->message);
      GST_OBJECT_UNLOCK (self);
      g_error_free (err);
      return;
    }
  }

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BACKEND:
      self->gpu.backend = g_value_get_enum (value);
      break;
    case PROP_CUDA_DEVICE_ID:
      self->gpu.device_id = g_value_get_int (value);
      break;
    case PROP_N_THREADS:
      self->gpu.n_threads = g_value_get_uint (value);
      break;
    case PROP_TAPS:
      g_clear_pointer (&config->taps, g_array_unref);
      g_clear_pointer (&config->taps_error, g_free);
      config->taps = taps;
      self->changed = TRUE;
      break;
    case PROP_MODE:
      config->mode = g_value_get_enum (value);
      self->changed = TRUE;
      break;
    case PROP_CUTOFF:
      config->cutoff = g_value_get_double (value);
      self->changed = TRUE;
      break;
    case PROP_LOWER_FREQUENCY:
      config->lower_frequency = g_value_get_double (value);
      self->changed = TRUE;
      break;
    case PROP_UPPER_FREQUENCY:
      config->upper_frequency = g_value_get_double (value);
      self->changed = TRUE;
      break;
    case PROP_LENGTH:
      config->length = g_value_get_int (value) | 1;
      self->changed = TRUE;
      break;
    case PROP_WINDOW:
      config->window = g_value_get_enum (value);
      self->changed = TRUE;
      break;
    case PROP_LATENCY:
      config->latency = g_value_get_int64 (value);
      self->changed = TRUE;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cf_audio_fir_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCfAudioFir *self = GST_CF_AUDIO_FIR (object);
  const FirConfig *config = &self->config;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BACKEND:
      g_value_set_enum (value, self->gpu.backend);
      break;
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, self->gpu.device_id);
      break;
    case PROP_N_THREADS:
      g_value_set_uint (value, self->gpu.n_threads);
      break;
    case PROP_TAPS:
      g_value_take_string (value, config->taps ?
          gst_cf_taps_to_string ((const gdouble *) config->taps->data,
              config->taps->len) : g_strdup (""));
      break;
    case PROP_MODE:
      g_value_set_enum (value, config->mode);
      break;
    case PROP_CUTOFF:
      g_value_set_double (value, config->cutoff);
      break;
    case PROP_LOWER_FREQUENCY:
      g_value_set_double (value, config->lower_frequency);
      break;
    case PROP_UPPER_FREQUENCY:
      g_value_set_double (value, config->upper_frequency);
      break;
    case PROP_LENGTH:
      g_value_set_int (value, config->length);
      break;
    case PROP_WINDOW:
      g_value_set_enum (value, config->window);
      break;
    case PROP_LATENCY:
      g_value_set_int64 (value, config->latency);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cf_audio_fir_finalize (GObject * object)
{
  GstCfAudioFir *self = GST_CF_AUDIO_FIR (object);

  config_clear (&self->config);
  free_filter (self);
  gst_cf_gpu_clear (&self->gpu);
  G_OBJECT_CLASS (gst_cf_audio_fir_parent_class)->finalize (object);
}

static void
gst_cf_audio_fir_class_init (GstCfAudioFirClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstAudioFilterClass *filter_class = GST_AUDIO_FILTER_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;
  GstCaps *caps;

  gobject_class->set_property = gst_cf_audio_fir_set_property;
  gobject_class->get_property = gst_cf_audio_fir_get_property;
  gobject_class->finalize = gst_cf_audio_fir_finalize;

  gst_cf_gpu_install_properties (gobject_class, PROP_BACKEND,
      PROP_CUDA_DEVICE_ID, PROP_N_THREADS);
  /**
   * GstCfAudioFir:taps:
   *
   * The filter's taps for `mode=custom`, h[0] first (y[n] = sum of
   * h[t] x[n - t]): numbers separated by commas or spaces ("1,2,1",
   * "0.5 0.5"), optionally in GstValueArray's form ("<1, 2, 1>"), at most
   * 8192 of them. Unparsable taps are refused with a warning, and the taps
   * stay as they were; if that leaves none, negotiation fails with an error
   * that names the cause (the warning reaches no one when the taps come
   * before the element has a bus, as on a gst-launch line). "" clears
   * them. Reads back as "<h0, h1, ...>".
   */
  g_object_class_install_property (gobject_class, PROP_TAPS,
      g_param_spec_string ("taps", "Taps",
          "Filter taps for mode=custom, h[0] first: \"1,2,1\", \"1 2 1\" or "
          "\"<1, 2, 1>\"", "", flags));
  /**
   * GstCfAudioFir:mode:
   *
   * Where the taps come from: the `taps` property (`custom`), or a
   * windowed-sinc design for the negotiated rate, of `length` taps and
   * `window`, with unit gain in the pass band: `low-pass` and `high-pass`
   * at `cutoff`, `band-pass` from `lower-frequency` to `upper-frequency`.
   */
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "Custom taps or a windowed-sinc "
          "preset", GST_TYPE_CF_AUDIO_FIR_MODE, DEFAULT_MODE, flags));
  /**
   * GstCfAudioFir:cutoff:
   *
   * Cut-off frequency of `low-pass` and `high-pass`, in Hz: above 0 and
   * below half the rate, or negotiation fails.
   */
  g_object_class_install_property (gobject_class, PROP_CUTOFF,
      g_param_spec_double ("cutoff", "Cutoff", "Cut-off frequency (Hz) of "
          "low-pass and high-pass", 0.0, G_MAXDOUBLE, DEFAULT_CUTOFF, flags));
  /**
   * GstCfAudioFir:lower-frequency:
   *
   * Lower edge of `band-pass`, in Hz: above 0 and below `upper-frequency`.
   */
  g_object_class_install_property (gobject_class, PROP_LOWER_FREQUENCY,
      g_param_spec_double ("lower-frequency", "Lower frequency",
          "Lower cut-off frequency (Hz) of band-pass", 0.0, G_MAXDOUBLE,
          DEFAULT_LOWER_FREQUENCY, flags));
  /**
   * GstCfAudioFir:upper-frequency:
   *
   * Upper edge of `band-pass`, in Hz: below half the rate.
   */
  g_object_class_install_property (gobject_class, PROP_UPPER_FREQUENCY,
      g_param_spec_double ("upper-frequency", "Upper frequency",
          "Upper cut-off frequency (Hz) of band-pass", 0.0, G_MAXDOUBLE,
          DEFAULT_UPPER_FREQUENCY, flags));
  /**
   * GstCfAudioFir:length:
   *
   * Taps of the presets' filters; an even length is rounded up to the next
   * odd one (as `audiowsinclimit` does), so that every preset is linear
   * phase with a whole delay of (length - 1) / 2 frames. Longer filters
   * have steeper edges.
   */
  g_object_class_install_property (gobject_class, PROP_LENGTH,
      g_param_spec_int ("length", "Length", "Taps of the preset filters, "
          "rounded up to an odd number", 1, MAX_LENGTH, DEFAULT_LENGTH, flags));
  /**
   * GstCfAudioFir:window:
   *
   * Window of the presets' windowed sinc: Hamming falls off faster,
   * Blackman attenuates the stop band more, rectangular is the plain sinc.
   */
  g_object_class_install_property (gobject_class, PROP_WINDOW,
      g_param_spec_enum ("window", "Window", "Window of the preset filters",
          GST_TYPE_CF_AUDIO_FIR_WINDOW, DEFAULT_WINDOW, flags));
  /**
   * GstCfAudioFir:latency:
   *
   * Frames of filter delay to compensate, as `audiofirfilter`'s `latency`:
   * the first ones of each stream are dropped, timestamps are shifted to
   * match, and as many are drained at EOS, so that no frame is lost. -1
   * (auto) is (length - 1) / 2 for the presets, the exact delay of their
   * linear-phase taps, and 0 for custom taps, which have no single delay
   * in general (symmetric custom taps of N have (N - 1) / 2).
   */
  g_object_class_install_property (gobject_class, PROP_LATENCY,
      g_param_spec_int64 ("latency", "Latency", "Frames of filter delay to "
          "compensate (-1 = (length - 1) / 2 for the presets, 0 for custom "
          "taps)", -1, G_MAXINT, DEFAULT_LATENCY, flags));

  caps = gst_caps_from_string (ALLOWED_CAPS);
  gst_audio_filter_class_add_pad_templates (filter_class, caps);
  gst_caps_unref (caps);
  gst_element_class_set_static_metadata (element_class,
      "CUDA audio FIR filter", "Filter/Effect/Audio",
      "FIR filter with custom taps or windowed-sinc low-pass, high-pass and "
      "band-pass presets, on the GPU", "gst-cudafilters developers");

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cf_audio_fir_set_context);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cf_audio_fir_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cf_audio_fir_stop);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cf_audio_fir_transform);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cf_audio_fir_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cf_audio_fir_query);
  filter_class->setup = GST_DEBUG_FUNCPTR (gst_cf_audio_fir_setup);

  gst_type_mark_as_plugin_api (GST_TYPE_CF_AUDIO_FIR_MODE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CF_AUDIO_FIR_WINDOW, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cf_audio_fir_debug, "cudaaudiofir", 0,
      "CUDA audio FIR filter");
}

static void
gst_cf_audio_fir_init (GstCfAudioFir * self)
{
  gst_cf_gpu_init (&self->gpu);
  self->h_in.host = self->h_out.host = TRUE;
  self->config.mode = DEFAULT_MODE;
  self->config.cutoff = DEFAULT_CUTOFF;
  self->config.lower_frequency = DEFAULT_LOWER_FREQUENCY;
  self->config.upper_frequency = DEFAULT_UPPER_FREQUENCY;
  self->config.length = DEFAULT_LENGTH;
  self->config.window = DEFAULT_WINDOW;
  self->config.latency = DEFAULT_LATENCY;
  self->start_ts = GST_CLOCK_TIME_NONE;
  self->start_off = GST_BUFFER_OFFSET_NONE;
}
