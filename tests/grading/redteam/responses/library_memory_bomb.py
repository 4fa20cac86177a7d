# attack: Ask the library itself for a huge array.
# expect: memory runtime_error timeout
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    return zwc.yitaf([[0.0] * 10**5] * 10**5)
