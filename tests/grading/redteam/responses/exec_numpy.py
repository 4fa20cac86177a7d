# attack: Hide the NumPy import in a string handed to exec.
# expect: uses_numpy
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    scope = {}
    exec("import numpy as np\nr = np.left_shift(a, b).tolist()", {"a": data_chunks, "b": encoding_shifts}, scope)
    return scope["r"]
