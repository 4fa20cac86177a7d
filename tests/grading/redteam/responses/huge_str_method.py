# attack: An object whose __str__ builds an enormous string lazily.
# expect: runtime_error memory timeout
import zwc

class Big:
    def __str__(self):
        return "[" + ", ".join("1" for _ in range(10**8)) + "]"

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    return Big()
