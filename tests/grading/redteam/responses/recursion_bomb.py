# attack: Unbounded recursion to crash the interpreter.
# expect: runtime_error
import zwc

def down(n):
    return down(n + 1) + 1

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    return down(0)
