/*
 * Kernel tests: ops_codec.def — DecodeJpeg, DecodeAndCropJpeg, ExtractJpegShape, DecodePng,
 * DecodeBmp, DecodeGif, DecodeImage, EncodeJpeg, EncodePng. The images, TensorFlow's decoded pixels and its
 * error texts come from tests/fixtures/gen_image_codecs.py (image_codecs.inc): every decode
 * case must give TF's dtype, shape and exactly its values, or TF's code with its message. Encode
 * cases check that tfc's bytes decode (in tfc) to what TF decodes from TF's own bytes for the
 * same image (exactly for PNG, within JPEG's tolerance), that tfc decodes TF's bytes exactly as
 * TF does, and round trips.
 */
#include <stdio.h>

#include "harness.h"
#include "kernel_util.c"

typedef struct codec_case {
  const char *name, *op, *attrs;
  const unsigned char *input;
  size_t input_len;
  int has_crop;
  int32_t crop[4];
  int code;
  const char *message;
  int dtype, rank;
  int64_t dims[4];
  const void *expected;
} codec_case;

typedef struct encode_case {
  const char *name, *op, *attrs;
  int dtype;
  const void *image;
  int rank;
  int64_t dims[3];
  const unsigned char *tf_bytes;
  size_t tf_len;
  const void *tf_decoded;
  int code;
  const char *message;
} encode_case;

#include "../fixtures/image_codecs.inc"

#define N_ELEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static tfc_tensor *bytes_tensor(const void *data, size_t n) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = tfc_tensor_new(TFC_DT_STRING, NULL, 0, &s);
  if (!t || tfc_tstring_assign(&tfc_tensor_strings(t)[0], data, n, &s))
    tfc_test_fail(__FILE__, __LINE__, "%s", tfc_status_msg(&s));
  tfc_status_fini(&s);
  return t;
}

/* "k=v;k=v" into ku_attrs: true/false bools, dtype/output_type type names, a '.' a float,
 * digits an int, anything else a string. Returns the count. */
static int parse_attrs(const char *text, ku_attr *out, int max) {
  int n = 0;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", text);
  for (char *save = NULL, *kv = strtok_r(buf, ";", &save); kv && n < max; kv = strtok_r(NULL, ";", &save)) {
    char *eq = strchr(kv, '=');
    if (!eq) tfc_test_fail(__FILE__, __LINE__, "bad attr text %s", text);
    *eq = 0;
    const char *k = kv, *v = eq + 1;
    static char names[8][32];
    snprintf(names[n], sizeof names[n], "%s", k);
    out[n].name = names[n];
    char *end;
    if (!strcmp(v, "true") || !strcmp(v, "false")) {
      out[n].value = tfc_attr_bool(!strcmp(v, "true"));
    } else if (!strcmp(k, "dtype") || !strcmp(k, "output_type")) {
      const char *name = !strcmp(v, "float32") ? "float" : v;
      out[n].value = tfc_attr_type(tfc_dtype_from_name(name, strlen(name)));
    } else if (strchr(v, '.') && (strtod(v, &end), !*end)) {
      out[n].value = tfc_attr_float(strtof(v, NULL));
    } else if ((strtoll(v, &end, 10), !*end) && *v) {
      out[n].value = tfc_attr_int(strtoll(v, NULL, 10));
    } else {
      tfc_status s;
      tfc_status_init(&s);
      if (tfc_attr_string(v, strlen(v), &out[n].value, &s)) tfc_test_fail(__FILE__, __LINE__, "attr");
      tfc_status_fini(&s);
    }
    n++;
  }
  return n;
}

/* Runs op on the inputs; returns its one output (new reference) or NULL with *code and msg. */
static tfc_tensor *run_op(const char *op, const char *attr_text, tfc_tensor **ins, int n_ins, int *code, char *msg,
                          size_t msg_len) {
  ku_attr attrs[8];
  int n_attrs = parse_attrs(attr_text, attrs, 8);
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out = NULL;
  *code = ku_run(op, attrs, n_attrs, ins, n_ins, NULL, &out, 1, &s);
  snprintf(msg, msg_len, "%s", tfc_status_msg(&s));
  tfc_status_fini(&s);
  if (*code && out) {
    tfc_tensor_unref(out);
    out = NULL;
  }
  return out;
}

