/*
 * saver.h — tf.compat.v1.train.Saver for C: the save and restore subgraph TF 1.15's Python
 * builds (V2 checkpoints, not sharded), and the bookkeeping around it: "<path>-<step>" names,
 * the "checkpoint" state file, max_to_keep, tf.train.latest_checkpoint.
 *
 * The graph, for variables a, b (sorted by their checkpoint names) under a unique name scope
 * "save" ("save_1" when taken, as Python):
 *   save/filename/input   Const "model"
 *   save/filename         PlaceholderWithDefault(save/filename/input)
 *   save/Const            PlaceholderWithDefault(save/filename)        <- feed the path here
 *   save/SaveV2/tensor_names, save/SaveV2/shape_and_slices   Consts ["a","b"], ["",""]
 *   save/SaveV2           SaveV2(save/Const, names, slices, a, b)
 *   save/control_dependency  Identity(save/Const, ^save/SaveV2)       <- fetch to save
 *   save/RestoreV2/tensor_names, save/RestoreV2/shape_and_slices, save/RestoreV2
 *                         on /device:CPU:0
 *   save/Assign, save/Assign_1   Assign(var, save/RestoreV2:i) colocated with the variable
 *   save/restore_all      NoOp(^save/Assign, ^save/Assign_1)          <- run to restore
 * node for node as Python makes it (names, inputs, attrs, devices, colocation). The files are
 * TF's V2 checkpoint ("<prefix>.index", "<prefix>.data-00000-of-00001", byte-compatible with
 * TF: either side reads what the other wrote).
 *
 * Checkpoint bookkeeping follows Python's Saver: the saver remembers the checkpoints it wrote
 * (the newest max_to_keep); each save rewrites the state file "checkpoint" in the save path's
 * directory (written to a temporary file and renamed) listing them, and deletes the files of
 * the one that fell off the list. The paths in the state file are relative to that directory
 * (what Python writes for a relative save_path, and with save_relative_paths=True), so the
 * directory can be moved. Like Python, a new saver does not read an existing state file: call
 * TFC_SaverRecoverLastCheckpoints when resuming so that max_to_keep also covers the
 * checkpoints of earlier runs. TFC_SaverSave does not write the ".meta" MetaGraphDef;
 * TFC_SaverSaveWithOptions with TFC_SAVER_WRITE_META_GRAPH does, as Python's Saver.save does
 * by default (tfc/meta_graph.h's TFC_ExportMetaGraph).
 *
 * A saver can also be made over nodes already in the graph (an imported MetaGraphDef's
 * saver_def: TFC_NewSaverFromDef), as Python's Saver(saver_def=...). TFC_SaverSaveWithOptions
 * gives Python's save arguments (latest_filename, write_state, pad_step_number, paths in the
 * state file as given); keep_checkpoint_every_n_hours keeps, of the checkpoints falling off
 * the list, one per that many hours (TFC_SaverSetKeepCheckpointEveryNHours).
 *
 * Ownership: the saver is the caller's (TFC_DeleteSaver); it borrows the graph, which must
 * outlive it. Operations and outputs returned belong to the graph. Errors are reported in the
 * TF_Status (which may be NULL) with TF's codes; a failed TFC_NewSaver leaves the graph as it
 * was. Thread-safety: one thread at a time per saver; builder calls follow train.h's rules.
 */
#ifndef TFC_SAVER_H_
#define TFC_SAVER_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api.h"
#include "tfc/train.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TFC_Saver TFC_Saver;

