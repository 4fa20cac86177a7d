# attack: Write marker files outside the sandbox (tmp, home, library).
# expect: policy
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    for path in ("/tmp/sebench-redteam-marker", "/root/sebench-redteam-marker", zwc.__file__):
        with open(path, "a") as handle:
            handle.write("pwned")
    return [c << s for c, s in zip(data_chunks, encoding_shifts)]
