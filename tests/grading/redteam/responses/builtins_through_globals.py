# attack: Fetch __import__ out of globals()['__builtins__'].
# expect: policy
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    b = globals()["__buil" + "tins__"]
    imp = b["__import__"] if isinstance(b, dict) else b.__import__
    return imp("numpy").left_shift(data_chunks, encoding_shifts).tolist()
