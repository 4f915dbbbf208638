/* gst-cudafilters kernel library: packed 4:2:2 (YUY2, UYVY) to planar
 * 4:2:2 (Y42B) and back.
 *
 * The other kernel families work on planar formats and refuse the packed
 * ones (CfFormatInfo.packed); the elements run a packed frame through a
 * Y42B copy: unpack, the family's kernel, pack (for a frame they change).
 * Samples move unchanged, so a packed frame gives the bytes its Y42B twin
 * gives, on both backends.
 *
 * A row of @width pixels holds ceil (@width / 2) macropixels of two luma
 * samples and one U and one V. With an odd width the last macropixel has
 * one pixel: unpacking ignores its second luma sample, and packing writes
 * the first there again, so that every byte of the row is defined.
 *
 * cf_packed_unpack_cuda () and cf_packed_pack_cuda () are the GPU
 * launchers, the _cpu functions the references with the same contract.
 */
#ifndef CF_PACKED_H
#define CF_PACKED_H

#include "format.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The planar format a packed @format is worked on as (CF_FORMAT_Y42B), or
 * @format itself when it is not packed. */
CfFormat cf_packed_planar (CfFormat format);

/* Byte offsets of a macropixel's samples: its two luma samples, U, V. */
typedef struct {
  int y0, y1, u, v;
} CfPackedOffsets;

/* Shared by both backends: 0 with @offsets set when @packed is a valid
 * image of a packed format and @planar a valid one of its planar format
 * and size; -1 otherwise. */
int cf_packed_check (const CfImage * packed, const CfImage * planar,
    CfPackedOffsets * offsets);

/* CPU reference: @src (packed) into @dst (its planar format, the same
 * size), and back. Any pitches. Returns 0, or -1 when the images do not
 * match. */
int cf_packed_unpack_cpu (const CfImage * src, const CfImage * dst);
int cf_packed_pack_cpu (const CfImage * src, const CfImage * dst);
/* The same over @n_threads threads (threads.h: 0 = all the cores), each
 * converting a band of rows; the functions above are these with 1. */
int cf_packed_unpack_cpu_threads (const CfImage * src, const CfImage * dst,
    int n_threads);
int cf_packed_pack_cpu_threads (const CfImage * src, const CfImage * dst,
    int n_threads);

#ifdef HAVE_CUDA
/* The same on @stream, one launch each; any pitches and alignments.
 * Returns cudaErrorInvalidValue when the images do not match, otherwise
 * the launch's error. */
cudaError_t cf_packed_unpack_cuda (const CfImage * d_src,
    const CfImage * d_dst, cudaStream_t stream);
cudaError_t cf_packed_pack_cuda (const CfImage * d_src,
    const CfImage * d_dst, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif
#endif /* CF_PACKED_H */
