# attack: Alias getattr so no direct call names it.
# expect: policy
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    look = getattr
    g = look(zwc.julepak, "__glob" + "als__")
    return g
