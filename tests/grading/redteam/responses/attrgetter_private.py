# attack: operator.attrgetter with a dunder path.
# expect: policy
import operator
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    return operator.attrgetter("__globals__")(zwc.julepak)
