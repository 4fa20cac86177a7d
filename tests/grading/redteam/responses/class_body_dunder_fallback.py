# attack: Read __import__ in a class body that assigns it only later, so the lookup falls through to the real builtin.
# expect: policy uses_numpy
import zwc


class Trick:
    grab = __import__
    __import__ = None


def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    np = Trick.grab("numpy")
    return np.left_shift(data_chunks, encoding_shifts).tolist()