static tfc_tensor *decode_case(const codec_case *k, int *code, char *msg, size_t msg_len) {
  tfc_tensor *ins[2] = {bytes_tensor(k->input, k->input_len), NULL};
  if (k->has_crop) ins[1] = ku_i32((const int64_t[]){4}, 1, k->crop);
  tfc_tensor *out = run_op(k->op, k->attrs, ins, k->has_crop ? 2 : 1, code, msg, msg_len);
  tfc_tensor_unref(ins[0]);
  tfc_tensor_unref(ins[1]);
  return out;
}

/* Why a decoded tensor differs from the expected values, or NULL when it does not. */
static const char *differs(const tfc_tensor *t, int dtype, int rank, const int64_t *dims, const void *want, char *why,
                           size_t n) {
  if (t->dtype != dtype) {
    snprintf(why, n, "dtype %s, expected %s", tfc_dtype_name(t->dtype), tfc_dtype_name(dtype));
    return why;
  }
  if (t->ndims != rank) {
    snprintf(why, n, "rank %d, expected %d", t->ndims, rank);
    return why;
  }
  for (int i = 0; i < rank; i++)
    if (t->dims[i] != dims[i]) {
      snprintf(why, n, "dim %d is %lld, expected %lld", i, (long long)t->dims[i], (long long)dims[i]);
      return why;
    }
  size_t es = tfc_dtype_size(dtype);
  for (int64_t i = 0; i < t->n_elems; i++)
    if (memcmp((const char *)t->data + (size_t)i * es, (const char *)want + (size_t)i * es, es)) {
      snprintf(why, n, "element %lld is %g, expected %g", (long long)i, tfc_tensor_get_f64(t, i),
               dtype == TFC_DT_UINT8    ? (double)((const uint8_t *)want)[i]
               : dtype == TFC_DT_UINT16 ? (double)((const uint16_t *)want)[i]
               : dtype == TFC_DT_FLOAT  ? (double)((const float *)want)[i]
               : dtype == TFC_DT_INT32  ? (double)((const int32_t *)want)[i]
                                        : (double)((const int64_t *)want)[i]);
      return why;
    }
  return NULL;
}

static void decoding_matches_tensorflow(void) {
  int failed = 0;
  for (int i = 0; i < N_ELEMS(codec_cases); i++) {
    const codec_case *k = &codec_cases[i];
    int code;
    char msg[1024], why[256];
    tfc_tensor *out = decode_case(k, &code, msg, sizeof msg);
    if (k->code) {
      if (code != k->code || !strstr(msg, k->message)) {
        fprintf(stderr, "case '%s' (%s): code %d '%s', expected %d '%s'\n", k->name, k->op, code, msg, k->code, k->message);
        failed++;
      }
    } else if (code) {
      fprintf(stderr, "case '%s' (%s): failed: %s\n", k->name, k->op, msg);
      failed++;
    } else if (differs(out, k->dtype, k->rank, k->dims, k->expected, why, sizeof why)) {
      fprintf(stderr, "case '%s' (%s): %s\n", k->name, k->op, why);
      failed++;
    }
    tfc_tensor_unref(out);
  }
  if (failed) tfc_test_fail(__FILE__, __LINE__, "%d of %d decode cases differ from TensorFlow", failed, N_ELEMS(codec_cases));
}

static tfc_tensor *image_tensor(const encode_case *k) {
  return ku_typed(k->dtype, k->dims, k->rank, k->image);
}

static tfc_tensor *decode_bytes(const tfc_tstring *b, int dtype, const char *what) {
  tfc_tensor *in = bytes_tensor(b->data, b->len);
  int code;
  char msg[512], attrs[64];
  snprintf(attrs, sizeof attrs, "dtype=%s", tfc_dtype_name(dtype));
  tfc_tensor *out = run_op("DecodeImage", attrs, &in, 1, &code, msg, sizeof msg);
  tfc_tensor_unref(in);
  if (!out) tfc_test_fail(__FILE__, __LINE__, "%s: decoding failed: %s", what, msg);
  return out;
}