/* tf.compat.v1.train.Saver(var_list, max_to_keep=max_to_keep) under `scope`'s name scope "save"
 * (TFC_ScopeWithBuilderName gives Saver(name=...)'s name instead; made unique either way) (the
 * RestoreV2 nodes also take "/cpu:0" merged onto the scope's device). vars[i] is a reference
 * variable's output (a VariableV2: TFC_Variable.variable's output 0) saved under names[i], or,
 * with names NULL, under the variable's op name. num_vars 0 (vars NULL): every global variable
 * (TFC_GlobalVariables) under its op name. max_to_keep: Python's default is 5; 0 or less keeps
 * every checkpoint's files (and, as Python, lists only the newest in the state file).
 * Errors (INVALID_ARGUMENT, graph unchanged): no variables ("No variables to save"), a NULL or
 * foreign output, an output that is not a reference variable, two variables under one name
 * ("At least two variables have the same name: w"). NULL on error. */
TF_CAPI_EXPORT extern TFC_Saver* TFC_NewSaver(const TFC_Scope* scope, const char* const* names,
                                             const TF_Output* vars, int num_vars, int max_to_keep,
                                             TF_Status* status);
/* A mutable lookup table to save, as TF's MutableHashTable / DenseHashTable saveables do:
 * the table's exported keys and values go to the checkpoint as "<name>-keys" and
 * "<name>-values" (Python's table name is its op name), and restoring runs
 * "save/<name>_table_restore/LookupTableImportV2" (colocated with the table) with them, which
 * replaces the table's contents. table: output 0 of a MutableHashTableV2,
 * MutableHashTableOfTensorsV2 or MutableDenseHashTableV2. keys/values: the
 * LookupTableExportV2 outputs to save (Python's table makes one when it is created); keys.oper
 * NULL: the saver adds "<table op>_lookup_table_export_values/LookupTableExportV2" at the
 * scope's root. */
typedef struct TFC_SaverTable {
  const char* name;
  TF_Output table;
  TF_Output keys, values;
} TFC_SaverTable;
/* TFC_NewSaver that also saves num_tables tables, sorted with the variables by name (tables[]
 * is borrowed for the call). With num_vars 0 the variables are every global variable, as
 * TFC_NewSaver's, and tables only is fine. Errors as TFC_NewSaver's (a table and a variable
 * of one name: "At least two variables have the same name: t"), and INVALID_ARGUMENT for a
 * table output that is not a mutable table op's or an empty name. */
TF_CAPI_EXPORT extern TFC_Saver* TFC_NewSaverWithTables(const TFC_Scope* scope, const char* const* names,
                                                       const TF_Output* vars, int num_vars,
                                                       const TFC_SaverTable* tables, int num_tables,
                                                       int max_to_keep, TF_Status* status);
TF_CAPI_EXPORT extern void TFC_DeleteSaver(TFC_Saver* saver); /* NULL: no-op */

/* The saver's graph nodes, for running them by hand (Python's saver_def): feed the checkpoint
 * prefix (a scalar TF_STRING) to the filename tensor "save/Const:0"; fetching the save tensor
 * "save/control_dependency:0" saves and returns the prefix; running "save/restore_all"
 * restores. */
TF_CAPI_EXPORT extern TF_Output TFC_SaverFilenameTensor(const TFC_Saver* saver);
TF_CAPI_EXPORT extern TF_Output TFC_SaverSaveTensor(const TFC_Saver* saver);
TF_CAPI_EXPORT extern TF_Operation* TFC_SaverSaveOp(const TFC_Saver* saver);    /* save/SaveV2 */
TF_CAPI_EXPORT extern TF_Operation* TFC_SaverRestoreOp(const TFC_Saver* saver); /* save/restore_all */

/* saver.save(sess, save_path, global_step): saves to "<save_path>-<global_step>" (global_step
 * < 0: to save_path itself), copies that prefix into out_path (NUL-terminated; out_path may be
 * NULL; a too-small buffer is INVALID_ARGUMENT after the save), updates the state file and
 * deletes the files of checkpoints beyond max_to_keep, oldest first. Returns 1 on success, 0
 * on error: the SaveV2 kernel's (file errors name the file; nothing at the new prefix or in
 * the state file changes when the data or index file cannot be written) or the state file's.
 * The directory is created when missing. The saver's first save to a save_path first removes
 * the temporary files ("*.tempstate*") that saves to save_path or "<save_path>-<step>" killed
 * midway left behind, sparing those a live save (of any saver, in any process) is writing. */
