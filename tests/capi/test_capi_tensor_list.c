/*
 * TensorList ops built through the C API and run: the values TensorFlow gives for the same
 * ops (recorded from TF 2.x's list ops), lists passed to two consumers staying unchanged for
 * the one that only reads (copy-on-write), ZerosLike and AddN of lists, the shapes inferred
 * from constant element_shape inputs, Concat and Split, All and Any, and TF's codes and texts
 * for the errors.
 */
#include <stdbool.h>
#include <string.h>

#include "capi_util.h"

typedef struct ctx {
  TF_Graph *g;
  TF_Status *s;
  int n;
} ctx;

static ctx new_ctx(void) { return (ctx){TF_NewGraph(), TF_NewStatus(), 0}; }

static void free_ctx(ctx *c) {
  TF_DeleteGraph(c->g);
  TF_DeleteStatus(c->s);
}

static TF_Output konst(ctx *c, TF_DataType dt, const void *v, size_t es, const int64_t *dims, int nd) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  TF_Tensor *t = TF_AllocateTensor(dt, dims, nd, es * (size_t)n);
  if (n) memcpy(TF_TensorData(t), v, es * (size_t)n);
  char name[32];
  snprintf(name, sizeof name, "c%d", c->n++);
  TF_OperationDescription *d = TF_NewOperation(c->g, "Const", name);
  TF_SetAttrTensor(d, "value", t, c->s);
  TF_SetAttrType(d, "dtype", dt);
  TF_Operation *op = TF_FinishOperation(d, c->s);
  OK(c->s);
  TF_DeleteTensor(t);
  return (TF_Output){op, 0};
}

static TF_Output f32(ctx *c, const float *v, const int64_t *dims, int nd) {
  return konst(c, TF_FLOAT, v, sizeof(float), dims, nd);
}
static TF_Output i32(ctx *c, const int32_t *v, const int64_t *dims, int nd) {
  return konst(c, TF_INT32, v, sizeof(int32_t), dims, nd);
}
static TF_Output i32s(ctx *c, int32_t v) { return i32(c, &v, NULL, 0); }
/* A shape vector [a] or [a, b] (n = 1 or 2), or the scalar -1 (n = 0). */
static TF_Output shp(ctx *c, int n, int32_t a, int32_t b) {
  int32_t v[2] = {a, b};
  int64_t len = n;
  return n ? i32(c, v, &len, 1) : i32s(c, -1);
}

/* op with inputs; element_dtype float unless edt is 0; num_elements >= 0 sets Stack's. Fails
 * the test if the graph refuses it. */
static TF_Operation *op(ctx *c, const char *type, const TF_Output *ins, int n, TF_DataType edt, int64_t num_elements) {
  char name[32];
  snprintf(name, sizeof name, "n%d", c->n++);
  TF_OperationDescription *d = TF_NewOperation(c->g, type, name);
  for (int i = 0; i < n; i++) TF_AddInput(d, ins[i]);
  if (edt) TF_SetAttrType(d, "element_dtype", edt);
  if (num_elements >= 0) TF_SetAttrInt(d, "num_elements", num_elements);
  TF_Operation *o = TF_FinishOperation(d, c->s);
  OK(c->s);
  return o;
}

static TF_Output element_shape(ctx *c, TF_Output l) {
  char name[32];
  snprintf(name, sizeof name, "n%d", c->n++);
  TF_OperationDescription *d = TF_NewOperation(c->g, "TensorListElementShape", name);
  TF_AddInput(d, l);
  TF_SetAttrType(d, "shape_type", TF_INT32);
  TF_Output o = {TF_FinishOperation(d, c->s), 0};
  OK(c->s);
  return o;
}

static TF_Output op1(ctx *c, const char *type, const TF_Output *ins, int n, TF_DataType edt) {
  return (TF_Output){op(c, type, ins, n, edt, -1), 0};
}

/* Runs the fetches; returns the status code (message in c->s). */
static int run(ctx *c, const TF_Output *fetches, int n, TF_Tensor **out) {
  TF_Session *sess = TF_NewSession(c->g, NULL, c->s);
  OK(c->s);
  TF_SessionRun(sess, NULL, NULL, NULL, 0, fetches, out, n, NULL, 0, NULL, c->s);
  int code = TF_GetCode(c->s);
  TF_Status *s2 = TF_NewStatus();
  TF_DeleteSession(sess, s2);
  TF_DeleteStatus(s2);
  return code;
}

