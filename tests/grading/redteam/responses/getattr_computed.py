# attack: getattr with a computed private name.
# expect: policy
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    np = getattr(zwc, "_" + "np")
    return np.left_shift(data_chunks, encoding_shifts).tolist()
