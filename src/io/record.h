/*
 * record — TFRecord files: reading and writing framed records, as TF's io::RecordReader and
 * io::RecordWriter (and so the framing of TensorBoard event files too).
 *
 * Framing, per record, little endian:
 *   uint64 length | uint32 masked_crc32c(length) | data[length] | uint32 masked_crc32c(data)
 * No file header. Compression ("ZLIB" or "GZIP", TF's compression_type strings; "" is none)
 * wraps the whole stream in one zlib or gzip stream, as TF's ZlibOutputBuffer does.
 *
 * Errors name the file and the offset of the record at fault:
 *   - a checksum mismatch, or a file ending inside a record's header or body, is DATA_LOSS
 *     ("corrupted record at 1234 in file data.tfrecord: ..."), as TF's reader reports it;
 *   - the end of the file at a record boundary is OUT_OF_RANGE ("End of file"), which callers
 *     treat as the end, not a failure;
 *   - open/read/write failures are TF's file errors (NOT_FOUND "data.tfrecord; No such file or
 *     directory", PERMISSION_DENIED, ...).
 * Offsets are of the uncompressed stream (as TF's: a record's key is "<file>:<offset>").
 *
 * Ownership: readers and writers own their FILE and buffers; tfc_record_read's *out borrows
 * the reader's buffer until the next read or free. Thread-safety: one thread per reader or
 * writer at a time.
 */
#ifndef TFC_IO_RECORD_H
#define TFC_IO_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

typedef enum tfc_compression {
  TFC_COMPRESSION_NONE = 0,
  TFC_COMPRESSION_ZLIB = 1,
  TFC_COMPRESSION_GZIP = 2,
  TFC_COMPRESSION_COUNT = 3
} tfc_compression;

/* "" -> NONE, "ZLIB", "GZIP"; anything else is INVALID_ARGUMENT naming it. Pure. */
/* TF's IOError for a file operation that failed with errno err: "<path>; <strerror>", the
 * code from errno as TF maps it (ENOENT: NOT_FOUND, EACCES: PERMISSION_DENIED, ...). Returns
 * the code. */
int tfc_io_file_error(tfc_status *s, int err, const char *path);
int tfc_compression_parse(const char *name, tfc_compression *out, tfc_status *s);

typedef struct tfc_record_reader tfc_record_reader;
typedef struct tfc_record_writer tfc_record_writer;

/* Opens path for reading. Returns a reader the caller frees with tfc_record_reader_free, or
 * NULL with status: TF's file errors naming the path (NOT_FOUND "<path>; No such file or
 * directory", PERMISSION_DENIED, FAILED_PRECONDITION for a directory), RESOURCE_EXHAUSTED. */
tfc_record_reader *tfc_record_reader_open(const char *path, tfc_compression c, tfc_status *s);
void tfc_record_reader_free(tfc_record_reader *r); /* NULL: no-op */
/* Reads the next record: *out and *len borrow the reader's buffer until the next call or free;
 * *offset (may be NULL) receives the record's offset. Returns OK; OUT_OF_RANGE "End of file" at
 * a record boundary at the end of the stream; DATA_LOSS "corrupted record at <offset> in file
 * <path>: ..." on a checksum mismatch or bad compressed data, "truncated record at <offset> in
 * file <path>: ..." when the stream ends inside a record; a file error on a failed read. After
 * an error the reader stays at the failed record (a retry re-reads it, e.g. once a file being
 * written has grown). Records larger than the internal 256 KiB window grow it as needed. */
int tfc_record_read(tfc_record_reader *r, const char **out, size_t *len, uint64_t *offset,
                    tfc_status *s);
/* The uncompressed offset of the next record. */
uint64_t tfc_record_reader_offset(const tfc_record_reader *r);
/* The path given at open; owned by the reader. */
const char *tfc_record_reader_path(const tfc_record_reader *r);

/* Counts path's records without handing them out: TFC_OK with *count set, or the error the
 * first bad record gives tfc_record_read (DATA_LOSS naming the file and the record's offset),
 * or the open error. An uncompressed file is walked by its framing (each header read and its
 * length checksummed, the data skipped, the file ending exactly at a record boundary), so the
 * data's own checksums are not checked; a compressed one is read through. */
int tfc_record_count(const char *path, tfc_compression c, uint64_t *count, tfc_status *s);

/* Creates (truncates) path, or appends when append is set (INVALID_ARGUMENT with compression:
 * a compressed file is one stream). Returns a writer the caller finishes with
 * tfc_record_writer_close, or NULL with status naming the file. */
tfc_record_writer *tfc_record_writer_open(const char *path, tfc_compression c, int append,
                                          tfc_status *s);
/* Frames and writes one record (buffered; data is copied or consumed before return). A failed
 * write leaves the file incomplete: every later call fails with FAILED_PRECONDITION. */
int tfc_record_write(tfc_record_writer *w, const void *data, size_t len, tfc_status *s);
/* Pushes buffered bytes to the OS (a compressed stream: a Z_SYNC_FLUSH point, after which a
 * reader can decode every record written so far). */
int tfc_record_writer_flush(tfc_record_writer *w, tfc_status *s);
/* Finishes the stream, closes the file and frees w (always, even on error); reports a failed
 * final write or close. NULL: OK. */
int tfc_record_writer_close(tfc_record_writer *w, tfc_status *s);

/* The framing of one record of len bytes at data: header = len and its masked CRC-32C,
 * footer = the masked CRC-32C of the data (caller storage). Pure. */
void tfc_record_frame_header(uint64_t len, const void *data, uint8_t header[12], uint8_t footer[4]);

#endif