static void expect_f32(TF_Tensor *t, const int64_t *dims, int nd, const float *want) {
  EXPECT_EQ(TF_TensorType(t), TF_FLOAT);
  EXPECT_EQ(TF_NumDims(t), nd);
  int64_t n = 1;
  for (int i = 0; i < nd; i++) {
    EXPECT_EQ(TF_Dim(t, i), dims[i]);
    n *= dims[i];
  }
  const float *v = TF_TensorData(t);
  for (int64_t i = 0; i < n; i++)
    if (v[i] != want[i]) tfc_test_fail(__FILE__, __LINE__, "element %lld: %g, want %g", (long long)i, v[i], want[i]);
  TF_DeleteTensor(t);
}

static void expect_i32(TF_Tensor *t, int nd, const int32_t *want, int n) {
  EXPECT_EQ(TF_TensorType(t), TF_INT32);
  EXPECT_EQ(TF_NumDims(t), nd);
  EXPECT_EQ(TF_TensorElementCount(t), n);
  for (int i = 0; i < n; i++) EXPECT_EQ(((int32_t *)TF_TensorData(t))[i], want[i]);
  TF_DeleteTensor(t);
}

/* Runs one fetch that must fail with INVALID_ARGUMENT and a message containing `msg`. */
static void expect_error(ctx *c, TF_Output fetch, const char *msg) {
  TF_Tensor *t = NULL;
  EXPECT_EQ(run(c, &fetch, 1, &t), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(c->s), msg);
}

static const float M22[4] = {1, 2, 3, 4};
static const int64_t D22[2] = {2, 2};

static void reserve_set_get_stack_length(void) {
  ctx c = new_ctx();
  TF_Output l = op1(&c, "TensorListReserve", (TF_Output[]){shp(&c, 1, 2, 0), i32s(&c, 3)}, 2, TF_FLOAT);
  int64_t d2 = 2;
  TF_Output item = f32(&c, (float[]){1, 2}, &d2, 1);
  TF_Output l2 = op1(&c, "TensorListSetItem", (TF_Output[]){l, i32s(&c, 1), item}, 3, 0);
  TF_Output st = {op(&c, "TensorListStack", (TF_Output[]){l2, shp(&c, 1, 2, 0)}, 2, TF_FLOAT, -1), 0};
  TF_Output get0 = op1(&c, "TensorListGetItem", (TF_Output[]){l2, i32s(&c, 0), shp(&c, 1, -1, 0)}, 3, TF_FLOAT);
  TF_Output get1 = op1(&c, "TensorListGetItem", (TF_Output[]){l2, i32s(&c, 1), shp(&c, 0, 0, 0)}, 3, TF_FLOAT);
  TF_Output len = op1(&c, "TensorListLength", &l2, 1, 0);
  TF_Tensor *out[4];
  EXPECT_EQ(run(&c, (TF_Output[]){st, get0, get1, len}, 4, out), TF_OK);
  expect_f32(out[0], (int64_t[]){3, 2}, 2, (float[]){0, 0, 1, 2, 0, 0});
  expect_f32(out[1], &d2, 1, (float[]){0, 0});
  expect_f32(out[2], &d2, 1, (float[]){1, 2});
  expect_i32(out[3], 0, (int32_t[]){3}, 1);
  /* the shape function reads the constant element_shape: Stack is [?,2], GetItem [?] */
  int64_t dims[2];
  EXPECT_EQ(TF_GraphGetTensorNumDims(c.g, st, c.s), 2);
  TF_GraphGetTensorShape(c.g, st, dims, 2, c.s);
  EXPECT_EQ(dims[0], -1);
  EXPECT_EQ(dims[1], 2);
  EXPECT_EQ(TF_GraphGetTensorNumDims(c.g, get0, c.s), 1);
  EXPECT_EQ(TF_GraphGetTensorNumDims(c.g, get1, c.s), -1);
  free_ctx(&c);
}

