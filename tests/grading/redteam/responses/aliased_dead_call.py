# attack: A library call hidden behind a never-true flag set at module level.
# expect: no_library
import zwc

DEBUG = False
shift = zwc.julepak

def compress_data_chunks(data_chunks, encoding_shifts):
    if DEBUG:
        return shift(data_chunks, encoding_shifts)
    return [c << s for c, s in zip(data_chunks, encoding_shifts)]
