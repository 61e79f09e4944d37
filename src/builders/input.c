/*
 * builders/input — the reading half of TF 1.15's queue-based input pipelines
 * (include/tfc/input.h): tf.train.string_input_producer, input_producer,
 * range_input_producer and limit_epochs, tf.TFRecordReader().read,
 * tf.parse_single_example for FixedLenFeature and tf.decode_raw. Batching is input_batch.c;
 * the shared patterns are input_common.c.
 *
 * string_input_producer, node by node as Python makes them (scope "input_producer"):
 *   Const (the file names), Size (a Const: the count is static), Greater/y, Greater,
 *   Assert/Const, Assert/Assert/data_0, Assert/Assert, Identity (waits for the Assert),
 *   [RandomShuffle], [limit_epochs/Const, limit_epochs/epochs{,/Assign,/read},
 *   limit_epochs/CountUpTo, limit_epochs (Identity waiting for the count)],
 *   the FIFOQueueV2 named after the scope, <q>_EnqueueMany, <q>_Close, <q>_Close_1, <q>_Size,
 *   Cast, mul/y, mul, fraction_of_<capacity>_full/tags, fraction_of_<capacity>_full.
 * The order matters: TF 1.15 seeds RandomShuffle with the number of nodes made before it.
 * input_producer (of any tensor) and range_input_producer ("range/{start,limit,delta}", Range
 * "range") share everything from RandomShuffle on (producer_tail).
 *
 * parse_single_example follows TF 1.15's parse_single_example_v2: features sorted by key (a
 * Python dict's sorted keys), default inputs in that order inside "ParseSingleExample", then
 * the ParseSingleExample op, whose dense outputs are handed back in the caller's order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "builders/input_internal.h"
#include "tensor/dtype.h"
#include "tfc/input.h"

/* The message of string_input_producer's emptiness check (Python's not_null_err). */
#define NOT_NULL_ERR "string_input_producer requires a non-null input tensor"

/* ---------------- string_input_producer ---------------- */

/* limit_epochs(x, num_epochs) under w: the local "epochs" counter and the Identity named
 * after the scope that waits for its CountUpTo. */
static tfc_endpoint limit_epochs(bld_call *c, const bld_where *w, tfc_endpoint x, int64_t num_epochs) {
  tfc_endpoint none = {NULL, 0};
  char *scope = bld_unique(c, w->scope, "limit_epochs");
  if (!scope) return none;
  bld_where in = inp_at(w, scope);
  tfc_endpoint zero = bld_scalar(c, &in, "Const", TFC_DT_INT64, 0);
  TFC_Variable epochs = {NULL, NULL, {NULL, 0}};
  tfc_endpoint r = none;
  if (!bld_local_variable(c, &in, "epochs", zero, &epochs)) {
    bld_where cw = in;
    cw.coloc = tfc_capi_node(epochs.variable); /* a ref input: Python colocates the op with it */
    tfc_endpoint ref = {cw.coloc, 0};
    bld_attr a[1] = {{"limit", tfc_attr_int(num_epochs)}};
    tfc_node *count = bld_op(c, &cw, "CountUpTo", NULL, &ref, 1, a, 1);
    bld_where iw = in;
    iw.ctrl = &count;
    iw.n_ctrl = 1;
    if (count) r.node = inp_op_exact(c, &iw, "Identity", scope, &x, 1, NULL, 0);
  }
  free(scope);
  return r;
}

