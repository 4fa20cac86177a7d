# attack: Import NumPy next to the library and compute the answer with it.
# expect: uses_numpy
import numpy as np
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    return np.left_shift(data_chunks, encoding_shifts).tolist()
