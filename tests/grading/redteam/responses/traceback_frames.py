# attack: Walk traceback frames up into the harness to read its locals.
# expect: policy
import sys
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    try:
        1 / 0
    except ZeroDivisionError:
        frame = sys.exc_info()[2].tb_frame
    while frame is not None:
        for value in frame.f_locals.values():
            if isinstance(value, str) and "#" in value:
                return value.split("#")[0]
        frame = frame.f_back
