/*
 * record.h — TFRecord files from C: the framing TensorFlow's tf.io.TFRecordWriter and
 * tf.data.TFRecordDataset use (per record: uint64 length, masked CRC-32C of the length, the
 * bytes, masked CRC-32C of the bytes; little endian), optionally inside one "ZLIB" or "GZIP"
 * stream (TF's compression_type strings; "" or NULL is none).
 *
 * Errors are TF's: a missing file is NOT_FOUND "<path>; No such file or directory"; a checksum
 * mismatch or a file ending inside a record is DATA_LOSS naming the file and the record's offset
 * ("corrupted record at 1234 in file a.tfrecord: ..."); an unknown compression_type is
 * INVALID_ARGUMENT.
 *
 * Ownership: writers and readers are the caller's (TFC_CloseRecordWriter,
 * TFC_DeleteRecordReader). Record bytes returned by TFC_RecordReaderRead belong to the reader
 * and stay valid until its next read or deletion. Thread-safety: one thread at a time per
 * writer or reader; distinct ones are independent.
 */
#ifndef TFC_RECORD_H_
#define TFC_RECORD_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TFC_RecordWriter TFC_RecordWriter;
typedef struct TFC_RecordReader TFC_RecordReader;

/* Creates (truncates) path. Returns NULL with status set on error. */
TF_CAPI_EXPORT extern TFC_RecordWriter* TFC_NewRecordWriter(const char* path, const char* compression_type,
                                                            TF_Status* status);
/* Appends one record of len bytes (copied or compressed before return). After a failed write
 * the file is incomplete and every later call fails (FAILED_PRECONDITION). */
TF_CAPI_EXPORT extern void TFC_RecordWriterWrite(TFC_RecordWriter* writer, const void* data, size_t len,
                                                 TF_Status* status);
/* Hands buffered bytes to the OS; with compression, a sync point after which readers can
 * decode every record written so far. */
TF_CAPI_EXPORT extern void TFC_RecordWriterFlush(TFC_RecordWriter* writer, TF_Status* status);
/* Finishes the stream, closes the file and frees the writer (always, even when the final
 * write fails; status then says why). NULL: no-op. */
TF_CAPI_EXPORT extern void TFC_CloseRecordWriter(TFC_RecordWriter* writer, TF_Status* status);

/* Opens path for reading. Returns NULL with status set on error. */
TF_CAPI_EXPORT extern TFC_RecordReader* TFC_NewRecordReader(const char* path, const char* compression_type,
                                                            TF_Status* status);
/* Reads the next record: returns 1 with *data and *len set (the reader's bytes, valid until the
 * next call), 0 at the end of the file (status OK), or 0 with status set on an error
 * (DATA_LOSS and file errors). After an error the reader stays at the failed record. */
TF_CAPI_EXPORT extern int TFC_RecordReaderRead(TFC_RecordReader* reader, const char** data, size_t* len,
                                               TF_Status* status);
/* Closes and frees the reader. NULL: no-op. */
TF_CAPI_EXPORT extern void TFC_DeleteRecordReader(TFC_RecordReader* reader);

/* How many records path holds, checked cheaply: an uncompressed file is walked by its framing
 * (each record's length and its checksum read, the data skipped, and the file must end at a
 * record boundary), so a bad length or a file cut short is found but damage inside a record's
 * data is not (TFC_RecordReaderRead finds that); a compressed file is read through (every
 * checksum checked). Returns the count (0 for an empty file), or -1 with status set: the
 * open's errors (NOT_FOUND "<path>; No such file or directory", ...), DATA_LOSS naming the
 * file and the bad record's offset. */
TF_CAPI_EXPORT extern int64_t TFC_CountRecords(const char* path, const char* compression_type,
                                               TF_Status* status);

#ifdef __cplusplus
}
#endif

#endif /* TFC_RECORD_H_ */
