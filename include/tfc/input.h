/*
 * input.h — tfc's graph builders for TF 1.x queue-based input pipelines: file name queues
 * (tf.train.string_input_producer), TFRecord reading (tf.TFRecordReader().read), Example
 * parsing (tf.parse_single_example with FixedLenFeature), raw decoding (tf.decode_raw),
 * batching (tf.train.batch, tf.train.shuffle_batch) and local variables
 * (tf.local_variables, tf.local_variables_initializer).
 *
 * Each builder adds the nodes TF 1.15's Python adds for the same call, with the same names,
 * attrs and structure ("input_producer/input_producer_EnqueueMany",
 * "shuffle_batch/random_shuffle_queue", "batch/fraction_of_32_full", ...), so a pipeline built
 * here lines up node for node with one built by TF's Python. Builders that make a queue also
 * record, as Python does, a queue runner in the graph collection "queue_runners" (the queue,
 * its close op, its cancel op, then one enqueue op per thread: the same op repeated, as
 * Python's list of one op times num_threads) and the queue's fill-level ScalarSummary in
 * "summaries" (TFC_CollectionEntry in train.h reads both). Run the pipeline by starting the
 * queue runners (include/tfc/queue_runner.h) after running the global and local variable
 * initializers; the last batch of a finite pipeline ends in OUT_OF_RANGE.
 *
 * Scopes, ownership and errors are those of train.h: nodes go under the scope's name, with its
 * device and control dependencies (queues, like variables, ignore control dependencies: Python
 * builds them under init_scope); TF_Operation and TF_Output values belong to the graph; every
 * function reports errors in its TF_Status (TF's codes, messages naming the argument, feature
 * or tensor at fault) and then leaves the graph, its names and its collections as they were,
 * with NULL outputs. The status may be NULL. Thread-safety: builders for one graph from one
 * thread at a time.
 *
 * Where tfc follows TF 1.15 rather than TF 2.x's compat.v1: random seeds (see
 * TFC_SetRandomSeed), tf.parse_single_example (TF 1.15's ParseSingleExample op under
 * "ParseSingleExample/"; TF 2.x builds ParseExampleV2 under "ParseSingleExample/ParseExample/"),
 * and FIFO queues carry the scope's device only (TF 2.x pins them to "/device:CPU:*").
 */
#ifndef TFC_INPUT_H_
#define TFC_INPUT_H_

#include <stdint.h>

#include "tensorflow/c/c_api.h"
#include "tfc/train.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- file name queues */

/* tf.train.string_input_producer(filenames, num_epochs, shuffle, seed, capacity, name=name):
 * returns the FIFOQueueV2 handle (the queue op is named after the name scope, "input_producer"
 * for name NULL, made unique; a name ending in '/' re-enters that scope). Built under the scope:
 * the string Const of the n filenames (borrowed, copied), Size > 0 checked by an Assert that
 * the Identity waits for, RandomShuffle when `shuffle` (seed 0: from the graph seed, as
 * TF 1.15's random_seed.get_seed), with num_epochs > 0 "limit_epochs" (the local int64
 * variable "limit_epochs/epochs", CountUpTo num_epochs, the Identity "limit_epochs" waiting for
 * it), the queue (capacity, element shape [], string), QueueEnqueueManyV2, the close and cancel
 * QueueCloseV2 ops, QueueSizeV2 and the ScalarSummary "fraction_of_<capacity>_full".
 * num_epochs 0: cycle forever. INVALID_ARGUMENT: no filenames ("string_input_producer
 * requires a non-null input tensor"), a NULL filename, num_epochs < 0 ("num_epochs must be > 0
 * not -1."), capacity < 1. */
TF_CAPI_EXPORT extern TF_Output TFC_StringInputProducer(const TFC_Scope* scope,
                                                       const char* const* filenames, int n,
                                                       int64_t num_epochs, unsigned char shuffle,
                                                       int64_t seed, int capacity,
                                                       const char* name, TF_Status* status);

/* tf.train.input_producer(input, element_shape, num_epochs, shuffle, seed, capacity,
 * summary_name, name): the queue string_input_producer builds after its Assert, for any
 * tensor: under the scope "input_producer" (or name; unique) the FIFOQueueV2 of input's rows,
 * named "<scope>/FIFOQueueV2" (name NULL), "<scope>/<name>", or the scope itself for a name
 * ending in '/' (a re-entered scope, as string_input_producer passes it),
 * [RandomShuffle], [limit_epochs], <q>_EnqueueMany, the queue runner, and with summary_name
 * (NULL: none) the fill-level summary. The element shape is input's shape without its first
 * dimension merged with element_dims (element_num_dims -1: none given); it must end fully
 * defined, else INVALID_ARGUMENT "Either `input_tensor` must have a fully defined shape or
 * `element_shape` must be specified". A scalar input, num_epochs < 0 ("num_epochs must be > 0
 * not -1.") and capacity < 1 are INVALID_ARGUMENT too. Returns the queue handle. */