/* The Assert that the file name list is not empty, and the Identity waiting for it. */
static tfc_endpoint assert_not_empty(bld_call *c, const bld_where *w, tfc_endpoint files, int n) {
  tfc_endpoint none = {NULL, 0};
  tfc_endpoint size = bld_scalar(c, w, "Size", TFC_DT_INT32, n);
  tfc_endpoint cond = inp_binop(c, w, "Greater", "Greater", size, TFC_DT_INT32, 0, 0);
  char *as = bld_unique(c, w->scope, "Assert");
  if (!as) return none;
  bld_where aw = inp_at(w, as);
  static const char *const msg[1] = {NOT_NULL_ERR};
  inp_strings(c, &aw, "Const", msg, 1, 1); /* convert_n_to_tensor's unused copy, as in Python */
  char *op_scope = bld_unique(c, as, "Assert");
  tfc_endpoint r = none;
  if (op_scope) {
    bld_where dw = inp_at(w, op_scope);
    tfc_endpoint ins[2] = {cond, inp_strings(c, &dw, "data_0", msg, 1, 1)};
    tfc_node *check = inp_op_exact(c, w, "Assert", op_scope, ins, 2, NULL, 0);
    bld_where iw = *w;
    iw.ctrl = &check;
    iw.n_ctrl = 1;
    if (check) r = bld_op0(c, &iw, "Identity", "Identity", &files, 1, NULL, 0);
  }
  free(op_scope);
  free(as);
  return r;
}

/* input_producer's tail inside its scope `scope` (taken; w is its where): [RandomShuffle],
 * [limit_epochs], the FIFOQueueV2 named after the scope holding elements of dtype/shape `elem`,
 * <q>_EnqueueMany of x, the queue runner and, with a summary name, the fill-level summary
 * (Cast, mul/y, mul, <summary>). Returns the queue. */
static tfc_endpoint producer_tail(bld_call *c, const bld_where *in, const char *scope, const char *queue_name,
                                  tfc_endpoint x, int dt, const tfc_shape *elem, int64_t num_epochs, int shuffle,
                                  int64_t seed, int capacity, const char *summary) {
  tfc_endpoint none = {NULL, 0};
  if (shuffle && tfc_status_ok(c->s)) {
    int64_t s1, s2;
    bld_seeds(c, seed, &s1, &s2);
    bld_attr a[2] = {{"seed", tfc_attr_int(s1)}, {"seed2", tfc_attr_int(s2)}};
    x = bld_op0(c, in, "RandomShuffle", NULL, &x, 1, a, 2);
  }
  if (num_epochs > 0 && tfc_status_ok(c->s)) x = limit_epochs(c, in, x, num_epochs);
  tfc_node *queue = NULL;
  tfc_attr_value types = {0}, shapes = {0};
  if (tfc_status_ok(c->s) && !inp_types_attr(c, &dt, 1, &types) && !inp_shapes_attr(c, elem, 1, &shapes)) {
    bld_where qw = inp_queue_where(in);
    bld_attr a[3] = {{"component_types", types}, {"shapes", shapes}, {"capacity", tfc_attr_int(capacity)}};
    queue = inp_op_exact(c, &qw, "FIFOQueueV2", queue_name, NULL, 0, a, 3);
  }
  char *enq_name = NULL;
  if (queue && asprintf(&enq_name, "%s_EnqueueMany", inp_queue_name(queue)) < 0) {
    enq_name = NULL;
    TFC_OOM(c->s);
  }
  char *enq_scope = enq_name ? bld_unique(c, scope, enq_name) : NULL;
  tfc_node *enqueue = NULL;
  if (enq_scope) {
    tfc_endpoint ins[2] = {{queue, 0}, x};
    enqueue = inp_op_exact(c, in, "QueueEnqueueManyV2", enq_scope, ins, 2, NULL, 0);
  }
  inp_queue_runner(c, in, queue, enqueue, 1);
  if (summary && tfc_status_ok(c->s)) {
    tfc_endpoint full = bld_cast(c, in, inp_queue_size(c, in, queue), TFC_DT_FLOAT, "Cast");
    full = inp_binop(c, in, "Mul", "mul", full, TFC_DT_FLOAT, 1.0 / capacity, 0);
    if (full.node) inp_summary(c, in, summary, full);
  }
  free(enq_scope);
  free(enq_name);
  if (!tfc_status_ok(c->s)) return none;
  return (tfc_endpoint){queue, 0};
}

/* The argument checks every producer shares. */
static int check_producer_args(bld_call *c, int64_t num_epochs, int capacity, const char *what) {
  if (num_epochs < 0)
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "num_epochs must be > 0 not %lld.", (long long)num_epochs);
  if (capacity < 1) return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "%s: capacity must be > 0 not %d.", what, capacity);
  return TFC_OK;
}