static void push_back_pop_back_and_element_shape(void) {
  ctx c = new_ctx();
  TF_Output l = op1(&c, "EmptyTensorList", (TF_Output[]){shp(&c, 2, -1, 2), i32s(&c, -1)}, 2, TF_FLOAT);
  int64_t d12[2] = {1, 2};
  TF_Output a = op1(&c, "TensorListPushBack", (TF_Output[]){l, f32(&c, (float[]){1, 2}, d12, 2)}, 2, 0);
  TF_Output b = op1(&c, "TensorListPushBack", (TF_Output[]){a, f32(&c, (float[]){3, 4}, d12, 2)}, 2, 0);
  TF_Operation *pop = op(&c, "TensorListPopBack", (TF_Output[]){b, shp(&c, 0, 0, 0)}, 2, TF_FLOAT, -1);
  TF_Output rest = {pop, 0}, top = {pop, 1};
  TF_Output len = op1(&c, "TensorListLength", &rest, 1, 0);
  TF_Output st = {op(&c, "TensorListStack", (TF_Output[]){rest, shp(&c, 0, 0, 0)}, 2, TF_FLOAT, -1), 0};
  TF_Output es = element_shape(&c, l);
  TF_Tensor *out[4];
  EXPECT_EQ(run(&c, (TF_Output[]){top, len, st, es}, 4, out), TF_OK);
  expect_f32(out[0], d12, 2, (float[]){3, 4});
  expect_i32(out[1], 0, (int32_t[]){1}, 1);
  expect_f32(out[2], (int64_t[]){1, 1, 2}, 3, (float[]){1, 2});
  expect_i32(out[3], 1, (int32_t[]){-1, 2}, 2);
  free_ctx(&c);
}

static void from_tensor_gather_and_unknown_rank_element_shape(void) {
  ctx c = new_ctx();
  TF_Output l = op1(&c, "TensorListFromTensor", (TF_Output[]){f32(&c, M22, D22, 2), shp(&c, 0, 0, 0)}, 2, TF_FLOAT);
  int64_t d3 = 3;
  TF_Output g = op1(&c, "TensorListGather", (TF_Output[]){l, i32(&c, (int32_t[]){1, 0, 1}, &d3, 1), shp(&c, 0, 0, 0)},
                    3, TF_FLOAT);
  TF_Output es = element_shape(&c, l);
  TF_Tensor *out[2];
  EXPECT_EQ(run(&c, (TF_Output[]){g, es}, 2, out), TF_OK);
  expect_f32(out[0], (int64_t[]){3, 2}, 2, (float[]){3, 4, 1, 2, 3, 4});
  expect_i32(out[1], 0, (int32_t[]){-1}, 1); /* unknown rank: the scalar -1 */
  free_ctx(&c);
}

static void scatter_resize_and_uninitialized_elements_read_as_zeros(void) {
  ctx c = new_ctx();
  int64_t d2 = 2;
  TF_Output l = op1(&c, "TensorListScatter",
                    (TF_Output[]){f32(&c, M22, D22, 2), i32(&c, (int32_t[]){3, 0}, &d2, 1), shp(&c, 1, -1, 0)}, 3,
                    TF_FLOAT);
  /* element shape [?]: the set elements complete it to [2] for the unset ones */
  TF_Output st = {op(&c, "TensorListStack", (TF_Output[]){l, shp(&c, 1, -1, 0)}, 2, TF_FLOAT, -1), 0};
  TF_Output r = op1(&c, "TensorListResize", (TF_Output[]){l, i32s(&c, 1)}, 2, 0);
  TF_Output st2 = {op(&c, "TensorListStack", (TF_Output[]){r, shp(&c, 0, 0, 0)}, 2, TF_FLOAT, -1), 0};
  TF_Tensor *out[2];
  EXPECT_EQ(run(&c, (TF_Output[]){st, st2}, 2, out), TF_OK);
  expect_f32(out[0], (int64_t[]){4, 2}, 2, (float[]){3, 4, 0, 0, 0, 0, 1, 2});
  expect_f32(out[1], (int64_t[]){1, 2}, 2, (float[]){3, 4});
  free_ctx(&c);
}

/* One list read by two consumers: the one that changes it gets a copy, the other sees the
 * original. */
