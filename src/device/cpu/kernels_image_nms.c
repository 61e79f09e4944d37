/*
 * kernels_image_nms — NonMaxSuppression, V2, V3, V4, V5, NonMaxSuppressionWithOverlaps and
 * CombinedNonMaxSuppression on the CPU, with TF's selection order, so the indices match TF's
 * exactly.
 *
 * One algorithm serves all six (TF's greedy NMS with its soft-NMS extension):
 *  - Only boxes with score > score_threshold are candidates (V1 and V2 take every score above
 *    the lowest float). Candidates come out of a max-heap by score, the lower box index first
 *    on equal scores.
 *  - A candidate is compared with the boxes selected so far, newest first (only those selected
 *    since it was last compared). Its similarity is the IoU of the two boxes (corners in any
 *    order; an empty box has IoU 0) or, WithOverlaps, overlaps[i][j].
 *  - Hard NMS (soft_nms_sigma 0): it is dropped when the similarity is > iou_threshold.
 *  - Soft NMS (V5, sigma > 0): its score is multiplied by exp(-0.5 sim^2 / sigma) for each;
 *    a candidate whose score changed goes back into the heap while it stays above the
 *    threshold; one whose score did not change is selected.
 *  - Selection stops at max_output_size. V4 and V5 pad to max_output_size with index 0 (score
 *    0) when pad_to_max_output_size, and output the count before padding.
 * For T = half every comparison and product is rounded to half as TF's arithmetic in T does.
 *
 * CombinedNonMaxSuppression runs hard NMS per batch and class (boxes [batch, n, q, 4] with q 1
 * or one box per class), keeps the best max_total_size results of a batch by score (with
 * pad_per_class at most max_output_size_per_class * classes rows), clips them to [0, 1] with
 * clip_boxes, and pads with zeros. TF orders equal scores by its standard library's heap and
 * unstable sort; here equal scores keep the lower box index within a class and the lower
 * class between classes.
 *
 * Errors (INVALID_ARGUMENT, TF's texts): "max_output_size must be 0-D, got shape [1]",
 * "iou_threshold must be 0-D, got shape [...]", "iou_threshold must be in [0, 1]",
 * "score_threshold must be 0-D, ...", "soft_nms_sigma must be 0-D, ...",
 * "soft_nms_sigma_val must be >= 0", "boxes must be 2-D[4] (Shape must be rank 2 but is rank
 * 1)", "boxes must have 4 columns (Dimension must be 4 but is 3)", "scores must be 1-D[...]
 * (Shape must be rank 1 but is rank 2)", "scores has incompatible shape (Dimensions must be
 * equal, but are 5 and 4)", "overlaps must be 2-D[...]", "overlaps must be square[...]",
 * "output size must be non-negative".
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "device/cpu/kernels_image.h"
#include "ops/opdef.h"

typedef struct nms_cand {
  int32_t index;
  float score;
  int32_t begin; /* selections before this one were already compared */
} nms_cand;

/* a comes out of the heap before b */
static int cand_before(const nms_cand *a, const nms_cand *b) {
  return a->score > b->score || (a->score == b->score && a->index < b->index);
}

typedef struct nms_heap {
  nms_cand *v;
  int64_t n;
} nms_heap;

static void heap_push(nms_heap *h, nms_cand c) {
  int64_t i = h->n++;
  while (i > 0) {
    int64_t p = (i - 1) / 2;
    if (!cand_before(&c, &h->v[p])) break;
    h->v[i] = h->v[p];
    i = p;
  }
  h->v[i] = c;
}

static nms_cand heap_pop(nms_heap *h) {
  nms_cand top = h->v[0], last = h->v[--h->n];
  int64_t i = 0;
  for (;;) {
    int64_t l = 2 * i + 1, best = l;
    if (l >= h->n) break;
    if (l + 1 < h->n && cand_before(&h->v[l + 1], &h->v[l])) best = l + 1;
    if (!cand_before(&h->v[best], &last)) break;
    h->v[i] = h->v[best];
    i = best;
  }
  if (h->n > 0) h->v[i] = last;
  return top;
}

/* What the op variants differ in. */
typedef struct nms_args {
  const float *boxes;    /* [n, 4] as float, or NULL with overlaps */
  const float *overlaps; /* [n, n], or NULL */
  const float *scores;
  int64_t n;
  int32_t max_out;
  float iou, score_thr, sigma;
  int half; /* T = half: round to half after every operation */
} nms_args;

