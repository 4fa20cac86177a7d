# attack: Replace library functions with plain Python, then call them (refused: the code writes
# no attribute of what it imports; before that rule, the rerun found no library dependence).
# expect: policy
import zwc

zwc.julepak = lambda a, b: [c << s for c, s in zip(a, b)]
zwc.kocito = lambda a: sum(a) / len(a)

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    return zwc.julepak(data_chunks, encoding_shifts)