/* The largest difference between two uint8/uint16 tensors of the same shape. */
static int max_diff(const tfc_tensor *a, const void *b) {
  int m = 0;
  for (int64_t i = 0; i < a->n_elems; i++) {
    double x = tfc_tensor_get_f64(a, i);
    double y = a->dtype == TFC_DT_UINT16 ? ((const uint16_t *)b)[i] : ((const uint8_t *)b)[i];
    int d = (int)(x > y ? x - y : y - x);
    if (d > m) m = d;
  }
  return m;
}

static void encoding_decodes_as_tensorflows(void) {
  int same_bytes = 0, n_ok = 0;
  for (int i = 0; i < N_ELEMS(encode_cases); i++) {
    const encode_case *k = &encode_cases[i];
    if (k->code) continue;
    n_ok++;
    tfc_tensor *img = image_tensor(k);
    int code;
    char msg[512];
    tfc_tensor *enc = run_op(k->op, k->attrs, &img, 1, &code, msg, sizeof msg);
    if (!enc) tfc_test_fail(__FILE__, __LINE__, "%s: %s failed: %s", k->name, k->op, msg);
    const tfc_tstring *b = &tfc_tensor_strings(enc)[0];
    if (b->len == k->tf_len && !memcmp(b->data, k->tf_bytes, b->len)) same_bytes++;
    /* tfc's bytes, decoded by tfc, against TF's bytes decoded by TF. */
    tfc_tensor *dec = decode_bytes(b, k->dtype, k->name);
    char why[256];
    int png = !strcmp(k->op, "EncodePng");
    if (png) {
      if (differs(dec, k->dtype, 3, k->dims, k->tf_decoded, why, sizeof why))
        tfc_test_fail(__FILE__, __LINE__, "%s: %s", k->name, why);
      if (differs(dec, k->dtype, 3, k->dims, k->image, why, sizeof why))
        tfc_test_fail(__FILE__, __LINE__, "%s: round trip: %s", k->name, why);
    } else {
      EXPECT_EQ(dec->ndims, 3);
      for (int d = 0; d < 3; d++) EXPECT_EQ(dec->dims[d], k->dims[d]);
      /* Same library, same settings: the same bytes give the same pixels; allow a step for a
       * different libjpeg-turbo build's rounding. */
      int m = max_diff(dec, k->tf_decoded);
      if (m > 2) tfc_test_fail(__FILE__, __LINE__, "%s: pixels differ from TF's by up to %d", k->name, m);
    }
    /* TF's bytes decoded by tfc: exactly TF's pixels. */
    tfc_tstring tfb = {(char *)k->tf_bytes, k->tf_len};
    tfc_tensor *dec_tf = decode_bytes(&tfb, k->dtype, k->name);
    if (differs(dec_tf, k->dtype, 3, k->dims, k->tf_decoded, why, sizeof why))
      tfc_test_fail(__FILE__, __LINE__, "%s: TF's bytes: %s", k->name, why);
    tfc_tensor_unref(dec_tf);
    tfc_tensor_unref(dec);
    tfc_tensor_unref(enc);
    tfc_tensor_unref(img);
  }
  fprintf(stderr, "%d of %d encodings byte for byte TF's\n", same_bytes, n_ok);
}

static void encode_errors_match_tensorflow(void) {
  for (int i = 0; i < N_ELEMS(encode_cases); i++) {
    const encode_case *k = &encode_cases[i];
    if (!k->code) continue;
    tfc_tensor *img = image_tensor(k);
    int code;
    char msg[512];
    tfc_tensor *enc = run_op(k->op, k->attrs, &img, 1, &code, msg, sizeof msg);
    if (enc || code != k->code || !strstr(msg, k->message))
      tfc_test_fail(__FILE__, __LINE__, "%s: code %d '%s', expected %d '%s'", k->name, code, msg, k->code, k->message);
    tfc_tensor_unref(img);
  }
}

