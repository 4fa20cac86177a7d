# attack: Build the module name from pieces so no string says 'numpy'.
# expect: policy
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    np = __import__("nu" + "mpy")
    return np.left_shift(data_chunks, encoding_shifts).tolist()
