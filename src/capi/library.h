/*
 * library — TF_LoadLibrary's bookkeeping shared with the registration functions.
 *
 * While a thread loads a library (dlopen runs the library's constructors, which register ops
 * and kernels), registration errors on that thread are noted here so that the load fails
 * with the first of them, as TF's loader fails a library whose REGISTER_OP clashes.
 */
#ifndef TFC_CAPI_LIBRARY_H
#define TFC_CAPI_LIBRARY_H

#include "base/status.h"

/* Notes a registration error (copied) for the load in progress on this thread, if any. */
void tfc_capi_library_note_error(const tfc_status *s);

#endif
