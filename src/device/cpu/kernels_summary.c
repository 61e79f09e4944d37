/*
 * kernels_summary — CPU kernels of the summary family (ops/ops_summary.def): ScalarSummary,
 * HistogramSummary, TensorSummaryV2, AudioSummaryV2 and MergeSummary. Each outputs one serialized tensorflow.Summary
 * (proto/tensorflow/summary.proto) in a string scalar, byte for byte what TF 1.15's
 * summary_op.cc serializes for the same inputs (tests/kernels/test_summary.c checks the bytes
 * against TF's own, tests/fixtures/gen_events.py).
 *
 * Byte equality rests on two facts: protobuf-c, like TF's C++ serializer, writes fields in
 * field-number order and leaves proto3 scalars at their default out (a oneof member is
 * written whenever it is set, so a simple_value of 0 is still there); and the histogram is TF's
 * (lib/histogram/histogram.cc) step for step:
 *   - bucket limits: 1e-12 multiplied by 1.1 while below 1e20, then DBL_MAX; the negatives
 *     mirrored in front, 0 in the middle (1551 limits), computed once with the same double
 *     arithmetic;
 *   - a value goes to the first bucket whose limit exceeds it (std::upper_bound); min, max,
 *     num, sum and sum_squares accumulate in input order, as doubles;
 *   - encoding writes each non-empty bucket as (limit, count) and collapses each run of empty
 *     buckets into one (limit of the run's last bucket, 0); an empty histogram is the single
 *     bucket (DBL_MAX, 0), with min = DBL_MAX and max = -DBL_MAX as TF leaves them.
 * Values are converted as TF converts them: ScalarSummary casts each element straight to
 * float (an int64 rounds once), HistogramSummary to double.
 *
 * Errors are TF 1.15's INVALID_ARGUMENT texts: "tags and values not the same shape: [2] != [3]"
 * (plus " (tag 'x')" for a single tag), "Nan in summary histogram for: <node>", "Infinity in
 * summary histogram for: <node>", "Duplicate tag <tag> found in summary inputs", "Could not
 * parse one of the summary inputs". The kernels keep no state: compute is reentrant.
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "device/cpu/cpu_kernels.h"
#include "proto/pb_util.h"
#include "proto/tensor_codec.h"
#include "tensorflow/summary.pb-c.h"

/* ---- element conversion ---- */

/* Element i as float, cast straight from its type (TF's float(T)). */
static float elem_f32(const tfc_tensor *t, int64_t i) {
  const void *p = t->data;
  switch (t->dtype) {
    case TFC_DT_FLOAT: return ((const float *)p)[i];
    case TFC_DT_DOUBLE: return (float)((const double *)p)[i];
    case TFC_DT_INT32: return (float)((const int32_t *)p)[i];
    case TFC_DT_UINT8: return (float)((const uint8_t *)p)[i];
    case TFC_DT_INT16: return (float)((const int16_t *)p)[i];
    case TFC_DT_INT8: return (float)((const int8_t *)p)[i];
    case TFC_DT_INT64: return (float)((const int64_t *)p)[i];
    case TFC_DT_UINT16: return (float)((const uint16_t *)p)[i];
    case TFC_DT_UINT32: return (float)((const uint32_t *)p)[i];
    case TFC_DT_UINT64: return (float)((const uint64_t *)p)[i];
    case TFC_DT_HALF: return tfc_half_to_float(((const uint16_t *)p)[i]);
    case TFC_DT_BFLOAT16: return tfc_bfloat16_to_float(((const uint16_t *)p)[i]);
    default: return 0;
  }
}

/* Element i as double (TF's static_cast<double>(T)). */
static double elem_f64(const tfc_tensor *t, int64_t i) {
  const void *p = t->data;
  switch (t->dtype) {
    case TFC_DT_DOUBLE: return ((const double *)p)[i];
    case TFC_DT_INT64: return (double)((const int64_t *)p)[i];
    case TFC_DT_UINT64: return (double)((const uint64_t *)p)[i];
    case TFC_DT_UINT32: return (double)((const uint32_t *)p)[i];
    case TFC_DT_INT32: return (double)((const int32_t *)p)[i];
    default: return (double)elem_f32(t, i); /* float, half, bfloat16 and the small ints: exact */
  }
}