/* Attrs TF writes into the NodeDef, and the JPEG markers they become. */
static void jpeg_encoder_writes_density_and_xmp(void) {
  const encode_case *k = NULL;
  for (int i = 0; i < N_ELEMS(encode_cases); i++)
    if (!strcmp(encode_cases[i].name, "jpeg xmp")) k = &encode_cases[i];
  EXPECT_TRUE(k != NULL);
  tfc_tensor *img = image_tensor(k);
  int code;
  char msg[512];
  tfc_tensor *enc = run_op("EncodeJpeg", "xmp_metadata=<x:xmpmeta>tfc</x:xmpmeta>;density_unit=cm;x_density=72",
                           &img, 1, &code, msg, sizeof msg);
  EXPECT_TRUE(enc != NULL);
  const tfc_tstring *b = &tfc_tensor_strings(enc)[0];
  /* JFIF APP0: "JFIF\0", version, units (2 = cm), X density 72, Y density 300. */
  EXPECT_TRUE(b->len > 20 && !memcmp(b->data + 6, "JFIF", 5));
  EXPECT_EQ((uint8_t)b->data[13], 2);
  EXPECT_EQ(((uint8_t)b->data[14] << 8) | (uint8_t)b->data[15], 72);
  EXPECT_EQ(((uint8_t)b->data[16] << 8) | (uint8_t)b->data[17], 300);
  const char *ns = "http://ns.adobe.com/xap/1.0/";
  int found = 0;
  for (size_t i = 0; i + 40 < b->len; i++)
    if ((uint8_t)b->data[i] == 0xFF && (uint8_t)b->data[i + 1] == 0xE1 && !memcmp(b->data + i + 4, ns, strlen(ns) + 1) &&
        !memcmp(b->data + i + 4 + strlen(ns) + 1, "<x:xmpmeta>tfc</x:xmpmeta>", 26))
      found = 1;
  EXPECT_TRUE(found);
  tfc_tensor_unref(enc);
  tfc_tensor_unref(img);
}