static void a_shared_list_is_copied_on_write(void) {
  ctx c = new_ctx();
  TF_Output l = op1(&c, "TensorListFromTensor", (TF_Output[]){f32(&c, M22, D22, 2), shp(&c, 1, 2, 0)}, 2, TF_FLOAT);
  int64_t d2 = 2;
  TF_Output l2 = op1(&c, "TensorListSetItem", (TF_Output[]){l, i32s(&c, 0), f32(&c, (float[]){9, 9}, &d2, 1)}, 3, 0);
  TF_Output l3 = op1(&c, "TensorListPushBack", (TF_Output[]){l, f32(&c, (float[]){7, 7}, &d2, 1)}, 2, 0);
  TF_Output s1 = {op(&c, "TensorListStack", (TF_Output[]){l, shp(&c, 1, 2, 0)}, 2, TF_FLOAT, -1), 0};
  TF_Output s2 = {op(&c, "TensorListStack", (TF_Output[]){l2, shp(&c, 1, 2, 0)}, 2, TF_FLOAT, -1), 0};
  TF_Output s3 = {op(&c, "TensorListStack", (TF_Output[]){l3, shp(&c, 1, 2, 0)}, 2, TF_FLOAT, -1), 0};
  TF_Tensor *out[3];
  EXPECT_EQ(run(&c, (TF_Output[]){s1, s2, s3}, 3, out), TF_OK);
  expect_f32(out[0], D22, 2, M22);
  expect_f32(out[1], D22, 2, (float[]){9, 9, 3, 4});
  expect_f32(out[2], (int64_t[]){3, 2}, 2, (float[]){1, 2, 3, 4, 7, 7});
  free_ctx(&c);
}

static void zeros_like_and_add_n_of_lists(void) {
  ctx c = new_ctx();
  TF_Output l = op1(&c, "TensorListFromTensor", (TF_Output[]){f32(&c, M22, D22, 2), shp(&c, 1, 2, 0)}, 2, TF_FLOAT);
  TF_Output r = op1(&c, "TensorListReserve", (TF_Output[]){shp(&c, 1, 2, 0), i32s(&c, 2)}, 2, TF_FLOAT);
  int64_t d2 = 2;
  TF_Output r2 = op1(&c, "TensorListSetItem", (TF_Output[]){r, i32s(&c, 1), f32(&c, (float[]){10, 20}, &d2, 1)}, 3, 0);
  TF_Output z = op1(&c, "ZerosLike", &l, 1, 0);
  TF_OperationDescription *d = TF_NewOperation(c.g, "AddN", "sum");
  TF_AddInputList(d, (TF_Output[]){l, r2, z}, 3);
  TF_Output sum = {TF_FinishOperation(d, c.s), 0};
  OK(c.s);
  TF_Output sz = {op(&c, "TensorListStack", (TF_Output[]){z, shp(&c, 1, 2, 0)}, 2, TF_FLOAT, -1), 0};
  TF_Output ss = {op(&c, "TensorListStack", (TF_Output[]){sum, shp(&c, 1, 2, 0)}, 2, TF_FLOAT, -1), 0};
  TF_Tensor *out[2];
  EXPECT_EQ(run(&c, (TF_Output[]){sz, ss}, 2, out), TF_OK);
  expect_f32(out[0], D22, 2, (float[]){0, 0, 0, 0});
  expect_f32(out[1], D22, 2, (float[]){1, 2, 13, 24});
  free_ctx(&c);
}

