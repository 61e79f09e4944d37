/*
 * shape_fft — shape functions of the FFT ops (ops_fft.def), as TF's: the input has rank at
 * least the transform's ("Shape must be at least rank N but is rank M"); FFT* keep the shape;
 * RFFT and IRFFT (all ranks) take fft_length as a vector of that many entries ("Shape must be rank 1 ...",
 * "Dimension must be N but is M") and, when it is a constant, set the inner dims from it
 * (RFFT's innermost to fft_length / 2 + 1), else leave them unknown.
 */
#ifndef TFC_OPS_SHAPE_FFT_H
#define TFC_OPS_SHAPE_FFT_H

typedef struct tfc_shape_ctx tfc_shape_ctx;

int tfc_shape_fft1(tfc_shape_ctx *c);
int tfc_shape_fft2(tfc_shape_ctx *c);
int tfc_shape_fft3(tfc_shape_ctx *c);
int tfc_shape_rfft1(tfc_shape_ctx *c);
int tfc_shape_rfft2(tfc_shape_ctx *c);
int tfc_shape_rfft3(tfc_shape_ctx *c);
int tfc_shape_irfft1(tfc_shape_ctx *c);
int tfc_shape_irfft2(tfc_shape_ctx *c);
int tfc_shape_irfft3(tfc_shape_ctx *c);

#endif
