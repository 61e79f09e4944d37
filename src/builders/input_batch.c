/*
 * builders/input_batch — tf.train.batch and tf.train.shuffle_batch (and enqueue_many) as
 * TF 1.15's training/input.py builds them (include/tfc/input.h):
 *
 *   <scope>/Const                      keep_input (True), as _validate_keep_input makes it
 *   <scope>/fifo_queue | random_shuffle_queue   shapes fully defined, seeds for the shuffle
 *   (<scope>/padding_fifo_queue with dynamic_pad: shapes of known rank)
 *   <scope>/<q>_enqueue                one QueueEnqueueV2, listed num_threads times in the
 *                                      queue runner (Python's [op] * threads)
 *   <scope>/<q>_Close, <q>_Close_1     the runner's close and cancel ops
 *   <scope>/<q>_Size ... mul           the fill level: size / capacity, or for the shuffle
 *                                      queue max(0, size - min) / (capacity - min)
 *   <scope>/fraction_..._full          its ScalarSummary (and /tags)
 *   <scope>/n, <scope>                 QueueDequeueManyV2 (UpTo when a smaller final batch is
 *                                      allowed) named after the scope
 *
 * Python checks the shapes while building (_shapes, then the queue's _as_shape_list); the
 * messages here are its ValueErrors' texts, with TF 1.15's Tensor and TensorShape reprs. The
 * dequeued tensors get Python's static shapes ([batch_size] + element shape) merged in, as
 * dequeue_many's set_shape does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "builders/input_internal.h"
#include "tensor/dtype.h"
#include "tfc/input.h"

/* What distinguishes the two batchers. */
typedef struct batch_spec {
  int shuffle;
  int batch_size, capacity, min_after_dequeue, num_threads;
  int64_t seed;
  int smaller_final; /* dequeue_up_to */
  const char *name;
  int enqueue_many; /* each input is a batch of elements: shapes drop their first dim */
  int dynamic_pad;  /* a PaddingFIFOQueue: shapes need a known rank only */
} batch_spec;

/* Python's dtype names (tf.float32), where they differ from TF's type names. */
static const char *py_dtype(int dtype) {
  switch (dtype) {
    case TFC_DT_FLOAT: return "float32";
    case TFC_DT_DOUBLE: return "float64";
    case TFC_DT_HALF: return "float16";
    default: return tfc_dtype_name(dtype);
  }
}

/* TF 1.15's str(Tensor): Tensor("x:0", shape=(?, 3), dtype=float32); no shape when the rank is
 * unknown. */
static void tensor_str(tfc_endpoint e, char *buf, size_t n) {
  const tfc_shape *sh = bld_shape(e);
  char dims[256] = "";
  if (sh->rank >= 0) {
    size_t k = (size_t)snprintf(dims, sizeof dims, ", shape=(");
    for (int i = 0; i < sh->rank && k < sizeof dims; i++) {
      if (sh->dims[i] < 0) k += (size_t)snprintf(dims + k, sizeof dims - k, "%s?", i ? ", " : "");
      else k += (size_t)snprintf(dims + k, sizeof dims - k, "%s%lld", i ? ", " : "", (long long)sh->dims[i]);
    }
    if (k < sizeof dims) snprintf(dims + k, sizeof dims - k, sh->rank == 1 ? ",)" : ")");
  }
  snprintf(buf, n, "Tensor(\"%s:%d\"%s, dtype=%s)", e.node->name, e.index, dims, py_dtype(bld_dtype(e)));
}

/* TF 1.15's repr of a list of TensorShapes: [TensorShape([Dimension(None), Dimension(3)])]. */
static void shapes_repr(const tfc_shape *shapes, int n, char *buf, size_t cap) {
  size_t k = (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < n && k < cap; i++) {
    k += (size_t)snprintf(buf + k, cap - k, "%sTensorShape([", i ? ", " : "");
    for (int d = 0; d < shapes[i].rank && k < cap; d++) {
      if (shapes[i].dims[d] < 0) k += (size_t)snprintf(buf + k, cap - k, "%sDimension(None)", d ? ", " : "");
      else
        k += (size_t)snprintf(buf + k, cap - k, "%sDimension(%lld)", d ? ", " : "", (long long)shapes[i].dims[d]);
    }
    if (k < cap) k += (size_t)snprintf(buf + k, cap - k, "])");
  }
  if (k < cap) snprintf(buf + k, cap - k, "]");
}

