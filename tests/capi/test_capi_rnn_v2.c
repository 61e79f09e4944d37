/*
 * Dynamic RNNs in control flow v2, written by real TensorFlow (tests/fixtures/gen_rnn_v2.py
 * writes rnn2_NAME.pb and the session script rnn2_NAME.session; both are committed):
 * tf.compat.v1.nn.dynamic_rnn with LSTMCell and GRUCell and a different sequence length per row, whose time loop is a
 * StatelessWhile over library functions carrying TensorLists. Run through the public C API:
 * the outputs and final states right after init must be within 1e-5 of TensorFlow's, and a
 * training graph (the gradient While, fed by TensorList accumulators) must reproduce
 * TensorFlow's loss at every one of five Adam or gradient-descent steps within 1e-4 relative.
 * Also TF 2.x's TensorArrays in loops (tests/fixtures/gen_tensor_list.py: tf.map_fn, tf.scan,
 * a dynamic-size TensorArray written in a while_loop, scatter/gather, split/concat), values and
 * gradients. (Format, tolerances and replay of the scripts: session_script.h.)
 */
#include "../fixtures/session_script.h"
#include "harness.h"

static void lstm_inference_matches_tensorflow(void) { ss_replay_fixture("rnn2_lstm_infer"); }
static void gru_inference_matches_tensorflow(void) { ss_replay_fixture("rnn2_gru_infer"); }
static void lstm_adam_training_matches_tensorflow(void) { ss_replay_fixture("rnn2_lstm_adam"); }
static void lstm_gradient_descent_training_matches_tensorflow(void) { ss_replay_fixture("rnn2_lstm_gd"); }
static void gru_adam_training_matches_tensorflow(void) { ss_replay_fixture("rnn2_gru_adam"); }
static void gru_gradient_descent_training_matches_tensorflow(void) { ss_replay_fixture("rnn2_gru_gd"); }
static void map_fn_and_its_gradient_match_tensorflow(void) { ss_replay_fixture("tl_map_fn"); }
static void scan_and_its_gradient_match_tensorflow(void) { ss_replay_fixture("tl_scan"); }
static void dynamic_size_tensor_array_in_a_loop_matches_tensorflow(void) { ss_replay_fixture("tl_dynamic"); }
static void tensor_array_scatter_gather_and_reads_in_a_loop_match_tensorflow(void) { ss_replay_fixture("tl_scatter"); }
static void tensor_array_split_and_concat_match_tensorflow(void) { ss_replay_fixture("tl_concat"); }

static const tfc_test tests[] = {
    TFC_TEST(lstm_inference_matches_tensorflow),
    TFC_TEST(gru_inference_matches_tensorflow),
    TFC_TEST(lstm_adam_training_matches_tensorflow),
    TFC_TEST(lstm_gradient_descent_training_matches_tensorflow),
    TFC_TEST(gru_adam_training_matches_tensorflow),
    TFC_TEST(gru_gradient_descent_training_matches_tensorflow),
    TFC_TEST(map_fn_and_its_gradient_match_tensorflow),
    TFC_TEST(scan_and_its_gradient_match_tensorflow),
    TFC_TEST(dynamic_size_tensor_array_in_a_loop_matches_tensorflow),
    TFC_TEST(tensor_array_scatter_gather_and_reads_in_a_loop_match_tensorflow),
    TFC_TEST(tensor_array_split_and_concat_match_tensorflow),
    {0},
};

TFC_TEST_MAIN(tests)