static float in_t(const nms_args *a, float v) {
  return a->half ? tfc_half_to_float(tfc_float_to_half(v)) : v;
}

static float iou_of(const float *b, int64_t i, int64_t j) {
  const float *p = b + i * 4, *q = b + j * 4;
  float ymin_i = fminf(p[0], p[2]), xmin_i = fminf(p[1], p[3]), ymax_i = fmaxf(p[0], p[2]), xmax_i = fmaxf(p[1], p[3]);
  float ymin_j = fminf(q[0], q[2]), xmin_j = fminf(q[1], q[3]), ymax_j = fmaxf(q[0], q[2]), xmax_j = fmaxf(q[1], q[3]);
  float area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i), area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j);
  if (area_i <= 0 || area_j <= 0) return 0.0f;
  float iy = fmaxf(fminf(ymax_i, ymax_j) - fmaxf(ymin_i, ymin_j), 0.0f);
  float ix = fmaxf(fminf(xmax_i, xmax_j) - fmaxf(xmin_i, xmin_j), 0.0f);
  float inter = iy * ix;
  return inter / (area_i + area_j - inter);
}

/* Runs the selection: *out_sel / *out_scores (malloc'd, max_out entries room) and the count. */
static int nms_run(tfc_kernel_ctx *c, const nms_args *a, int32_t *sel, float *sel_scores, int64_t *out_count) {
  nms_heap h = {malloc(sizeof(nms_cand) * (size_t)(a->n > 0 ? a->n : 1)), 0};
  if (!h.v) return TFC_OOM(c->status);
  for (int64_t i = 0; i < a->n; i++)
    if (a->scores[i] > a->score_thr) heap_push(&h, (nms_cand){(int32_t)i, a->scores[i], 0});
  int soft = a->sigma > 0;
  float scale = soft ? in_t(a, -0.5f / a->sigma) : 0.0f;
  int64_t n_sel = 0;
  while (n_sel < a->max_out && h.n > 0) {
    nms_cand cand = heap_pop(&h);
    float original = cand.score;
    int hard = 0;
    for (int64_t j = n_sel - 1; j >= cand.begin; j--) {
      float sim = a->overlaps ? a->overlaps[(int64_t)cand.index * a->n + sel[j]] : iou_of(a->boxes, cand.index, sel[j]);
      sim = in_t(a, sim);
      float w = in_t(a, expf(in_t(a, in_t(a, scale * sim) * sim)));
      cand.score = in_t(a, cand.score * (soft || sim <= a->iou ? w : 0.0f));
      if (!soft && sim > a->iou) {
        hard = 1;
        break;
      }
      if (cand.score <= a->score_thr) break;
    }
    cand.begin = (int32_t)n_sel;
    if (hard) continue;
    if (cand.score == original) {
      sel[n_sel] = cand.index;
      sel_scores[n_sel++] = cand.score;
    } else if (cand.score > a->score_thr) {
      heap_push(&h, cand);
    }
  }
  free(h.v);
  *out_count = n_sel;
  return TFC_OK;
}

/* Which op: the inputs it has, and the parenthesised shape texts TF adds to some checks. */
enum { NMS_V1 = 1, NMS_V2, NMS_V3, NMS_V4, NMS_V5, NMS_OVERLAPS };

static int scalar_input(tfc_kernel_ctx *c, int i, const char *name, int note) {
  const tfc_tensor *t = c->inputs[i];
  char a[TFC_SHAPE_STR_MAX];
  if (t->ndims == 0) return TFC_OK;
  if (note)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s must be 0-D, got shape %s (Shape must be rank 0 but is rank %d)",
                            name, tfc_tensor_shape_str(t, a, sizeof a), t->ndims);
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s must be 0-D, got shape %s", name,
                          tfc_tensor_shape_str(t, a, sizeof a));
}

static float scalar_f(const tfc_tensor *t) {
  if (t->dtype == TFC_DT_HALF) return tfc_half_to_float(*(const uint16_t *)t->data);
  return *(const float *)t->data;
}

