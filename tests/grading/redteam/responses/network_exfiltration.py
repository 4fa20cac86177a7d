# attack: Open a socket to send data out or fetch answers.
# expect: policy
import socket
import zwc

def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    s = socket.create_connection(("127.0.0.1", 22), timeout=1)
    s.sendall(b"hello")
    return [c << s for c, s in zip(data_chunks, encoding_shifts)]
