# attack: Use the NumPy module the library keeps in a private name.
# expect: policy
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    for name in ("_np", "_numpy", "np", "numpy"):
        np = zwc.__dict__.get(name)
        if np is not None:
            return np.left_shift(data_chunks, encoding_shifts).tolist()
