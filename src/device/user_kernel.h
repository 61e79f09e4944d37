/*
 * user_kernel — kernels registered at run time for user ops (TF_RegisterKernelBuilder,
 * include/tensorflow/c/kernels.h), beside the compiled kernel tables of device/kernel.h.
 *
 * tfc_kernel_find answers a node whose op is a user op (ops/user_ops.h) from here, so the
 * placer, the partitioner and the executor see these kernels as any table row. A row is
 * {op name, device type, type constraints, a tfc_kernel_def whose init/compute/free_state are
 * the C API's bridges (capi/kernels_api.c), and the user's builder}. Rows match by op name:
 * a kernel may be registered before its op, as TF's kernel registry allows.
 *
 * Rows are never removed; a row's pointer stays valid for the process. Thread-safe (one
 * mutex; lookups take it briefly).
 */
#ifndef TFC_DEVICE_USER_KERNEL_H
#define TFC_DEVICE_USER_KERNEL_H

#include "device/kernel.h"

typedef struct tfc_user_kernel {
  char *op_name;
  char *device_type;         /* "CPU", "GPU" */
  int n_constraints;
  char **constraint_attrs;   /* each must hold: attr == constraint_types[i] */
  int *constraint_types;
  int n_host_args;
  char **host_args;          /* TF_KernelBuilder_HostMemory's arg names */
  tfc_kernel_def def;        /* def.op is -1: rows match by op_name */
  void *user;                /* the C API's builder (callbacks), owned by the row's maker */
} tfc_user_kernel;

/* Appends k (heap, taken on success). RESOURCE_EXHAUSTED on out of memory (k left to the
 * caller). */
int tfc_user_kernel_add(tfc_user_kernel *k, tfc_status *s);
/* The first row for n's op on device_type whose constraints n's attrs satisfy; NULL if none.
 * *any (may be NULL) is set when some row names the op and device type. */
const tfc_user_kernel *tfc_user_kernel_find(const char *device_type, const tfc_node *n, int *any);
/* The row that runs n on the device type of its assigned device (a partition's node; "CPU"
 * when unassigned): what a kernel bridge's init uses to find its builder. */
const tfc_user_kernel *tfc_user_kernel_for_node(const tfc_node *n);
/* Rows registered so far, in order (listing: TF_GetAllRegisteredKernels). */
int tfc_user_kernel_count(void);
const tfc_user_kernel *tfc_user_kernel_at(int i);

#endif
