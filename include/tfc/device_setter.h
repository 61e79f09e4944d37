/*
 * device_setter.h — tf.train.replica_device_setter from C: a device function (see
 * TFC_ScopeWithDeviceFunction in train.h) that puts a model's parameters on the parameter
 * server tasks and everything else on the worker, for between-graph replicated training.
 *
 *     TFC_ReplicaDeviceSetter* rds = TFC_NewReplicaDeviceSetter(0, NULL, "/job:worker/task:1", 1,
 *         NULL, "ps=h:2222,h:2223;worker=h:2224,h:2225", NULL, 0, status);
 *     TFC_Scope* sc = TFC_ScopeWithDeviceFunction(root, TFC_ReplicaDeviceSetterFunction, rds);
 *     ... variables built under sc go to /job:ps/task:0, /job:ps/task:1, /job:ps/task:0, ...;
 *     their Assign and read follow them (colocation), other ops go to /job:worker/task:1 ...
 *     TFC_DeleteScope(sc); TFC_DeleteReplicaDeviceSetter(rds);
 *
 * The rules are TF 1.15's (python/training/device_setter.py):
 * - An op whose type is one of the ps ops goes to ps_device; when ps_device names a job and
 *   the op's requested job is empty or is that job, the task is the ps strategy's choice.
 *   Every other op goes to worker_device. Either way the op's own requested device is merged
 *   over the choice (its fields win). With merge_devices off, an op that already has a device
 *   keeps it unchanged.
 * - ps ops by default (TFC_ReplicaDeviceSetterStandardPsOp): Variable, VariableV2,
 *   AutoReloadVariable, MutableHashTable(V2), MutableHashTableOfTensors(V2),
 *   MutableDenseHashTable(V2), VarHandleOp, BoostedTreesEnsembleResourceHandleOp,
 *   BoostedTreesQuantileStreamResourceHandleOp, ResourceConditionalAccumulator.
 * - Strategies: round-robin over the ps tasks in the order ops are placed (the default);
 *   greedy by load (tf.contrib.training.GreedyLoadBalancingStrategy: the task with the least
 *   load so far, ties to the lowest index, then the op's load is added; the default load is
 *   byte_size_load_fn's: the elements of the op's single output times its dtype's size, the
 *   "shape" attr standing in for an unknown output shape); or the caller's function.
 *   A strategy is consulted only for the ops it places, so its state (the next task, the
 *   loads) lives as long as the setter and spans every graph it places.
 *
 * Ownership: the setter is the caller's (TFC_DeleteReplicaDeviceSetter) and must outlive the
 * scopes using it; its arguments are copied. Thread-safety: a setter is used by one thread at
 * a time (a builder call holds its graph's lock while it runs; two graphs built at once from
 * two threads must not share a setter). Errors are INVALID_ARGUMENT with TF's words where
 * TF has them.
 */
#ifndef TFC_DEVICE_SETTER_H_
#define TFC_DEVICE_SETTER_H_

#include "tensorflow/c/c_api.h"
#include "tfc/train.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TFC_ReplicaDeviceSetter TFC_ReplicaDeviceSetter;

/* A new setter, or NULL: with an error in status, or with status OK when there are no ps tasks
 * (TF's replica_device_setter returns None: build without a device function then).
 * - ps_tasks: the number of ps tasks; ignored when a cluster is given, whose ps job (the job of
 *   ps_device) gives it (no such job: no ps tasks). Negative: INVALID_ARGUMENT.
 * - ps_device, worker_device: device specs; NULL gives "/job:ps" and "/job:worker", "" no
 *   device. Malformed: INVALID_ARGUMENT "Malformed device specification '<spec>'".
 * - merge_devices: TF's merge_devices (nonzero: merge, as TF's default).
 * - cluster_def: a serialized tensorflow.ClusterDef, or NULL; else cluster_spec, the cluster
 *   string of server.h ("ps=h:1,h:2;worker=h:3"), or NULL. Both given: INVALID_ARGUMENT.
 * - ps_ops, num_ps_ops: the op types placed on ps (copied); ps_ops NULL: the standard list.
 * The strategy is round-robin until one of the TFC_ReplicaDeviceSetterUse* calls below. */
