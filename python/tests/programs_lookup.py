"""TF 1.x programs of lookup tables and the newer string ops: tf.lookup (StaticHashTable,
StaticVocabularyTable, KeyValueTensorInitializer, TextFileInitializer, TextFileIndex,
experimental.MutableHashTable, tables_initializer), tf.strings
(regex_full_match, regex_replace, split, to_hash_bucket_*, strip/lower/upper, format) and
tf.print, run under TensorFlow (gen_expectations.py programs_lookup records them) and under tfc
(test_differential.py). Values and error texts are compared; node names are not (TF names its
tables' shared names by uuid).
"""
import os
import tempfile

from programs_opstail import _first_line, _r, _run

VOCAB = ["the", "movie", "was", "great", "bad"]


def _vocab_file():
    d = tempfile.mkdtemp(prefix="tfc_lookup_")
    path = os.path.join(d, "vocab.txt")
    with open(path, "w") as f:
        f.write("\n".join(VOCAB) + "\n")
    return path


def static_tables(tf):
    K = tf.lookup.KeyValueTensorInitializer
    t1 = tf.lookup.StaticHashTable(K(tf.constant([3, 1], tf.int64), ["three", "one"]), "UNK")
    t2 = tf.lookup.StaticHashTable(K(["a", "b"], tf.constant([0.5, 1.5])), -1.0)
    r = [t1.lookup(tf.constant([[1, 2], [3, 3]], tf.int64)), t1.size(), t2.lookup(tf.constant(["b", "z"]))]
    with tf.Session() as s:
        s.run(tf.tables_initializer())
        got = s.run(r)
    return {"values": _r(got), "n_initializers": len(tf.get_collection(tf.GraphKeys.TABLE_INITIALIZERS)),
            "shapes": [str(t.shape) for t in r]}


def vocabulary_from_file(tf):
    path = _vocab_file()
    words = tf.constant(["great", "movie", "unknown", "", "the"])
    L = tf.lookup
    t = L.StaticHashTable(L.TextFileInitializer(path, tf.string, L.TextFileIndex.WHOLE_LINE, tf.int64,
                                                L.TextFileIndex.LINE_NUMBER), -7)
    oov = L.StaticVocabularyTable(L.TextFileInitializer(path, tf.string, L.TextFileIndex.WHOLE_LINE, tf.int64,
                                                        L.TextFileIndex.LINE_NUMBER), 3)
    lines = tf.lookup.StaticHashTable(
        tf.lookup.TextFileInitializer(path, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER, tf.string,
                                      tf.lookup.TextFileIndex.WHOLE_LINE), "")
    r = [t.lookup(words), oov.lookup(words), lines.lookup(tf.constant([4, 0, 9], tf.int64))]
    with tf.Session() as s:
        s.run(tf.tables_initializer())
        return {"values": _r(s.run(r))}


def uninitialized_table(tf):
    t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [1]), -1)
    return {"error": _first_line(tf, t.lookup(tf.constant(["a"])))}


def missing_vocabulary(tf):
    L = tf.lookup
    L.StaticHashTable(L.TextFileInitializer("/nonexistent/tfc_vocab.txt", tf.string, -2, tf.int64, -1), -1)
    return {"error": _first_line(tf, tf.tables_initializer())}


def mutable_tables(tf):
    m = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    ins = m.insert(tf.constant(["a", "b", "c"]), tf.constant([1, 2, 3], tf.int64))
    with tf.Session() as s:
        s.run(ins)
        before = s.run([m.lookup(tf.constant(["c", "x"])), m.size()])
        s.run(m.remove(tf.constant(["b"])))
        after = s.run([m.lookup(tf.constant(["b", "a"])), m.size()])
    return {"values": _r([before, after])}


def regexes(tf):
    x = tf.constant(["hello world", "Hello", "abc123", ""])
    r = [tf.strings.regex_full_match(x, "(?i)h.*"), tf.strings.regex_full_match(x, tf.constant(".*\\d")),
         tf.strings.regex_replace(x, "[aeiou]", "_"), tf.strings.regex_replace(x, "(\\w+) (\\w+)", "\\2 \\1"),
         tf.strings.regex_replace(x, "l", "L", replace_global=False), tf.regex_replace(x, tf.constant("o"), "0")]
    return {"values": _r(_run(tf, r)), "types": [t.op.type for t in r]}


def bad_regex(tf):
    # The pattern fails when the kernel is made: the class and TF's first line are compared.
    cls, msg = _first_line(tf, tf.strings.regex_full_match(tf.constant(["a"]), "a(b"))
    return {"error": [cls, msg]}


def splits_and_hashes(tf):
    x = tf.constant(["  a  b c ", "x,,y", "", "hello world"])
    sp = [tf.strings.split(x), tf.strings.split(x, sep=","), tf.strings.split(x, maxsplit=1)]
    r = [v for s in sp for v in (s.indices, s.values, s.dense_shape)]
    r += [tf.strings.to_hash_bucket_fast(x, 1000), tf.strings.to_hash_bucket_strong(x, 1000, [1, 2]),
          tf.string_to_hash_bucket(x, 1000), tf.string_to_hash_bucket_fast(x, 7)]
    return {"values": _r(_run(tf, r))}


def case_and_format(tf):
    r = [tf.strings.strip([" a b\t"]), tf.strings.lower(["AbC"]), tf.strings.upper(["AbC"]),
         tf.strings.format("x={} y={}", (tf.constant([[1, 2], [3, 4]]), tf.constant("s"))),
         tf.strings.format("{}", tf.constant(list(range(10))), summarize=2),
         tf.strings.format("v: <>", tf.constant([0.5, 2.0]), placeholder="<>")]
    return {"values": _r(_run(tf, r))}


def format_count_mismatch(tf):
    try:
        tf.strings.format("{} {}", tf.constant(1))
    except ValueError as e:
        return {"error": ["ValueError", str(e)]}
    return {"error": None}


def prints(tf):
    path = os.path.join(tempfile.mkdtemp(prefix="tfc_print_"), "out.txt")
    p = tf.print("step", tf.constant(3), tf.constant([1.5, 2.0]), output_stream="file://" + path, sep="|", end="!\n")
    with tf.Session() as s:
        s.run(p)
        s.run(p)
    with open(path) as f:
        return {"printed": f.read(), "type": p.type}


PROGRAMS = [
    static_tables, vocabulary_from_file, uninitialized_table, missing_vocabulary, mutable_tables, regexes, bad_regex,
    splits_and_hashes, case_and_format, format_count_mismatch, prints,
]
