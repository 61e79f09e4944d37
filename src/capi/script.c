/*
 * capi/script — TFC_SetScriptCallback (include/tfc/tfc.h) over device/script.h: the public
 * callback gets C API tensors; this adapter converts the node's inputs to TF_Tensors
 * (numeric ones share their buffers) and the callback's outputs back to runtime tensors.
 */
#include <stdlib.h>

#include "capi/capi_internal.h"
#include "device/script.h"
#include "tfc/tfc.h"

static TFC_ScriptCallback user_cb;

/* Runs user_cb (the ctx is the user's, passed through). */
static int adapter(void *ctx, const char *token, tfc_tensor *const *in, int n_in, const int *out_types, int n_out,
                   tfc_tensor **out, tfc_status *s) {
  TFC_ScriptCallback cb = user_cb;
  TF_Tensor **tin = n_in ? calloc((size_t)n_in, sizeof *tin) : NULL;
  TF_Tensor **tout = n_out ? calloc((size_t)n_out, sizeof *tout) : NULL;
  TF_DataType *types = n_out ? calloc((size_t)n_out, sizeof *types) : NULL;
  TF_Status *st = TF_NewStatus();
  if ((n_in && !tin) || (n_out && (!tout || !types)) || !st) {
    TFC_OOM(s);
    goto done;
  }
  for (int i = 0; i < n_in; i++)
    if (!(tin[i] = tfc_capi_tensor_out(in[i], s))) goto done;
  for (int i = 0; i < n_out; i++) types[i] = (TF_DataType)out_types[i];
  cb(ctx, token, tin, n_in, types, tout, n_out, st);
  for (int i = 0; i < n_in; i++) tin[i] = NULL; /* the callback's now */
  if (TF_GetCode(st) != TF_OK) {
    tfc_status_set(s, (int)TF_GetCode(st), "%s", TF_Message(st));
    goto done;
  }
  for (int i = 0; i < n_out; i++) {
    if (!tout[i]) {
      tfc_status_set(s, TFC_INTERNAL, "the script callback returned no tensor %d for %s", i, token);
      goto done;
    }
    if (!(out[i] = tfc_capi_tensor_in(tout[i], s))) goto done;
  }
done:
  for (int i = 0; tin && i < n_in; i++)
    if (tin[i]) TF_DeleteTensor(tin[i]);
  for (int i = 0; tout && i < n_out; i++)
    if (tout[i]) TF_DeleteTensor(tout[i]);
  free(tin);
  free(tout);
  free(types);
  if (st) TF_DeleteStatus(st);
  return s->code;
}

TFC_EXPORT void TFC_SetScriptCallback(TFC_ScriptCallback callback, void *ctx) {
  user_cb = callback;
  tfc_script_set_callback(callback ? adapter : NULL, ctx);
}
