/*
 * script — the process's one callback into an embedding interpreter, which the script ops
 * (PyFunc, PyFuncStateless: kernels_script.c) call to run the function registered under
 * their `token` attr. The Python package sets it through TFC_SetScriptCallback
 * (include/tfc/tfc.h, src/capi/script.c); a process that sets none gets FAILED_PRECONDITION
 * from the ops.
 */
#ifndef TFC_DEVICE_SCRIPT_H
#define TFC_DEVICE_SCRIPT_H

#include "base/status.h"
#include "tensor/tensor.h"

/* Runs the function `token` on in[0..n_in) (borrowed) and stores n_out new references in
 * out[] (each NULL on entry); out_types are the node's output types, for the callback's
 * information (the kernel checks them). Returns 0, or nonzero with s set; out[] entries it
 * did set are released by the caller either way. Called from executor threads, possibly
 * several at once. */
typedef int (*tfc_script_fn)(void *ctx, const char *token, tfc_tensor *const *in, int n_in,
                             const int *out_types, int n_out, tfc_tensor **out, tfc_status *s);

/* Sets (fn non-NULL) or clears the callback. Runs already inside the old callback finish
 * with it; ctx must stay valid until then. Thread-safe. */
void tfc_script_set_callback(tfc_script_fn fn, void *ctx);
/* The callback and its ctx (both NULL when none is set), read together. */
void tfc_script_get_callback(tfc_script_fn *fn, void **ctx);

#endif
