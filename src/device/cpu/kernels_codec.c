/*
 * kernels_codec — the image codec ops on the CPU: DecodeJpeg, DecodeAndCropJpeg,
 * ExtractJpegShape, DecodePng, DecodeBmp, DecodeGif, DecodeImage, EncodeJpeg, EncodePng.
 *
 * As in TF, one path serves every decode op: it refuses an empty input ("Input is empty."),
 * sniffs the format from the first bytes (JPEG FF D8 FF, PNG's 8-byte signature, "GIF8",
 * "BM"), and decodes what it finds, whichever decode op asked: DecodePng decodes JPEG bytes and
 * DecodeJpeg PNG ones. Only these mismatches are refused, with TF's texts: BMP bytes given to
 * the other decoders, other formats given to DecodeBmp, anything but JPEG given to
 * DecodeAndCropJpeg, and animated GIFs given to DecodeJpeg or DecodePng. GIF frames come as
 * [frames, h, w, 3] from DecodeGif and from DecodeImage unless expand_animations is off. The attrs are parsed once, at kernel init; a bad one fails
 * each run with TF's text.
 *
 * Output types: DecodePng and DecodeImage may ask for uint16 (PNG decoded at 16 bits, 8-bit
 * PNGs scaled by 257; JPEG and BMP pixels shifted left by 8) or, DecodeImage only, float (PNG
 * as uint16 * (1 / 65535), JPEG and BMP as uint8 * (1 / 255)), as TF's kernel converts.
 * BMP (TF's reader): uncompressed 8, 24 or 32 bits per pixel, rows padded to 4 bytes, bottom-up
 * unless the height is negative; BGR(A) turned into RGB(A), alpha 255 where the file has none.
 * JPEG, PNG and GIF live in kernels_codec_jpeg.c, kernels_codec_png.c and kernels_codec_gif.c.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/cpu_kernels.h"
#include "device/cpu/kernels_codec_int.h"
#include "ops/opdef.h"

enum codec_format { FMT_UNKNOWN, FMT_JPEG, FMT_PNG, FMT_GIF, FMT_BMP };

static const char *const format_name[] = {"unknown", "JPEG", "PNG", "GIF", "BMP"};
static const char *const format_fn[] = {"unknown", "jpeg", "png", "gif", "bmp"};

static int sniff(const uint8_t *d, size_t n) {
  if (n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) return FMT_JPEG;
  if (n >= 8 && !memcmp(d, "\x89PNG\r\n\x1a\n", 8)) return FMT_PNG;
  if (n >= 4 && !memcmp(d, "GIF8", 4)) return FMT_GIF;
  if (n >= 2 && d[0] == 'B' && d[1] == 'M') return FMT_BMP;
  return FMT_UNKNOWN;
}

/* A bad attr value is reported by compute, as TF's kernels report theirs (with the node named
 * once, by the executor); init keeps the text. */
#define ATTR_ERROR_MAX 160

/* A decode node's attrs, parsed at init. */
typedef struct decode_state {
  tfc_jpeg_flags jpeg;
  int channels;
  int out_dtype;
  int expand_animations; /* DecodeImage */
  char attr_error[ATTR_ERROR_MAX];
} decode_state;

/* Keeps a bad attr's text for compute; returns OK so the kernel is made. */
static int attr_error(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int attr_error(char *buf, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, ATTR_ERROR_MAX, fmt, ap);
  va_end(ap);
  return TFC_OK;
}

