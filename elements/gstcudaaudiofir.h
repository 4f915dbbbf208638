#ifndef __GST_CUDA_AUDIO_FIR_H__
#define __GST_CUDA_AUDIO_FIR_H__

#include <gst/audio/gstaudiofilter.h>

G_BEGIN_DECLS
#define GST_TYPE_CUDA_AUDIO_FIR (gst_cuda_audio_fir_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaAudioFir, gst_cuda_audio_fir, GST,
    CUDA_AUDIO_FIR, GstAudioFilter)
GST_ELEMENT_REGISTER_DECLARE (cudaaudiofir);

G_END_DECLS
#endif