static tfc_endpoint input_producer(bld_call *c, const bld_where *w, const char *const *filenames, int n,
                                   int64_t num_epochs, int shuffle, int64_t seed, int capacity, const char *name) {
  tfc_endpoint none = {NULL, 0};
  if (n < 1 || !filenames) {
    tfc_status_set(c->s, TFC_INVALID_ARGUMENT, NOT_NULL_ERR);
    return none;
  }
  for (int i = 0; i < n; i++)
    if (!filenames[i]) {
      tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "string_input_producer: filenames[%d] is NULL", i);
      return none;
    }
  if (check_producer_args(c, num_epochs, capacity, "string_input_producer")) return none;
  char *scope = inp_scope(c, w, name, "input_producer");
  if (!scope) return none;
  bld_where in = inp_at(w, scope);
  /* 1. The names, checked non-empty; 2. input_producer's tail. */
  tfc_endpoint x = assert_not_empty(c, &in, inp_strings(c, &in, "Const", filenames, n, 0), n);
  tfc_shape scalar = tfc_shape_scalar();
  char summary[64];
  snprintf(summary, sizeof summary, "fraction_of_%d_full", capacity);
  tfc_endpoint q = producer_tail(c, &in, scope, scope, x, TFC_DT_STRING, &scalar, num_epochs, shuffle, seed,
                                 capacity, summary);
  free(scope);
  return q;
}

TFC_EXPORT TF_Output TFC_StringInputProducer(const TFC_Scope *scope, const char *const *filenames, int n,
                                            int64_t num_epochs, unsigned char shuffle, int64_t seed, int capacity,
                                            const char *name, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Output o = {NULL, 0};
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    bld_where w = bld_where_of(scope, NULL);
    o = bld_end_output(&c, input_producer(&c, &w, filenames, n, num_epochs, shuffle != 0, seed, capacity, name));
  }
  tfc_status_fini(&scratch);
  return o;
}

/* input_producer of a tensor x under the scope `name` (default "input_producer"): the element
 * shape is x's shape without its first dimension merged with the given one (rank -1: none). */
static tfc_endpoint tensor_producer(bld_call *c, const bld_where *w, tfc_endpoint x, const int64_t *dims, int nd,
                                    int64_t num_epochs, int shuffle, int64_t seed, int capacity,
                                    const char *summary, const char *name) {
  tfc_endpoint none = {NULL, 0};
  if (check_producer_args(c, num_epochs, capacity, "input_producer")) return none;
  const tfc_shape *xs = bld_shape(x);
  tfc_shape elem = tfc_shape_unknown();
  if (xs->rank == 0) {
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "Shape must be at least rank 1 but is rank 0"), none;
  }
  if (xs->rank > 0) {
    elem.rank = xs->rank - 1;
    for (int i = 1; i < xs->rank; i++) elem.dims[i - 1] = xs->dims[i];
  }
  if (nd >= 0) {
    if (elem.rank >= 0 && elem.rank != nd)
      return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "Shapes must be equal rank, but are %d and %d", elem.rank, nd),
             none;
    if (nd > TFC_MAX_DIMS) return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "element_shape has too many dims"), none;
    for (int i = 0; i < nd; i++) {
      if (elem.rank >= 0 && elem.dims[i] >= 0 && dims[i] >= 0 && elem.dims[i] != dims[i])
        return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "Dimension %d in both shapes must be equal, but are %lld and %lld",
                              i, (long long)elem.dims[i], (long long)dims[i]),
               none;
    }
    if (elem.rank < 0) {
      elem.rank = nd;
      for (int i = 0; i < nd; i++) elem.dims[i] = -1;
    }
    for (int i = 0; i < nd; i++)
      if (elem.dims[i] < 0) elem.dims[i] = dims[i];
  }
  if (!tfc_shape_fully_defined(&elem))
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT,
                          "Either `input_tensor` must have a fully defined shape or `element_shape` must be specified"),
           none;
  char *scope = inp_scope(c, w, name, "input_producer");
  if (!scope) return none;
  bld_where in = inp_at(w, scope);
  /* Python's FIFOQueue(name=name) inside the scope: a re-entered scope ("x/") names the queue
   * exactly, a plain name gives "x/x", none the op type "x/FIFOQueueV2". */
  size_t len = name ? strlen(name) : 0;
  char *queue_name = len && name[len - 1] == '/' ? tfc_strdup(scope) : bld_unique(c, scope, len ? name : "FIFOQueueV2");
  tfc_endpoint q = none;
  if (!queue_name) TFC_OOM(c->s);
  else
    q = producer_tail(c, &in, scope, queue_name, x, bld_dtype(x), &elem, num_epochs, shuffle, seed, capacity, summary);
  free(queue_name);
  free(scope);
  return q;
}