static int decode_init(const tfc_node *n, void **out, tfc_status *s) {
  decode_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  *out = st;
  int op = n->op->id;
  int64_t ch = 0;
  if (op != TFC_OP_DecodeGif) TFC_TRY(tfc_kernel_attr_int(n, "channels", &ch, s));
  if (ch != 0 && ch != 1 && ch != 3 && ch != 4)
    return attr_error(st->attr_error, "`channels` must be 0, 1, 3 or 4 but got %lld", (long long)ch);
  st->channels = (int)ch;
  st->jpeg.channels = (int)ch;
  st->jpeg.ratio = 1;
  st->jpeg.fancy_upscaling = 1;
  st->jpeg.acceptable_fraction = 1;
  st->out_dtype = TFC_DT_UINT8;
  if (op == TFC_OP_DecodePng || op == TFC_OP_DecodeImage) TFC_TRY(tfc_kernel_attr_type(n, "dtype", &st->out_dtype, s));
  if (op == TFC_OP_DecodeImage) TFC_TRY(tfc_kernel_attr_bool(n, "expand_animations", &st->expand_animations, s));
  if (op == TFC_OP_DecodeJpeg || op == TFC_OP_DecodeAndCropJpeg) {
    int64_t ratio = 1;
    const char *dct;
    TFC_TRY(tfc_kernel_attr_int(n, "ratio", &ratio, s));
    if (ratio != 1 && ratio != 2 && ratio != 4 && ratio != 8)
      return attr_error(st->attr_error, "ratio must be 1, 2, 4, or 8, got %lld", (long long)ratio);
    st->jpeg.ratio = (int)ratio;
    TFC_TRY(tfc_kernel_attr_bool(n, "fancy_upscaling", &st->jpeg.fancy_upscaling, s));
    TFC_TRY(tfc_kernel_attr_bool(n, "try_recover_truncated", &st->jpeg.try_recover_truncated, s));
    const tfc_attr_value *frac = tfc_node_attr(n, "acceptable_fraction");
    if (frac && frac->kind == TFC_ATTR_FLOAT) st->jpeg.acceptable_fraction = frac->u.f;
    TFC_TRY(tfc_kernel_attr_string(n, "dct_method", &dct, s));
    if (!strcmp(dct, "INTEGER_ACCURATE")) st->jpeg.dct_islow = 1;
    else if (*dct && strcmp(dct, "INTEGER_FAST"))
      return attr_error(st->attr_error, "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}");
  }
  return TFC_OK;
}

static int le16(const uint8_t *p) { return p[0] | p[1] << 8; }
static int32_t le32(const uint8_t *p) { return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24); }

static tfc_tensor *bmp_decode(tfc_kernel_ctx *c, const uint8_t *d, size_t n, int channels) {
  if (channels == 1) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "`channels` must be 0, 3 or 4 for BMP, but got %d", channels);
    return NULL;
  }
  if (n < 54) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                     "Incomplete bmp content, requires at least 54 bytes to find the header size, width, height, "
                     "and bpp, got %zu bytes",
                     n);
    return NULL;
  }
  int64_t header = le32(d + 10), width = le32(d + 18), height = le32(d + 22);
  int bpp = le16(d + 28), file_ch = bpp / 8;
  if (header < 0) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "header size must be nonnegative");
    return NULL;
  }
  if (width <= 0 || height == 0) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, width <= 0 ? "Width must be positive" : "Height must be nonzero");
    return NULL;
  }
  if (bpp % 8 || (file_ch != 1 && file_ch != 3 && file_ch != 4)) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Number of channels inherent in the image must be 1, 3 or 4, was %d",
                     file_ch);
    return NULL;
  }
  int top_down = height < 0;
  int64_t h = top_down ? -height : height;
  if (!channels) channels = file_ch;
  int64_t row_size = (8 * file_ch * width + 31) / 32 * 4;
  if (width > (1 << 24) || h > (1 << 24) || width * h * channels >= (1ll << 29)) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "BMP image of %lld by %lld is too large", (long long)width, (long long)h);
    return NULL;
  }
  int64_t need = header + row_size * h;
  if ((int64_t)n < need) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                     "Input size should match (header_size + row_size * abs_height) but they differ by %lld",
                     (long long)((int64_t)n - need));
    return NULL;
  }
  int64_t dims[3] = {h, width, channels};
  tfc_tensor *out = tfc_tensor_new(TFC_DT_UINT8, dims, 3, c->status);
  if (!out) return NULL;
  uint8_t *o = out->data;
  for (int64_t y = 0; y < h; y++) {
    const uint8_t *row = d + header + (top_down ? y : h - 1 - y) * row_size;
    for (int64_t x = 0; x < width; x++, o += channels) {
      const uint8_t *px = row + x * file_ch;
      if (file_ch == 1) {
        memset(o, px[0], (size_t)(channels < 3 ? channels : 3));
      } else {
        o[0] = px[2];
        o[1] = px[1];
        o[2] = px[0];
      }
      if (channels == 4) o[3] = file_ch == 4 ? px[3] : 255;
    }
  }
  return out;
}

