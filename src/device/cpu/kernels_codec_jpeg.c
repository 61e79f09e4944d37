/*
 * kernels_codec_jpeg — JPEG through libjpeg (Debian's libjpeg-turbo), set up as TF's
 * jpeg_mem does, so the same bytes give the same pixels:
 *  - decoding: out_color_space GRAYSCALE or RGB (CMYK/YCCK files read as CMYK and turned into
 *    RGB with TF's integer formula: with an Adobe marker R = K * C / 255, else
 *    R = (255 - K) * (255 - C) / 255), do_fancy_upsampling, scale 1/ratio and the DCT method
 *    from the attrs, everything else at libjpeg's defaults;
 *  - the in-memory source: an empty input is an error; running out of data is an error unless
 *    try_recover_truncated, which feeds one fake EOI marker (libjpeg then fills the missing
 *    blocks); rows libjpeg cannot give are the row above (black for the first row), and fewer
 *    rows read than acceptable_fraction of the image is an error;
 *  - cropping: jpeg_crop_scanline / jpeg_skip_scanlines on the (scaled) output, the window
 *    checked to lie inside it;
 *  - encoding: jpeg_set_defaults, then optimize_coding, the JFIF density, jpeg_set_quality(q,
 *    TRUE), jpeg_simple_progression, 1x1 sampling without chroma downsampling, and the XMP
 *    packet as an APP1 marker after the namespace "http://ns.adobe.com/xap/1.0/" and a NUL.
 * libjpeg reports errors through error_exit, which longjmps back here; its messages are not
 * printed. Every decoding failure is TF's one text (below).
 */
#include <stddef.h>
#include <stdio.h> /* jpeglib.h needs FILE and size_t first */

#include <jpeglib.h>
#include <jerror.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/kernels_codec_int.h"

#define JPEG_FAILED "jpeg::Uncompress failed. Invalid JPEG data or crop window."
/* TF refuses images of 2^29 bytes or more. */
#define MAX_IMAGE_BYTES (1ll << 29)

typedef struct jpeg_err {
  struct jpeg_error_mgr pub;
  jmp_buf jmp;
} jpeg_err;

static void on_error(j_common_ptr ci) { longjmp(((jpeg_err *)ci->err)->jmp, 1); }
static void on_message(j_common_ptr ci) { (void)ci; }

typedef struct mem_src {
  struct jpeg_source_mgr pub;
  const uint8_t *data;
  size_t n;
  int recover;
  /* The stale-refill streak (see src_fill): where, and how many bytes it has fed again. */
  const JOCTET *stale_at;
  size_t stale_bytes;
} mem_src;

/* libjpeg keeps private copies of the read position while it reads a marker segment or an
 * MCU, so a refill request can find the public position stale (bytes still "left"). TF then
 * answers TRUE with recovery on, which makes libjpeg read those bytes again: at the end of
 * the entropy data this completes the MCU with repeated bits (and tfc must do the same to
 * give TF's pixels), but inside the headers it can go round forever (TF hangs there). A
 * streak of refills at one stale position feeding more than this many bytes is an error. */
#define MAX_STALE_BYTES ((size_t)1 << 20)

static const JOCTET fake_eoi[2] = {0xFF, JPEG_EOI};

static void src_init(j_decompress_ptr ci) { (void)ci; }
static void src_term(j_decompress_ptr ci) { (void)ci; }

/* Called when libjpeg has used every byte: see the design comment. */
static boolean src_fill(j_decompress_ptr ci) {
  mem_src *s = (mem_src *)ci->src;
  if (s->pub.next_input_byte == s->data) ERREXIT(ci, JERR_INPUT_EMPTY);
  if (s->pub.bytes_in_buffer) {
    if (!s->recover) return FALSE;
    if (s->pub.next_input_byte != s->stale_at) {
      s->stale_at = s->pub.next_input_byte;
      s->stale_bytes = 0;
    }
    s->stale_bytes += s->pub.bytes_in_buffer;
    if (s->stale_bytes > MAX_STALE_BYTES) ERREXIT(ci, JERR_FILE_READ);
    return TRUE;
  }
  if (s->pub.next_input_byte != fake_eoi + 2 && s->recover) {
    WARNMS(ci, JWRN_JPEG_EOF);
    s->pub.next_input_byte = fake_eoi;
    s->pub.bytes_in_buffer = 2;
    return TRUE;
  }
  ERREXIT(ci, JERR_FILE_READ);
  return FALSE;
}

static void src_skip(j_decompress_ptr ci, long n) {
  mem_src *s = (mem_src *)ci->src;
  if (n <= 0) return;
  if ((size_t)n > s->pub.bytes_in_buffer) {
    s->pub.next_input_byte += s->pub.bytes_in_buffer;
    s->pub.bytes_in_buffer = 0;
    (void)src_fill(ci);
  } else {
    s->pub.next_input_byte += n;
    s->pub.bytes_in_buffer -= (size_t)n;
  }
}

