/*
 * attr_proto — the C API's attr setters and getters that take or give serialized protos:
 * TF_SetAttrValueProto, TF_OperationGetAttrValueProto, TF_SetAttrTensorShapeProto(List),
 * TF_OperationGetAttrTensorShapeProto(List). Decoding and encoding are proto/attr_codec and
 * proto/tensor_codec; this file checks arguments and moves values in and out.
 */
#include <stdlib.h>
#include <string.h>

#include "capi/capi_internal.h"
#include "proto/attr_codec.h"
#include "proto/tensor_codec.h"


/* Status for a setter: the caller's, or (NULL status) one whose error is recorded on the
 * description so that TF_FinishOperation reports it. */
static void setter_error(TF_OperationDescription *desc, TF_Status *status, tfc_status *s) {
  if (!status && desc && !tfc_status_ok(s)) tfc_node_desc_fail(desc->d, s->code, tfc_status_msg(s));
}

TFC_EXPORT void TF_SetAttrValueProto(TF_OperationDescription *desc, const char *attr_name, const void *proto,
                                     size_t proto_len, TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  tfc_attr_value v;
  if (!desc || !attr_name) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_SetAttrValueProto: NULL description or attr name");
  } else if (tfc_attr_from_proto_bytes(proto, proto_len, &v, s) == TFC_OK) {
    tfc_node_desc_set_attr(desc->d, attr_name, &v);
  } else {
    tfc_status_prefix(s, "attr '%s': ", attr_name);
  }
  setter_error(desc, status, s);
  tfc_status_fini(&local);
}

TFC_EXPORT void TF_SetAttrTensorShapeProto(TF_OperationDescription *desc, const char *attr_name,
                                           const void *proto, size_t proto_len, TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  tfc_shape sh;
  tfc_attr_value v;
  if (!desc || !attr_name)
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_SetAttrTensorShapeProto: NULL description or attr name");
  else if (tfc_shape_from_proto_bytes(proto, proto_len, &sh, s) == TFC_OK && tfc_attr_shape(&sh, &v, s) == TFC_OK)
    tfc_node_desc_set_attr(desc->d, attr_name, &v);
  setter_error(desc, status, s);
  tfc_status_fini(&local);
}

TFC_EXPORT void TF_SetAttrTensorShapeProtoList(TF_OperationDescription *desc, const char *attr_name,
                                               const void *const *protos, const size_t *proto_lens,
                                               int num_shapes, TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  if (!desc || !attr_name || num_shapes < 0 || (num_shapes > 0 && (!protos || !proto_lens))) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_SetAttrTensorShapeProtoList: invalid arguments");
  } else {
    tfc_attr_value list = tfc_attr_list(TFC_ATTR_SHAPE);
    int ok = 1;
    for (int i = 0; i < num_shapes && ok; i++) {
      tfc_shape sh;
      tfc_attr_value v;
      ok = tfc_shape_from_proto_bytes(protos[i], proto_lens[i], &sh, s) == TFC_OK &&
           tfc_attr_shape(&sh, &v, s) == TFC_OK && tfc_attr_list_append(&list, &v, s) == TFC_OK;
    }
    if (ok) tfc_node_desc_set_attr(desc->d, attr_name, &list);
    else tfc_attr_value_fini(&list);
  }
  setter_error(desc, status, s);
  tfc_status_fini(&local);
}

/* The attr of an operation, or NULL with TF's error. */
static const tfc_attr_value *find_attr(TF_Operation *oper, const char *attr_name, tfc_status *s) {
  if (!oper || !attr_name) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "NULL operation or attr name");
    return NULL;
  }
  const tfc_node *n = tfc_capi_node(oper);
  const tfc_attr_value *v = tfc_attrs_find(n->attrs, n->n_attrs, attr_name);
  if (!v) tfc_status_set(s, TFC_INVALID_ARGUMENT, "Operation '%s' has no attr named '%s'.", n->name, attr_name);
  return v;
}

TFC_EXPORT void TF_OperationGetAttrValueProto(TF_Operation *oper, const char *attr_name,
                                              TF_Buffer *output_attr_value, TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  const tfc_attr_value *v = find_attr(oper, attr_name, s);
  void *data = NULL;
  size_t len = 0;
  if (v && tfc_capi_check_out_buffer(output_attr_value, s) == TFC_OK &&
      tfc_attr_to_proto_bytes(v, &data, &len, s) == TFC_OK)
    tfc_capi_fill_buffer(output_attr_value, data, len, s);
  tfc_status_fini(&local);
}

TFC_EXPORT void TF_OperationGetAttrTensorShapeProto(TF_Operation *oper, const char *attr_name, TF_Buffer *value,
                                                    TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  const tfc_attr_value *v = find_attr(oper, attr_name, s);
  void *data = NULL;
  size_t len = 0;
  if (v && v->kind != TFC_ATTR_SHAPE)
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Attribute '%s' is not a shape; it is a %s", attr_name,
                   tfc_attr_kind_name(v->kind));
  else if (v && tfc_capi_check_out_buffer(value, s) == TFC_OK &&
           tfc_shape_to_proto_bytes(v->u.shape, &data, &len, s) == TFC_OK)
    tfc_capi_fill_buffer(value, data, len, s);
  tfc_status_fini(&local);
}

TFC_EXPORT void TF_OperationGetAttrTensorShapeProtoList(TF_Operation *oper, const char *attr_name,
                                                        TF_Buffer **values, int max_values, TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  const tfc_attr_value *v = find_attr(oper, attr_name, s);
  if (v && (v->kind != TFC_ATTR_LIST || (v->u.list.n && v->list_kind != TFC_ATTR_SHAPE))) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Value for '%s' is not a list of shapes", attr_name);
  } else if (v) {
    int n = v->u.list.n < max_values ? v->u.list.n : max_values;
    for (int i = 0; i < n && tfc_status_ok(s); i++) {
      void *data = NULL;
      size_t len = 0;
      values[i] = NULL;
      if (tfc_shape_to_proto_bytes(v->u.list.items[i].u.shape, &data, &len, s) != TFC_OK) break;
      values[i] = TF_NewBuffer();
      if (!values[i]) {
        free(data);
        TFC_OOM(s);
        break;
      }
      tfc_capi_fill_buffer(values[i], data, len, s);
    }
    if (!tfc_status_ok(s))
      for (int i = 0; i < n; i++) {
        TF_DeleteBuffer(values[i]);
        values[i] = NULL;
      }
  }
  tfc_status_fini(&local);
}