TFC_EXPORT TF_Output TFC_InputProducer(const TFC_Scope *scope, TF_Output input, const int64_t *element_dims,
                                      int element_num_dims, int64_t num_epochs, unsigned char shuffle, int64_t seed,
                                      int capacity, const char *summary_name, const char *name, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Output o = {NULL, 0};
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    bld_where w = bld_where_of(scope, NULL);
    tfc_endpoint q = {NULL, 0};
    if (!bld_check_output(&c, input, "input_tensor"))
      q = tensor_producer(&c, &w, tfc_capi_endpoint(input), element_dims, element_num_dims, num_epochs, shuffle != 0,
                          seed, capacity, summary_name, name);
    o = bld_end_output(&c, q);
  }
  tfc_status_fini(&scratch);
  return o;
}

TFC_EXPORT TF_Output TFC_RangeInputProducer(const TFC_Scope *scope, TF_Output limit, int64_t limit_value,
                                           int64_t num_epochs, unsigned char shuffle, int64_t seed, int capacity,
                                           const char *name, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Output o = {NULL, 0};
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    bld_where w = bld_where_of(scope, NULL);
    tfc_endpoint q = {NULL, 0};
    char *sc = NULL;
    if ((!limit.oper || !bld_check_output(&c, limit, "limit")) &&
        !check_producer_args(&c, num_epochs, capacity, "range_input_producer") &&
        (sc = inp_scope(&c, &w, name, "input_producer")) != NULL) {
      /* math_ops.range(limit) under the producer's scope, then input_producer re-entering it. */
      bld_where in = inp_at(&w, sc);
      char *rs = bld_unique(&c, sc, "range");
      if (rs) {
        bld_where rw = inp_at(&w, rs);
        tfc_endpoint start = bld_scalar(&c, &rw, "start", TFC_DT_INT32, 0);
        tfc_endpoint lim = limit.oper ? tfc_capi_endpoint(limit) : bld_scalar(&c, &rw, "limit", TFC_DT_INT32,
                                                                            (double)limit_value);
        tfc_endpoint delta = bld_scalar(&c, &rw, "delta", TFC_DT_INT32, 1);
        tfc_endpoint ins[3] = {start, lim, delta};
        tfc_endpoint range = {inp_op_exact(&c, &in, "Range", rs, ins, 3, NULL, 0), 0};
        char summary[64];
        snprintf(summary, sizeof summary, "fraction_of_%d_full", capacity);
        tfc_shape scalar = tfc_shape_scalar();
        if (range.node)
          q = producer_tail(&c, &in, sc, sc, range, TFC_DT_INT32, &scalar, num_epochs, shuffle != 0, seed,
                            capacity, summary);
      }
      free(rs);
    }
    free(sc);
    o = bld_end_output(&c, q);
  }
  tfc_status_fini(&scratch);
  return o;
}

TFC_EXPORT TF_Output TFC_LimitEpochs(const TFC_Scope *scope, TF_Output tensor, int64_t num_epochs, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Output o = {NULL, 0};
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    bld_where w = bld_where_of(scope, NULL);
    tfc_endpoint r = {NULL, 0};
    if (num_epochs <= 0)
      tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "num_epochs must be > 0 not %lld.", (long long)num_epochs);
    else if (!bld_check_output(&c, tensor, "tensor"))
      r = limit_epochs(&c, &w, tfc_capi_endpoint(tensor), num_epochs);
    o = bld_end_output(&c, r);
  }
  tfc_status_fini(&scratch);
  return o;
}