static void set_src(j_decompress_ptr ci, mem_src *s, const uint8_t *data, size_t n, int recover) {
  memset(s, 0, sizeof *s);
  s->data = data;
  s->n = n;
  s->recover = recover;
  s->pub.init_source = src_init;
  s->pub.fill_input_buffer = src_fill;
  s->pub.skip_input_data = src_skip;
  s->pub.resync_to_restart = jpeg_resync_to_restart;
  s->pub.term_source = src_term;
  s->pub.next_input_byte = data;
  s->pub.bytes_in_buffer = n;
  ci->src = &s->pub;
}

/* One output row from one libjpeg row: CMYK (4 per pixel) to RGB, or a copy. */
static void put_row(uint8_t *dst, const uint8_t *src, int w, int channels, int cmyk, int adobe) {
  if (!cmyk) {
    memcpy(dst, src, (size_t)w * (size_t)channels);
    return;
  }
  for (int x = 0; x < w; x++, src += 4, dst += 3) {
    int k = src[3];
    for (int i = 0; i < 3; i++)
      dst[i] = (uint8_t)(adobe ? k * src[i] / 255 : (255 - k) * (255 - src[i]) / 255);
  }
}

tfc_tensor *tfc_codec_jpeg_decode(tfc_kernel_ctx *c, const uint8_t *data, size_t n, const tfc_jpeg_flags *f) {
  struct jpeg_decompress_struct ci;
  jpeg_err err;
  mem_src src;
  tfc_tensor *volatile out = NULL;
  uint8_t *volatile row = NULL;
  ci.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  err.pub.output_message = on_message;
  if (setjmp(err.jmp)) {
    jpeg_destroy_decompress(&ci);
    free(row);
    tfc_tensor_unref(out);
    if (tfc_status_ok(c->status)) tfc_kernel_error(c, TFC_INVALID_ARGUMENT, JPEG_FAILED);
    return NULL;
  }
  jpeg_create_decompress(&ci);
  set_src(&ci, &src, data, n, f->try_recover_truncated);
  jpeg_read_header(&ci, TRUE);
  int channels = f->channels ? f->channels : (ci.num_components < 3 ? ci.num_components : 3);
  int cmyk = 0;
  if (channels == 1) {
    ci.out_color_space = JCS_GRAYSCALE;
  } else if (channels == 3) {
    cmyk = ci.jpeg_color_space == JCS_CMYK || ci.jpeg_color_space == JCS_YCCK;
    ci.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  } else {
    longjmp(err.jmp, 1);
  }
  ci.do_fancy_upsampling = f->fancy_upscaling ? TRUE : FALSE;
  ci.scale_num = 1;
  ci.scale_denom = (unsigned)f->ratio;
  ci.dct_method = f->dct_islow ? JDCT_ISLOW : JDCT_IFAST;
  jpeg_start_decompress(&ci);
  int64_t full_w = ci.output_width, full_h = ci.output_height;
  int64_t h = full_h, w = full_w;
  if (f->crop) {
    if (f->crop_w <= 0 || f->crop_h <= 0 || f->crop_x < 0 || f->crop_y < 0 || (int64_t)f->crop_y + f->crop_h > full_h ||
        (int64_t)f->crop_x + f->crop_w > full_w)
      longjmp(err.jmp, 1);
    h = f->crop_h;
    w = f->crop_w;
  }
  if (h * w * channels >= MAX_IMAGE_BYTES) longjmp(err.jmp, 1);
  int64_t dims[3] = {h, w, channels};
  out = tfc_tensor_new(TFC_DT_UINT8, dims, 3, c->status);
  if (!out) longjmp(err.jmp, 1);
  int64_t skip = 0;
  if (f->crop) {
    JDIMENSION x = (JDIMENSION)f->crop_x, cw = (JDIMENSION)f->crop_w;
    jpeg_crop_scanline(&ci, &x, &cw);
    skip = f->crop_x - (int64_t)x;
    if (f->crop_y && jpeg_skip_scanlines(&ci, (JDIMENSION)f->crop_y) != (JDIMENSION)f->crop_y) longjmp(err.jmp, 1);
  }
  int in_comps = ci.output_components;
  row = malloc((size_t)ci.output_width * (size_t)in_comps + 1);
  if (!row) {
    TFC_OOM(c->status);
    longjmp(err.jmp, 1);
  }
  size_t stride = (size_t)w * (size_t)channels;
  uint8_t *px = out->data;
  int64_t read = 0;
  for (int64_t y = 0; y < h; y++) {
    JSAMPROW r = row;
    if (jpeg_read_scanlines(&ci, &r, 1) != 1) {
      if (!f->try_recover_truncated) longjmp(err.jmp, 1);
      for (; y < h; y++) {
        if (y == 0) memset(px, 0, stride);
        else memcpy(px + (size_t)y * stride, px + (size_t)(y - 1) * stride, stride);
      }
      read = h;
      break;
    }
    put_row(px + (size_t)y * stride, row + (size_t)skip * (size_t)in_comps, (int)w, channels, cmyk,
            ci.saw_Adobe_marker);
    read++;
  }
  float frac = f->acceptable_fraction < 1 ? f->acceptable_fraction : 1;
  if ((float)read < (float)h * frac) longjmp(err.jmp, 1);
  jpeg_destroy_decompress(&ci);
  free(row);
  return out;
}

