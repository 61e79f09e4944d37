/*
 * capi/record — include/tfc/record.h over src/io/record: the public handles are the internal
 * reader and writer under public names, and statuses are the C API's.
 */
#include "tfc/record.h"

#include <stdlib.h>

#include "capi/capi_internal.h"
#include "io/record.h"

struct TFC_RecordWriter {
  tfc_record_writer *w;
};
struct TFC_RecordReader {
  tfc_record_reader *r;
};

TFC_EXPORT TFC_RecordWriter *TFC_NewRecordWriter(const char *path, const char *compression_type,
                                                 TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  tfc_compression c;
  TFC_RecordWriter *out = NULL;
  if (!path) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_NewRecordWriter: path is NULL");
  } else if (tfc_compression_parse(compression_type, &c, s) == TFC_OK) {
    tfc_record_writer *w = tfc_record_writer_open(path, c, 0, s);
    if (w && !(out = malloc(sizeof *out))) {
      tfc_record_writer_close(w, s);
      TFC_OOM(s);
    } else if (w) {
      out->w = w;
    }
  }
  tfc_status_fini(&scratch);
  return out;
}

TFC_EXPORT void TFC_RecordWriterWrite(TFC_RecordWriter *writer, const void *data, size_t len, TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  if (!writer || (!data && len))
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_RecordWriterWrite: writer or data is NULL");
  else
    tfc_record_write(writer->w, data, len, s);
  tfc_status_fini(&scratch);
}

TFC_EXPORT void TFC_RecordWriterFlush(TFC_RecordWriter *writer, TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  if (!writer)
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_RecordWriterFlush: writer is NULL");
  else
    tfc_record_writer_flush(writer->w, s);
  tfc_status_fini(&scratch);
}

TFC_EXPORT void TFC_CloseRecordWriter(TFC_RecordWriter *writer, TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  if (writer) {
    tfc_record_writer_close(writer->w, s);
    free(writer);
  }
  tfc_status_fini(&scratch);
}

TFC_EXPORT TFC_RecordReader *TFC_NewRecordReader(const char *path, const char *compression_type,
                                                 TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  tfc_compression c;
  TFC_RecordReader *out = NULL;
  if (!path) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_NewRecordReader: path is NULL");
  } else if (tfc_compression_parse(compression_type, &c, s) == TFC_OK) {
    tfc_record_reader *r = tfc_record_reader_open(path, c, s);
    if (r && !(out = malloc(sizeof *out))) {
      tfc_record_reader_free(r);
      TFC_OOM(s);
    } else if (r) {
      out->r = r;
    }
  }
  tfc_status_fini(&scratch);
  return out;
}

TFC_EXPORT int TFC_RecordReaderRead(TFC_RecordReader *reader, const char **data, size_t *len, TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  int got = 0;
  if (!reader || !data || !len) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_RecordReaderRead: reader, data or len is NULL");
  } else {
    int rc = tfc_record_read(reader->r, data, len, NULL, s);
    got = rc == TFC_OK;
    if (rc == TFC_OUT_OF_RANGE) tfc_status_clear(s); /* the end is not an error here */
  }
  tfc_status_fini(&scratch);
  return got;
}

TFC_EXPORT void TFC_DeleteRecordReader(TFC_RecordReader *reader) {
  if (!reader) return;
  tfc_record_reader_free(reader->r);
  free(reader);
}

TFC_EXPORT int64_t TFC_CountRecords(const char *path, const char *compression_type, TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  tfc_compression c;
  uint64_t n = 0;
  int64_t out = -1;
  if (!path)
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_CountRecords: path is NULL");
  else if (tfc_compression_parse(compression_type, &c, s) == TFC_OK && tfc_record_count(path, c, &n, s) == TFC_OK)
    out = (int64_t)n;
  tfc_status_fini(&scratch);
  return out;
}
