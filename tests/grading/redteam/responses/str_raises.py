# attack: An object whose __str__ raises, to crash the reporting code.
# expect: runtime_error
import zwc

class Boom:
    def __str__(self):
        raise SystemExit(0)

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    return Boom()
