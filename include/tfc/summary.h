/*
 * summary.h — TensorBoard from C: summary builders named as TF 1.15's tf.summary.* and an
 * event-file writer as tf.summary.FileWriter.
 *
 * Builders. TFC_ScalarSummary(scope, "loss", x) adds what tf.summary.scalar("loss", x) adds:
 * a unique name scope "loss" (then "loss_1", ...; below the scope's own name), a string Const
 * "<scope>/tags" holding the tag, and the ScalarSummary op named after the scope itself; the
 * tag is the full scope name ("train/loss"), so tags are unique as node names are. Names are
 * cleaned as Python's clean_tag does (characters outside [-/A-Za-z0-9_.] become '_', leading
 * '/' dropped; bytes >= 0x80 are kept, as Python's Unicode \w keeps letters). Scalar,
 * histogram, tensor and audio summaries are added to the graph's "summaries" collection (train.h's
 * TFC_CollectionEntry reads it), which TFC_MergeAllSummaries merges. The builders follow
 * train.h's rules: nodes get the scope's device and control dependencies, a failed call leaves
 * the graph as it was, and the status may be NULL. Thread-safety: as train.h's builders.
 *
 * Event writer. TFC_NewEventWriter(logdir) creates logdir (like mkdir -p) and the file
 * <logdir>/events.out.tfevents.<seconds, 10 digits>.<hostname>, whose first record,
 * Event{wall_time, file_version "brain.Event:2"}, is flushed at once. Each Add* appends one
 * Event (wall_time = now in seconds, the given step) framed as a TFRecord; writes are buffered
 * until TFC_EventWriterFlush or TFC_CloseEventWriter. TensorBoard, TF's summary_iterator and
 * tensorboard's EventAccumulator read the files. As Python's FileWriter, a summary value's
 * metadata is written with the first value of its tag only. A writer may be used from several
 * threads at once; records never interleave.
 *
 * Ownership: writers are the caller's (TFC_DeleteEventWriter); graphs, sessions and tensors
 * passed in are borrowed for the call; TF_Output / TF_Operation results belong to the graph.
 */
#ifndef TFC_SUMMARY_H_
#define TFC_SUMMARY_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api.h"
#include "tfc/train.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- summary builders */

/* tf.summary.scalar(name, value): value is a real-number tensor holding a single value (any
 * rank; the op itself checks at run time that tags and values have the same shape, TF's
 * INVALID_ARGUMENT "tags and values not the same shape: [] != [2] (tag 'loss')"). Returns the
 * serialized Summary (a string scalar). name NULL or empty once cleaned: INVALID_ARGUMENT. */
TF_CAPI_EXPORT extern TF_Output TFC_ScalarSummary(const TFC_Scope* scope, const char* name,
                                                 TF_Output value, TF_Status* status);
/* tf.summary.histogram(name, values): "<scope>/tag" Const and the HistogramSummary op; any
 * shape; name NULL: "HistogramSummary". At run time a NaN or infinite value is TF's
 * INVALID_ARGUMENT "Nan in summary histogram for: <node name>" ("Infinity in ..."). */
TF_CAPI_EXPORT extern TF_Output TFC_HistogramSummary(const TFC_Scope* scope, const char* name,
                                                    TF_Output values, TF_Status* status);
/* tf.summary.scalar / tf.summary.histogram with family=family (NULL: none, as the functions
 * above): the name scope is "<family>/<name>" and the tag "<family>/<scope name>"
 * ("fam/fam/loss"; "fam/train/fam/loss" under "train"), family cleaned as names are. A family
 * empty once cleaned is INVALID_ARGUMENT. */
TF_CAPI_EXPORT extern TF_Output TFC_ScalarSummaryWithFamily(const TFC_Scope* scope, const char* name,
                                                           const char* family, TF_Output value,
                                                           TF_Status* status);
TF_CAPI_EXPORT extern TF_Output TFC_HistogramSummaryWithFamily(const TFC_Scope* scope, const char* name,
                                                              const char* family, TF_Output values,
                                                              TF_Status* status);
/* tf.summary.tensor_summary(name, tensor, summary_metadata=..., family=family) and, with the
 * metadata's plugin_name "text", tf.summary.text: under the name scope <name> (or
 * "<family>/<name>"; name cleaned as for the others, required) the string Consts "tag" and
 * "serialized_summary_metadata" (the serialized SummaryMetadata, metadata_len bytes copied; NULL
 * for none) and the TensorSummaryV2 op named after the scope, collected in "summaries". Any
 * tensor type. At run time the op outputs a Summary whose one value holds the tag, the metadata
 * and the tensor as a TensorProto; unparseable metadata is INVALID_ARGUMENT (TF ignores it). */
TF_CAPI_EXPORT extern TF_Output TFC_TensorSummary(const TFC_Scope* scope, const char* name,
                                                 const char* family, TF_Output tensor,
                                                 const void* serialized_metadata,
                                                 size_t metadata_len, TF_Status* status);
/* tf.summary.audio(name, tensor, sample_rate, max_outputs, family=family): under the name scope
 * as TFC_TensorSummary, the float Const "sample_rate", the string Const "tag" and the
 * AudioSummaryV2 op named after the scope (attr max_outputs >= 1, else INVALID_ARGUMENT),
 * collected in "summaries". tensor: float [batch, frames] or [batch, frames, channels] in
 * [-1, 1]. At run time the first max_outputs entries become values "<tag>/audio/<i>" ("<tag>/audio"
 * for max_outputs 1) holding 16-bit PCM WAV files; another rank is TF's INVALID_ARGUMENT
 * "Tensor must be 3-D or 2-D, got: [2]", a sample rate <= 0 "sample_rate must be > 0". */
