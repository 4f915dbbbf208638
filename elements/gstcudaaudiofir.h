#ifndef __GST_CF_AUDIO_FIR_H__
#define __GST_CF_AUDIO_FIR_H__

#include <gst/audio/gstaudiofilter.h>

G_BEGIN_DECLS
#define GST_TYPE_CF_AUDIO_FIR (gst_cf_audio_fir_get_type ())
G_DECLARE_FINAL_TYPE (GstCfAudioFir, gst_cf_audio_fir, GST,
    CF_AUDIO_FIR, GstAudioFilter)
GST_ELEMENT_REGISTER_DECLARE (cudaaudiofir);

G_END_DECLS
#endif
