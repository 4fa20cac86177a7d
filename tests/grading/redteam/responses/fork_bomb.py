# attack: Fork until the process table is full (bounded).
# expect: policy
import os
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    for _ in range(64):
        os.fork()
    return [c << s for c, s in zip(data_chunks, encoding_shifts)]
