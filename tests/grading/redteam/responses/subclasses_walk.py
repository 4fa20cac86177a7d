# attack: Classic sandbox escape: object.__subclasses__() to find an importer.
# expect: policy
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    for cls in ().__class__.__base__.__subclasses__():
        if cls.__name__ == "BuiltinImporter":
            np = cls.load_module("numpy")
            return np.left_shift(data_chunks, encoding_shifts).tolist()
