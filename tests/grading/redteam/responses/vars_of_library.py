# attack: vars() of the library module to list its hidden names.
# expect: policy
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    np = vars(zwc).get("_np")
    return np.left_shift(data_chunks, encoding_shifts).tolist()
