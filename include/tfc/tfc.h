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

/* TF's name of a status code ("INVALID_ARGUMENT", "DATA_LOSS"; "UNKNOWN_CODE" for a value out
 * of range), as tools print it in front of an error's message. Static storage. */
TF_CAPI_EXPORT extern const char* TFC_CodeName(TF_Code code);

/* ConfigProto.device_count[type] = count (e.g. "CPU", 4 gives four CPU devices). Types longer
 * than 15 bytes or more than 8 distinct types: INVALID_ARGUMENT. */
TF_CAPI_EXPORT extern void TFC_SetDeviceCount(TF_SessionOptions* options, const char* device_type,
                                              int count, TF_Status* status);
/* ConfigProto.intra_op_parallelism_threads / inter_op_parallelism_threads (0: core count). */
TF_CAPI_EXPORT extern void TFC_SetThreads(TF_SessionOptions* options, int intra_op, int inter_op);
/* ConfigProto.allow_soft_placement / log_device_placement. */
TF_CAPI_EXPORT extern void TFC_SetAllowSoftPlacement(TF_SessionOptions* options, unsigned char enable);
TF_CAPI_EXPORT extern void TFC_SetLogDevicePlacement(TF_SessionOptions* options, unsigned char enable);

/* tfc only: with log_device_placement, each placement line also says why the node went
 * there ("MatMul: (MatMul): /job:localhost/replica:0/task:0/device:CPU:1  # explicit request
 * /device:CPU:1"). Enabling it enables log_device_placement too. TF's own line format is
 * unchanged when it is off. */
TF_CAPI_EXPORT extern void TFC_SetLogPlacementReasons(TF_SessionOptions* options, unsigned char enable);
/* ConfigProto.operation_timeout_in_ms: a step that runs longer fails with DEADLINE_EXCEEDED
 * naming what it still waited for (0: no deadline). RunOptions.timeout_in_ms of one
 * TF_SessionRun overrides it. */
TF_CAPI_EXPORT extern void TFC_SetOperationTimeout(TF_SessionOptions* options, int64_t timeout_ms);

/* The full name of the device `oper` was placed on by `session`
 * ("/job:localhost/replica:0/task:0/device:CPU:0"). Placement happens at the first run after
 * the node was added; before that: NULL with FAILED_PRECONDITION. The string is owned by the
 * session and valid until it is deleted. */
TF_CAPI_EXPORT extern const char* TFC_SessionOperationDevice(TF_Session* session,
                                                             TF_Operation* oper,
                                                             TF_Status* status);

/* Why `oper` was placed where it is ("explicit request /device:CPU:1", "colocated with w via
 * reference edge", "soft placement: no GPU kernel for Assign", "default: first device with a
 * kernel", ...). Same lifetime and errors as TFC_SessionOperationDevice. */
TF_CAPI_EXPORT extern const char* TFC_SessionOperationPlacementReason(TF_Session* session,
                                                                      TF_Operation* oper,
                                                                      TF_Status* status);

/* Memory that kernels of `device` (a full name from TF_SessionListDevices) allocated and that
 * is still alive — including fetched tensors the caller still holds — and the peak since the
 * session started. NOT_FOUND for a name the session does not have. */
TF_CAPI_EXPORT extern void TFC_SessionDeviceMemory(TF_Session* session, const char* device,
                                                   int64_t* bytes_in_use, int64_t* peak_bytes_in_use,
                                                   TF_Status* status);

/* Runs that another thread may stop (TensorFlow 1.x has none: a blocked TF_SessionRun cannot
 * be interrupted). TFC_SessionRunWithCancellation is TF_SessionRun with a cancellation
 * manager: once TFC_CancellationManagerStartCancel is called on it — before or during the run,
 * from any thread — the run ends with CANCELLED "Run call was cancelled": ops blocked on
 * queues or on tensors from other devices or tasks wake, no further op starts, variables are
 * left as they were before the run, and the session stays usable. A remote session's run is
 * cancelled on the master too. A manager is cancelled for good; several runs may share one.
 * TFC_NewCancellationManager returns NULL when out of memory; delete a manager only once no
 * run uses it. NULL managers are accepted (not cancellable; a no-op; 0). */
typedef struct TFC_CancellationManager TFC_CancellationManager;
TF_CAPI_EXPORT extern TFC_CancellationManager* TFC_NewCancellationManager(void);
TF_CAPI_EXPORT extern void TFC_DeleteCancellationManager(TFC_CancellationManager* manager);
TF_CAPI_EXPORT extern void TFC_CancellationManagerStartCancel(TFC_CancellationManager* manager);
TF_CAPI_EXPORT extern unsigned char TFC_CancellationManagerIsCancelled(TFC_CancellationManager* manager);
TF_CAPI_EXPORT extern void TFC_SessionRunWithCancellation(
    TF_Session* session, const TF_Buffer* run_options, const TF_Output* inputs,
    TF_Tensor* const* input_values, int ninputs, const TF_Output* outputs, TF_Tensor** output_values,
    int noutputs, const TF_Operation* const* target_opers, int ntargets, TF_Buffer* run_metadata,
    TFC_CancellationManager* manager, TF_Status* status);

/* The script ops (TF's PyFunc and PyFuncStateless, whose `token` attr names a function of an
 * embedding interpreter) call the process's one script callback: it gets the node's token and
 * inputs (new tensors the callback owns and deletes; numeric ones share the runtime's memory,
 * which must not be written) and stores `noutputs` new tensors in
 * outputs[] (NULL on entry; the caller takes them), or sets a non-OK status, which fails the
 * run with that code and message. output_types are the node's Tout; a returned tensor of
 * another type fails the run with INVALID_ARGUMENT ("0-th value returned by <token> is
 * double, but expects float"). Without a callback the ops fail with FAILED_PRECONDITION.
 * Called from the session's threads, possibly several at once, while TF_SessionRun runs.
 * TFC_SetScriptCallback(NULL, NULL) clears it; ctx must outlive the runs that use it, and
 * the callback must not be changed while runs may call it. */
typedef void (*TFC_ScriptCallback)(void* ctx, const char* token, TF_Tensor* const* inputs, int ninputs,
                                   const TF_DataType* output_types, TF_Tensor** outputs, int noutputs,
                                   TF_Status* status);
TF_CAPI_EXPORT extern void TFC_SetScriptCallback(TFC_ScriptCallback callback, void* ctx);

#ifdef __cplusplus
}
#endif

#endif /* TFC_TFC_H_ */
