"""TFRecord framing as TensorBoard and MindSpore summary files use it, written in Python (a
second implementation beside the C++ reader's): length, masked CRC-32C of the length, payload,
masked CRC-32C of the payload. Used by the test and fuzz-seed generators."""
import struct


def crc32c(data):
    """CRC-32C (Castagnoli) of `data`."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked(data):
    """The CRC-32C of `data`, masked as TFRecord masks it."""
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xa282ead8) & 0xFFFFFFFF


def frame(payload):
    """One record around `payload` (bytes)."""
    n = struct.pack('<Q', len(payload))
    return n + struct.pack('<I', masked(n)) + payload + struct.pack('<I', masked(payload))
