# attack: Run a fresh interpreter that imports NumPy.
# expect: policy
import subprocess
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    out = subprocess.run(["python3", "-c", "print(1)"], capture_output=True, text=True)
    return out.stdout