/* The argument checks Python makes (or the ops would fail on later). */
static int check_args(bld_call *c, const batch_spec *b, const TF_Output *tensors, int n) {
  if (b->shuffle && b->capacity <= b->min_after_dequeue)
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "capacity %d must be bigger than min_after_dequeue %d.",
                          b->capacity, b->min_after_dequeue);
  if (n < 1 || !tensors)
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "Expected at least one tensor in batch().");
  if (b->shuffle && b->min_after_dequeue < 0)
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "min_after_dequeue must be >= 0 not %d.",
                          b->min_after_dequeue);
  if (b->capacity < 1)
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "capacity must be > 0 not %d.", b->capacity);
  if (b->batch_size < 1)
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "batch_size must be > 0 not %d.", b->batch_size);
  if (b->num_threads < 1)
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "num_threads must be > 0 not %d.", b->num_threads);
  for (int i = 0; i < n; i++) {
    char what[32];
    snprintf(what, sizeof what, "tensors[%d]", i);
    TFC_TRY(bld_check_output(c, tensors[i], what));
  }
  return TFC_OK;
}

/* _shapes then _as_shape_list: every rank known, then every shape fully defined. With
 * enqueue_many the element shapes are the inputs' without their first dimension (Python's
 * with_rank_at_least(1)[1:]). */
static int check_shapes(bld_call *c, const tfc_endpoint *ins, int n, int enqueue_many, int dynamic_pad,
                        tfc_shape *shapes, int *dtypes) {
  for (int i = 0; i < n; i++) {
    if (bld_shape(ins[i])->rank < 0) {
      char repr[512];
      tensor_str(ins[i], repr, sizeof repr);
      return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "Cannot infer Tensor's rank: %s", repr);
    }
    shapes[i] = *bld_shape(ins[i]);
    dtypes[i] = bld_dtype(ins[i]);
  }
  for (int i = 0; enqueue_many && i < n; i++) {
    if (shapes[i].rank < 1) return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "Shape () must have rank at least 1");
    shapes[i] = tfc_shape_make(shapes[i].dims + 1, shapes[i].rank - 1);
  }
  for (int i = 0; !dynamic_pad && i < n; i++)
    if (!tfc_shape_fully_defined(&shapes[i])) {
      char repr[2048];
      shapes_repr(shapes, n, repr, sizeof repr);
      return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "All shapes must be fully defined: %s", repr);
    }
  return TFC_OK;
}

static tfc_node *make_queue(bld_call *c, const bld_where *in, const batch_spec *b, const tfc_shape *shapes,
                            const int *dtypes, int n) {
  tfc_attr_value types = {0}, shp = {0};
  if (inp_types_attr(c, dtypes, n, &types)) return NULL;
  if (inp_shapes_attr(c, shapes, n, &shp)) {
    tfc_attr_value_fini(&types);
    return NULL;
  }
  bld_where qw = inp_queue_where(in);
  if (!b->shuffle) {
    bld_attr a[3] = {{"component_types", types}, {"shapes", shp}, {"capacity", tfc_attr_int(b->capacity)}};
    if (b->dynamic_pad) return bld_op(c, &qw, "PaddingFIFOQueueV2", "padding_fifo_queue", NULL, 0, a, 3);
    return bld_op(c, &qw, "FIFOQueueV2", "fifo_queue", NULL, 0, a, 3);
  }
  int64_t s1, s2;
  bld_seeds(c, b->seed, &s1, &s2);
  bld_attr a[6] = {{"component_types", types},
                   {"shapes", shp},
                   {"capacity", tfc_attr_int(b->capacity)},
                   {"min_after_dequeue", tfc_attr_int(b->min_after_dequeue)},
                   {"seed", tfc_attr_int(s1)},
                   {"seed2", tfc_attr_int(s2)}};
  return bld_op(c, &qw, "RandomShuffleQueueV2", "random_shuffle_queue", NULL, 0, a, 6);
}

