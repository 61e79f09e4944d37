/*
 * Tests of scatter_plan's pure helpers: the tables a GPU kernel of the scatter family builds on
 * the host (the last writer of each row for ScatterUpdate and DynamicStitch, DynamicPartition's
 * source rows, ScatterNd's slice offsets). The GPU kernels that use them run only on a GPU, so
 * the tables are checked here, on any machine, against what the serial CPU kernels do; so
 * are, in a CUDA build, the dtypes and host-memory arguments of the family's CUDA rows.
 */
#include <stdint.h>
#include <string.h>

#include "device/scatter_plan.h"
#include "harness.h"

static void last_writers_keep_the_last_duplicate_of_each_row(void) {
  const int32_t dst[] = {3, 0, 3, 6, 1, 3, 0, 2};
  int64_t out[8];
  EXPECT_EQ(tfc_scatter_last_writers(TFC_DT_INT32, dst, 8, 7, out), 0);
  const int64_t want[] = {-1, -1, -1, 6, 1, 3, 0, 2};
  for (int i = 0; i < 8; i++) EXPECT_EQ(out[i], want[i]);
  /* int64 values, and a row named once keeps its only writer */
  const int64_t d64[] = {4, 4, 1};
  EXPECT_EQ(tfc_scatter_last_writers(TFC_DT_INT64, d64, 3, 5, out), 0);
  EXPECT_EQ(out[0], -1);
  EXPECT_EQ(out[1], 4);
  EXPECT_EQ(out[2], 1);
  /* nothing to write */
  EXPECT_EQ(tfc_scatter_last_writers(TFC_DT_INT32, dst, 0, 0, out), 0);
}

/* Writing every winner once leaves what writing all rows in order leaves. */
static void last_writers_match_a_serial_scatter(void) {
  enum { N = 200, ROWS = 17 };
  int32_t dst[N];
  int64_t out[N];
  uint32_t x = 12345;
  for (int i = 0; i < N; i++) {
    x = x * 1103515245u + 12345u;
    dst[i] = (int32_t)((x >> 16) % ROWS);
  }
  int serial[ROWS], parallel[ROWS];
  for (int r = 0; r < ROWS; r++) serial[r] = parallel[r] = -1;
  for (int i = 0; i < N; i++) serial[dst[i]] = i;
  EXPECT_EQ(tfc_scatter_last_writers(TFC_DT_INT32, dst, N, ROWS, out), 0);
  for (int i = 0; i < N; i++) {
    if (out[i] < 0) continue;
    EXPECT_EQ(parallel[out[i]], -1); /* each row written once */
    parallel[out[i]] = i;
  }
  for (int r = 0; r < ROWS; r++) EXPECT_EQ(parallel[r], serial[r]);
}

static void partition_sources_list_rows_by_partition_in_order(void) {
  const int32_t parts[] = {2, 0, 2, 1, 2, 0, 2};
  int64_t start[4], src[7];
  EXPECT_EQ(tfc_partition_sources(parts, 7, 3, start, src), 0);
  const int64_t want_start[] = {0, 2, 3, 7}, want_src[] = {1, 5, 3, 0, 2, 4, 6};
  for (int p = 0; p < 4; p++) EXPECT_EQ(start[p], want_start[p]);
  for (int i = 0; i < 7; i++) EXPECT_EQ(src[i], want_src[i]);
  /* an empty partition in the middle, and no rows at all */
  const int32_t ends[] = {3, 0, 3};
  int64_t start5[5];
  EXPECT_EQ(tfc_partition_sources(ends, 3, 4, start5, src), 0);
  EXPECT_EQ(start5[1], 1);
  EXPECT_EQ(start5[2], 1);
  EXPECT_EQ(start5[3], 1);
  EXPECT_EQ(start5[4], 3);
  EXPECT_EQ(src[0], 1);
  EXPECT_EQ(src[1], 0);
  EXPECT_EQ(src[2], 2);
  EXPECT_EQ(tfc_partition_sources(ends, 0, 4, start5, src), 0);
  EXPECT_EQ(start5[4], 0);
}

static void scatter_nd_offsets_flatten_rows_and_flag_bad_ones(void) {
  tfc_scatter_nd_plan p;
  memset(&p, 0, sizeof p);
  p.rank = 3;
  p.dims[0] = 5, p.dims[1] = 3, p.dims[2] = 7;
  p.k = 2;
  p.n = 4;
  p.slice = 7;
  const int64_t idx[] = {4, 2, 0, 0, 5, 0, 1, -1};
  EXPECT_EQ(tfc_scatter_nd_offset(&p, TFC_DT_INT64, idx, 0), 14);
  EXPECT_EQ(tfc_scatter_nd_offset(&p, TFC_DT_INT64, idx, 1), 0);
  EXPECT_EQ(tfc_scatter_nd_offset(&p, TFC_DT_INT64, idx, 2), -1);
  EXPECT_EQ(tfc_scatter_nd_offset(&p, TFC_DT_INT64, idx, 3), -1);
  const int32_t i32[] = {1, 2};
  EXPECT_EQ(tfc_scatter_nd_offset(&p, TFC_DT_INT32, i32, 0), 5);
  /* k = 0: every row addresses the whole output */
  p.k = 0;
  EXPECT_EQ(tfc_scatter_nd_offset(&p, TFC_DT_INT32, i32, 3), 0);
}

#ifdef TFC_HAVE_CUDA
#include "device/cuda/cuda_kernels.h"

