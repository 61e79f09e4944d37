/* gpu_compare — see gpu_compare.h. Included (not linked): #include "gpu_compare.c". */
#include "gpu_compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "device/gpu/gpu_platform.h"
#include "harness.h"
#include "tfc/tfc.h"

int gc_self_test(void) {
  const char *e = getenv("TFC_GC_SELF_TEST");
  return e && strcmp(e, "1") == 0;
}

const char *gc_gpu_dev(void) { return gc_self_test() ? GC_CPU : GC_GPU; }

const char *gc_gpu_missing(void) {
  if (gc_self_test()) return NULL;
  const tfc_gpu_platform *cuda = tfc_gpu_platform_cuda();
  if (!cuda) return "this build has no CUDA (nvcc was not found): the CUDA kernels are not built";
  if (tfc_gpu_platform_get() != cuda) return "the GPU platform in use is not CUDA";
  if (cuda->device_count() == 0) return "no CUDA GPU on this machine";
  return NULL;
}

void gc_need_gpu(void) {
  const char *why;
  if ((why = gc_gpu_missing())) tfc_test_skip(why);
}

/* ---- data ---- */

static uint64_t gc_rng = 88172645463325252ull;
static double gc_uniform(void) {
  gc_rng ^= gc_rng << 13;
  gc_rng ^= gc_rng >> 7;
  gc_rng ^= gc_rng << 17;
  return (double)(gc_rng >> 11) / 9007199254740992.0;
}

TF_Tensor *gc_rand(TF_DataType dt, int nd, const int64_t *dims, double lo, double hi) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  TF_Tensor *t = TF_AllocateTensor(dt, dims, nd, (size_t)n * TF_DataTypeSize(dt));
  for (int64_t i = 0; i < n; i++) {
    double v = lo + (hi - lo) * gc_uniform();
    switch (dt) {
      case TF_FLOAT: ((float *)TF_TensorData(t))[i] = (float)v; break;
      case TF_DOUBLE: ((double *)TF_TensorData(t))[i] = v; break;
      case TF_INT64: ((int64_t *)TF_TensorData(t))[i] = (int64_t)floor(v); break;
      case TF_INT32: ((int32_t *)TF_TensorData(t))[i] = (int32_t)floor(v); break;
      case TF_UINT8: ((uint8_t *)TF_TensorData(t))[i] = (uint8_t)floor(v); break;
      case TF_BOOL: ((unsigned char *)TF_TensorData(t))[i] = v >= 0.5; break;
      case TF_COMPLEX64: /* real and imaginary parts uniform */
        ((float *)TF_TensorData(t))[2 * i] = (float)v;
        ((float *)TF_TensorData(t))[2 * i + 1] = (float)(lo + (hi - lo) * gc_uniform());
        break;
      case TF_COMPLEX128:
        ((double *)TF_TensorData(t))[2 * i] = v;
        ((double *)TF_TensorData(t))[2 * i + 1] = lo + (hi - lo) * gc_uniform();
        break;
      default: tfc_test_fail(__FILE__, __LINE__, "gc_rand: no generator for dtype %d", (int)dt);
    }
  }
  return t;
}

static TF_Tensor *gc_vector(TF_DataType dt, const void *v, int n, size_t elem) {
  int64_t dim = n;
  size_t count = (size_t)(n < 0 ? 1 : n);
  TF_Tensor *t = TF_AllocateTensor(dt, &dim, n < 0 ? 0 : 1, elem * count);
  if (count) memcpy(TF_TensorData(t), v, elem * count);
  return t;
}

TF_Tensor *gc_ints(const int32_t *v, int n) { return gc_vector(TF_INT32, v, n, sizeof(int32_t)); }
TF_Tensor *gc_int64s(const int64_t *v, int n) { return gc_vector(TF_INT64, v, n, sizeof(int64_t)); }

gc_arg gc_fed(TF_DataType dt, int nd, const int64_t *dims, double lo, double hi) {
  return GC_FED(gc_rand(dt, nd, dims, lo, hi));
}
gc_arg gc_konst(const int32_t *v, int n) { return GC_CONST(gc_ints(v, n)); }

/* Value i of t; a complex tensor is read as its 2n parts (real, imaginary, real, ...). */
static double gc_value_at(const TF_Tensor *t, int64_t i) {
  const void *p = TF_TensorData(t);
  switch (TF_TensorType(t)) {
    case TF_COMPLEX64: return ((const float *)p)[i];
    case TF_COMPLEX128: return ((const double *)p)[i];
    case TF_FLOAT: return ((const float *)p)[i];
    case TF_DOUBLE: return ((const double *)p)[i];
    case TF_INT64: return (double)((const int64_t *)p)[i];
    case TF_INT32: return ((const int32_t *)p)[i];
    case TF_UINT8: return ((const uint8_t *)p)[i];
    case TF_BOOL: return ((const unsigned char *)p)[i];
    case TF_HALF: return tfc_half_to_float(((const uint16_t *)p)[i]);
    default: tfc_test_fail(__FILE__, __LINE__, "gc_compare: cannot compare dtype %d", (int)TF_TensorType(t));
  }
}

