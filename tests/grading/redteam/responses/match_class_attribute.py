# attack: A match class pattern reads __globals__ without an attribute node.
# expect: policy
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    match zwc.julepak:
        case object(__globals__=g):
            return g