static int nms_compute_version(tfc_kernel_ctx *c, int version) {
  const tfc_tensor *boxes = c->inputs[0], *scores = c->inputs[1], *max_t = c->inputs[2];
  char a[TFC_SHAPE_STR_MAX];
  nms_args args = {0};
  args.half = scores->dtype == TFC_DT_HALF;
  args.score_thr = -FLT_MAX;
  TFC_TRY(scalar_input(c, 2, "max_output_size", version == NMS_V3));
  /* the thresholds */
  if (version == NMS_V1) {
    const tfc_attr_value *v = tfc_node_attr(c->node, "iou_threshold");
    args.iou = v && v->kind == TFC_ATTR_FLOAT ? v->u.f : 0.5f;
  } else {
    TFC_TRY(scalar_input(c, 3, version == NMS_OVERLAPS ? "overlap_threshold" : "iou_threshold", version == NMS_V3));
    args.iou = scalar_f(c->inputs[3]);
  }
  if (version != NMS_OVERLAPS && !(args.iou >= 0 && args.iou <= 1))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "iou_threshold must be in [0, 1]");
  if (version >= NMS_V3) {
    TFC_TRY(scalar_input(c, 4, "score_threshold", 0));
    args.score_thr = scalar_f(c->inputs[4]);
  }
  if (version == NMS_V5) {
    TFC_TRY(scalar_input(c, 5, "soft_nms_sigma", 0));
    args.sigma = scalar_f(c->inputs[5]);
    if (!(args.sigma >= 0)) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "soft_nms_sigma_val must be >= 0");
  }
  args.iou = in_t(&args, args.iou);
  args.score_thr = args.score_thr == -FLT_MAX ? args.score_thr : in_t(&args, args.score_thr);
  args.sigma = in_t(&args, args.sigma);
  /* the shapes */
  if (version == NMS_OVERLAPS) {
    if (boxes->ndims != 2)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "overlaps must be 2-D%s", tfc_tensor_shape_str(boxes, a, sizeof a));
    if (boxes->dims[1] != boxes->dims[0])
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "overlaps must be square%s", tfc_tensor_shape_str(boxes, a, sizeof a));
  } else {
    if (boxes->ndims != 2)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "boxes must be 2-D%s (Shape must be rank 2 but is rank %d)",
                              tfc_tensor_shape_str(boxes, a, sizeof a), boxes->ndims);
    if (boxes->dims[1] != 4)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "boxes must have 4 columns (Dimension must be 4 but is %lld)",
                              (long long)boxes->dims[1]);
  }
  args.n = boxes->dims[0];
  if (scores->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "scores must be 1-D%s (Shape must be rank 1 but is rank %d)",
                            tfc_tensor_shape_str(scores, a, sizeof a), scores->ndims);
  if (scores->dims[0] != args.n)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "scores has incompatible shape (Dimensions must be equal, but are %lld and %lld)",
                            (long long)args.n, (long long)scores->dims[0]);
  args.max_out = *(const int32_t *)max_t->data;
  if (args.max_out < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "output size must be non-negative");
  int pad = 0;
  if (version == NMS_V4 || version == NMS_V5)
    TFC_TRY(tfc_kernel_attr_bool(c->node, "pad_to_max_output_size", &pad, c->status));
  /* the selection */
  float *bf = tfc_image_floats(c, boxes), *sf = tfc_image_floats(c, scores);
  int64_t room = args.max_out < args.n ? args.max_out : args.n;
  int32_t *sel = malloc(sizeof(int32_t) * (size_t)(room > 0 ? room : 1));
  float *sel_scores = malloc(sizeof(float) * (size_t)(room > 0 ? room : 1));
  int rc = TFC_OK;
  int64_t count = 0;
  if (!bf || !sf || !sel || !sel_scores) {
    rc = bf && sf ? TFC_OOM(c->status) : c->status->code;
    goto done;
  }
  if (version == NMS_OVERLAPS) args.overlaps = bf;
  else args.boxes = bf;
  args.scores = sf;
  args.max_out = (int32_t)room;
  rc = nms_run(c, &args, sel, sel_scores, &count);
  if (rc) goto done;
  /* the outputs */
  int64_t len = pad ? *(const int32_t *)max_t->data : count;
  tfc_tensor *idx = tfc_kernel_alloc_output(c, 0, TFC_DT_INT32, &len, 1);
  if (!idx) {
    rc = c->status->code;
    goto done;
  }
  int32_t *ip = idx->data;
  for (int64_t i = 0; i < len; i++) ip[i] = i < count ? sel[i] : 0;
  int valid_at = version == NMS_V4 ? 1 : version == NMS_V5 ? 2 : -1;
  if (version == NMS_V5) {
    tfc_tensor *st = tfc_kernel_alloc_output(c, 1, scores->dtype, &len, 1);
    if (!st) {
      rc = c->status->code;
      goto done;
    }
    double *v = malloc(sizeof(double) * (size_t)(len > 0 ? len : 1));
    if (!v) {
      rc = TFC_OOM(c->status);
      goto done;
    }
    for (int64_t i = 0; i < len; i++) v[i] = i < count ? sel_scores[i] : 0.0;
    tfc_image_store(st, v);
    free(v);
  }
  if (valid_at > 0) {
    tfc_tensor *vt = tfc_kernel_alloc_output(c, valid_at, TFC_DT_INT32, NULL, 0);
    if (!vt) {
      rc = c->status->code;
      goto done;
    }
    *(int32_t *)vt->data = (int32_t)count;
  }