TF_CAPI_EXPORT extern TF_Output TFC_InputProducer(const TFC_Scope* scope, TF_Output input,
                                                 const int64_t* element_dims, int element_num_dims,
                                                 int64_t num_epochs, unsigned char shuffle,
                                                 int64_t seed, int capacity,
                                                 const char* summary_name, const char* name,
                                                 TF_Status* status);
/* tf.train.range_input_producer(limit, ...): input_producer of range(limit) (int32) in the
 * scope "input_producer" (or name): "range/start", "range/limit" (when limit.oper is NULL, a
 * Const of limit_value; else the int32 scalar tensor limit), "range/delta", Range "range", then
 * the queue and the summary "fraction_of_<capacity>_full" as TFC_InputProducer. */
TF_CAPI_EXPORT extern TF_Output TFC_RangeInputProducer(const TFC_Scope* scope, TF_Output limit,
                                                      int64_t limit_value, int64_t num_epochs,
                                                      unsigned char shuffle, int64_t seed,
                                                      int capacity, const char* name,
                                                      TF_Status* status);
/* tf.train.limit_epochs(tensor, num_epochs): the Identity "limit_epochs" (unique) of tensor
 * waiting for "limit_epochs/CountUpTo" on the local int64 variable "limit_epochs/epochs", so
 * evaluating it num_epochs + 1 times fails with OUT_OF_RANGE. num_epochs <= 0:
 * INVALID_ARGUMENT "num_epochs must be > 0 not 0." (Python returns the tensor itself for
 * num_epochs None: then do not call this). */
TF_CAPI_EXPORT extern TF_Output TFC_LimitEpochs(const TFC_Scope* scope, TF_Output tensor,
                                               int64_t num_epochs, TF_Status* status);
/* ---------------------------------------------------------------- readers */

/* tf.TFRecordReader(name=name, options=compression).read(queue): TFRecordReaderV2 (name NULL:
 * "TFRecordReaderV2"; compression_type NULL or "" (none), "ZLIB" or "GZIP") and ReaderReadV2
 * on `queue` (a queue handle, e.g. TFC_StringInputProducer's). Sets *key (the record's
 * "<file>:<offset>") and *value (the record), scalar strings. INVALID_ARGUMENT: another
 * compression type, a queue that is not a resource output of this graph. */
TF_CAPI_EXPORT extern void TFC_TFRecordReaderRead(const TFC_Scope* scope, TF_Output queue,
                                                 const char* compression_type, const char* name,
                                                 TF_Output* key, TF_Output* value,
                                                 TF_Status* status);

/* ---------------------------------------------------------------- parsing */

/* tf.FixedLenFeature(shape=dims, dtype, default_value). dtype float, int64 or string; every
 * dim >= 0. default_value (borrowed for the call; may be NULL: the feature is required) must
 * have dtype and as many elements as dims: it becomes the Const "key_<key>" reshaped to dims. */
typedef struct TFC_FixedLenFeature {
  const char* key;
  TF_DataType dtype;
  const int64_t* dims;
  int num_dims;
  TF_Tensor* default_value; /* NULL: required */
} TFC_FixedLenFeature;

/* tf.parse_single_example(serialized, features) for dense features, as TF 1.15 builds it:
 * under the name scope "ParseSingleExample" (unique), the default-value inputs in key order
 * (an empty Const for a required feature, else "key_<key>" and its Reshape), then the
 * ParseSingleExample op "ParseSingleExample/ParseSingleExample" with the keys sorted as Python
 * sorts the features dict. values[i] (caller storage for n outputs) is feature i's tensor, in
 * the caller's order, of shape dims. serialized: a scalar string (a record). INVALID_ARGUMENT:
 * n < 1 ("Missing features."), a NULL or repeated key, an unsupported dtype, a negative dim
 * ("All dimensions of shape for feature <key> need to be known but received [...]"), a default
 * of another dtype or size, serialized not a scalar ("Input serialized must be a scalar"). */
TF_CAPI_EXPORT extern void TFC_ParseSingleExample(const TFC_Scope* scope, TF_Output serialized,
                                                 const TFC_FixedLenFeature* features, int n,
                                                 TF_Output* values, TF_Status* status);

/* tf.decode_raw(bytes, out_type, little_endian): DecodeRaw "DecodeRaw" (unique under the
 * scope): bytes' strings reinterpreted as out_type elements (shape bytes' shape + [n]).
 * Errors: the op's (INVALID_ARGUMENT for a type DecodeRaw does not take). */
TF_CAPI_EXPORT extern TF_Output TFC_DecodeRaw(const TFC_Scope* scope, TF_Output bytes,
                                             TF_DataType out_type, unsigned char little_endian,
                                             TF_Status* status);

/* ---------------------------------------------------------------- batching */