/* queue.enqueue(tensors): QueueEnqueueV2 named after the "<q>_enqueue" scope; with many,
 * queue.enqueue_many(tensors): QueueEnqueueManyV2 in "<q>_EnqueueMany". */
static tfc_node *enqueue(bld_call *c, const bld_where *in, tfc_node *queue, const tfc_endpoint *ins, int n,
                         int many) {
  if (!queue) return NULL;
  char *base = NULL;
  if (asprintf(&base, many ? "%s_EnqueueMany" : "%s_enqueue", inp_queue_name(queue)) < 0) {
    TFC_OOM(c->s);
    return NULL;
  }
  char *scope = bld_unique(c, in->scope, base);
  free(base);
  tfc_endpoint *all = calloc((size_t)n + 1, sizeof *all);
  tfc_node *r = NULL;
  if (!all) {
    TFC_OOM(c->s);
  } else if (scope) {
    all[0] = (tfc_endpoint){queue, 0};
    memcpy(all + 1, ins, (size_t)n * sizeof *all);
    r = inp_op_exact(c, in, many ? "QueueEnqueueManyV2" : "QueueEnqueueV2", scope, all, n + 1, NULL, 0);
  }
  free(all);
  free(scope);
  return r;
}

/* The fill-level summary of the queue. */
static void fill_summary(bld_call *c, const bld_where *in, const batch_spec *b, tfc_node *queue) {
  tfc_endpoint size = inp_queue_size(c, in, queue);
  char name[96];
  double scale;
  if (b->shuffle) {
    tfc_endpoint over = inp_binop(c, in, "Sub", "sub", size, TFC_DT_INT32, b->min_after_dequeue, 0);
    size = inp_binop(c, in, "Maximum", "Maximum", over, TFC_DT_INT32, 0, 1);
    scale = 1.0 / (b->capacity - b->min_after_dequeue);
    snprintf(name, sizeof name, "fraction_over_%d_of_%d_full", b->min_after_dequeue,
             b->capacity - b->min_after_dequeue);
  } else {
    scale = 1.0 / b->capacity;
    snprintf(name, sizeof name, "fraction_of_%d_full", b->capacity);
  }
  tfc_endpoint full = bld_cast(c, in, size, TFC_DT_FLOAT, "Cast");
  full = inp_binop(c, in, "Mul", "mul", full, TFC_DT_FLOAT, scale, 0);
  if (full.node) inp_summary(c, in, name, full);
}

static int build_batch(bld_call *c, const bld_where *w, const batch_spec *b, const TF_Output *tensors, int n,
                       TF_Output *batched) {
  TFC_TRY(check_args(c, b, tensors, n));
  size_t count = (size_t)(n > 0 ? n : 1); /* check_args guarantees n >= 1 */
  tfc_endpoint *ins = calloc(count, sizeof *ins);
  tfc_shape *shapes = calloc(count, sizeof *shapes);
  int *dtypes = calloc(count, sizeof *dtypes);
  char *scope = NULL;
  if (!ins || !shapes || !dtypes) {
    TFC_OOM(c->s);
    goto done;
  }
  for (int i = 0; i < n; i++) ins[i] = tfc_capi_endpoint(tensors[i]);
  if (!(scope = inp_scope(c, w, b->name, b->shuffle ? "shuffle_batch" : "batch"))) goto done;
  bld_where in = inp_at(w, scope);
  /* 1. keep_input, the shapes, the queue and its producers. */
  tfc_tensor *keep = tfc_tensor_new(TFC_DT_BOOL, NULL, 0, c->s);
  if (keep) *(unsigned char *)keep->data = 1;
  bld_const(c, &in, "Const", keep);
  if (check_shapes(c, ins, n, b->enqueue_many, b->dynamic_pad, shapes, dtypes)) goto done;
  tfc_node *queue = make_queue(c, &in, b, shapes, dtypes, n);
  tfc_node *enq = enqueue(c, &in, queue, ins, n, b->enqueue_many);
  inp_queue_runner(c, &in, queue, enq, b->num_threads);
  fill_summary(c, &in, b, queue);
  /* 2. The dequeue named after the scope, with Python's static shapes. */
  tfc_endpoint dq[2] = {{queue, 0}, bld_scalar(c, &in, "n", TFC_DT_INT32, b->batch_size)};
  tfc_attr_value types = {0};
  if (!tfc_status_ok(c->s) || inp_types_attr(c, dtypes, n, &types)) goto done;
  bld_attr a[1] = {{"component_types", types}};
  tfc_node *out = inp_op_exact(c, w, b->smaller_final ? "QueueDequeueUpToV2" : "QueueDequeueManyV2", scope, dq, 2,
                               a, 1);
  if (!out) goto done;
  if (out->n_outputs != n) {
    tfc_status_set(c->s, TFC_INTERNAL, "%s '%s' has %d outputs for %d components", out->op->name, out->name,
                   out->n_outputs, n);
    goto done;
  }
  for (int i = 0; i < n; i++) {
    int64_t dims[TFC_MAX_DIMS];
    int rank = shapes[i].rank + 1;
    if (rank > TFC_MAX_DIMS) {
      tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "a batch of tensors[%d] would have rank %d (at most %d)", i, rank,
                     TFC_MAX_DIMS);
      goto done;
    }
    dims[0] = b->smaller_final ? -1 : b->batch_size;
    memcpy(dims + 1, shapes[i].dims, (size_t)shapes[i].rank * sizeof *dims);
    tfc_shape want = tfc_shape_make(dims, rank), merged;
    if (tfc_shape_merge(&out->output_shapes[i], &want, &merged) == 0) out->output_shapes[i] = merged;
    batched[i] = (TF_Output){tfc_capi_oper(out), i};
  }
