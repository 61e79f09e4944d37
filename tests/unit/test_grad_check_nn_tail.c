/*
 * test_grad_check_nn_tail — finite-difference checks (float64) of the gradients built by
 * TF_AddGradients for SpaceToBatchND / BatchToSpaceND and their legacy 4-D forms (each the
 * other's inverse), Einsum (the equations of BERT-style attention and dense layers, ellipsis
 * broadcasting, one-operand transposes and sums, labels one operand sums alone), ClipByValue
 * (t, and scalar or t-shaped bounds) and Tan; and the UNIMPLEMENTED text of an Einsum
 * gradient tfc cannot express (a diagonal).
 */
#include "grad_check.h"

#define IN(lo_, hi_, nd_, ...) ((gc_input){.ndims = (nd_), .dims = {__VA_ARGS__}, .lo = (lo_), .hi = (hi_)})

typedef struct {
  const char *op;
  int64_t block[2];
  int m;
  int64_t pads[4];
  int legacy;
} sb_arg;

static TF_Output build_sb(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  (void)nx;
  sb_arg *a = arg;
  TF_OperationDescription *d = TF_NewOperation(g, a->op, "y");
  TF_AddInput(d, x[0]);
  double pv[4];
  for (int i = 0; i < 2 * a->m; i++) pv[i] = (double)a->pads[i];
  int64_t pd[2] = {a->m, 2};
  if (a->legacy) {
    TF_AddInput(d, gc_const(g, "pads", TF_INT32, pd, 2, pv));
    TF_SetAttrInt(d, "block_size", a->block[0]);
  } else {
    TF_AddInput(d, gc_ivec(g, "block", a->block, a->m));
    TF_AddInput(d, gc_const(g, "pads", TF_INT32, pd, 2, pv));
  }
  return gc_op1(g, "Square", (TF_Output){gc_finish(d), 0});
}

static void grad_space_to_batch_and_back(void) {
  sb_arg s2b = {"SpaceToBatchND", {2, 3}, 2, {1, 0, 0, 1}, 0};
  gc_input in = IN(-1, 1, 4, 2, 3, 5, 2);
  gc_check("SpaceToBatchND", build_sb, &s2b, &in, 1);
  sb_arg b2s = {"BatchToSpaceND", {2, 3}, 2, {1, 0, 0, 2}, 0};
  gc_input bin = IN(-1, 1, 4, 6, 2, 2, 2);
  gc_check("BatchToSpaceND", build_sb, &b2s, &bin, 1);
  sb_arg one = {"SpaceToBatchND", {2, 0}, 1, {1, 1, 0, 0}, 0};
  gc_input in3 = IN(-1, 1, 3, 2, 4, 3);
  gc_check("SpaceToBatchND 1-d", build_sb, &one, &in3, 1);
  sb_arg legacy = {"SpaceToBatch", {2, 2}, 2, {0, 0, 2, 0}, 1};
  gc_input lin = IN(-1, 1, 4, 1, 4, 4, 2);
  gc_check("SpaceToBatch", build_sb, &legacy, &lin, 1);
  sb_arg lb = {"BatchToSpace", {2, 2}, 2, {0, 0, 1, 1}, 1};
  gc_input lbin = IN(-1, 1, 4, 4, 2, 3, 1);
  gc_check("BatchToSpace", build_sb, &lb, &lbin, 1);
}

static TF_Output build_einsum(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  TF_OperationDescription *d = TF_NewOperation(g, "Einsum", "y");
  TF_AddInputList(d, x, nx);
  TF_SetAttrString(d, "equation", arg, strlen(arg));
  return (TF_Output){gc_finish(d), 0};
}

static void grad_einsum_equations(void) {
  static const struct {
    const char *eq;
    gc_input in[2];
    int n;
  } cases[] = {
      {"abc,cd->abd", {IN(-1, 1, 3, 2, 3, 4), IN(-1, 1, 2, 4, 3)}, 2},
      {"BTNH,BFNH->BNFT", {IN(-1, 1, 4, 2, 3, 2, 2), IN(-1, 1, 4, 2, 2, 2, 2)}, 2},
      {"BNFT,BTNH->BFNH", {IN(-1, 1, 4, 2, 2, 2, 3), IN(-1, 1, 4, 2, 3, 2, 2)}, 2},
      {"abcd,cde->abe", {IN(-1, 1, 4, 2, 2, 2, 3), IN(-1, 1, 3, 2, 3, 2)}, 2},
      {"...ij,...jk->...ik", {IN(-1, 1, 4, 2, 1, 2, 3), IN(-1, 1, 3, 2, 3, 2)}, 2},
      {"i,j->ij", {IN(-1, 1, 1, 3), IN(-1, 1, 1, 4)}, 2},
      {"ij->ji", {IN(-1, 1, 2, 3, 4)}, 1},
      {"ij->", {IN(-1, 1, 2, 3, 4)}, 1},
      {"abc->b", {IN(-1, 1, 3, 2, 3, 4)}, 1},
      {"ij,k->i", {IN(-1, 1, 2, 3, 4), IN(-1, 1, 1, 2)}, 2},
      {"bij,bkj->bk", {IN(-1, 1, 3, 2, 3, 4), IN(-1, 1, 3, 2, 2, 4)}, 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    gc_check(cases[i].eq, build_einsum, (void *)cases[i].eq, cases[i].in, cases[i].n);
}

/* A diagonal has no Einsum-only gradient here: UNIMPLEMENTED, naming the equation. */
static void grad_einsum_refuses_a_diagonal(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  int64_t d2[2] = {3, 3};
  TF_Output x[1] = {gc_placeholder(g, "a", TF_DOUBLE, d2, 2)};
  TF_Output y = build_einsum(g, x, 1, (void *)"ii->i");
  TF_Output dx[1];
  TF_AddGradients(g, &y, 1, x, 1, NULL, s, dx);
  EXPECT_EQ(TF_GetCode(s), TF_UNIMPLEMENTED);
  EXPECT_TRUE(strstr(TF_Message(s), "Einsum gradient for equation ii->i") != NULL);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static TF_Output build_clip(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  (void)nx, (void)arg;
  TF_Output ins[3] = {x[0], x[1], x[2]};
  return gc_op(g, "ClipByValue", "y", ins, 3);
}

static void grad_clip_by_value(void) {
  /* t spans the bounds; the bounds stay away from t's values by more than the step. */
  gc_input scal[3] = {IN(-2, 2, 2, 3, 4), IN(-0.5, -0.5, 0), IN(0.75, 0.75, 0)};
  gc_check("ClipByValue scalar bounds", build_clip, NULL, scal, 3);
  gc_input full[3] = {IN(-2, 2, 2, 2, 3), IN(-0.3, -0.3, 2, 2, 3), IN(0.6, 0.6, 2, 2, 3)};
  gc_check("ClipByValue tensor bounds", build_clip, NULL, full, 3);
}

static TF_Output build_tan(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  (void)nx, (void)arg;
  return gc_op1(g, "Tan", x[0]);
}

static void grad_tan(void) {
  gc_input in = IN(-1.2, 1.2, 2, 3, 4);
  gc_check("Tan", build_tan, NULL, &in, 1);
}

static const tfc_test tests[] = {TFC_TEST(grad_space_to_batch_and_back), TFC_TEST(grad_einsum_equations),
                                 TFC_TEST(grad_einsum_refuses_a_diagonal), TFC_TEST(grad_clip_by_value),
                                 TFC_TEST(grad_tan), {0}};
TFC_TEST_MAIN(tests)
