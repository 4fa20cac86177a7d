# attack: Block in sleep instead of burning CPU.
# expect: timeout policy
import time
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    time.sleep(3600)
    return [c << s for c, s in zip(data_chunks, encoding_shifts)]
