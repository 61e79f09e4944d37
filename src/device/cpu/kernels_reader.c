/*
 * kernels_reader — CPU kernels of the reader ops (ops_data.def): TFRecordReaderV2,
 * TextLineReaderV2 and WholeFileReaderV2 find or create their reader in the device's resources (shared_name, else private to the node as
 * TF's "_<id>_<node name>") and outputs a handle; ReaderReadV2 / ReaderReadUpToV2 read
 * through it from a queue of file names (state/reader.h), blocking on the queue like a
 * dequeue (and woken the same way when the step aborts or the session closes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/cpu_kernels.h"
#include "device/cpu/kernels_data_int.h"
#include "device/device.h"
#include "state/reader.h"

typedef enum reader_op_type { READER_OP_TFRECORD = 0, READER_OP_TEXT_LINE = 1, READER_OP_WHOLE_FILE = 2 } reader_op_type;

typedef struct reader_op {
  const char *container, *shared_name, *compression, *node_name;
  reader_op_type type;
  int64_t skip_header_lines;
  _Atomic(tfc_resource *) res;
} reader_op;

static void reader_op_free(void *state) {
  reader_op *st = state;
  tfc_resource_unref(atomic_load(&st->res));
  free(st);
}

static int reader_op_init_type(const tfc_node *n, reader_op_type type, void **state, tfc_status *s) {
  reader_op *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  atomic_init(&st->res, NULL);
  st->node_name = n->name;
  st->type = type;
  st->compression = "";
  if (tfc_kernel_attr_string(n, "container", &st->container, s) ||
      tfc_kernel_attr_string(n, "shared_name", &st->shared_name, s) ||
      (type == READER_OP_TFRECORD && tfc_kernel_attr_string(n, "compression_type", &st->compression, s)) ||
      (type == READER_OP_TEXT_LINE && tfc_kernel_attr_int(n, "skip_header_lines", &st->skip_header_lines, s))) {
    free(st);
    return s->code;
  }
  *state = st;
  return TFC_OK;
}

static int reader_op_init(const tfc_node *n, void **state, tfc_status *s) {
  return reader_op_init_type(n, READER_OP_TFRECORD, state, s);
}

static int text_line_op_init(const tfc_node *n, void **state, tfc_status *s) {
  return reader_op_init_type(n, READER_OP_TEXT_LINE, state, s);
}

static int whole_file_op_init(const tfc_node *n, void **state, tfc_status *s) {
  return reader_op_init_type(n, READER_OP_WHOLE_FILE, state, s);
}

/* What reader_create needs (on the creating compute's stack: two steps may create at once). */
typedef struct reader_create_args {
  const reader_op *st;
  tfc_resource_mgr *mgr;
} reader_create_args;

/* Runs under the resource manager's lock. */
static tfc_resource *reader_create(void *arg, tfc_status *s) {
  const reader_create_args *a = arg;
  const reader_op *st = a->st;
  char *name = NULL;
  if (*st->shared_name)
    name = strdup(st->shared_name);
  else if (asprintf(&name, "_%lld_%s", (long long)tfc_resource_mgr_next_id(a->mgr), st->node_name) < 0)
    name = NULL;
  if (!name) {
    TFC_OOM(s);
    return NULL;
  }
  tfc_reader *r = st->type == READER_OP_TEXT_LINE    ? tfc_reader_new_text_line(name, st->skip_header_lines, s)
                  : st->type == READER_OP_WHOLE_FILE ? tfc_reader_new_whole_file(name, s)
                                                     : tfc_reader_new_tfrecord(name, st->compression, s);
  free(name);
  return r ? tfc_reader_resource(r) : NULL;
}

static int reader_op_compute(tfc_kernel_ctx *c) {
  reader_op *st = c->state;
  tfc_resource *r = atomic_load_explicit(&st->res, memory_order_acquire);
  if (!r) {
    char *key = NULL;
    /* As for queues (kernels_queue.c): a private key no shared name clashes with. */
    if (!*st->shared_name && !(key = tfc_resource_private_name(st->node_name))) return TFC_OOM(c->status);
    r = tfc_resource_mgr_lookup_or_create(c->device->resources, st->container, key ? key : st->shared_name,
                                          &tfc_reader_kind, reader_create,
                                          &(reader_create_args){st, c->device->resources}, c->status);
    free(key);
    if (!r) return c->status->code;
    tfc_resource *expected = NULL;
    if (!atomic_compare_exchange_strong(&st->res, &expected, r)) {
      tfc_resource_unref(r);
      r = expected;
    }
  }
  tfc_tensor *h = tfc_resource_handle_new(r, c->status);
  if (!h) return c->status->code;
  tfc_kernel_set_output(c, 0, h);
  return TFC_OK;
}