done:
  free(scope);
  free(ins);
  free(shapes);
  free(dtypes);
  return c->s->code;
}

static void batch_public(const TFC_Scope *scope, const batch_spec *b, const TF_Output *tensors, int n,
                         TF_Output *batched, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    bld_where w = bld_where_of(scope, NULL);
    if (!batched) tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "batched is NULL");
    else build_batch(&c, &w, b, tensors, n, batched);
    if (bld_end(&c) != TFC_OK && batched)
      for (int i = 0; i < n; i++) batched[i] = (TF_Output){NULL, 0};
  } else if (batched) {
    for (int i = 0; i < n; i++) batched[i] = (TF_Output){NULL, 0};
  }
  tfc_status_fini(&scratch);
}

TFC_EXPORT void TFC_ShuffleBatch(const TFC_Scope *scope, const TF_Output *tensors, int n, int batch_size,
                                int capacity, int min_after_dequeue, int num_threads, int64_t seed, const char *name,
                                TF_Output *batched, TF_Status *status) {
  batch_spec b = {1, batch_size, capacity, min_after_dequeue, num_threads, seed, 0, name, 0, 0};
  batch_public(scope, &b, tensors, n, batched, status);
}

TFC_EXPORT void TFC_Batch(const TFC_Scope *scope, const TF_Output *tensors, int n, int batch_size, int capacity,
                         int num_threads, unsigned char allow_smaller_final_batch, const char *name,
                         TF_Output *batched, TF_Status *status) {
  batch_spec b = {0, batch_size, capacity, 0, num_threads, 0, allow_smaller_final_batch != 0, name, 0, 0};
  batch_public(scope, &b, tensors, n, batched, status);
}

TFC_EXPORT void TFC_BatchWithOptions(const TFC_Scope *scope, const TF_Output *tensors, int n,
                                    const TFC_BatchOptions *options, TF_Output *batched, TF_Status *status) {
  if (!options) {
    if (status) TF_SetStatus(status, TF_INVALID_ARGUMENT, "TFC_BatchWithOptions: options is NULL");
    for (int i = 0; batched && i < n; i++) batched[i] = (TF_Output){NULL, 0};
    return;
  }
  batch_spec b = {options->shuffle != 0, options->batch_size, options->capacity, options->min_after_dequeue,
                  options->num_threads, options->seed, options->allow_smaller_final_batch != 0, options->name,
                  options->enqueue_many != 0, options->dynamic_pad != 0 && !options->shuffle};
  batch_public(scope, &b, tensors, n, batched, status);
}