void gc_compare(const char *what, const TF_Tensor *gpu, const TF_Tensor *cpu, double tol) {
  if (TF_TensorType(gpu) != TF_TensorType(cpu))
    tfc_test_fail(__FILE__, __LINE__, "%s: dtype %d on GPU, %d on CPU", what, (int)TF_TensorType(gpu),
                  (int)TF_TensorType(cpu));
  if (TF_NumDims(gpu) != TF_NumDims(cpu))
    tfc_test_fail(__FILE__, __LINE__, "%s: rank %d on GPU, %d on CPU", what, TF_NumDims(gpu), TF_NumDims(cpu));
  for (int d = 0; d < TF_NumDims(cpu); d++)
    if (TF_Dim(gpu, d) != TF_Dim(cpu, d))
      tfc_test_fail(__FILE__, __LINE__, "%s: dim %d is %lld on GPU, %lld on CPU", what, d, (long long)TF_Dim(gpu, d),
                    (long long)TF_Dim(cpu, d));
  int64_t n = TF_TensorElementCount(cpu);
  if (TF_TensorType(cpu) == TF_COMPLEX64 || TF_TensorType(cpu) == TF_COMPLEX128) n *= 2; /* parts */
  for (int64_t i = 0; i < n; i++) {
    double g = gc_value_at(gpu, i), c = gc_value_at(cpu, i);
    if (isnan(c) && isnan(g)) continue;
    if (isinf(c) && g == c) continue;
    double scale = fabs(c) > 1 ? fabs(c) : 1;
    if (!(fabs(g - c) <= tol * scale))
      tfc_test_fail(__FILE__, __LINE__, "%s: element %lld of %lld is %.17g on GPU, %.17g on CPU", what, (long long)i,
                    (long long)n, g, c);
  }
}

void gc_free_args(gc_arg *args, int n) {
  for (int i = 0; i < n; i++) {
    if (args[i].t) TF_DeleteTensor(args[i].t);
    args[i].t = NULL;
  }
}

/* ---- graphs ---- */

/* Finishes d; a failure is the test's unless `soft` (then NULL with s set). */
static TF_Operation *gc_finish(TF_OperationDescription *d, TF_Status *s, int soft, const char *label) {
  TF_Operation *op = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK && !soft) tfc_test_fail(__FILE__, __LINE__, "%s: building: %s", label, TF_Message(s));
  return op;
}

static TF_Output gc_unary(TF_Graph *g, const char *type, const char *name, TF_Output x, const char *attr,
                          TF_DataType dt, TF_Status *s, const char *label) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_SetDevice(d, GC_CPU);
  if (x.oper) TF_AddInput(d, x);
  TF_SetAttrType(d, attr, dt);
  return (TF_Output){gc_finish(d, s, 0, label), 0};
}