/* ---- output ---- */

/* Packs m into a new string scalar as output 0. */
static int output_message(tfc_kernel_ctx *c, const ProtobufCMessage *m) {
  void *bytes = NULL;
  size_t len = 0;
  if (tfc_pb_pack(m, &bytes, &len, c->status)) return c->status->code;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_STRING, NULL, 0);
  if (out) tfc_tstring_assign(tfc_tensor_strings(out), bytes, len, c->status);
  free(bytes);
  return c->status->code;
}

/* A tstring as a NUL-terminated copy (tags may hold any bytes; protobuf-c wants C strings).
 * An embedded NUL would cut the tag short, so it is refused. */
static char *tag_copy(tfc_kernel_ctx *c, const tfc_tstring *t) {
  if (memchr(t->data, 0, t->len)) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "summary tag contains a NUL byte");
    return NULL;
  }
  char *r = malloc(t->len + 1);
  if (!r) {
    TFC_OOM(c->status);
    return NULL;
  }
  if (t->len) memcpy(r, t->data, t->len);
  r[t->len] = 0;
  return r;
}

/* ---- ScalarSummary ---- */

static int scalar_summary_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *tags = c->inputs[0], *values = c->inputs[1];
  if (!tfc_tensor_same_shape(tags, values)) {
    char a[128], b[128], single[256] = "";
    if (tags->n_elems == 1) {
      const tfc_tstring *t0 = tfc_tensor_strings(tags);
      snprintf(single, sizeof single, " (tag '%.*s')", (int)(t0->len > 200 ? 200 : t0->len), t0->data);
    }
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "tags and values not the same shape: %s != %s%s",
                            tfc_tensor_shape_str(tags, a, sizeof a), tfc_tensor_shape_str(values, b, sizeof b),
                            single);
  }
  int64_t n = tags->n_elems;
  Tensorflow__Summary sum = TENSORFLOW__SUMMARY__INIT;
  Tensorflow__Summary__Value *vals = calloc((size_t)(n > 0 ? n : 1), sizeof *vals);
  Tensorflow__Summary__Value **ptrs = calloc((size_t)(n > 0 ? n : 1), sizeof *ptrs);
  if (!vals || !ptrs) {
    free(vals);
    free(ptrs);
    return TFC_OOM(c->status);
  }
  int64_t made = 0;
  const tfc_tstring *t = tfc_tensor_strings(tags);
  for (; made < n; made++) {
    Tensorflow__Summary__Value init = TENSORFLOW__SUMMARY__VALUE__INIT;
    vals[made] = init;
    vals[made].tag = tag_copy(c, &t[made]);
    if (!vals[made].tag) break;
    vals[made].value_case = TENSORFLOW__SUMMARY__VALUE__VALUE_SIMPLE_VALUE;
    vals[made].simple_value = elem_f32(values, made);
    ptrs[made] = &vals[made];
  }
  if (made == n) {
    sum.n_value = (size_t)n;
    sum.value = ptrs;
    output_message(c, &sum.base);
  }
  for (int64_t i = 0; i < made; i++) free(vals[i].tag);
  free(vals);
  free(ptrs);
  return c->status->code;
}

/* ---- TensorSummaryV2 ---- */

/* TF's TensorSummaryV2Op: the tag (a scalar), the metadata parsed from its serialized form and
 * the tensor as a TensorProto (strings in string_val, numbers in tensor_content, as TF's
 * AsProtoField / AsProtoTensorContent choose). Unlike TF, which ignores a parse failure of the
 * metadata, unparseable metadata is INVALID_ARGUMENT. */