/* ---------------- TFRecordReader ---------------- */

TFC_EXPORT void TFC_TFRecordReaderRead(const TFC_Scope *scope, TF_Output queue, const char *compression_type,
                                      const char *name, TF_Output *key, TF_Output *value, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  tfc_node *read = NULL;
  if (key) *key = (TF_Output){NULL, 0};
  if (value) *value = (TF_Output){NULL, 0};
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    const char *ct = compression_type ? compression_type : "";
    if (!bld_check_output(&c, queue, "queue")) {
      tfc_endpoint q = tfc_capi_endpoint(queue);
      if (bld_dtype(q) != TFC_DT_RESOURCE)
        tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "queue '%s:%d' is a %s tensor, not a queue handle (resource)",
                       q.node->name, q.index, tfc_dtype_name(bld_dtype(q)));
      else if (strcmp(ct, "") && strcmp(ct, "ZLIB") && strcmp(ct, "GZIP"))
        tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "Unsupported compression_type: '%s' (expected '', 'ZLIB' or 'GZIP')",
                       ct);
      bld_where w = bld_where_of(scope, NULL);
      bld_attr a[1] = {{"compression_type", {0}}};
      tfc_node *reader = NULL;
      if (tfc_status_ok(c.s) && !tfc_attr_string(ct, strlen(ct), &a[0].v, c.s))
        reader = bld_op(&c, &w, "TFRecordReaderV2", name ? name : "TFRecordReaderV2", NULL, 0, a, 1);
      tfc_endpoint ins[2] = {{reader, 0}, q};
      if (reader) read = bld_op(&c, &w, "ReaderReadV2", NULL, ins, 2, NULL, 0);
    }
    if (bld_end(&c) == TFC_OK) {
      if (key) *key = (TF_Output){tfc_capi_oper(read), 0};
      if (value) *value = (TF_Output){tfc_capi_oper(read), 1};
    }
  }
  tfc_status_fini(&scratch);
}

/* ---------------- parse_single_example ---------------- */

static int feature_cmp(const void *a, const void *b) {
  const TFC_FixedLenFeature *const *x = a, *const *y = b;
  return strcmp((*x)->key, (*y)->key);
}

/* "[None, 3]" as Python prints a shape list (negative dims: None). */
static void dims_str(const int64_t *dims, int nd, char *buf, size_t n) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < nd && k < n; i++) {
    if (dims[i] < 0) k += (size_t)snprintf(buf + k, n - k, "%sNone", i ? ", " : "");
    else k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "", (long long)dims[i]);
  }
  if (k < n) snprintf(buf + k, n - k, "]");
}

/* The checks Python's FixedLenFeature handling makes before building anything. */
static int check_features(bld_call *c, const TFC_FixedLenFeature *f, int n) {
  if (n < 1 || !f) return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "Missing features.");
  for (int i = 0; i < n; i++) {
    if (!f[i].key) return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "features[%d] has no key", i);
    for (int j = 0; j < i; j++)
      if (!strcmp(f[i].key, f[j].key))
        return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "feature '%s' is given twice (features %d and %d)",
                              f[i].key, j, i);
    int dt = (int)f[i].dtype;
    if (dt != TFC_DT_FLOAT && dt != TFC_DT_INT64 && dt != TFC_DT_STRING)
      return tfc_status_set(c->s, TFC_INVALID_ARGUMENT,
                            "feature '%s': dtype %s is not supported (float32, int64 or string)", f[i].key,
                            tfc_dtype_name(dt));
    if (f[i].num_dims < 0 || f[i].num_dims > TFC_MAX_DIMS || (f[i].num_dims > 0 && !f[i].dims))
      return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "feature '%s': shape must have rank 0..%d (got %d)",
                            f[i].key, TFC_MAX_DIMS, f[i].num_dims);
    for (int d = 0; d < f[i].num_dims; d++)
      if (f[i].dims[d] < 0) {
        char shape[256];
        dims_str(f[i].dims, f[i].num_dims, shape, sizeof shape);
        return tfc_status_set(c->s, TFC_INVALID_ARGUMENT,
                              "All dimensions of shape for feature %s need to be known but received %s.", f[i].key,
                              shape);
      }
    if (f[i].default_value && TF_TensorType(f[i].default_value) != f[i].dtype)
      return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "feature '%s': default_value is %s, the feature is %s",
                            f[i].key, tfc_dtype_name((int)TF_TensorType(f[i].default_value)),
                            tfc_dtype_name((int)f[i].dtype));
  }
  return TFC_OK;
}

