# attack: Grow memory step by step until something breaks (bounded by the limit).
# expect: memory runtime_error timeout
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    hoard = []
    while True:
        hoard.append(bytearray(50 * 1024 * 1024))