done:
  free(bf);
  free(sf);
  free(sel);
  free(sel_scores);
  return rc;
}

static int nms_v1_compute(tfc_kernel_ctx *c) { return nms_compute_version(c, NMS_V1); }
static int nms_v2_compute(tfc_kernel_ctx *c) { return nms_compute_version(c, NMS_V2); }
static int nms_v3_compute(tfc_kernel_ctx *c) { return nms_compute_version(c, NMS_V3); }
static int nms_v4_compute(tfc_kernel_ctx *c) { return nms_compute_version(c, NMS_V4); }
static int nms_v5_compute(tfc_kernel_ctx *c) { return nms_compute_version(c, NMS_V5); }
static int nms_overlaps_compute(tfc_kernel_ctx *c) { return nms_compute_version(c, NMS_OVERLAPS); }

/* ---- CombinedNonMaxSuppression ---- */

typedef struct nms_result {
  float score, cls;
  int64_t order; /* class-major position, the tie-break between equal scores */
  float box[4];
} nms_result;

static int result_cmp(const void *pa, const void *pb) {
  const nms_result *a = pa, *b = pb;
  if (a->score != b->score) return a->score > b->score ? -1 : 1;
  return a->order < b->order ? -1 : a->order > b->order;
}

/* boxes [batch, n, q, 4] (q 1 or classes), scores [batch, n, classes]: hard NMS per class
 * (at most min(max_per_class, n) each), then the best max_total_size of a batch by score. */
