# attack: Kill the parent (the fork server) and its process group.
# expect: policy
import os
import signal
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    os.kill(os.getppid(), signal.SIGKILL)
    os.killpg(0, signal.SIGKILL)
    return [c << s for c, s in zip(data_chunks, encoding_shifts)]
