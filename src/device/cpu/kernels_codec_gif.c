/*
 * kernels_codec_gif — GIF through giflib (DGifSlurp), composed as TF's gif_io does, so the same
 * bytes give the same frames:
 *  - the canvas is the largest frame's width and height (not the screen descriptor's);
 *  - each frame starts as a copy of the one before (the first as black where it does not
 *    cover the canvas), then its rectangle, clipped to the canvas, is painted from its own
 *    color map or the global one; its Graphics Control Block's transparent index keeps the
 *    pixel below (black in the first frame);
 *  - a slurp that fails after at least one whole frame keeps the frames read (a cut file
 *    decodes to its first frames, as in TF); an index beyond the color map is an error.
 * Errors are INVALID_ARGUMENT "Invalid GIF data (size N), <what went wrong>" with giflib's
 * texts for open and slurp failures, as TF reports them.
 */
#include <gif_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/kernels_codec_int.h"

typedef struct gif_reader {
  const uint8_t *data;
  size_t left;
} gif_reader;

static int read_fn(GifFileType *g, GifByteType *buf, int size) {
  gif_reader *r = g->UserData;
  if (size < 0) return 0;
  if ((size_t)size > r->left) size = (int)r->left;
  memcpy(buf, r->data, (size_t)size);
  r->data += size;
  r->left -= (size_t)size;
  return size;
}

static const char *gif_error(int code) {
  const char *s = GifErrorString(code);
  return s ? s : "Unknown error";
}

tfc_tensor *tfc_codec_gif_decode(tfc_kernel_ctx *c, const uint8_t *data, size_t n, int all_frames) {
  gif_reader rd = {data, n};
  int err = D_GIF_SUCCEEDED;
  char why[256] = "";
  tfc_tensor *out = NULL;
  GifFileType *g = DGifOpen(&rd, read_fn, &err);
  if (!g || err != D_GIF_SUCCEEDED) {
    snprintf(why, sizeof why, "failed to open gif file: %s", gif_error(err));
    goto fail;
  }
  if (DGifSlurp(g) != GIF_OK) {
    snprintf(why, sizeof why, "failed to slurp gif file: %s", gif_error(g->Error));
    if (g->ImageCount <= 0 || !g->SavedImages[g->ImageCount - 1].RasterBits) goto fail;
    why[0] = 0;
  }
  if (g->ImageCount <= 0) {
    snprintf(why, sizeof why, "gif file does not contain any image");
    goto fail;
  }
  int64_t frames = all_frames ? g->ImageCount : 1, w = 0, h = 0;
  for (int k = 0; k < g->ImageCount; k++) {
    const GifImageDesc *d = &g->SavedImages[k].ImageDesc;
    if (d->Width > w) w = d->Width;
    if (d->Height > h) h = d->Height;
  }
  if (frames * w * h * 3 >= (1ll << 31)) {
    snprintf(why, sizeof why, "gif image of %lld frames of %lld by %lld is too large", (long long)frames,
             (long long)w, (long long)h);
    goto fail;
  }
  int64_t dims[4] = {frames, h, w, 3};
  out = tfc_tensor_new(TFC_DT_UINT8, dims, 4, c->status);
  if (!out) goto fail;
  size_t frame_bytes = (size_t)(h * w * 3);
  for (int64_t k = 0; k < frames; k++) {
    uint8_t *dst = (uint8_t *)out->data + (size_t)k * frame_bytes;
    const SavedImage *im = &g->SavedImages[k];
    const GifImageDesc *d = &im->ImageDesc;
    GraphicsControlBlock gcb;
    if (DGifSavedExtensionToGCB(g, (int)k, &gcb) != GIF_OK) gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    int64_t left = d->Left, top = d->Top, right = (int64_t)d->Left + d->Width, bottom = (int64_t)d->Top + d->Height;
    if (k > 0) memcpy(dst, dst - frame_bytes, frame_bytes);
    if (d->Left != 0 || d->Top != 0 || d->Width != w || d->Height != h) {
      if (k == 0) memset(dst, 0, frame_bytes);
      if (left < 0) left = 0;
      if (top < 0) top = 0;
      if (right > w) right = w;
      if (bottom > h) bottom = h;
    }
    const ColorMapObject *map = d->ColorMap ? d->ColorMap : g->SColorMap;
    if (!map) {
      snprintf(why, sizeof why, "missing color map");
      goto fail;
    }
    for (int64_t y = top; y < bottom; y++)
      for (int64_t x = left; x < right; x++) {
        uint8_t *p = dst + (size_t)((y * w + x) * 3);
        int idx = im->RasterBits[(y - d->Top) * d->Width + (x - d->Left)];
        if (idx == gcb.TransparentColor) {
          if (k == 0) p[0] = p[1] = p[2] = 0;
          continue;
        }
        if (idx >= map->ColorCount) {
          snprintf(why, sizeof why, "found color index %d outside of color map range %d", idx, map->ColorCount);
          goto fail;
        }
        p[0] = map->Colors[idx].Red;
        p[1] = map->Colors[idx].Green;
        p[2] = map->Colors[idx].Blue;
      }
  }
  DGifCloseFile(g, &err);
  return out;
fail:
  if (g) DGifCloseFile(g, &err);
  tfc_tensor_unref(out);
  if (tfc_status_ok(c->status)) tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid GIF data (size %zu), %s", n, why);
  return NULL;
}
