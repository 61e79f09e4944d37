/*
 * kernels_codec_png — PNG through libpng, set up as TF's png_io so the same bytes give the same
 * pixels. Decoding asks libpng for these transforms:
 *  - channels 0 means the file's count, a palette counting 3, or 4 with a tRNS chunk;
 *  - an even channel count wants alpha: the file's, tRNS turned into alpha, or a filler of
 *    (1 << bit_depth) - 1 after each pixel (so 1-bit files get alpha 1, as in TF); an odd count
 *    strips alpha;
 *  - 16-bit samples are stripped to 8 unless 16 bits are wanted; 8-bit samples wanted as 16
 *    are scaled by 257 afterwards; sub-byte samples are unpacked, gray ones expanded to 8 bits;
 *  - palettes become RGB; fewer than 3 channels from a color file use
 *    png_set_rgb_to_gray(1, 0.299, 0.587), 3 or more from a gray file png_set_gray_to_rgb;
 *  - interlaced files are read through png_set_interlace_handling; png_read_end runs too.
 * A failure while reading the header is "Invalid PNG. Failed to initialize decoder."; one while
 * reading the pixels "Invalid PNG data, size N" (N the input's size); 2^29 pixels or more are
 * "PNG size too large for int: W by H", TF's texts. Encoding writes
 * gray, gray+alpha, RGB or RGBA with no interlace and the default filters, at the given zlib
 * level. libpng's errors longjmp back here; its warnings are dropped.
 */
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/kernels_codec_int.h"

typedef struct png_reader {
  const uint8_t *data;
  size_t n, pos;
} png_reader;

static void read_fn(png_structp p, png_bytep out, png_size_t len) {
  png_reader *r = png_get_io_ptr(p);
  if (len > r->n - r->pos) png_error(p, "read past the end of the data");
  memcpy(out, r->data + r->pos, len);
  r->pos += len;
}

static void on_error(png_structp p, png_const_charp msg) {
  (void)msg;
  png_longjmp(p, 1);
}

static void on_warning(png_structp p, png_const_charp msg) {
  (void)p;
  (void)msg;
}

tfc_tensor *tfc_codec_png_decode(tfc_kernel_ctx *c, const uint8_t *data, size_t n, int want_channels, int bits) {
  png_reader rd = {data, n, 0};
  png_structp p = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, on_error, on_warning);
  png_infop info = p ? png_create_info_struct(p) : NULL;
  tfc_tensor *volatile out = NULL;
  uint8_t *volatile narrow = NULL;
  png_bytep *volatile rows = NULL;
  volatile int in_pixels = 0;
  if (!info) {
    png_destroy_read_struct(&p, NULL, NULL);
    TFC_OOM(c->status);
    return NULL;
  }
  if (setjmp(png_jmpbuf(p))) {
    png_destroy_read_struct(&p, &info, NULL);
    tfc_tensor_unref(out);
    free(narrow);
    free(rows);
    if (!tfc_status_ok(c->status)) return NULL;
    if (in_pixels) tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid PNG data, size %zu", n);
    else tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid PNG. Failed to initialize decoder.");
    return NULL;
  }
  int channels = want_channels;
  png_set_read_fn(p, &rd, read_fn);
  png_read_info(p, info);
  png_uint_32 w, h;
  int depth, color, interlace;
  png_get_IHDR(p, info, &w, &h, &depth, &color, &interlace, NULL, NULL);
  /* TF's limit: fewer than 2^29 pixels (the output is allocated before any pixel is read). */
  if ((uint64_t)w * h >= (1ull << 29)) {
    png_destroy_read_struct(&p, &info, NULL);
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "PNG size too large for int: %u by %u", (unsigned)w, (unsigned)h);
    return NULL;
  }
  int has_trns = png_get_valid(p, info, PNG_INFO_tRNS) != 0;
  if (!channels) channels = color == PNG_COLOR_TYPE_PALETTE ? (has_trns ? 4 : 3) : png_get_channels(p, info);
  int has_alpha = (color & PNG_COLOR_MASK_ALPHA) != 0;
  if (channels % 2 == 0) {
    if (!has_alpha) {
      if (has_trns) png_set_tRNS_to_alpha(p);
      else png_set_add_alpha(p, (png_uint_32)((1u << depth) - 1), PNG_FILLER_AFTER);
    }
  } else if (has_alpha || has_trns) {
    png_set_strip_alpha(p);
  }
  if (depth > 8 && bits <= 8) png_set_strip_16(p);
  int widen = depth <= 8 && bits == 16;
  png_set_packing(p);
  png_set_interlace_handling(p);
  if (bits > 8 && depth > 8) png_set_swap(p); /* PNG is big-endian; uint16 tensors are host order */
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(p);
  int is_gray = !(color & PNG_COLOR_MASK_COLOR);
  if (is_gray && depth < 8) png_set_expand_gray_1_2_4_to_8(p);
  if (channels < 3) {
    if (!is_gray) png_set_rgb_to_gray(p, 1, 0.299, 0.587);
  } else if (is_gray) {
    png_set_gray_to_rgb(p);
  }
  png_read_update_info(p, info);
  in_pixels = 1;
  size_t row_bytes = png_get_rowbytes(p, info);
  int sample = bits > 8 && !widen ? 2 : 1;
  if (row_bytes != (size_t)w * (size_t)channels * (size_t)sample) png_error(p, "unexpected row size");
  int64_t dims[3] = {h, w, channels};
  out = tfc_tensor_new(bits > 8 ? TFC_DT_UINT16 : TFC_DT_UINT8, dims, 3, c->status);
  if (!out) png_longjmp(p, 1);
  uint8_t *dst = out->data;
  if (widen && !(dst = narrow = malloc(row_bytes * h + 1))) {
    TFC_OOM(c->status);
    png_longjmp(p, 1);
  }
  if (!(rows = malloc(sizeof(png_bytep) * (h ? h : 1)))) {
    TFC_OOM(c->status);
    png_longjmp(p, 1);
  }
  for (png_uint_32 y = 0; y < h; y++) rows[y] = dst + (size_t)y * row_bytes;
  png_read_image(p, rows);
  png_read_end(p, info);
  if (widen) {
    uint16_t *o = out->data;
    for (int64_t i = 0; i < out->n_elems; i++) o[i] = (uint16_t)(narrow[i] * 257);
  }
  png_destroy_read_struct(&p, &info, NULL);
  free(narrow);
  free(rows);
  return out;
}