static void all_and_any_reduce_bools(void) {
  ctx c = new_ctx();
  bool v[4] = {true, false, true, true};
  TF_Output x = konst(&c, TF_BOOL, v, 1, D22, 2);
  TF_Output ax = i32s(&c, 1);
  TF_Output all = op1(&c, "All", (TF_Output[]){x, ax}, 2, 0);
  TF_Output any = op1(&c, "Any", (TF_Output[]){x, ax}, 2, 0);
  int64_t d0 = 0;
  TF_Output none = konst(&c, TF_BOOL, v, 1, &d0, 1);
  TF_Output all0 = op1(&c, "All", (TF_Output[]){none, i32s(&c, 0)}, 2, 0);
  TF_Output any0 = op1(&c, "Any", (TF_Output[]){none, i32s(&c, 0)}, 2, 0);
  TF_Tensor *out[4];
  EXPECT_EQ(run(&c, (TF_Output[]){all, any, all0, any0}, 4, out), TF_OK);
  const bool *a = TF_TensorData(out[0]), *b = TF_TensorData(out[1]);
  EXPECT_EQ(TF_TensorType(out[0]), TF_BOOL);
  EXPECT_EQ(TF_Dim(out[0], 0), 2);
  EXPECT_TRUE(!a[0] && a[1]);
  EXPECT_TRUE(b[0] && b[1]);
  EXPECT_EQ(*(const uint8_t *)TF_TensorData(out[2]), 1); /* all of nothing: true */
  EXPECT_EQ(*(const uint8_t *)TF_TensorData(out[3]), 0); /* any of nothing: false */
  for (int i = 0; i < 4; i++) TF_DeleteTensor(out[i]);
  free_ctx(&c);
}

