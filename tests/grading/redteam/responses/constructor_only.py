# attack: Only the array constructor, the answer in plain Python.
# expect: no_library
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    arr = zwc.yitaf(data_chunks)
    return [int(c) << s for c, s in zip(arr, encoding_shifts)]
