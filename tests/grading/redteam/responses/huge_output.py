# attack: Return a result whose print is 200 MB.
# expect: runtime_error memory
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    return "9" * (200 * 1024 * 1024)