/* GIF: [frames, h, w, 3] for DecodeGif and DecodeImage (expanding animations), else the one
 * frame as [h, w, 3] (DecodeImage's first frame; DecodeJpeg and DecodePng refuse animations). */
static tfc_tensor *gif_decode(tfc_kernel_ctx *c, const decode_state *st, const uint8_t *d, size_t n) {
  int op = c->node->op->id;
  if (st->channels != 0 && st->channels != 3) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "channels must be 0 or 3 for GIF, got %d", st->channels);
    return NULL;
  }
  int frames4d = op == TFC_OP_DecodeGif || (op == TFC_OP_DecodeImage && st->expand_animations);
  tfc_tensor *img = tfc_codec_gif_decode(c, d, n, frames4d || op != TFC_OP_DecodeImage);
  if (!img || frames4d) return img;
  if (img->dims[0] != 1) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                     "Got %lld frames, but animated gifs can only be decoded by tf.io.decode_gif or tf.io.decode_image",
                     (long long)img->dims[0]);
    tfc_tensor_unref(img);
    return NULL;
  }
  tfc_tensor *one = tfc_tensor_reshaped(img, img->dims + 1, 3, c->status);
  tfc_tensor_unref(img);
  return one;
}

/* Decodes per the sniffed format; NULL with the status set. */
static tfc_tensor *decode_any(tfc_kernel_ctx *c, const decode_state *st, const uint8_t *d, size_t n, int fmt,
                              const tfc_jpeg_flags *jf, int png_bits) {
  switch (fmt) {
  case FMT_JPEG:
    if (st->channels == 4) {
      tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "JPEG does not support 4 channels");
      return NULL;
    }
    return tfc_codec_jpeg_decode(c, d, n, jf);
  case FMT_PNG:
    return tfc_codec_png_decode(c, d, n, st->channels, png_bits);
  case FMT_BMP:
    return bmp_decode(c, d, n, st->channels);
  case FMT_GIF:
    return gif_decode(c, st, d, n);
  default:
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required.");
    return NULL;
  }
}

/* Output 0 from a decoded image: as is, or converted to the op's dtype (see the top). */
static int emit(tfc_kernel_ctx *c, tfc_tensor *img, int out_dtype) {
  if (img->dtype == out_dtype) {
    tfc_kernel_set_output(c, 0, img);
    return TFC_OK;
  }
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, out_dtype, img->dims, img->ndims);
  if (!out) {
    tfc_tensor_unref(img);
    return c->status->code;
  }
  int64_t n = img->n_elems;
  if (img->dtype == TFC_DT_UINT16) { /* PNG at 16 bits, to float */
    const uint16_t *s = img->data;
    float *o = out->data, k = 1.0f / 65535.0f;
    for (int64_t i = 0; i < n; i++) o[i] = (float)s[i] * k;
  } else if (out_dtype == TFC_DT_UINT16) {
    const uint8_t *s = img->data;
    uint16_t *o = out->data;
    for (int64_t i = 0; i < n; i++) o[i] = (uint16_t)(s[i] << 8);
  } else {
    const uint8_t *s = img->data;
    float *o = out->data, k = 1.0f / 255.0f;
    for (int64_t i = 0; i < n; i++) o[i] = (float)s[i] * k;
  }
  tfc_tensor_unref(img);
  return TFC_OK;
}

static int contents_of(tfc_kernel_ctx *c, const uint8_t **d, size_t *n) {
  const tfc_tensor *in = c->inputs[0];
  char a[TFC_SHAPE_STR_MAX];
  if (in->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "contents must be scalar, got shape %s",
                            tfc_tensor_shape_str(in, a, sizeof a));
  const tfc_tstring *s = &tfc_tensor_strings(in)[0];
  *d = (const uint8_t *)s->data;
  *n = s->len;
  return TFC_OK;
}

