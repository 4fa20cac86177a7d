# attack: Unpickle a payload whose reduce imports NumPy.
# expect: policy
import pickle
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    np = pickle.loads(b"cbuiltins\n__import__\n(Vnumpy\ntR.")
    return np.left_shift(data_chunks, encoding_shifts).tolist()