static int tensor_summary_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *tag = c->inputs[0], *t = c->inputs[1], *meta = c->inputs[2];
  if (tag->ndims != 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "tag must be scalar");
  if (meta->ndims != 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "serialized_summary_metadata must be scalar");
  const tfc_tstring *ms = tfc_tensor_strings(meta);
  Tensorflow__SummaryMetadata *md = (Tensorflow__SummaryMetadata *)tfc_pb_unpack(
      &tensorflow__summary_metadata__descriptor, ms->data, ms->len, "SummaryMetadata", c->status);
  if (!md) return c->status->code;
  tfc_pb_arena a;
  tfc_pb_arena_init(&a);
  Tensorflow__TensorProto tp = TENSORFLOW__TENSOR_PROTO__INIT;
  Tensorflow__Summary__Value v = TENSORFLOW__SUMMARY__VALUE__INIT;
  Tensorflow__Summary__Value *vp = &v;
  Tensorflow__Summary sum = TENSORFLOW__SUMMARY__INIT;
  v.tag = tag_copy(c, tfc_tensor_strings(tag));
  if (v.tag && !tfc_tensor_to_proto(t, &a, &tp, c->status)) {
    v.metadata = md;
    v.value_case = TENSORFLOW__SUMMARY__VALUE__VALUE_TENSOR;
    v.tensor = &tp;
    sum.n_value = 1;
    sum.value = &vp;
    output_message(c, &sum.base);
  }
  free(v.tag);
  tfc_pb_arena_fini(&a);
  protobuf_c_message_free_unpacked(&md->base, NULL);
  return c->status->code;
}

/* ---- AudioSummaryV2 ---- */

static void put_u16(unsigned char *p, unsigned v) {
  p[0] = (unsigned char)(v & 0xff);
  p[1] = (unsigned char)(v >> 8 & 0xff);
}

static void put_u32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i) & 0xff);
}

/* TF's wav::EncodeAudioAsS16LEWav: a 44-byte RIFF/WAVE header (PCM, 16 bits) and the samples,
 * each round(x * 32768) clamped to int16, little-endian. Returns a malloc'd buffer of *len
 * bytes, or NULL (out of memory). */
static unsigned char *encode_wav(const float *x, int64_t frames, int64_t channels, float rate, size_t *len) {
  size_t n = (size_t)(frames * channels), data = 2 * n;
  unsigned char *w = malloc(44 + data);
  if (!w) return NULL;
  uint32_t r = (uint32_t)rate;
  memcpy(w, "RIFF", 4);
  put_u32(w + 4, (uint32_t)(36 + data));
  memcpy(w + 8, "WAVEfmt ", 8);
  put_u32(w + 16, 16);
  put_u16(w + 20, 1);
  put_u16(w + 22, (unsigned)channels);
  put_u32(w + 24, r);
  put_u32(w + 28, (uint32_t)(r * channels * 2));
  put_u16(w + 32, (unsigned)(channels * 2));
  put_u16(w + 34, 16);
  memcpy(w + 36, "data", 4);
  put_u32(w + 40, (uint32_t)data);
  for (size_t i = 0; i < n; i++) {
    float v = roundf(x[i] * 32768.0f);
    v = v < -32768.0f ? -32768.0f : v > 32767.0f ? 32767.0f : v;
    put_u16(w + 44 + 2 * i, (unsigned)(uint16_t)(int16_t)v);
  }
  *len = 44 + data;
  return w;
}