/* Python's re.sub("[^A-Za-z0-9_.\\-/]", "_", key) for node names made from keys. */
static char *sanitize(const char *prefix, const char *key) {
  char *r = NULL;
  if (asprintf(&r, "%s%s", prefix, key) < 0) return NULL;
  for (char *p = r + strlen(prefix); *p; p++) {
    char ch = *p;
    int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
             ch == '.' || ch == '-' || ch == '/';
    if (!ok) *p = '_';
  }
  return r;
}

/* The int32 shape Const array_ops.reshape converts dims to (int64 when a dim needs it). */
static tfc_endpoint shape_const(bld_call *c, const bld_where *w, const char *name, const int64_t *dims, int nd) {
  int wide = 0;
  for (int i = 0; i < nd; i++) wide |= dims[i] > 2147483647LL;
  int64_t n = nd;
  tfc_tensor *t = tfc_tensor_new(wide ? TFC_DT_INT64 : TFC_DT_INT32, &n, 1, c->s);
  if (!t) return (tfc_endpoint){NULL, 0};
  for (int i = 0; i < nd; i++) {
    if (wide) ((int64_t *)t->data)[i] = dims[i];
    else ((int32_t *)t->data)[i] = (int32_t)dims[i];
  }
  return bld_const(c, w, name, t);
}

/* One dense default input: an empty Const (required), or "key_<key>" reshaped to the dims. */
static tfc_endpoint dense_default(bld_call *c, const bld_where *w, const TFC_FixedLenFeature *f) {
  tfc_endpoint none = {NULL, 0};
  if (!tfc_status_ok(c->s)) return none;
  if (!f->default_value) {
    int64_t zero = 0;
    return bld_const(c, w, "Const", tfc_tensor_new((int)f->dtype, &zero, 1, c->s));
  }
  char *name = sanitize("key_", f->key);
  if (!name) {
    TFC_OOM(c->s);
    return none;
  }
  /* A copy, as TF_SetAttrTensor makes: the caller may reuse its tensor's buffer. */
  tfc_tensor *t = tfc_capi_tensor_in(f->default_value, c->s);
  if (t && t->dtype != TFC_DT_STRING) {
    tfc_tensor *copy = tfc_tensor_copy(t, c->s);
    tfc_tensor_unref(t);
    t = copy;
  }
  tfc_endpoint v = t ? bld_const(c, w, name, t) : none;
  free(name);
  char *scope = bld_unique(c, w->scope, "Reshape");
  if (!scope) return none;
  bld_where in = inp_at(w, scope);
  tfc_endpoint ins[2] = {v, shape_const(c, &in, "shape", f->dims, f->num_dims)};
  tfc_endpoint r = {inp_op_exact(c, w, "Reshape", scope, ins, 2, NULL, 0), 0};
  free(scope);
  return r;
}