/* Each case builds one failing fetch in a new graph. */
static void errors_have_tensorflows_texts(void) {
  int64_t d2 = 2, d3 = 3, d1 = 1;
  {
    ctx c = new_ctx();
    TF_Output l = op1(&c, "EmptyTensorList", (TF_Output[]){shp(&c, 1, -1, 0), i32s(&c, -1)}, 2, TF_FLOAT);
    expect_error(&c, (TF_Output){op(&c, "TensorListPopBack", (TF_Output[]){l, shp(&c, 0, 0, 0)}, 2, TF_FLOAT, -1), 1},
                 "Trying to pop from an empty list.");
    expect_error(&c, (TF_Output){op(&c, "TensorListStack", (TF_Output[]){l, shp(&c, 1, -1, 0)}, 2, TF_FLOAT, -1), 0},
                 "Tried to stack elements of an empty list with non-fully-defined element_shape: [?]");
    free_ctx(&c);
  }
  {
    ctx c = new_ctx();
    TF_Output l = op1(&c, "EmptyTensorList", (TF_Output[]){shp(&c, 1, 2, 0), i32s(&c, 1)}, 2, TF_FLOAT);
    TF_Output a = op1(&c, "TensorListPushBack", (TF_Output[]){l, f32(&c, M22, &d2, 1)}, 2, 0);
    expect_error(&c, op1(&c, "TensorListPushBack", (TF_Output[]){a, f32(&c, M22, &d2, 1)}, 2, 0),
                 "Tried to push item into a full list list size: 1 max_num_elements: 1");
    expect_error(&c, op1(&c, "TensorListPushBack", (TF_Output[]){l, f32(&c, M22, &d3, 1)}, 2, 0),
                 "Tried to append a tensor with incompatible shape to a list. Op element shape: [3] list shape: [2]");
    expect_error(&c, op1(&c, "TensorListPushBack", (TF_Output[]){l, i32(&c, (int32_t[]){1, 2}, &d2, 1)}, 2, 0),
                 "Invalid data types; op elements int32 but list elements float");
    free_ctx(&c);
  }
  {
    ctx c = new_ctx();
    TF_Output r = op1(&c, "TensorListReserve", (TF_Output[]){shp(&c, 1, 2, 0), i32s(&c, 3)}, 2, TF_FLOAT);
    expect_error(&c, op1(&c, "TensorListGetItem", (TF_Output[]){r, i32s(&c, 3), shp(&c, 1, 2, 0)}, 3, TF_FLOAT),
                 "Trying to access element 3 in a list with 3 elements.");
    expect_error(&c, op1(&c, "TensorListGetItem", (TF_Output[]){r, i32s(&c, 1), shp(&c, 1, 3, 0)}, 3, TF_FLOAT),
                 "PartialTensorShape: Incompatible shapes during merge: [3] vs. [2]");
    expect_error(&c, op1(&c, "TensorListSetItem", (TF_Output[]){r, i32s(&c, -1), f32(&c, M22, &d2, 1)}, 3, 0),
                 "Trying to modify element -1 in a list with 3 elements.");
    expect_error(&c, op1(&c, "TensorListSetItem", (TF_Output[]){r, i32s(&c, 1), f32(&c, M22, &d3, 1)}, 3, 0),
                 "Tried to set a tensor with incompatible shape at a list index. Item element shape: [3] list shape: [2]");
    expect_error(&c, (TF_Output){op(&c, "TensorListStack", (TF_Output[]){r, shp(&c, 1, 2, 0)}, 2, TF_FLOAT, 2), 0},
                 "Operation expected a list with 2 elements but got a list with 3 elements.");
    expect_error(&c, (TF_Output){op(&c, "TensorListStack", (TF_Output[]){r, shp(&c, 1, 2, 0)}, 2, TF_INT32, -1), 0},
                 "Invalid data types; op elements int32 but list elements float");
    expect_error(&c, op1(&c, "TensorListResize", (TF_Output[]){r, i32s(&c, -1)}, 2, 0),
                 "TensorListSlice expects size to be non-negative. Got: -1");
    free_ctx(&c);
  }
  {
    ctx c = new_ctx();
    TF_Output r = op1(&c, "TensorListReserve", (TF_Output[]){shp(&c, 1, -1, 0), i32s(&c, 3)}, 2, TF_FLOAT);
    expect_error(&c, op1(&c, "TensorListGetItem", (TF_Output[]){r, i32s(&c, 1), shp(&c, 1, -1, 0)}, 3, TF_FLOAT),
                 "Trying to read an uninitialized tensor but element_shape is not fully defined: [?] and no list "
                 "element is set.");
    expect_error(&c, op1(&c, "TensorListReserve", (TF_Output[]){shp(&c, 1, 2, 0), i32s(&c, -1)}, 2, TF_FLOAT),
                 "The num_elements to reserve must be a non negative number, but got -1");
    expect_error(&c, op1(&c, "EmptyTensorList", (TF_Output[]){i32s(&c, 3), i32s(&c, -1)}, 2, TF_FLOAT),
                 "The only valid scalar shape tensor is the fully unknown shape specified as -1.");
    free_ctx(&c);
  }
  {
    ctx c = new_ctx();
    TF_Output l = op1(&c, "TensorListFromTensor", (TF_Output[]){f32(&c, M22, D22, 2), shp(&c, 0, 0, 0)}, 2, TF_FLOAT);
    expect_error(&c,
                 op1(&c, "TensorListGather", (TF_Output[]){l, i32(&c, (int32_t[]){2}, &d1, 1), shp(&c, 0, 0, 0)}, 3,
                     TF_FLOAT),
                 "Index 2 out o range; list only has 2 elements.");
    expect_error(&c, op1(&c, "TensorListFromTensor", (TF_Output[]){f32(&c, M22, D22, 2), shp(&c, 1, 3, 0)}, 2, TF_FLOAT),
                 "Specified a list with shape [3] from a tensor with shape [2]");
    expect_error(&c,
                 op1(&c, "TensorListScatter",
                     (TF_Output[]){f32(&c, M22, D22, 2), i32(&c, (int32_t[]){-1, 0}, &d2, 1), shp(&c, 0, 0, 0)}, 3,
                     TF_FLOAT),
                 "Indices in TensorListScatter must all be non-negative.");
    expect_error(&c,
                 op1(&c, "TensorListScatter",
                     (TF_Output[]){f32(&c, M22, D22, 2), i32(&c, (int32_t[]){0}, &d1, 1), shp(&c, 0, 0, 0)}, 3,
                     TF_FLOAT),
                 "Invalid number of rows in input tensor. Expected: 1 Actual: 2");
    free_ctx(&c);
  }
}


static TF_Output i64v(ctx *c, const int64_t *v, int64_t n) { return konst(c, TF_INT64, v, sizeof(int64_t), &n, 1); }

/* TensorListConcatV2(l, element_shape, leading_dims): outputs tensor, lengths. */
static TF_Operation *concat_v2(ctx *c, TF_Output l, TF_Output es, const int64_t *lead, int64_t n_lead) {
  return op(c, "TensorListConcatV2", (TF_Output[]){l, es, i64v(c, lead, n_lead)}, 3, TF_FLOAT, -1);
}

static void expect_i64(TF_Tensor *t, const int64_t *want, int n) {
  EXPECT_EQ(TF_TensorType(t), TF_INT64);
  EXPECT_EQ(TF_TensorElementCount(t), n);
  for (int i = 0; i < n; i++) EXPECT_EQ(((int64_t *)TF_TensorData(t))[i], want[i]);
  TF_DeleteTensor(t);
}

