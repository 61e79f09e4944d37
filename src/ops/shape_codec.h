/*
 * shape_codec — shape functions of the image codec ops (ops_codec.def), as TF's: the contents
 * must be a scalar string and images rank 3 ("Shape must be rank N but is rank M").
 */
#ifndef TFC_OPS_SHAPE_CODEC_H
#define TFC_OPS_SHAPE_CODEC_H

typedef struct tfc_shape_ctx tfc_shape_ctx;

/* DecodeJpeg, DecodePng, DecodeBmp, DecodeImage: [?, ?, channels] (channels unknown when the
 * attr is 0); DecodeImage with expand_animations (GIF gives 4-D) has unknown rank. */
int tfc_shape_decode_image(tfc_shape_ctx *c);
/* DecodeAndCropJpeg: as above with height and width from a const crop_window [y, x, h, w]. */
int tfc_shape_decode_and_crop_jpeg(tfc_shape_ctx *c);
/* ExtractJpegShape: [3]. */
int tfc_shape_extract_jpeg_shape(tfc_shape_ctx *c);
/* DecodeGif: [?, ?, ?, 3]. */
int tfc_shape_decode_gif(tfc_shape_ctx *c);
/* EncodeJpeg, EncodePng: image rank 3, a scalar out. */
int tfc_shape_encode_image(tfc_shape_ctx *c);

#endif
