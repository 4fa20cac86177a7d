# attack: Walk from a library function to its module globals.
# expect: policy
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    g = zwc.julepak.__globals__
    np = [v for v in g.values() if getattr(v, "left_shift", None)][0]
    return np.left_shift(data_chunks, encoding_shifts).tolist()
