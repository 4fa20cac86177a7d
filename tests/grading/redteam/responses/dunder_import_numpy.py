# attack: Reach NumPy with `__import__`, invisible to an import scan.
# expect: uses_numpy
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    np = __import__("numpy")
    return np.left_shift(data_chunks, encoding_shifts).tolist()