TF_CAPI_EXPORT extern int TFC_SaverSave(TFC_Saver* saver, TF_Session* session, const char* save_path,
                                       int64_t global_step, char* out_path, size_t out_len,
                                       TF_Status* status);
/* Bits of TFC_SaverSaveWithOptions's flags. */
#define TFC_SAVER_NO_STATE 1         /* write_state=False: no tracking, state file or pruning */
#define TFC_SAVER_PATHS_AS_GIVEN 2   /* the state file lists the paths as given (Python's default;
                                        without it they are relative to the directory) */
#define TFC_SAVER_PAD_STEP_NUMBER 4  /* "<save_path>-%08d" (pad_step_number=True) */
#define TFC_SAVER_WRITE_META_GRAPH 8 /* write_meta_graph=True: after the save, the graph's
                                        MetaGraphDef (TFC_ExportMetaGraph with this saver's
                                        SaverDef, every collection) to "<prefix>.<meta_suffix>" */
/* TFC_SaverSave with Python's options: the state file is save_path's directory's
 * latest_filename (NULL: "checkpoint"; one with a '/' is INVALID_ARGUMENT "'latest_filename'
 * must not contain path components"), and a pruned checkpoint's meta graph file is
 * "<prefix>.<meta_suffix>" (NULL: "meta"). flags: TFC_SAVER_* bits. */
TF_CAPI_EXPORT extern int TFC_SaverSaveWithOptions(TFC_Saver* saver, TF_Session* session,
                                                  const char* save_path, int64_t global_step,
                                                  const char* latest_filename, const char* meta_suffix,
                                                  int flags, char* out_path, size_t out_len,
                                                  TF_Status* status);
/* saver.restore(sess, save_path): runs save/restore_all with the prefix fed. NOT_FOUND "The
 * passed save_path is not a valid checkpoint: <path>" when "<path>.index" does not exist;
 * otherwise RestoreV2's and Assign's errors (a missing key is NOT_FOUND "Key w not found in
 * checkpoint <path>", a dtype mismatch INVALID_ARGUMENT, a shape mismatch Assign's
 * INVALID_ARGUMENT, corrupt files DATA_LOSS naming the file). A failed restore changes no
 * variable. */
TF_CAPI_EXPORT extern void TFC_SaverRestore(TFC_Saver* saver, TF_Session* session,
                                           const char* save_path, TF_Status* status);

/* The checkpoints the saver keeps track of, oldest first (at most max_to_keep): count, and
 * entry i (owned by the saver; valid until its next save, recover or delete). */
TF_CAPI_EXPORT extern int TFC_SaverNumLastCheckpoints(const TFC_Saver* saver);
TF_CAPI_EXPORT extern const char* TFC_SaverLastCheckpoint(const TFC_Saver* saver, int i);
/* The time (seconds since the epoch) checkpoint i was saved, as tracked. */
TF_CAPI_EXPORT extern double TFC_SaverLastCheckpointTime(const TFC_Saver* saver, int i);
/* saver.set_last_checkpoints_with_time(zip(paths, times)): replaces the tracked list (copied;
 * not truncated to max_to_keep, as Python). times NULL: never deleted when they fall off the
 * list (Python's set_last_checkpoints, which gives them an infinite time). */
TF_CAPI_EXPORT extern void TFC_SaverSetLastCheckpoints(TFC_Saver* saver, const char* const* paths,
                                                      const double* times, int n, TF_Status* status);
/* keep_checkpoint_every_n_hours (Python's default 10000): a checkpoint falling off the list
 * that was saved more than `hours` after the previous one kept (or after this call) is kept. */
TF_CAPI_EXPORT extern void TFC_SaverSetKeepCheckpointEveryNHours(TFC_Saver* saver, double hours);

