# attack: os._exit(0): leave no result and hope silence is a pass.
# expect: policy
import os
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    os._exit(0)