static int parse_single(bld_call *c, const bld_where *w, TF_Output serialized, const TFC_FixedLenFeature *f, int n,
                        TF_Output *values) {
  TFC_TRY(check_features(c, f, n));
  TFC_TRY(bld_check_output(c, serialized, "serialized"));
  tfc_endpoint ser = tfc_capi_endpoint(serialized);
  if (bld_dtype(ser) != TFC_DT_STRING)
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "serialized '%s:%d' is %s, expected string", ser.node->name,
                          ser.index, tfc_dtype_name(bld_dtype(ser)));
  if (bld_shape(ser)->rank > 0) return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "Input serialized must be a scalar");
  /* 1. Sorted keys, as _features_to_raw_params iterates the dict. */
  size_t count = (size_t)(n > 0 ? n : 1); /* check_features guarantees n >= 1 */
  const TFC_FixedLenFeature **sorted = calloc(count, sizeof *sorted);
  tfc_endpoint *ins = calloc(count + 1, sizeof *ins);
  tfc_shape *shapes = calloc(count, sizeof *shapes);
  char *scope = NULL;
  tfc_node *op = NULL;
  if (!sorted || !ins || !shapes) {
    TFC_OOM(c->s);
    goto done;
  }
  for (int i = 0; i < n; i++) sorted[i] = &f[i];
  qsort(sorted, (size_t)n, sizeof *sorted, feature_cmp);
  /* 2. The defaults inside the name scope, then the op. */
  if (!(scope = inp_scope(c, w, NULL, "ParseSingleExample"))) goto done;
  bld_where in = inp_at(w, scope);
  ins[0] = ser;
  for (int i = 0; i < n; i++) {
    ins[1 + i] = dense_default(c, &in, sorted[i]);
    shapes[i] = tfc_shape_make(sorted[i]->dims, sorted[i]->num_dims);
  }
  if (!tfc_status_ok(c->s)) goto done;
  bld_attr a[5] = {{"num_sparse", tfc_attr_int(0)},
                   {"sparse_keys", tfc_attr_list(TFC_ATTR_STRING)},
                   {"dense_keys", tfc_attr_list(TFC_ATTR_STRING)},
                   {"sparse_types", tfc_attr_list(TFC_ATTR_TYPE)},
                   {"dense_shapes", {0}}};
  for (int i = 0; i < n && tfc_status_ok(c->s); i++) {
    tfc_attr_value k = {0};
    if (!tfc_attr_string(sorted[i]->key, strlen(sorted[i]->key), &k, c->s)) tfc_attr_list_append(&a[2].v, &k, c->s);
  }
  if (tfc_status_ok(c->s)) inp_shapes_attr(c, shapes, n, &a[4].v);
  op = bld_op(c, &in, "ParseSingleExample", NULL, ins, n + 1, a, 5);
  /* 3. Outputs (no sparse ones: the dense values are outputs 0..n-1) in the caller's order. */
  if (op)
    for (int i = 0; i < n; i++) {
      int k = 0;
      while (sorted[k] != &f[i]) k++;
      values[i] = (TF_Output){tfc_capi_oper(op), k};
    }
done:
  free(scope);
  free(sorted);
  free(ins);
  free(shapes);
  return c->s->code;
}

TFC_EXPORT void TFC_ParseSingleExample(const TFC_Scope *scope, TF_Output serialized,
                                      const TFC_FixedLenFeature *features, int n, TF_Output *values,
                                      TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    bld_where w = bld_where_of(scope, NULL);
    if (!values) tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "values is NULL");
    else parse_single(&c, &w, serialized, features, n, values);
    if (bld_end(&c) != TFC_OK && values)
      for (int i = 0; i < n; i++) values[i] = (TF_Output){NULL, 0};
  } else if (values) {
    for (int i = 0; i < n; i++) values[i] = (TF_Output){NULL, 0};
  }
  tfc_status_fini(&scratch);
}

/* ---------------- decode_raw ---------------- */

TFC_EXPORT TF_Output TFC_DecodeRaw(const TFC_Scope *scope, TF_Output bytes, TF_DataType out_type,
                                  unsigned char little_endian, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Output o = {NULL, 0};
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    tfc_endpoint r = {NULL, 0};
    if (!bld_check_output(&c, bytes, "bytes")) {
      bld_where w = bld_where_of(scope, NULL);
      tfc_endpoint in = tfc_capi_endpoint(bytes);
      bld_attr a[2] = {{"out_type", tfc_attr_type((int)out_type)}, {"little_endian", tfc_attr_bool(little_endian != 0)}};
      r = bld_op0(&c, &w, "DecodeRaw", NULL, &in, 1, a, 2);
    }
    o = bld_end_output(&c, r);
  }
  tfc_status_fini(&scratch);
  return o;
}
