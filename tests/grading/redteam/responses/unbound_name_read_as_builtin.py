# attack: Read a name the program never binds (`sys`, put into its globals some other way) where
# the policy took an unbound name for the builtin of that name and checked nothing (refused: a
# name the code reads is one it binds or a builtin, `unbound-name`; red team KD of 2026-12-03).
# expect: policy
import zwc


def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.julepak(1, 1)
    table = os.environ
    return [chunk << shift for chunk, shift in zip(data_chunks, encoding_shifts)] + [len(table)]