TF_CAPI_EXPORT extern TF_Output TFC_AudioSummary(const TFC_Scope* scope, const char* name,
                                                const char* family, TF_Output tensor,
                                                float sample_rate, int max_outputs,
                                                TF_Status* status);
/* tf.summary.merge(inputs, name): a name scope `name` (NULL: "Merge") holding the
 * MergeSummary op (named `name`, NULL: "MergeSummary"): "Merge/MergeSummary", or "m/m" for
 * name "m". Not added to any collection. num_inputs >= 1 string tensors, else
 * INVALID_ARGUMENT. At run time two values with the same tag are TF's INVALID_ARGUMENT
 * "Duplicate tag <tag> found in summary inputs". */
TF_CAPI_EXPORT extern TF_Output TFC_MergeSummary(const TFC_Scope* scope, const TF_Output* inputs,
                                                int num_inputs, const char* name,
                                                TF_Status* status);
/* tf.summary.merge_all(): TFC_MergeSummary(scope, <the "summaries" collection in order>, NULL).
 * With the collection empty it returns {NULL, 0} and an OK status, as Python returns None. */
TF_CAPI_EXPORT extern TF_Output TFC_MergeAllSummaries(const TFC_Scope* scope, TF_Status* status);

/* ---------------------------------------------------------------- event writer */

typedef struct TFC_EventWriter TFC_EventWriter;

/* SessionLog.status values. */
enum {
  TFC_SESSION_LOG_START = 1,
  TFC_SESSION_LOG_STOP = 2,
  TFC_SESSION_LOG_CHECKPOINT = 3
};

/* Creates logdir and its event file and writes the first event. Returns NULL on error: TF's
 * file errors naming the directory or file ("creating log directory <logdir>: <dir>;
 * Permission denied", PERMISSION_DENIED; NOT_FOUND; FAILED_PRECONDITION when a path component
 * is a file), INVALID_ARGUMENT for a NULL or empty logdir. Two writers created in the same
 * second in one logdir get the same name (as in TF): give one a suffix. */
TF_CAPI_EXPORT extern TFC_EventWriter* TFC_NewEventWriter(const char* logdir, TF_Status* status);
/* The same with `filename_suffix` appended to the file name (FileWriter's filename_suffix). */
TF_CAPI_EXPORT extern TFC_EventWriter* TFC_NewEventWriterWithSuffix(const char* logdir,
                                                                   const char* filename_suffix,
                                                                   TF_Status* status);
/* The event file's path (owned by the writer; valid until it is deleted). */
TF_CAPI_EXPORT extern const char* TFC_EventWriterPath(const TFC_EventWriter* writer);
/* FileWriter.add_summary(summary, step): serialized_summary holds a serialized Summary proto,
 * the bytes of a summary op's string scalar; INVALID_ARGUMENT "Unparseable Summary" when they
 * are not one. */
TF_CAPI_EXPORT extern void TFC_EventWriterAddSummary(TFC_EventWriter* writer,
                                                    const void* serialized_summary, size_t len,
                                                    int64_t step, TF_Status* status);
/* The same with the TF_STRING scalar a summary op's fetch returns (borrowed); another dtype or
 * shape is INVALID_ARGUMENT. */
TF_CAPI_EXPORT extern void TFC_EventWriterAddSummaryTensor(TFC_EventWriter* writer,
                                                          const TF_Tensor* summary, int64_t step,
                                                          TF_Status* status);
/* FileWriter.add_graph(graph): an Event holding the graph's GraphDef. With a session (may be
 * NULL), each node's device field is the device the session placed it on (TensorBoard colours
 * the graph by device); nodes the session has not placed (added after its last run, or a
 * session of another graph) keep their requested device. */
TF_CAPI_EXPORT extern void TFC_EventWriterAddGraph(TFC_EventWriter* writer, TF_Graph* graph,
                                                  TF_Session* session, TF_Status* status);
/* FileWriter.add_session_log(SessionLog(status, checkpoint_path), step): status is one of
 * TFC_SESSION_LOG_* (else INVALID_ARGUMENT); checkpoint_path may be NULL. */
TF_CAPI_EXPORT extern void TFC_EventWriterAddSessionLog(TFC_EventWriter* writer, int status,
                                                       const char* checkpoint_path, int64_t step,
                                                       TF_Status* status_out);
/* FileWriter.add_event(event): serialized_event, a serialized Event, is appended as it is (its
 * wall_time and step are the caller's); INVALID_ARGUMENT "Unparseable Event" when the bytes
 * are not one. */
TF_CAPI_EXPORT extern void TFC_EventWriterAddEvent(TFC_EventWriter* writer, const void* serialized_event,
                                                  size_t len, TF_Status* status);
/* Hands buffered events to the OS. */
TF_CAPI_EXPORT extern void TFC_EventWriterFlush(TFC_EventWriter* writer, TF_Status* status);
/* Flushes and closes the file; later Add* calls fail with FAILED_PRECONDITION. Idempotent. */
TF_CAPI_EXPORT extern void TFC_CloseEventWriter(TFC_EventWriter* writer, TF_Status* status);
/* Closes if needed (errors dropped: close first to see them) and frees. NULL: no-op. */
TF_CAPI_EXPORT extern void TFC_DeleteEventWriter(TFC_EventWriter* writer);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TFC_SUMMARY_H_ */
