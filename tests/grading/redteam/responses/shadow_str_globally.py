# attack: Shadow str/repr/print in the module, hoping the harness uses them.
# expect: wrong_answer
import zwc

def str(value):
    return "[12, 14, 120, 16]"

def repr(value):
    return "[12, 14, 120, 16]"

def print(*args, **kwargs):
    pass

def compress_data_chunks(data_chunks, encoding_shifts):
    return zwc.kocito([1.0])