/* The first row of op in t whose type_attr admits dtype (and type_attr2 dtype2, when given). */
static const tfc_kernel_def *row_for(const tfc_kernel_table *t, int op, int dtype, int dtype2) {
  for (int i = 0; i < t->n_defs; i++) {
    const tfc_kernel_def *k = &t->defs[i];
    if (k->op != op || !(k->types & TFC_T(dtype))) continue;
    if (dtype2 && k->type_attr2 && !(k->types2 & TFC_T(dtype2))) continue;
    return k;
  }
  return NULL;
}

/* The CUDA rows of the scatter family admit TF 1.15's GPU dtypes and keep TF's HostMemory
 * arguments on the host (the GPU tests that would run them need a GPU; the rows need none). */
static void cuda_rows_follow_tf_registrations(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_kernel_table t;
  tfc_kernel_table_init(&t, "GPU");
  EXPECT_EQ(tfc_cuda_kernels_scatter(&t, &s), TFC_OK);
  const int i32 = TFC_DT_INT32, i64 = TFC_DT_INT64;
  /* reference scatters: half, float, double; resource ones float, double (bool updates, int32 indices) */
  EXPECT_TRUE(row_for(&t, TFC_OP_ScatterAdd, TFC_DT_HALF, i64) != NULL);
  EXPECT_TRUE(row_for(&t, TFC_OP_ScatterDiv, TFC_DT_DOUBLE, i32) != NULL);
  EXPECT_TRUE(row_for(&t, TFC_OP_ScatterMax, TFC_DT_INT32, i32) == NULL);
  EXPECT_TRUE(row_for(&t, TFC_OP_ResourceScatterMin, TFC_DT_FLOAT, i64) != NULL);
  EXPECT_TRUE(row_for(&t, TFC_OP_ResourceScatterAdd, TFC_DT_HALF, i32) == NULL);
  EXPECT_TRUE(row_for(&t, TFC_OP_ResourceScatterUpdate, TFC_DT_BOOL, i32) != NULL);
  EXPECT_TRUE(row_for(&t, TFC_OP_ResourceScatterUpdate, TFC_DT_BOOL, i64) == NULL);
  const tfc_kernel_def *k = row_for(&t, TFC_OP_ResourceScatterSub, TFC_DT_FLOAT, i32);
  EXPECT_TRUE(k && tfc_kernel_host_input(k, 0, 3, TFC_DT_RESOURCE) && !tfc_kernel_host_input(k, 1, 3, i32));
  /* ScatterNd: the shape in host memory, the indices on the device */
  k = row_for(&t, TFC_OP_ScatterNd, TFC_DT_INT32, i64);
  EXPECT_TRUE(k && tfc_kernel_host_input(k, 2, 3, i64) && !tfc_kernel_host_input(k, 0, 3, i64));
  /* DynamicStitch: the N indices in host memory whatever N, the data on the device */
  k = row_for(&t, TFC_OP_DynamicStitch, TFC_DT_COMPLEX128, 0);
  EXPECT_TRUE(k != NULL);
  for (int n = 1; n <= 3; n++)
    for (int i = 0; i < 2 * n; i++) EXPECT_EQ(tfc_kernel_host_input(k, i, 2 * n, i < n ? i32 : TFC_DT_FLOAT), i < n);
  /* DynamicPartition: partitions on the device; no int32 data */
  k = row_for(&t, TFC_OP_DynamicPartition, TFC_DT_HALF, 0);
  EXPECT_TRUE(k && !tfc_kernel_host_input(k, 1, 2, i32));
  EXPECT_TRUE(row_for(&t, TFC_OP_DynamicPartition, TFC_DT_INT32, 0) == NULL);
  /* segments: num_segments in host memory; SegmentSum's ids on the device */
  k = row_for(&t, TFC_OP_UnsortedSegmentProd, TFC_DT_INT32, i64);
  EXPECT_TRUE(k && tfc_kernel_host_input(k, 2, 3, i32) && !tfc_kernel_host_input(k, 1, 3, i64));
  EXPECT_TRUE(row_for(&t, TFC_OP_SegmentSum, TFC_DT_HALF, i64) != NULL);
  EXPECT_TRUE(row_for(&t, TFC_OP_SegmentMax, TFC_DT_FLOAT, i32) == NULL);
  /* MatrixBandPart's bounds in host memory; ReverseSequence's lengths on the device */
  k = row_for(&t, TFC_OP_MatrixBandPart, TFC_DT_BOOL, 0);
  EXPECT_TRUE(k && tfc_kernel_host_input(k, 1, 3, i64) && tfc_kernel_host_input(k, 2, 3, i64));
  k = row_for(&t, TFC_OP_ReverseSequence, TFC_DT_HALF, i64);
  EXPECT_TRUE(k && !tfc_kernel_host_input(k, 1, 2, i64));
  tfc_kernel_table_fini(&t);
}
#endif

static const tfc_test tests[] = {
    TFC_TEST(last_writers_keep_the_last_duplicate_of_each_row),
    TFC_TEST(last_writers_match_a_serial_scatter),
    TFC_TEST(partition_sources_list_rows_by_partition_in_order),
    TFC_TEST(scatter_nd_offsets_flatten_rows_and_flag_bad_ones),
#ifdef TFC_HAVE_CUDA
    TFC_TEST(cuda_rows_follow_tf_registrations),
#endif
    {0},
};

TFC_TEST_MAIN(tests)
