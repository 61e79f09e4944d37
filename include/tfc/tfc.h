/*
 * tfc.h — tfc's additions to the TensorFlow 1.15 C API. Everything here is optional: a program
 * written for libtensorflow never needs it. Names carry the TFC_ prefix.
 *
 * Plain session-option setters spare C programs from hand-encoding ConfigProto bytes; each
 * sets the same field TF_SetConfig would. They may be mixed with TF_SetConfig: the last call
 * wins for the field it sets.
 */
#ifndef TFC_TFC_H_
#define TFC_TFC_H_

#include "tensorflow/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ConfigProto.device_count[type] = count (e.g. "CPU", 4 gives four CPU devices). Types longer
 * than 15 bytes or more than 8 distinct types: INVALID_ARGUMENT. */
TF_CAPI_EXPORT extern void TFC_SetDeviceCount(TF_SessionOptions* options, const char* device_type,
                                              int count, TF_Status* status);
/* ConfigProto.intra_op_parallelism_threads / inter_op_parallelism_threads (0: core count). */
TF_CAPI_EXPORT extern void TFC_SetThreads(TF_SessionOptions* options, int intra_op, int inter_op);
/* ConfigProto.allow_soft_placement / log_device_placement. */
TF_CAPI_EXPORT extern void TFC_SetAllowSoftPlacement(TF_SessionOptions* options, unsigned char enable);
TF_CAPI_EXPORT extern void TFC_SetLogDevicePlacement(TF_SessionOptions* options, unsigned char enable);

/* The full name of the device `oper` was placed on by `session`
 * ("/job:localhost/replica:0/task:0/device:CPU:0"). Placement happens at the first run after
 * the node was added; before that: NULL with FAILED_PRECONDITION. The string is owned by the
 * session and valid until it is deleted. */
TF_CAPI_EXPORT extern const char* TFC_SessionOperationDevice(TF_Session* session,
                                                             TF_Operation* oper,
                                                             TF_Status* status);

#ifdef __cplusplus
}
#endif

#endif /* TFC_TFC_H_ */