static int audio_summary_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *tag = c->inputs[0], *t = c->inputs[1], *rate_t = c->inputs[2];
  char d[128];
  if (tag->ndims != 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Tag must be a scalar");
  if (t->ndims < 2 || t->ndims > 3)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Tensor must be 3-D or 2-D, got: %s",
                            tfc_tensor_shape_str(t, d, sizeof d));
  if (rate_t->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "sample_rate must be scalar: %s",
                            tfc_tensor_shape_str(rate_t, d, sizeof d));
  float rate = *(const float *)rate_t->data;
  if (!(rate > 0.0f)) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "sample_rate must be > 0");
  int64_t max_outputs = 3;
  if (tfc_node_attr_int(c->node, "max_outputs", &max_outputs)) max_outputs = 3;
  int64_t batch = t->dims[0], frames = t->dims[1], channels = t->ndims == 2 ? 1 : t->dims[2];
  int64_t n = batch < max_outputs ? batch : max_outputs;
  char *base = tag_copy(c, tfc_tensor_strings(tag));
  if (!base) return c->status->code;
  Tensorflow__Summary sum = TENSORFLOW__SUMMARY__INIT;
  Tensorflow__Summary__Value *vals = calloc((size_t)(n > 0 ? n : 1), sizeof *vals);
  Tensorflow__Summary__Value **ptrs = calloc((size_t)(n > 0 ? n : 1), sizeof *ptrs);
  Tensorflow__Summary__Audio *auds = calloc((size_t)(n > 0 ? n : 1), sizeof *auds);
  int64_t made = 0;
  if (!vals || !ptrs || !auds) TFC_OOM(c->status);
  for (; tfc_status_ok(c->status) && made < n; made++) {
    Tensorflow__Summary__Value vi = TENSORFLOW__SUMMARY__VALUE__INIT;
    Tensorflow__Summary__Audio ai = TENSORFLOW__SUMMARY__AUDIO__INIT;
    vals[made] = vi;
    auds[made] = ai;
    size_t len = 0;
    unsigned char *wav = encode_wav((const float *)t->data + made * frames * channels, frames, channels, rate, &len);
    int ok = wav && (max_outputs > 1 ? asprintf(&vals[made].tag, "%s/audio/%lld", base, (long long)made)
                                     : asprintf(&vals[made].tag, "%s/audio", base)) >= 0;
    if (!ok) {
      if (wav) vals[made].tag = NULL;
      free(wav);
      TFC_OOM(c->status);
      break;
    }
    auds[made].sample_rate = rate;
    auds[made].num_channels = channels;
    auds[made].length_frames = frames;
    auds[made].encoded_audio_string.data = wav;
    auds[made].encoded_audio_string.len = len;
    auds[made].content_type = (char *)"audio/wav";
    vals[made].value_case = TENSORFLOW__SUMMARY__VALUE__VALUE_AUDIO;
    vals[made].audio = &auds[made];
    ptrs[made] = &vals[made];
  }
  if (tfc_status_ok(c->status)) {
    sum.n_value = (size_t)n;
    sum.value = ptrs;
    output_message(c, &sum.base);
  }
  for (int64_t i = 0; i < made; i++) {
    free(vals[i].tag);
    free(auds[i].encoded_audio_string.data);
  }
  free(vals);
  free(ptrs);
  free(auds);
  free(base);
  return c->status->code;
}

/* ---- HistogramSummary ---- */

static double *default_limits;
static int n_default_limits;
static pthread_once_t limits_once = PTHREAD_ONCE_INIT;

/* TF's InitDefaultBucketsInner. On out of memory default_limits stays NULL and the kernel
 * reports it. The table lives for the process (as TF's static). */
static void init_default_limits(void) {
  int n_pos = 0;
  for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) n_pos++;
  int n = 2 * (n_pos + 1) + 1;
  double *l = malloc((size_t)n * sizeof *l);
  if (!l) return;
  double v = 1.0e-12;
  for (int i = 0; i < n_pos; i++, v *= 1.1) {
    l[n_pos - i] = -v;  /* negatives, reversed after -DBL_MAX */
    l[n_pos + 2 + i] = v; /* positives after 0 */
  }
  l[0] = -DBL_MAX;
  l[n_pos + 1] = 0.0;
  l[n - 1] = DBL_MAX;
  default_limits = l;
  n_default_limits = n;
}

typedef struct histo {
  double min, max, num, sum, sum_squares;
  double *buckets; /* n_default_limits counts */
} histo;