TF_CAPI_EXPORT extern TFC_ReplicaDeviceSetter* TFC_NewReplicaDeviceSetter(
    int ps_tasks, const char* ps_device, const char* worker_device, unsigned char merge_devices,
    const TF_Buffer* cluster_def, const char* cluster_spec, const char* const* ps_ops, int num_ps_ops,
    TF_Status* status);
TF_CAPI_EXPORT extern void TFC_DeleteReplicaDeviceSetter(TFC_ReplicaDeviceSetter* setter); /* NULL: no-op */

/* The number of ps tasks the setter places over (from ps_tasks or the cluster). */
TF_CAPI_EXPORT extern int TFC_ReplicaDeviceSetterPsTasks(const TFC_ReplicaDeviceSetter* setter);

/* 1 when op_type is in TF 1.15's standard ps op list, else 0. */
TF_CAPI_EXPORT extern int TFC_ReplicaDeviceSetterStandardPsOp(const char* op_type);

/* A load function for the greedy strategy: the load op_type/op_name adds to its ps task. op
 * is the operation when it exists (see TFC_DeviceFunction), else NULL. */
typedef double (*TFC_PsLoadFunction)(void* ctx, const char* op_type, const char* op_name, TF_Operation* op,
                                     TF_Status* status);
/* A strategy: the ps task index for the op (0 or more; TF uses it as is). */
typedef int (*TFC_PsStrategyFunction)(void* ctx, const char* op_type, const char* op_name, TF_Operation* op,
                                      TF_Status* status);

/* The greedy strategy over num_tasks tasks (its own count, as TF's takes; >= 1, else
 * INVALID_ARGUMENT), loads starting at 0. load_fn NULL: the byte size of the op (it then needs
 * the operation: INVALID_ARGUMENT when placing an op given without one, or one without a
 * single output, or with a shape not fully defined, naming the op). ctx borrowed. */
TF_CAPI_EXPORT extern void TFC_ReplicaDeviceSetterUseGreedyStrategy(TFC_ReplicaDeviceSetter* setter, int num_tasks,
                                                                    TFC_PsLoadFunction load_fn, void* ctx,
                                                                    TF_Status* status);
/* The caller's strategy (ctx borrowed). A negative task is INVALID_ARGUMENT. NULL fn:
 * INVALID_ARGUMENT "ps_strategy must be callable". */
TF_CAPI_EXPORT extern void TFC_ReplicaDeviceSetterUseStrategy(TFC_ReplicaDeviceSetter* setter,
                                                              TFC_PsStrategyFunction fn, void* ctx,
                                                              TF_Status* status);

/* The strategy's ps task for an op (its state advances), without the placement rules: what
 * tf.contrib.training.GreedyLoadBalancingStrategy(op) returns when called directly. -1 with
 * status set on error. */
TF_CAPI_EXPORT extern int TFC_ReplicaDeviceSetterChooseTask(TFC_ReplicaDeviceSetter* setter, const char* op_type,
                                                            const char* op_name, TF_Operation* op,
                                                            TF_Status* status);

/* The setter as a TFC_DeviceFunction (ctx: the setter): the device of an op of op_type named
 * op_name whose requested device is `device` (NULL: ""), canonical ("/job:ps/task:1"), as a
 * new buffer the caller deletes. Errors: the strategy's or load function's, or
 * INVALID_ARGUMENT for a malformed requested device. Also callable directly. */
TF_CAPI_EXPORT extern TF_Buffer* TFC_ReplicaDeviceSetterFunction(void* setter, const char* op_type,
                                                                 const char* op_name, const char* device,
                                                                 TF_Operation* op, TF_Status* status);

#ifdef __cplusplus
}
#endif

#endif /* TFC_DEVICE_SETTER_H_ */
