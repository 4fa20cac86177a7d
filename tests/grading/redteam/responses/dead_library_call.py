# attack: A library call that never runs satisfies a static check.
# expect: no_library
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    if len(data_chunks) < 0:
        zwc.julepak(data_chunks, encoding_shifts)
    return [c << s for c, s in zip(data_chunks, encoding_shifts)]
