/*
 * kernels_codec_int — what the image codec kernel files share (kernels_codec.c: the ops, the
 * format sniffing and BMP; kernels_codec_jpeg.c: libjpeg; kernels_codec_png.c: libpng;
 * kernels_codec_gif.c: giflib).
 *
 * A decoder reads one image's bytes (borrowed for the call) and returns a new [h, w, c] tensor
 * (uint8, or uint16 for 16-bit PNG output) that the caller owns, or NULL with c->status set
 * (INVALID_ARGUMENT with TF's text). Decoders are thread-safe: libjpeg and libpng state lives
 * on the stack of the call.
 */
#ifndef TFC_DEVICE_CPU_KERNELS_CODEC_INT_H
#define TFC_DEVICE_CPU_KERNELS_CODEC_INT_H

#include <stddef.h>
#include <stdint.h>

#include "device/kernel.h"

/* DecodeJpeg's attrs (TF's defaults: channels 0, ratio 1, fancy upscaling, no recovery,
 * acceptable fraction 1, IFAST DCT) and DecodeAndCropJpeg's window. */
typedef struct tfc_jpeg_flags {
  int channels;
  int ratio;
  int fancy_upscaling;
  int try_recover_truncated;
  float acceptable_fraction;
  int dct_islow; /* 1: "INTEGER_ACCURATE" (JDCT_ISLOW); 0: "" or "INTEGER_FAST" (JDCT_IFAST) */
  int crop;      /* 1: decode only [crop_y, crop_y + crop_h) x [crop_x, crop_x + crop_w) */
  int crop_y, crop_x, crop_h, crop_w;
} tfc_jpeg_flags;

/* Decodes a JPEG into uint8 [h, w, channels] (channels 0: 1 for gray files, else 3; CMYK is
 * converted with TF's formula). Any failure is "jpeg::Uncompress failed. Invalid JPEG data or
 * crop window." as in TF. */
tfc_tensor *tfc_codec_jpeg_decode(tfc_kernel_ctx *c, const uint8_t *data, size_t n, const tfc_jpeg_flags *f);
/* ExtractJpegShape: the header's height, width and component count; false (0) when the header
 * cannot be read. */
int tfc_codec_jpeg_shape(const uint8_t *data, size_t n, int64_t out[3]);

/* EncodeJpeg's attrs. */
typedef struct tfc_jpeg_encode_flags {
  int quality;
  int progressive;
  int optimize_size;
  int chroma_downsampling;
  int density_cm; /* density_unit "cm" (else "in") */
  int x_density, y_density;
  const char *xmp;
  size_t xmp_len;
} tfc_jpeg_encode_flags;

/* Encodes uint8 pixels [h, w, channels] (channels 1 or 3, rows packed) into *out (malloc'd,
 * the caller frees) and *out_len. Returns 0, or an error in c->status. */
int tfc_codec_jpeg_encode(tfc_kernel_ctx *c, const uint8_t *pixels, int h, int w, int channels,
                          const tfc_jpeg_encode_flags *f, uint8_t **out, size_t *out_len);

/* Decodes a PNG into [h, w, channels] (channels 0: the file's, palettes with transparency
 * giving 4) of uint8 (bits 8) or uint16 (bits 16: 8-bit files scaled by 257). Errors: "Invalid
 * PNG. Failed to initialize decoder." (header), "Invalid PNG data, size N" (pixels). */
tfc_tensor *tfc_codec_png_decode(tfc_kernel_ctx *c, const uint8_t *data, size_t n, int channels, int bits);
/* Encodes [h, w, channels] (1 to 4) uint8 (bits 8) or uint16 pixels with zlib level
 * `compression` (-1: zlib's default) into *out (malloc'd) and *out_len. */
int tfc_codec_png_encode(tfc_kernel_ctx *c, const void *pixels, int h, int w, int channels, int bits,
                         int compression, uint8_t **out, size_t *out_len);

/* Decodes a GIF into uint8 [frames, h, w, 3] (all frames, or the first when !all_frames).
 * Errors: "Invalid GIF data (size N), ..." (kernels_codec_gif.c). */
tfc_tensor *tfc_codec_gif_decode(tfc_kernel_ctx *c, const uint8_t *data, size_t n, int all_frames);

#endif