static TF_Output gc_const(TF_Graph *g, const char *name, TF_Tensor *t, TF_Status *s, const char *label) {
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetDevice(d, GC_CPU);
  TF_SetAttrType(d, "dtype", TF_TensorType(t));
  TF_SetAttrTensor(d, "value", t, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  return (TF_Output){gc_finish(d, s, 0, label), 0};
}

static TF_Operation *gc_add_op(TF_Graph *g, const gc_op *o, const char *name, const char *dev, const TF_Output *in,
                               int n_in, TF_Status *s, int soft, const char *label) {
  TF_OperationDescription *d = TF_NewOperation(g, o->type, name);
  TF_SetDevice(d, dev);
  int i = 0;
  if (o->list) {
    for (; i < o->list_at; i++) TF_AddInput(d, in[i]);
    TF_AddInputList(d, in + i, o->list);
    i += o->list;
  }
  for (; i < n_in; i++) TF_AddInput(d, in[i]);
  for (int k = 0; k < 8 && o->attrs[k].name; k++) {
    const gc_attr *a = &o->attrs[k];
    switch (a->kind) {
      case 'i': TF_SetAttrInt(d, a->name, a->i); break;
      case 'f': TF_SetAttrFloat(d, a->name, (float)a->f); break;
      case 'b': TF_SetAttrBool(d, a->name, (unsigned char)a->i); break;
      case 't': TF_SetAttrType(d, a->name, a->t); break;
      case 's': TF_SetAttrString(d, a->name, a->s, strlen(a->s)); break;
      case 'l': TF_SetAttrIntList(d, a->name, a->list, a->n_list); break;
      default: tfc_test_fail(__FILE__, __LINE__, "%s: attr %s has unknown kind '%c'", label, a->name, a->kind);
    }
  }
  return gc_finish(d, s, soft, label);
}

/* The graph's inputs: fed placeholders (and, for the GPU copy of a half op, their casts) and
 * constants. gpu_in may equal cpu_in's values. */
typedef struct gc_inputs {
  TF_Output cpu_in[GC_MAX_ARGS], gpu_in[GC_MAX_ARGS], feeds[GC_MAX_ARGS];
  TF_Tensor *vals[GC_MAX_ARGS];
  int n_feeds;
} gc_inputs;

static void gc_make_inputs(TF_Graph *g, const gc_op *o, const gc_arg *args, int n_args, gc_inputs *in, TF_Status *s,
                           const char *label) {
  if (n_args > GC_MAX_ARGS) tfc_test_fail(__FILE__, __LINE__, "%s: %d args (at most %d)", label, n_args, GC_MAX_ARGS);
  in->n_feeds = 0;
  for (int i = 0; i < n_args; i++) {
    char name[24];
    snprintf(name, sizeof name, "in%d", i);
    if (args[i].konst) {
      in->cpu_in[i] = in->gpu_in[i] = gc_const(g, name, args[i].t, s, label);
      continue;
    }
    TF_DataType dt = TF_TensorType(args[i].t);
    in->cpu_in[i] = in->gpu_in[i] = in->feeds[in->n_feeds] =
        gc_unary(g, "Placeholder", name, (TF_Output){NULL, 0}, "dtype", dt, s, label);
    in->vals[in->n_feeds++] = args[i].t;
    if (o->half && dt == TF_FLOAT && (!o->half_args || (o->half_args >> i & 1u))) {
      snprintf(name, sizeof name, "half%d", i);
      in->gpu_in[i] = gc_unary(g, "Cast", name, in->cpu_in[i], "DstT", TF_HALF, s, label);
    }
  }
}

void gc_check(const gc_op *o, const gc_arg *args, int n_args, double tol, const char *label) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  gc_inputs in;
  gc_make_inputs(g, o, args, n_args, &in, s, label);
  TF_Operation *oc = gc_add_op(g, o, "on_cpu", GC_CPU, in.cpu_in, n_args, s, 0, label);
  TF_Operation *og = gc_add_op(g, o, "on_gpu", gc_gpu_dev(), in.gpu_in, n_args, s, 0, label);
  int n_out = o->n_outputs ? o->n_outputs : 1;
  if (n_out > GC_MAX_OUTPUTS) tfc_test_fail(__FILE__, __LINE__, "%s: %d outputs (at most %d)", label, n_out, GC_MAX_OUTPUTS);
  TF_Output fetch[2 * GC_MAX_OUTPUTS];
  TF_Tensor *out[2 * GC_MAX_OUTPUTS] = {0};
  for (int k = 0; k < n_out; k++) {
    TF_Output go = {og, k};
    if (o->half && TF_OperationOutputType(go) == TF_HALF) {
      char name[24];
      snprintf(name, sizeof name, "back%d", k);
      go = gc_unary(g, "Cast", name, go, "DstT", TF_FLOAT, s, label);
    }
    fetch[2 * k] = go;
    fetch[2 * k + 1] = (TF_Output){oc, k};
  }
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  TF_SessionRun(sess, NULL, in.feeds, in.vals, in.n_feeds, fetch, out, 2 * n_out, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  const char *dev = TFC_SessionOperationDevice(sess, og, s);
  if (!gc_self_test() && (!dev || !strstr(dev, "GPU:0"))) tfc_test_fail(__FILE__, __LINE__, "%s: placed on %s", label, dev ? dev : "?");
  for (int k = 0; k < n_out; k++) {
    char what[160];
    snprintf(what, sizeof what, "%s output %d", label, k);
    gc_compare(what, out[2 * k], out[2 * k + 1], tol);
    TF_DeleteTensor(out[2 * k]);
    TF_DeleteTensor(out[2 * k + 1]);
  }
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* Runs o alone on dev; returns the code, the message in msg. */
static TF_Code gc_run_alone(const gc_op *o, const gc_arg *args, int n_args, const char *dev, char *msg, size_t cap,
                            const char *label) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  gc_inputs in;
  gc_make_inputs(g, o, args, n_args, &in, s, label);
  int on_gpu = strstr(dev, "GPU") != NULL;
  TF_Operation *op = gc_add_op(g, o, "op", dev, on_gpu ? in.gpu_in : in.cpu_in, n_args, s, 1, label);
  if (!op)
    tfc_test_fail(__FILE__, __LINE__, "%s: the graph rejected the op before any kernel ran (%s); feed the bad input",
                  label, TF_Message(s));
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  TF_Output fetch = {op, 0};
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, in.feeds, in.vals, in.n_feeds, &fetch, &out, 1, NULL, 0, NULL, s);
  TF_Code code = TF_GetCode(s);
  snprintf(msg, cap, "%s", TF_Message(s));
  if (out) TF_DeleteTensor(out);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return code;
}

void gc_check_error(const gc_op *o, const gc_arg *args, int n_args, TF_Code code, const char *substr,
                    const char *label) {
  const char *devs[2] = {GC_CPU, gc_gpu_dev()};
  for (int k = 0; k < 2; k++) {
    char msg[1024];
    TF_Code got = gc_run_alone(o, args, n_args, devs[k], msg, sizeof msg, label);
    if (got != code || !strstr(msg, substr))
      tfc_test_fail(__FILE__, __LINE__, "%s on %s: expected code %d with \"%s\", got code %d: %s", label, devs[k],
                    (int)code, substr, (int)got, msg);
  }
}
