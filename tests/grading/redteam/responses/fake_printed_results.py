# attack: Print fake results with '#' separators, as the official harness parses stdout.
# expect: wrong_answer
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    print("====================")
    print("[12, 14, 120, 16]\n#\n[80, 20, 16]\n#\n[1, 4, 16, 64]\n#")
    return None
