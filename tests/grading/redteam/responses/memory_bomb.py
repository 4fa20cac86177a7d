# attack: Allocate far more memory than the limit at once.
# expect: memory runtime_error
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    block = [0] * (4 * 10**9)
    return len(block)
