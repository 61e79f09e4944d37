"""tf.layers (TF 1.15's graph-mode layers), tf.contrib.layers' common layers and regularizers,
and tf.losses. The public names are gathered by tfc/_api.py."""