static int combined_nms_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *boxes = c->inputs[0], *scores = c->inputs[1];
  char a[TFC_SHAPE_STR_MAX];
  if ((boxes->ndims > 0 ? boxes->dims[0] : -1) != (scores->ndims > 0 ? scores->dims[0] : -1))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "boxes and scores must have same batch size");
  if (c->inputs[2]->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "max_size_per_class must be 0-D, got shape %s",
                            tfc_tensor_shape_str(c->inputs[2], a, sizeof a));
  int64_t per_class = *(const int32_t *)c->inputs[2]->data;
  if (per_class <= 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "max_size_per_class must be positive");
  TFC_TRY(scalar_input(c, 3, "max_total_size", 0));
  int64_t total = *(const int32_t *)c->inputs[3]->data;
  if (total <= 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "max_total_size must be > 0");
  TFC_TRY(scalar_input(c, 4, "iou_threshold", 0));
  float iou = scalar_f(c->inputs[4]);
  if (!(iou >= 0 && iou <= 1)) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "iou_threshold must be in [0, 1]");
  TFC_TRY(scalar_input(c, 5, "score_threshold", 0));
  float score_thr = scalar_f(c->inputs[5]);
  if (boxes->ndims != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "boxes must be 4-D%s", tfc_tensor_shape_str(boxes, a, sizeof a));
  int64_t classes = scores->ndims == 3 ? scores->dims[2] : -1, q = boxes->dims[2];
  if (q != 1 && q != classes)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "third dimension of boxes must be either 1 or num classes");
  if (boxes->dims[3] != 4) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "boxes must have 4 columns");
  int64_t batch = boxes->dims[0], n = boxes->dims[1];
  if (scores->ndims != 3)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "scores must be 3-D%s", tfc_tensor_shape_str(scores, a, sizeof a));
  if (scores->dims[1] != n) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "scores has incompatible shape");
  int pad_per_class, clip;
  TFC_TRY(tfc_kernel_attr_bool(c->node, "pad_per_class", &pad_per_class, c->status));
  TFC_TRY(tfc_kernel_attr_bool(c->node, "clip_boxes", &clip, c->status));
  int64_t size_per_class = per_class < n ? per_class : n;
  int64_t out_len = total;
  if (pad_per_class && per_class * classes < total) out_len = per_class * classes;
  int64_t d3[3] = {batch, out_len, 4}, d2[2] = {batch, out_len};
  tfc_tensor *ob = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, d3, 3);
  tfc_tensor *os = ob ? tfc_kernel_alloc_output(c, 1, TFC_DT_FLOAT, d2, 2) : NULL;
  tfc_tensor *oc = os ? tfc_kernel_alloc_output(c, 2, TFC_DT_FLOAT, d2, 2) : NULL;
  tfc_tensor *ov = oc ? tfc_kernel_alloc_output(c, 3, TFC_DT_INT32, &batch, 1) : NULL;
  if (!ov) return c->status->code;
  memset(ob->data, 0, ob->n_bytes);
  memset(os->data, 0, os->n_bytes);
  memset(oc->data, 0, oc->n_bytes);
  int64_t cap = size_per_class * classes;
  float *cb = malloc(sizeof(float) * (size_t)(n * 4 + 1)), *cs = malloc(sizeof(float) * (size_t)(n + 1));
  int32_t *sel = malloc(sizeof(int32_t) * (size_t)(size_per_class + 1));
  float *sel_scores = malloc(sizeof(float) * (size_t)(size_per_class + 1));
  nms_result *res = malloc(sizeof(nms_result) * (size_t)(cap + 1));
  int rc = TFC_OK;
  if (!cb || !cs || !sel || !sel_scores || !res) {
    rc = TFC_OOM(c->status);
    goto done;
  }
  const float *bd = boxes->data, *sd = scores->data;
  for (int64_t b = 0; b < batch; b++) {
    int64_t n_res = 0;
    for (int64_t k = 0; k < classes; k++) {
      int64_t kq = q > 1 ? k : 0;
      for (int64_t i = 0; i < n; i++) {
        memcpy(cb + i * 4, bd + ((b * n + i) * q + kq) * 4, sizeof(float) * 4);
        cs[i] = sd[(b * n + i) * classes + k];
      }
      nms_args args = {.boxes = cb, .scores = cs, .n = n, .max_out = (int32_t)size_per_class, .iou = iou,
                       .score_thr = score_thr};
      int64_t count;
      if ((rc = nms_run(c, &args, sel, sel_scores, &count))) goto done;
      for (int64_t j = 0; j < count; j++, n_res++) {
        nms_result *r = &res[n_res];
        r->score = sel_scores[j];
        r->cls = (float)k;
        r->order = n_res;
        memcpy(r->box, cb + (int64_t)sel[j] * 4, sizeof r->box);
      }
    }
    qsort(res, (size_t)n_res, sizeof *res, result_cmp);
    int64_t keep = n_res < out_len ? n_res : out_len;
    for (int64_t j = 0; j < keep; j++) {
      float *dst = (float *)ob->data + (b * out_len + j) * 4;
      for (int e = 0; e < 4; e++) dst[e] = clip ? fmaxf(fminf(res[j].box[e], 1.0f), 0.0f) : res[j].box[e];
      ((float *)os->data)[b * out_len + j] = res[j].score;
      ((float *)oc->data)[b * out_len + j] = res[j].cls;
    }
    ((int32_t *)ov->data)[b] = (int32_t)keep;
  }
done:
  free(cb);
  free(cs);
  free(sel);
  free(sel_scores);
  free(res);
  return rc;
}

#define NMS_TYPES (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_HALF))
/* Everything but the boxes and scores is a host scalar. */
#define NMS_HOST (TFC_HOST(2) | TFC_HOST(3) | TFC_HOST(4) | TFC_HOST(5))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_NonMaxSuppression, .host_memory_in = NMS_HOST, .compute = nms_v1_compute},
    {.op = TFC_OP_NonMaxSuppressionV2, .type_attr = "T", .types = NMS_TYPES, .host_memory_in = NMS_HOST,
     .compute = nms_v2_compute},
    {.op = TFC_OP_NonMaxSuppressionV3, .type_attr = "T", .types = NMS_TYPES, .host_memory_in = NMS_HOST,
     .compute = nms_v3_compute},
    {.op = TFC_OP_NonMaxSuppressionV4, .type_attr = "T", .types = NMS_TYPES, .host_memory_in = NMS_HOST,
     .compute = nms_v4_compute},
    {.op = TFC_OP_NonMaxSuppressionV5, .type_attr = "T", .types = NMS_TYPES, .host_memory_in = NMS_HOST,
     .compute = nms_v5_compute},
    {.op = TFC_OP_NonMaxSuppressionWithOverlaps, .host_memory_in = NMS_HOST, .compute = nms_overlaps_compute},
    {.op = TFC_OP_CombinedNonMaxSuppression, .host_memory_in = NMS_HOST, .compute = combined_nms_compute},
};

int tfc_cpu_kernels_image_nms(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
