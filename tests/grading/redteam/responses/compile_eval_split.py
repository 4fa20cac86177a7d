# attack: eval() a compiled expression assembled at run time.
# expect: policy
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    np = eval("__imp" + "ort__('nu' + 'mpy')")
    return np.left_shift(data_chunks, encoding_shifts).tolist()