/* The SaverDef message's fields (tensorflow/core/protobuf/saver.proto), as C values. */
typedef struct TFC_SaverDef {
  const char* filename_tensor_name; /* "save/Const:0": feed the prefix */
  const char* save_tensor_name;     /* "save/control_dependency:0": fetch to save */
  const char* restore_op_name;      /* "save/restore_all": run to restore */
  int max_to_keep;
  unsigned char sharded;
  double keep_checkpoint_every_n_hours;
  int version; /* 2: V2 checkpoints */
} TFC_SaverDef;
/* saver.as_saver_def(): the strings are the saver's (valid while it lives); sharded is 0. */
TF_CAPI_EXPORT extern void TFC_SaverGetDef(const TFC_Saver* saver, TFC_SaverDef* out);
/* Saver(saver_def=def): a saver over nodes already in graph (borrowed; must outlive it), with
 * def's max_to_keep and keep_checkpoint_every_n_hours (0: Python's default). Errors:
 * INVALID_ARGUMENT "saver_def must specify the save_tensor_name" / "... the
 * restore_op_name"; NOT_FOUND naming a field whose node is not in the graph. NULL on error. */
TF_CAPI_EXPORT extern TFC_Saver* TFC_NewSaverFromDef(TF_Graph* graph, const TFC_SaverDef* def,
                                                    TF_Status* status);

/* saver.recover_last_checkpoints(state.all_model_checkpoint_paths): reads checkpoint_dir's
 * state file and tracks the listed checkpoints whose index file exists (the newest max_to_keep
 * of them), so later saves also delete those. No state file: nothing changes, OK. An
 * unparseable one: DATA_LOSS naming it. */
TF_CAPI_EXPORT extern void TFC_SaverRecoverLastCheckpoints(TFC_Saver* saver,
                                                          const char* checkpoint_dir,
                                                          TF_Status* status);

/* tf.train.latest_checkpoint(checkpoint_dir): the state file's model_checkpoint_path (joined
 * to checkpoint_dir when relative) copied into out. Returns 1 when found; 0 when there is no
 * state file, it names no checkpoint, or that checkpoint's index file does not exist; -1 on
 * error (DATA_LOSS for an unparseable state file naming it, INVALID_ARGUMENT when out_len is
 * too small). Thread-safe. */
TF_CAPI_EXPORT extern int TFC_LatestCheckpoint(const char* checkpoint_dir, char* out, size_t out_len,
                                              TF_Status* status);

/* tf.train.get_checkpoint_state(checkpoint_dir, latest_filename): the state file
 * checkpoint_dir/latest_filename (NULL: "checkpoint") read, its relative paths joined to
 * checkpoint_dir. NULL with status OK when there is no such file; NULL with DATA_LOSS naming
 * an unparseable one. The caller owns the result (TFC_DeleteCheckpointState); the strings
 * are the state's. Thread-safe. */
typedef struct TFC_CheckpointState TFC_CheckpointState;
TF_CAPI_EXPORT extern TFC_CheckpointState* TFC_GetCheckpointState(const char* checkpoint_dir,
                                                                 const char* latest_filename,
                                                                 TF_Status* status);
TF_CAPI_EXPORT extern void TFC_DeleteCheckpointState(TFC_CheckpointState* state); /* NULL: no-op */
TF_CAPI_EXPORT extern const char* TFC_CheckpointStateModelPath(const TFC_CheckpointState* state); /* "" if unset */
TF_CAPI_EXPORT extern int TFC_CheckpointStateNumPaths(const TFC_CheckpointState* state);
TF_CAPI_EXPORT extern const char* TFC_CheckpointStatePath(const TFC_CheckpointState* state, int i);
/* tf.train.update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths,
 * latest_filename): rewrites the state file (temp file + rename) listing the paths, the model
 * path appended when the list does not end with it; paths_as_given 0 writes them relative to
 * save_dir. Errors name the file. */