typedef struct png_writer {
  uint8_t *buf;
  size_t len, cap;
  int oom;
} png_writer;

static void write_fn(png_structp p, png_bytep data, png_size_t len) {
  png_writer *wr = png_get_io_ptr(p);
  if (wr->len + len > wr->cap) {
    size_t cap = wr->cap * 2 > wr->len + len ? wr->cap * 2 : wr->len + len;
    uint8_t *nb = realloc(wr->buf, cap);
    if (!nb) {
      wr->oom = 1;
      png_error(p, "out of memory");
    }
    wr->buf = nb;
    wr->cap = cap;
  }
  memcpy(wr->buf + wr->len, data, len);
  wr->len += len;
}

static void flush_fn(png_structp p) { (void)p; }

int tfc_codec_png_encode(tfc_kernel_ctx *c, const void *pixels, int h, int w, int channels, int bits,
                         int compression, uint8_t **out, size_t *out_len) {
  static const int color_of[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                  PNG_COLOR_TYPE_RGB_ALPHA};
  png_writer wr = {NULL, 0, 0, 0};
  png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, on_error, on_warning);
  png_infop info = p ? png_create_info_struct(p) : NULL;
  if (!info) {
    png_destroy_write_struct(&p, NULL);
    return TFC_OOM(c->status);
  }
  if (setjmp(png_jmpbuf(p))) {
    png_destroy_write_struct(&p, &info);
    free(wr.buf);
    if (wr.oom) return TFC_OOM(c->status);
    return tfc_kernel_error(c, TFC_INTERNAL, "PNG encoding failed");
  }
  png_set_write_fn(p, &wr, write_fn, flush_fn);
  png_set_IHDR(p, info, (png_uint_32)w, (png_uint_32)h, bits, color_of[channels], PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(p, compression);
  png_write_info(p, info);
  size_t row_bytes = (size_t)w * (size_t)channels * (size_t)(bits / 8);
  if (bits > 8) png_set_swap(p);
  for (int y = 0; y < h; y++) png_write_row(p, (png_const_bytep)pixels + (size_t)y * row_bytes);
  png_write_end(p, NULL);
  png_destroy_write_struct(&p, &info);
  *out = wr.buf;
  *out_len = wr.len;
  return TFC_OK;
}
