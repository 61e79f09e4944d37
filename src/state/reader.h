/*
 * reader — TF's ReaderBase with the TFRecord, text-line and whole-file readers behind it: a
 * resource that turns a queue of file names into (key, value) records, as TFRecordReaderV2,
 * TextLineReaderV2, WholeFileReaderV2 and ReaderReadV2 do.
 *
 * Semantics are TF 1.15's (kernels/reader_base.cc, tf_record_reader_op.cc):
 *   - A read takes the next record of the current file (the "work"); when there is none it
 *     dequeues the next file name from the queue (blocking like QueueDequeueV2, so a closed
 *     and empty queue ends it with the queue's OUT_OF_RANGE "... is closed and has
 *     insufficient elements (requested 1, current size 0)"), opens it and reads from there.
 *     A file at its end counts as a completed work unit and the read moves on.
 *   - Keys are "<file name>:<offset of the record>" (offsets of the uncompressed stream).
 *   - A text-line reader's records are the file's lines without their "\n" (and a "\r"
 *     before it; a last line without "\n" counts), keyed "<file name>:<line number>" (from 1,
 *     the skipped header lines counted), after skipping skip_header_lines lines of each file
 *     (TF's text_line_reader_op.cc). A whole-file reader's one record per file is the file's
 *     contents keyed by its name (whole_file_read_ops.cc).
 *   - ReadUpTo(n) returns up to n records, stopping early at the end of a file once it has
 *     at least one.
 *   - A corrupt record is DATA_LOSS naming the file and offset (io/record.h); the reader
 *     stays on it, so later reads fail the same way, as TF's. A file that cannot be opened
 *     fails the read with the file error and is skipped by the next read.
 *   - The queue must have one string component: INVALID_ARGUMENT "Expected single component
 *     queue", "Expected queue with single string component", "Expected to dequeue a
 *     one-element string tensor" otherwise.
 *   - Reset forgets the current file and zeroes both counters.
 *
 * Ownership: a reader is a refcounted tfc_resource (tfc_reader_kind). Outputs are new
 * references. Thread-safety: all functions are thread-safe; reads of one reader are
 * serialized (a read blocked on its queue holds the reader, as TF's does).
 */
#ifndef TFC_STATE_READER_H
#define TFC_STATE_READER_H

#include <stdint.h>

#include "base/status.h"
#include "state/queue.h"
#include "state/resource_mgr.h"
#include "tensor/tensor.h"

typedef struct tfc_reader tfc_reader;

/* The kind of every reader (TF's ReaderInterface). */
extern const tfc_resource_kind tfc_reader_kind;

/* A TFRecord reader named name (for messages); compression "" / "ZLIB" / "GZIP", else
 * INVALID_ARGUMENT. One reference. */
tfc_reader *tfc_reader_new_tfrecord(const char *name, const char *compression, tfc_status *s);
/* A text-line reader skipping skip_header_lines (>= 0, else INVALID_ARGUMENT) lines of each
 * file. One reference. */
tfc_reader *tfc_reader_new_text_line(const char *name, int64_t skip_header_lines, tfc_status *s);
/* A whole-file reader. One reference. */
tfc_reader *tfc_reader_new_whole_file(const char *name, tfc_status *s);
static inline tfc_reader *tfc_reader_from_resource(tfc_resource *r) { return (tfc_reader *)r; }
static inline tfc_resource *tfc_reader_resource(tfc_reader *r) { return (tfc_resource *)r; }

/* One record: *key and *value receive new string scalars. cx: what may cancel a blocked
 * dequeue (queue.h). */
int tfc_reader_read(tfc_reader *r, tfc_queue *q, tfc_queue_cancel *cx, tfc_tensor **key, tfc_tensor **value,
                    tfc_status *s);
/* Up to n records: *keys and *values receive new string vectors of equal length. */
int tfc_reader_read_up_to(tfc_reader *r, tfc_queue *q, int64_t n, tfc_queue_cancel *cx, tfc_tensor **keys,
                          tfc_tensor **values, tfc_status *s);
int64_t tfc_reader_num_records_produced(tfc_reader *r);
int64_t tfc_reader_num_work_units_completed(tfc_reader *r);
void tfc_reader_reset(tfc_reader *r);

#endif