int tfc_codec_jpeg_shape(const uint8_t *data, size_t n, int64_t out[3]) {
  struct jpeg_decompress_struct ci;
  jpeg_err err;
  mem_src src;
  ci.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  err.pub.output_message = on_message;
  if (setjmp(err.jmp)) {
    jpeg_destroy_decompress(&ci);
    return 0;
  }
  jpeg_create_decompress(&ci);
  set_src(&ci, &src, data, n, 0);
  jpeg_read_header(&ci, TRUE);
  out[0] = ci.image_height;
  out[1] = ci.image_width;
  out[2] = ci.num_components;
  jpeg_destroy_decompress(&ci);
  return 1;
}

/* ---- encoding: a destination growing a malloc'd buffer ---- */

typedef struct mem_dst {
  struct jpeg_destination_mgr pub;
  uint8_t *buf;
  size_t cap;
} mem_dst;

static void dst_init(j_compress_ptr ci) {
  mem_dst *d = (mem_dst *)ci->dest;
  d->pub.next_output_byte = d->buf;
  d->pub.free_in_buffer = d->cap;
}

static boolean dst_grow(j_compress_ptr ci) {
  mem_dst *d = (mem_dst *)ci->dest;
  uint8_t *nb = realloc(d->buf, d->cap * 2);
  if (!nb) ERREXIT1(ci, JERR_OUT_OF_MEMORY, 0);
  d->pub.next_output_byte = nb + d->cap;
  d->pub.free_in_buffer = d->cap;
  d->buf = nb;
  d->cap *= 2;
  return TRUE;
}

static void dst_term(j_compress_ptr ci) { (void)ci; }

#define XMP_NAMESPACE "http://ns.adobe.com/xap/1.0/"

int tfc_codec_jpeg_encode(tfc_kernel_ctx *c, const uint8_t *pixels, int h, int w, int channels,
                          const tfc_jpeg_encode_flags *f, uint8_t **out, size_t *out_len) {
  struct jpeg_compress_struct ci;
  jpeg_err err;
  mem_dst dst = {.cap = 4096};
  uint8_t *volatile packet = NULL;
  ci.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  err.pub.output_message = on_message;
  if (!(dst.buf = malloc(dst.cap))) return TFC_OOM(c->status);
  if (setjmp(err.jmp)) {
    jpeg_destroy_compress(&ci);
    free(dst.buf);
    free(packet);
    return tfc_kernel_error(c, TFC_INTERNAL, "JPEG encoding failed");
  }
  jpeg_create_compress(&ci);
  dst.pub.init_destination = dst_init;
  dst.pub.empty_output_buffer = dst_grow;
  dst.pub.term_destination = dst_term;
  ci.dest = &dst.pub;
  ci.image_width = (JDIMENSION)w;
  ci.image_height = (JDIMENSION)h;
  ci.input_components = channels;
  ci.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&ci);
  if (f->optimize_size) ci.optimize_coding = TRUE;
  ci.density_unit = f->density_cm ? 2 : 1; /* JFIF: 1 = dots per inch, 2 = per cm */
  ci.X_density = (UINT16)f->x_density;
  ci.Y_density = (UINT16)f->y_density;
  jpeg_set_quality(&ci, f->quality, TRUE);
  if (f->progressive) jpeg_simple_progression(&ci);
  if (!f->chroma_downsampling)
    for (int i = 0; i < ci.num_components; i++) ci.comp_info[i].h_samp_factor = ci.comp_info[i].v_samp_factor = 1;
  jpeg_start_compress(&ci, TRUE);
  if (f->xmp_len) {
    size_t ns = sizeof XMP_NAMESPACE; /* with its NUL */
    packet = malloc(ns + f->xmp_len);
    if (!packet) {
      TFC_OOM(c->status);
      longjmp(err.jmp, 1);
    }
    memcpy(packet, XMP_NAMESPACE, ns);
    memcpy(packet + ns, f->xmp, f->xmp_len);
    jpeg_write_marker(&ci, JPEG_APP0 + 1, packet, (unsigned)(ns + f->xmp_len));
  }
  size_t stride = (size_t)w * (size_t)channels;
  while (ci.next_scanline < ci.image_height) {
    JSAMPROW r = (JSAMPROW)(pixels + ci.next_scanline * stride);
    jpeg_write_scanlines(&ci, &r, 1);
  }
  jpeg_finish_compress(&ci);
  *out_len = dst.cap - dst.pub.free_in_buffer;
  *out = dst.buf;
  jpeg_destroy_compress(&ci);
  free(packet);
  return TFC_OK;
}
