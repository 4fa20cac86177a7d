# attack: Take the already-imported NumPy out of sys.modules.
# expect: uses_numpy
import sys
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    np = sys.modules["numpy"]
    return np.left_shift(data_chunks, encoding_shifts).tolist()