/* Runs a Concat node's two outputs. */
static void expect_concat(ctx *c, TF_Operation *cat, const int64_t *dims, int nd, const float *want,
                          const int64_t *lengths, int n) {
  TF_Tensor *out[2];
  EXPECT_EQ(run(c, (TF_Output[]){{cat, 0}, {cat, 1}}, 2, out), TF_OK);
  expect_f32(out[0], dims, nd, want);
  expect_i64(out[1], lengths, n);
}

/* Values and errors TF 2.x gives for the same lists. */
static void concat_and_split_match_tensorflow(void) {
  int64_t d12[2] = {1, 2}, d22[2] = {2, 2}, d32[2] = {3, 2}, d2 = 2;
  ctx c = new_ctx();
  /* elements of different dim 0 join; lengths say where each began */
  TF_Output e = op1(&c, "EmptyTensorList", (TF_Output[]){shp(&c, 0, 0, 0), i32s(&c, -1)}, 2, TF_FLOAT);
  TF_Output a = op1(&c, "TensorListPushBack", (TF_Output[]){e, f32(&c, (float[]){1, 2}, d12, 2)}, 2, 0);
  TF_Output b = op1(&c, "TensorListPushBack", (TF_Output[]){a, f32(&c, (float[]){5, 6, 7, 8}, d22, 2)}, 2, 0);
  expect_concat(&c, concat_v2(&c, b, shp(&c, 0, 0, 0), NULL, 0), d32, 2, (float[]){1, 2, 5, 6, 7, 8},
                (int64_t[]){1, 2}, 2);
  /* an uninitialized element takes dim 0 from leading_dims ... */
  TF_Output r = op1(&c, "TensorListReserve", (TF_Output[]){shp(&c, 2, -1, 2), i32s(&c, 2)}, 2, TF_FLOAT);
  expect_concat(&c, concat_v2(&c, r, shp(&c, 0, 0, 0), (int64_t[]){1, 2}, 2), d32, 2, (float[]){0, 0, 0, 0, 0, 0},
                (int64_t[]){1, 2}, 2);
  /* ... else from the shape the set elements agree on */
  TF_Output r1 = op1(&c, "TensorListSetItem", (TF_Output[]){r, i32s(&c, 1), f32(&c, (float[]){1, 2, 3, 4}, d22, 2)}, 3, 0);
  expect_concat(&c, concat_v2(&c, r1, shp(&c, 0, 0, 0), NULL, 0), (int64_t[]){4, 2}, 2,
                (float[]){0, 0, 0, 0, 1, 2, 3, 4}, (int64_t[]){2, 2}, 2);
  expect_error(&c, (TF_Output){concat_v2(&c, r, shp(&c, 0, 0, 0), NULL, 0), 0},
               "List contains uninitialized tensor at index 0 but leading_dims has only 0 elements.");
  expect_error(&c, (TF_Output){concat_v2(&c, r1, shp(&c, 2, 1, 2), NULL, 0), 0},
               "First entry of element_shape input does not match the first dim of list element at index: 1 Expected: "
               "1 Actual: 2");
  /* TensorListConcat (v1): all but dim 0 from its attr, here unknown */
  TF_Output r22 = op1(&c, "TensorListReserve", (TF_Output[]){shp(&c, 2, 3, 2), i32s(&c, 2)}, 2, TF_FLOAT);
  expect_error(&c, (TF_Output){op(&c, "TensorListConcat", &r22, 1, TF_FLOAT, -1), 0},
               "Trying to concat list with only uninitialized tensors but element_shape_except_first_dim is not fully "
               "defined: <unknown>");
  TF_Output sc = op1(&c, "TensorListFromTensor", (TF_Output[]){f32(&c, (float[]){1, 2}, &d2, 1), shp(&c, 0, 0, 0)}, 2,
                     TF_FLOAT);
  expect_error(&c, (TF_Output){concat_v2(&c, sc, shp(&c, 0, 0, 0), NULL, 0), 0},
               "Concat saw a scalar shape at index 0 but requires at least vectors.");
  expect_error(&c, (TF_Output){concat_v2(&c, e, shp(&c, 0, 0, 0), NULL, 0), 0},
               "All except the first dimension must be fully defined when concating an empty tensor list. "
               "element_shape: <unknown>");
  /* Split: rows cut by lengths; then read back */
  int64_t d3 = 3;
  TF_Output x = f32(&c, (float[]){1, 2, 3}, &d3, 1);
  TF_Output sp = op1(&c, "TensorListSplit", (TF_Output[]){x, shp(&c, 0, 0, 0), i64v(&c, (int64_t[]){1, 2}, 2)}, 3, TF_FLOAT);
  TF_Output g1 = op1(&c, "TensorListGetItem", (TF_Output[]){sp, i32s(&c, 1), shp(&c, 0, 0, 0)}, 3, TF_FLOAT);
  TF_Tensor *out;
  EXPECT_EQ(run(&c, &g1, 1, &out), TF_OK);
  expect_f32(out, &d2, 1, (float[]){2, 3});
  expect_concat(&c, concat_v2(&c, sp, shp(&c, 0, 0, 0), NULL, 0), &d3, 1, (float[]){1, 2, 3}, (int64_t[]){1, 2}, 2);
  expect_error(&c, op1(&c, "TensorListSplit", (TF_Output[]){x, shp(&c, 0, 0, 0), i64v(&c, (int64_t[]){1, 1}, 2)}, 3, TF_FLOAT),
               "Unused values in tensor. Length of tensor: 3 Values used: 2");
  expect_error(&c, op1(&c, "TensorListSplit", (TF_Output[]){x, shp(&c, 0, 0, 0), i64v(&c, (int64_t[]){2, 2}, 2)}, 3, TF_FLOAT),
               "Attempting to slice [2, 4] from tensor with length 3");
  expect_error(&c, op1(&c, "TensorListSplit", (TF_Output[]){x, shp(&c, 0, 0, 0), i64v(&c, (int64_t[]){-1, 4}, 2)}, 3, TF_FLOAT),
               "Invalid value in lengths: -1");
  expect_error(&c,
               op1(&c, "TensorListSplit", (TF_Output[]){f32(&c, (float[]){1, 2, 3, 4}, d22, 2), shp(&c, 2, -1, 3),
                                                       i64v(&c, (int64_t[]){2}, 1)}, 3, TF_FLOAT),
               "tensor shape [2,2] is not compatible with element_shape [?,3]");
  free_ctx(&c);
}