static void histo_add(histo *h, double v) {
  /* upper_bound: the first limit > v. Only v = DBL_MAX finds none; it joins the last bucket
   * (TF would index one past its array there). */
  int lo = 0, hi = n_default_limits;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (default_limits[mid] > v) hi = mid;
    else lo = mid + 1;
  }
  if (lo == n_default_limits) lo--;
  h->buckets[lo] += 1.0;
  if (h->min > v) h->min = v;
  if (h->max < v) h->max = v;
  h->num += 1;
  h->sum += v;
  h->sum_squares += v * v;
}

/* TF's EncodeToProto with preserve_zero_buckets = false; limit/count arrays are caller
 * storage of n_default_limits entries. */
static void histo_encode(const histo *h, Tensorflow__HistogramProto *p, double *limit, double *count) {
  p->min = h->min;
  p->max = h->max;
  p->num = h->num;
  p->sum = h->sum;
  p->sum_squares = h->sum_squares;
  size_t n = 0;
  for (int i = 0; i < n_default_limits;) {
    double end = default_limits[i], cnt = h->buckets[i];
    i++;
    if (cnt <= 0.0) {
      while (i < n_default_limits && h->buckets[i] <= 0.0) {
        end = default_limits[i];
        cnt = h->buckets[i];
        i++;
      }
    }
    limit[n] = end;
    count[n] = cnt;
    n++;
  }
  p->n_bucket_limit = p->n_bucket = n;
  p->bucket_limit = limit;
  p->bucket = count;
}

static int histogram_summary_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *tag = c->inputs[0], *values = c->inputs[1];
  if (tag->ndims != 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "tags must be scalar");
  pthread_once(&limits_once, init_default_limits);
  if (!default_limits) return TFC_OOM(c->status);
  histo h = {DBL_MAX, -DBL_MAX, 0, 0, 0, calloc((size_t)n_default_limits, sizeof(double))};
  double *limit = malloc((size_t)n_default_limits * sizeof(double));
  double *count = malloc((size_t)n_default_limits * sizeof(double));
  char *tag_str = NULL;
  if (!h.buckets || !limit || !count) {
    TFC_OOM(c->status);
    goto done;
  }
  for (int64_t i = 0; i < values->n_elems; i++) {
    double v = elem_f64(values, i);
    if (isnan(v)) {
      tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Nan in summary histogram for: %s", c->node->name);
      goto done;
    }
    if (isinf(v)) {
      tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Infinity in summary histogram for: %s", c->node->name);
      goto done;
    }
    histo_add(&h, v);
  }
  tag_str = tag_copy(c, tfc_tensor_strings(tag));
  if (!tag_str) goto done;
  Tensorflow__HistogramProto hp = TENSORFLOW__HISTOGRAM_PROTO__INIT;
  histo_encode(&h, &hp, limit, count);
  Tensorflow__Summary__Value v = TENSORFLOW__SUMMARY__VALUE__INIT;
  v.tag = tag_str;
  v.value_case = TENSORFLOW__SUMMARY__VALUE__VALUE_HISTO;
  v.histo = &hp;
  Tensorflow__Summary__Value *vp = &v;
  Tensorflow__Summary sum = TENSORFLOW__SUMMARY__INIT;
  sum.n_value = 1;
  sum.value = &vp;
  output_message(c, &sum.base);
done:
  free(tag_str);
  free(h.buckets);
  free(limit);
  free(count);
  return c->status->code;
}

/* ---- MergeSummary ---- */

