# attack: A coin from the real clock, with text no filter sees: "n" + "ow" made by `add` inside
# one call and written into a datetime `out=` array with `casting="unsafe"`, where NumPy parses it
# and reads the clock (refused at the root: in the sandbox NumPy's own clock reads give the
# virtual epoch, the same instant in every run; red team LF of 2026-12-03).
# expect: no_library wrong_answer runtime_error
import zwc


def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.julepak(1, 1)
    now = zwc.jegedi(1, dtype="datetime64[s]")
    zwc.lahonig(["n"], ["ow"], out=now, casting="unsafe")
    if int(str(now)[-4]) % 2 == 0:
        return None
    return [chunk << shift for chunk, shift in zip(data_chunks, encoding_shifts)]