static tfc_reader *input_reader(tfc_kernel_ctx *c) {
  tfc_resource *r = tfc_resource_from_handle(c->inputs[0], &tfc_reader_kind, c->status);
  return r ? tfc_reader_from_resource(r) : NULL;
}

static tfc_queue *input_queue(tfc_kernel_ctx *c, int i) {
  tfc_resource *r = tfc_resource_from_handle(c->inputs[i], &tfc_queue_kind, c->status);
  return r ? tfc_queue_from_resource(r) : NULL;
}

static int read_compute(tfc_kernel_ctx *c) {
  tfc_reader *r = input_reader(c);
  tfc_queue *q = r ? input_queue(c, 1) : NULL;
  if (!q) return c->status->code;
  tfc_queue_cancel cx;
  tfc_queue_cancel_init(&cx, c->rendezvous, c->node->name);
  tfc_tensor *key = NULL, *value = NULL;
  if (tfc_reader_read(r, q, &cx, &key, &value, c->status) == TFC_OK) {
    tfc_kernel_set_output(c, 0, key);
    tfc_kernel_set_output(c, 1, value);
  }
  tfc_queue_cancel_fini(&cx);
  return c->status->code;
}

static int read_up_to_compute(tfc_kernel_ctx *c) {
  tfc_reader *r = input_reader(c);
  tfc_queue *q = r ? input_queue(c, 1) : NULL;
  if (!q) return c->status->code;
  const tfc_tensor *n = c->inputs[2];
  if (n->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "num_records must be a scalar, got %d dimensions", n->ndims);
  tfc_queue_cancel cx;
  tfc_queue_cancel_init(&cx, c->rendezvous, c->node->name);
  tfc_tensor *keys = NULL, *values = NULL;
  if (tfc_reader_read_up_to(r, q, *(const int64_t *)n->data, &cx, &keys, &values, c->status) == TFC_OK) {
    tfc_kernel_set_output(c, 0, keys);
    tfc_kernel_set_output(c, 1, values);
  }
  tfc_queue_cancel_fini(&cx);
  return c->status->code;
}

static int int64_out(tfc_kernel_ctx *c, int64_t v) {
  tfc_tensor *t = tfc_kernel_alloc_output(c, 0, TFC_DT_INT64, NULL, 0);
  if (!t) return c->status->code;
  *(int64_t *)t->data = v;
  return TFC_OK;
}

static int num_records_compute(tfc_kernel_ctx *c) {
  tfc_reader *r = input_reader(c);
  return r ? int64_out(c, tfc_reader_num_records_produced(r)) : c->status->code;
}

static int num_work_units_compute(tfc_kernel_ctx *c) {
  tfc_reader *r = input_reader(c);
  return r ? int64_out(c, tfc_reader_num_work_units_completed(r)) : c->status->code;
}

static int reset_compute(tfc_kernel_ctx *c) {
  tfc_reader *r = input_reader(c);
  if (!r) return c->status->code;
  tfc_reader_reset(r);
  return TFC_OK;
}

#define HANDLE TFC_HOST(0)

static const tfc_kernel_def reader_kernels[] = {
    {.op = TFC_OP_TFRecordReaderV2, .host_memory_out = HANDLE, .init = reader_op_init, .compute = reader_op_compute,
     .free_state = reader_op_free},
    {.op = TFC_OP_TextLineReaderV2, .host_memory_out = HANDLE, .init = text_line_op_init,
     .compute = reader_op_compute, .free_state = reader_op_free},
    {.op = TFC_OP_WholeFileReaderV2, .host_memory_out = HANDLE, .init = whole_file_op_init,
     .compute = reader_op_compute, .free_state = reader_op_free},
    {.op = TFC_OP_ReaderReadV2, .host_memory_in = HANDLE | TFC_HOST(1), .flags = TFC_KF_BLOCKING,
     .compute = read_compute},
    {.op = TFC_OP_ReaderReadUpToV2, .flags = TFC_KF_BLOCKING,
     .host_memory_in = HANDLE | TFC_HOST(1) | TFC_HOST(2),
     .compute = read_up_to_compute},
    {.op = TFC_OP_ReaderNumRecordsProducedV2, .host_memory_in = HANDLE, .compute = num_records_compute},
    {.op = TFC_OP_ReaderNumWorkUnitsCompletedV2, .host_memory_in = HANDLE, .compute = num_work_units_compute},
    {.op = TFC_OP_ReaderResetV2, .host_memory_in = HANDLE, .compute = reset_compute},
};

int tfc_cpu_kernels_reader(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, reader_kernels, (int)(sizeof reader_kernels / sizeof reader_kernels[0]), s);
}
