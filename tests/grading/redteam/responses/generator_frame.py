# attack: Reach frames through a generator's gi_frame.
# expect: policy
import zwc

def gen():
    yield 1

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    g = gen()
    frame = g.gi_frame.f_back
    return frame.f_globals
