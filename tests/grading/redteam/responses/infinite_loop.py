# attack: Spin forever.
# expect: timeout
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    while True:
        pass
