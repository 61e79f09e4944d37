/* Unit tests of the canonical graph text (graph_text.h): one exact expected text per case. */
#include <stdint.h>

#include "base/strbuf.h"
#include "graph/graph.h"
#include "graph/graph_text.h"
#include "harness.h"

typedef struct fixture {
  tfc_graph *g;
  tfc_status s;
} fixture;

static void fixture_init(fixture *f) {
  tfc_status_init(&f->s);
  if (tfc_ops_init(&f->s)) tfc_test_fail(__FILE__, __LINE__, "ops: %s", tfc_status_msg(&f->s));
  f->g = tfc_graph_new();
}

static void fixture_fini(fixture *f) {
  tfc_graph_free(f->g);
  tfc_status_fini(&f->s);
}

static tfc_node *finish(fixture *f, tfc_node_desc *d) {
  tfc_node *n = tfc_node_desc_finish(d, &f->s);
  if (!n) tfc_test_fail(__FILE__, __LINE__, "node: %s", tfc_status_msg(&f->s));
  return n;
}

static tfc_node *konst(fixture *f, const char *name, tfc_tensor *t) {
  tfc_node_desc *d = tfc_node_desc_new(f->g, "Const", name);
  int dtype = t->dtype;
  tfc_attr_value v = tfc_attr_tensor(t);
  tfc_node_desc_set_attr(d, "value", &v);
  v = tfc_attr_type(dtype);
  tfc_node_desc_set_attr(d, "dtype", &v);
  return finish(f, d);
}

static void expect_text(fixture *f, const char *want) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  tfc_graph_to_text(f->g, &b);
  EXPECT_STREQ(tfc_strbuf_str(&b), want);
  tfc_strbuf_fini(&b);
}

static void graph_text_prints_tensors_compactly(void) {
  fixture f;
  fixture_init(&f);
  int64_t n = 8;
  tfc_tensor *t = tfc_tensor_new(TFC_DT_INT32, &n, 1, &f.s);
  for (int i = 0; i < 8; i++) ((int32_t *)t->data)[i] = i - 2;
  konst(&f, "long", t);
  float tenth = 0.1f;
  konst(&f, "scalar", tfc_tensor_scalar(TFC_DT_FLOAT, &tenth, &f.s));
  int64_t two = 2;
  t = tfc_tensor_new(TFC_DT_DOUBLE, &two, 1, &f.s);
  ((double *)t->data)[0] = 1.0 / 3;
  ((double *)t->data)[1] = -2.5e-300;
  konst(&f, "dbl", t);
  int64_t dims[2] = {1, 2};
  t = tfc_tensor_new(TFC_DT_BOOL, dims, 2, &f.s);
  ((uint8_t *)t->data)[0] = 1;
  ((uint8_t *)t->data)[1] = 0;
  konst(&f, "flags", t);
  tfc_tstring str = {"a\"b\\\n\x01", 6};
  konst(&f, "str", tfc_tensor_scalar(TFC_DT_STRING, &str, &f.s));
  expect_text(&f,
              "long = Const[dtype=int32, value=int32[8]{-2,-1,0,1,2,3,...}]() -> int32[8]\n"
              "scalar = Const[dtype=float, value=float[]{0.1}]() -> float[]\n"
              "dbl = Const[dtype=double, value=double[2]{0.3333333333333333,-2.5e-300}]() "
              "-> double[2]\n"
              "flags = Const[dtype=bool, value=bool[1,2]{true,false}]() -> bool[1,2]\n"
              "str = Const[dtype=string, value=string[]{\"a\\\"b\\\\\\n\\x01\"}]() -> string[]\n");
  fixture_fini(&f);
}

static void graph_text_prints_inputs_shapes_lists_and_devices(void) {
  fixture f;
  fixture_init(&f);
  tfc_node_desc *d = tfc_node_desc_new(f.g, "Placeholder", "p");
  tfc_attr_value v = tfc_attr_type(TFC_DT_FLOAT);
  tfc_node_desc_set_attr(d, "dtype", &v);
  int64_t dims[2] = {-1, 3};
  tfc_shape shape = tfc_shape_make(dims, 2);
  tfc_attr_shape(&shape, &v, &f.s);
  tfc_node_desc_set_attr(d, "shape", &v);
  tfc_node_desc_set_device(d, "/device:CPU:0");
  tfc_node *p = finish(&f, d);
  d = tfc_node_desc_new(f.g, "Placeholder", "q");
  v = tfc_attr_type(TFC_DT_INT32);
  tfc_node_desc_set_attr(d, "dtype", &v);
  tfc_node *q = finish(&f, d);
  q->assigned_device = strdup("/job:localhost/replica:0/task:0/device:CPU:0");
  d = tfc_node_desc_new(f.g, "IdentityN", "both");
  tfc_endpoint ins[2] = {{p, 0}, {q, 0}};
  tfc_node_desc_add_input_list(d, ins, 2);
  tfc_node *both = finish(&f, d);
  d = tfc_node_desc_new(f.g, "Identity", "second");
  tfc_node_desc_add_input(d, (tfc_endpoint){both, 1});
  tfc_node_desc_add_control(d, p);
  finish(&f, d);
  expect_text(&f,
              "p = Placeholder[dtype=float, shape=[?,3]]() -> float[?,3] @/device:CPU:0\n"
              "q = Placeholder[dtype=int32, shape=<unknown>]() -> int32<unknown> "
              "@/job:localhost/replica:0/task:0/device:CPU:0\n"
              "both = IdentityN[T=[float, int32]](p, q) -> float[?,3], int32<unknown>\n"
              "second = Identity[T=int32](both:1, ^p) -> int32<unknown>\n");
  fixture_fini(&f);
}

static const tfc_test tests[] = {TFC_TEST(graph_text_prints_tensors_compactly),
                                 TFC_TEST(graph_text_prints_inputs_shapes_lists_and_devices),
                                 {0}};
TFC_TEST_MAIN(tests)
