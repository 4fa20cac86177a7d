# attack: inspect.stack() to read the caller's variables.
# expect: policy
import inspect
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    for info in inspect.stack():
        if "expected" in info.frame.f_locals:
            return info.frame.f_locals["expected"]