/* TF's shape functions: a scalar string in, rank-3 images; DecodeAndCropJpeg's window has 4. */
static void shape_functions_check_ranks(void) {
  int code;
  char msg[512];
  const char *two[] = {"a", "b"};
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *vec = tfc_tensor_new(TFC_DT_STRING, (const int64_t[]){2}, 1, &s);
  for (int i = 0; i < 2; i++) tfc_tstring_assign(&tfc_tensor_strings(vec)[i], two[i], 1, &s);
  const char *decoders[] = {"DecodeJpeg", "DecodePng", "DecodeBmp", "DecodeGif", "DecodeImage", "ExtractJpegShape"};
  for (int i = 0; i < 6; i++) {
    EXPECT_TRUE(run_op(decoders[i], "", &vec, 1, &code, msg, sizeof msg) == NULL);
    EXPECT_EQ(code, TFC_INVALID_ARGUMENT);
    EXPECT_CONTAINS(msg, "Shape must be rank 0 but is rank 1");
  }
  /* The kernel checks too, when the graph does not know the shape. */
  tfc_tensor *out = NULL;
  EXPECT_EQ(ku_run_unknown("DecodeJpeg", NULL, 0, &vec, 1, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "contents must be scalar, got shape [2]");
  tfc_status_fini(&s);
  tfc_tensor_unref(vec);
  tfc_tensor *flat = ku_typed(TFC_DT_UINT8, (const int64_t[]){7, 13}, 2, enc_in_0);
  EXPECT_TRUE(run_op("EncodeJpeg", "", &flat, 1, &code, msg, sizeof msg) == NULL);
  EXPECT_CONTAINS(msg, "Shape must be rank 3 but is rank 2");
  EXPECT_TRUE(run_op("EncodePng", "", &flat, 1, &code, msg, sizeof msg) == NULL);
  EXPECT_CONTAINS(msg, "Shape must be rank 3 but is rank 2");
  tfc_tensor_unref(flat);
  tfc_tensor *ins[2] = {bytes_tensor(in_jpeg_rgb16, sizeof in_jpeg_rgb16), ku_i32((const int64_t[]){3}, 1, (const int32_t[]){0, 0, 2})};
  EXPECT_TRUE(run_op("DecodeAndCropJpeg", "", ins, 2, &code, msg, sizeof msg) == NULL);
  EXPECT_CONTAINS(msg, "Dimension must be 4 but is 3");
  tfc_tensor_unref(ins[0]);
  tfc_tensor_unref(ins[1]);
}

/* Attr checks happen when the kernel is made, before any bytes are looked at. */
static void bad_attrs_are_refused(void) {
  tfc_tensor *in = bytes_tensor("", 0);
  int code;
  char msg[512];
  EXPECT_TRUE(run_op("DecodePng", "channels=2", &in, 1, &code, msg, sizeof msg) == NULL);
  EXPECT_EQ(code, TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "`channels` must be 0, 1, 3 or 4 but got 2");
  EXPECT_TRUE(run_op("DecodeJpeg", "ratio=3", &in, 1, &code, msg, sizeof msg) == NULL);
  EXPECT_CONTAINS(msg, "ratio must be 1, 2, 4, or 8, got 3");
  EXPECT_TRUE(run_op("EncodeJpeg", "format=bgr", &in, 1, &code, msg, sizeof msg) == NULL);
  EXPECT_EQ(code, TFC_INVALID_ARGUMENT);
  tfc_tensor_unref(in);
}

static void encode_decode_round_trips(void) {
  /* A PNG of every channel count and both depths comes back exactly; a JPEG at quality 100
   * without chroma downsampling comes back within a few steps. */
  for (int ch = 1; ch <= 4; ch++)
    for (int bits = 8; bits <= 16; bits += 8) {
      int dtype = bits == 8 ? TFC_DT_UINT8 : TFC_DT_UINT16;
      int64_t dims[3] = {5, 9, ch};
      tfc_tensor *img = ku_typed(dtype, dims, 3, NULL);
      for (int64_t i = 0; i < img->n_elems; i++) ku_set(img, i, (double)((i * 37 + 11) % (bits == 8 ? 256 : 65536)));
      int code;
      char msg[512];
      tfc_tensor *enc = run_op("EncodePng", "", &img, 1, &code, msg, sizeof msg);
      EXPECT_TRUE(enc != NULL);
      char attrs[64];
      snprintf(attrs, sizeof attrs, "dtype=%s", tfc_dtype_name(dtype));
      tfc_tensor *dec = run_op("DecodePng", attrs, &enc, 1, &code, msg, sizeof msg);
      EXPECT_TRUE(dec != NULL);
      EXPECT_EQ(dec->n_bytes, img->n_bytes);
      EXPECT_TRUE(!memcmp(dec->data, img->data, img->n_bytes));
      tfc_tensor *u8 = run_op("DecodePng", "", &enc, 1, &code, msg, sizeof msg);
      if (bits == 16) /* 16 bits read as 8 keep the high byte */
        for (int64_t i = 0; i < u8->n_elems; i++) EXPECT_EQ(((uint8_t *)u8->data)[i], ((uint16_t *)img->data)[i] >> 8);
      tfc_tensor_unref(u8);
      tfc_tensor_unref(dec);
      tfc_tensor_unref(enc);
      tfc_tensor_unref(img);
    }
  tfc_tensor *img = ku_typed(TFC_DT_UINT8, (const int64_t[]){16, 16, 3}, 3, enc_in_1);
  int code;
  char msg[512];
  tfc_tensor *enc = run_op("EncodeJpeg", "quality=100;chroma_downsampling=false", &img, 1, &code, msg, sizeof msg);
  EXPECT_TRUE(enc != NULL);
  tfc_tensor *dec = run_op("DecodeJpeg", "dct_method=INTEGER_ACCURATE", &enc, 1, &code, msg, sizeof msg);
  EXPECT_TRUE(dec != NULL);
  EXPECT_TRUE(max_diff(dec, img->data) <= 3);
  tfc_tensor_unref(dec);
  tfc_tensor_unref(enc);
  tfc_tensor_unref(img);
}

/* Damaged bytes (flipped bytes, cuts) never crash a decoder: each run gives an image or
 * INVALID_ARGUMENT. Deterministic (a fixed xorshift stream); run under ASan in CI. */
static void damaged_inputs_fail_cleanly(void) {
  struct {
    const unsigned char *data;
    size_t n;
  } inputs[] = {{in_jpeg_rgb13, sizeof in_jpeg_rgb13},     {in_jpeg_progressive, sizeof in_jpeg_progressive},
                {in_jpeg_cmyk, sizeof in_jpeg_cmyk},       {in_png_rgba13, sizeof in_png_rgba13},
                {in_png_palette_trns, sizeof in_png_palette_trns}, {in_png_rgb16_u16, sizeof in_png_rgb16_u16},
                {in_bmp_rgb13, sizeof in_bmp_rgb13},       {in_bmp_rgba13_topdown, sizeof in_bmp_rgba13_topdown},
                {in_gif_anim, sizeof in_gif_anim},         {in_gif_rgb13, sizeof in_gif_rgb13}};
  const char *ops[][2] = {{"DecodeImage", ""}, {"DecodeJpeg", "try_recover_truncated=true;acceptable_fraction=0.1"},
                          {"DecodePng", "dtype=uint16;channels=4"}, {"ExtractJpegShape", ""}};
  uint64_t x = 88172645463325252ull;
  unsigned char buf[2048];
  for (int i = 0; i < N_ELEMS(inputs); i++)
    for (int round = 0; round < 60; round++) {
      size_t n = inputs[i].n < sizeof buf ? inputs[i].n : sizeof buf;
      memcpy(buf, inputs[i].data, n);
      for (int k = 0; k < 1 + round % 4; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf[x % n] = (unsigned char)(x >> 32);
      }
      if (round % 3 == 0) n = 8 + (x >> 40) % (n - 8);
      for (int o = 0; o < N_ELEMS(ops); o++) {
        tfc_tensor *in = bytes_tensor(buf, n);
        int code;
        char msg[512];
        tfc_tensor *out = run_op(ops[o][0], ops[o][1], &in, 1, &code, msg, sizeof msg);
        if (code != TFC_OK && code != TFC_INVALID_ARGUMENT)
          tfc_test_fail(__FILE__, __LINE__, "input %d round %d %s: code %d %s", i, round, ops[o][0], code, msg);
        tfc_tensor_unref(out);
        tfc_tensor_unref(in);
      }
    }
}

/* A JPEG cut inside a quantization table (found by damaged_inputs_fail_cleanly): with
 * try_recover_truncated, TF's source manager makes libjpeg read the table's bytes again and
 * again (TensorFlow hangs on it); tfc stops with TF's decoding error. */
static void jpeg_cut_in_a_table_does_not_hang(void) {
  static const unsigned char cut[] = {
      0xff,0xd8,0xff,0xe0,0x00,0x10,0x4a,0x46,0x49,0x46,0x00,0x01,0x01,0x01,0x01,0x2c,0x01,0x2c,0x00,0x00,
      0xff,0xdb,0x00,0x43,0x00,0x03,0x02,0x02,0x03,0x02,0x02,0x03,0x03,0x03,0x03,0x04,0x03,0x03,0x04,0x05,
      0x08,0x05,0x05,0x04,0x04,0x05,0x0a,0x07,0x07,0x06,0x08,0x0c,0x0a,0x0c,0x0c,0x0b,0x0a,0x0b,0x0b,0x0d,
      0x0e,0x12,0x10,0x0d,0x0e,0x11,0x0e,0x0b,0x0b,0x10,0x16,0x10,0x11,0x13,0x14,0x15,0x15,0x15,0x0c,0x0f,
      0x17,0x18,0x16,0x14,0x18,0x12,0x14,0x15,0x14,0xff,0xdb,0x00,0x43,0x01,0x03,0x04,0x04,0x05,0x04,0x05,
      0x09,0x05,0x05,0x09,0x14,0x0d,0x0b,0x0d,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,
      0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,
      0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0x14,0xff};
  tfc_tensor *in = bytes_tensor(cut, sizeof cut);
  int code;
  char msg[512];
  tfc_tensor *out = run_op("DecodeJpeg", "try_recover_truncated=true;acceptable_fraction=0.1", &in, 1, &code, msg,
                           sizeof msg);
  EXPECT_TRUE(out == NULL);
  EXPECT_EQ(code, TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "jpeg::Uncompress failed. Invalid JPEG data or crop window.");
  tfc_tensor_unref(in);
}

static const tfc_test tests[] = {
    TFC_TEST(decoding_matches_tensorflow),
    TFC_TEST(encoding_decodes_as_tensorflows),
    TFC_TEST(encode_errors_match_tensorflow),
    TFC_TEST(jpeg_encoder_writes_density_and_xmp),
    TFC_TEST(shape_functions_check_ranks),
    TFC_TEST(bad_attrs_are_refused),
    TFC_TEST(encode_decode_round_trips),
    TFC_TEST(damaged_inputs_fail_cleanly),
    TFC_TEST(jpeg_cut_in_a_table_does_not_hang),
    {0},
};

TFC_TEST_MAIN(tests)
