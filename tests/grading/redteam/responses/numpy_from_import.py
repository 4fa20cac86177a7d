# attack: `from numpy import` one function.
# expect: uses_numpy
from numpy import left_shift
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    return left_shift(data_chunks, encoding_shifts).tolist()