static int decode_compute(tfc_kernel_ctx *c) {
  const decode_state *st = c->state;
  if (st->attr_error[0]) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s", st->attr_error);
  const uint8_t *d = NULL;
  size_t n = 0;
  TFC_TRY(contents_of(c, &d, &n));
  int op = c->node->op->id;
  tfc_jpeg_flags jf = st->jpeg;
  if (op == TFC_OP_DecodeAndCropJpeg) {
    const tfc_tensor *w = c->inputs[1];
    char a[TFC_SHAPE_STR_MAX];
    if (w->ndims != 1) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "crop_window must be 1-D, got shape %s",
                                                tfc_tensor_shape_str(w, a, sizeof a));
    if (w->n_elems != 4) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "crop_size must have four elements %s",
                                                  tfc_tensor_shape_str(w, a, sizeof a));
    const int32_t *v = w->data;
    jf.crop = 1;
    jf.crop_y = v[0];
    jf.crop_x = v[1];
    jf.crop_h = v[2];
    jf.crop_w = v[3];
  }
  if (!n) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input is empty.");
  int fmt = sniff(d, n);
  if (op == TFC_OP_DecodeAndCropJpeg && fmt != FMT_JPEG && fmt != FMT_UNKNOWN)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "DecodeAndCropJpeg operation can run on JPEG only, but detected %s.",
                            format_name[fmt]);
  if (op == TFC_OP_DecodeBmp && fmt != FMT_BMP && fmt != FMT_UNKNOWN)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Trying to decode %s format using DecodeBmp op. Use `decode_%s` or `decode_image` instead.",
                            format_name[fmt], format_fn[fmt]);
  if (fmt == FMT_BMP && op != TFC_OP_DecodeBmp && op != TFC_OP_DecodeImage)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Trying to decode BMP format using a wrong op. Use `decode_bmp` or `decode_image` instead. "
                            "Op used: %s",
                            c->node->op->name);
  int png_bits = st->out_dtype == TFC_DT_UINT8 ? 8 : 16;
  tfc_tensor *img = decode_any(c, st, d, n, fmt, &jf, png_bits);
  if (!img) return c->status->code;
  if (op == TFC_OP_DecodeGif && img->ndims == 3) { /* a still PNG or JPEG, as one frame */
    int64_t dims[4] = {1, img->dims[0], img->dims[1], img->dims[2]};
    tfc_tensor *frames = tfc_tensor_reshaped(img, dims, 4, c->status);
    tfc_tensor_unref(img);
    if (!(img = frames)) return c->status->code;
  }
  return emit(c, img, st->out_dtype);
}

static int extract_shape_compute(tfc_kernel_ctx *c) {
  const uint8_t *d = NULL;
  size_t n = 0;
  TFC_TRY(contents_of(c, &d, &n));
  int64_t shape[3];
  if (!tfc_codec_jpeg_shape(d, n, shape))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid JPEG data, size %zu", n);
  int dtype;
  TFC_TRY(tfc_kernel_attr_type(c->node, "output_type", &dtype, c->status));
  int64_t three = 3;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dtype, &three, 1);
  if (!out) return c->status->code;
  for (int i = 0; i < 3; i++) {
    if (dtype == TFC_DT_INT64) ((int64_t *)out->data)[i] = shape[i];
    else ((int32_t *)out->data)[i] = (int32_t)shape[i];
  }
  return TFC_OK;
}

/* ---- encoding ---- */

typedef struct encode_state {
  tfc_jpeg_encode_flags jpeg;
  int format_channels; /* EncodeJpeg's format: 0 (from the image), 1 grayscale, 3 rgb */
  int compression;     /* EncodePng */
  char attr_error[ATTR_ERROR_MAX];
} encode_state;

static int encode_init(const tfc_node *n, void **out, tfc_status *s) {
  encode_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  *out = st;
  int64_t v;
  if (n->op->id == TFC_OP_EncodePng) {
    TFC_TRY(tfc_kernel_attr_int(n, "compression", &v, s));
    if (v < -1 || v > 9)
      return attr_error(st->attr_error, "compression should be in [-1,9], got %lld", (long long)v);
    st->compression = (int)v;
    return TFC_OK;
  }
  const char *fmt, *unit;
  TFC_TRY(tfc_kernel_attr_string(n, "format", &fmt, s));
  st->format_channels = !strcmp(fmt, "grayscale") ? 1 : !strcmp(fmt, "rgb") ? 3 : 0;
  TFC_TRY(tfc_kernel_attr_int(n, "quality", &v, s));
  if (v < 0 || v > 100) return attr_error(st->attr_error, "quality must be in [0,100], got %lld", (long long)v);
  st->jpeg.quality = (int)v;
  TFC_TRY(tfc_kernel_attr_bool(n, "progressive", &st->jpeg.progressive, s));
  TFC_TRY(tfc_kernel_attr_bool(n, "optimize_size", &st->jpeg.optimize_size, s));
  TFC_TRY(tfc_kernel_attr_bool(n, "chroma_downsampling", &st->jpeg.chroma_downsampling, s));
  TFC_TRY(tfc_kernel_attr_string(n, "density_unit", &unit, s));
  st->jpeg.density_cm = !strcmp(unit, "cm");
  TFC_TRY(tfc_kernel_attr_int(n, "x_density", &v, s));
  st->jpeg.x_density = (int)v;
  TFC_TRY(tfc_kernel_attr_int(n, "y_density", &v, s));
  st->jpeg.y_density = (int)v;
  const tfc_attr_value *xmp = tfc_node_attr(n, "xmp_metadata");
  if (xmp && xmp->kind == TFC_ATTR_STRING) {
    st->jpeg.xmp = xmp->u.s.data;
    st->jpeg.xmp_len = xmp->u.s.len;
  }
  return TFC_OK;
}

