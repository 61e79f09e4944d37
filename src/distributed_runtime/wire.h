/*
 * wire — protobuf on tfc_msg messages, with tensors that travel without copies.
 *
 * Most messages of the master and worker services are small and go through protobuf-c
 * (tfc_wire_put_message / tfc_wire_get_message). The tensors in them do not: a RunStep feed
 * of 120 MB or a RecvTensor reply must not be copied into a packed protobuf and back. So the
 * tensor-carrying fields are written by hand, TF's way (grpc_tensor_coding.cc):
 *
 *   TensorProto { dtype = 1 (varint); tensor_shape = 2 { dim = 2 { size = 1 } ... };
 *                 tensor_content = 4 (bytes) }
 *
 * The tensor_content bytes of a numeric tensor are a segment that references the tensor's
 * buffer (a reference held until the transport releases it). String tensors are encoded as
 * TensorProto.string_val (copied; they are small in practice). NamedTensorProto is
 * { name = 1; tensor = 2 }.
 *
 * Protobuf readers accept fields in any order and merge repeated fields wherever they appear,
 * so a message is the protobuf-c packing of its other fields followed by the hand-written
 * tensor fields, and is still a valid serialization of the full message for any protobuf
 * reader (TF's included).
 *
 * Reading splits a message: the top-level fields numbered `tensor_field` are decoded by hand —
 * a TensorProto's tensor_content is copied once, from the transport's segments into a new
 * 64-byte-aligned tensor buffer, whatever the field order; any other TensorProto encoding
 * (typed *_val fields, string_val) goes through proto/tensor_codec — and every other field is
 * gathered and unpacked with protobuf-c. Malformed input of any kind (truncated, bad varint,
 * wrong wire type, a tensor whose content does not match its dtype and shape, a message over
 * TFC_PB_MAX_DEPTH) is INVALID_ARGUMENT "Invalid <what>: <reason>", never a crash; the limits
 * of tensor_codec (tfc_tensor_proto_set_max_bytes) apply.
 *
 * Ownership: messages are the caller's; tensors put into a message are referenced (the caller
 * keeps its own reference); tensors read out are new references owned by the caller.
 * Thread-safe (no shared state).
 */
#ifndef TFC_DISTRIBUTED_RUNTIME_WIRE_H
#define TFC_DISTRIBUTED_RUNTIME_WIRE_H

#include <protobuf-c/protobuf-c.h>

#include "base/status.h"
#include "distributed_runtime/msg.h"
#include "tensor/tensor.h"

/* Packs a protobuf-c message and appends its bytes. */
int tfc_wire_put_message(tfc_msg_out *m, const ProtobufCMessage *msg, tfc_status *s);
/* Appends field `field_no` holding t as a TensorProto (RecvTensorResponse.tensor). */
int tfc_wire_put_tensor(tfc_msg_out *m, int field_no, tfc_tensor *t, tfc_status *s);
/* Appends field `field_no` holding a NamedTensorProto {name, t} (RunStepRequest.feed, ...). */
int tfc_wire_put_named_tensor(tfc_msg_out *m, int field_no, const char *name, tfc_tensor *t, tfc_status *s);
/* Appends a varint field (wire type 0) and a length-delimited bytes field (wire type 2):
 * the small scalar fields beside a hand-written tensor (RecvTensorResponse.is_dead, ...). */
int tfc_wire_put_varint(tfc_msg_out *m, int field_no, uint64_t v, tfc_status *s);
int tfc_wire_put_bytes(tfc_msg_out *m, int field_no, const void *data, size_t len, tfc_status *s);

/* Tensors read from a message, in the order they appeared. names[i] is NULL for plain
 * TensorProto fields. */
typedef struct tfc_wire_tensors {
  int n;
  char **names;         /* heap strings (or NULL), owned */
  tfc_tensor **tensors; /* owned references */
} tfc_wire_tensors;

void tfc_wire_tensors_init(tfc_wire_tensors *t);
void tfc_wire_tensors_fini(tfc_wire_tensors *t);

enum {
  TFC_WIRE_TENSOR_PROTO = 0, /* the field is a TensorProto */
  TFC_WIRE_NAMED_TENSOR = 1, /* the field is a NamedTensorProto */
};

/* Reads `in` from its cursor to its end. Fields
 * numbered tensor_field (0: none) are decoded as `kind` into *out_tensors; the other fields
 * are unpacked as `desc` into *out_msg (free with protobuf_c_message_free_unpacked), which is
 * never NULL on success (an empty message unpacks to defaults). `what` names the message in
 * errors ("RunStepRequest"). On error nothing is returned (out_tensors empty, *out_msg NULL). */
int tfc_wire_get_message(tfc_msg_in *in, const ProtobufCMessageDescriptor *desc, int tensor_field, int kind,
                         const char *what, ProtobufCMessage **out_msg, tfc_wire_tensors *out_tensors,
                         tfc_status *s);

#endif