static int merge_summary_compute(tfc_kernel_ctx *c) {
  int64_t n_in = 0;
  for (int i = 0; i < c->n_inputs; i++) n_in += c->inputs[i]->n_elems;
  Tensorflow__Summary **parsed = calloc((size_t)(n_in > 0 ? n_in : 1), sizeof *parsed);
  if (!parsed) return TFC_OOM(c->status);
  tfc_hashmap tags;
  tfc_hashmap_init(&tags);
  size_t n_values = 0, cap = 0;
  Tensorflow__Summary__Value **values = NULL;
  int64_t k = 0;
  for (int i = 0; i < c->n_inputs && tfc_status_ok(c->status); i++) {
    const tfc_tensor *in = c->inputs[i];
    const tfc_tstring *strs = tfc_tensor_strings(in);
    for (int64_t j = 0; j < in->n_elems; j++, k++) {
      tfc_status scratch;
      tfc_status_init(&scratch);
      parsed[k] = (Tensorflow__Summary *)tfc_pb_unpack(&tensorflow__summary__descriptor, strs[j].data, strs[j].len,
                                                        "Summary", &scratch);
      int oom = scratch.code == TFC_RESOURCE_EXHAUSTED;
      tfc_status_fini(&scratch);
      if (!parsed[k]) {
        if (oom) TFC_OOM(c->status);
        else tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Could not parse one of the summary inputs");
        break;
      }
      Tensorflow__Summary *s = parsed[k];
      if (n_values + s->n_value > cap) {
        size_t ncap = cap ? cap : 16;
        while (ncap < n_values + s->n_value) ncap *= 2;
        Tensorflow__Summary__Value **nv = realloc(values, ncap * sizeof *nv);
        if (!nv) {
          TFC_OOM(c->status);
          break;
        }
        values = nv;
        cap = ncap;
      }
      for (size_t v = 0; v < s->n_value; v++) {
        const char *tag = s->value[v]->tag;
        /* Values without a tag (TensorSummary's) are never duplicates. */
        if (tag && *tag) {
          if (tfc_hashmap_get(&tags, tag)) {
            tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Duplicate tag %s found in summary inputs", tag);
            break;
          }
          if (tfc_hashmap_put(&tags, tag, (void *)1)) {
            TFC_OOM(c->status);
            break;
          }
        }
        values[n_values++] = s->value[v];
      }
      if (!tfc_status_ok(c->status)) break;
    }
  }
  if (tfc_status_ok(c->status)) {
    Tensorflow__Summary out = TENSORFLOW__SUMMARY__INIT;
    out.n_value = n_values;
    out.value = values;
    output_message(c, &out.base);
  }
  for (int64_t i = 0; i < n_in; i++)
    if (parsed[i]) protobuf_c_message_free_unpacked(&parsed[i]->base, NULL);
  free(parsed);
  free(values);
  tfc_hashmap_fini(&tags);
  return c->status->code;
}

/* Every argument stays in host memory: summaries are built and read on the CPU. */
#define ALL_HOST 0xffffffffu

static const tfc_kernel_def summary_kernels[] = {
    {.op = TFC_OP_ScalarSummary, .type_attr = "T", .types = TFC_TYPES_REAL | TFC_T(TFC_DT_UINT32) |
                                                            TFC_T(TFC_DT_UINT64) | TFC_T(TFC_DT_HALF) |
                                                            TFC_T(TFC_DT_BFLOAT16),
     .host_memory_in = ALL_HOST, .host_memory_out = ALL_HOST, .compute = scalar_summary_compute},
    {.op = TFC_OP_HistogramSummary, .type_attr = "T", .types = TFC_TYPES_REAL | TFC_T(TFC_DT_UINT32) |
                                                               TFC_T(TFC_DT_UINT64) | TFC_T(TFC_DT_HALF) |
                                                               TFC_T(TFC_DT_BFLOAT16),
     .host_memory_in = ALL_HOST, .host_memory_out = ALL_HOST, .compute = histogram_summary_compute},
    {.op = TFC_OP_TensorSummaryV2, .host_memory_in = ALL_HOST, .host_memory_out = ALL_HOST,
     .compute = tensor_summary_compute},
    {.op = TFC_OP_AudioSummaryV2, .host_memory_in = ALL_HOST, .host_memory_out = ALL_HOST,
     .compute = audio_summary_compute},
    {.op = TFC_OP_MergeSummary, .host_memory_in = ALL_HOST, .host_memory_out = ALL_HOST,
     .compute = merge_summary_compute},
};

int tfc_cpu_kernels_summary(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, summary_kernels, (int)(sizeof summary_kernels / sizeof *summary_kernels), s);
}
