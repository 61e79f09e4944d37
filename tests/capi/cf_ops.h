/*
 * cf_ops — ops built under a control-flow scope (include/tfc/control_flow.h) the way TF's
 * Python operators build and name them, for the C API tests that compare the graphs of the
 * control-flow builders with TF's (test_capi_cf_builders.c, test_capi_cf_grad.c).
 * Header-only (static helpers); errors land in the TF_Status passed in, except where a
 * helper says it fails the test.
 */
#ifndef TFC_TESTS_CF_OPS_H
#define TFC_TESTS_CF_OPS_H

#include "capi_util.h"
#include "tfc/control_flow.h"

/* A scalar Placeholder `name` of dtype dt in g; fails the test on an error. */
static __attribute__((unused)) TF_Output cf_placeholder(TF_Graph *g, const char *name, TF_DataType dt,
                                                        TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", dt);
  TF_SetAttrShape(d, "shape", NULL, 0);
  TF_Output o = {TF_FinishOperation(d, s), 0};
  OK(s);
  return o;
}

/* A scalar Const `name` under sc (tf.constant; float32 or int32). */
static TF_Output cf_constant(const TFC_Scope *sc, const char *name, TF_DataType dt, double v, TF_Status *s) {
  TF_Tensor *t = TF_AllocateTensor(dt, NULL, 0, 4);
  if (dt == TF_FLOAT) *(float *)TF_TensorData(t) = (float)v;
  else *(int *)TF_TensorData(t) = (int)v;
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", dt);
  TF_Output o = {TF_FinishOperation(d, s), 0};
  TF_DeleteTensor(t);
  return o;
}

/* Python's `a <op> b` (b.oper NULL: the number bv as "<op>/y" of a's dtype) or `<op>(a)` (unary):
 * the inputs captured under the op's name, the name scope opened, the op named after it. */
static __attribute__((unused)) TF_Output cf_op(const TFC_Scope *sc, const char *type, const char *name, TF_Output a,
                                               int unary, TF_Output b, double bv, TF_Status *s) {
  a = TFC_Capture(sc, a, name, s);
  if (!unary && b.oper) b = TFC_Capture(sc, b, name, s);
  TFC_Scope *sub = TFC_NewSubScope(sc, name);
  if (!unary && !b.oper) b = cf_constant(sub, "y", TF_OperationOutputType(a), bv, s);
  TF_OperationDescription *d = TF_NewOperation(TFC_ScopeGraph(sc), type, TFC_ScopeName(sub));
  TF_AddInput(d, a);
  if (!unary) TF_AddInput(d, b);
  TF_Output o = {TF_FinishOperation(d, s), 0};
  TFC_DeleteScope(sub);
  return o;
}

#endif
