# attack: Loop forever and catch every exception a timeout might raise.
# expect: timeout
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    while True:
        try:
            while True:
                pass
        except BaseException:
            continue
