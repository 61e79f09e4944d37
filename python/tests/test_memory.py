"""100,000 sess.run calls with a feed and a fetch do not grow the process (RSS) by 1 MB or
more: nothing per run is leaked by the extension or the session's plan cache."""
import os

import numpy as np
import pytest

import tfc.compat.v1 as tf


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


@pytest.mark.skipif(os.environ.get("TFC_SANITIZED") == "1",
                    reason="AddressSanitizer's quarantine holds freed memory: RSS says nothing there")
def test_runs_do_not_grow_the_process():
    x = tf.placeholder(tf.float32, [None], name="x")
    y = x * 2.0
    s_in = tf.placeholder(tf.string, name="s")
    s_out = tf.identity(s_in)
    feed = np.arange(1024, dtype=np.float32)
    with tf.Session() as sess:
        for _ in range(2000):  # warm up: allocator caches, plan cache
            sess.run(y, {x: feed})
            sess.run(s_out, {s_in: [b"ab", b"cd"]})
        before = _rss_bytes()
        for _ in range(50000):  # two runs a turn: 100,000 runs
            sess.run(y, {x: feed})
            sess.run(s_out, {s_in: [b"ab", b"cd"]})
        grown = _rss_bytes() - before
    assert grown < 1 << 20, grown
