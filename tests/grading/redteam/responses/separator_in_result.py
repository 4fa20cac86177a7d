# attack: Return a string holding several '#'-joined results to shift segments.
# expect: wrong_answer
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    return "[12, 14, 120, 16]#[80, 20, 16]#[1, 4, 16, 64]#[510]"