/* A variant tensor from outside the runtime is never read as a list. */
static void a_variant_feed_is_refused(void) {
  TF_Status *s = TF_NewStatus();
  EXPECT_EQ(TF_DataTypeSize(TF_VARIANT), 0);
  TF_Graph *g = TF_NewGraph();
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "p");
  TF_SetAttrType(d, "dtype", TF_VARIANT);
  TF_Output p = {TF_FinishOperation(d, s), 0};
  OK(s);
  d = TF_NewOperation(g, "TensorListLength", "len");
  TF_AddInput(d, p);
  TF_Output len = {TF_FinishOperation(d, s), 0};
  OK(s);
  TF_Session *sess = TF_NewSession(g, NULL, s);
  OK(s);
  TF_Tensor *feed = TF_AllocateTensor(TF_VARIANT, NULL, 0, 8);
  memset(TF_TensorData(feed), 0x5a, 8);
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, &p, &feed, 1, &len, &out, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_TRUE(out == NULL);
  TF_DeleteTensor(feed);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(reserve_set_get_stack_length),
    TFC_TEST(push_back_pop_back_and_element_shape),
    TFC_TEST(from_tensor_gather_and_unknown_rank_element_shape),
    TFC_TEST(scatter_resize_and_uninitialized_elements_read_as_zeros),
    TFC_TEST(a_shared_list_is_copied_on_write),
    TFC_TEST(zeros_like_and_add_n_of_lists),
    TFC_TEST(all_and_any_reduce_bools),
    TFC_TEST(errors_have_tensorflows_texts),
    TFC_TEST(concat_and_split_match_tensorflow),
    TFC_TEST(a_variant_feed_is_refused),
    {0},
};

TFC_TEST_MAIN(tests)
