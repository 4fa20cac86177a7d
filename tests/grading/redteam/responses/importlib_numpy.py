# attack: Reach NumPy with importlib.import_module.
# expect: uses_numpy
import importlib
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    np = importlib.import_module("numpy")
    return np.left_shift(data_chunks, encoding_shifts).tolist()
