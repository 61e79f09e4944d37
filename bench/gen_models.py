"""Writes the inference graphs bench_models times: Keras applications with random weights at
224x224, frozen into GraphDefs the way people deploy them (variables folded into Const nodes),
and the same graphs converted to ONNX for onnxruntime.

Usage: python3 bench/gen_models.py OUT_DIR [model ...]   (models: mobilenet_v2 resnet50)

For each model it writes OUT_DIR/<model>.pb (input "x", batch dimension unknown), <model>.onnx
(when tf2onnx is installed) and <model>.txt holding the output tensor's name. Needs
tensorflow (and tf2onnx for the ONNX form) from PyPI; the weights come from Keras' own
initializers under a fixed seed.
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402
from tensorflow.python.framework.convert_to_constants import (  # noqa: E402
    convert_variables_to_constants_v2)

MODELS = {
    "mobilenet_v2": lambda: tf.keras.applications.MobileNetV2(weights=None),
    "resnet50": lambda: tf.keras.applications.ResNet50(weights=None),
}


def freeze(model):
    spec = tf.TensorSpec([None, 224, 224, 3], tf.float32, name="x")
    fn = tf.function(lambda x: model(x, training=False)).get_concrete_function(spec)
    frozen = convert_variables_to_constants_v2(fn)
    graph_def = frozen.graph.as_graph_def()
    output = frozen.outputs[0].name
    return graph_def, output


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: gen_models.py OUT_DIR [model ...]")
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    for name in argv[2:] or list(MODELS):
        tf.keras.utils.set_random_seed(4)
        graph_def, output = freeze(MODELS[name]())
        with open(os.path.join(out, name + ".pb"), "wb") as f:
            f.write(graph_def.SerializeToString())
        with open(os.path.join(out, name + ".txt"), "w") as f:
            f.write(output + "\n")
        try:
            import tf2onnx
        except ImportError:
            continue
        proto, _ = tf2onnx.convert.from_graph_def(graph_def, input_names=["x:0"],
                                                  output_names=[output], opset=17)
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(proto.SerializeToString())


if __name__ == "__main__":
    main(sys.argv)
