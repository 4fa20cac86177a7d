# attack: An object equal to everything, printing the example output.
# expect: wrong_answer policy
import zwc

class Anything:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __str__(self):
        return "[12, 14, 120, 16]"

    __repr__ = __str__

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    return Anything()
