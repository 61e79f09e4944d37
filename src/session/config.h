/*
 * config — the session options tfc acts on, as a plain struct decoded from ConfigProto
 * (tensorflow/core/protobuf/config.proto) at the edge. Fields tfc does not act on are
 * accepted and ignored, as TF ignores settings that do not apply.
 *
 * Ownership: caller storage; tfc_session_config_init sets TF's defaults, _fini frees the
 * strings, _copy deep-copies.
 */
#ifndef TFC_SESSION_CONFIG_H
#define TFC_SESSION_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

#define TFC_CONFIG_MAX_DEVICE_TYPES 8

typedef struct tfc_device_count {
  char type[16]; /* "CPU", "GPU" */
  int count;
} tfc_device_count;

typedef struct tfc_session_config {
  int n_device_counts;
  tfc_device_count device_counts[TFC_CONFIG_MAX_DEVICE_TYPES]; /* ConfigProto.device_count */
  int intra_op_parallelism_threads;  /* 0: number of cores */
  int inter_op_parallelism_threads;  /* 0: number of cores */
  int allow_soft_placement;
  int log_device_placement;
  int use_per_session_threads;
  int64_t operation_timeout_in_ms;   /* 0: none */
  int place_pruned_graph;            /* GraphOptions.place_pruned_graph */
  int log_placement_reasons;         /* tfc only: say why, with log_device_placement */
  /* The graph optimizer (optimize/optimize.h), on unless switched off: constant folding is off
   * with OptimizerOptions opt_level L0 without do_constant_folding, or RewriterConfig's
   * constant_folding OFF; folding per-channel scales into weights is off with its
   * arithmetic_optimization or remapping OFF; fusing convolutions with their bias and
   * activation (and a Pad before them) and max pooling's workspace are off with remapping OFF; disable_meta_optimizer
   * switches off all. */
  int no_constant_folding;
  int no_scale_folding;
  int no_remapping;
  int no_dependency_optimization;
  int64_t max_folded_constant_in_bytes; /* OptimizerOptions; 0: TF's default, 10 MiB */
  /* GPUOptions */
  double per_process_gpu_memory_fraction;
  int allow_growth;
  char *visible_device_list;         /* NULL or "0,1" */
  /* GPUOptions.experimental.virtual_devices, one entry per visible GPU (0 entries: not given).
   * Entry i has virtual_device_n_limits[i] memory limits in MiB, stored one entry after the
   * other in virtual_device_limits_mb (n_virtual_device_limits values in all). Owned. */
  int n_virtual_devices;
  int *virtual_device_n_limits;
  int n_virtual_device_limits;
  float *virtual_device_limits_mb;
  /* ConfigProto.device_filters ("/job:ps", "/job:worker/task:1"), as given; the master of a
   * cluster session uses only the tasks and devices they match. Owned. */
  char **device_filters;
  int n_device_filters;
  /* ClusterDef is decoded by the distributed runtime from the raw bytes kept here. */
  void *raw;                         /* the ConfigProto bytes as given, or NULL */
  size_t raw_len;
} tfc_session_config;

/* RunOptions, per TF_SessionRun. */
typedef struct tfc_run_options {
  int64_t timeout_in_ms; /* 0: the session's operation_timeout_in_ms, if any */
  /* The run ends with CANCELLED once this is cancelled (TFC_SessionRunWithCancellation;
   * borrowed); NULL: not cancellable. */
  struct tfc_cancel *cancel;
  int trace_level;             /* RunOptions.trace_level (exec/step_stats.h TFC_TRACE_*) */
  int output_partition_graphs; /* RunOptions.output_partition_graphs */
  /* Where the run stores its serialized RunMetadata (step_stats when traced, partition_graphs
   * when asked for): *metadata gets malloc'd bytes the caller frees, also after a failed run
   * (then NULL). NULL: not wanted, and nothing is recorded. */
  void **metadata;
  size_t *metadata_len;
} tfc_run_options;

void tfc_session_config_init(tfc_session_config *c);
void tfc_session_config_fini(tfc_session_config *c);
int tfc_session_config_copy(const tfc_session_config *src, tfc_session_config *dst, tfc_status *s);
/* Count for a device type from device_count, or -1 when not given. */
int tfc_session_config_device_count(const tfc_session_config *c, const char *type);
/* Decodes serialized ConfigProto bytes into *c (replacing what it held). Malformed bytes are
 * INVALID_ARGUMENT "Unparseable ConfigProto" (TF's text) and leave *c unchanged. */
int tfc_session_config_parse(tfc_session_config *c, const void *data, size_t len, tfc_status *s);

/* Decodes serialized RunOptions bytes (NULL/0: defaults). Malformed: INVALID_ARGUMENT
 * "Unparseable RunOptions proto". */
int tfc_run_options_parse(tfc_run_options *o, const void *data, size_t len, tfc_status *s);

#endif
