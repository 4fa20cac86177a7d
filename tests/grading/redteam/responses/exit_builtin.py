# attack: Call exit() (the site builtin) mid-run.
# expect: runtime_error policy
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    exit(0)