/* tf.train.shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads, seed,
 * name=name) with enqueue_many=False: under the name scope "shuffle_batch" (name NULL; unique),
 * the keep_input Const, RandomShuffleQueueV2 "random_shuffle_queue" (seed 0: from the graph
 * seed), one QueueEnqueueV2 listed num_threads times in the queue runner, the close/cancel
 * ops, QueueSizeV2, the summary "fraction_over_<min>_of_<capacity-min>_full" of
 * max(0, size - min) / (capacity - min), and QueueDequeueManyV2 named after the scope.
 * batched[i] (caller storage for n outputs) is tensors[i] batched: shape [batch_size] + its
 * shape. Every tensor's shape must be fully known. INVALID_ARGUMENT: n < 1 ("Expected at least
 * one tensor in batch()."), capacity <= min_after_dequeue ("capacity 10 must be bigger than
 * min_after_dequeue 10."), min_after_dequeue < 0, batch_size or num_threads < 1, a shape of
 * unknown rank ("Cannot infer Tensor's rank: Tensor(...)") or not fully defined ("All shapes
 * must be fully defined: [TensorShape([Dimension(None)]), ...]"). */
TF_CAPI_EXPORT extern void TFC_ShuffleBatch(const TFC_Scope* scope, const TF_Output* tensors, int n,
                                           int batch_size, int capacity, int min_after_dequeue,
                                           int num_threads, int64_t seed, const char* name,
                                           TF_Output* batched, TF_Status* status);

/* tf.train.batch(tensors, batch_size, num_threads, capacity, allow_smaller_final_batch,
 * name=name) with enqueue_many=False, dynamic_pad=False: as TFC_ShuffleBatch with the name
 * scope "batch", FIFOQueueV2 "fifo_queue", the summary "fraction_of_<capacity>_full", and
 * QueueDequeueManyV2 — or QueueDequeueUpToV2 when allow_smaller_final_batch (the final batch
 * of a closed queue may then be smaller; batched shapes then start with an unknown dim).
 * Errors as TFC_ShuffleBatch (capacity must be >= 1). */
TF_CAPI_EXPORT extern void TFC_Batch(const TFC_Scope* scope, const TF_Output* tensors, int n,
                                    int batch_size, int capacity, int num_threads,
                                    unsigned char allow_smaller_final_batch, const char* name,
                                    TF_Output* batched, TF_Status* status);

/* Every argument of tf.train.batch / tf.train.shuffle_batch that the builders take, for
 * TFC_BatchWithOptions. */
typedef struct TFC_BatchOptions {
  unsigned char shuffle; /* 0: tf.train.batch; 1: tf.train.shuffle_batch */
  int batch_size, capacity, num_threads;
  int min_after_dequeue; /* shuffle only */
  int64_t seed;          /* shuffle only; 0: from the graph seed */
  unsigned char enqueue_many;
  unsigned char allow_smaller_final_batch;
  const char* name; /* NULL: "batch" / "shuffle_batch" */
  unsigned char dynamic_pad; /* batch only: PaddingFIFOQueueV2 "padding_fifo_queue" */
} TFC_BatchOptions;

/* TFC_Batch or TFC_ShuffleBatch (by options->shuffle) with the rest of TF's arguments:
 * allow_smaller_final_batch for the shuffle too (QueueDequeueUpToV2, an unknown first dim), and
 * enqueue_many: each tensor is a batch of elements along its first dimension (element shapes
 * drop it; Python's with_rank_at_least(1): a scalar is INVALID_ARGUMENT "Shape () must have rank
 * at least 1"), enqueued by QueueEnqueueManyV2 "<q>_EnqueueMany"; and for the batch,
 * dynamic_pad: the queue is PaddingFIFOQueueV2 "padding_fifo_queue", whose shapes need a known
 * rank only (unknown dims stay unknown in the batch; each batch is padded to its longest
 * element). Errors as TFC_ShuffleBatch; options NULL: INVALID_ARGUMENT. */
TF_CAPI_EXPORT extern void TFC_BatchWithOptions(const TFC_Scope* scope, const TF_Output* tensors, int n,
                                               const TFC_BatchOptions* options, TF_Output* batched,
                                               TF_Status* status);

/* ---------------------------------------------------------------- local variables */

/* tf.Variable(initial_value, name=name, trainable=False,
 * collections=[tf.GraphKeys.LOCAL_VARIABLES]): made as TFC_NewVariable makes a variable, but
 * recorded in the local variables (TFC_LocalVariables) instead of the global ones. */
TF_CAPI_EXPORT extern TFC_Variable TFC_NewLocalVariable(const TFC_Scope* scope, const char* name,
                                                       TF_Output initial_value,
                                                       TF_Status* status);
/* tf.local_variables(): the graph's local variables (TFC_NewLocalVariable's, the input
 * producers' epoch counters) in creation order: fills up to `max` and returns how many there
 * are. NULL graph: 0. Takes the graph lock. */
TF_CAPI_EXPORT extern int TFC_LocalVariables(TF_Graph* graph, TFC_Variable* out, int max);
/* tf.local_variables_initializer(): a NoOp named `name` (NULL: "init", made unique: "init_1"
 * when "init" is taken) waiting for every local variable's initializer (a plain NoOp when
 * there are none), grouped per device as TFC_GlobalVariablesInitializer does. */
TF_CAPI_EXPORT extern TF_Operation* TFC_LocalVariablesInitializer(const TFC_Scope* scope,
                                                                 const char* name,
                                                                 TF_Status* status);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TFC_INPUT_H_ */
