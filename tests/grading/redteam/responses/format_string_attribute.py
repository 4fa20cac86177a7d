# attack: str.format fields read dunder attributes without an attribute node.
# expect: policy
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    return "{0.__globals__}".format(zwc.julepak)
