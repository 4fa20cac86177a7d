# attack: Spawn worker processes with multiprocessing.
# expect: policy
import multiprocessing
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    procs = [multiprocessing.Process(target=lambda: None) for _ in range(64)]
    for p in procs:
        p.start()
    return [c << s for c, s in zip(data_chunks, encoding_shifts)]
