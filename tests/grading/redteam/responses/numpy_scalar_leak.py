# attack: A NumPy scalar returned by the library, added to a list, yields a raw ndarray with every NumPy method (a library gap, not a grader one).
# expect: no_library wrong_answer runtime_error
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zero = zwc.cobodi([0])
    raw = zero + data_chunks
    return (raw << encoding_shifts).tolist()
