/*
 * soft_placement — what happens when a graph asks for a device the machine does not have:
 *
 *   with tf.device('/device:GPU:2'):
 *     a = tf.constant(...); b = tf.constant(...); c = tf.matmul(a, b)
 *
 * 1. Without allow_soft_placement the first run fails with TF 1.15's INVALID_ARGUMENT
 *    ("Cannot assign a device for operation MatMul: Operation was explicitly assigned to
 *    /device:GPU:2 but available devices are [ ... ]. ...").
 * 2. With allow_soft_placement the same graph runs; log_device_placement prints TF's lines and
 *    tfc's reasons, and TFC_SessionOperationDevice / TFC_SessionOperationPlacementReason say
 *    where the MatMul went and why.
 *
 * Usage: soft_placement
 */
#include "example_util.h"

static TF_Session *session(TF_Graph *g, int soft, TF_SessionOptions **opts, TF_Status *s) {
  *opts = ex_options(2, soft, soft, s);
  if (soft) TFC_SetLogPlacementReasons(*opts, 1);
  TF_Session *sess = TF_NewSession(g, *opts, s);
  ex_check(s, "TF_NewSession");
  return sess;
}

int main(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  const float vals[6] = {1, 2, 3, 4, 5, 6};
  const int64_t da[2] = {2, 3}, db[2] = {3, 2};
  TF_Operation *a = ex_const(g, "a", "/device:GPU:2", da, 2, vals, s);
  TF_Operation *b = ex_const(g, "b", "/device:GPU:2", db, 2, vals, s);
  TF_Operation *c = ex_binary(g, "MatMul", "MatMul", "/device:GPU:2", (TF_Output){a, 0}, (TF_Output){b, 0}, s);
  TF_Output out = {c, 0};
  TF_Tensor *result = NULL;

  TF_SessionOptions *opts;
  TF_Session *strict = session(g, 0, &opts, s);
  TF_SessionRun(strict, NULL, NULL, NULL, 0, &out, &result, 1, NULL, 0, NULL, s);
  printf("without allow_soft_placement: %s: %s\n", TF_GetCode(s) == TF_INVALID_ARGUMENT ? "INVALID_ARGUMENT" : "?",
         TF_Message(s));
  int ok = TF_GetCode(s) == TF_INVALID_ARGUMENT && result == NULL;
  TF_DeleteSession(strict, s);
  TF_DeleteSessionOptions(opts);

  TF_Session *soft = session(g, 1, &opts, s);
  TF_SessionRun(soft, NULL, NULL, NULL, 0, &out, &result, 1, NULL, 0, NULL, s);
  ex_check(s, "TF_SessionRun with allow_soft_placement");
  fflush(stdout);
  ex_print_matrix("with allow_soft_placement: ", result);
  const char *dev = TFC_SessionOperationDevice(soft, c, s);
  ex_check(s, "TFC_SessionOperationDevice");
  const char *why = TFC_SessionOperationPlacementReason(soft, c, s);
  ex_check(s, "TFC_SessionOperationPlacementReason");
  printf("MatMul ran on %s because: %s\n", dev, why);
  TF_DeleteTensor(result);
  TF_DeleteSession(soft, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return ok ? 0 : 1;
}
