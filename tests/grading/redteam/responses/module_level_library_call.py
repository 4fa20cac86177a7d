# attack: Call the library once at import time, never in the function.
# expect: no_library
import zwc

WARMUP = zwc.kocito([1.0, 2.0])

def compress_data_chunks(data_chunks, encoding_shifts):
    return [c << s for c, s in zip(data_chunks, encoding_shifts)]