static int encode_compute(tfc_kernel_ctx *c) {
  const encode_state *st = c->state;
  const tfc_tensor *img = c->inputs[0];
  if (st->attr_error[0]) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s", st->attr_error);
  char a[TFC_SHAPE_STR_MAX];
  int png = c->node->op->id == TFC_OP_EncodePng;
  if (img->ndims != 3)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image must be 3-dimensional%s", tfc_tensor_shape_str(img, a, sizeof a));
  int64_t h = img->dims[0], w = img->dims[1], ch = img->dims[2];
  if (img->n_elems >= INT32_MAX)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image cannot have >= int32 max elements");
  uint8_t *bytes = NULL;
  size_t len = 0;
  if (png) {
    if (ch < 1 || ch > 4)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image must have 1, 2, 3, or 4 channels, got %lld", (long long)ch);
    TFC_TRY(tfc_codec_png_encode(c, img->data, (int)h, (int)w, (int)ch, img->dtype == TFC_DT_UINT16 ? 16 : 8,
                                 st->compression, &bytes, &len));
  } else {
    if (st->format_channels && ch != st->format_channels)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "format %s expects %d channels, got %s",
                              st->format_channels == 1 ? "grayscale" : "rgb", st->format_channels,
                              tfc_tensor_shape_str(img, a, sizeof a));
    if (ch != 1 && ch != 3)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image must have 1 or 3 channels, got %s",
                              tfc_tensor_shape_str(img, a, sizeof a));
    TFC_TRY(tfc_codec_jpeg_encode(c, img->data, (int)h, (int)w, (int)ch, &st->jpeg, &bytes, &len));
  }
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_STRING, NULL, 0);
  int rc = out ? tfc_tstring_assign(&tfc_tensor_strings(out)[0], bytes, len, c->status) : c->status->code;
  free(bytes);
  return rc;
}

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_DecodeJpeg, .init = decode_init, .compute = decode_compute, .free_state = free,
     .flags = TFC_KF_EXPENSIVE},
    {.op = TFC_OP_DecodeAndCropJpeg, .init = decode_init, .compute = decode_compute, .free_state = free,
     .host_memory_in = TFC_HOST(1), .flags = TFC_KF_EXPENSIVE},
    {.op = TFC_OP_DecodePng, .init = decode_init, .compute = decode_compute, .free_state = free,
     .flags = TFC_KF_EXPENSIVE},
    {.op = TFC_OP_DecodeBmp, .init = decode_init, .compute = decode_compute, .free_state = free},
    {.op = TFC_OP_DecodeGif, .init = decode_init, .compute = decode_compute, .free_state = free,
     .flags = TFC_KF_EXPENSIVE},
    {.op = TFC_OP_DecodeImage, .init = decode_init, .compute = decode_compute, .free_state = free,
     .flags = TFC_KF_EXPENSIVE},
    {.op = TFC_OP_ExtractJpegShape, .type_attr = "output_type", .types = TFC_TYPES_INT, .compute = extract_shape_compute},
    {.op = TFC_OP_EncodeJpeg, .init = encode_init, .compute = encode_compute, .free_state = free,
     .flags = TFC_KF_EXPENSIVE},
    {.op = TFC_OP_EncodePng, .init = encode_init, .compute = encode_compute, .free_state = free,
     .flags = TFC_KF_EXPENSIVE},
};

int tfc_cpu_kernels_codec(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