TF_CAPI_EXPORT extern void TFC_UpdateCheckpointState(const char* save_dir, const char* model_checkpoint_path,
                                                    const char* const* all_model_checkpoint_paths, int n,
                                                    const char* latest_filename, int paths_as_given,
                                                    TF_Status* status);

/* tf.train.NewCheckpointReader(prefix) (py_checkpoint_reader): the tensors of the V2
 * checkpoint at prefix, read without a graph or session. NOT_FOUND "Unsuccessful
 * TensorSliceReader constructor: Failed to find any matching files for <prefix>" when there is
 * no "<prefix>.index"; DATA_LOSS naming a malformed index. The caller owns the reader
 * (TFC_DeleteCheckpointReader); names are the reader's. One thread at a time per reader. */
typedef struct TFC_CheckpointReader TFC_CheckpointReader;
TF_CAPI_EXPORT extern TFC_CheckpointReader* TFC_NewCheckpointReader(const char* prefix, TF_Status* status);
TF_CAPI_EXPORT extern void TFC_DeleteCheckpointReader(TFC_CheckpointReader* reader); /* NULL: no-op */
/* The tensors, in the index's (sorted) order: how many, and name i. */
TF_CAPI_EXPORT extern int TFC_CheckpointReaderNumTensors(const TFC_CheckpointReader* reader);
TF_CAPI_EXPORT extern const char* TFC_CheckpointReaderTensorName(const TFC_CheckpointReader* reader, int i);
/* The dtype and shape saved under name: returns the rank (dims filled up to max_dims) and sets
 * *out_dtype; -1 with NOT_FOUND "Key <name> not found in checkpoint" when absent. */
TF_CAPI_EXPORT extern int TFC_CheckpointReaderTensorInfo(TFC_CheckpointReader* reader, const char* name,
                                                        TF_DataType* out_dtype, int64_t* dims, int max_dims,
                                                        TF_Status* status);
/* reader.get_tensor(name): a new tensor the caller owns; NULL with NOT_FOUND "Key <name> not
 * found in checkpoint", or DATA_LOSS naming the data file whose checksum fails. */
TF_CAPI_EXPORT extern TF_Tensor* TFC_CheckpointReaderGetTensor(TFC_CheckpointReader* reader, const char* name,
                                                              TF_Status* status);

/* Whether the checkpoint at prefix can be restored whole: its index file opens and parses,
 * and every tensor it lists is in the data files with its size and checksum right (each byte
 * is read once; no session needed). Returns 1 (status OK) when intact, else 0 with status
 * saying why: NOT_FOUND naming the missing index or data file, DATA_LOSS naming the corrupt
 * file (and tensor). Thread-safe. */
TF_CAPI_EXPORT extern int TFC_CheckpointIntact(const char* prefix, TF_Status* status);

/* Called by TFC_LatestIntactCheckpoint for each listed checkpoint it passes over: its path
 * (joined to the directory) and why (TFC_CheckpointIntact's status). Both are borrowed for
 * the call. */
typedef void (*TFC_CheckpointSkipped)(void* arg, const char* path, const TF_Status* why);

/* TFC_LatestCheckpoint for a directory whose newest checkpoints may be damaged (a disk
 * error, a copy cut short, a file deleted by hand): the newest checkpoint listed in the state
 * file that TFC_CheckpointIntact accepts — model_checkpoint_path first, then
 * all_model_checkpoint_paths from the last (newest) entry to the first — copied into out.
 * skipped (may be NULL) hears of each one passed over, newest first. Returns 1 when found; 0
 * when there is no state file or no listed checkpoint is intact; -1 on error (DATA_LOSS for
 * an unparseable state file naming it, INVALID_ARGUMENT when out_len is too small).
 * Thread-safe. */
TF_CAPI_EXPORT extern int TFC_LatestIntactCheckpoint(const char* checkpoint_dir, char* out, size_t out_len,
                                                    TFC_CheckpointSkipped skipped, void* arg,
                                                    TF_Status* status);

#ifdef __cplusplus
}
#endif

#endif
