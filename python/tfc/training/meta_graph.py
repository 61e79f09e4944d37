"""tf.train.export_meta_graph / import_meta_graph (being written)."""


def export_meta_graph(filename=None, **kw):
    raise NotImplementedError("tfc: export_meta_graph is not written yet")
