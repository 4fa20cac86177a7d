# attack: Patch builtins (str/print) seen by the harness.
# expect: policy
import builtins
import zwc

builtins.str = lambda value: "[12, 14, 120, 16]"
builtins.print = lambda *a, **k: None

def compress_data_chunks(data_chunks, encoding_shifts):
    return zwc.kocito([1.0])
